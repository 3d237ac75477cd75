"""What the conventions layer costs per span, against the common reading alone.

    python bench/conventions_bench.py              # 10k generated spans + the producers' recordings
    python bench/conventions_bench.py --repeat 7

Two workloads, read once: the 10k-span OpenTelemetry GenAI run of `workload.py` (one
convention, the common case), and every recording under `fixtures/producers/` repeated to about
10k spans (sixteen conventions mixed). On each, in this process with the cyclic GC paused, best
of K:

- `common`: the common reading's functions alone (no selection), every fact of every span;
- `conventions`: selection plus every fact through the span's convention, as `Span` does;
- `doubt`: the reading of the check (`read_subject`: conventions counted, unmapped spans and
  tool calls that do not say which tool ran sought, totals compared), trace by trace;
- `merge`: seeking calls that two instrumentations recorded and merging them
  (`merge_duplicate_calls`), trace by trace, as every check does first.

The figures are µs per span and the ratio `conventions / common`, from one run.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workload import DEFAULT_DIR, Workload, ensure  # noqa: E402

from tracecheck import Span, read_traces  # noqa: E402
from tracecheck.conventions import generic, read  # noqa: E402
from tracecheck.conventions.registry import select  # noqa: E402
from tracecheck.readers.duplicates import merge_duplicate_calls  # noqa: E402
from tracecheck.reading import read_subject  # noqa: E402
from tracecheck.rules.subject import Subject  # noqa: E402

PRODUCERS = HERE.parent / "fixtures" / "producers"


def _generated(spans: int) -> list[list[Span]]:
    workload = Workload(spans=spans)
    ensure(workload, DEFAULT_DIR, verbose=False)
    path = workload.path(DEFAULT_DIR, "otlp-jsonl")
    return [list(trace.spans) for trace in read_traces(path)]


def _recorded(target: int) -> list[list[Span]]:
    """Every recorded trace, whole, repeated until they hold about `target` spans."""
    files = sorted(p for p in PRODUCERS.rglob("*.otlp.*") if p.suffix in (".jsonl", ".json", ".pb"))
    traces = [list(trace.spans) for path in files for trace in read_traces(path)]
    found: list[list[Span]] = []
    while sum(map(len, found)) < target:
        found.extend(traces)
    return found


def _common(spans: Sequence[Span]) -> None:
    for span in spans:
        attributes = span.attributes
        kind = generic.kind(span.declared_kind, attributes, span.name)
        generic.tool_name(attributes, span.name, kind)
        generic.model(attributes)
        generic.tokens(attributes)
        generic.recorded_total(attributes)
        generic.tool_arguments(attributes)
        generic.offered_tools(attributes)


def _conventions(spans: Sequence[Span]) -> None:
    for span in spans:
        convention = select(span.scope, span.attributes)
        kind = read.kind(convention, span)
        read.tool_name(convention, span, kind)
        read.model(convention, span)
        read.tokens(convention, span)
        read.recorded_total(convention, span)
        read.arguments(convention, span)
        read.offered_tools(convention, span, kind)


def _doubt(traces: Sequence[Sequence[Span]]) -> None:
    for spans in traces:
        read_subject(Subject(spans))


def _merge(traces: Sequence[Sequence[Span]]) -> None:
    for spans in traces:
        merge_duplicate_calls(spans)


def _best(run: Callable[[Any], None], spans: Any, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        started = time.perf_counter()
        run(spans)
        best = min(best, time.perf_counter() - started)
        gc.enable()
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spans", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    workloads = {
        "generated (otel-genai)": _generated(args.spans),
        "recorded producers (mixed)": _recorded(args.spans),
    }
    print(
        "| workload | spans | common µs/span | conventions µs/span | ratio | doubt µs/span "
        "| merge µs/span | merges |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, traces in workloads.items():
        spans = [span for trace in traces for span in trace]
        _doubt(traces)  # derive and cache what the doubt scan reads, as a check would
        common = _best(_common, spans, args.repeat) / len(spans) * 1e6
        conventions = _best(_conventions, spans, args.repeat) / len(spans) * 1e6
        doubt = _best(_doubt, traces, args.repeat) / len(spans) * 1e6
        merge = _best(_merge, traces, args.repeat) / len(spans) * 1e6
        merges = sum(len(merge_duplicate_calls(trace).merges) for trace in traces)
        print(
            f"| {label} | {len(spans)} | {common:.2f} | {conventions:.2f} | "
            f"{conventions / common:.2f}× | {doubt:.2f} | {merge:.2f} | {merges} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
