"""Status and timing over a whole run: error spans by kind, span counts by kind, per-tool call
durations at a percentile (issue 28, item 4). The duration doubt of a span predicate, which
every check asks, is in duration_doubt.py.

Every aggregate names the spans that made it fail: the error spans, the spans past a ceiling,
the calls at and above a percentile (the first few, then how many more). Durations are end
minus start in whole nanoseconds, compared exactly and shown in milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from typing import TYPE_CHECKING

from tracecheck.rules.base import SHOWN_NAMES, at, named, number_text
from tracecheck.rules.duration_doubt import unknown_durations as unknown_durations  # was here
from tracecheck.rules.predicates import NS_PER_MS, DurationRange, Predicate, exact
from tracecheck.rules.steps import calls_in_start_order
from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind, Span
from tracecheck.verdict import Violation

if TYPE_CHECKING:
    from fractions import Fraction

__all__ = [
    "PERCENTILES",
    "ErrorsAtMost",
    "StepCount",
    "ToolDuration",
    "in_start_order",
    "nearest_rank",
    "unknown_durations",
]

# The statistics `tools.durations` takes, as the percent each one ranks at.
PERCENTILES = {"p50": 50, "p95": 95, "p99": 99, "max": 100}
_TOOL_CALLS = Predicate(kind=Kind.TOOL)


def nearest_rank(percent: int, count: int) -> int:
    """The nearest-rank percentile's rank among `count` sorted values: the ⌈p·n/100⌉-th
    smallest (1-based), never below the first."""
    return max(1, (percent * count + 99) // 100)


def in_start_order(subject: Subject, spans: Sequence[Span]) -> list[Span]:
    """Spans by start time, ties in array order; spans with no start time last, as read (the
    order `steps.calls_in_start_order` keeps, once per check, for all the tool calls)."""
    position = subject.position
    return sorted(spans, key=lambda s: (s.start_ns is None, s.start_ns or 0, position(s)))


def _ms(nanoseconds: int | Fraction) -> str:
    from fractions import Fraction

    return number_text(Fraction(nanoseconds, NS_PER_MS))


def _capped(
    spans: Sequence[Span], detail: Callable[[int, Span], str], rest: str
) -> list[Violation]:
    """A violation at each of the first few spans (`detail(i, span)`), then one that counts
    the others."""
    shown = [at(span, detail(i, span)) for i, span in enumerate(spans[:SHOWN_NAMES])]
    more = len(spans) - SHOWN_NAMES
    if more > 0:
        shown.append(Violation(None, f"and {more} more {rest}"))
    return shown


@dataclass(frozen=True)
class ErrorsAtMost:
    """`errors: {<KIND>: {max, maxPercent}}`: how many spans of one kind may be in error, as a
    count or as a percentage of that kind's spans (no spans: 0 %, nothing failed). A span is in
    error when it failed (`Span.failed`): its status is error, or it is a tool call whose
    result records a failure."""

    label: str
    p: Predicate  # the kind's spans: capture doubt finds the calls the rule reads by it
    max: int | None = None
    max_percent: int | float | None = None
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        spans = subject.matching(self.p)
        failed = [span for span in spans if span.failed]
        if not failed:
            return []
        reasons = []
        if self.max is not None and len(failed) > self.max:
            reasons.append(f"over the limit of {self.max} span(s)")
        percent = _percent(len(failed), len(spans))
        if self.max_percent is not None and percent > exact(self.max_percent):
            reasons.append(f"over the limit of {number_text(self.max_percent)} %")
        if not reasons:
            return []
        kind = self.p.kind
        fact = (
            f"{len(failed)} of {len(spans)} {kind} span(s) are ({_percent_text(percent)} %), "
            f"{' and '.join(reasons)}"
        )
        return _capped(
            in_start_order(subject, failed),
            lambda _, span: f"{named(subject, span)} is in error: {fact}",
            f"{kind} span(s) in error",
        )

    def describe(self) -> str:
        limits = []
        if self.max is not None:
            limits.append(f"at most {self.max} {self.p.kind} span(s) are in error")
        if self.max_percent is not None:
            limits.append(
                f"at most {number_text(self.max_percent)} % of {self.p.kind} spans are in error "
                "(none at all: 0 %)"
            )
        return "; ".join(limits)


def _percent(part: int, whole: int) -> Fraction:
    """`whole` is never 0: `ErrorsAtMost` answers before when no span failed."""
    from fractions import Fraction

    return Fraction(100 * part, whole)


def _percent_text(percent: Fraction) -> str:
    """Two decimals at most, rounded up, so that a share over a limit never reads as at it."""
    exact = Decimal(percent.numerator) / Decimal(percent.denominator)
    return number_text(exact.quantize(Decimal("0.01"), rounding=ROUND_CEILING))


@dataclass(frozen=True)
class StepCount:
    """`steps: {<KIND>: {min, max}}`: how many spans of one kind the run has, both bounds
    inclusive. A span is a step: three calls in one parallel group are three."""

    label: str
    p: Predicate
    min: int | None = None
    max: int | None = None
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        spans = subject.matching(self.p)
        kind = self.p.kind
        if self.min is not None and len(spans) < self.min:
            return [
                Violation(None, f"{len(spans)} {kind} span(s), under the minimum of {self.min}")
            ]
        if self.max is None or len(spans) <= self.max:
            return []
        limit = self.max
        if self.p == _TOOL_CALLS:  # the tool calls, whose order is sorted once per check
            past = list(calls_in_start_order(subject)[limit:])
        else:
            past = in_start_order(subject, spans)[limit:]
        return _capped(
            past,
            lambda i, span: (
                f"{named(subject, span)} is {kind} span {limit + 1 + i} of {len(spans)} in "
                f"start order, over the limit of {limit}"
            ),
            f"{kind} span(s) over the limit",
        )

    def describe(self) -> str:
        kind = self.p.kind
        if self.min is not None and self.max is not None:
            return f"between {self.min} and {self.max} {kind} span(s) (each span a step)"
        if self.min is not None:
            return f"at least {self.min} {kind} span(s) (each span a step)"
        return f"at most {self.max} {kind} span(s) (each span a step)"


@dataclass(frozen=True)
class ToolDuration:
    """`tools.durations: {<tool>: {p50|p95|p99|max: ms}}`: the tool's call durations at a
    nearest-rank percentile (`max` the slowest) are at most the limit. No calls: nothing to
    judge. A call with no start or end time fails: its duration could be any."""

    label: str
    p: Predicate  # the tool's calls
    stat: str
    max_ms: int | float
    needs_tool_capture: bool = True

    def evaluate(self, subject: Subject) -> list[Violation]:
        calls = in_start_order(subject, subject.matching(self.p))
        tool = self.p.tool.describe() if self.p.tool is not None else "the tool"
        unknown = [span for span in calls if span.duration_ns is None]
        if unknown:
            return [
                at(
                    span,
                    f"{named(subject, span)} has no start or end time (or ends before it "
                    f"starts), so the {self.stat} of {tool}'s call durations is unknown",
                )
                for span in unknown
            ]
        if not calls:
            return []
        timed = sorted(
            ((span.duration_ns or 0, subject.position(span), span) for span in calls),
            key=lambda item: (item[0], item[1]),
        )
        rank = nearest_rank(PERCENTILES[self.stat], len(timed))
        value = timed[rank - 1][0]
        limit = DurationRange(max_ms=self.max_ms).max_ns
        if limit is None or value <= limit:
            return []
        first = next(i for i, item in enumerate(timed) if item[0] == value)
        slow = [span for _, _, span in timed[first:]]
        took = {id(span): ns for ns, _, span in timed}
        fact = (
            f"the {self.stat} of {len(timed)} {tool} call(s) is {_ms(value)} ms, "
            f"over the limit of {number_text(self.max_ms)} ms"
        )
        return _capped(
            slow,
            lambda _, span: f"{named(subject, span)} took {_ms(took[id(span)])} ms: {fact}",
            f"{tool} call(s) at or above the {self.stat}",
        )

    def describe(self) -> str:
        limit = f"{number_text(self.max_ms)} ms"
        if self.stat == "max":
            return f"every call matching {self.p.describe()} takes at most {limit}"
        return (
            f"the {self.stat} (nearest rank) of the durations of calls matching "
            f"{self.p.describe()} is at most {limit}"
        )
