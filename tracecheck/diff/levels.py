"""A run's tool calls in the order the diff reads them: step by step, level by level.

A call made inside another tool call (an agent called as a tool) overlaps it in time, so the
steps of one level (tracecheck.rules.steps) would hold it beside its caller in one parallel
group, and the order of the calls an agent made inside a tool would be lost. So each level is
grouped into steps on its own: the calls no tool call encloses, and right after each step the
steps of the calls made inside its calls (with the model calls made there), and so on down.

The calls of a parallel step are put in the order of their keys (tool, position, arguments,
failure), and calls whose keys tie in the order of what was called inside them, so that two
groups of the same calls read alike whatever order they started in or were recorded in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tracecheck.rules.steps import Step, tool_steps
from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind, Span

__all__ = ["MAX_LEVELS", "Callers", "Placed", "ordered_calls"]

MAX_LEVELS = 50  # deeper nesting than this is read as one level (a note says so)
Placed = tuple[Span, int, bool, bool]  # a call, its step (0-based), parallel, placed
Order = Callable[[Span], tuple[Any, ...]]


class Callers:
    """The tool calls above each span, found once: each span's nearest tool call at or above it
    is remembered along the way up, so every span of the trace costs one step of a walk."""

    def __init__(self, subject: Subject) -> None:
        self._by_id = {span.span_id: span for span in subject.spans if span.span_id}
        self._found: dict[str, Span | None] = {}  # span id -> nearest tool call at or above
        self._within: dict[int, tuple[str, ...]] = {}

    def caller(self, span: Span) -> Span | None:
        """The nearest tool call above `span` (its caller's span), or None."""
        start = span.parent_span_id
        walked: list[str] = []
        found: Span | None = None
        current = start
        while current and current not in walked:
            if current in self._found:
                found = self._found[current]
                break
            node = self._by_id.get(current)
            if node is None:
                break
            walked.append(current)
            if node.kind is Kind.TOOL:
                found = node
                break
            current = node.parent_span_id
        for span_id in walked:
            self._found[span_id] = found
        return found

    def within(self, span: Span) -> tuple[str, ...]:
        """The names of the tool calls `span` runs inside, outermost first."""
        chain: list[Span] = []
        caller = self.caller(span)
        while caller is not None and id(caller) not in self._within and caller not in chain:
            chain.append(caller)
            caller = self.caller(caller)
        names = self._within.get(id(caller), ()) if caller is not None else ()
        for outer in reversed(chain):
            names = (*names, outer.tool_name or "")
            self._within[id(outer)] = names
        return names


def ordered_calls(subject: Subject, order: Order, callers: Callers) -> tuple[list[Placed], bool]:
    """The subject's tool calls in order, each with its step; and whether the levels were
    read apart (False when no call runs inside another, or they nest past `MAX_LEVELS`)."""
    levels, depth = _levels(subject, callers)
    if (len(levels) == 1 and 0 in levels) or depth > MAX_LEVELS:
        placed: list[Placed] = []
        for number, step in enumerate(tool_steps(subject)):
            members = sorted(step.calls, key=order) if step.parallel else step.calls
            placed.extend((span, number, step.parallel, step.placed) for span in members)
        return placed, False
    return _Levels(levels, order).flattened(), True


def _levels(subject: Subject, callers: Callers) -> tuple[dict[int, list[Span]], int]:
    """The tool and model calls by the tool call that encloses them (its `id()`; 0 for none),
    and how deep tool calls nest."""
    levels: dict[int, list[Span]] = {}
    depth = 0
    for span in (*subject.tool_spans, *subject.of_kind(Kind.LLM)):
        caller = callers.caller(span)
        if caller is not None:
            depth = max(depth, len(callers.within(span)))
        levels.setdefault(id(caller) if caller is not None else 0, []).append(span)
    return levels, depth


class _Levels:
    """The steps of each level, read once; what was called inside each call, in order."""

    def __init__(self, levels: dict[int, list[Span]], order: Order) -> None:
        self._levels = levels
        self._order = order
        self._steps: dict[int, list[Step]] = {}
        self._inside: dict[int, tuple[Any, ...]] = {}
        self._count = 0  # steps emitted so far

    def flattened(self) -> list[Placed]:
        placed: list[Placed] = []
        self._emit(0, placed)
        return placed

    def _emit(self, level: int, placed: list[Placed]) -> None:
        for step in self._steps_of(level):
            number, self._count = self._count, self._count + 1
            members = self._members(step)
            placed.extend((span, number, step.parallel, step.placed) for span in members)
            for span in members:
                if id(span) in self._levels:
                    self._emit(id(span), placed)

    def _steps_of(self, level: int) -> list[Step]:
        steps = self._steps.get(level)
        if steps is None:
            steps = self._steps[level] = tool_steps(Subject(self._levels.get(level, ())))
        return steps

    def _members(self, step: Step) -> Sequence[Span]:
        if not step.parallel:
            return step.calls
        return sorted(step.calls, key=lambda span: (self._order(span), self._inside_of(span)))

    def _inside_of(self, span: Span) -> tuple[Any, ...]:
        """The keys of every call made inside `span`, in order."""
        level = id(span)
        if level not in self._levels:
            return ()
        found = self._inside.get(level)
        if found is None:
            keys: list[Any] = []
            for step in self._steps_of(level):
                for member in self._members(step):
                    keys.append(self._order(member))
                    keys.extend(self._inside_of(member))
            found = self._inside[level] = tuple(keys)
        return found
