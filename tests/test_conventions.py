"""The conventions layer: descriptions as data, selection by scope and attributes, reading."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracecheck import check, compile_contract
from tracecheck.conventions import (
    CONVENTIONS,
    GENERIC,
    Convention,
    KindRule,
    ScopeMatch,
    TokenFields,
    fields,
)
from tracecheck.conventions.select import Selector, release
from tracecheck.conventions.values import MISSING, number, value_at
from tracecheck.spans import Scope, Span

TRACE = "a" * 32


def span(span_name: str = "s", scope: Scope | None = None, **attributes: object) -> Span:
    return Span(TRACE, "1" * 16, name=span_name, attributes=attributes, scope=scope)


# --- values -------------------------------------------------------------------------------------


def test_a_field_points_into_json_text_and_nested_values() -> None:
    response = '{"usage": {"prompt": 12, "parts": [{"n": 3}]}}'
    attributes = {"r": response, "d": {"a": [1, {"b": "x"}]}}
    assert value_at(attributes, fields("r#/usage/prompt")[0]) == 12
    assert value_at(attributes, fields("r#/usage/parts/0/n")[0]) == 3
    assert value_at(attributes, fields("d#/a/1/b")[0]) == "x"
    assert value_at(attributes, fields("r#/usage/missing")[0]) is MISSING
    assert value_at(attributes, fields("r#/usage/parts/7")[0]) is MISSING
    assert value_at({"r": "not json"}, fields("r#/x")[0]) is MISSING
    assert value_at(attributes, fields("absent")[0]) is MISSING


def test_a_field_pointer_unescapes_and_prints_back() -> None:
    (place,) = fields("k#/a~1b/c~0d")
    assert place.pointer == ("a/b", "c~d")
    assert str(place) == "k#/a~1b/c~0d"
    assert value_at({"k": {"a/b": {"c~d": 5}}}, place) == 5
    assert [str(place) for place in fields("k", "k#")] == ["k", "k#"]


def test_a_decoded_field_reads_json_encoded_values_and_keeps_plain_text() -> None:
    (place,) = fields("k#")
    assert value_at({"k": '"TOOL"'}, place) == "TOOL"
    assert value_at({"k": "12"}, place) == 12
    assert value_at({"k": "plain"}, place) == "plain"
    assert value_at({"k": '"TOOL"'}, fields("k")[0]) == '"TOOL"'


@pytest.mark.parametrize(
    ("raw", "count"),
    [(12, 12), (12.0, 12), (2.5, 2.5), ("12", 12), (" 7 ", 7), ("1e3", 1000), ("0", 0)],
)
def test_a_count_is_a_finite_number_at_least_zero(raw: object, count: float) -> None:
    assert number(raw) == count


@pytest.mark.parametrize(
    "raw", [-1, -0.5, "-3", True, False, None, "1_000", "inf", "nan", "0x10", "", "12a", [1], {}]
)
def test_anything_else_is_no_count(raw: object) -> None:
    assert number(raw) is None


def test_a_non_finite_float_is_no_count() -> None:
    assert number(math.inf) is None and number(math.nan) is None


@given(st.integers(min_value=0, max_value=2**70))
def test_any_count_reads_back_from_its_text(count: int) -> None:
    assert number(str(count)) == count


# --- selection ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "parts"),
    [("0.47.3", (0, 47, 3)), ("v1.2", (1, 2)), ("1.0.0rc2", (1, 0, 0)), ("2", (2,)), ("x", None)],
)
def test_a_release_is_its_leading_numbers(version: str, parts: tuple[int, ...] | None) -> None:
    assert release(version) == parts


PRODUCER = Convention(
    "producer",
    "A producer",
    "1.x",
    scopes=(ScopeMatch("producer.instrumentation", "0.33.10", "0.48"),),
    markers=("producer.*",),
)
FAMILY = Convention("family", "A family", "any", markers=("family.kind",))


@pytest.mark.parametrize(
    ("scope", "attributes", "chosen"),
    [
        (Scope("producer.instrumentation", "0.40.1"), {}, "producer"),
        (Scope("producer.instrumentation", "0.33.10"), {}, "producer"),
        (Scope("producer.instrumentation", "0.48.0"), {}, "generic"),
        (Scope("producer.instrumentation", "0.33.9"), {}, "generic"),
        (Scope("producer.instrumentation", ""), {}, "generic"),  # no version: no range matches
        (None, {"producer.thing": 1}, "producer"),
        (None, {"family.kind": "TOOL"}, "family"),
        (None, {"family.kind": "TOOL", "producer.x": 1}, "producer"),  # earlier wins
        (None, {"other": 1}, "generic"),
    ],
)
def test_the_first_convention_that_claims_a_span_reads_it(
    scope: Scope | None, attributes: dict[str, object], chosen: str
) -> None:
    select = Selector((PRODUCER, FAMILY), GENERIC)
    assert select(scope, attributes).name == chosen
    assert select(scope, attributes).name == chosen  # remembered, same answer


def test_a_scope_prefix_claims_every_scope_below_it() -> None:
    prefixed = Convention("p", "P", "any", scopes=(ScopeMatch("logfire.*"),))
    select = Selector((prefixed,), GENERIC)
    assert select(Scope("logfire.openai_agents", "5.4.0"), {}).name == "p"
    assert select(Scope("other", "1"), {}).name == "generic"


def test_a_nested_namespace_marker_matches_by_prefix() -> None:
    nested = Convention("n", "N", "any", markers=("gcp.vertex.agent.*",))
    select = Selector((nested,), GENERIC)
    assert select(None, {"gcp.vertex.agent.tool_call_args": "{}"}).name == "n"
    assert select(None, {"gcp.other": 1}).name == "generic"


def test_every_registered_convention_has_a_unique_name_and_says_what_it_reads() -> None:
    names = [convention.name for convention in (*CONVENTIONS, GENERIC)]
    assert len(names) == len(set(names))
    for convention in CONVENTIONS:
        assert convention.title and convention.versions
        assert convention.scopes or convention.markers, convention.name


# --- reading ------------------------------------------------------------------------------------


def test_kind_rules_decide_in_order_and_fall_back_on_the_common_reading() -> None:
    convention = Convention(
        "c",
        "C",
        "any",
        kinds=(
            KindRule(attribute="op", values={"Call": "TOOL", "Gen": "LLM"}),
            KindRule("AGENT", name=r"^Agent run"),
            KindRule("CHAIN", attribute="step"),
        ),
    )
    from tracecheck.conventions import read

    assert read.kind(convention, span(op="call")) == "TOOL"  # values compare case-insensitively
    assert read.kind(convention, span(op="gen")) == "LLM"
    assert read.kind(convention, span("Agent run: x")) == "AGENT"
    assert read.kind(convention, span(step=1)) == "CHAIN"
    assert read.kind(convention, span(op="other", **{"gen_ai.tool.name": "t"})) == "TOOL"
    assert read.kind(convention, span()) == "UNKNOWN"


def test_a_declared_kind_outranks_the_convention() -> None:
    from tracecheck.conventions import read

    convention = Convention("c", "C", "any", kinds=(KindRule("LLM", name="."),))
    declared = Span(TRACE, "1" * 16, name="x", declared_kind="tool")
    assert read.kind(convention, declared) == "TOOL"


def test_a_value_decoded_from_json_text_decides_a_kind() -> None:
    from tracecheck.conventions import read

    convention = Convention(
        "c", "C", "any", kinds=(KindRule(attribute="t", values={"TOOL": "TOOL"}, decode_json=True),)
    )
    assert read.kind(convention, span(t='"TOOL"')) == "TOOL"


def test_json_recorded_as_its_bytes_reads_as_that_json() -> None:
    from tracecheck.conventions.generic import json_or_text

    recorded = {"prompt": b'{"tools": [{"name": "t"}], "amount": 42.5}', "blob": b"\x00\xff"}
    (tools,) = fields("prompt#/tools")
    assert value_at(recorded, tools) == [{"name": "t"}]
    assert json_or_text(recorded["prompt"]) == {"tools": [{"name": "t"}], "amount": 42.5}
    assert json_or_text(recorded["blob"]) == b"\x00\xff"  # other bytes stay as recorded
    assert value_at({"prompt": b"{not json"}, tools) is MISSING


def test_a_kind_rule_points_into_json_text_and_reads_flags_as_json() -> None:
    from tracecheck.conventions import read

    convention = Convention(
        "c",
        "C",
        "any",
        kinds=(
            KindRule(attribute="out#/result/failed", values={"true": "TOOL"}, otherwise="CHAIN"),
            KindRule("TOOL", attribute="out#/raw_input"),
        ),
    )
    failed = json.dumps({"result": {"failed": True}})
    assert read.kind(convention, span(out=failed)) == "TOOL"
    assert read.kind(convention, span(out=json.dumps({"result": {"failed": False}}))) == "CHAIN"
    # JSON text encoded twice (OpenLLMetry's LlamaIndex instrumentation before 0.51).
    twice = json.dumps(json.dumps({"raw_input": {"kwargs": {}}}))
    assert read.kind(convention, span(out=twice)) == "TOOL"
    assert read.kind(convention, span(out="not json")) == "UNKNOWN"


def test_a_tool_name_is_read_only_on_tool_spans_and_never_from_a_template() -> None:
    from tracecheck.conventions import read

    convention = Convention(
        "c",
        "C",
        "any",
        kinds=(KindRule("TOOL", name=r"^Function: "), KindRule("AGENT", name=r"^Agent")),
        tool=fields("name"),
        not_tool_names=frozenset({"(merged tools)"}),
    )
    tool = span("Function: {name}", name="lookup_order")
    agent = span("Agent run: {name!r}", name="refund-desk")
    assert read.tool_name(convention, tool, read.kind(convention, tool)) == "lookup_order"
    assert read.tool_name(convention, agent, read.kind(convention, agent)) is None
    unnamed = span("Function: {name}")
    assert read.tool_name(convention, unnamed, "TOOL") is None  # the template is no name
    merged = span("execute_tool (merged)", **{"gen_ai.tool.name": "(merged tools)"})
    assert read.tool_name(convention, merged, "TOOL") is None


@pytest.mark.parametrize(
    ("cache", "outside"),
    [("included", 0), ("separate", 1300)],
)
def test_tokens_count_the_cache_once_by_the_convention(cache: str, outside: int) -> None:
    from tracecheck.conventions import read

    convention = Convention(
        "c",
        "C",
        "any",
        tokens=(
            TokenFields(
                input=fields("in"),
                output=fields("out"),
                cache_read=fields("usage#/read"),
                cache_write=fields("usage#/write"),
                cache=cache,  # type: ignore[arg-type]
                total=fields("total"),
            ),
        ),
    )
    recorded = span(**{"in": 1400, "out": 20, "usage": '{"read": 1200, "write": 100}', "total": 9})
    assert read.tokens(convention, recorded) == (1400, 20, 1200, 100, outside)
    assert read.recorded_total(convention, recorded) == 9


def test_an_included_cache_count_larger_than_input_was_left_out_of_it() -> None:
    from tracecheck.conventions import read

    convention = Convention(
        "c", "C", "any", tokens=(TokenFields(input=fields("in"), cache_read=fields("read")),)
    )
    assert read.tokens(convention, span(**{"in": 100, "read": 1200}))[4] == 1200


def test_tokens_the_convention_does_not_record_are_read_the_common_way() -> None:
    from tracecheck.conventions import read

    convention = Convention("c", "C", "any", tokens=(TokenFields(input=fields("mine")),))
    common = span(**{"gen_ai.usage.input_tokens": 5, "gen_ai.usage.output_tokens": 2})
    assert read.tokens(convention, common)[:2] == (5, 2)


def test_arguments_recorded_as_a_call_read_as_its_keywords() -> None:
    from tracecheck.conventions import read

    convention = Convention(
        "c", "C", "any", arguments=fields("entity.input"), arguments_as_call=True
    )
    recorded = span(**{"entity.input": '{"args": [], "kwargs": {"order_id": "A-1"}}'})
    assert read.arguments(convention, recorded) == (True, {"order_id": "A-1"}, None)
    positional = span(**{"entity.input": '{"args": ["A-1"], "kwargs": {}}'})
    assert read.arguments(convention, positional)[1] == {"args": ["A-1"], "kwargs": {}}
    uncaptured = span(**{"entity.input": "{}", "tool.args_captured": False})
    assert read.arguments(convention, uncaptured)[0] is False


def test_offered_tools_from_a_convention_field_with_json_text_entries() -> None:
    from tracecheck.conventions import read

    convention = Convention("c", "C", "any", offered=fields("prompt.tools"))
    entries = ['{"type": "function", "name": "lookup"}', '{"function": {"name": "refund"}}']
    recorded = span(**{"prompt.tools": entries})
    assert read.offered_tools(convention, recorded, "LLM") == (
        ("lookup", "refund"),
        None,
        (("lookup", None), ("refund", None)),
    )
    assert read.offered_tools(convention, recorded, "TOOL") is None  # arguments, not an offer
    assert read.offered_tools(convention, span(), "LLM") is None


def test_offered_definitions_are_read_once_with_their_names_and_problem(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`schema: offered` takes the schemas read with the names (the definitions' JSON text was
    decoded a second time for them), and a nameless entry is the record's problem."""
    from tracecheck.conventions import generic

    schema = {"type": "object", "required": ["order_id"]}
    tools = [{"name": "lookup", "parameters": schema}, {"description": "no name"}]
    text = json.dumps(tools)
    decoded = []
    real = generic.parse_json_text

    def counted(value: Any, *, default: Any) -> Any:
        decoded.append(value == text)
        return real(value, default=default)

    monkeypatch.setattr(generic, "parse_json_text", counted)
    chat = Span(
        TRACE,
        "1" * 16,
        name="chat",
        start_ns=1,
        end_ns=2,
        attributes={"gen_ai.operation.name": "chat", "gen_ai.tool.definitions": text},
    )
    lookup = Span(
        TRACE,
        "2" * 16,
        name="execute_tool lookup",
        start_ns=3,
        end_ns=4,
        attributes={"gen_ai.tool.name": "lookup", "gen_ai.tool.call.arguments": "{}"},
    )
    assert chat.offered_tools is not None
    assert chat.offered_tools.names == ("lookup",)
    assert chat.offered_tools.problem == "gen_ai.tool.definitions has an entry without a tool name"
    assert chat.offered_tools.definitions == (("lookup", schema),)
    contract = compile_contract(
        {
            "name": "c",
            "tools": {"arguments": [{"tool": "lookup", "pointer": "", "schema": "offered"}]},
        }
    )
    (rule,) = check([chat, lookup], contract, capture="lenient").rules
    assert rule.status == "fail"  # order_id is required
    assert decoded.count(True) == 1


def test_the_conventions_page_is_written_from_the_descriptions() -> None:
    from pathlib import Path

    from tracecheck.conventions.describe import markdown

    page = Path(__file__).resolve().parents[1] / "docs" / "conventions.md"
    assert page.read_text() == markdown(CONVENTIONS, GENERIC), (
        "docs/conventions.md is stale: python -m tracecheck.conventions > docs/conventions.md"
    )
    for convention in CONVENTIONS:
        assert f"## `{convention.name}`" in page.read_text()


def test_an_openllmetry_step_that_names_a_tool_call_is_one() -> None:
    # An OpenLLMetry instrumentation no convention of its own describes: its spans go to the
    # traceloop-sdk description by `traceloop.span.kind`, which makes a `task` a step.
    scope = Scope("opentelemetry.instrumentation.haystack", "0.62.4")
    call = span("call_tool.task", scope, **{"traceloop.span.kind": "task", "gen_ai.tool.name": "t"})
    step = span("plan.task", scope, **{"traceloop.span.kind": "task"})
    assert call.convention.name == step.convention.name == "traceloop-sdk"
    assert (call.kind.value, call.tool_name) == ("TOOL", "t")
    assert step.kind.value == "CHAIN"
