"""Compile order, labels and the rule objects of every key (contracts.md §2.1)."""

from __future__ import annotations

from typing import Any

from tracecheck.contract import Alternative, compile_contract
from tracecheck.rules import (
    Always,
    Argument,
    ArgumentCheck,
    AtMost,
    Eventually,
    Exact,
    Never,
    NeverUnless,
    OneOf,
    Pattern,
    Precedes,
    Predicate,
    RetrySafe,
    RunCheck,
    TokensAtMost,
    ToolsOffered,
    WriteTool,
)

EVERYTHING: dict[str, Any] = {
    "name": "refund-desk",
    "description": "Answer refund questions",
    # Keys in an order different from the table: compile order follows the table.
    "rules": [
        {"kind": "never", "label": "no shell", "p": {"name": {"$regex": "sh$", "flags": "i"}}}
    ],
    "llm": {"allowedModels": ["m1"], "maxTotalTokens": 200000, "maxCalls": 5},
    "retries": {
        "reads": ["lookup_order"],
        "writes": [{"tool": "charge_card", "idempotencyKey": "/idempotency_key"}, {"tool": "log"}],
    },
    "tools": {
        "enforced": True,
        "arguments": [
            {"tool": "Read", "pointer": "/file_path", "type": "string"},
            {"tool": "Read", "pointer": "", "exists": True, "occurrence": "first"},
            {"tool": "Read", "pointer": "/mode", "oneOf": ["r", 1]},
            {"tool": "Read", "pointer": "/a~1b", "equals": {"x": 1}},
        ],
        "orderMode": "finish-before-start",
        "requiredOrder": ["Read", "Grep", "Glob"],
        "maxCallsPerTool": {"Read": 3, "Grep": 0},
        "maxCalls": 10,
        "allowed": ["Read", "Grep", "Glob"],
        "forbidden": ["Bash", "Write"],
        "required": ["Read", "Grep"],
    },
    "run": {"requireCompleted": True, "allowedStatuses": ["completed"], "maxDurationMs": 120000},
}


def tool(name: str) -> Predicate:
    return Predicate(kind="TOOL", tool=Exact(name))


def test_labels_in_compile_order() -> None:
    contract = compile_contract(EVERYTHING)
    assert [rule.label for rule in contract.rules] == [
        "run",
        "tools.required[Read]",
        "tools.required[Grep]",
        "tools.forbidden[Bash]",
        "tools.forbidden[Write]",
        "tools.allowed",
        "tools.maxCalls",
        "tools.maxCallsPerTool[Read]",
        "tools.maxCallsPerTool[Grep]",
        "tools.requiredOrder[Read->Grep]",
        "tools.requiredOrder[Grep->Glob]",
        "tools.arguments[0] Read /file_path type string",
        "tools.arguments[1] Read (whole value) exists",
        "tools.arguments[2] Read /mode oneOf",
        "tools.arguments[3] Read /a~1b equals",
        "tools.enforced",
        "retries",
        "llm.maxCalls",
        "llm.maxTotalTokens",
        "llm.allowedModels",
        "no shell",
    ]
    assert contract.name == "refund-desk"
    assert contract.description == "Answer refund questions"
    assert contract.scope is None and contract.alternatives == () and contract.source is None


def test_rule_objects() -> None:
    rules = compile_contract(EVERYTHING).rules
    assert rules == (
        RunCheck("run", True, ("completed",), 120000),
        Eventually("tools.required[Read]", tool("Read")),
        Eventually("tools.required[Grep]", tool("Grep")),
        Never("tools.forbidden[Bash]", tool("Bash"), needs_tool_capture=True),
        Never("tools.forbidden[Write]", tool("Write"), needs_tool_capture=True),
        Never(
            "tools.allowed",
            Predicate(kind="TOOL", not_=Predicate(tool=OneOf(("Read", "Grep", "Glob")))),
            needs_tool_capture=True,
        ),
        AtMost("tools.maxCalls", Predicate(kind="TOOL"), 10, needs_tool_capture=True),
        AtMost("tools.maxCallsPerTool[Read]", tool("Read"), 3, needs_tool_capture=True),
        AtMost("tools.maxCallsPerTool[Grep]", tool("Grep"), 0, needs_tool_capture=True),
        Precedes(
            "tools.requiredOrder[Read->Grep]", tool("Read"), tool("Grep"), "finish-before-start"
        ),
        Precedes(
            "tools.requiredOrder[Grep->Glob]", tool("Grep"), tool("Glob"), "finish-before-start"
        ),
        Argument(
            "tools.arguments[0] Read /file_path type string",
            tool("Read"),
            "/file_path",
            ArgumentCheck("type", type="string"),
        ),
        Argument(
            "tools.arguments[1] Read (whole value) exists",
            tool("Read"),
            "",
            ArgumentCheck("exists"),
            "first",
        ),
        Argument(
            "tools.arguments[2] Read /mode oneOf",
            tool("Read"),
            "/mode",
            ArgumentCheck("oneOf", values=("r", 1)),
        ),
        Argument(
            "tools.arguments[3] Read /a~1b equals",
            tool("Read"),
            "/a~1b",
            ArgumentCheck("equals", value={"x": 1}),
        ),
        ToolsOffered("tools.enforced", ("Read", "Grep", "Glob")),
        RetrySafe(
            "retries",
            ("lookup_order",),
            (WriteTool("charge_card", "/idempotency_key"), WriteTool("log")),
            needs_tool_capture=True,
        ),
        AtMost("llm.maxCalls", Predicate(kind="LLM"), 5),
        TokensAtMost("llm.maxTotalTokens", Predicate(kind="LLM"), 200000),
        Never("llm.allowedModels", Predicate(kind="LLM", not_=Predicate(model=OneOf(("m1",))))),
        Never("no shell", Predicate(name=Pattern("sh$", "i"))),
    )


