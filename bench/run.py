"""Reader benchmark: `tracecheck.read_traces` against the parse floor, side by side, one run.

    python bench/run.py                      # 1k, 10k, 100k spans; every format; best of 3
    python bench/run.py --quick              # 1k and 10k, one repetition, no memory
    python bench/run.py --sizes 1000,10000 --formats otlp-jsonl,otlp-proto --repeat 5

Every timing runs in a fresh subprocess (imports done before the clock starts), with the file
already in the page cache: the parent reads every file once before any timing. The floor includes
reading the file's bytes from the page cache, as `read_traces(path)` does, and runs with the
cyclic garbage collector disabled (`gc.disable()` before the clock starts). The table is Markdown
on stdout; progress goes to stderr. See bench/README.md for what each column means.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workload import DEFAULT_DIR, FORMATS, Workload, ensure  # noqa: E402

# What `read_traces(path, format=...)` calls each workload format when it is passed explicitly.
TRACECHECK_FORMAT = {
    "otlp-json": "otlp-json",
    "otlp-jsonl": "otlp-jsonl",
    "otlp-proto": "otlp-proto",
    "otlp-pbstream": "otlp-proto",
}
FLOOR_TEXT = {
    "otlp-json": "`orjson.loads` of the whole file",
    "otlp-jsonl": "`orjson.loads` of every line (each tree dropped)",
    "otlp-proto": "`ExportTraceServiceRequest.FromString` of the whole file",
    "otlp-pbstream": "`ExportTraceServiceRequest.FromString` of every record",
}
TARGET_RATIO = 1.5
TARGET_MEMORY = 3.0


# ---------------------------------------------------------------------------------------------
# Worker: one measurement in a fresh interpreter, printed as one JSON object.


def _floor(path: Path, fmt: str) -> tuple[float, int]:
    """Seconds to read and parse the file with nothing else done, GC disabled; and records."""
    import gc
    import struct

    import orjson
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    gc.disable()
    records = 0
    document: Any = None
    started = time.perf_counter()
    if fmt == "otlp-json":
        document = orjson.loads(path.read_bytes())
        records = 1
    elif fmt == "otlp-jsonl":
        with path.open("rb") as lines:
            for line in lines:
                if line.strip():
                    orjson.loads(line)
                    records += 1
    elif fmt == "otlp-proto":
        document = ExportTraceServiceRequest.FromString(path.read_bytes())
        records = 1
    else:
        prefix = struct.Struct(">I")
        with path.open("rb") as stream:
            while header := stream.read(4):
                body = stream.read(prefix.unpack(header)[0])
                ExportTraceServiceRequest.FromString(body)
                records += 1
    seconds = time.perf_counter() - started
    del document  # kept alive until the clock stopped
    return seconds, records


def _status(field: str) -> int:
    """A `/proc/self/status` memory figure (VmRSS, VmHWM) in bytes."""
    with Path("/proc/self/status").open() as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise LookupError(field)


def _reset_peak() -> bool:
    """Reset this process's peak RSS (VmHWM) to its current RSS (Linux 4.0+)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def worker(measure: str, path: Path, fmt: str | None) -> dict[str, Any]:
    if measure == "floor":
        assert fmt is not None
        seconds, records = _floor(path, fmt)
        return {"seconds": seconds, "records": records}

    import tracemalloc

    import tracecheck

    out: dict[str, Any] = {}
    kwargs = {"format": fmt} if fmt else {}
    traced = measure.endswith("-tracemalloc")
    # Peak RSS comes from VmHWM, not getrusage: ru_maxrss survives fork+exec on Linux, so a
    # worker would inherit the high-water mark of the (large) benchmark driver that forked it.
    reset = _reset_peak()
    base_rss = _status("VmRSS")
    base_peak = base_rss if reset else _status("VmHWM")
    if traced:
        tracemalloc.start()
    started = time.perf_counter()
    try:
        if measure.startswith("iter"):
            spans = 0
            for _ in tracecheck.iter_spans(path, **kwargs):
                spans += 1
            out.update(spans=spans)
        else:
            traces = tracecheck.read_traces(path, **kwargs)
            out.update(
                spans=sum(len(t.spans) for t in traces),
                traces=len(traces),
                notes=max((len(t.notes) for t in traces), default=0),
            )
    except Exception as exc:
        return {"error": f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}"}
    out["seconds"] = time.perf_counter() - started
    if traced:
        out["tracemalloc_peak"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    out["peak_rss_delta"] = _status("VmHWM") - base_peak
    out["rss_retained"] = _status("VmRSS") - base_rss
    out["baseline_rss"] = base_rss
    out["peak_reset"] = reset
    return out


def _run_worker(measure: str, path: Path, fmt: str | None) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", measure, str(path)]
    if fmt:
        command.append(fmt)
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        return {"error": f"worker {measure} failed: {tail[0]}"}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# ---------------------------------------------------------------------------------------------
# Driver.


@dataclass
class Row:
    workload: Workload
    fmt: str
    file_bytes: int
    reader: str = "read_traces"
    floor: list[float] = field(default_factory=list)
    read: list[float] = field(default_factory=list)
    spans: int | None = None
    traces: int | None = None
    notes: int | None = None
    error: str | None = None
    explicit: bool = False  # the timing passed format= because sniffing failed

    @property
    def best_floor(self) -> float | None:
        return min(self.floor) if self.floor else None

    @property
    def best_read(self) -> float | None:
        return min(self.read) if self.read else None


@dataclass
class MemoryRow:
    workload: Workload
    fmt: str
    reader: str
    trace_bytes: int
    file_bytes: int
    peak_delta: int | None = None
    baseline: int | None = None
    retained: int | None = None
    tracemalloc_peak: int | None = None
    error: str | None = None
    explicit: bool = False


def sources_digest() -> str:
    """A short digest of tracecheck's sources, to tell whether they changed during a run."""
    import hashlib

    digest = hashlib.sha256()
    package = HERE.parent / "tracecheck"
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def _warm(path: Path) -> None:
    """Read the file once so every timing finds it in the page cache."""
    with path.open("rb") as stream:
        while stream.read(1 << 24):
            pass


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _measure_read(row: Row, path: Path, measure: str) -> None:
    fmt = TRACECHECK_FORMAT[row.fmt] if row.explicit else None
    result = _run_worker(measure, path, fmt)
    if "error" in result and not row.explicit:
        row.error = result["error"]
        row.explicit = True
        _progress(f"    {measure} raised: {row.error}; retrying with format=")
        result = _run_worker(measure, path, TRACECHECK_FORMAT[row.fmt])
    if "error" in result:
        row.error = (row.error + "; then " if row.error else "") + result["error"]
        return
    row.read.append(result["seconds"])
    row.spans, row.traces, row.notes = (
        result.get("spans"),
        result.get("traces"),
        result.get("notes"),
    )


def time_workload(workload: Workload, root: Path, formats: list[str], repeat: int) -> list[Row]:
    meta = ensure(workload, root)
    rows: list[Row] = []
    for fmt in formats:
        path = workload.path(root, fmt)
        _warm(path)
        main = Row(workload, fmt, meta["files"][fmt]["bytes"])
        rows.append(main)
        extra = None
        if fmt == "otlp-jsonl":
            extra = Row(workload, fmt, main.file_bytes, reader="iter_spans")
            rows.append(extra)
        for rep in range(repeat):
            _progress(f"  {workload.label} {fmt} repetition {rep + 1}/{repeat}")
            main.floor.append(_run_worker("floor", path, fmt)["seconds"])
            _measure_read(main, path, "read")
            if extra is not None:
                extra.floor = main.floor
                _measure_read(extra, path, "iter")
    return rows


def memory_workload(workload: Workload, root: Path, formats: list[str]) -> list[MemoryRow]:
    meta = ensure(workload, root)
    rows: list[MemoryRow] = []
    largest = meta["largest_trace_json_bytes"]
    for fmt in formats:
        path = workload.path(root, fmt)
        _warm(path)
        readers = ["read_traces"] + (["iter_spans"] if fmt == "otlp-jsonl" else [])
        for reader in readers:
            _progress(f"  memory {workload.label} {fmt} {reader}")
            row = MemoryRow(workload, fmt, reader, largest, meta["files"][fmt]["bytes"])
            rows.append(row)
            prefix = "read" if reader == "read_traces" else "iter"
            for suffix in ("", "-tracemalloc"):
                result = _run_worker(prefix + suffix, path, None)
                if "error" in result:
                    row.error, row.explicit = result["error"], True
                    result = _run_worker(prefix + suffix, path, TRACECHECK_FORMAT[fmt])
                if "error" in result:
                    row.error = f"{row.error}; then {result['error']}"
                    break
                if suffix:
                    row.tracemalloc_peak = result["tracemalloc_peak"]
                else:
                    row.peak_delta = result["peak_rss_delta"]
                    row.baseline = result["baseline_rss"]
                    row.retained = result["rss_retained"]
    return rows


# ---------------------------------------------------------------------------------------------
# Report.


def machine() -> list[str]:
    import google.protobuf
    import orjson
    from google.protobuf.internal import api_implementation

    cpu = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return [
        f"- machine: {os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {cpu}, "
        f"{platform.system()} {platform.release()}",
        f"- Python {platform.python_version()} ({platform.python_implementation()}), "
        f"orjson {orjson.__version__}, protobuf {google.protobuf.__version__} "
        f"({api_implementation.Type()} backend)",
    ]


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def _secs(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def timing_table(rows: list[Row], repeat: int) -> list[str]:
    out = [
        f"Best of {repeat}; every timing in a fresh subprocess, file in the page cache.",
        "",
        "| workload | format | reader | file | floor | read | read/floor | spans/s |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        floor, read = row.best_floor, row.best_read
        ratio = f"{read / floor:.2f}×" if floor and read else "—"
        if floor and read and read / floor > TARGET_RATIO:
            ratio += " ⚠"
        rate = f"{row.workload.spans / read:,.0f}" if read else "—"
        mark = " †" if row.explicit else ""
        reader = f"`{row.reader}`{mark}"
        out.append(
            f"| {row.workload.label} | {row.fmt} | {reader} | {_mb(row.file_bytes)} | "
            f"{_secs(floor)} | {_secs(read)} | {ratio} | {rate} |"
        )
    return out


def memory_table(rows: list[MemoryRow]) -> list[str]:
    out = [
        "| workload | format | reader | file | largest trace (JSON) | peak RSS Δ | "
        "RSS Δ / trace | RSS Δ / file | RSS retained | tracemalloc peak | tracemalloc / trace |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        mark = " †" if row.explicit else ""
        lead = (
            f"| {row.workload.label} | {row.fmt} | `{row.reader}`{mark} | {_mb(row.file_bytes)} | "
            f"{_mb(row.trace_bytes)} |"
        )
        if row.peak_delta is None:
            out.append(f"{lead} error | | | | | |")
            continue
        ratio = row.peak_delta / row.trace_bytes
        # read_traces returns every trace, so with several traces it holds the whole file:
        # the per-trace target applies to one-trace files and to streaming.
        applies = row.workload.traces == 1 or row.reader == "iter_spans"
        flag = " ⚠" if applies and ratio >= TARGET_MEMORY else ""
        traced = row.tracemalloc_peak
        out.append(
            f"{lead} {_mb(row.peak_delta)} | {ratio:.2f}×{flag} | "
            f"{row.peak_delta / row.file_bytes:.2f}× | {_mb(row.retained or 0)} | "
            f"{_mb(traced) if traced is not None else '—'} | "
            f"{f'{traced / row.trace_bytes:.2f}×' if traced is not None else '—'} |"
        )
    return out


def problems(rows: list[Row], memory: list[MemoryRow]) -> list[str]:
    out = []
    for row in rows:
        where = f"{row.workload.label} {row.fmt} `{row.reader}`"
        if row.error:
            out.append(f"- {where}: `{row.error}`")
        if row.spans is not None and row.spans != row.workload.spans:
            out.append(f"- {where}: read {row.spans} spans, the file holds {row.workload.spans}")
        if row.traces is not None and row.traces != row.workload.traces:
            out.append(f"- {where}: read {row.traces} traces, the file holds {row.workload.traces}")
        if row.notes:
            out.append(f"- {where}: the reader made {row.notes} notes")
    seen = {(r.workload, r.fmt, r.reader) for r in rows if r.error}
    for mrow in memory:
        if mrow.error and (mrow.workload, mrow.fmt, mrow.reader) not in seen:
            out.append(f"- memory {mrow.workload.label} {mrow.fmt} `{mrow.reader}`: `{mrow.error}`")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="span counts, comma-separated")
    parser.add_argument(
        "--traces",
        default="1,100",
        help="trace counts; a count T is used for sizes of at least 100×T spans (default 1,100)",
    )
    parser.add_argument("--formats", default=",".join(FORMATS), help=", ".join(FORMATS))
    parser.add_argument("--repeat", type=int, default=3, help="repetitions; the best is kept")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="1k and 10k spans, one trace, one repetition, no memory",
    )
    parser.add_argument("--no-memory", action="store_true", help="skip the memory measurements")
    parser.add_argument("--no-timing", action="store_true", help="only the memory measurements")
    parser.add_argument("--data", type=Path, default=DEFAULT_DIR, help="workload cache directory")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        measure, path, *fmt = args.worker
        result = worker(measure, Path(path), fmt[0] if fmt else None)
        print(json.dumps(result), flush=True)
        os._exit(0)  # skip tearing down millions of objects

    if args.quick:
        args.sizes, args.traces, args.repeat, args.no_memory = "1000,10000", "1", 1, True
    sizes = [int(s) for s in args.sizes.split(",") if s]
    trace_counts = [int(t) for t in args.traces.split(",") if t]
    formats = [f for f in args.formats.split(",") if f]
    unknown = set(formats) - set(FORMATS)
    if unknown:
        parser.error(f"unknown format(s) {', '.join(sorted(unknown))}; known: {', '.join(FORMATS)}")
    workloads = [
        Workload(size, traces)
        for size in sizes
        for traces in trace_counts
        if traces == 1 or size >= 100 * traces
    ]

    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    digest_before = sources_digest()
    rows: list[Row] = []
    for workload in workloads if not args.no_timing else []:
        _progress(f"timing {workload.label}")
        rows += time_workload(workload, args.data, formats, args.repeat)
    memory: list[MemoryRow] = []
    if not args.no_memory:
        largest = max(sizes)
        for workload in workloads:
            if workload.spans != largest:
                continue
            _progress(f"memory {workload.label}")
            mem_formats = (
                formats if workload.traces == 1 else [f for f in formats if f == "otlp-jsonl"]
            )
            memory += memory_workload(workload, args.data, mem_formats)

    load_after = os.getloadavg()[0]
    digest_after = sources_digest()
    lines = ["## Reader benchmark", "", *machine()]
    if digest_after == digest_before:
        lines.append(f"- tracecheck sources digest {digest_before} (unchanged during the run)")
    else:
        lines.append(
            f"- ⚠ tracecheck sources changed during the run ({digest_before} → {digest_after}):"
            " rows measured before and after the change are not comparable; run again"
        )
    lines += [
        f"- 1-minute load average {load_before:.2f} at the start, {load_after:.2f} at the end "
        "(other work on the machine inflates single timings; the best of K is kept)",
        "",
    ]
    lines += [
        "Floors (file read from the page cache + parse, GC disabled around it): "
        + "; ".join(f"{fmt}: {FLOOR_TEXT[fmt]}" for fmt in formats)
        + ".",
        "",
    ]
    if rows:
        lines += timing_table(rows, args.repeat)
    if any(r.explicit for r in rows) or any(m.explicit for m in memory):
        lines += ["", "† `read_traces(path)` raised (see problems); timed with `format=` passed."]
    if memory:
        lines += [
            "",
            "### Peak memory",
            "",
            "Each figure from a fresh subprocess; baseline = the RSS of an interpreter that has "
            f"imported tracecheck ({_mb(min(m.baseline or 0 for m in memory))}); peak from "
            "`VmHWM` (reset after the imports), retained = RSS after the call minus baseline; "
            "tracemalloc in a separate run (it sees Python allocations, not upb's arenas).",
            "",
            *memory_table(memory),
        ]
    found = problems(rows, memory)
    if found:
        lines += ["", "### Problems", "", *found]
    lines += ["", f"_{time.perf_counter() - started:.0f} s of benchmarking._"]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
