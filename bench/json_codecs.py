"""Do both fast JSON codecs earn their place? orjson parses every JSON input; msgspec decodes
canonical OTLP/JSON straight into typed structs (`readers/otlp_json_typed.py`) and indexes JSON
Lines by trace id (`readers/record_index.py`). This times what msgspec does against what the
readers would do with orjson alone, on the reader benchmark's workloads (bench/workload.py):

- reading a whole OTLP/JSON document, and an OTLP JSON Lines file, with `read_traces`: the typed
  msgspec path as shipped, and the general orjson path (the typed path switched off; it is the
  path every input that is not canonical takes, so both give the same spans);
- the index pass of `check` and `show` on JSON Lines (only the trace ids of every line): the
  msgspec id structs as shipped, and `orjson.loads` of each line with the same walk.

    python bench/json_codecs.py                        # 10k and 100k spans, best of 3
    python bench/json_codecs.py --sizes 10000 --repeat 5

Every timing runs in a fresh interpreter (imports done before the clock starts), with the file in
the page cache; peak memory is the process's maximum resident set. Markdown on stdout.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from workload import DEFAULT_DIR, Workload, ensure  # noqa: E402

CASES = {
    "read-json": ("otlp-json", "`read_traces`, one OTLP/JSON document"),
    "read-jsonl": ("otlp-jsonl", "`read_traces`, OTLP JSON Lines"),
    "index-jsonl": ("otlp-jsonl", "index pass (trace ids of every line), JSON Lines"),
}
CODECS = ("msgspec", "orjson")


def _worker(case: str, codec: str, path: str) -> dict[str, float]:
    import gc
    import resource
    import time

    import orjson

    from tracecheck.readers import otlp_json, read_traces
    from tracecheck.readers import record_index as index

    if codec == "orjson":
        otlp_json.typed_spans = lambda *args: None  # every document takes the general path

        def orjson_ids(line: bytes, known: dict[object, str | None]) -> tuple[str | None, ...]:
            request = orjson.loads(line)
            found: dict[str | None, None] = {}
            resource_spans = request.get("resourceSpans")
            if resource_spans is None:
                resource_spans = request.get("resource_spans")
            for entry in resource_spans or ():
                groups = index._first(entry.get("scopeSpans"), entry.get("scope_spans"))
                for group in groups or ():
                    for span in group.get("spans") or ():
                        raw = span.get("traceId") or span.get("trace_id")
                        found[index._trace_id(raw, known)] = None
            return tuple(found)

        scanner = index._lines(orjson_ids)
    else:
        scanner = index.SCANNERS["otlp-lines"]
    fmt = CASES[case][0]
    with Path(path).open("rb") as warm:  # into the page cache, a megabyte at a time
        while warm.read(1 << 20):
            pass
    started = time.perf_counter()
    if case == "index-jsonl":
        gc.disable()  # as the streaming reader indexes (collector paused)
        with Path(path).open("rb") as stream:
            records = sum(1 for _ in scanner(stream, 0, None))
        gc.enable()
        count = float(records)
    else:
        traces = read_traces(path, format=fmt)
        count = float(sum(len(trace.spans) for trace in traces))
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB
    return {"seconds": seconds, "count": count, "peak_mb": peak}


def _measure(case: str, codec: str, path: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--worker", case, codec, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return dict(json.loads(done.stdout.splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(_worker(*args.worker)))
        return
    import msgspec
    import orjson

    print(
        f"Python {sys.version.split()[0]}, orjson {orjson.__version__}, "
        f"msgspec {msgspec.__version__}; best of {args.repeat}\n"
    )
    print("| spans | case | msgspec s | orjson s | orjson / msgspec | peak MB msgspec | orjson |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for size in (int(s) for s in args.sizes.split(",")):
        workload = Workload(spans=size)
        ensure(workload, DEFAULT_DIR, verbose=False)
        for case, (fmt, label) in CASES.items():
            path = workload.path(DEFAULT_DIR, fmt)
            best: dict[str, dict[str, float]] = {}
            for _ in range(args.repeat):
                for codec in CODECS:  # interleaved: drift in the machine hits both alike
                    got = _measure(case, codec, path)
                    print(f"{size} {case} {codec} {got['seconds']:.3f}s", file=sys.stderr)
                    if codec not in best or got["seconds"] < best[codec]["seconds"]:
                        best[codec] = got
            assert best["msgspec"]["count"] == best["orjson"]["count"], best
            fast, slow = best["msgspec"], best["orjson"]
            print(
                f"| {size:,} | {label} | {fast['seconds']:.2f} | {slow['seconds']:.2f} | "
                f"{slow['seconds'] / fast['seconds']:.2f}x | {fast['peak_mb']:.0f} | "
                f"{slow['peak_mb']:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
