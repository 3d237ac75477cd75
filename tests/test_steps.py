"""A run's tool calls as steps: which calls form a parallel group, and in what order steps come."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck import read_traces
from tracecheck.rules.steps import tool_steps
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span

TRACE = "d" * 32
PRODUCERS = Path(__file__).resolve().parent.parent / "fixtures" / "producers"


def tool(name: str, start: int | None, end: int | None, parent: str = "r") -> Span:
    return Span(
        TRACE,
        f"t-{name}-{start}",
        parent,
        f"execute_tool {name}",
        start,
        end,
        attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name},
    )


def model(start: int, end: int) -> Span:
    return Span(
        TRACE,
        f"m-{start}",
        "r",
        "chat gpt",
        start,
        end,
        attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt"},
    )


def steps(*spans: Span) -> list[list[str | None]]:
    return [[call.tool_name for call in step.calls] for step in tool_steps(Subject(spans))]


def test_calls_that_overlap_in_time_are_one_step_transitively() -> None:
    # a overlaps b, b overlaps c, a does not overlap c: one step of three.
    assert steps(tool("a", 0, 10), tool("b", 5, 20), tool("c", 15, 30), tool("d", 40, 50)) == [
        ["a", "b", "c"],
        ["d"],
    ]


def test_calls_that_follow_one_model_response_are_one_step_whatever_their_parents() -> None:
    # The model asked for a and b in one response; the harness ran them one after the other,
    # under different parents. The next response asked for c.
    spans = (
        model(0, 10),
        tool("a", 11, 12, parent="x"),
        tool("b", 13, 14, parent="y"),
        model(15, 20),
        tool("c", 21, 22),
    )
    assert steps(*spans) == [["a", "b"], ["c"]]


def test_without_model_calls_only_time_groups_calls() -> None:
    assert steps(tool("a", 0, 1), tool("b", 2, 3)) == [["a"], ["b"]]
    # Touching is not overlapping; starting together is parallel, zero-length calls included.
    assert steps(tool("a", 0, 2), tool("b", 2, 3)) == [["a"], ["b"]]
    assert steps(tool("a", 5, 5), tool("b", 5, 5)) == [["a", "b"]]


def test_calls_made_inside_a_tool_call_keep_their_order() -> None:
    # An agent run as a tool: its own calls happen inside the outer call's time.
    outer = tool("delegate", 0, 100)
    inner = [
        Span(
            TRACE,
            f"in-{name}",
            outer.span_id,
            f"execute_tool {name}",
            start,
            start + 5,
            attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name},
        )
        for name, start in (("lookup", 10), ("refund", 20))
    ]
    assert steps(outer, *inner, tool("answer", 200, 210)) == [
        ["delegate"],
        ["lookup"],
        ["refund"],
        ["answer"],
    ]


def test_calls_with_no_start_come_last_and_are_not_placed() -> None:
    found = tool_steps(Subject((tool("u", None, None), tool("a", 0, 1))))
    assert [([c.tool_name for c in s.calls], s.placed) for s in found] == [
        (["a"], True),
        (["u"], False),
    ]


def test_the_parallel_calls_of_a_real_run_are_one_step() -> None:
    # Google ADK ran lookup_order and run_shell from one model response.
    path = PRODUCERS / "google-adk" / "schema-v2" / "parallel.otlp.jsonl"
    (trace,) = [t for t in read_traces(path) if len(t.spans) > 1]
    assert steps(*trace.spans) == [["lookup_order", "run_shell"], ["issue_refund"]]


CALLS = st.lists(
    st.tuples(st.sampled_from("abc"), st.integers(0, 40), st.integers(0, 10)), max_size=12
)


@settings(max_examples=300, deadline=None)
@given(calls=CALLS, models=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 5)), max_size=4))
def test_steps_partition_the_calls_in_start_order(calls: list[Any], models: list[Any]) -> None:
    spans = [tool(name, start, start + length) for name, start, length in calls]
    spans += [model(start, start + length) for start, length in models]
    found = tool_steps(Subject(spans))
    flat = [call for step in found for call in step.calls]
    assert sorted(map(id, flat)) == sorted(id(s) for s in spans if s.tool_name)
    starts = [call.start_ns for call in flat]
    assert starts == sorted(starts)  # type: ignore[type-var]
    # Steps do not overlap in time: a later step starts no earlier than every earlier one ends.
    for earlier, later in pairwise(found):
        assert min(c.start_ns for c in later.calls) >= max(  # type: ignore[type-var]
            c.end_ns for c in earlier.calls
        )


def test_the_calls_are_put_in_start_order_once_per_subject_for_every_rule() -> None:
    from tracecheck.rules.loops import ConsecutiveCalls, RepeatedCycles
    from tracecheck.rules.steps import calls_in_start_order, placed_calls

    spans = (
        tool("c", 30, 40),
        tool("u1", None, None),
        tool("a", 10, 20),
        model(0, 5),
        tool("b", 10, 12),
        tool("u2", None, 5),
    )
    run = Subject(spans)
    order = calls_in_start_order(run)
    # Start order, ties in array order, then the calls with no start time as read.
    assert [call.tool_name for call in order] == ["a", "b", "c", "u1", "u2"]
    assert placed_calls(run) == (order[:3], order[3:])
    # Built once: steps and the loop rules read the same order instead of sorting again.
    for rule in (ConsecutiveCalls("c", 1), RepeatedCycles("r", 1)):
        fresh = Subject(spans)
        rule.evaluate(fresh)
        assert calls_in_start_order in fresh.memo
    tool_steps(run)
    ConsecutiveCalls("c", 1).evaluate(run)
    RepeatedCycles("r", 1).evaluate(run)
    assert calls_in_start_order(run) is order
    assert [call.tool_name for step in tool_steps(run) for call in step.calls] == [
        call.tool_name for call in order
    ]
