"""What the pytest plugin adds to a pytest run that never uses it, in one run of this script.

    python bench/plugin_startup.py [--runs 25] [--python PATH]

A one-test project (a test that uses neither the `trace_spans` fixture nor the
`trace_contract` marker) is run again and again in fresh `python -m pytest` processes, the
variants interleaved run by run so that a slow spell of the machine falls on all of them:

- `without`: `-p no:tracecheck` (the entry-point plugin blocked: pytest alone);
- `with`: the plugin as installed, loaded through its `pytest11` entry point;
- `eager`: the plugin plus the modules the plugin imported before it was made lazy
  (`-p tracecheck.testing.assertion -p tracecheck.writers.otlp`: checker, contracts, readers, writers),
  for scale.

By default the children cache bytecode, as Python does unless told not to (this machine's
environment sets PYTHONDONTWRITEBYTECODE=1; `--no-bytecode-cache` keeps it).

Printed: the median wall time and the median CPU time (user + system of the child process) of
each variant, the plugin's added cost (median `with` minus median `without`) and the ratio of
the medians, and the same for `eager`. CPU time is the figure judged against the goal (at most
30 ms added): on a shared machine the wall time also counts the time other processes took. Runs `--python` (default: this interpreter), which must have tracecheck installed.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VARIANTS = {
    "without": ["-p", "no:tracecheck"],
    "with": [],
    "eager": ["-p", "tracecheck.testing.assertion", "-p", "tracecheck.writers.otlp"],
}
GOAL_MS = 30.0


def _run_once(
    python: str, project: Path, extra: list[str], env: dict[str, str]
) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child: user + system)."""
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, "test_one.py"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, check=False
    )
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or "1 passed" not in done.stdout:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu


def measure(python: str, runs: int, *, bytecode: bool) -> dict[str, list[tuple[float, float]]]:
    env = dict(os.environ)
    if bytecode:  # Python's default: compiled (and assertion-rewritten) modules are cached
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in VARIANTS}
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        (project / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
        for variant in VARIANTS.values():  # warm-up: file caches, bytecode caches
            _run_once(python, project, variant, env)
        for _ in range(runs):
            for name, variant in VARIANTS.items():
                times[name].append(_run_once(python, project, variant, env))
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=25, help="runs of each variant (25)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to run")
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="run pytest with PYTHONDONTWRITEBYTECODE=1 (every module compiled, and the "
        "plugin's modules assertion-rewritten, on every run)",
    )
    args = parser.parse_args(argv)
    times = measure(args.python, args.runs, bytecode=not args.no_bytecode_cache)
    print(f"pytest start-up of a one-test run, {args.runs} interleaved runs each, medians:")
    print(f"  {'variant':8} {'wall ms':>8} {'CPU ms':>8}  (CPU quartiles)")
    medians: dict[str, tuple[float, float]] = {}
    for name, pairs in times.items():
        wall = statistics.median(w for w, _ in pairs) * 1000
        cpus = [c * 1000 for _, c in pairs]
        medians[name] = (wall, statistics.median(cpus))
        low, _, high = statistics.quantiles(cpus, n=4)
        print(f"  {name:8} {wall:8.1f} {medians[name][1]:8.1f}  ({low:.1f}-{high:.1f})")
    base_wall, base_cpu = medians["without"]
    for name in ("with", "eager"):
        wall, cpu = medians[name]
        print(
            f"  {name} - without: wall {wall - base_wall:+.1f} ms (ratio {wall / base_wall:.3f}), "
            f"CPU {cpu - base_cpu:+.1f} ms (ratio {cpu / base_cpu:.3f})"
        )
    added = medians["with"][1] - base_cpu
    verdict = "within" if added <= GOAL_MS else "OVER"
    print(f"plugin unused: {added:+.1f} ms of CPU, {verdict} the goal of {GOAL_MS:.0f} ms added")
    if args.no_bytecode_cache:
        print("(PYTHONDONTWRITEBYTECODE=1: every module is compiled on every run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
