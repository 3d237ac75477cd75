"""Edges of the timing rules and of duration doubt: ranks at every count, start order at its
ties and gaps, the bounds of `steps` taken inclusively, the words of each message, and the
corners a pass in doubt is tried at (issue 34, item 1: mutants that survived)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
from test_rules_support import TOOL_P, pairs, span, subject, tool, tool_p

from tracecheck import check, compile_contract
from tracecheck.rules.order import Precedes
from tracecheck.rules.predicates import DurationRange, Predicate
from tracecheck.rules.presence import Eventually
from tracecheck.rules.timing import (
    PERCENTILES,
    ErrorsAtMost,
    StepCount,
    ToolDuration,
    in_start_order,
    nearest_rank,
    unknown_durations,
)
from tracecheck.spans import Span


def at_ns(span_id: str, start_ns: int | None, *, status: str | None = None) -> Span:
    """A call of tool "a" starting at `start_ns` (whole nanoseconds), one nanosecond long."""
    end_ns = None if start_ns is None else start_ns + 1
    return tool(span_id, "a", status=status).replace(start_ns=start_ns, end_ns=end_ns)


def statuses(doc: dict[str, Any], *spans: Span) -> dict[str, str]:
    verdict = check(spans, compile_contract({"name": "c", **doc}))
    return {result.label: result.status for result in verdict.rules}


# ------------------------------------------------------------------------------ nearest rank


@pytest.mark.parametrize("percent", sorted({1, 33, *PERCENTILES.values()}))
def test_the_nearest_rank_is_the_ceiling_of_p_n_over_100_at_every_count(percent: int) -> None:
    for count in range(301):
        expected = max(1, math.ceil(Fraction(percent * count, 100)))
        assert nearest_rank(percent, count) == expected, count


# ------------------------------------------------------------------------------ start order


def test_start_order_puts_the_earliest_first_and_spans_without_a_start_last() -> None:
    unstarted, at_one, at_zero = at_ns("u", None), at_ns("one", 1), at_ns("zero", 0)
    run = subject(unstarted, at_one, at_zero)
    ordered = in_start_order(run, [unstarted, at_one, at_zero])
    assert [s.span_id for s in ordered] == ["zero", "one", "u"]


def test_error_spans_are_named_in_start_order_a_start_at_zero_first() -> None:
    spans = (
        at_ns("u", None, status="error"),
        at_ns("one", 1, status="error"),
        at_ns("zero", 0, status="error"),
    )
    found = ErrorsAtMost("errors[TOOL]", TOOL_P, max=0).evaluate(subject(*spans))
    assert [v.span_id for v in found] == ["zero", "one", "u"]


# ------------------------------------------------------------------------------------ errors


def test_errors_with_both_limits_describe_each_joined_by_a_semicolon() -> None:
    rule = ErrorsAtMost("errors[TOOL]", TOOL_P, max=1, max_percent=10)
    assert rule.describe() == (
        "at most 1 TOOL span(s) are in error; "
        "at most 10 % of TOOL spans are in error (none at all: 0 %)"
    )


# ------------------------------------------------------------------------------------- steps


def calls(count: int) -> list[Span]:
    return [tool(f"t{i}", "a", i, i + 0.5) for i in range(count)]


@pytest.mark.parametrize(
    ("low", "high", "count", "passes"),
    [
        (2, None, 1, False),
        (2, None, 2, True),  # the minimum is inclusive
        (2, None, 5, True),  # no maximum: any number above the minimum
        (None, 2, 2, True),  # the maximum is inclusive
        (None, 2, 3, False),
        (None, None, 9, True),
    ],
)
def test_step_bounds_are_inclusive_and_a_missing_bound_is_open(
    low: int | None, high: int | None, count: int, passes: bool
) -> None:
    rule = StepCount("steps[TOOL]", TOOL_P, min=low, max=high)
    assert (rule.evaluate(subject(*calls(count))) == []) is passes


def test_steps_at_the_minimum_pass_and_one_fewer_say_how_many() -> None:
    rule = StepCount("steps[TOOL]", TOOL_P, min=3)
    assert rule.evaluate(subject(*calls(3))) == []
    assert pairs(rule.evaluate(subject(*calls(2)))) == [
        (None, "2 TOOL span(s), under the minimum of 3")
    ]


@pytest.mark.parametrize("kind", ["TOOL", "UNKNOWN"])
def test_steps_past_the_limit_are_named_then_counted(kind: str) -> None:
    # The tool calls are ordered once per check; other kinds, rule by rule.
    spans = (
        calls(8) if kind == "TOOL" else [span(f"s{i}", f"step {i}", i, i + 0.5) for i in range(8)]
    )
    rule = StepCount(f"steps[{kind}]", Predicate(kind=kind), max=1)
    found = pairs(rule.evaluate(subject(*spans)))
    assert len(found) == 7
    assert found[0][1].endswith(f"is {kind} span 2 of 8 in start order, over the limit of 1")
    assert found[-1] == (None, f"and 1 more {kind} span(s) over the limit")


# ------------------------------------------------------------------------------------- tools


def test_a_duration_rule_without_a_tool_name_speaks_of_the_tool() -> None:
    rule = ToolDuration("d", TOOL_P, "p95", 100)
    found = pairs(rule.evaluate(subject(tool("t1", "a", 0, None))))
    assert found == [
        (
            "t1",
            'span t1 ("execute_tool a") has no start or end time (or ends before it starts), '
            "so the p95 of the tool's call durations is unknown",
        )
    ]


def test_a_call_lasting_no_time_at_all_meets_a_limit_of_zero() -> None:
    instant = tool("t1", "a", 5, 5)
    assert instant.duration_ns == 0
    assert ToolDuration("d", tool_p("a"), "max", 0).evaluate(subject(instant)) == []
    slow = tool("t2", "a", 5, 6)
    found = pairs(ToolDuration("d", tool_p("a"), "max", 0).evaluate(subject(instant, slow)))
    assert found == [
        (
            "t2",
            'span t2 ("execute_tool a") took 1 ms: the max of 2 a call(s) is 1 ms, over the '
            "limit of 0 ms",
        )
    ]


def test_calls_at_or_above_the_percentile_past_the_first_few_are_counted() -> None:
    slow = [tool(f"t{i}", "a", 10 * i, 10 * i + 5) for i in range(8)]
    found = pairs(ToolDuration("d", tool_p("a"), "max", 1).evaluate(subject(*slow)))
    assert len(found) == 7
    assert found[-1] == (None, "and 2 more a call(s) at or above the max")


# ---------------------------------------------------------------------- duration doubt


NOT_INSTANT = Predicate(kind="TOOL", not_=Predicate(duration=DurationRange(max_ms=1)))


def test_a_pass_that_fails_if_the_untimed_span_matched_less_is_in_doubt() -> None:
    # The untimed call matches `not durationMs<=1` as read, and only it: had it taken under a
    # millisecond, nothing would match and `eventually` would fail.
    rule = Eventually("e", NOT_INSTANT)
    run = subject(tool("t1", "a", 0, None))
    assert rule.evaluate(run) == []
    assert pairs(unknown_durations(rule, run)) == [
        (
            "t1",
            'span t1 ("execute_tool a") has no start or end time (or ends before it starts), so '
            "whether it matches kind=TOOL,not(durationMs<=1) is unknown",
        )
    ]


def test_a_pass_of_two_timed_predicates_holding_at_every_corner_stands() -> None:
    quick = DurationRange(max_ms=100)
    rule = Precedes(
        "p",
        Predicate(kind="TOOL", tool=tool_p("a").tool, duration=quick),
        Predicate(kind="TOOL", tool=tool_p("b").tool, duration=quick),
    )
    run = subject(tool("a1", "a", 0, 5), tool("b1", "b", 10, 15), tool("b2", "b", 20, None))
    assert rule.evaluate(run) == []
    assert unknown_durations(rule, run) == []


@pytest.mark.parametrize("occurrence", ["all", "any"])
def test_an_argument_check_of_every_or_any_call_holds_whatever_the_missing_duration(
    occurrence: str,
) -> None:
    rule = {
        "kind": "argument",
        "label": "args",
        "p": {"kind": "TOOL", "durationMs": {"max": 100}},
        "pointer": "/x",
        "check": {"op": "exists"},
        "occurrence": occurrence,
    }
    spans = (tool("t1", "a", 0, 5, args={"x": 1}), tool("t2", "a", 10, None, args={"x": 1}))
    assert statuses({"rules": [rule]}, *spans) == {"args": "pass"}
