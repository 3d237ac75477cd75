"""Edges of the common reading (tracecheck.conventions.generic): tool results, token counts,
call ids, offered tools and JSON text, each at the boundary where a reading changes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tracecheck.conventions.generic import (
    NO_RESULT,
    call_id,
    collect_definitions,
    is_template,
    json_or_text,
    offered_tools,
    tokens,
    tool_result,
    tool_result_value,
)

# --- tool results -------------------------------------------------------------------------------


def blocks(*entries: dict[str, Any]) -> str:
    return json.dumps(list(entries))


@pytest.mark.parametrize(
    ("recorded", "read"),
    [
        # One text block is read as its text, and that text as JSON when it is JSON.
        (blocks({"type": "text", "text": json.dumps({"a": 1})}), {"a": 1}),
        (blocks({"type": "text", "text": "plain words"}), "plain words"),
        # A block that does not name its type is a text block.
        (blocks({"text": "untyped"}), "untyped"),
        # A block whose text is the word "text" is still read as its text.
        (blocks({"text": "text"}), "text"),
        # Not a text block: another type, a text that is no string, a key more than type and text.
        (blocks({"type": "image", "text": "x"}), [{"type": "image", "text": "x"}]),
        (blocks({"type": "text", "text": 5}), [{"type": "text", "text": 5}]),
        (
            blocks({"type": "text", "text": "x", "annotations": []}),
            [{"type": "text", "text": "x", "annotations": []}],
        ),
        # Two blocks are a list, not one text.
        (
            blocks({"type": "text", "text": "a"}, {"type": "text", "text": "b"}),
            [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        ),
        # A list of one value that is no block stays as it is.
        (json.dumps(["only"]), ["only"]),
        # JSON text decoded, plain text kept, a value already decoded kept.
        (json.dumps({"ok": True}), {"ok": True}),
        ("not json", "not json"),
        ([{"type": "text", "text": "[1, 2]"}], [1, 2]),
    ],
)
def test_a_tool_result_reads_one_text_block_as_its_text_and_nothing_else(
    recorded: Any, read: Any
) -> None:
    assert tool_result_value(recorded) == read


@pytest.mark.parametrize("key", ["gen_ai.tool.call.result", "output.value"])
def test_a_tool_result_is_known_where_recorded_and_read_as_json(key: str) -> None:
    recorded = blocks({"type": "text", "text": json.dumps({"rows": 3})})
    assert tool_result({key: recorded}) == (True, {"rows": 3}, None)


def test_a_tool_result_not_recorded_is_unknown_with_its_reason() -> None:
    assert tool_result({}) == (False, None, NO_RESULT)
    assert tool_result({"gen_ai.tool.call.result": None}) == (False, None, NO_RESULT)


def test_the_genai_result_comes_before_openinference_output() -> None:
    attributes = {"output.value": "second", "gen_ai.tool.call.result": "first"}
    assert tool_result(attributes) == (True, "first", None)


# --- call ids -----------------------------------------------------------------------------------


def test_a_call_id_is_read_for_tool_and_model_calls_only() -> None:
    attributes = {"gen_ai.tool.call.id": "call-1", "gen_ai.response.id": "resp-1"}
    assert call_id(attributes, "TOOL") == "call-1"
    assert call_id(attributes, "LLM") == "resp-1"
    assert call_id(attributes, "AGENT") is None
    assert call_id({}, "TOOL") is None


# --- templates ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "template"),
    [
        ("Function: {name}", True),
        ("Chat with {model!r:>10}", True),
        ("a{", False),
        ("set {1, 2}", False),
        ("{}", False),
        ("plain", False),
    ],
)
def test_a_template_name_holds_a_field_placeholder_not_just_a_brace(
    name: str, template: bool
) -> None:
    assert is_template(name) is template


# --- JSON text ----------------------------------------------------------------------------------


def test_json_bytes_are_read_as_their_text_and_other_bytes_kept() -> None:
    assert json_or_text(json.dumps([1, 2]).encode()) == [1, 2]
    assert json_or_text(json.dumps({"a": 1}).encode()) == {"a": 1}
    broken = b"{not json"
    assert json_or_text(broken) == broken
    other = b"plain bytes"
    assert json_or_text(other) == other


# --- offered tools ------------------------------------------------------------------------------


def test_a_schema_under_function_is_the_tools_parameters_schema() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    definitions = [{"type": "function", "function": {"name": "search", "parameters": schema}}]
    offered = offered_tools({"gen_ai.tool.definitions": json.dumps(definitions)})
    assert offered == (("search",), None, (("search", schema),))


def test_an_llm_tools_list_names_itself_in_its_problem() -> None:
    listed = [{"name": "search"}, {"description": "no name"}]
    offered = offered_tools({"llm.tools": json.dumps(listed)})
    assert offered == (
        ("search",),
        "llm.tools has an entry without a tool name",
        (("search", None),),
    )


def test_no_offered_tools_recorded_reads_as_none() -> None:
    assert offered_tools({"llm.tools": "not a list"}) is None
    assert offered_tools({}) is None


def test_a_definition_that_only_looks_like_json_is_read_as_a_bare_name() -> None:
    found: list[tuple[str, Any]] = []
    assert collect_definitions(["{lookup"], found, "tools") is None
    assert found == [("{lookup", None)]


# --- tokens -------------------------------------------------------------------------------------


def test_a_span_with_no_token_attribute_counts_nothing() -> None:
    assert tokens({"other": 1}) == (None, None, None, None, 0)


def test_input_and_output_counts_are_read_without_cache() -> None:
    assert tokens({"gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 4}) == (
        10,
        4,
        None,
        None,
        0,
    )


def test_the_first_of_two_separate_cache_counts_is_the_one_counted() -> None:
    attributes = {
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.cache_read_input_tokens": 5,
        "cache_read_input_tokens": 7,
    }
    assert tokens(attributes) == (10, None, 5, None, 5)


def test_a_separate_cache_count_that_is_no_number_is_skipped() -> None:
    attributes = {"gen_ai.usage.input_tokens": 10, "gen_ai.usage.cache_read_input_tokens": "many"}
    assert tokens(attributes) == (10, None, None, None, 0)


def test_the_first_of_two_included_cache_counts_is_the_one_counted() -> None:
    attributes = {
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.cache_read.input_tokens": 3,
        "llm.token_count.prompt_details.cache_read": 4,
    }
    assert tokens(attributes) == (10, None, 3, None, 0)


def test_an_included_cache_count_that_is_no_number_is_skipped() -> None:
    attributes = {"gen_ai.usage.input_tokens": 10, "gen_ai.usage.cache_read.input_tokens": "many"}
    assert tokens(attributes) == (10, None, None, None, 0)


@pytest.mark.parametrize(
    ("cached", "outside"),
    [(10, 0), (9, 0), (11, 11)],
)
def test_an_included_cache_count_is_outside_input_only_when_larger_than_it(
    cached: int, outside: int
) -> None:
    attributes = {"gen_ai.usage.input_tokens": 10, "gen_ai.usage.cache_read.input_tokens": cached}
    assert tokens(attributes)[4] == outside


def test_cache_counts_outside_input_add_up() -> None:
    attributes = {
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.cache_read_input_tokens": 5,
        "gen_ai.usage.cache_write.input_tokens": 20,
    }
    assert tokens(attributes) == (10, None, 5, 20, 25)
