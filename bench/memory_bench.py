"""Peak memory of the CLI on a file much larger than any trace in it (inputs.md: "memory grows
with the largest trace, not with the file").

    python bench/memory_bench.py                      # 315 MB of ~16 KB traces
    python bench/memory_bench.py --mb 50 --commands check,redact

The workload is the agent runs of `workload.py` cut into small traces (`--spans-per-trace`, 5
by default: about 16 KB of OTLP/JSON each), written as OTLP JSON Lines with one span per line,
and interleaved: line 1 of every trace, then line 2 of every trace, and so on, so that every
trace is spread across the whole file (the case a reader that waits for a trace's last line
would hold nearly everything for). Deterministic: the same arguments give the same bytes.

Each command runs in a fresh interpreter that reports its own peak resident memory (`VmHWM`
from `/proc/self/status`, read at exit: a new process image starts its own high-water mark, so
the driver's memory does not leak in, as it does into `getrusage`'s `ru_maxrss` after fork and
exec). The constant is the same figure for an interpreter that has imported what the command
imports and done nothing else. The target is peak ≤ constant + 3 × the largest trace.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from array import array
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_bench import CONTRACT  # noqa: E402
from workload import (  # noqa: E402
    DEFAULT_DIR,
    Workload,
    _envelope,
    _Generator,
    _json_span,
    _proto_request,
    _proto_span,
    _resource,
)

GENERATOR_VERSION = 2
COMMANDS = ("check", "show", "redact", "verify-safe")
# What each command imports before it reads anything: the constant it is measured against.
IMPORTS = {
    "check": "import tracecheck.cli, tracecheck.check",
    "show": "import tracecheck.cli, tracecheck.show",
    "redact": "import tracecheck.cli, tracecheck.cli.redact, redact",
    "verify-safe": "import tracecheck.cli, tracecheck.cli.verify_safe, redact",
}
_CHILD = """
import atexit, os, sys

def report():
    with open("/proc/self/status") as status, open(os.environ["BENCH_REPORT"], "w") as out:
        out.writelines(line for line in status if line.startswith(("VmHWM", "VmRSS")))

atexit.register(report)
if os.environ.get("BENCH_TRACECHECK_PATH"):  # another source tree than the editable install
    sys.meta_path = [f for f in sys.meta_path if "__editable__" not in type(f).__module__]
    sys.path.insert(0, os.environ["BENCH_TRACECHECK_PATH"])
{imports}
import tracecheck
assert tracecheck.__file__.startswith(os.environ.get("BENCH_TRACECHECK_PATH", "")), tracecheck.__file__
if sys.argv[1:]:
    from tracecheck.cli import main
    sys.exit(main(sys.argv[1:]))
