"""`tracecheck check --jobs`: how much faster a directory of many traces is checked by worker
processes than by one.

    python bench/jobs_bench.py [--files 20] [--spans 2000] [--format otlp-jsonl] [--runs 7]
                               [--jobs 2] [--one-file]

The directory is built at run time from `bench/workload.py`: `--files` workloads of `--spans`
spans each (one trace each, seeds 1..N, so that every trace id differs), one file each, copied
into a temporary directory. With `--one-file`, the input is instead one workload file of
`--files` traces of `--spans` spans each (which `--jobs` splits by trace). Each run is a fresh `tracecheck check DIR --contract
contracts/refund-desk.json -q` process; `--jobs 1` and `--jobs N` are interleaved run by run
(after one warm-up of each), and their stdout, stderr (but for the progress lines, which
follow the clock) and exit codes are compared: a speed-up that changed a report would not
count. Printed: the median wall time and the median CPU time
(user + system of the process and its workers) of each, and the ratio of the medians.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import EXTENSIONS, Workload, ensure

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT / "contracts" / "refund-desk.json"


def build(folder: Path, files: int, spans: int, fmt: str, cache: Path, *, one: bool) -> Path:
    """A directory of `files` traces of `spans` spans each, one file each; or with `one`, one
    file of them all."""
    if one:
        workload = Workload(spans * files, files, 1)
        ensure(workload, cache, verbose=False)
        return workload.path(cache, fmt)
    target = folder / "traces"
    target.mkdir()
    for seed in range(1, files + 1):
        workload = Workload(spans, 1, seed)
        ensure(workload, cache, verbose=False)
        shutil.copyfile(workload.path(cache, fmt), target / f"run-{seed:03d}{EXTENSIONS[fmt]}")
    return target


def _run_once(command: list[str]) -> tuple[float, float, tuple[int, bytes, bytes]]:
    """(wall seconds, CPU seconds of the child but not of its workers, what it gave)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # The progress lines ("reading DIR…", "read N spans in S s") come with the clock.
    lines = done.stderr.splitlines(keepends=True)
    stderr = b"".join(line for line in lines if not line.startswith(b"tracecheck: read"))
    return took, cpu, (done.returncode, done.stdout, stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20, help="trace files (20)")
    parser.add_argument("--spans", type=int, default=2000, help="spans per file (2000)")
    parser.add_argument("--format", default="otlp-jsonl", choices=sorted(EXTENSIONS))
    parser.add_argument("--runs", type=int, default=7, help="runs of each (7)")
    parser.add_argument("--jobs", type=int, default=2, help="the jobs compared with 1 (2)")
    parser.add_argument("--one-file", action="store_true", help="one file of every trace")
    parser.add_argument(
        "--cache", type=Path, default=ROOT / "bench" / ".data" / "jobs", help="workload files"
    )
    args = parser.parse_args(argv)
    script = str(Path(sys.executable).parent / "tracecheck")
    with tempfile.TemporaryDirectory(prefix="jobs-bench-") as folder:
        traces = build(
            Path(folder), args.files, args.spans, args.format, args.cache, one=args.one_file
        )
        paths = [traces] if traces.is_file() else list(traces.iterdir())
        size = sum(path.stat().st_size for path in paths)
        base = [script, "check", str(traces), "--contract", str(CONTRACT), "-q"]
        commands = {jobs: [*base, "--jobs", str(jobs)] for jobs in (1, args.jobs)}
        times: dict[int, list[tuple[float, float]]] = {jobs: [] for jobs in commands}
        outputs = {jobs: _run_once(command)[2] for jobs, command in commands.items()}  # warm-up
        if outputs[args.jobs] != outputs[1]:
            raise SystemExit(f"--jobs {args.jobs} reported differently from --jobs 1")
        for _ in range(args.runs):
            for jobs, command in commands.items():
                wall, cpu, output = _run_once(command)
                if output != outputs[1]:
                    raise SystemExit(f"--jobs {jobs} reported differently from the warm-up")
                times[jobs].append((wall, cpu))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{'one file of ' if args.one_file else ''}{args.files} "
        f"{'traces' if args.one_file else 'files'} x {args.spans} spans "
        f"({args.format}, {size / 1e6:.1f} MB), "
        f"{args.runs} runs each, {cores} cores, load average {load:.2f}; exit code "
        f"{outputs[1][0]}, reports identical"
    )
    print("| jobs | wall, median | wall, min-max | CPU of the main process, median |")
    print("|---:|---:|---:|---:|")
    medians = {}
    for jobs, runs in times.items():
        walls = [wall for wall, _ in runs]
        cpu = statistics.median(cpu for _, cpu in runs)
        medians[jobs] = statistics.median(walls)
        print(
            f"| {jobs} | {medians[jobs]:.2f} s | {min(walls):.2f}-{max(walls):.2f} s "
            f"| {cpu:.2f} s |"
        )
    print(f"speed-up of --jobs {args.jobs}: {medians[1] / medians[args.jobs]:.2f}x (median wall)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
