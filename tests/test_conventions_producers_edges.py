"""Edges of the readings beside the common one: evidence of calls no convention mapped
(tracecheck.conventions.evidence) and the conventions page written from the descriptions
(tracecheck.conventions.describe)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tracecheck.conventions import GENERIC, Convention, ScopeMatch, TokenFields, fields
from tracecheck.conventions.describe import markdown
from tracecheck.conventions.evidence import (
    asked_for_no_tool,
    has_recorded_output,
    requested_tools,
    unmapped_evidence,
)

# --- evidence of unmapped calls -----------------------------------------------------------------


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_unmapped_evidence_names_two_attributes_and_counts_the_rest(count: int) -> None:
    keys = sorted(f"vendor{index}.tool_name" for index in range(count))
    reason = unmapped_evidence("x", dict.fromkeys(keys, "t"))
    more = f" and {count - 2} more" if count > 2 else ""
    assert reason == f"attributes {', '.join(keys[:2])}{more}"


@pytest.mark.parametrize(
    ("reasons", "no_tool"),
    [
        ("stop", True),
        ("tool_calls", False),
        (["end_turn"], True),
        (["stop", "function_call"], False),
        (json.dumps(["length"]), True),
    ],
)
def test_finish_reasons_say_whether_a_model_call_asked_for_no_tool(
    reasons: Any, no_tool: bool
) -> None:
    assert asked_for_no_tool({"gen_ai.response.finish_reasons": reasons}) is no_tool


def test_an_empty_finish_reasons_list_gives_way_to_the_next_place() -> None:
    assert asked_for_no_tool({"gen_ai.response.finish_reasons": []}) is False
    both = {"gen_ai.response.finish_reasons": [], "llm.finish_reason": "stop"}
    assert asked_for_no_tool(both) is True
    assert asked_for_no_tool({"gen_ai.response.finish_reasons": 0}) is False


@pytest.mark.parametrize(
    ("attributes", "recorded"),
    [
        ({"gen_ai.completion.0.content": "hi"}, True),
        ({"llm.output_messages.0.message.content": "hi"}, True),
        ({"gen_ai.output.messages": "[]"}, True),
        ({"gen_ai.prompt.0.content": "hi"}, False),
    ],
)
def test_a_model_calls_output_is_recorded_in_the_places_requested_tools_reads(
    attributes: dict[str, Any], recorded: bool
) -> None:
    assert has_recorded_output(attributes) is recorded


def output_messages(*messages: Any) -> dict[str, str]:
    return {"gen_ai.output.messages": json.dumps(list(messages))}


def test_requested_tools_skip_what_is_no_message_and_no_tool_call_part() -> None:
    attributes = output_messages(
        "not a message",
        {"role": "assistant"},  # no parts
        {"role": "assistant", "parts": {"type": "tool_call", "name": "not_a_list"}},
        {
            "role": "assistant",
            "parts": [
                "not a part",
                {"type": "text", "content": "let me look", "name": "not_a_call"},
                {"type": "tool_call", "name": ""},
                {"type": "tool_call", "name": 7},
                {"type": "tool_call", "name": "lookup_order"},
            ],
        },
        {"role": "assistant", "parts": [{"type": "tool_call", "name": "refund"}]},
    )
    assert requested_tools(attributes) == ("lookup_order", "refund")


def test_requested_tools_read_vercel_tool_calls_after_entries_that_are_not_calls() -> None:
    calls = ["junk", {"toolName": ""}, {"toolName": "lookup_order"}]
    assert requested_tools({"ai.response.toolCalls": json.dumps(calls)}) == ("lookup_order",)


# --- the conventions page -----------------------------------------------------------------------


def page_of(convention: Convention) -> str:
    return markdown([convention], GENERIC)


def row(page: str, fact: str) -> str:
    (found,) = [line for line in page.splitlines() if line.startswith(f"| {fact} |")]
    return found


def overview(page: str, name: str) -> str:
    (found,) = [line for line in page.splitlines() if line.startswith(f"| `{name}` |")]
    return found


@pytest.mark.parametrize(
    ("scope", "shown"),
    [
        (ScopeMatch("acme.agents", min_version="1.2"), "acme.agents ≥1.2"),
        (ScopeMatch("acme.agents", min_version="1.2", below_version="2"), "acme.agents ≥1.2 <2"),
        (ScopeMatch("acme.agents", below_version="2"), "acme.agents <2"),
        (ScopeMatch("acme.agents"), "acme.agents"),
    ],
)
def test_the_overview_shows_a_scopes_version_range(scope: ScopeMatch, shown: str) -> None:
    convention = Convention("acme", "Acme", "all", scopes=(scope,))
    assert overview(page_of(convention), "acme").endswith(f"| scope `{shown}` |")


def test_the_overview_joins_only_a_scope_and_the_ones_below_it() -> None:
    scopes = (
        ScopeMatch("acme"),
        ScopeMatch("acme.*"),
        ScopeMatch("ac"),  # "acme"[:-2]: a name, not a scope and its children
        ScopeMatch("other.*"),  # alone: shown as it is
    )
    convention = Convention("acme", "Acme", "all", scopes=scopes)
    chosen = "scope `acme[.*]`, scope `ac`, scope `other.*`"
    assert overview(page_of(convention), "acme").endswith(f"| {chosen} |")


def test_a_section_lists_every_place_of_a_fact_separated_by_commas() -> None:
    convention = Convention(
        "acme",
        "Acme",
        "all",
        tool=fields("acme.tool"),
        tool_from_name=r"(.+)\.run",
        tool_from_message=("acme.template", "Call {tool} with {args}", "acme.message"),
        offered=fields("acme.tools"),
        offered_indexed=(r"acme\.tools\.\d+",),
        not_tool_names=frozenset({"run", "call"}),
        run_totals=frozenset({"AGENT", "CHAIN"}),
        tokens=(TokenFields(input=fields("acme.in"), requires=("acme.a", "acme.b")),),
    )
    page = page_of(convention)
    assert row(page, "tool name") == (
        r"| tool name | `acme.tool`, a TOOL span's name matching `(.+)\.run` (its group), "
        "a TOOL span's `tool` where `acme.template` is `Call {tool} with {args}` and "
        "`acme.message` is that template rendered with it |"
    )
    assert row(page, "offered tools") == r"| offered tools | `acme.tools`, `acme\.tools\.\d+` |"
    assert row(page, "not tool names") == "| not tool names | `call`, `run` |"
    assert row(page, "run totals of the model calls below") == (
        "| run totals of the model calls below | AGENT spans, CHAIN spans |"
    )
    assert row(page, "tokens (counts)").startswith(
        "| tokens (counts) | when `acme.a`, `acme.b` is present; input: `acme.in`;"
    )
