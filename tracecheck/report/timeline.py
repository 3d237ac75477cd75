"""What the HTML report draws of a trace: its spans as bars of a waterfall, in tree order.

A `Timeline` holds only what the page shows (kind, names, tokens, timing, the tree's depth),
its names already redacted, so that `check --html` can keep one per trace on disk (and send it
back from a `--jobs` worker) at a few hundred bytes per span, with no recorded value in it.
A trace of more than `MAX_SPANS` spans keeps its first spans in tree order and counts the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tracecheck.spans import Kind, Span, Trace

__all__ = ["MAX_SPANS", "BarKind", "SpanBar", "Timeline", "timeline_of"]

MAX_SPANS = 2000  # bars drawn per trace: a page a browser still opens at once

BarKind = Literal["agent", "model", "tool", "other"]
_BAR_KINDS: dict[Kind, BarKind] = {
    Kind.AGENT: "agent",
    Kind.CHAIN: "agent",
    Kind.LLM: "model",
    Kind.EMBEDDING: "model",
    Kind.TOOL: "tool",
}


@dataclass(frozen=True, slots=True)
class SpanBar:
    """One span as a bar: times are nanoseconds from the trace's first start (None when the
    span did not record them)."""

    span_id: str | None
    depth: int
    name: str
    kind: BarKind
    tool: str | None = None
    model: str | None = None
    tokens_in: int | float | None = None
    tokens_out: int | float | None = None
    start_ns: int | None = None
    end_ns: int | None = None
    error: bool = False

    @property
    def duration_ns(self) -> int | None:
        if self.start_ns is None or self.end_ns is None:
            return None
        return max(0, self.end_ns - self.start_ns)


@dataclass(frozen=True, slots=True)
class Timeline:
    """A trace's bars in tree order (depth-first, siblings in start order), and how many
    spans were left out beyond the cap."""

    trace_id: str | None
    bars: tuple[SpanBar, ...]
    left_out: int = 0
    profile: str = "default"  # the redaction profile the names went through

    @property
    def spans(self) -> int:
        return len(self.bars) + self.left_out


def timeline_of(trace: Trace, *, profile: str = "default", limit: int = MAX_SPANS) -> Timeline:
    """The bars of `trace`'s first `limit` spans in tree order, every name redacted with
    `profile` (in one pass of the redactor over all of them)."""
    from tracecheck.show import tree_order

    ordered = tree_order(trace)
    kept = ordered[:limit]
    origin = min((s.start_ns for s in trace.spans if s.start_ns is not None), default=0)
    names = _redacted(kept, profile)
    bars = tuple(
        _bar(span, depth, origin, names[3 * row : 3 * row + 3])
        for row, (depth, span) in enumerate(kept)
    )
    return Timeline(trace.trace_id, bars, len(ordered) - len(kept), profile)


def _redacted(kept: Sequence[tuple[int, Span]], profile: str) -> list[str | None]:
    """Each span's name, tool and model, redacted: three entries per span."""
    from redact import redact  # the redactor is loaded only when a page is drawn

    names: list[str | None] = []
    for _, span in kept:
        names.extend((span.name, span.tool_name, span.model))
    value: list[str | None] = redact(names, profile=profile).value
    return value


def _bar(span: Span, depth: int, origin: int, names: Sequence[str | None]) -> SpanBar:
    kind = _BAR_KINDS.get(span.kind, "other")
    name, tool, model = names
    tokens = span.tokens
    return SpanBar(
        span_id=span.span_id,
        depth=depth,
        name=name or "",
        kind=kind,
        tool=tool if kind == "tool" else None,
        model=model if kind == "model" else None,
        tokens_in=tokens.input,
        tokens_out=tokens.output,
        start_ns=None if span.start_ns is None else span.start_ns - origin,
        end_ns=None if span.end_ns is None else span.end_ns - origin,
        error=span.is_error,
    )
