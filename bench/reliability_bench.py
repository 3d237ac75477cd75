"""How fast the reliability over repeated runs is computed from a fleet's verdict rows, next to
the fleet summary of the same rows measured in the same run.

    python bench/reliability_bench.py [--tasks 12500] [--runs 8] [--rules 9] [--repeat 3]

The rows are made here, deterministically: `--tasks` tasks of `--runs` runs each (100,000
runs by default), each run judged on `--rules` rules, one rule in three flaky (a run fails it
with a probability drawn per task from a seeded generator), as `fleet check` writes them. Timed,
best of `--repeat`: `summarize(table)` (what `fleet summarize` always does) and
`reliability(table)` (what `--reliability` adds).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any


def rows(tasks: int, runs: int, rules: int) -> list[dict[str, Any]]:
    from tracecheck.fleet.verdicts import COLUMNS

    rng = random.Random(20261205)
    empty = dict.fromkeys(name for name, _, _ in COLUMNS)
    made = []
    for task in range(tasks):
        chance = [rng.random() * 0.3 if rule % 3 == 0 else 0.0 for rule in range(rules)]
        for run in range(runs):
            trace = f"{task:08x}{run:024x}"
            for rule in range(rules):
                failed = rng.random() < chance[rule]
                made.append(
                    {
                        **empty,
                        "source": f"runs/task-{task}/run-{run}.otlp.jsonl",
                        "trace_id": trace,
                        "contract": "payments",
                        "rule": f"rule-{rule}",
                        "rule_kind": "never",
                        "status": "fail" if failed else "pass",
                        "verdict": "fail" if failed else "pass",
                        "violations": int(failed),
                        "detail": "called run_shell" if failed else None,
                        "spans": 12,
                    }
                )
    return made


def best(repeat: int, work: Any) -> float:
    took = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        took = min(took, time.perf_counter() - started)
    return took


def main(argv: list[str] | None = None) -> int:
    import pyarrow as pa

    from tracecheck.fleet.reliability import reliability
    from tracecheck.fleet.summary import summarize
    from tracecheck.fleet.verdicts import verdict_schema

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=12_500)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--rules", type=int, default=9)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    table = pa.Table.from_pylist(rows(args.tasks, args.runs, args.rules), verdict_schema())
    summary = best(args.repeat, lambda: summarize(table))
    judged = best(args.repeat, lambda: reliability(table))
    runs = args.tasks * args.runs
    print(
        f"{runs:,} runs ({args.tasks:,} tasks x {args.runs}), {table.num_rows:,} rows: "
        f"summary {summary:.2f} s, reliability {judged:.2f} s ({judged / summary:.1f}x the "
        f"summary; {runs / judged:,.0f} runs/s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
