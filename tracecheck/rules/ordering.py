"""Witnessing: whether a guarded span is proven to come after a guard match (contracts.md §4.4).

Only timestamps are evidence: array position never is, and a span without the stamp a mode needs
never proves order. Each guard is summarised once (earliest start, earliest end, latest end, the
first spans lacking a stamp), keeping the best two of each, so a guarded span is judged in constant
time even when it is itself a guard match (a span never witnesses itself).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from tracecheck.spans import Span

__all__ = ["Guard", "OrderMode", "witness"]

OrderMode = Literal["start-order", "finish-before-start", "all-occurrences"]

# (stamp, array index) pairs, best first; at most two.
_Best = list[tuple[int, int]]


def _keep_lowest(best: _Best, stamp: int, index: int) -> None:
    if not best or stamp < best[0][0]:
        best.insert(0, (stamp, index))
        del best[2:]
    elif len(best) < 2 or stamp < best[1][0]:
        best[1:] = [(stamp, index)]


def _keep_highest(best: _Best, stamp: int, index: int) -> None:
    if not best or stamp > best[0][0]:
        best.insert(0, (stamp, index))
        del best[2:]
    elif len(best) < 2 or stamp > best[1][0]:
        best[1:] = [(stamp, index)]


def _other(best: _Best, index: int) -> tuple[int, int] | None:
    for entry in best:
        if entry[1] != index:
            return entry
    return None


def _other_index(indices: list[int], index: int) -> int | None:
    for entry in indices:
        if entry != index:
            return entry
    return None


class Guard:
    """The matches of a guard predicate, summarised for witnessing."""

    __slots__ = ("count", "earliest_end", "earliest_start", "latest_end", "no_end", "no_start")

    def __init__(self, spans: Sequence[Span], indices: Sequence[int]) -> None:
        self.count = len(indices)
        self.earliest_start: _Best = []
        self.earliest_end: _Best = []
        self.latest_end: _Best = []
        self.no_start: list[int] = []
        self.no_end: list[int] = []
        for index in indices:
            span = spans[index]
            start = span.start_ns
            end = span.end_ns
            if start is None:
                if len(self.no_start) < 2:
                    self.no_start.append(index)
            else:
                _keep_lowest(self.earliest_start, start, index)
            if end is None:
                if len(self.no_end) < 2:
                    self.no_end.append(index)
            else:
                _keep_lowest(self.earliest_end, end, index)
                _keep_highest(self.latest_end, end, index)


def witness(
    spans: Sequence[Span],
    index: int,
    guard: Guard,
    is_guard_match: bool,
    mode: OrderMode,
    ref: Callable[[Span], str],
) -> str | None:
    """None when the span at `index` is witnessed by the guard, else the reason it is not."""
    span = spans[index]
    start = span.start_ns
    if start is None:
        return f"span {ref(span)} has no start time, so its order cannot be proven"
    if guard.count - (1 if is_guard_match else 0) <= 0:
        return f"span {ref(span)} has no earlier match"
    if mode == "start-order":
        earliest = _other(guard.earliest_start, index)
        if earliest is not None and earliest[0] < start:
            return None
        missing = _other_index(guard.no_start, index)
        if missing is not None:
            return f"span {ref(spans[missing])} has no start time, so its order cannot be proven"
        return f"span {ref(span)} has no match that started before it"
    if mode == "finish-before-start":
        earliest = _other(guard.earliest_end, index)
        if earliest is not None and earliest[0] <= start:
            return None
        missing = _other_index(guard.no_end, index)
        if missing is not None:
            return f"span {ref(spans[missing])} has no end time, so its order cannot be proven"
        return f"span {ref(span)} has no match that finished before it started"
    # all-occurrences: every candidate, later ones included, ends at or before the span starts.
    missing = _other_index(guard.no_end, index)
    if missing is not None:
        return f"span {ref(spans[missing])} has no end time, so its order cannot be proven"
    latest = _other(guard.latest_end, index)
    if latest is not None and latest[0] > start:
        return f"span {ref(spans[latest[1]])} ends after span {ref(span)} starts"
    return None
