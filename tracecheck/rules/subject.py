"""The spans a rule sees, indexed once per check so that every rule is one pass or less."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tracecheck.rules.predicates import Exact, Predicate
from tracecheck.spans import Kind, RunRecord, Span

__all__ = ["Subject"]


class Subject:
    """The subject spans of a check (the trace, or a scoped subtree) in array order, and the
    run record with the reason it is unknown when it is.

    Spans are indexed by kind and TOOL spans by tool name on first use, so a rule about one
    tool looks only at that tool's calls instead of testing every span.
    """

    __slots__ = (
        "_by_id",
        "_by_kind",
        "_by_tool",
        "_positions",
        "memo",
        "run",
        "run_unknown",
        "spans",
    )

    def __init__(
        self, spans: Sequence[Span], run: RunRecord | None = None, run_unknown: str | None = None
    ) -> None:
        self.spans: tuple[Span, ...] = tuple(spans)
        self.run = run
        self.run_unknown = run_unknown
        self._positions: dict[int, int] | None = None
        self._by_kind: dict[Kind, list[Span]] | None = None
        self._by_tool: dict[str | None, list[Span]] | None = None
        self._by_id: dict[str, Span] | None = None
        # Indexes that rules build once per check and share (earlier calls' values, offered
        # schemas), keyed by whoever builds them.
        self.memo: dict[object, object] = {}

    @property
    def tool_spans(self) -> Sequence[Span]:
        """TOOL spans in array order."""
        return self.of_kind(Kind.TOOL)

    def of_kind(self, kind: Kind) -> Sequence[Span]:
        """The spans of one kind, in array order."""
        return self._kinds().get(kind, ())

    def matching(self, predicate: Predicate) -> list[Span]:
        """The spans matching `predicate`, in array order."""
        candidates, rest = self._candidates(predicate)
        if rest is None:
            return list(candidates)
        matches = rest.matches
        return [span for span in candidates if matches(span)]

    def ancestors(self, span: Span) -> list[Span]:
        """The span's parent, its parent's parent, ... among the subject's spans."""
        if self._by_id is None:
            self._by_id = {s.span_id: s for s in self.spans if s.span_id}
        found: list[Span] = []
        seen = {id(span)}
        parent = self._by_id.get(span.parent_span_id or "")
        while parent is not None and id(parent) not in seen:  # a parent cycle ends the walk
            seen.add(id(parent))
            found.append(parent)
            parent = self._by_id.get(parent.parent_span_id or "")
        return found

    def position(self, span: Span) -> int:
        """The span's index in array order."""
        if self._positions is None:
            self._positions = {id(s): i for i, s in enumerate(self.spans)}
        return self._positions[id(span)]

    def ref(self, span: Span) -> str:
        """How a message names a span: its id, or `#<index>` in array order when it has none."""
        return span.span_id or f"#{self.position(span)}"

    def _candidates(self, predicate: Predicate) -> tuple[Sequence[Span], Predicate | None]:
        """The spans an index gives for the predicate, and what of it they must still match
        (None: nothing, the index holds it all)."""
        if predicate.kind is None:
            return self.spans, predicate
        if predicate.kind == Kind.TOOL and isinstance(predicate.tool, Exact):
            if self._by_tool is None:
                self._by_tool = {}
                for span in self.tool_spans:
                    self._by_tool.setdefault(span.tool_name, []).append(span)
            found = self._by_tool.get(predicate.tool.value, ())
            return found, _unless_any(replace(predicate, kind=None, tool=None))
        found = self._kinds().get(Kind(predicate.kind), ())
        return found, _unless_any(replace(predicate, kind=None))

    def _kinds(self) -> dict[Kind, list[Span]]:
        if self._by_kind is None:
            self._by_kind = {}
            for span in self.spans:
                self._by_kind.setdefault(span.kind, []).append(span)
        return self._by_kind


_ANY = Predicate()


def _unless_any(predicate: Predicate) -> Predicate | None:
    return None if predicate == _ANY else predicate
