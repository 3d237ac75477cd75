"""Edges of reading a span through its convention: results, arguments, kinds, tokens, offered
tools; and of choosing the convention that reads a span."""

from __future__ import annotations

from typing import Any

import pytest

from tracecheck.conventions import (
    GENERIC,
    Convention,
    KindRule,
    ScopeMatch,
    TokenFields,
    fields,
    read,
)
from tracecheck.conventions.generic import NOT_CAPTURED
from tracecheck.conventions.select import Selector, release
from tracecheck.spans import Scope, Span

TRACE = "a" * 32


def span(span_name: str = "s", scope: Scope | None = None, **attributes: object) -> Span:
    return Span(TRACE, "1" * 16, name=span_name, attributes=attributes, scope=scope)


# --- a tool call's result -----------------------------------------------------------------------

WRAPPED = Convention(
    "wrapped",
    "Wrapped results",
    "any",
    result=fields("out#/value", "alt"),
    result_wrapper="result",
    result_error=fields("out#/is_error"),
)


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        ({"out": '{"value": 5, "is_error": false}'}, (True, 5, None, False)),
        ({"out": '{"value": 5}'}, (True, 5, None, False)),
        ({"out": '{"value": 5, "is_error": true}'}, (True, 5, None, True)),
        ({"out": '{"value": 5, "is_error": "Error"}'}, (True, 5, None, True)),
        ({"out": '{"value": 5, "is_error": "ok"}'}, (True, 5, None, False)),
        # The recorded text is read as JSON, the wrapper's only key unwrapped.
        ({"out": '{"value": "[1, 2]"}'}, (True, [1, 2], None, False)),
        ({"out": '{"value": {"result": "7"}}'}, (True, 7, None, False)),
        (
            {"out": '{"value": {"result": 1, "other": 2}}'},
            (True, {"result": 1, "other": 2}, None, False),
        ),
        # A later place is tried when an earlier one is not recorded.
        ({"alt": "x"}, (True, "x", None, False)),
        # Recorded, but the pointer finds nothing: unknown, never the whole wrapper nor the
        # common reading's result.
        (
            {"out": '{"other": 1}', "output.value": "x"},
            (False, None, "out is recorded but holds no result at out#/value", False),
        ),
    ],
)
def test_a_tool_result_is_read_at_the_conventions_places(
    attributes: dict[str, Any], expected: tuple[bool, Any, str | None, bool]
) -> None:
    assert read.result(WRAPPED, span(**attributes), "TOOL") == expected


def test_a_span_of_another_kind_has_no_tool_result() -> None:
    recorded = span(out='{"value": 5, "is_error": true}')
    assert read.result(WRAPPED, recorded, "LLM") == (
        False,
        None,
        "the span is not a tool call",
        False,
    )


# --- a tool call's arguments --------------------------------------------------------------------

ARGUMENTS = Convention("args", "Arguments", "any", arguments=fields("args"))
BY_PARAMETER = Convention("params", "Parameters", "any", arguments_by_parameter="p.{}.value")


@pytest.mark.parametrize("captured", [False, "false", "False", "FALSE"])
def test_arguments_marked_not_captured_are_unknown(captured: object) -> None:
    recorded = span(args='{"a": 1}', **{"tool.args_captured": captured})
    assert read.arguments(ARGUMENTS, recorded) == (False, None, NOT_CAPTURED)


