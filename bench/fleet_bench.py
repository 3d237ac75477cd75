"""Fleet checking on Dask: spans per second of `tracecheck fleet check` with one and two local
workers and on a Dask scheduler with two workers on loopback, as ratios to one-process
`tracecheck check` measured in the same run, and Dask's overhead per input.

    python bench/fleet_bench.py [--files 100] [--spans 300] [--runs 3] [--tiny 1000]
    python bench/fleet_bench.py --summaries [reliability_bench.py's options]

The fleet is `--files` runs of `--spans` spans each from `bench/workload.py` (seeds 1..N, one
trace per file, OTLP JSON Lines), copied into a temporary directory, checked against
`contracts/refund-desk.json`. Measured, each `--runs` times, interleaved, medians:

- `check`: `tracecheck check DIR -q`, one process (the floor every ratio is taken against);
- `fleet -j 1`: `tracecheck fleet check DIR -j 1` (the fleet's code, no Dask);
- `fleet -j 2`: `tracecheck fleet check DIR -j 2` (a pool of two worker processes, its start
  included; a Dask LocalCluster until issue 29 gave every check one engine);
- steady state, in this process, with the cluster already up (`check_many(executor=...,
  rows=rows_table)`, what `fleet check` asks for: verdict rows back as Arrow tables): the
  fleet's code in this process (no Dask, no start-up), a LocalCluster of one and of two workers, and a scheduler and two workers started as separate
  `dask` processes on 127.0.0.1 (what a real cluster adds: every task and result crosses TCP).

Dask's overhead per input: `--tiny` files of one small run each (4 spans) checked on the
one-worker cluster, minus the same checked in this process, divided by the files.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import EXTENSIONS, Workload, ensure

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT / "contracts" / "refund-desk.json"
TRACECHECK = str(Path(sys.executable).parent / "tracecheck")


def build(folder: Path, files: int, spans: int, cache: Path) -> Path:
    target = folder / "runs"
    target.mkdir()
    for seed in range(1, files + 1):
        workload = Workload(spans, 1, seed)
        ensure(workload, cache, verbose=False)
        name = f"run-{seed:05d}{EXTENSIONS['otlp-jsonl']}"
        shutil.copyfile(workload.path(cache, "otlp-jsonl"), target / name)
    return target


def tiny_fleet(folder: Path, files: int) -> Path:
    """`files` files of one 4-span run each: what a task costs beyond reading and checking."""
    workload = Workload(4, 1, 1)
    ensure(workload, folder / "cache", verbose=False)
    source = workload.path(folder / "cache", "otlp-jsonl").read_text()
    target = folder / "tiny"
    target.mkdir()
    trace_id = json.loads(source.splitlines()[0])["resourceSpans"][0]["scopeSpans"][0]["spans"][0][
        "traceId"
    ]
    for number in range(files):
        (target / f"run-{number:05d}.otlp.jsonl").write_text(
            source.replace(trace_id, f"{number + 1:032x}")
        )
    return target


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def command(argv: list[str]) -> Callable[[], object]:
    return lambda: subprocess.run(argv, capture_output=True, check=False)


def on(client: object, runs: Path, contract: object) -> Callable[[], object]:
    from tracecheck.fleet import check_many
    from tracecheck.fleet.verdicts import rows_table

    return lambda: sum(
        1 for _ in check_many([str(runs)], [contract], executor=client, rows=rows_table)
    )


def here(runs: Path, contract: object) -> Callable[[], object]:
    from tracecheck.fleet import check_many
    from tracecheck.fleet.verdicts import rows_table

    return lambda: sum(1 for _ in check_many([str(runs)], [contract], jobs=1, rows=rows_table))


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if given[:1] == ["--summaries"]:
        # Repeated-run summaries of 100k runs: their own workload, in reliability_bench.py.
        import reliability_bench

        return reliability_bench.main(given[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100, help="runs, one file each (100)")
    parser.add_argument("--spans", type=int, default=300, help="spans per run (300)")
    parser.add_argument("--runs", type=int, default=3, help="repetitions (3)")
    parser.add_argument("--tiny", type=int, default=1000, help="files for the overhead (1000)")
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".data" / "fleet")
    args = parser.parse_args(argv)

    from distributed import Client, LocalCluster

    from tracecheck.contract import compile_contract

    contract = compile_contract(str(CONTRACT))
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as folder:
        runs = build(Path(folder), args.files, args.spans, args.cache)
        tiny = tiny_fleet(Path(folder), args.tiny)
        size = sum(path.stat().st_size for path in runs.iterdir())
        spans = args.files * args.spans
        base = ["--contract", str(CONTRACT), "-q"]
        cases: dict[str, Callable[[], object]] = {
            "check (one process)": command([TRACECHECK, "check", str(runs), *base]),
            "fleet -j 1 (no Dask)": command(
                [TRACECHECK, "fleet", "check", str(runs), "-j", "1", "--contract", str(CONTRACT)]
            ),
            "fleet -j 2 (process pool, its start included)": command(
                [TRACECHECK, "fleet", "check", str(runs), "-j", "2", "--contract", str(CONTRACT)]
            ),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        start = time.perf_counter()
        one = LocalCluster(
            n_workers=1, threads_per_worker=1, host="127.0.0.1", dashboard_address=":0"
        )
        cluster_start = time.perf_counter() - start
        two = LocalCluster(
            n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=":0"
        )
        with (
            one,
            two,
            Client(one) as client_one,
            Client(two) as client_two,
            _remote(Path(folder)) as address,
            Client(address) as client_remote,
        ):
            client_remote.wait_for_workers(2)
            cases["steady: this process, no Dask"] = here(runs, contract)
            cases["steady: LocalCluster, 1 worker"] = on(client_one, runs, contract)
            cases["steady: LocalCluster, 2 workers"] = on(client_two, runs, contract)
            cases["steady: scheduler + 2 workers on loopback"] = on(client_remote, runs, contract)
            times.update({name: [] for name in cases if name not in times})
            for action in cases.values():  # warm-up: imports, caches, workers' first task
                action()
            for _ in range(args.runs):
                for name, action in cases.items():
                    times[name].append(timed(action))
            overhead_dask = [timed(on(client_one, tiny, contract)) for _ in range(args.runs)]
            overhead_here = [timed(here(tiny, contract)) for _ in range(args.runs)]
    floor = statistics.median(times["check (one process)"])
    cores = len(os.sched_getaffinity(0))
    print(
        f"{args.files} runs x {args.spans} spans ({spans} spans, {size / 1e6:.0f} MB OTLP JSON Lines), "
        f"{args.runs} runs each, {cores} cores, load average {os.getloadavg()[0]:.2f}"
    )
    print("| how | wall, median | spans/s | time vs one-process check |")
    print("|---|---:|---:|---:|")
    for name, walls in times.items():
        wall = statistics.median(walls)
        print(f"| {name} | {wall:.2f} s | {spans / wall:,.0f} | {wall / floor:.2f}x |")
    per_input = (statistics.median(overhead_dask) - statistics.median(overhead_here)) / args.tiny
    print(f"LocalCluster start (1 worker): {cluster_start:.2f} s")
    print(
        f"Dask overhead per input: {per_input * 1e3:.2f} ms "
        f"({args.tiny} tiny files: {statistics.median(overhead_dask):.2f} s on one worker, "
        f"{statistics.median(overhead_here):.2f} s in this process)"
    )
    return 0


class _remote:
    """A Dask scheduler and two workers as separate processes on 127.0.0.1."""

    def __init__(self, folder: Path) -> None:
        self.file = folder / "scheduler.json"
        self.processes: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> str:
        python = sys.executable
        self.processes.append(
            subprocess.Popen(
                [python, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                 "--no-dashboard", "--scheduler-file", str(self.file)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
        )  # fmt: skip
        while not self.file.exists() or not self.file.read_text().strip():
            time.sleep(0.1)
        time.sleep(0.2)
        address = str(json.loads(self.file.read_text())["address"])
        for _ in range(2):
            self.processes.append(
                subprocess.Popen(
                    [python, "-m", "distributed.cli.dask_worker", address, "--host", "127.0.0.1",
                     "--nthreads", "1", "--no-dashboard"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
            )  # fmt: skip
        return address

    def __exit__(self, *exc: object) -> None:
        for process in reversed(self.processes):
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    raise SystemExit(main())
