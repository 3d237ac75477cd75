"""What the reading of a check's spans leaves uncertain, and which conventions read them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from tracecheck.conventions import read
from tracecheck.conventions.evidence import (
    asked_for_no_tool,
    has_recorded_output,
    requested_tools,
    unmapped_evidence,
)
from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind, Span

__all__ = ["SubjectReading", "read_subject"]

_NAMED = 3  # spans named in a note; the rest are counted
_NAME_LIMIT = 60


class SubjectReading(NamedTuple):
    """A named tuple, not a frozen dataclass: the checker's own record, which every `check`
    creates at import, and a frozen dataclass costs five times as much to create."""

    notes: tuple[str, ...]
    conventions: tuple[tuple[str, int], ...]
    # Why rules about tool calls, or about model calls, cannot be trusted on these spans.
    uncaptured_tools: str | None = None
    uncaptured_models: str | None = None
    # Why tool capture is evidently missing, strict or not: models asked for tools that ran
    # with no tool call recorded.
    tools_not_recorded: str | None = None
    # Why model calls are evidently under-counted, strict or not: one span stands for several.
    models_not_recorded: str | None = None


def read_subject(subject: Subject) -> SubjectReading:
    """Notes on spans no convention mapped, on tool calls with no model call recorded, and on
    token totals that disagree with their producer's own; the spans read by each convention.
    Each note looks at the spans of its kind, from the index the rules use too."""
    spans = subject.spans
    conventions = Counter(span.convention.name for span in spans)
    tools, models = subject.of_kind(Kind.TOOL), subject.of_kind(Kind.LLM)
    unmapped = [
        (span, reason)
        for span in _suspects(spans, subject.of_kind(Kind.UNKNOWN), tools)
        if (
            reason := unmapped_evidence(
                span.name, span.attributes, span.kind, span.tool_name, span.convention.evidence
            )
        )
        and not read.decided(span.convention, span)
    ]
    notes = []
    uncaptured_tools = uncaptured_models = None
    if unmapped:
        notes.append(_unmapped_text(unmapped))
        count = len(unmapped)
        uncaptured_tools = uncaptured_models = (
            f"{count} {'span looks' if count == 1 else 'spans look'} like a tool or model call "
            "that no convention maps, and --strict-capture is on"
        )
    if spans and all(not span.name and span.start_ns is None for span in spans):
        notes.append("no span has a name or a time: the file may not be the format it was read as")
        uncaptured_tools = uncaptured_models = (
            "no span has a name or a time, and --strict-capture is on"
        )
    if tools and not models:
        calls = len(tools)
        notes.append(
            f"{calls} tool {'call is' if calls == 1 else 'calls are'} recorded but no model "
            "call: the producer may not record them, so rules about models see none"
        )
        uncaptured_models = uncaptured_models or (
            "tool calls are recorded but no model call, and --strict-capture is on"
        )
    not_recorded = None
    if models and not tools:
        asked = _requested(models)
        if asked:
            not_recorded = (
                f"model calls asked for {asked} but the trace records no tool call: the producer "
                "does not record tool calls, so they cannot be checked"
            )
            notes.append(not_recorded)
            uncaptured_tools = uncaptured_tools or not_recorded
    loops = _calls_around_tools(tools, models) if models and tools else []
    models_not_recorded = None
    if loops:
        named = "; ".join(_ref(span) for span in loops[:_NAMED])
        more = f"; and {len(loops) - _NAMED} more" if len(loops) > _NAMED else ""
        one = len(loops) == 1
        models_not_recorded = (
            f"{len(loops)} model call {'span runs' if one else 'spans run'} tool calls that "
            f"{'its' if one else 'their'} recorded output did not ask for, so "
            f"{'it stands' if one else 'each stands'} for several model calls and records the "
            f"counts of one: {named}{more}"
        )
        notes.append(models_not_recorded)
        uncaptured_models = uncaptured_models or models_not_recorded
    twice = _tools_recorded_twice(tools) if len(tools) > 1 else []
    if twice:
        named = "; ".join(f"{_ref(inner)} inside {_ref(outer)}" for inner, outer in twice[:_NAMED])
        more = f"; and {len(twice) - _NAMED} more" if len(twice) > _NAMED else ""
        notes.append(
            f"{len(twice)} tool {'call is' if len(twice) == 1 else 'calls are'} recorded twice, "
            "a tool span inside a tool span of the same tool (two instrumentations of one call), "
            f"so rules that count calls or read every call's arguments see both: {named}{more}"
        )
    notes.extend(_total_notes(models))
    return SubjectReading(
        tuple(notes),
        tuple(sorted(conventions.items())),
        uncaptured_tools,
        uncaptured_models,
        not_recorded,
        models_not_recorded,
    )


def _suspects(
    spans: Sequence[Span], unknown: Sequence[Span], tools: Sequence[Span]
) -> Sequence[Span]:
    """The spans that may look like a call no convention mapped, in array order: only a span
    read as UNKNOWN or a tool call with no tool name can (the evidence judges no other)."""
    unnamed = [span for span in tools if not span.tool_name]
    if not unnamed or not unknown:
        return unknown or unnamed
    position = {id(span): i for i, span in enumerate(spans)}
    return sorted([*unknown, *unnamed], key=lambda span: position[id(span)])


def _tools_recorded_twice(tool_spans: Sequence[Span]) -> list[tuple[Span, Span]]:
    """(inner, outer) TOOL spans of one tool, the inner the outer's child: one call that two
    instrumentations recorded (OpenInference's AutoGen spans around AutoGen's own)."""
    tools = {span.span_id: span for span in tool_spans if span.span_id}
    found = []
    for span in tools.values():
        outer = tools.get(span.parent_span_id) if span.parent_span_id else None
        if outer is not None and outer.tool_name and outer.tool_name == span.tool_name:
            found.append((span, outer))
    return found


def _calls_around_tools(tools: Sequence[Span], models: Sequence[Span]) -> list[Span]:
    """Model call spans that are the parents of tool calls their own recorded output did not
    ask for: a loop of calls in one span (google-genai's automatic function calling), whose
    counts are its last call's. With no output recorded, a finish reason that asks for no tool
    (the loop's last call) says the same; a call that records neither is not judged."""
    tools_under: dict[str, set[str]] = {}
    for span in tools:
        if span.parent_span_id and span.tool_name:
            tools_under.setdefault(span.parent_span_id, set()).add(span.tool_name)
    found = []
    for span in models:
        if not span.span_id or span.span_id not in tools_under:
            continue
        attributes = span.attributes
        if has_recorded_output(attributes):
            if not tools_under[span.span_id] <= set(requested_tools(attributes)):
                found.append(span)
        elif asked_for_no_tool(attributes):
            found.append(span)
    return found


def _requested(models: Sequence[Span]) -> str:
    """The tools model calls asked for before the last model call, named once each (a few,
    then a count). The last call's requests need not have run: a structured output asked for
    as a tool call (Pydantic AI's `final_result`, a forced extraction) ends the run there."""
    calls = sorted(
        models,
        key=lambda span: span.start_ns if span.start_ns is not None else -1,
    )
    names = list(
        dict.fromkeys(name for span in calls[:-1] for name in requested_tools(span.attributes))
    )
    shown = ", ".join(
        name if len(name) <= _NAME_LIMIT else name[: _NAME_LIMIT - 1] + "…"
        for name in names[:_NAMED]
    )
    return shown + (f" and {len(names) - _NAMED} more tools" if len(names) > _NAMED else "")


def _unmapped_text(unmapped: list[tuple[Span, str]]) -> str:
    named = "; ".join(f"{_ref(span)} ({reason})" for span, reason in unmapped[:_NAMED])
    more = f"; and {len(unmapped) - _NAMED} more" if len(unmapped) > _NAMED else ""
    count = len(unmapped)
    spans = "span looks" if count == 1 else "spans look"
    return (
        f"{count} {spans} like a tool or model call that no convention maps, so rules about "
        f"tools and models may not see {'it' if count == 1 else 'them'}: {named}{more}"
    )


def _total_notes(models: Sequence[Span]) -> list[str]:
    notes = []
    for span in models:
        tokens = span.tokens
        counted, recorded = tokens.counted_total, tokens.recorded_total
        if counted is None or recorded is None or counted == recorded:
            continue
        notes.append(
            f"span {_ref(span)} records a total of {recorded} tokens, but its counts add up to "
            f"{counted} as {span.convention.name} reads them; {max(counted, recorded)} is used"
        )
    return notes


def _ref(span: Span) -> str:
    name = span.name if len(span.name) <= _NAME_LIMIT else span.name[: _NAME_LIMIT - 1] + "…"
    return f'{span.span_id or "(no span id)"} ("{name}")'
