"""Where `read_traces` spends its time: a profile summary per format, as Markdown.

    python bench/profile_readers.py                       # 10k spans, otlp-jsonl and otlp-proto
    python bench/profile_readers.py --spans 100000 --formats otlp-json --profiler cprofile

Two profilers: `cprofile` (deterministic; exact call counts, but every Python call pays a fixed
overhead, so many tiny functions look costlier than they are) and `pyinstrument` (sampling, 1 ms;
closer to real proportions; `pip install pyinstrument`). Each table lists the functions with the
most *self* time (time in the function's own code, builtins it calls counted separately) and
their *cumulative* time, as percentages of the profiled `read_traces` call.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import sources_digest  # noqa: E402
from workload import DEFAULT_DIR, Workload, ensure  # noqa: E402

ROOT = HERE.parent


def _where(filename: str, line: int, function: str) -> str:
    path = Path(filename)
    try:
        shown = str(path.resolve().relative_to(ROOT))
    except ValueError:
        shown = path.name if filename.startswith(("/", ".")) else filename
    if filename == "~":  # builtins
        return function
    return f"{shown}:{line} {function}"


def profile_cprofile(path: Path) -> tuple[float, dict[str, tuple[float, float, int]]]:
    import tracecheck

    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    traces = tracecheck.read_traces(path)
    profiler.disable()
    wall = time.perf_counter() - started
    del traces
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    out: dict[str, tuple[float, float, int]] = {}
    for (filename, line, function), (_, calls, self_time, cumulative, _) in stats.items():
        out[_where(filename, line, function)] = (self_time, cumulative, calls)
    return wall, out


def profile_pyinstrument(path: Path) -> tuple[float, dict[str, tuple[float, float, int]]]:
    from pyinstrument import Profiler

    import tracecheck

    profiler = Profiler(interval=0.001)
    started = time.perf_counter()
    profiler.start()
    traces = tracecheck.read_traces(path)
    profiler.stop()
    wall = time.perf_counter() - started
    del traces
    root = profiler.last_session.root_frame() if profiler.last_session else None
    self_times: dict[str, float] = defaultdict(float)
    cumulative: dict[str, float] = defaultdict(float)

    def walk(frame: Any, active: frozenset[str]) -> None:
        file = frame.file_path or "~"
        key = _where("~" if file == "<built-in>" else file, frame.line_no or 0, frame.function)
        # pyinstrument reports a function's own time as synthetic `[self]` children.
        children = [c for c in frame.children if not getattr(c, "is_synthetic", False)]
        self_times[key] += frame.time - sum(child.time for child in children)
        if key not in active:  # count recursion once
            cumulative[key] += frame.time
        for child in children:
            walk(child, active | {key})

    if root is not None:
        walk(root, frozenset())
    return wall, {k: (self_times[k], cumulative[k], 0) for k in self_times}


def summary(
    label: str, wall: float, stats: dict[str, tuple[float, float, int]], top: int, profiler: str
) -> list[str]:
    total = sum(s for s, _, _ in stats.values()) or wall
    lines = [
        f"### {label} — {profiler}, {wall:.2f} s under the profiler",
        "",
        "| function | self | cumulative | calls |",
        "|---|---:|---:|---:|",
    ]
    ranked = sorted(stats.items(), key=lambda item: -item[1][0])[:top]
    for name, (self_time, cumulative, calls) in ranked:
        lines.append(
            f"| `{name}` | {100 * self_time / total:.1f}% | {100 * cumulative / total:.1f}% | "
            f"{calls or ''} |"
        )
    by_file: dict[str, float] = defaultdict(float)
    for name, (self_time, _, _) in stats.items():
        file = name.split(":", 1)[0] if ":" in name and "/" in name.split(":", 1)[0] else name
        if not file.startswith("tracecheck/"):
            file = "(other: " + ("builtins/C" if ":" not in name else "library Python") + ")"
        by_file[file] += self_time
    lines += ["", "Self time by file:", ""]
    for file, seconds in sorted(by_file.items(), key=lambda item: -item[1]):
        if seconds / total >= 0.005:
            lines.append(f"- `{file}`: {100 * seconds / total:.1f}%")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=10_000)
    parser.add_argument("--traces", type=int, default=1)
    parser.add_argument("--formats", default="otlp-jsonl,otlp-proto")
    parser.add_argument("--profiler", default="both", choices=("cprofile", "pyinstrument", "both"))
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--data", type=Path, default=DEFAULT_DIR)
    args = parser.parse_args(argv)
    workload = Workload(args.spans, args.traces)
    ensure(workload, args.data)
    profilers = ["cprofile", "pyinstrument"] if args.profiler == "both" else [args.profiler]
    lines = [
        f"## read_traces profile: {workload.label} spans",
        "",
        f"tracecheck sources digest {sources_digest()}",
        "",
    ]
    for fmt in args.formats.split(","):
        path = workload.path(args.data, fmt)
        path.read_bytes()  # into the page cache
        for name in profilers:
            run = profile_cprofile if name == "cprofile" else profile_pyinstrument
            try:
                wall, stats = run(path)
            except ImportError:
                lines += [f"({name} is not installed)", ""]
                continue
            gc.collect()
            lines += [*summary(f"{workload.label} {fmt}", wall, stats, args.top, name), ""]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
