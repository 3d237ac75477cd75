"""The reading of a check's spans, indexed by kind, against the straightforward reading that
tests every span for every note (the checker's code before it was indexed), on generated spans."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_rules_support import llm, tool
from test_rules_support import span as plain_span

from tracecheck.conventions import read
from tracecheck.conventions.evidence import (
    asked_for_no_tool,
    has_recorded_output,
    requested_tools,
    tool_name_doubt,
    unmapped_evidence,
)
from tracecheck.reading import _NAMED, _ref, _unmapped_text, _unnamed_text, read_subject
from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind, Span

TOOLS = ("lookup", "refund", None)


@st.composite
def subjects(draw: Any) -> list[Span]:
    """Tool calls (some unnamed) under model calls (some asking for tools, some finished, with
    totals that may disagree), spans that only look like calls, and spans with no name."""
    spans: list[Span] = []
    for i in range(draw(st.integers(0, 10))):
        sid = draw(st.sampled_from([f"s{i}", None]))
        parent = draw(st.sampled_from([None, *(f"s{j}" for j in range(i))]))
        shape = draw(st.sampled_from(["tool", "llm", "looks", "plain", "empty"]))
        if shape == "tool":
            made = tool(sid, draw(st.sampled_from(TOOLS)), i, i + 1)
        elif shape == "llm":
            attributes: dict[str, Any] = {}
            asked = draw(st.lists(st.sampled_from(["lookup", "refund"]), max_size=2))
            if draw(st.booleans()):
                parts = [{"type": "tool_call", "name": name} for name in asked]
                attributes["gen_ai.output.messages"] = [{"role": "assistant", "parts": parts}]
            reasons = draw(st.sampled_from([None, ["stop"], ["tool_calls"]]))
            if reasons is not None:
                attributes["gen_ai.response.finish_reasons"] = reasons
            if draw(st.booleans()):
                attributes["gen_ai.usage.total_tokens"] = draw(st.integers(0, 20))
            made = llm(sid, "m", draw(st.integers(0, 9)), draw(st.integers(0, 9)), **attributes)
        elif shape == "looks":
            name = draw(st.sampled_from(["chat gpt-4o", "execute_tool lookup", "step"]))
            extra = draw(st.sampled_from([{}, {"app.tool_name": "x"}, {"llm.model_name": "m"}]))
            made = plain_span(sid, name, i, i + 1, extra=extra)
        elif shape == "plain":
            made = plain_span(sid, "step", i, i + 1)
        else:
            made = plain_span(sid, "")
        spans.append(made.replace(parent_span_id=parent))
    return spans


@settings(max_examples=300, deadline=None)
@given(spans=subjects())
def test_the_indexed_reading_is_the_straightforward_one(spans: list[Span]) -> None:
    assert read_subject(Subject(spans)) == straightforward_reading(spans)


def straightforward_reading(spans: Sequence[Span]) -> tuple[Any, ...]:
    conventions = Counter(span.convention.name for span in spans)
    unmapped = [
        (span, reason)
        for span in spans
        if span.kind is Kind.UNKNOWN
        and (reason := unmapped_evidence(span.name, span.attributes, span.convention.evidence))
        and not read.decided(span.convention, span)
    ]
    unnamed = [
        (span, reason)
        for span in spans
        if span.kind is Kind.TOOL
        and (
            reason := tool_name_doubt(
                span.name, span.attributes, span.tool_name, span.convention.tool
            )
        )
    ]
    notes = []
    uncaptured_tools = uncaptured_models = None
    if unmapped:
        notes.append(_unmapped_text(unmapped))
        uncaptured_tools = uncaptured_models = notes[-1]
    if unnamed:
        notes.append(_unnamed_text(unnamed))
        uncaptured_tools = uncaptured_tools or notes[-1]
    if spans and all(not span.name and span.start_ns is None for span in spans):
        notes.append("no span has a name or a time: the file may not be the format it was read as")
        uncaptured_tools = uncaptured_tools or notes[-1]
        uncaptured_models = uncaptured_models or notes[-1]
    kinds = Counter(span.kind for span in spans)
    if kinds[Kind.TOOL] and not kinds[Kind.LLM]:
        calls = kinds[Kind.TOOL]
        notes.append(
            f"{calls} tool {'call is' if calls == 1 else 'calls are'} recorded but no model "
            "call: the producer may not record them, so rules about models see none"
        )
        uncaptured_models = uncaptured_models or notes[-1]
    not_recorded = None
    if kinds[Kind.LLM] and not kinds[Kind.TOOL]:
        calls_in_order = sorted(
            (span for span in spans if span.kind is Kind.LLM),
            key=lambda span: span.start_ns if span.start_ns is not None else -1,
        )
        names = list(
            dict.fromkeys(
                n for span in calls_in_order[:-1] for n in requested_tools(span.attributes)
            )
        )
        asked = ", ".join(names[:_NAMED]) + (
            f" and {len(names) - _NAMED} more tools" if len(names) > _NAMED else ""
        )
        if asked:
            not_recorded = (
                f"model calls asked for {asked} but the trace records no tool call: the producer "
                "does not record tool calls, so they cannot be checked"
            )
            notes.append(not_recorded)
            uncaptured_tools = uncaptured_tools or not_recorded
    loops = _calls_around_tools(spans) if kinds[Kind.LLM] and kinds[Kind.TOOL] else []
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
    for span in spans:
        tokens = span.tokens if span.kind is Kind.LLM else None
        if tokens is None or None in (tokens.counted_total, tokens.recorded_total):
            continue
        if tokens.counted_total != tokens.recorded_total:
            counted, recorded = tokens.counted_total, tokens.recorded_total
            notes.append(
                f"span {_ref(span)} records a total of {recorded} tokens, but its counts add up "
                f"to {counted} as {span.convention.name} reads them; "
                f"{max(counted, recorded)} is used"  # type: ignore[type-var]
            )
    return (
        tuple(notes),
        tuple(sorted(conventions.items())),
        uncaptured_tools,
        uncaptured_models,
        not_recorded,
        models_not_recorded,
        tuple(span for span, _ in unnamed),
    )


def _calls_around_tools(spans: Sequence[Span]) -> list[Span]:
    tools_under: dict[str, set[str]] = {}
    for span in spans:
        if span.kind is Kind.TOOL and span.parent_span_id and span.tool_name:
            tools_under.setdefault(span.parent_span_id, set()).add(span.tool_name)
    found = []
    for span in spans:
        if span.kind is not Kind.LLM or not span.span_id or span.span_id not in tools_under:
            continue
        if has_recorded_output(span.attributes):
            if not tools_under[span.span_id] <= set(requested_tools(span.attributes)):
                found.append(span)
        elif asked_for_no_tool(span.attributes):
            found.append(span)
    return found
