"""Edges of the argument matchers: `sameAs` reads only successful tool calls of its own tool,
past any failed one; `partial` goes on past an ignored key and names the type it found; a check
describes values with no JSON form and several ignored globs (issue 34, item 1: mutants that
survived)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_rules_support import span, subject, tool

from tracecheck.rules.matchers import (
    ArgumentCheck,
    SameAs,
    argument_problem,
    describe_check,
    partial_mismatch,
)
from tracecheck.spans import Span

FROM_LOOK = ArgumentCheck("sameAs", same_as=SameAs("look", "/order_id"))
NO_EARLIER_LOOK = (
    "argument /x cannot come from look: no successful look call recording it finished before "
    "this call started"
)


def pay_problem(*earlier: Span, x: Any = "A-1") -> str | None:
    """What sameAs says of a `pay` call at 100-110 ms whose /x is `x`, after `earlier`."""
    pay = tool("pay", "pay", 100, 110, args={"x": x})
    return argument_problem(pay, "/x", FROM_LOOK, subject(*earlier, pay))


def test_same_as_takes_nothing_from_a_call_of_another_tool() -> None:
    other = tool("find", "find", 10, 20, args={"order_id": "A-1"})
    assert pay_problem(other) == NO_EARLIER_LOOK
    assert pay_problem(other, tool("look", "look", 30, 40, args={"order_id": "A-1"})) is None


def test_same_as_takes_nothing_from_a_span_naming_the_tool_that_is_no_tool_call() -> None:
    agent = span(
        "agent",
        "agent step",
        10,
        20,
        extra={
            "openinference.span.kind": "AGENT",
            "gen_ai.tool.name": "look",
            "gen_ai.tool.call.arguments": json.dumps({"order_id": "A-1"}),
        },
    )
    assert agent.kind == "AGENT" and agent.tool_name == "look" and agent.arguments.known
    assert pay_problem(agent) == NO_EARLIER_LOOK


def test_same_as_reads_past_a_failed_call_to_a_later_successful_one() -> None:
    failed = tool("look-1", "look", 10, 20, args={"order_id": "A-0"}, status="error")
    succeeded = tool("look-2", "look", 30, 40, args={"order_id": "A-1"})
    assert pay_problem(failed, succeeded) is None
    assert pay_problem(failed, succeeded, x="A-0") == (
        "argument /x (a string) equals the argument /order_id of no successful look call that "
        "finished before it"
    )


# --- partial -------------------------------------------------------------------------------


def test_partial_compares_the_keys_after_an_ignored_one() -> None:
    expected = {"request_id": "r-1", "amount": 2}
    assert partial_mismatch(expected, {"amount": 3}, ("*_id",)) == (
        "/amount (a number) differs from the expected value"
    )
    assert partial_mismatch(expected, {"amount": 2}, ("*_id",)) is None


@pytest.mark.parametrize(
    ("actual", "found"),
    [([1], "an array"), ("s", "a string"), (None, "null"), (2, "a number"), (True, "a boolean")],
)
def test_partial_names_the_type_found_where_an_object_was_expected(actual: Any, found: str) -> None:
    assert partial_mismatch({"a": {"b": 1}}, {"a": actual}) == f"/a is {found}, not an object"


# --- in words ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [float("nan"), float("inf"), {1, 2}])
def test_a_value_with_no_json_form_is_described_as_python_writes_it(value: Any) -> None:
    assert describe_check("/x", ArgumentCheck("equals", value=value)) == (
        f"has argument /x equal to {value!r}"
    )


def test_partial_lists_every_ignored_glob() -> None:
    check = ArgumentCheck("partial", value={"amount": 2}, ignore=("*_id", "created_at"))
    assert describe_check("/order", check) == (
        'has argument /order including {"amount":2} (keys matching *_id, created_at not compared)'
    )
