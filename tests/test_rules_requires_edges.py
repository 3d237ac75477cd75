"""`tools.requires` at its edges: only tool calls of the named tools count, values absent from an
earlier call, arguments unknown for a stated reason or none, several pointers named in order,
and the count of the other calls left open."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tracecheck.rules.predicates import RuleError
from tracecheck.rules.requires import Requires
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span, TokenUsage, ToolArguments

TRACE = "c" * 32
NOT_CAPTURED = {"tool.args_captured": False}


def call(
    name: str,
    start: int,
    end: int | None,
    *,
    arguments: dict[str, Any] | None = None,
    attributes: dict[str, Any] | None = None,
) -> Span:
    """A tool call span; `arguments` recorded as JSON when given, else none recorded."""
    attrs: dict[str, Any] = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
    if arguments is not None:
        attrs["gen_ai.tool.call.arguments"] = json.dumps(arguments)
    attrs.update(attributes or {})
    return Span(
        TRACE, f"{name}-{start}", "root", f"execute_tool {name}", start, end, None, attributes=attrs
    )


def model_call(tool_name: str, start: int, end: int) -> Span:
    """A model call that records a tool's name (the tool it asked for): no tool call."""
    return Span(
        TRACE,
        f"chat-{start}",
        "root",
        "chat m",
        start,
        end,
        None,
        attributes={"gen_ai.operation.name": "chat", "gen_ai.tool.name": tool_name},
        declared_kind="LLM",
    )


def details(rule: Requires, *spans: Span) -> list[tuple[str | None, str, str | None]]:
    return [(v.span_id, v.detail, v.pointer) for v in rule.evaluate(Subject(spans))]


PLAIN = Requires("r", "pay", "look")
SAME = Requires("r", "pay", "look", ("/order_id",))
BOTH = Requires("r", "pay", "look", ("/order_id", "/shop"))
BEFORE_ANY = "pay runs before any successful look call finished"


# --- which spans are calls ------------------------------------------------------------------


def test_a_model_call_naming_the_earlier_tool_is_no_call_of_it() -> None:
    asked = model_call("look", 0, 10)
    assert asked.kind != "TOOL" and asked.tool_name == "look"
    assert details(PLAIN, asked, call("pay", 20, 30)) == [
        ("pay-20", f"span pay-20: {BEFORE_ANY}", None)
    ]


def test_a_model_call_naming_the_tool_is_not_held_to_the_rule() -> None:
    asked = model_call("pay", 0, 10)
    assert asked.tool_name == "pay"
    assert details(PLAIN, asked, call("look", 20, 30)) == []


def test_a_call_of_another_tool_before_does_not_satisfy_it() -> None:
    assert details(PLAIN, call("browse", 0, 10), call("pay", 20, 30)) == [
        ("pay-20", f"span pay-20: {BEFORE_ANY}", None)
    ]


# --- values -----------------------------------------------------------------------------------


def test_an_earlier_call_without_the_value_is_no_call_with_the_same_value() -> None:
    without = call("look", 0, 10, arguments={"shop": "s1"})
    assert details(SAME, without, call("pay", 20, 30, arguments={"order_id": "A-1"})) == [
        (
            "pay-20",
            "span pay-20: argument /order_id equals the argument /order_id of no successful "
            "look call that finished before it",
            "/order_id",
        )
    ]


@pytest.mark.parametrize(
    ("attributes", "reason"),
    [
        (NOT_CAPTURED, "arguments were not captured"),
        ({}, "the span carries no argument evidence"),
    ],
)
def test_a_call_whose_arguments_are_unknown_says_why_and_names_every_pointer(
    attributes: dict[str, Any], reason: str
) -> None:
    paid = call("pay", 20, 30, attributes=attributes)
    assert paid.arguments.reason == reason
    assert details(BOTH, call("look", 0, 10, arguments={"order_id": "A-1"}), paid) == [
        ("pay-20", f"span pay-20: {reason}, so the same /order_id, /shop cannot be checked", None)
    ]


def test_the_whole_value_as_the_same_pointer_is_named_as_describe_names_it() -> None:
    whole = Requires("r", "pay", "look", ("",))
    paid = call("pay", 20, 30, attributes=NOT_CAPTURED)
    assert "(whole value)" in whole.describe()
    assert details(whole, call("look", 0, 10, arguments={"order_id": "A-1"}), paid) == [
        (
            "pay-20",
            "span pay-20: arguments were not captured, so the same (whole value) cannot be checked",
            None,
        )
    ]


def test_arguments_unknown_for_no_stated_reason_are_said_to_carry_no_evidence() -> None:
    # A merged call (`Span.with_facts`) may carry arguments known to be unknown, no reason given.
    recorded = call("pay", 20, 30, arguments={"order_id": "A-1"})
    paid = recorded.with_facts(
        tool_name="pay",
        model=None,
        tokens=TokenUsage(),
        arguments=ToolArguments(False),
        offered_tools=None,
    )
    assert paid.arguments.reason is None
    assert details(SAME, call("look", 0, 10, arguments={"order_id": "A-1"}), paid) == [
        (
            "pay-20",
            "span pay-20: the span carries no argument evidence, so the same /order_id cannot "
            "be checked",
            None,
        )
    ]


def test_unrecorded_earlier_arguments_leave_every_pointer_unknown() -> None:
    with pytest.raises(RuleError) as caught:
        details(
            BOTH,
            call("look", 0, 10),
            call("pay", 20, 30, arguments={"order_id": "A-1", "shop": "s1"}),
        )
    assert str(caught.value) == (
        "span pay-20: the arguments of an earlier successful look call were not recorded, so "
        "whether one has the same /order_id, /shop is unknown"
    )


@pytest.mark.parametrize(
    ("open_calls", "more"), [(1, ""), (2, " (and 1 more call(s))"), (3, " (and 2 more call(s))")]
)
def test_the_calls_left_open_are_counted_past_the_first(open_calls: int, more: str) -> None:
    paid = [
        call("pay", 20 + 20 * k, 30 + 20 * k, arguments={"order_id": "A-1"})
        for k in range(open_calls)
    ]
    with pytest.raises(RuleError) as caught:
        details(SAME, call("look", 0, 10), *paid)
    assert str(caught.value) == (
        "span pay-20: the arguments of an earlier successful look call were not recorded, so "
        f"whether one has the same /order_id is unknown{more}"
    )


def test_describe_names_every_pointer_in_order() -> None:
    assert BOTH.describe() == (
        "every call of pay starts after a successful call of look ended, one with the same "
        "arguments at /order_id, /shop"
    )