"""


def generate(
    mb: int, per_trace: int, root: Path, seed: int = 1, layout: str = "jsonl"
) -> dict[str, Any]:
    """Write the interleaved file (once; cached with its metadata) and return the metadata.
    `layout` is `jsonl` (one OTLP/JSON request per line) or `pbstream` (the same requests as
    the Collector's length-prefixed protobuf stream)."""
    suffix = ".otlp.jsonl" if layout == "jsonl" else ".otlp.pbstream"
    path = root / f"memory-{mb}mb-{per_trace}spt-seed{seed}{suffix}"
    meta_path = path.with_suffix(".meta.json")
    if meta_path.exists() and path.exists():
        meta: dict[str, Any] = json.loads(meta_path.read_text())
        if meta.get("generator_version") == GENERATOR_VERSION and meta["bytes"] == (
            path.stat().st_size
        ):
            return meta
    root.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    print(f"generating {path} ...", file=sys.stderr, flush=True)
    target = mb * 1_000_000
    # A very long run of small traces; only as many as fill the target are generated.
    generator = _Generator(Workload(per_trace * 10_000_000, 10_000_000, seed, 1))
    resource = _resource(generator.rng)
    head, tail = _envelope(resource)
    offsets, lengths = array("q"), array("q")  # of each line in the by-trace scratch file
    traces: list[tuple[int, int]] = []  # (first line, line count) per trace
    sizes: list[int] = []
    written = 0
    with tempfile.TemporaryFile(dir=root) as scratch:
        current, first, size = -1, 0, 0
        for trace, span in generator.spans():
            if trace != current:
                if current >= 0:
                    traces.append((first, len(offsets) - first))
                    sizes.append(size)
                if written >= target:
                    break
                current, first, size = trace, len(offsets), 0
            if layout == "jsonl":
                line = head + orjson.dumps(_json_span(span)) + tail + b"\n"
            else:
                request, group = _proto_request(resource)
                _proto_span(group.spans.add(), span)
                body = request.SerializeToString()
                line = len(body).to_bytes(4, "big") + body
            offsets.append(written)
            lengths.append(len(line))
            scratch.write(line)
            written += len(line)
            size += len(line)
        # The first trace alone, for the run that measures a command's fixed cost.
        first, count = traces[0]
        with _one_trace(path).open("wb") as one:
            for line in range(first, first + count):
                scratch.seek(offsets[line])
                one.write(scratch.read(lengths[line]))
        # Round r holds line r of every trace that has one: each trace spans the whole file.
        rounds = max(count for _, count in traces)
        with path.with_suffix(".part").open("wb") as out:
            for r in range(rounds):
                for first, count in traces:
                    if r < count:
                        scratch.seek(offsets[first + r])
                        out.write(scratch.read(lengths[first + r]))
    path.with_suffix(".part").replace(path)
    meta = {
        "generator_version": GENERATOR_VERSION,
        "file": path.name,
        "bytes": path.stat().st_size,
        "traces": len(traces),
        "spans": sum(count for _, count in traces),
        "largest_trace_bytes": max(sizes),
        "median_trace_bytes": sorted(sizes)[len(sizes) // 2],
        "seconds": round(time.perf_counter() - started, 1),
    }
    meta_path.write_text(json.dumps(meta, indent=2))
    return meta


def _one_trace(path: Path) -> Path:
    return path.with_name(path.name.replace(".otlp.", ".one-trace.otlp."))


def measure(
    command: list[str], imports: str, out: Path | None, pythonpath: str | None = None
) -> dict[str, Any]:
    """Run one command in a fresh interpreter; its peak RSS and wall time."""
    with tempfile.NamedTemporaryFile(suffix=".status") as report:
        started = time.perf_counter()
        child = subprocess.run(
            [sys.executable, "-c", _CHILD.format(imports=imports), *command],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={
                **os.environ,
                "BENCH_REPORT": report.name,
                **({"BENCH_TRACECHECK_PATH": pythonpath} if pythonpath else {}),
            },
            check=False,
        )
        seconds = time.perf_counter() - started
        figures = dict(_field(line) for line in Path(report.name).read_text().splitlines())
    return {
        "code": child.returncode,
        "seconds": seconds,
        "peak": figures["VmHWM"],
        "stderr": child.stderr.decode(errors="replace")[-300:],
        "output": out.stat().st_size if out is not None and out.exists() else None,
    }


def _field(line: str) -> tuple[str, int]:
    name, value = line.split(":", 1)
    return name, int(value.split()[0]) * 1024  # kB


def _mb(value: float) -> str:
    return f"{value / 1e6:.1f} MB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=315, help="file size to generate, in MB")
    parser.add_argument("--spans-per-trace", type=int, default=5)
    parser.add_argument("--commands", default=",".join(COMMANDS))
    parser.add_argument("--layout", choices=("jsonl", "pbstream"), default="jsonl")
    parser.add_argument("--out", type=Path, default=DEFAULT_DIR)
    parser.add_argument(
        "--tracecheck-path",
        help="import tracecheck and redact from this source tree instead (an older version)",
    )
    args = parser.parse_args(argv)
    meta = generate(args.mb, args.spans_per_trace, args.out, layout=args.layout)
    path = args.out / meta["file"]
    print(f"{path}: {_mb(meta['bytes'])}, {meta['traces']} traces, {meta['spans']} spans,")
    print(
        f"largest trace {meta['largest_trace_bytes'] / 1e3:.1f} kB, "
        f"median {meta['median_trace_bytes'] / 1e3:.1f} kB"
    )
    print(f"machine: {os.cpu_count()} CPUs, {platform.platform()}, Python {sys.version.split()[0]}")
    print(f"1-minute load average at the start: {os.getloadavg()[0]:.2f}")
    largest, size = meta["largest_trace_bytes"], meta["bytes"]
    rows = []
    with tempfile.TemporaryDirectory(dir=args.out) as temp:
        contract = Path(temp) / "contract.json"
        contract.write_text(json.dumps(CONTRACT))
        output = Path(temp) / "redacted.out"

        def command(name: str, trace: Path) -> list[str]:
            return {
                "check": ["check", str(trace), "--contract", str(contract), "-q"],
                "show": ["show", str(trace)],
                "redact": ["redact", str(trace), "-o", str(output), "--profile", "share"],
                "verify-safe": ["verify-safe", str(trace), "--profile", "share"],
            }[name]

        for name in args.commands.split(","):
            imports, where = IMPORTS[name], args.tracecheck_path
            constant = measure([], imports, None, where)["peak"]
            fixed = measure(command(name, _one_trace(path)), imports, None, where)["peak"]
            run = measure(command(name, path), imports, output if name == "redact" else None, where)
            rows.append((name, constant, fixed, run))
            print(
                f"{name}: exit {run['code']}, {run['seconds']:.1f} s, peak {_mb(run['peak'])}; "
                f"interpreter with the command's imports {_mb(constant)}, the command on one "
                f"trace {_mb(fixed)}",
                flush=True,
            )
            if run["code"] != 0:
                print(f"  stderr: {run['stderr']}")
    print(f"1-minute load average at the end: {os.getloadavg()[0]:.2f}")
    print()
    print(
        "| command | exit | wall | peak RSS | imports | one trace | peak − imports | "
        "÷ largest trace | peak − one trace | ÷ largest trace | ÷ file |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, constant, fixed, run in rows:
        over, grown = run["peak"] - constant, run["peak"] - fixed
        print(
            f"| `{name}` | {run['code']} | {run['seconds']:.1f} s | {_mb(run['peak'])} | "
            f"{_mb(constant)} | {_mb(fixed)} | {_mb(over)} | {over / largest:.0f}× | "
            f"{_mb(grown)} | {grown / largest:.0f}× | {grown / size:.3f}× |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