def test_tool_capture_marks_exactly_the_listed_keys() -> None:
    capture = {rule.label for rule in compile_contract(EVERYTHING).rules if rule.needs_tool_capture}
    assert capture == {
        "tools.forbidden[Bash]",
        "tools.forbidden[Write]",
        "tools.allowed",
        "tools.maxCalls",
        "tools.maxCallsPerTool[Read]",
        "tools.maxCallsPerTool[Grep]",
        "retries",
    }


def test_single_required_order_is_eventually_and_default_mode() -> None:
    rules = compile_contract({"name": "x", "tools": {"requiredOrder": ["A"]}}).rules
    assert rules == (Eventually("tools.requiredOrder[A]", tool("A")),)
    rules = compile_contract({"name": "x", "tools": {"requiredOrder": ["A", "B"]}}).rules
    assert rules == (Precedes("tools.requiredOrder[A->B]", tool("A"), tool("B"), "start-order"),)


def test_enforced_without_allowed_declares_nothing() -> None:
    assert compile_contract({"name": "x", "tools": {"enforced": True}}).rules == (
        ToolsOffered("tools.enforced", None),
    )


def test_low_level_rules() -> None:
    doc = {
        "name": "x",
        "rules": [
            {
                "kind": "always",
                "label": "a",
                "p": {"attr": {"http.status": 200, "route": {"$regex": "^/api"}}},
            },
            {
                "kind": "neverUnless",
                "label": "b",
                "p": {"tool": "Write"},
                "prior": {"tool": {"oneOf": ["Read"]}},
                "order": "all-occurrences",
            },
            {
                "kind": "precedes",
                "label": "c",
                "a": {"kind": "LLM", "model": "m"},
                "b": {"not": {"kind": "TOOL"}},
            },
            {"kind": "run", "label": "d", "requireCompleted": False},
            {
                "kind": "argument",
                "label": "e",
                "p": {"tool": "R"},
                "pointer": "/x",
                "check": {"op": "type", "type": "null"},
                "occurrence": "any",
            },
            {"kind": "toolsOffered", "label": "f", "declared": []},
            {"kind": "retrySafe", "label": "g", "writes": [{"tool": "w"}]},
            {"kind": "tokensAtMost", "label": "h", "p": {"kind": "LLM"}, "max": 0},
        ],
    }
    assert compile_contract(doc).rules == (
        Always("a", Predicate(attr=(("http.status", 200), ("route", Pattern("^/api"))))),
        NeverUnless(
            "b", Predicate(tool=Exact("Write")), Predicate(tool=OneOf(("Read",))), "all-occurrences"
        ),
        Precedes(
            "c", Predicate(kind="LLM", model=Exact("m")), Predicate(not_=Predicate(kind="TOOL"))
        ),
        RunCheck("d", require_completed=False),
        Argument("e", Predicate(tool=Exact("R")), "/x", ArgumentCheck("type", type="null"), "any"),
        ToolsOffered("f", ()),
        RetrySafe("g", (), (WriteTool("w"),)),
        TokensAtMost("h", Predicate(kind="LLM"), 0),
    )
    assert not any(rule.needs_tool_capture for rule in compile_contract(doc).rules)


def test_alternatives_keep_their_ids_and_plain_labels() -> None:
    doc = {
        "name": "x",
        "scope": {"root": {"kind": "agent", "name": "refund"}},
        "tools": {"forbidden": ["Bash"]},
        "alternatives": {
            "anyOf": [
                {"id": "full", "tools": {"required": ["Read"]}, "run": {"requireCompleted": True}},
                {
                    "id": "cache-hit",
                    "rules": [{"kind": "eventually", "label": "hit", "p": {"tool": "cache"}}],
                },
            ]
        },
    }
    contract = compile_contract(doc)
    assert contract.scope == Predicate(kind="AGENT", name=Exact("refund"))
    assert [r.label for r in contract.rules] == ["tools.forbidden[Bash]"]
    assert contract.alternatives == (
        Alternative(
            "full", (RunCheck("run", True), Eventually("tools.required[Read]", tool("Read")))
        ),
        Alternative("cache-hit", (Eventually("hit", Predicate(tool=Exact("cache"))),)),
    )


def test_only_alternatives_is_not_empty() -> None:
    doc = {"name": "x", "alternatives": {"anyOf": [{"id": "a", "tools": {"required": ["R"]}}]}}
    contract = compile_contract(doc)
    assert contract.rules == () and len(contract.alternatives) == 1
