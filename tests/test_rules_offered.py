"""toolsOffered: `tools.enforced` (contracts.md §4.9)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_rules_support import llm, pairs, subject, tool

from tracecheck.rules import ToolsOffered
from tracecheck.spans import Span

NO_RECORD = (
    "no span records the tools offered to the model (gen_ai.tool.definitions), "
    "so what the harness enforced is unknown"
)


def offering(span_id: str, definitions: Any) -> Span:
    return llm(span_id, **{"gen_ai.tool.definitions": definitions})


def openinference(span_id: str, *schemas: Any) -> Span:
    attrs = {f"llm.tools.{i}.tool.json_schema": schema for i, schema in enumerate(schemas)}
    return llm(span_id, **attrs)


def never_offered(span_id: str, name: str) -> tuple[str, str]:
    return (
        span_id,
        f"span {span_id} called {name}, which was never offered: "
        "the harness did not enforce its tool set",
    )


READ, GREP, BASH = tool("r", "Read"), tool("g", "Grep"), tool("b", "Bash")

SHAPES = [
    ("strings", offering("l", ["Read", "Grep"])),
    ("name objects", offering("l", [{"name": "Read", "description": "d"}, {"name": "Grep"}])),
    (
        "function objects",
        offering(
            "l",
            [{"type": "function", "function": {"name": "Read"}}, {"function": {"name": "Grep"}}],
        ),
    ),
    ("a JSON string", offering("l", json.dumps(["Read", {"name": "Grep"}]))),
    (
        "OpenInference json_schema",
        openinference(
            "l",
            json.dumps({"type": "function", "function": {"name": "Read", "parameters": {}}}),
            json.dumps({"name": "Grep"}),
        ),
    ),
    (
        "OpenInference objects",
        openinference("l", {"function": {"name": "Grep"}}, {"name": "Read"}),
    ),
]


@pytest.mark.parametrize("record", [s[1] for s in SHAPES], ids=[s[0] for s in SHAPES])
def test_every_entry_shape_names_the_offered_tools(record: Span) -> None:
    assert ToolsOffered("e").evaluate(subject(record, READ, GREP)) == []
    assert pairs(ToolsOffered("e").evaluate(subject(record, READ, BASH))) == [
        never_offered("b", "Bash")
    ]
    assert ToolsOffered("e", ("Read", "Grep")).evaluate(subject(record, GREP)) == []
    assert pairs(ToolsOffered("e", ("Read",)).evaluate(subject(record, READ))) == [
        ("l", "span l offered the model 1 undeclared tool(s): Grep")
    ]


CONNECTORS = [f"mcp__claude_ai_Gmail__tool_{i}" for i in range(8)]


@pytest.mark.parametrize(
    ("declared", "spans", "expected"),
    [
        # No record at all: one violation, whatever the calls.
        (None, (READ, BASH), [(None, NO_RECORD)]),
        (("Read",), (), [(None, NO_RECORD)]),
        # An empty offered list is a record: no calls pass, any call fails.
        (None, (offering("l", []),), []),
        (None, (offering("l", "[]"), READ), [never_offered("r", "Read")]),
        # Names are unioned over every record.
        (None, (offering("l1", ["Read"]), offering("l2", ["Bash"]), READ, BASH), []),
        (
            None,
            (offering("l", ["Read"]), tool("x", None), tool(None, "Bash")),
            [
                ("x", "span x has no tool name, so it cannot be matched to an offered tool"),
                (
                    None,
                    "span #2 called Bash, which was never offered: the harness did not enforce its tool set",
                ),
            ],
        ),
        (
            None,
            (offering("l", {"Read": {}}), READ),
            [("l", "span l: gen_ai.tool.definitions is not a list"), never_offered("r", "Read")],
        ),
        (
            None,
            (offering("l", "not json"), READ),
            [("l", "span l: gen_ai.tool.definitions is not a list"), never_offered("r", "Read")],
        ),
        (
            None,
            (offering("l", ["Read", {"description": "nameless"}, ""]), READ),
            [("l", "span l: gen_ai.tool.definitions has an entry without a tool name")],
        ),
        (
            None,
            (openinference("l", json.dumps({"function": {}}), json.dumps({"name": "Read"})), READ),
            [("l", "span l: llm.tools has an entry without a tool name")],
        ),
        # §8: `claude -p --tools Read,Grep` that also offered eight connector tools.
        (
            ("Read", "Grep"),
            (offering("l", ["Read", "Grep", *CONNECTORS]), READ, GREP),
            [
                (
                    "l",
                    "span l offered the model 8 undeclared tool(s): "
                    + ", ".join(CONNECTORS[:6])
                    + " and 2 more",
                )
            ],
        ),
        # The same run with --strict-mcp-config.
        (("Read", "Grep"), (offering("l", ["Read", "Grep"]), READ, GREP), []),
        (
            ("Read", "Grep", "Glob"),
            (offering("l", ["Read", *CONNECTORS[:6]]),),
            [("l", "span l offered the model 6 undeclared tool(s): " + ", ".join(CONNECTORS[:6]))],
        ),
        (
            ("Read",),
            (offering("l", ["Read"]), offering("m", ["Read", "Bash"]), BASH),
            [("m", "span m offered the model 1 undeclared tool(s): Bash")],
        ),
    ],
)
def test_tools_offered(
    declared: tuple[str, ...] | None, spans: tuple[Span, ...], expected: list[Any]
) -> None:
    assert pairs(ToolsOffered("tools.enforced", declared).evaluate(subject(*spans))) == expected


def test_describe() -> None:
    assert ToolsOffered("e").describe() == "every tool call names a tool offered to the model"
    assert ToolsOffered("e", ("Read", "Grep")).describe() == (
        "every tool call names a tool offered to the model, within: Read, Grep"
    )
