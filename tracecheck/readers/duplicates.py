"""One call that two instrumentations recorded is one call.

A framework's span and the model SDK's own, OpenInference's span around a framework's, an MCP
client's `tools/call` inside the agent's `execute_tool`: each records the same call, and counted
as two it doubles calls and tokens and hides arguments behind an argument-less twin. Two spans
record the same call when they

- are of the same kind (a tool call, or a model call) and come from different recorders
  (instrumentation scope, service and span kind: an MCP client's CLIENT span and its server's
  SERVER span are two recorders of one scope; span names where no scope is recorded), and
- agree on what identifies the call: the tool and its arguments, the tool call id, the model
  and the response id, wherever both record them, and
- share the call's id (tool call id, response id), or nest: one is the other's parent (or
  ancestor through spans that are no call, such as a transport's `MCP send`), or both are
  children of one span and one's time lies within the other's.

Spans of one recorder are never merged, and a call holds at most one span of each: a retried
tool call that repeats its call id ran twice.
The merged call keeps the outermost recording's span id and times, and its evidence is the
union of the recordings'; where they disagree on a count the larger is kept, and a note says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tracecheck.conventions.generic import call_id
from tracecheck.spans import Kind, Span, TokenUsage

__all__ = ["Merge", "MergedCalls", "merge_duplicate_calls"]

_HOPS = 4  # the parent, and three spans that are no call between a call and its caller


@dataclass(frozen=True, slots=True)
class Merge:
    """One call and the spans that recorded it (outermost first), why they are one, and what
    they disagree on."""

    call: Span
    recordings: tuple[Span, ...]
    how: str
    conflicts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MergedCalls:
    """The spans with each call recorded twice merged into one, in array order."""

    spans: tuple[Span, ...]
    merges: tuple[Merge, ...] = ()

    def merged_into(self) -> dict[int, Span]:
        """For each span that a merge absorbed (by `id()`), the call it is part of."""
        return {id(s): m.call for m in self.merges for s in m.recordings[1:]}


def merge_duplicate_calls(spans: Sequence[Span]) -> MergedCalls:
    """`spans` with every call that several instrumentations recorded merged into one."""
    calls = [span for span in spans if span.kind is Kind.TOOL or span.kind is Kind.LLM]
    # Distinct as `_recorder`s are, without formatting one per call.
    recorders = {
        (
            span.kind,
            scope.name if (scope := span.scope) is not None and scope.name else None,
            None if scope is not None and scope.name else span.name,
            span.resource.get("service.name"),
            span.otlp_kind,
        )
        for span in calls
    }
    if len(recorders) == len({recorder[0] for recorder in recorders}):
        return MergedCalls(tuple(spans))  # one recorder of each kind of call: nothing twice
    between = {s.span_id: s for s in spans if s.kind is Kind.UNKNOWN and s.span_id}
    pairs = _matched(_candidates(calls, between))
    if not pairs:
        return MergedCalls(tuple(spans))
    groups = _groups(pairs, {id(span): i for i, span in enumerate(spans)})
    merges = tuple(_merge(group, how) for group, how in groups)
    return MergedCalls(_rebuilt(spans, merges), merges)


# --- which spans record one call ---------------------------------------------------------


def _recorder(span: Span) -> tuple[str, object, int]:
    scope = span.scope
    name = f"scope {scope.name}" if scope is not None and scope.name else f"name {span.name}"
    return name, span.resource.get("service.name"), span.otlp_kind


def _model_key(model: str | None) -> str | None:
    """A model name as two recorders of one call may both write it: without a provider or
    `models/` prefix and a `-latest` alias (`anthropic/claude-x-latest` is `claude-x`)."""
    if not model:
        return None
    return model.rpartition("/")[2].removesuffix("-latest").lower()


def _same_call(a: Span, b: Span) -> bool:
    if a.kind is not b.kind or _recorder(a) == _recorder(b):
        return False
    ids = call_id(a.attributes, a.kind), call_id(b.attributes, b.kind)
    if None not in ids and ids[0] != ids[1]:
        return False
    if a.kind is Kind.TOOL:
        if not a.tool_name or a.tool_name != b.tool_name:
            return False
        first, second = a.arguments, b.arguments
        return not (first.known and second.known and first.value != second.value)
    first_model, second_model = _model_key(a.model), _model_key(b.model)
    if first_model is None or second_model is None:
        return True
    one, other = sorted((first_model, second_model), key=len)
    return other.startswith(one)


def _nests(inner: Span, outer: Span) -> bool:
    if None in (inner.start_ns, inner.end_ns, outer.start_ns, outer.end_ns):
        return False
    return outer.start_ns <= inner.start_ns and inner.end_ns <= outer.end_ns  # type: ignore[operator]


def _candidates(calls: list[Span], between: dict[str, Span]) -> Iterable[tuple[Span, Span, str]]:
    """(a, b, how) for every pair of calls that may record one call; `between` are the spans
    by id that are no call (read as UNKNOWN), through which a call's caller may be reached."""
    by_id: dict[tuple[Kind, str], list[Span]] = {}
    by_span_id = {span.span_id: span for span in calls if span.span_id}
    siblings: dict[tuple[str, Kind, str | None], list[Span]] = {}
    for span in calls:
        found = call_id(span.attributes, span.kind)
        if found:
            by_id.setdefault((span.kind, found), []).append(span)
        caller = _caller(span, by_span_id, between)
        if caller is not None and _nests(span, caller) and _same_call(span, caller):
            yield caller, span, "nested"
        if span.parent_span_id:
            key = (span.parent_span_id, span.kind, span.tool_name)
            siblings.setdefault(key, []).append(span)
    for (kind, _), group in by_id.items():
        what = "the same tool call id" if kind is Kind.TOOL else "the same response id"
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if _same_call(a, b):
                    yield a, b, what
    for group in siblings.values():
        if len(group) > 1 and len({_recorder(span) for span in group}) > 1:
            yield from _nested_siblings(group)


