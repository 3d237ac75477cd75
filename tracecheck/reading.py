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
    tool_name_doubt,
    unmapped_evidence,
)
from tracecheck.readers.duplicates import Merge
from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind, Span
from tracecheck.unquoted import without_credentials

__all__ = ["SubjectReading", "read_subject"]

_NAMED = 3  # spans named in a note; the rest are counted
_NAME_LIMIT = 60


class SubjectReading(NamedTuple):
    """A named tuple, not a frozen dataclass: the checker's own record, which every `check`
    creates at import, and a frozen dataclass costs five times as much to create."""

    notes: tuple[str, ...]
    conventions: tuple[tuple[str, int], ...]
    # Why rules about tool calls, or about model calls, cannot be judged on these spans: a
    # concrete reason to doubt that every call was recognised (unless capture is lenient).
    tools_in_doubt: str | None = None
    models_in_doubt: str | None = None
    # Why tool capture is evidently missing, lenient or not: models asked for tools that ran
    # with no tool call recorded.
    tools_not_recorded: str | None = None
    # Why model calls are evidently under-counted, lenient or not: one span stands for several.
    models_not_recorded: str | None = None
    # The tool calls that do not say which tool ran (no name, or a span name no tool has).
    unnamed: tuple[Span, ...] = ()


def read_subject(subject: Subject, merges: Sequence[Merge] = ()) -> SubjectReading:
    """Notes on spans no convention mapped, tool calls with no tool name, tool calls with no
    model call recorded, calls recorded twice (`merges`) and token totals that disagree with
    their producer's own; the spans read by each convention. Each note looks at the spans of
    its kind, from the index the rules use too."""
    spans = subject.spans
    conventions = Counter(span.convention.name for span in spans)
    tools, models = subject.of_kind(Kind.TOOL), subject.of_kind(Kind.LLM)
    notes = []
    tools_doubt = models_doubt = None
    unmapped = _unmapped(subject.of_kind(Kind.UNKNOWN))
    if unmapped:
        tools_doubt = models_doubt = _unmapped_text(unmapped)
        notes.append(tools_doubt)
    unnamed = _unnamed(tools)
    if unnamed:
        notes.append(_unnamed_text(unnamed))
        tools_doubt = tools_doubt or notes[-1]
    if spans and all(not span.name and span.start_ns is None for span in spans):
        notes.append("no span has a name or a time: the file may not be the format it was read as")
        tools_doubt, models_doubt = tools_doubt or notes[-1], models_doubt or notes[-1]
    if tools and not models:
        calls = len(tools)
        notes.append(
            f"{calls} tool {'call is' if calls == 1 else 'calls are'} recorded but no model "
            "call: the producer may not record them, so rules about models see none"
        )
        models_doubt = models_doubt or notes[-1]
    not_recorded = None
    if models and not tools:
        asked = _requested(models)
        if asked:
            not_recorded = (
                f"model calls asked for {asked} but the trace records no tool call: the producer "
                "does not record tool calls, so they cannot be checked"
            )
            notes.append(not_recorded)
            tools_doubt = tools_doubt or not_recorded
    loops = _calls_around_tools(tools, models) if models and tools else []
    models_not_recorded = None
    if loops:
        models_not_recorded = _loops_text(loops)
        notes.append(models_not_recorded)
        models_doubt = models_doubt or models_not_recorded
    notes.extend(_merge_notes(merges))
    notes.extend(_total_notes(models))
    return SubjectReading(
        tuple(notes),
        tuple(sorted(conventions.items())),
        tools_doubt,
        models_doubt,
        not_recorded,
        models_not_recorded,
        tuple(span for span, _ in unnamed),
    )


def _unmapped(unknown: Sequence[Span]) -> list[tuple[Span, str]]:
    """The spans read as UNKNOWN that look like a call no convention mapped, and why."""
    return [
        (span, reason)
        for span in unknown
        if (reason := unmapped_evidence(span.name, span.attributes, span.convention.evidence))
        and not read.decided(span.convention, span)
    ]


def _unnamed(tools: Sequence[Span]) -> list[tuple[Span, str]]:
    """The tool calls whose tool is unknown, and why: none recorded, or a span name taken for
    one that no tool could have (a convention's own kind rule does not excuse it)."""
    return [
        (span, reason)
        for span in tools
        if (
            reason := tool_name_doubt(
                span.name, span.attributes, span.tool_name, span.convention.tool
            )
        )
    ]


def _loops_text(loops: list[Span]) -> str:
    named = "; ".join(_ref(span) for span in loops[:_NAMED])
    more = f"; and {len(loops) - _NAMED} more" if len(loops) > _NAMED else ""
    one = len(loops) == 1
    return (
        f"{len(loops)} model call {'span runs' if one else 'spans run'} tool calls that "
        f"{'its' if one else 'their'} recorded output did not ask for, so "
        f"{'it stands' if one else 'each stands'} for several model calls and records the "
        f"counts of one: {named}{more}"
    )


def _merge_notes(merges: Sequence[Merge]) -> list[str]:
    if not merges:
        return []
    count = len(merges)
    named = "; ".join(
        " with ".join(_ref(span) for span in merge.recordings) + f" ({merge.how})"
        for merge in merges[:_NAMED]
    )
    more = f"; and {count - _NAMED} more" if count > _NAMED else ""
    notes = [
        f"{count} {'call is' if count == 1 else 'calls are'} recorded by more than one "
        f"instrumentation and counted once: {named}{more}"
    ]
    notes.extend(
        f"the recordings of one call disagree on {conflict}: "
        + ", ".join(_ref(span) for span in merge.recordings)
        for merge in merges
        for conflict in merge.conflicts
    )
    return notes


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


def _unnamed_text(unnamed: list[tuple[Span, str]]) -> str:
    named = "; ".join(f"{_ref(span)} ({reason})" for span, reason in unnamed[:_NAMED])
    more = f"; and {len(unnamed) - _NAMED} more" if len(unnamed) > _NAMED else ""
    count = len(unnamed)
    return (
        f"{count} tool {'call does' if count == 1 else 'calls do'} not record which tool ran, "
        f"so rules about tools cannot tell {'it' if count == 1 else 'them'} apart: {named}{more}"
    )


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
    """A span as a note names it: its id, and its name with no credential pasted into it."""
    name = without_credentials(span.name)
    name = name if len(name) <= _NAME_LIMIT else name[: _NAME_LIMIT - 1] + "…"
    return f'{span.span_id or "(no span id)"} ("{name}")'
