"""Run totals standing for model calls that record no counts of their own.

A convention may say that a span of some kind records the totals of every model call below it
(`Convention.run_totals`: Logfire's Claude Agent SDK `invoke_agent`). Where calls record no
counts, the outermost such span above them stands for them, and for every call below it: its
totals hold an inner run's. A cover is trusted only when its input is no smaller than the
calls' own known inputs below it. The token budget, the cost rule, `diff` and `init` all count
tokens this way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind, Span

__all__ = ["Coverage", "coverage", "tokens_used"]


@dataclass(frozen=True, slots=True)
class Coverage:
    """The run-total spans standing for calls (outermost first met), each call below one of
    them by `id()`, and, when the calls cannot be counted, the first call left unknown."""

    covers: tuple[Span, ...] = ()
    under: Mapping[int, Span] = field(default_factory=dict)
    unknown: Span | None = None

    def below(self, cover: Span, calls: Sequence[Span]) -> list[Span]:
        """The calls this cover stands for."""
        return [call for call in calls if self.under.get(id(call)) is cover]


def coverage(subject: Subject, calls: Sequence[Span]) -> Coverage:
    """How `calls` are counted: by their own totals, and where a call records none, by the
    run totals of the outermost span above it that records them."""
    unknown = [call for call in calls if call.tokens.total is None]
    if not unknown:
        return Coverage()
    covers: dict[int, Span] = {}
    for call in unknown:
        cover = _outermost(subject, call)
        if cover is None:
            return Coverage(unknown=call)
        covers[id(cover)] = cover
    under = {
        id(call): cover
        for call in subject.of_kind(Kind.LLM)
        if (cover := _outermost(subject, call, covers)) is not None
    }
    for cover in covers.values():
        inputs = sum(
            call.tokens.input or 0
            for call in subject.of_kind(Kind.LLM)
            if under.get(id(call)) is cover
        )
        if cover.tokens.input is None or cover.tokens.input < inputs:
            # The run's input is less than its calls': not their total.
            first = next(call for call in unknown if under.get(id(call)) is cover)
            return Coverage(unknown=first)
    return Coverage(tuple(covers.values()), under)


def tokens_used(subject: Subject, calls: Sequence[Span]) -> tuple[int | float | None, Coverage]:
    """The tokens `calls` used, counted as `coverage` says (None when some call's count is
    known neither way), and the coverage."""
    counted = coverage(subject, calls)
    if counted.unknown is not None:
        return None, counted
    totals = [
        total
        for span in (*counted.covers, *calls)
        if id(span) not in counted.under and (total := span.tokens.total) is not None
    ]
    # Integers sum exactly; a float anywhere sums correctly rounded, so order cannot matter.
    if all(isinstance(total, int) for total in totals):
        return sum(totals), counted
    return math.fsum(totals), counted


def _outermost(
    subject: Subject, call: Span, among: Mapping[int, Span] | None = None
) -> Span | None:
    """The outermost span above the call that records run totals (with a known total), or
    that is one of `among`."""
    found = None
    for above in subject.ancestors(call):
        if among is not None:
            if id(above) in among:
                found = above
        elif above.kind.value in above.convention.run_totals and above.tokens.total is not None:
            found = above
    return found
