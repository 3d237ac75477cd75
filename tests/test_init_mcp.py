"""`draft_from_mcp`: a draft from an MCP server's `tools/list` answer, recorded from the
refund-desk server on mcp 2.3.0 and 1.30.0 (fixtures/mcp/): the tools allowed, reads and
writes from the tools' annotations (MCP's defaults where a hint is not written), argument
checks from their input schemas; a malformed answer is refused at its place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck import check, compile_contract, lint_contract, read_traces
from tracecheck.init import ToolListError, draft_from_mcp
from tracecheck.yaml12 import load_yaml

ROOT = Path(__file__).resolve().parent.parent
MCP = ROOT / "fixtures" / "mcp"
ANSWERS = sorted(MCP.glob("refund-desk.*.json"))
RESPONSE = MCP / "refund-desk.mcp-2.3.0.response.json"
RUN = ROOT / "fixtures" / "producers" / "pydantic-ai-mcp" / "clean.otlp.jsonl"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_recorded_answers_are_found() -> None:
    assert [path.name for path in ANSWERS] == [
        "refund-desk.mcp-1.30.0.response.json",
        "refund-desk.mcp-1.30.0.result.json",
        "refund-desk.mcp-2.3.0.response.json",
        "refund-desk.mcp-2.3.0.result.json",
    ]


@pytest.mark.parametrize("path", ANSWERS, ids=lambda path: path.name)
def test_every_recorded_answer_gives_the_same_draft(path: Path) -> None:
    draft = draft_from_mcp(load(path), name="refund-desk")
    assert draft.document() == draft_from_mcp(load(RESPONSE), name="refund-desk").document()
    assert load_yaml(draft.yaml()) == draft.document()


def test_the_draft_from_the_refund_desk_server() -> None:
    doc = draft_from_mcp(load(RESPONSE)).document()
    assert doc["tools"]["allowed"] == [
        "lookup_order",
        "search_orders",
        "issue_refund",
        "cancel_order",
        "add_note",
        "set_shipping_address",
        "run_shell",
    ]
    assert doc["retries"] == {
        # readOnlyHint, readOnlyHint, then idempotent and not destructive
        "reads": ["lookup_order", "search_orders", "set_shipping_address"],
        "writes": [
            {"tool": "issue_refund", "idempotencyKey": "/idempotency_key"},
            {"tool": "cancel_order"},  # destructive (and idempotent): no key parameter
            {"tool": "add_note"},  # not idempotent: no key parameter
            {"tool": "run_shell"},  # no annotations: MCP's defaults make it destructive
        ],
    }
    # Required parameters only (search_orders' limit has a default), integer as number.
    assert doc["tools"]["arguments"][:2] == [
        {"tool": "lookup_order", "pointer": "/order_id", "type": "string"},
        {"tool": "search_orders", "pointer": "/query", "type": "string"},
    ]
    assert {"tool": "set_shipping_address", "pointer": "/address", "type": "object"} in doc[
        "tools"
    ]["arguments"]
    assert "required" not in doc["tools"]


def test_the_draft_says_what_to_review() -> None:
    text = draft_from_mcp(load(RESPONSE)).yaml()
    assert "# review: a write (not idempotent); its annotations say readOnlyHint: false," in text
    assert "    # review: a write (destructive); it has no annotations: MCP's defaults." in text
    assert "Its parameter idempotency_key is taken for its idempotency key." in text
    assert "# review: an argument check fails a run that never calls its tool" in text
    assert "never trust them from an untrusted server" in text


def test_the_draft_lints_with_warnings_only_about_argument_checks_of_tools_not_required() -> None:
    findings = lint_contract(draft_from_mcp(load(RESPONSE)).yaml())
    assert findings and {f.code for f in findings} == {"tools.argument-not-required"}


def test_the_draft_once_reviewed_passes_a_run_of_the_agent() -> None:
    """What the docs say to do: keep the argument checks of the tools every run calls."""
    doc = draft_from_mcp(load(RESPONSE)).document()
    (run,) = [t for t in read_traces(RUN) if any(s.kind == "TOOL" for s in t.spans)]
    assert check(run, compile_contract(doc)).status == "fail"  # checks of tools never called
    called = {"lookup_order", "issue_refund"}
    doc["tools"]["arguments"] = [a for a in doc["tools"]["arguments"] if a["tool"] in called]
    doc["tools"]["required"] = sorted(called)
    assert check(run, compile_contract(doc)).status == "pass"


def test_a_required_parameter_the_schema_does_not_describe_must_exist() -> None:
    tool = {"name": "a", "inputSchema": {"type": "object", "required": ["x"]}}
    assert draft_from_mcp([tool]).document()["tools"]["arguments"] == [
        {"tool": "a", "pointer": "/x", "exists": True}
    ]


def test_a_key_parameter_that_is_optional_is_said_so() -> None:
    tool = {
        "name": "charge",
        "inputSchema": {"type": "object", "properties": {"amount": {}, "requestId": {}}},
    }
    draft = draft_from_mcp({"tools": [tool]})
    assert draft.document()["retries"] == {
        "writes": [{"tool": "charge", "idempotencyKey": "/requestId"}]
    }
    assert "(optional in its schema: a call without it has no key)" in draft.yaml()
    assert "arguments" not in draft.document()["tools"]  # no required parameter


def test_more_pages_are_said_to_be_missing() -> None:
    answer = {"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "nextCursor": "p2"}
    draft = draft_from_mcp(answer)
    (note,) = draft.notes
    assert note.startswith("review: the answer has a nextCursor")
    assert f"# {note[:40]}" in draft.yaml()


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("tools", "a tools/list answer is an object, not a string"),
        (
            {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "x"}},
            "error: the answer is a JSON-RPC error, not a tools/list result",
        ),
        (
            {"jsonrpc": "2.0", "id": 1, "result": None},
            "result: must be an object holding tools, not null",
        ),
        ({"tools": {}}, "tools: must be a list of tools, not an object"),
        ({"tools": []}, "tools: lists no tools, so there is nothing to draft"),
        ({"result": {"tools": [3]}}, "result.tools[0]: a tool is an object, not a number"),
        ({"tools": [{"name": ""}]}, "tools[0].name: must not be empty"),
        (
            {"tools": [{"name": "a"}, {"name": "a"}]},
            'tools[1].name: duplicate tool "a", also at tools[0].name',
        ),
        (
            {"tools": [{"name": "a", "annotations": {"readOnlyHint": "yes"}}]},
            "tools[0].annotations.readOnlyHint: must be a boolean, not a string",
        ),
        (
            {"tools": [{"name": "a", "inputSchema": {"required": "x"}}]},
            "tools[0].inputSchema.required: must be a list of property names",
        ),
    ],
)
def test_a_malformed_answer_is_refused_at_its_place(answer: Any, message: str) -> None:
    with pytest.raises(ToolListError) as caught:
        draft_from_mcp(answer)
    assert str(caught.value) == message


def test_every_problem_is_named_and_no_value_is_echoed() -> None:
    secret = "sk-live-" + "x" * 20
    answer = {"tools": [{"name": secret, "annotations": {"destructiveHint": secret}}, {"name": 5}]}
    with pytest.raises(ToolListError) as caught:
        draft_from_mcp(answer)
    assert [where for where, _ in caught.value.problems] == [
        "tools[0].annotations.destructiveHint",
        "tools[1].name",
    ]
    assert secret not in str(caught.value)


# --- any answer either drafts a sound contract or is refused -------------------------------

_names = st.text(min_size=0, max_size=10)
_schemas = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["object", "string", "integer", ["string", "null"], 3]),
        "properties": st.dictionaries(
            _names,
            st.fixed_dictionaries(
                {}, optional={"type": st.sampled_from(["string", "integer", "boolean", "x"])}
            ),
            max_size=4,
        ),
        "required": st.lists(_names, max_size=3) | st.just("x"),
    },
)
_hints = st.dictionaries(
    st.sampled_from(
        ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "title"]
    ),
    st.booleans() | st.none() | st.just("no"),
    max_size=4,
)
_tools = st.lists(
    st.fixed_dictionaries(
        {"name": _names},
        optional={"inputSchema": _schemas | st.just([]), "annotations": _hints | st.just(1)},
    ),
    max_size=5,
)


@settings(max_examples=200, deadline=None)
@given(tools=_tools, wrap=st.sampled_from(["result", "response", "list"]))
def test_any_answer_drafts_a_contract_that_lints_or_is_refused(
    tools: list[dict[str, Any]], wrap: str
) -> None:
    answer: Any = {"tools": tools}
    if wrap == "response":
        answer = {"jsonrpc": "2.0", "id": 7, "result": answer}
    elif wrap == "list":
        answer = tools
    try:
        draft = draft_from_mcp(answer)
    except ToolListError as exc:
        assert exc.problems
        return
    text = draft.yaml()
    assert load_yaml(text) == draft.document()
    assert [f for f in lint_contract(text) if f.level == "error"] == []
    compile_contract(text)
