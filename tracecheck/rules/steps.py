"""A run's tool calls as steps: one call, or a parallel group of calls whose order the trace
does not establish.

Calls form one step when they overlap in time (transitively: A overlaps B, B overlaps C), when
they start at the same instant, or when they follow the same model response (the latest model
call that ended before each started, where the trace records model calls): a model that asks
for two tools in one response runs them as one step, whether the harness ran them one after
the other or at once. Their parents do not matter, but a call made inside another tool call
(an agent run as a tool) is never one step with its caller: the calls inside keep their order. Steps are in start order; calls with no
start time cannot be placed and come last, one step each, in the order they were read.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind, Span

__all__ = ["Step", "calls_in_start_order", "placed_calls", "tool_steps"]


@dataclass(frozen=True, slots=True)
class Step:
    """The tool calls of one step, in start order; more than one call is a parallel group.
    `placed` is False for a call with no start time, whose place in the order is unknown."""

    calls: tuple[Span, ...]
    placed: bool = True

    @property
    def parallel(self) -> bool:
        return len(self.calls) > 1


def calls_in_start_order(subject: Subject) -> tuple[Span, ...]:
    """The subject's tool calls with a start time in start order (ties in array order), then
    those without one, as read: sorted once per subject, for every rule that reads the order
    (steps, loops, step counts)."""
    found = subject.memo.get(calls_in_start_order)
    if found is None:
        calls = subject.tool_spans  # in array order, so a stable sort keeps ties in it
        timed = sorted((span for span in calls if span.start_ns is not None), key=_start)
        found = subject.memo[calls_in_start_order] = (
            *timed,
            *(span for span in calls if span.start_ns is None),
        )
    return found  # type: ignore[return-value]


def placed_calls(subject: Subject) -> tuple[tuple[Span, ...], tuple[Span, ...]]:
    """`calls_in_start_order` split: the calls with a start time, and those without one."""
    calls = calls_in_start_order(subject)
    placed = len(calls)
    while placed and calls[placed - 1].start_ns is None:
        placed -= 1
    return calls[:placed], calls[placed:]


def _start(span: Span) -> int:
    return span.start_ns  # type: ignore[return-value]  # only timed calls are sorted by it


def tool_steps(subject: Subject) -> list[Step]:
    """The subject's tool calls as steps, in order (see the module docstring); built once per
    subject, for every rule that reads them."""
    found = subject.memo.get(tool_steps)
    if found is None:
        found = subject.memo[tool_steps] = _steps(subject)
    return found  # type: ignore[return-value]


def _steps(subject: Subject) -> list[Step]:
    timed, unplaced = placed_calls(subject)
    untimed = [Step((span,), placed=False) for span in unplaced]
    if not timed:
        return untimed
    answered = _response_ends(subject.of_kind(Kind.LLM))
    callers = _callers(subject, subject.tool_spans)
    steps: list[Step] = []
    group: list[Span] = []
    group_end = group_start = 0
    group_response: int | None = None
    for span in timed:
        start = span.start_ns or 0
        end = span.end_ns if span.end_ns is not None else start
        response = _response(answered, start)
        inside = callers.get(id(span))
        joins = (
            group
            and not (inside and any(id(member) in inside for member in group))
            and (
                start < group_end
                or start == group_start
                or (response is not None and response == group_response)
            )
        )
        if joins:
            group.append(span)
            group_end = max(group_end, end)
            continue
        if group:
            steps.append(Step(tuple(group)))
        group, group_start, group_end, group_response = [span], start, end, response
    steps.append(Step(tuple(group)))
    return steps + untimed


def _callers(subject: Subject, calls: Sequence[Span]) -> dict[int, set[int]]:
    """For each call made inside other tool calls (an agent run as a tool, a tool calling
    another), the `id()`s of those calls: a call is never one step with its caller, whose time
    holds it, so the order of the calls inside a tool is kept."""
    tools = {span.span_id: span for span in calls if span.span_id}
    parents = {s.span_id: s.parent_span_id for s in subject.spans if s.span_id}
    # The tool calls at and above each span id, filled in once per id on the way up.
    above: dict[str | None, frozenset[int]] = {None: frozenset()}
    callers: dict[int, set[int]] = {}
    for span in calls:
        chain: list[str] = []
        node = span.parent_span_id
        while node not in above and node not in chain:
            chain.append(node)  # type: ignore[arg-type]
            node = parents.get(node)  # type: ignore[arg-type]
        found = above.get(node, frozenset())
        for link in reversed(chain):
            caller = tools.get(link)
            found = found | {id(caller)} if caller is not None else found
            above[link] = found
        if found:
            callers[id(span)] = set(found)
    return callers


def _response_ends(models: Sequence[Span]) -> list[int]:
    """The end times of the model calls, sorted: a call's response is the latest before it."""
    return sorted(span.end_ns for span in models if span.end_ns is not None)


def _response(ends: list[int], start: int) -> int | None:
    """Which model response a call that starts at `start` follows (an index into `ends`), or
    None when no model call ended before it."""
    index = bisect_right(ends, start)
    return index - 1 if index else None
