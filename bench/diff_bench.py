"""Golden-run diff benchmark: `diff_runs` on two runs of N spans each, in bounded time and memory.

    python bench/diff_bench.py                      # 10k and 100k spans, best of 3
    python bench/diff_bench.py --sizes 10000 --repeat 1

Three pairs of runs from `bench/workload.py` (one trace of N spans each, OTLP/JSONL):

- *itself*: a run against itself, read twice (every call aligned by the common head);
- *edited*: a run against a copy with one tool call in a thousand left out and the arguments
  of one in 997 changed (anchors and small exact tables between them);
- *unrelated*: two runs of different seeds, the same tools in other orders with other
  arguments (the worst case: few anchors, most calls reordered or changed, every argument
  difference judged by the redactor).

Each case runs in a fresh process, best of K: reading both runs, the first `diff_runs` on them
(*cold*: it derives every fact of the calls, as a CI job does) and a second (*warm*), and the
process's peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workload import DEFAULT_DIR, Workload, ensure  # noqa: E402

CASES = ("itself", "edited", "unrelated")


def edited(spans: list[Any]) -> list[Any]:
    """The run with one tool call in a thousand left out and the arguments of one in 997
    changed (a member added)."""
    from tracecheck.spans import Kind

    out = []
    calls = 0
    for span in spans:
        if span.kind is Kind.TOOL:
            calls += 1
            if calls % 1000 == 500:
                continue
            if calls % 997 == 3:
                attributes = dict(span.attributes)
                arguments = json.loads(attributes.get("gen_ai.tool.call.arguments") or "{}")
                attributes["gen_ai.tool.call.arguments"] = json.dumps({**arguments, "retry": 2})
                span = span.replace(attributes=attributes)
        out.append(span)
    return out


def worker(case: str, first: str, second: str) -> None:
    """One measurement in this fresh process, printed as JSON."""
    from tracecheck import read_traces
    from tracecheck.diff import diff_runs

    started = time.perf_counter()
    (baseline,) = read_traces(first)
    (run,) = read_traces(second)
    read = time.perf_counter() - started
    spans = list(run.spans) if case != "edited" else edited(list(run.spans))
    started = time.perf_counter()
    diff = diff_runs(baseline, spans)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    again = diff_runs(baseline, spans)
    warm = time.perf_counter() - started
    assert again == diff
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(
        json.dumps(
            {
                "read": read,
                "cold": cold,
                "warm": warm,
                "peak": peak,
                "calls": [diff.baseline.calls, diff.run.calls],
                "status": diff.status,
                "added": len(diff.added),
                "missing": len(diff.missing),
                "changed": sum(pair.gated for pair in diff.pairs),
                "reordered": len(diff.with_change("reordered")),
                "arguments": len(diff.with_change("arguments")),
            }
        )
    )


def measure(case: str, size: int, repeat: int) -> dict[str, Any]:
    paths = []
    for seed in (1, 2) if case == "unrelated" else (1, 1):
        workload = Workload(spans=size, seed=seed)
        ensure(workload, DEFAULT_DIR)
        paths.append(str(workload.path(DEFAULT_DIR, "otlp-jsonl")))
    best: dict[str, Any] = {}
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--worker", case, *paths],
            check=True,
            capture_output=True,
            text=True,
        )
        found = json.loads(out.stdout)
        for key in ("read", "cold", "warm", "peak"):
            best[key] = min(best.get(key, float("inf")), found[key])
        best.update({k: v for k, v in found.items() if k not in ("read", "cold", "warm", "peak")})
    best["file"] = Path(paths[0]).stat().st_size
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", nargs=3, metavar=("CASE", "BASELINE", "RUN"))
    args = parser.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return 0
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    print(f"load average before: {' '.join(load)}")
    print(
        "| spans | case | tool calls | read both | diff (cold) | diff (warm) | peak memory "
        "| findings |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---|")
    for size in (int(text) for text in args.sizes.split(",")):
        for case in CASES:
            found = measure(case, size, args.repeat)
            findings = (
                f"{found['status']}: {found['added']} added, {found['missing']} missing, "
                f"{found['changed']} changed ({found['reordered']} reordered), "
                f"{found['arguments']} with other arguments"
            )
            calls = " / ".join(f"{count:,}" for count in found["calls"])
            print(
                f"| {size:,} | {case} | {calls} | {found['read']:.2f} s | {found['cold']:.2f} s "
                f"| {found['warm']:.2f} s | {found['peak'] / 1e6:,.0f} MB | {findings} |",
                flush=True,
            )
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    print(f"load average after: {' '.join(load)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