def _caller(span: Span, calls: dict[str, Span], between: dict[str, Span]) -> Span | None:
    """The nearest call above a span, reached through a few spans that are no call."""
    parent = span.parent_span_id
    for _ in range(_HOPS):
        if not parent:
            return None
        found = calls.get(parent)
        if found is not None:
            return found
        step = between.get(parent)
        if step is None:
            return None
        parent = step.parent_span_id
    return None


def _nested_siblings(group: list[Span]) -> Iterable[tuple[Span, Span, str]]:
    """Pairs of siblings one of whose times lies within the other's: a sweep in start order,
    so sequential calls (which do not overlap) are never compared."""
    timed = sorted(
        (span for span in group if span.start_ns is not None and span.end_ns is not None),
        key=lambda span: (span.start_ns, -span.end_ns),  # type: ignore[operator]
    )
    for i, outer in enumerate(timed):
        for inner in timed[i + 1 :]:
            if inner.start_ns > outer.end_ns:  # type: ignore[operator]
                break
            if _nests(inner, outer) and _same_call(inner, outer):
                yield outer, inner, "nested"


def _matched(candidates: Iterable[tuple[Span, Span, str]]) -> list[tuple[Span, Span, str]]:
    """The candidate pairs kept one to one: a span records a call with at most one span of
    each other recorder, the closest in time (two parallel calls of one tool stay two)."""
    ordered = sorted(
        {(id(a), id(b)): (a, b, how) for a, b, how in candidates}.values(),
        key=lambda pair: (_distance(pair[0], pair[1]), pair[2] == "nested"),
    )
    partner: set[tuple[int, tuple[str, object, int]]] = set()
    kept = []
    for a, b, how in ordered:
        if (id(a), _recorder(b)) in partner or (id(b), _recorder(a)) in partner:
            continue
        partner.update({(id(a), _recorder(b)), (id(b), _recorder(a))})
        kept.append((a, b, how))
    return kept


def _distance(a: Span, b: Span) -> int:
    if a.start_ns is None or b.start_ns is None or a.end_ns is None or b.end_ns is None:
        return 1 << 62
    return abs(a.start_ns - b.start_ns) + abs(a.end_ns - b.end_ns)


def _groups(
    pairs: list[tuple[Span, Span, str]], position: dict[int, int]
) -> list[tuple[list[Span], str]]:
    """The spans of each call, in array order, and how the first pair was told. A call holds
    at most one span of each recorder: a pair that would join two of one recorder is left."""
    parent: dict[int, int] = {}
    recorders: dict[int, set[tuple[str, object, int]]] = {}

    def root(key: int) -> int:
        while parent.get(key, key) != key:
            key = parent[key]
        return key

    spans: dict[int, Span] = {}
    how: dict[int, str] = {}
    for a, b, told in pairs:
        first, second = root(id(a)), root(id(b))
        ours = recorders.setdefault(first, {_recorder(a)})
        theirs = recorders.setdefault(second, {_recorder(b)})
        if first == second or ours & theirs:
            continue
        spans[id(a)], spans[id(b)] = a, b
        parent[second] = first
        ours |= recorders.pop(second)
        told = how.pop(second, told)
        how.setdefault(first, told)
    members: dict[int, list[Span]] = {}
    for key, span in spans.items():
        members.setdefault(root(key), []).append(span)
    groups = [
        (sorted(group, key=lambda span: position[id(span)]), how[key])
        for key, group in members.items()
    ]
    return sorted(groups, key=lambda entry: position[id(entry[0][0])])


