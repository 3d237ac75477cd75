"""The few facts about a run that a fleet's verdict rows carry beside each rule: how long it
took, how many tokens its model calls used, which models it called, how many spans it has, and
which task it is a run of, when the check was told the attribute that says so."""

from __future__ import annotations

import math
from typing import NamedTuple

from tracecheck.run.task_key import TaskKey, task_of
from tracecheck.spans import Kind, Trace

__all__ = ["TraceFacts", "trace_facts"]


class TraceFacts(NamedTuple):
    duration_ms: float | None  # the run record's, else first start to last end; None: unknown
    tokens: int | None  # summed over model calls that recorded a total; None: none did
    model: str | None  # the models called, in first-use order, joined by ", "
    spans: int
    task: str | None = None  # the value of the check's task key (`task_key`); None: none


def trace_facts(trace: Trace, task_key: TaskKey | None = None) -> TraceFacts:
    run = trace.run_record
    duration_ns = run.duration_ns if run is not None else None
    if duration_ns is None:
        starts = [span.start_ns for span in trace.spans if span.start_ns is not None]
        ends = [span.end_ns for span in trace.spans if span.end_ns is not None]
        duration_ns = max(ends) - min(starts) if starts and ends else None
    totals: list[int | float] = []
    models: dict[str, None] = {}
    for span in trace.spans:
        if span.kind is not Kind.LLM:
            continue
        total = span.tokens.total
        if total is not None:
            totals.append(total)
        if span.model:
            models[span.model] = None
    return TraceFacts(
        None if duration_ns is None else duration_ns / 1_000_000,
        math.ceil(math.fsum(totals)) if totals else None,  # a fraction of a token counts as one
        ", ".join(models) or None,
        len(trace.spans),
        task_of(trace, task_key) if task_key is not None else None,
    )
