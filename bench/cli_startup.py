"""How fast the `tracecheck` command starts, next to `python -c "import orjson"`, in one run.

    python bench/cli_startup.py [--runs 30] [--python PATH] [--tracecheck-path DIR]

Each variant runs again and again in a fresh process, the variants interleaved run by run so
that a slow spell of the machine falls on all of them:

- `python`: `python -c pass`, the interpreter alone (the floor, for scale);
- `orjson`: `python -c "import orjson"`, the yardstick;
- `version`: `tracecheck --version` (the console script beside `--python`);
- `version -m`: `python -m tracecheck --version`;
- `check`: `tracecheck check fixtures/otel-genai/clean.otlp.jsonl --contract
  contracts/refund-desk.json` (11 spans, one JSON contract; exit 0 expected).

By default the children cache bytecode, as Python does unless told not to (this machine's
environment sets PYTHONDONTWRITEBYTECODE=1; `--no-bytecode-cache` keeps it); one warm-up run of
each variant fills the caches. `--tracecheck-path DIR` runs the tracecheck and redact packages
found in DIR instead of the installed ones (put first on PYTHONPATH), to measure another
revision: `git archive <rev> tracecheck redact | tar -x -C DIR`. `--against DIR` adds a variant
`check @DIR`, the same check run with DIR's packages, interleaved with the others: how this
tree's start-up compares with another revision's in one run (issue 29: no slower than before).

Printed: the median wall time and the median CPU time (user + system of the child process) of
each variant with the CPU quartiles, and each variant's ratio to `orjson`. The goal is a ratio
of at most 1.5 for `version` and `check`, judged on CPU time (on a shared machine the wall time
also counts the time other processes took); the wall-time ratios are printed beside it.
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

ROOT = Path(__file__).resolve().parent.parent
GOAL_RATIO = 1.5
JUDGED = ("version", "check")


def variants(python: str) -> dict[str, list[str]]:
    script = str(Path(python).parent / "tracecheck")
    trace = str(ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl")
    contract = str(ROOT / "contracts" / "refund-desk.json")
    return {
        "python": [python, "-c", "pass"],
        "orjson": [python, "-c", "import orjson"],
        "version": [script, "--version"],
        "version -m": [python, "-m", "tracecheck", "--version"],
        "check": [script, "check", trace, "--contract", contract],
    }


def _run_once(command: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child: user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, check=False)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu


def _environment(bytecode: bool, source: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [source, env.get("PYTHONPATH")]))
    if bytecode:  # Python's default: compiled modules are cached
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def measure(
    python: str,
    runs: int,
    *,
    bytecode: bool,
    source: str | None = None,
    against: str | None = None,
) -> dict[str, list[tuple[float, float]]]:
    env = _environment(bytecode, source)
    commands = {name: (command, env) for name, command in variants(python).items()}
    if against is not None:
        commands[f"check @{Path(against).name}"] = (
            commands["check"][0],
            _environment(bytecode, against),
        )
    missing = [name for name, (command, _) in commands.items() if not Path(command[0]).exists()]
    if missing:
        raise SystemExit(f"{commands[missing[0]][0][0]} not found: install tracecheck beside it")
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory() as folder:  # no source tree on the children's path
        for command, environ in commands.values():  # warm-up: file caches, bytecode caches
            _run_once(command, environ, folder)
        for _ in range(runs):
            for name, (command, environ) in commands.items():
                times[name].append(_run_once(command, environ, folder))
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="runs of each variant (30)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to run")
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="run with PYTHONDONTWRITEBYTECODE=1 (every module compiled on every run)",
    )
    parser.add_argument(
        "--tracecheck-path",
        metavar="DIR",
        help="a folder holding the tracecheck and redact packages to run instead",
    )
    parser.add_argument(
        "--against",
        metavar="DIR",
        help="also run check with the tracecheck and redact packages of DIR, interleaved",
    )
    args = parser.parse_args(argv)
    times = measure(
        args.python,
        args.runs,
        bytecode=not args.no_bytecode_cache,
        source=args.tracecheck_path,
        against=args.against,
    )
    print(f"start-up, {args.runs} interleaved runs of each in fresh processes, medians:")
    width = max(11, *map(len, times))
    print(
        f"  {'variant':{width}} {'wall ms':>8} {'CPU ms':>8}  {'CPU quartiles':>13}  ratio to orjson"
    )
    medians: dict[str, tuple[float, float]] = {}
    for name, pairs in times.items():
        wall = statistics.median(w for w, _ in pairs) * 1000
        cpus = [c * 1000 for _, c in pairs]
        medians[name] = (wall, statistics.median(cpus))
    base_wall, base_cpu = medians["orjson"]
    for name, pairs in times.items():
        wall, cpu = medians[name]
        low, _, high = statistics.quantiles([c * 1000 for _, c in pairs], n=4)
        print(
            f"  {name:{width}} {wall:8.1f} {cpu:8.1f}  {low:6.1f}-{high:<6.1f}  "
            f"CPU {cpu / base_cpu:.2f}, wall {wall / base_wall:.2f}"
        )
    met = True
    for name in JUDGED:
        ratio = medians[name][1] / base_cpu
        verdict = "within" if ratio <= GOAL_RATIO else "OVER"
        met = met and ratio <= GOAL_RATIO
        print(f"{name}: {ratio:.2f}x orjson's start-up (CPU), {verdict} the goal of {GOAL_RATIO}x")
    print("goal met" if met else "goal NOT met")
    if args.no_bytecode_cache:
        print("(PYTHONDONTWRITEBYTECODE=1: every module is compiled on every run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
