"""The spans a rule sees, indexed once per check so that every rule is one pass or less."""

from __future__ import annotations

from collections.abc import Sequence

from tracecheck.spans import Kind, RunRecord, Span

__all__ = ["Subject"]


class Subject:
    """The subject spans of a check (the trace, or a scoped subtree) in array order, and the
    run record with the reason it is unknown when it is."""

    __slots__ = ("_positions", "_tool_spans", "run", "run_unknown", "spans")

    def __init__(
        self, spans: Sequence[Span], run: RunRecord | None = None, run_unknown: str | None = None
    ) -> None:
        self.spans: tuple[Span, ...] = tuple(spans)
        self.run = run
        self.run_unknown = run_unknown
        self._positions: dict[int, int] | None = None
        self._tool_spans: tuple[Span, ...] | None = None

    @property
    def tool_spans(self) -> tuple[Span, ...]:
        """TOOL spans in array order."""
        if self._tool_spans is None:
            self._tool_spans = tuple(span for span in self.spans if span.kind is Kind.TOOL)
        return self._tool_spans

    def ref(self, span: Span) -> str:
        """How a message names a span: its id, or `#<index>` in array order when it has none."""
        if span.span_id:
            return span.span_id
        if self._positions is None:
            self._positions = {id(s): i for i, s in enumerate(self.spans)}
        return f"#{self._positions.get(id(span), '?')}"
