"""One call that two instrumentations recorded is one call: which spans are merged, what the
merged call holds, and what is never merged (a retried call, parallel calls, one recorder)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck import check, compile_contract
from tracecheck.readers.duplicates import merge_duplicate_calls
from tracecheck.show import render_trace, trace_facts
from tracecheck.spans import Kind, Scope, Span, Trace

TRACE = "c" * 32
FRAMEWORK, MCP, SDK = Scope("agent_framework"), Scope("mcp.client"), Scope("anthropic")


def call(
    span_id: str,
    parent: str | None,
    name: str,
    start: int,
    end: int,
    scope: Scope,
    status: str | None = None,
    **attributes: Any,
) -> Span:
    return Span(
        TRACE,
        span_id,
        parent,
        name,
        start,
        end,
        status,  # type: ignore[arg-type]
        attributes=attributes,
        scope=scope,
    )


def tool_call(
    span_id: str, parent: str | None, start: int, end: int, scope: Scope, **attributes: Any
) -> Span:
    name = attributes.pop("tool", "lookup_order")
    return call(
        span_id,
        parent,
        f"execute_tool {name}",
        start,
        end,
        scope,
        **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, **attributes},
    )


def model_call(
    span_id: str, parent: str | None, start: int, end: int, scope: Scope, **attributes: Any
) -> Span:
    return call(
        span_id,
        parent,
        "chat claude",
        start,
        end,
        scope,
        **{"gen_ai.operation.name": "chat", **attributes},
    )


ROOT = call(
    "r0", None, "invoke_agent desk", 0, 1000, FRAMEWORK, **{"gen_ai.operation.name": "invoke_agent"}
)
ARGS = json.dumps({"order_id": "A-1001"})


def test_an_mcp_tools_call_inside_the_agents_execute_tool_is_one_call_with_its_arguments() -> None:
    outer = tool_call("t1", "r0", 100, 200, FRAMEWORK, **{"gen_ai.tool.call.arguments": ARGS})
    inner = call(
        "t2", "t1", "tools/call lookup_order", 110, 190, MCP, **{"gen_ai.tool.name": "lookup_order"}
    )
    below = call("x1", "t2", "send", 120, 130, MCP)
    merged = merge_duplicate_calls((ROOT, outer, inner, below))
    assert [span.span_id for span in merged.spans] == ["r0", "t1", "x1"]
    (merge,) = merged.merges
    assert merge.recordings == (outer, inner) and merge.how == "nested"
    assert merge.call.arguments.value == {"order_id": "A-1001"}
    assert merged.spans[2].parent_span_id == "t1"  # below the absorbed twin, now below the call
    contract = compile_contract(
        {
            "name": "once",
            "tools": {
                "maxCallsPerTool": {"lookup_order": 1},
                "arguments": [{"tool": "lookup_order", "pointer": "/order_id", "exists": True}],
            },
        }
    )
    verdict = check(Trace(TRACE, (ROOT, outer, inner, below)), contract, capture="lenient")
    assert [r.status for r in verdict.rules] == ["pass", "pass"]
    assert verdict.reading_notes[-1] == (
        "1 call is recorded by more than one instrumentation and counted once: "
        't1 ("execute_tool lookup_order") with t2 ("tools/call lookup_order") (nested)'
    )


def test_sibling_model_calls_that_nest_in_time_are_one_call_with_the_larger_count() -> None:
    framework = model_call(
        "m1",
        "r0",
        100,
        300,
        FRAMEWORK,
        **{
            "gen_ai.request.model": "claude-sonnet-4-5",
            "gen_ai.usage.input_tokens": 400,
            "gen_ai.usage.output_tokens": 30,
        },
    )
    sdk = model_call(
        "m2",
        "r0",
        120,
        290,
        SDK,
        **{
            "gen_ai.response.model": "claude-sonnet-4-5-20250929",
            "gen_ai.usage.input_tokens": 400,
            "gen_ai.usage.output_tokens": 31,
        },
    )
    merged = merge_duplicate_calls((ROOT, framework, sdk))
    (merge,) = merged.merges
    assert merge.call.model == "claude-sonnet-4-5-20250929"  # the more specific name
    assert merge.call.tokens.total == 431
    assert merge.conflicts == ("token counts (totals 430, 431; the largest is used)",)
    verdict = check(
        Trace(TRACE, (ROOT, framework, sdk)),
        compile_contract({"name": "b", "llm": {"maxCalls": 1, "maxTotalTokens": 431}}),
    )
    assert verdict.status == "pass"
    assert verdict.reading_notes[-1] == (
        "the recordings of one call disagree on token counts (totals 430, 431; the largest is "
        'used): m1 ("chat claude"), m2 ("chat claude")'
    )


def test_the_same_response_id_from_two_recorders_is_one_call_wherever_the_spans_are() -> None:
    first = model_call("m1", "r0", 100, 200, FRAMEWORK, **{"gen_ai.response.id": "msg_1"})
    second = model_call("m2", None, 500, 600, SDK, **{"gen_ai.response.id": "msg_1"})
    (merge,) = merge_duplicate_calls((ROOT, first, second)).merges
    assert merge.how == "the same response id"


def test_a_retried_tool_call_of_one_recorder_is_two_calls_even_with_one_call_id() -> None:
    spans = (
        ROOT,
        tool_call("t1", "r0", 100, 200, FRAMEWORK, **{"gen_ai.tool.call.id": "call_1"}),
        tool_call("t2", "r0", 300, 400, FRAMEWORK, **{"gen_ai.tool.call.id": "call_1"}),
    )
    assert merge_duplicate_calls(spans).merges == ()


def test_parallel_calls_of_one_tool_stay_as_many_calls_as_either_recorder_saw() -> None:
    # Two parallel lookups, each recorded by the framework and by the MCP client.
    spans = (
        ROOT,
        tool_call("a1", "r0", 100, 400, FRAMEWORK, **{"gen_ai.tool.call.arguments": ARGS}),
        tool_call("a2", "r0", 105, 420, FRAMEWORK, **{"gen_ai.tool.call.arguments": ARGS}),
        call(
            "b1",
            "a1",
            "tools/call lookup_order",
            110,
            390,
            MCP,
            **{"gen_ai.tool.name": "lookup_order"},
        ),
        call(
            "b2",
            "a2",
            "tools/call lookup_order",
            115,
            410,
            MCP,
            **{"gen_ai.tool.name": "lookup_order"},
        ),
    )
    merged = merge_duplicate_calls(spans)
    assert sorted(tuple(s.span_id for s in m.recordings) for m in merged.merges) == [
        ("a1", "b1"),
        ("a2", "b2"),
    ]
    assert sum(span.kind is Kind.TOOL for span in merged.spans) == 2


def test_recordings_that_disagree_on_what_identifies_the_call_are_two_calls() -> None:
    other_args = json.dumps({"order_id": "B-2002"})
    cases = [
        # different arguments, different tools, different call ids, different models
        (
            tool_call("t1", "r0", 100, 200, FRAMEWORK, **{"gen_ai.tool.call.arguments": ARGS}),
            tool_call("t2", "t1", 110, 190, MCP, **{"gen_ai.tool.call.arguments": other_args}),
        ),
        (
            tool_call("t1", "r0", 100, 200, FRAMEWORK),
            tool_call("t2", "t1", 110, 190, MCP, tool="issue_refund"),
        ),
        (
            tool_call("t1", "r0", 100, 200, FRAMEWORK, **{"gen_ai.tool.call.id": "call_1"}),
            tool_call("t2", "t1", 110, 190, MCP, **{"gen_ai.tool.call.id": "call_2"}),
        ),
        (
            model_call("m1", "r0", 100, 200, FRAMEWORK, **{"gen_ai.request.model": "gpt-4.1"}),
            model_call("m2", "m1", 110, 190, SDK, **{"gen_ai.request.model": "claude-sonnet-4-5"}),
        ),
        # a child that outlives its parent does not nest
        (
            tool_call("t1", "r0", 100, 200, FRAMEWORK),
            tool_call("t2", "t1", 110, 290, MCP),
        ),
    ]
    for first, second in cases:
        assert merge_duplicate_calls((ROOT, first, second)).merges == (), (first, second)


def test_a_failed_recording_makes_the_call_failed_and_show_marks_both() -> None:
    outer = tool_call("t1", "r0", 100, 200, FRAMEWORK)
    inner = call(
        "t2",
        "t1",
        "tools/call lookup_order",
        110,
        190,
        MCP,
        "error",
        **{"gen_ai.tool.name": "lookup_order"},
    )
    trace = Trace(TRACE, (ROOT, outer, inner))
    (merge,) = merge_duplicate_calls(trace.spans).merges
    assert merge.call.is_error
    tree = render_trace(trace)
    assert "(recorded 2×, counted once)" in tree
    assert "(the same call as t1)" in tree
    facts = {span["span_id"]: span for span in trace_facts(trace)["spans"]}
    assert (facts["t1"]["recordings"], facts["t1"]["status"]) == (2, "error")
    assert facts["t2"]["same_call_as"] == "t1"


class _CountedMerges(tuple):  # type: ignore[type-arg]
    """A tuple of merges that counts how often it is walked."""

    walks = 0

    def __iter__(self) -> Any:
        type(self).walks += 1
        return super().__iter__()


def test_show_walks_the_merges_a_fixed_number_of_times_however_many_spans(
    monkeypatch: Any,
) -> None:
    """The marks of merged calls are looked up by `id()`, not found by walking every merge
    for every span (10k spans and 5k merges took seconds)."""
    import tracecheck.show as show
    from tracecheck.readers.duplicates import MergedCalls

    spans = [ROOT]
    for index in range(40):
        start = 10 + index * 20
        spans.append(tool_call(f"o{index}", "r0", start, start + 10, FRAMEWORK))
        spans.append(
            call(
                f"i{index}",
                f"o{index}",
                "tools/call lookup_order",
                start + 1,
                start + 9,
                MCP,
                **{"gen_ai.tool.name": "lookup_order"},
            )
        )
    trace = Trace(TRACE, tuple(spans))

    def counted(recorded: Any) -> MergedCalls:
        merged = merge_duplicate_calls(recorded)
        return MergedCalls(merged.spans, _CountedMerges(merged.merges))

    monkeypatch.setattr(show, "merge_duplicate_calls", counted)
    tree = render_trace(trace)
    facts = trace_facts(trace)["spans"]
    assert tree.count("(recorded 2×, counted once)") == 40
    assert "(the same call as o39)" in tree
    assert [span["recordings"] for span in facts].count(2) == 40
    assert _CountedMerges.walks <= 12


RECORDERS = [Scope("one"), Scope("two"), Scope("three")]


@st.composite
def recordings(draw: Any) -> list[Span]:
    """Tool and model calls of a few recorders, nested or side by side, with ids and
    arguments that sometimes agree."""
    spans: list[Span] = [ROOT]
    for i in range(draw(st.integers(0, 12))):
        parent = draw(st.sampled_from(["r0", *(s.span_id for s in spans[1:])]))
        start = draw(st.integers(0, 50))
        end = start + draw(st.integers(0, 50))
        scope = draw(st.sampled_from(RECORDERS))
        attributes: dict[str, Any] = {}
        if draw(st.booleans()):
            attributes["gen_ai.tool.call.id"] = draw(st.sampled_from(["c1", "c2"]))
        if draw(st.booleans()):
            attributes["gen_ai.tool.call.arguments"] = draw(st.sampled_from([ARGS, "{}"]))
        if draw(st.booleans()):
            made = tool_call(
                f"s{i}",
                parent,
                start,
                end,
                scope,
                tool=draw(st.sampled_from(["lookup_order", "issue_refund"])),
                **attributes,
            )
        else:
            made = model_call(
                f"s{i}",
                parent,
                start,
                end,
                scope,
                **{"gen_ai.response.id": draw(st.sampled_from(["r1", "r2"]))},
            )
        spans.append(made)
    return spans


@settings(max_examples=300, deadline=None)
@given(spans=recordings())
def test_no_merge_leaves_fewer_calls_than_any_one_recorder_saw(spans: list[Span]) -> None:
    merged = merge_duplicate_calls(spans)
    ids = [span.span_id for span in merged.spans]
    assert len(ids) == len(set(ids))  # every span once, the absorbed twins gone
    for merge in merged.merges:
        scopes = [span.scope.name for span in merge.recordings if span.scope]
        assert len(scopes) == len(set(scopes)) >= 2  # one span of each recorder
    for kind in (Kind.TOOL, Kind.LLM):
        after = sum(span.kind is kind for span in merged.spans)
        for scope in RECORDERS:
            assert after >= sum(s.kind is kind and s.scope == scope for s in spans)
    kept = {span.span_id for span in merged.spans}
    assert all(span.parent_span_id in kept | {None} for span in merged.spans)