# --- the merged call ---------------------------------------------------------------------


def _outermost(span: Span) -> tuple[bool, int, int]:
    start, end = span.start_ns, span.end_ns
    if start is None or end is None:
        return True, 0, 0
    return False, start, start - end


def _merge(group: list[Span], how: str) -> Merge:
    recordings = tuple(sorted(group, key=_outermost))
    outer = recordings[0]
    conflicts: list[str] = []
    tokens = _tokens(recordings, conflicts)
    arguments = next((s.arguments for s in recordings if s.arguments.known), outer.arguments)
    if len({repr(s.arguments.value) for s in recordings if s.arguments.known}) > 1:
        conflicts.append("arguments (the outermost recording's are used)")
    models = [s.model for s in recordings if s.model]
    failed = next((s for s in recordings if s.is_error), None)
    call = outer.with_facts(
        tool_name=outer.tool_name,
        model=max(models, key=len) if models else None,
        tokens=tokens,
        arguments=arguments,
        offered_tools=next(
            (s.offered_tools for s in recordings if s.offered_tools is not None), None
        ),
        result=next((s.result for s in recordings if s.result.known), outer.result),
        parent_span_id=_parent_outside(outer, recordings),
        status=failed.status if failed else outer.status,
        status_message=failed.status_message if failed else outer.status_message,
    )
    return Merge(call, recordings, how, tuple(conflicts))


def _parent_outside(outer: Span, recordings: tuple[Span, ...]) -> str | None:
    """The outermost recording's parent, or, when that is a recording of the same call (two
    spans with one start), the first ancestor that is not."""
    by_id = {span.span_id: span for span in recordings if span.span_id}
    parent, seen = outer.parent_span_id, {outer.span_id}
    while parent in by_id and parent not in seen:
        seen.add(parent)
        parent = by_id[parent].parent_span_id
    return parent


def _tokens(recordings: tuple[Span, ...], conflicts: list[str]) -> TokenUsage:
    """The counts of the recording that knows most of them; when recordings give different
    totals, the largest (a budget is never met on the smaller count)."""
    counted = [s.tokens for s in recordings if _known_counts(s.tokens)]
    if not counted:
        return recordings[0].tokens
    totals = {usage.total for usage in counted if usage.total is not None}
    if len(totals) > 1:
        conflicts.append(
            f"token counts (totals {', '.join(f'{t:g}' for t in sorted(totals))}; "
            "the largest is used)"
        )
        return max(counted, key=lambda usage: usage.total or 0)
    return max(counted, key=_known_counts)


def _known_counts(usage: TokenUsage) -> int:
    fields = (usage.input, usage.output, usage.cache_read, usage.cache_write)
    return sum(value is not None for value in fields)


def _rebuilt(spans: Sequence[Span], merges: tuple[Merge, ...]) -> tuple[Span, ...]:
    """The spans with each merge's recordings replaced by its call, at the outermost
    recording's place; spans below an absorbed recording hang below the call."""
    call_at = {id(merge.recordings[0]): merge.call for merge in merges}
    absorbed = {id(span) for merge in merges for span in merge.recordings[1:]}
    moved = {
        span.span_id: merge.call.span_id
        for merge in merges
        for span in merge.recordings[1:]
        if span.span_id
    }
    result = []
    for span in spans:
        if id(span) in absorbed:
            continue
        span = call_at.get(id(span), span)
        parent = span.parent_span_id
        if parent in moved and moved[parent] != span.span_id:
            span = _below(span, moved[parent])
        result.append(span)
    return tuple(result)


def _below(span: Span, parent: str | None) -> Span:
    """The span, its facts kept, with another parent."""
    return span.with_facts(
        tool_name=span.tool_name,
        model=span.model,
        tokens=span.tokens,
        arguments=span.arguments,
        offered_tools=span.offered_tools,
        result=span.result,
        parent_span_id=parent,
    )