def test_arguments_marked_captured_are_read() -> None:
    recorded = span(args='{"a": 1}', **{"tool.args_captured": "true"})
    assert read.arguments(ARGUMENTS, recorded) == (True, {"a": 1}, None)


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        # JSON text decoded, except where the `.type` sibling says the value is a string.
        ({"p.x.value": "[1, 2]", "p.y.type": "str", "p.y.value": "123"}, {"x": [1, 2], "y": "123"}),
        ({"p.x.type": "int", "p.x.value": "123"}, {"x": 123}),
        # A key of the namespace but not of the shape is passed over, not an end.
        ({"p.x.other": 1, "p.y.value": "2"}, {"y": 2}),
    ],
)
def test_arguments_are_assembled_one_parameter_per_key(
    attributes: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert read.arguments(BY_PARAMETER, span(**attributes)) == (True, expected, None)


def test_parameters_inside_a_recorded_arguments_object_are_kept_as_recorded() -> None:
    recorded = span(**{"input.value": '{"p.x.value": "[1, 2]"}'})
    assert read.arguments(BY_PARAMETER, recorded) == (True, {"x": "[1, 2]"}, None)


# --- kinds --------------------------------------------------------------------------------------


def test_an_empty_attribute_decides_no_kind() -> None:
    convention = Convention("c", "C", "any", kinds=(KindRule("TOOL", attribute="a"),))
    assert not read.decided(convention, span(a=""))
    assert read.decided(convention, span(a="x"))


@pytest.mark.parametrize(("flag", "kind"), [("true", "TOOL"), ("false", "LLM")])
def test_a_flag_inside_a_recorded_value_is_looked_up_as_its_json_text(flag: str, kind: str) -> None:
    rule = KindRule(attribute="a#/flag", values={"true": "TOOL", "false": "LLM"})
    convention = Convention("c", "C", "any", kinds=(rule,))
    assert read.kind(convention, span(a=f'{{"flag": {flag}}}')) == kind


def test_a_rule_without_values_gives_no_kind_to_a_text() -> None:
    assert KindRule("TOOL", attribute="a").kind_of("x") is None


# --- tokens -------------------------------------------------------------------------------------


def test_a_cache_count_equal_to_input_is_counted_inside_it() -> None:
    counts = TokenFields(input=fields("in"), output=fields("out"), cache_read=fields("cr"))
    convention = Convention("c", "C", "any", tokens=(counts,))
    assert read.tokens(convention, span(**{"in": 10, "out": 2, "cr": 10})) == (10, 2, 10, None, 0)
    assert read.tokens(convention, span(**{"in": 10, "out": 2, "cr": 11})) == (10, 2, 11, None, 11)


# --- offered tools ------------------------------------------------------------------------------


def test_indexed_offered_names_report_an_entry_without_a_name() -> None:
    convention = Convention("c", "C", "any", offered_indexed=("f.{}.name",))
    recorded = span(**{"f.1.name": 5, "f.0.name": "a", "f.2.name": ""})
    assert read.offered_tools(convention, recorded, "LLM") == (
        ("a",),
        "f.{}.name has an entry without a name",
        (("a", None),),
    )


def test_offered_definitions_that_are_not_a_list_are_reported_at_their_place() -> None:
    convention = Convention("c", "C", "any", offered=fields("tools"))
    found = read.offered_tools(convention, span(tools="not a list"), "LLM")
    assert found is not None
    assert found[1] == "tools is not a list"


# --- choosing the convention --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "parts"),
    [("1.0.0rc2", (1, 0, 0)), ("V1.2", (1, 2)), ("v1.2", (1, 2)), ("X1.2", None)],
)
def test_a_release_reads_leading_numbers_after_a_v(
    version: str, parts: tuple[int, ...] | None
) -> None:
    assert release(version) == parts


SCOPED = (
    Convention("prefix", "P", "any", scopes=(ScopeMatch("logfire.*"),)),
    Convention("from2", "F", "any", scopes=(ScopeMatch("s", min_version="2"),)),
    Convention("below2", "B", "any", scopes=(ScopeMatch("t", below_version="2.0"),)),
)


@pytest.mark.parametrize(
    ("scope", "chosen"),
    [
        (Scope("logfire.x", "1"), "prefix"),
        (Scope("logfire2", "1"), "generic"),
        (Scope("lang", "1"), "generic"),
        (Scope("s", "2.1"), "from2"),
        (Scope("s", "1.9"), "generic"),
        (Scope("t", "1.9"), "below2"),
        (Scope("t", "2.0"), "generic"),
        (Scope("t", "3"), "generic"),
    ],
)
def test_a_scope_claims_by_name_and_version_range(scope: Scope, chosen: str) -> None:
    assert Selector(SCOPED, GENERIC)(scope, {}).name == chosen


MARKED = (
    Convention("top", "T", "any", markers=("ai.*",)),
    Convention("nested", "N", "any", markers=("n.a.*",)),
)


@pytest.mark.parametrize(
    ("attributes", "chosen"),
    [
        ({"ai.model.id": "m"}, "top"),
        ({"ai": 1, "aix.y": 1}, "generic"),
        ({"n.a.b": 1}, "nested"),
        ({"n.ab.c": 1}, "generic"),
    ],
)
def test_a_namespace_marker_claims_keys_below_it(attributes: dict[str, Any], chosen: str) -> None:
    assert Selector(MARKED, GENERIC)(None, attributes).name == chosen
