"""Held-out style scenarios for contracts.md, written from the spec alone, section by section.

Each table row is one statement of the spec: a contract document, the spans it sees, and the
outcome the spec's letter gives (statuses, span refs and message texts filled in from its
templates). Spans are built with the public `Span` constructor; times are in milliseconds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tracecheck import (
    ContractError,
    RunRecord,
    Span,
    Verdict,
    check,
    check_all,
    compile_contract,
    explain_contract,
    lint_contract,
    read_traces,
)
from tracecheck.contract.spec import TOP_KEYS
from tracecheck.rules.capture import CaptureMode

TRACE = "ab" * 16
MS = 1_000_000
ABSENT: Any = object()


# --- span builders ---------------------------------------------------------------------------


def _ns(ms: float | None) -> int | None:
    return None if ms is None else int(ms * MS)


def sp(
    sid: str | None,
    name: str = "step",
    start: float | None = None,
    end: float | None = None,
    attrs: dict[str, Any] | None = None,
    *,
    status: str | None = None,
    parent: str | None = None,
    kind: str | None = None,
) -> Span:
    return Span(
        TRACE,
        sid,
        parent,
        name,
        _ns(start),
        _ns(end),
        status,  # type: ignore[arg-type]
        None,
        attributes=dict(attrs or {}),
        declared_kind=kind,
    )


def tool(
    sid: str | None,
    name: str | None,
    start: float | None = None,
    end: float | None = None,
    args: Any = ABSENT,
    attrs: dict[str, Any] | None = None,
    *,
    status: str | None = None,
    parent: str | None = None,
) -> Span:
    """An OTel GenAI `execute_tool` span; `args` is JSON-encoded into the arguments attribute."""
    a: dict[str, Any] = {"gen_ai.operation.name": "execute_tool"}
    if name is not None:
        a["gen_ai.tool.name"] = name
    if args is not ABSENT:
        a["gen_ai.tool.call.arguments"] = json.dumps(args)
    a.update(attrs or {})
    span_name = f"execute_tool {name}" if name else "execute_tool"
    return sp(sid, span_name, start, end, a, status=status, parent=parent)


def llm(
    sid: str | None,
    model: str | None = "m",
    inp: Any = None,
    out: Any = None,
    attrs: dict[str, Any] | None = None,
    *,
    parent: str | None = None,
) -> Span:
    a: dict[str, Any] = {"gen_ai.operation.name": "chat"}
    if model is not None:
        a["gen_ai.request.model"] = model
    if inp is not None:
        a["gen_ai.usage.input_tokens"] = inp
    if out is not None:
        a["gen_ai.usage.output_tokens"] = out
    a.update(attrs or {})
    return sp(sid, "chat", None, None, a, parent=parent)


def offering(sid: str, definitions: Any, *, parent: str | None = None) -> Span:
    return llm(sid, attrs={"gen_ai.tool.definitions": definitions}, parent=parent)


def agent(sid: str, start: float | None = None, end: float | None = None, **attrs: Any) -> Span:
    return sp(sid, "agent", start, end, {"gen_ai.operation.name": "invoke_agent", **attrs})


# --- checking helpers ------------------------------------------------------------------------


def run_check(
    doc: dict[str, Any],
    spans: list[Span],
    run: RunRecord | None = None,
    capture: CaptureMode | None = None,
) -> Verdict:
    return check(spans, compile_contract({"name": "heldout", **doc}), run=run, capture=capture)


Outcome = tuple[str, list[tuple[str | None, str]]]


def outcome(verdict: Verdict, label: str | None = None) -> Outcome:
    """(status, [(span_id, detail)]) of the rule with `label`, or of the only rule; an error
    rule gives its message as a single span-less entry."""
    rules = [r for r in verdict.rules if label is None or r.label == label]
    assert len(rules) == 1, [r.label for r in verdict.rules]
    (rule,) = rules
    found = [(v.span_id, v.detail) for v in rule.violations]
    if rule.error is not None:
        found.append((None, rule.error))
    return rule.status, found


def low(kind: str, **keys: Any) -> dict[str, Any]:
    return {"rules": [{"kind": kind, "label": "r", **keys}]}


def problems(doc: Any) -> list[str]:
    with pytest.raises(ContractError) as caught:
        compile_contract(doc)
    return [str(p) for p in caught.value.problems]


def PASS() -> Outcome:
    return ("pass", [])


# =============================================================================================
# §1 Spans as the checker sees them (as it affects rules)
# =============================================================================================

KIND_CASES: list[tuple[str, Span, str, str]] = [
    # (id, span, predicate kind it must be, ...) -> checked with eventually(kind=K) and always(kind=K)
    ("name tool: prefix is a tool", sp("s", "tool:Read"), "TOOL", "pass"),
    ("name Function. prefix, any case", sp("s", "Function.lookup"), "TOOL", "pass"),
    ("name toolbox is not a tool", sp("s", "toolbox.Read"), "UNKNOWN", "pass"),
    (
        "declared openinference kind beats a tool-looking name",
        sp("s", "tool.Read", attrs={"openinference.span.kind": "LLM"}),
        "LLM",
        "pass",
    ),
    (
        "openinference kind is upper-cased",
        sp("s", attrs={"openinference.span.kind": "chain"}),
        "CHAIN",
        "pass",
    ),
    (
        "inference.observation_kind",
        sp("s", attrs={"inference.observation_kind": "retriever"}),
        "RETRIEVER",
        "pass",
    ),
    (
        "a non-contract openinference kind falls through to inference",
        sp("s", attrs={"openinference.span.kind": "bogus", "gen_ai.operation.name": "chat"}),
        "LLM",
        "pass",
    ),
    (
        "an LLM span named like a tool is an LLM span",
        sp("s", "Read", attrs={"gen_ai.operation.name": "chat"}),
        "LLM",
        "pass",
    ),
    (
        "execute_tool operation",
        sp("s", attrs={"gen_ai.operation.name": "execute_tool"}),
        "TOOL",
        "pass",
    ),
    (
        "create_agent operation",
        sp("s", attrs={"gen_ai.operation.name": "create_agent"}),
        "AGENT",
        "pass",
    ),
    (
        "handle_conversation_turn operation",
        sp("s", attrs={"gen_ai.operation.name": "handle_conversation_turn"}),
        "AGENT",
        "pass",
    ),
    (
        "invoke_workflow operation",
        sp("s", attrs={"gen_ai.operation.name": "invoke_workflow"}),
        "CHAIN",
        "pass",
    ),
    (
        "generate_content operation",
        sp("s", attrs={"gen_ai.operation.name": "generate_content"}),
        "LLM",
        "pass",
    ),
    (
        "embeddings operation",
        sp("s", attrs={"gen_ai.operation.name": "embeddings"}),
        "EMBEDDING",
        "pass",
    ),
    (
        "an unknown operation stops inference even beside a model",
        sp("s", attrs={"gen_ai.operation.name": "rerank_docs", "gen_ai.request.model": "m"}),
        "UNKNOWN",
        "pass",
    ),
    (
        "a model attribute alone makes an LLM span",
        sp("s", attrs={"llm.model_name": "gpt"}),
        "LLM",
        "pass",
    ),
    (
        "token counts alone never make an LLM span",
        sp("s", attrs={"gen_ai.usage.input_tokens": 3, "gen_ai.usage.output_tokens": 4}),
        "UNKNOWN",
        "pass",
    ),
    ("llm as a delimited name segment", sp("s", "openai.llm.call"), "LLM", "pass"),
    ("chat.completion name", sp("s", "chat.completion"), "LLM", "pass"),
    ("llm inside a word is not a segment", sp("s", "llmish"), "UNKNOWN", "pass"),
    (
        "a tool-name attribute makes a TOOL span",
        sp("s", "anything", attrs={"tool.name": "x"}),
        "TOOL",
        "pass",
    ),
    (
        "toolName names a tool but does not make a TOOL span",
        sp("s", "anything", attrs={"toolName": "x"}),
        "UNKNOWN",
        "pass",
    ),
    ("OTLP span kind is not a declared kind", Span(TRACE, "s", otlp_kind=3), "UNKNOWN", "pass"),
]


@pytest.mark.parametrize(
    ("span", "kind", "expected"),
    [c[1:] for c in KIND_CASES],
    ids=[c[0] for c in KIND_CASES],
)
def test_kind_of_a_span_as_rules_see_it(span: Span, kind: str, expected: str) -> None:
    doc = {"rules": [{"kind": "always", "label": "a", "p": {"kind": kind}}]}
    # How a span's kind is read, apart from what its reading leaves in doubt (a lone span with
    # call-like attributes and no kind, say).
    assert run_check(doc, [span], capture="lenient").status == expected


def test_declared_kinds_of_flat_spans_are_mapped(tmp_path: Path) -> None:
    rows = [
        {"traceId": TRACE, "spanId": "01" * 8, "name": "grade", "kind": "judge"},
        {"traceId": TRACE, "spanId": "02" * 8, "name": "fetch", "kind": "retrieval"},
        {"traceId": TRACE, "spanId": "03" * 8, "name": "tool.x", "kind": "llm"},
    ]
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(rows))
    (trace,) = read_traces(path)
    doc = {
        "rules": [
            {"kind": "eventually", "label": "judge", "p": {"kind": "EVALUATOR", "name": "grade"}},
            {"kind": "eventually", "label": "retr", "p": {"kind": "RETRIEVER", "name": "fetch"}},
            {"kind": "eventually", "label": "llm", "p": {"kind": "LLM", "name": "tool.x"}},
        ]
    }
    verdict = check(trace, compile_contract({"name": "k", **doc}))
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("judge", "pass"),
        ("retr", "pass"),
        ("llm", "pass"),
    ]


TOOL_NAME_CASES: list[tuple[str, Span, str | None]] = [
    (
        "execute_tool X takes X",
        sp("s", "execute_tool lookup", attrs={"gen_ai.operation.name": "execute_tool"}),
        "lookup",
    ),
    (
        "a TOOL span's own name",
        sp("s", "search", attrs={"openinference.span.kind": "TOOL"}),
        "search",
    ),
    (
        "toolName on a TOOL span",
        sp("s", "x", attrs={"openinference.span.kind": "TOOL", "toolName": "T"}),
        "T",
    ),
    (
        "an empty attribute is skipped",
        sp("s", "x", attrs={"gen_ai.tool.name": "", "tool.name": "B"}),
        "B",
    ),
    ("inference.tool.name", sp("s", "x", attrs={"inference.tool.name": "C"}), "C"),
    (
        "generic execute_tool has no name",
        sp("s", "execute_tool", attrs={"gen_ai.operation.name": "execute_tool"}),
        None,
    ),
]


@pytest.mark.parametrize(
    ("span", "name"), [c[1:] for c in TOOL_NAME_CASES], ids=[c[0] for c in TOOL_NAME_CASES]
)
def test_tool_name_as_rules_see_it(span: Span, name: str | None) -> None:
    if name is not None:
        assert run_check({"tools": {"required": [name]}}, [span]).status == "pass"
    else:
        verdict = run_check({"tools": {"allowed": ["x"]}}, [span])
        assert outcome(verdict) == (
            "fail",
            [("s", 'span s ("execute_tool") matches never(kind=TOOL,not(tool=oneOf(x)))')],
        )


@pytest.mark.parametrize(
    ("attrs", "model"),
    [
        ({"gen_ai.response.model": "b", "gen_ai.request.model": "a"}, "b"),
        ({"gen_ai.request.model": "", "llm.model_name": "x"}, "x"),
        ({"llm.request.model_name": "r", "model": "z"}, "r"),
        ({"model": "z"}, "z"),
    ],
)
def test_model_as_rules_see_it(attrs: dict[str, Any], model: str) -> None:
    span = llm("l", model=None, attrs=attrs)
    assert run_check({"llm": {"allowedModels": [model]}}, [span]).status == "pass"
    assert run_check({"llm": {"allowedModels": [model + "-other"]}}, [span]).status == "fail"


TOKEN_CASES: list[tuple[str, dict[str, Any], int | None]] = [
    (
        "plain input and output",
        {"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 5},
        105,
    ),
    (
        "numeric strings",
        {"gen_ai.usage.input_tokens": "100", "gen_ai.usage.output_tokens": "5"},
        105,
    ),
    (
        "an unparseable first key falls through",
        {
            "gen_ai.usage.input_tokens": "abc",
            "gen_ai.usage.prompt_tokens": 7,
            "llm.token_count.completion": 3,
        },
        10,
    ),
    (
        "OpenAI-style included cache read",
        {
            "gen_ai.usage.input_tokens": 100,
            "gen_ai.usage.cache_read.input_tokens": 40,
            "gen_ai.usage.output_tokens": 10,
        },
        110,
    ),
    (
        "Anthropic-style separate cache write",
        {
            "llm.token_count.prompt": 10,
            "llm.token_count.prompt_cache_write": 19004,
            "llm.token_count.completion": 1,
        },
        19015,
    ),
    (
        "separate raw cache counts add up",
        {
            "input_tokens": 10,
            "output_tokens": 2,
            "cache_read_input_tokens": 5,
            "cache_creation_input_tokens": 3,
        },
        20,
    ),
    (
        "an included count above input was left out, so it is added",
        {
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.usage.cache_read.input_tokens": 40,
            "gen_ai.usage.output_tokens": 0,
        },
        50,
    ),
    (
        "an included count equal to input is not added",
        {
            "gen_ai.usage.input_tokens": 40,
            "gen_ai.usage.prompt_tokens_details.cached_tokens": 40,
            "gen_ai.usage.output_tokens": 0,
        },
        40,
    ),
    ("unknown output", {"gen_ai.usage.input_tokens": 10}, None),
    (
        "unknown input",
        {"gen_ai.usage.output_tokens": 10, "gen_ai.usage.cache_read_input_tokens": 3},
        None,
    ),
]


@pytest.mark.parametrize(
    ("attrs", "total"), [c[1:] for c in TOKEN_CASES], ids=[c[0] for c in TOKEN_CASES]
)
def test_token_totals_as_rules_see_them(attrs: dict[str, Any], total: int | None) -> None:
    span = llm("l", attrs=attrs)
    if total is None:
        verdict = run_check({"llm": {"maxTotalTokens": 10**9}}, [span])
        assert outcome(verdict) == (
            "fail",
            [
                (
                    "l",
                    "span l has no recorded input and output token counts, so the total is unknown",
                )
            ],
        )
        return
    assert run_check({"llm": {"maxTotalTokens": total}}, [span]).status == "pass"
    verdict = run_check({"llm": {"maxTotalTokens": total - 1}}, [span])
    assert outcome(verdict) == (
        "fail",
        [
            (
                None,
                f"{total} tokens across 1 span(s) matching kind=LLM, over the limit of {total - 1}",
            )
        ],
    )


ARG_EVIDENCE_CASES: list[tuple[str, dict[str, Any], str | None]] = [
    (
        "args_captured false wins over recorded arguments",
        {"tool.args_captured": False, "gen_ai.tool.call.arguments": '{"a": 1}'},
        "span t: arguments were not captured",
    ),
    ("no evidence at all", {}, "span t: the span carries no argument evidence"),
    ("tool.arguments as an object", {"tool.arguments": {"a": 1}}, None),
    ("input.value JSON text", {"input.value": '{"a": 1}'}, None),
    ("tool.input after a null", {"gen_ai.tool.call.arguments": None, "tool.input": {"a": 1}}, None),
]


@pytest.mark.parametrize(
    ("attrs", "reason"), [c[1:] for c in ARG_EVIDENCE_CASES], ids=[c[0] for c in ARG_EVIDENCE_CASES]
)
def test_argument_evidence_as_rules_see_it(attrs: dict[str, Any], reason: str | None) -> None:
    span = tool("t", "Run", attrs=attrs)
    doc = {"tools": {"arguments": [{"tool": "Run", "pointer": "/a", "equals": 1}]}}
    expected = PASS() if reason is None else ("fail", [("t", reason)])
    assert outcome(run_check(doc, [span])) == expected


def test_a_non_json_argument_string_stays_a_string() -> None:
    span = tool("t", "Run", attrs={"input.value": "hello there"})
    whole = {"tools": {"arguments": [{"tool": "Run", "pointer": "", "type": "string"}]}}
    into = {"tools": {"arguments": [{"tool": "Run", "pointer": "/a", "exists": True}]}}
    assert run_check(whole, [span]).status == "pass"
    assert outcome(run_check(into, [span])) == ("fail", [("t", "span t: argument /a is absent")])


RUN_RECORD_CASES: list[tuple[str, list[Span], RunRecord | None, Outcome]] = [
    (
        "a root that ended OK is not a completed run",
        [sp("r", "agent", 0, 5, status="ok")],
        None,
        ("fail", [(None, "run status is unknown, not completed")]),
    ),
    (
        "run.status completed with an end",
        [agent("r", 0, 5, **{"run.status": "completed"})],
        None,
        PASS(),
    ),
    (
        "an error status is a failed run",
        [sp("r", "agent", 0, 5, status="error")],
        None,
        ("fail", [(None, "run status is failed, not completed")]),
    ),
    (
        "a run.status outside the four is ignored",
        [agent("r", 0, 5, **{"run.status": "done"})],
        None,
        ("fail", [(None, "run status is unknown, not completed")]),
    ),
    (
        "run.status wins over the span status",
        [sp("r", "agent", 0, 5, {"run.status": "aborted"}, status="error")],
        None,
        ("fail", [(None, "run status is aborted, not completed")]),
    ),
    (
        "completed without an end time",
        [agent("r", 0, None, **{"run.status": "completed"})],
        None,
        ("fail", [(None, "run status is completed but no end time was recorded")]),
    ),
    (
        "a span whose parent is missing is a second root",
        [agent("r", 0, 5, **{"run.status": "completed"}), sp("o", parent="ff" * 8)],
        None,
        (
            "fail",
            [
                (
                    None,
                    "run record unavailable: the trace has 2 root spans and no run record was passed",
                )
            ],
        ),
    ),
    (
        "a passed run stands in for the roots",
        [sp("a"), sp("b")],
        RunRecord("completed", 0, 5 * MS),
        PASS(),
    ),
    (
        "children of the root do not count as roots",
        [agent("r", 0, 5, **{"run.status": "completed"}), sp("c", parent="r")],
        None,
        PASS(),
    ),
]


@pytest.mark.parametrize(
    ("spans", "run", "expected"),
    [c[1:] for c in RUN_RECORD_CASES],
    ids=[c[0] for c in RUN_RECORD_CASES],
)
def test_run_record_as_the_run_rule_sees_it(
    spans: list[Span], run: RunRecord | None, expected: Outcome
) -> None:
    assert outcome(run_check({"run": {"requireCompleted": True}}, spans, run)) == expected


# =============================================================================================
# §2 The contract document: keys, compile order and labels
# =============================================================================================


def test_every_key_compiles_in_table_order_with_its_label() -> None:
    doc = {
        "rules": [{"kind": "eventually", "label": "mine", "p": {"kind": "AGENT"}}],
        "llm": {"allowedModels": ["m"], "maxTotalTokens": 9, "maxCalls": 3},
        "retries": {"reads": ["Grep"]},
        "tools": {
            "enforced": True,
            "arguments": [
                {"tool": "Read", "pointer": "/file_path", "type": "string"},
                {"tool": "Read", "pointer": "", "exists": True},
            ],
            "orderMode": "finish-before-start",
            "requiredOrder": ["Read", "Grep", "Glob"],
            "maxCallsPerTool": {"Read": 2, "Grep": 1},
            "maxCalls": 10,
            "allowed": ["Read", "Grep", "Glob"],
            "forbidden": ["Bash", "Write"],
            "required": ["Read", "Grep"],
        },
        "run": {"maxDurationMs": 5},
    }
    contract = compile_contract({"name": "all", **doc})
    verdict = check([agent("r")], contract)
    assert [r.label for r in verdict.rules] == [
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
        "tools.enforced",
        "retries",
        "llm.maxCalls",
        "llm.maxTotalTokens",
        "llm.allowedModels",
        "mine",
    ]


def test_a_single_required_order_name_is_eventually() -> None:
    doc = {"tools": {"requiredOrder": ["Read"]}}
    assert outcome(run_check(doc, [tool("t", "Grep")]), "tools.requiredOrder[Read]") == (
        "fail",
        [(None, "no span matches eventually(kind=TOOL,tool=Read) over 1 span(s)")],
    )
    assert run_check(doc, [tool("t", "Read")]).status == "pass"


def test_alternative_rules_are_reported_under_their_id() -> None:
    doc = {
        "tools": {"required": ["Read"]},
        "alternatives": {
            "anyOf": [
                {"id": "grep", "tools": {"required": ["Grep"]}},
                {"id": "glob", "tools": {"required": ["Glob"]}, "llm": {"maxCalls": 1}},
            ]
        },
    }
    verdict = run_check(doc, [tool("t", "Read"), tool("u", "Glob"), llm("m")])
    assert [(r.label, r.alternative, r.status) for r in verdict.rules] == [
        ("tools.required[Read]", None, "pass"),
        ("grep/tools.required[Grep]", "grep", "skipped"),
        ("glob/tools.required[Glob]", "glob", "pass"),
        ("glob/llm.maxCalls", "glob", "pass"),
    ]
    assert verdict.status == "pass"


VALID_DOCS: list[tuple[str, dict[str, Any]]] = [
    (
        "equals null is a check",
        {"tools": {"arguments": [{"tool": "R", "pointer": "/a", "equals": None}]}},
    ),
    ("a fractional max duration", {"run": {"maxDurationMs": 0.5}}),
    ("maxCalls 0", {"tools": {"maxCalls": 0}}),
    ("maxCallsPerTool 0", {"tools": {"maxCallsPerTool": {"Bash": 0}}}),
    ("idempotencyKey pointer", {"retries": {"writes": [{"tool": "pay", "idempotencyKey": "/k"}]}}),
    ("a write without a key", {"retries": {"writes": [{"tool": "pay"}]}}),
    ("llm.maxTotalTokens 0", {"llm": {"maxTotalTokens": 0}}),
    (
        "pointer with escapes",
        {"tools": {"arguments": [{"tool": "R", "pointer": "/a~1b/~0c", "exists": True}]}},
    ),
    (
        "occurrence last",
        {
            "tools": {
                "arguments": [{"tool": "R", "pointer": "/a", "exists": True, "occurrence": "last"}]
            }
        },
    ),
    ("only alternatives", {"alternatives": {"anyOf": [{"id": "a", "tools": {"required": ["R"]}}]}}),
    (
        "scope with a lower-case kind",
        {"scope": {"root": {"kind": "agent"}}, "tools": {"required": ["R"]}},
    ),
    ("description", {"description": "x", "tools": {"required": ["R"]}}),
]


@pytest.mark.parametrize("doc", [c[1] for c in VALID_DOCS], ids=[c[0] for c in VALID_DOCS])
def test_valid_documents_compile(doc: dict[str, Any]) -> None:
    compile_contract({"name": "ok", **doc})


# (id, document, the location the problem names, a fragment of its message or None)
INVALID_DOCS: list[tuple[str, Any, str, str | None]] = [
    ("missing name", {"tools": {"required": ["R"]}}, "name", None),
    ("blank name", {"name": "  ", "tools": {"required": ["R"]}}, "name", None),
    ("empty contract", {"name": "x"}, "", "an empty contract would vacuously pass"),
    ("empty run", {"name": "x", "run": {}}, "run", "run rule checks nothing"),
    (
        "requireCompleted not boolean",
        {"name": "x", "run": {"requireCompleted": "yes"}},
        "run.requireCompleted",
        None,
    ),
    (
        "allowedStatuses empty",
        {"name": "x", "run": {"allowedStatuses": []}},
        "run.allowedStatuses",
        None,
    ),
    ("maxDurationMs zero", {"name": "x", "run": {"maxDurationMs": 0}}, "run.maxDurationMs", None),
    (
        "maxDurationMs boolean",
        {"name": "x", "run": {"maxDurationMs": True}},
        "run.maxDurationMs",
        None,
    ),
    ("required empty", {"name": "x", "tools": {"required": []}}, "tools.required", None),
    (
        "required duplicate",
        {"name": "x", "tools": {"required": ["R", "R"]}},
        "tools.required",
        None,
    ),
    ("required blank entry", {"name": "x", "tools": {"required": [""]}}, "tools.required[0]", None),
    (
        "forbidden not a list",
        {"name": "x", "tools": {"forbidden": "Bash"}},
        "tools.forbidden",
        None,
    ),
    ("maxCalls negative", {"name": "x", "tools": {"maxCalls": -1}}, "tools.maxCalls", None),
    ("maxCalls fractional", {"name": "x", "tools": {"maxCalls": 1.5}}, "tools.maxCalls", None),
    ("maxCalls boolean", {"name": "x", "tools": {"maxCalls": True}}, "tools.maxCalls", None),
    (
        "maxCallsPerTool negative",
        {"name": "x", "tools": {"maxCallsPerTool": {"R": -1}}},
        "tools.maxCallsPerTool",
        None,
    ),
    (
        "orderMode alone",
        {"name": "x", "tools": {"required": ["R"], "orderMode": "all-occurrences"}},
        "tools.orderMode",
        None,
    ),
    (
        "requiredOrder duplicate",
        {"name": "x", "tools": {"requiredOrder": ["a", "a"]}},
        "tools.requiredOrder",
        None,
    ),
    ("arguments empty", {"name": "x", "tools": {"arguments": []}}, "tools.arguments", None),
    (
        "argument with two checks",
        {
            "name": "x",
            "tools": {
                "arguments": [{"tool": "R", "pointer": "/a", "exists": True, "type": "string"}]
            },
        },
        "tools.arguments[0]",
        None,
    ),
    (
        "argument with no check",
        {"name": "x", "tools": {"arguments": [{"tool": "R", "pointer": "/a"}]}},
        "tools.arguments[0]",
        None,
    ),
    (
        "exists false",
        {"name": "x", "tools": {"arguments": [{"tool": "R", "pointer": "/a", "exists": False}]}},
        "tools.arguments[0].exists",
        None,
    ),
    (
        "oneOf empty",
        {"name": "x", "tools": {"arguments": [{"tool": "R", "pointer": "/a", "oneOf": []}]}},
        "tools.arguments[0].oneOf",
        None,
    ),
    (
        "type integer",
        {"name": "x", "tools": {"arguments": [{"tool": "R", "pointer": "/a", "type": "integer"}]}},
        "tools.arguments[0].type",
        None,
    ),
    (
        "occurrence every",
        {
            "name": "x",
            "tools": {
                "arguments": [{"tool": "R", "pointer": "/a", "exists": True, "occurrence": "every"}]
            },
        },
        "tools.arguments[0].occurrence",
        None,
    ),
    (
        "pointer without a slash",
        {"name": "x", "tools": {"arguments": [{"tool": "R", "pointer": "a", "exists": True}]}},
        "tools.arguments[0].pointer",
        None,
    ),
    (
        "pointer with a bad escape",
        {"name": "x", "tools": {"arguments": [{"tool": "R", "pointer": "/a~2", "exists": True}]}},
        "tools.arguments[0].pointer",
        None,
    ),
    (
        "argument without a tool",
        {"name": "x", "tools": {"arguments": [{"pointer": "/a", "exists": True}]}},
        "tools.arguments[0]",
        None,
    ),
    (
        "enforced false",
        {"name": "x", "tools": {"required": ["R"], "enforced": False}},
        "tools.enforced",
        None,
    ),
    ("retries empty", {"name": "x", "retries": {}}, "retries", None),
    ("reads empty", {"name": "x", "retries": {"reads": []}}, "retries.reads", None),
    (
        "writes duplicate tool",
        {"name": "x", "retries": {"writes": [{"tool": "p"}, {"tool": "p"}]}},
        "retries.writes",
        None,
    ),
    (
        "a tool both read and write",
        {"name": "x", "retries": {"reads": ["p"], "writes": [{"tool": "p"}]}},
        "retries",
        None,
    ),
    (
        "idempotencyKey empty pointer",
        {"name": "x", "retries": {"writes": [{"tool": "p", "idempotencyKey": ""}]}},
        "retries.writes[0].idempotencyKey",
        None,
    ),
    (
        "idempotencyKey not a pointer",
        {"name": "x", "retries": {"writes": [{"tool": "p", "idempotencyKey": "k"}]}},
        "retries.writes[0].idempotencyKey",
        None,
    ),
    (
        "llm.maxTotalTokens negative",
        {"name": "x", "llm": {"maxTotalTokens": -1}},
        "llm.maxTotalTokens",
        None,
    ),
    (
        "allowedModels duplicate",
        {"name": "x", "llm": {"allowedModels": ["m", "m"]}},
        "llm.allowedModels",
        None,
    ),
    ("rules empty", {"name": "x", "rules": []}, "rules", None),
    (
        "rule without label",
        {"name": "x", "rules": [{"kind": "eventually", "p": {"kind": "TOOL"}}]},
        "rules[0]",
        None,
    ),
    (
        "rule without kind",
        {"name": "x", "rules": [{"label": "r", "p": {"kind": "TOOL"}}]},
        "rules[0]",
        None,
    ),
    (
        "duplicate rule labels",
        {
            "name": "x",
            "rules": [
                {"kind": "eventually", "label": "r", "p": {"kind": "TOOL"}},
                {"kind": "never", "label": "r", "p": {"kind": "LLM"}},
            ],
        },
        "rules[1]",
        None,
    ),
    (
        "a hand-written label equal to a key's label",
        {
            "name": "x",
            "tools": {"allowed": ["R"]},
            "rules": [{"kind": "never", "label": "tools.allowed", "p": {"kind": "LLM"}}],
        },
        "rules[0]",
        None,
    ),
    (
        "alternatives empty",
        {"name": "x", "alternatives": {"anyOf": []}},
        "alternatives.anyOf",
        None,
    ),
    (
        "alternative without rules",
        {"name": "x", "alternatives": {"anyOf": [{"id": "a"}]}},
        "alternatives.anyOf[0]",
        None,
    ),
    (
        "alternative without id",
        {"name": "x", "alternatives": {"anyOf": [{"tools": {"required": ["R"]}}]}},
        "alternatives.anyOf[0]",
        None,
    ),
    (
        "alternative with a top-level key",
        {
            "name": "x",
            "alternatives": {"anyOf": [{"id": "a", "name": "n", "tools": {"required": ["R"]}}]},
        },
        "alternatives.anyOf[0]",
        'unknown key "name"',
    ),
    (
        "duplicate alternative ids",
        {
            "name": "x",
            "alternatives": {
                "anyOf": [
                    {"id": "a", "tools": {"required": ["R"]}},
                    {"id": "a", "tools": {"required": ["G"]}},
                ]
            },
        },
        "alternatives.anyOf[1].id",
        None,
    ),
    (
        "a nested location",
        {
            "name": "x",
            "alternatives": {
                "anyOf": [
                    {"id": "a", "tools": {"required": ["R"]}},
                    {"id": "b", "tools": {"required": [7]}},
                ]
            },
        },
        "alternatives.anyOf[1].tools.required[0]",
        None,
    ),
    ("scope without root", {"name": "x", "scope": {}, "tools": {"required": ["R"]}}, "scope", None),
    ("not an object", ["name"], "", None),
]


@pytest.mark.parametrize(
    ("doc", "location", "fragment"),
    [c[1:] for c in INVALID_DOCS],
    ids=[c[0] for c in INVALID_DOCS],
)
def test_invalid_documents_name_the_location(doc: Any, location: str, fragment: str | None) -> None:
    found = problems(doc)
    assert any(location in p for p in found), found
    if fragment is not None:
        assert any(fragment in p for p in found), found


# =============================================================================================
# §3 Predicates and low-level rules
# =============================================================================================

PREDICATE_CASES: list[tuple[str, dict[str, Any], Span, bool]] = [
    ("exact name", {"name": "fetch"}, sp("s", "fetch"), True),
    ("exact is not a search", {"name": "fetch"}, sp("s", "prefetch"), False),
    ("regex searches anywhere", {"name": {"$regex": "sea"}}, sp("s", "research"), True),
    ("regex flag i", {"name": {"$regex": "READ", "flags": "i"}}, sp("s", "ReadFile"), True),
    ("regex without i is case-sensitive", {"name": {"$regex": "READ"}}, sp("s", "ReadFile"), False),
    (
        "regex flags g and y are ignored",
        {"name": {"$regex": "a.c", "flags": "gy"}},
        sp("s", "xabc"),
        True,
    ),
    ("regex flag s", {"name": {"$regex": "a.c", "flags": "s"}}, sp("s", "a\nc"), True),
    ("regex flag m", {"name": {"$regex": "^c", "flags": "m"}}, sp("s", "a\nc"), True),
    ("oneOf", {"tool": {"oneOf": ["Read", "Grep"]}}, tool("s", "Grep"), True),
    ("oneOf misses", {"tool": {"oneOf": ["Read", "Grep"]}}, tool("s", "Bash"), False),
    ("a missing tool never matches", {"tool": {"$regex": ".*"}}, sp("s", "x"), False),
    ("not oneOf holds without a tool", {"not": {"tool": {"oneOf": ["Read"]}}}, sp("s", "x"), True),
    ("model matcher", {"model": {"$regex": "^gpt-4"}}, llm("s", "gpt-4o"), True),
    ("kind exact", {"kind": "LLM"}, llm("s"), True),
    ("fields AND together", {"kind": "TOOL", "tool": "Read"}, llm("s"), False),
    ("attr int", {"attr": {"http.status": 500}}, sp("s", attrs={"http.status": 500}), True),
    (
        "attr 500 is not '500'",
        {"attr": {"http.status": 500}},
        sp("s", attrs={"http.status": "500"}),
        False,
    ),
    (
        "attr '500' is not 500",
        {"attr": {"http.status": "500"}},
        sp("s", attrs={"http.status": 500}),
        False,
    ),
    ("attr true is not 1", {"attr": {"flag": True}}, sp("s", attrs={"flag": 1}), False),
    ("attr 1 is not true", {"attr": {"flag": 1}}, sp("s", attrs={"flag": True}), False),
    ("attr 1 equals 1.0", {"attr": {"n": 1}}, sp("s", attrs={"n": 1.0}), True),
    ("attr 0 is not false", {"attr": {"n": 0}}, sp("s", attrs={"n": False}), False),
    ("attr missing matches nothing", {"attr": {"n": None}}, sp("s"), False),
    ("attr null equals null", {"attr": {"n": None}}, sp("s", attrs={"n": None}), True),
    (
        "attr regex on a string",
        {"attr": {"u": {"$regex": "^https"}}},
        sp("s", attrs={"u": "https://x"}),
        True,
    ),
    (
        "attr regex needs a string",
        {"attr": {"n": {"$regex": "5"}}},
        sp("s", attrs={"n": 500}),
        False,
    ),
    ("attr list", {"attr": {"l": ["a", 1]}}, sp("s", attrs={"l": ["a", 1.0]}), True),
    (
        "attr list order matters",
        {"attr": {"l": ["a", "b"]}},
        sp("s", attrs={"l": ["b", "a"]}),
        False,
    ),
    (
        "attr several keys all match",
        {"attr": {"a": 1, "b": 2}},
        sp("s", attrs={"a": 1, "b": 3}),
        False,
    ),
    ("not of a kind", {"not": {"kind": "TOOL"}}, tool("s", "R"), False),
]


@pytest.mark.parametrize(
    ("p", "span", "matches"),
    [c[1:] for c in PREDICATE_CASES],
    ids=[c[0] for c in PREDICATE_CASES],
)
def test_predicate_matching(p: dict[str, Any], span: Span, matches: bool) -> None:
    verdict = run_check(low("eventually", p=p), [span])
    assert verdict.status == ("pass" if matches else "fail")


DESCRIPTION_CASES: list[tuple[dict[str, Any], str]] = [
    (
        {"not": {"tool": {"oneOf": ["Read", "Grep"]}}, "kind": "TOOL"},
        "kind=TOOL,not(tool=oneOf(Read|Grep))",
    ),
    (
        {
            "not": {"kind": "LLM"},
            "attr": {"k": 1},
            "model": "m",
            "tool": "t",
            "name": "n",
            "kind": "TOOL",
        },
        "kind=TOOL,name=n,tool=t,model=m,attr.k=1,not(kind=LLM)",
    ),
    ({"name": {"$regex": "^a.b", "flags": "i"}}, "name=/^a.b/i"),
    ({"name": {"$regex": "x"}}, "name=/x/"),
    ({"attr": {"k": "v"}}, 'attr.k="v"'),
    ({"attr": {"k": {"$regex": "v+", "flags": "m"}}}, "attr.k=/v+/m"),
    ({"attr": {"k": True}}, "attr.k=true"),
]


@pytest.mark.parametrize(("p", "text"), DESCRIPTION_CASES)
def test_predicate_descriptions_in_messages(p: dict[str, Any], text: str) -> None:
    verdict = run_check(low("eventually", p=p), [])
    assert outcome(verdict) == (
        "fail",
        [(None, f"no span matches eventually({text}) over 0 span(s)")],
    )


def test_the_explained_example_description() -> None:
    doc = {"tools": {"allowed": ["Read", "Grep"]}}
    verdict = run_check(doc, [tool("t", "Bash")])
    assert outcome(verdict) == (
        "fail",
        [("t", 'span t ("execute_tool Bash") matches never(kind=TOOL,not(tool=oneOf(Read|Grep)))')],
    )


# (id, rules entry or predicate-bearing document, a fragment every problem list must carry)
BAD_RULES: list[tuple[str, dict[str, Any], str]] = [
    ("lower-case kind suggests upper", low("never", p={"kind": "tool"}), '"TOOL"'),
    ("unknown kind value", low("never", p={"kind": "FUNCTION"}), "rules[0].p.kind"),
    ("empty predicate", low("never", p={}), "rules[0].p"),
    ("unknown predicate key", low("never", p={"tools": "R"}), 'did you mean "tool"?'),
    (
        "unknown regex flag",
        low("never", p={"name": {"$regex": "a", "flags": "q"}}),
        "rules[0].p.name",
    ),
    ("invalid regex", low("never", p={"name": {"$regex": "("}}), "rules[0].p.name"),
    ("empty oneOf matcher", low("never", p={"name": {"oneOf": []}}), "rules[0].p.name"),
    ("unknown rule kind", low("eventualy", p={"kind": "TOOL"}), 'did you mean "eventually"?'),
    ("precedes without b", low("precedes", a={"kind": "TOOL"}), "rules[0]"),
    (
        "precedes with a bad order",
        low("precedes", a={"kind": "TOOL"}, b={"kind": "LLM"}, order="finish"),
        "rules[0].order",
    ),
    ("atMost negative", low("atMost", p={"kind": "TOOL"}, max=-1), "rules[0].max"),
    ("tokensAtMost fractional", low("tokensAtMost", p={"kind": "LLM"}, max=1.5), "rules[0].max"),
    ("run rule with nothing", low("run"), "rules[0]"),
    ("retrySafe with nothing", low("retrySafe"), "rules[0]"),
    (
        "argument with a bad op",
        low("argument", p={"kind": "TOOL"}, pointer="/a", check={"op": "equal", "value": 1}),
        'did you mean "equals"?',
    ),
    (
        "argument oneOf without values",
        low("argument", p={"kind": "TOOL"}, pointer="/a", check={"op": "oneOf"}),
        "rules[0].check",
    ),
    ("unknown key in a rule", low("never", p={"kind": "TOOL"}, max=3), 'unknown key "max"'),
    (
        "a nested rule location",
        {
            "rules": [
                low("never", p={"kind": "TOOL"})["rules"][0] | {"label": "a"},
                low("never", p={"kind": "TOOL"})["rules"][0] | {"label": "b"},
                {"kind": "never", "label": "c", "p": {"kind": "tool"}},
            ]
        },
        "rules[2].p.kind",
    ),
]


@pytest.mark.parametrize(
    ("doc", "fragment"), [c[1:] for c in BAD_RULES], ids=[c[0] for c in BAD_RULES]
)
def test_bad_predicates_and_rules_are_refused(doc: dict[str, Any], fragment: str) -> None:
    found = problems({"name": "x", **doc})
    assert any(fragment in p for p in found), found


def test_scope_root_kind_is_upper_cased_but_rule_kinds_are_not() -> None:
    compile_contract(
        {"name": "x", "scope": {"root": {"kind": "agent"}}, "tools": {"required": ["R"]}}
    )
    found = problems(
        {
            "name": "x",
            "scope": {"root": {"kind": "agent", "not": {"kind": "tool"}}},
            "tools": {"required": ["R"]},
        }
    )
    assert any("scope.root.not.kind" in p and '"TOOL"' in p for p in found), found


def test_a_slow_regex_is_an_evaluation_error_not_a_hang() -> None:
    doc = low("never", p={"name": {"$regex": "^(a|a)*$"}})
    verdict = run_check(doc, [sp("s", "a" * 30 + "!")])
    assert verdict.status == "error"
    status, found = outcome(verdict)
    assert status == "error" and found and found[0][1]


# =============================================================================================
# §4 Rule semantics
# =============================================================================================

BASIC_CASES: list[tuple[str, dict[str, Any], list[Span], Outcome]] = [
    ("always over no spans", low("always", p={"kind": "TOOL"}), [], PASS()),
    (
        "always names each failing span",
        low("always", p={"kind": "TOOL"}),
        [tool("t", "R"), llm("l"), sp("s", "x")],
        (
            "fail",
            [
                ("l", 'span l ("chat") fails always(kind=TOOL)'),
                ("s", 'span s ("x") fails always(kind=TOOL)'),
            ],
        ),
    ),
    ("never over no spans", low("never", p={"kind": "TOOL"}), [], PASS()),
    (
        "never names each matching span",
        low("never", p={"tool": "Bash"}),
        [tool("t1", "Bash"), tool("t2", "Read"), tool("t3", "Bash")],
        (
            "fail",
            [
                ("t1", 'span t1 ("execute_tool Bash") matches never(tool=Bash)'),
                ("t3", 'span t3 ("execute_tool Bash") matches never(tool=Bash)'),
            ],
        ),
    ),
    (
        "eventually over no spans fails",
        low("eventually", p={"kind": "TOOL"}),
        [],
        ("fail", [(None, "no span matches eventually(kind=TOOL) over 0 span(s)")]),
    ),
    (
        "a span without an id is referred to by its index",
        low("never", p={"name": "x"}),
        [sp("a", "y"), sp(None, "x")],
        ("fail", [(None, 'span #1 ("x") matches never(name=x)')]),
    ),
    (
        "atMost at the limit",
        low("atMost", p={"kind": "TOOL"}, max=2),
        [tool("a", "R"), tool("b", "R")],
        PASS(),
    ),
    (
        "atMost names the (max+1)-th match",
        low("atMost", p={"kind": "TOOL"}, max=1),
        [tool("a", "R"), llm("l"), tool("b", "R"), tool("c", "R")],
        ("fail", [("b", "3 span(s) match kind=TOOL, over the limit of 1")]),
    ),
    (
        "atMost zero names the first match",
        low("atMost", p={"tool": "Bash"}, max=0),
        [tool("a", "R"), tool("b", "Bash")],
        ("fail", [("b", "1 span(s) match tool=Bash, over the limit of 0")]),
    ),
    (
        "tokensAtMost with no match",
        low("tokensAtMost", p={"kind": "LLM", "model": "other"}, max=0),
        [tool("t", "R"), llm("a", inp=10, out=5)],
        PASS(),
    ),
    (
        "tokensAtMost at the limit",
        low("tokensAtMost", p={"kind": "LLM"}, max=30),
        [llm("a", inp=10, out=5), llm("b", inp=10, out=5)],
        PASS(),
    ),
    (
        "tokensAtMost over the limit",
        low("tokensAtMost", p={"kind": "LLM"}, max=29),
        [llm("a", inp=10, out=5), llm("b", inp=10, out=5)],
        ("fail", [(None, "30 tokens across 2 span(s) matching kind=LLM, over the limit of 29")]),
    ),
    (
        "tokensAtMost: one unknown total names the first unknown span only",
        low("tokensAtMost", p={"kind": "LLM"}, max=10**6),
        [llm("a", inp=10, out=5), llm("b", inp=10), llm("c")],
        (
            "fail",
            [
                (
                    "b",
                    "span b has no recorded input and output token counts, so the total is unknown",
                )
            ],
        ),
    ),
]


@pytest.mark.parametrize(
    ("doc", "spans", "expected"), [c[1:] for c in BASIC_CASES], ids=[c[0] for c in BASIC_CASES]
)
def test_basic_operators(doc: dict[str, Any], spans: list[Span], expected: Outcome) -> None:
    assert outcome(run_check(doc, spans)) == expected


def order(mode: str | None = None) -> dict[str, Any]:
    tools: dict[str, Any] = {"requiredOrder": ["a", "b"]}
    if mode is not None:
        tools["orderMode"] = mode
    return {"tools": tools}


B_NOT_A = "kind=TOOL,tool=b is not preceded by kind=TOOL,tool=a: "

ORDER_CASES: list[tuple[str, dict[str, Any], list[Span], Outcome]] = [
    (
        "both missing: two violations",
        order(),
        [tool("x", "c", 0, 1)],
        (
            "fail",
            [
                (None, "required predecessor kind=TOOL,tool=a never occurred"),
                (None, "required successor kind=TOOL,tool=b never occurred"),
            ],
        ),
    ),
    (
        "predecessor missing",
        order(),
        [tool("y", "b", 0, 1)],
        ("fail", [(None, "required predecessor kind=TOOL,tool=a never occurred")]),
    ),
    (
        "successor missing",
        order(),
        [tool("x", "a", 0, 1)],
        ("fail", [(None, "required successor kind=TOOL,tool=b never occurred")]),
    ),
    (
        "overlap passes start-order",
        order(),
        [tool("r", "a", 0, 50), tool("s", "b", 10, 60)],
        PASS(),
    ),
    (
        "overlap fails finish-before-start",
        order("finish-before-start"),
        [tool("r", "a", 0, 50), tool("s", "b", 10, 60)],
        ("fail", [("s", B_NOT_A + "span s has no match that finished before it started")]),
    ),
    (
        "end at exactly the start passes finish-before-start",
        order("finish-before-start"),
        [tool("r", "a", 0, 10), tool("s", "b", 10, 60)],
        PASS(),
    ),
    (
        "same start fails start-order",
        order(),
        [tool("r", "a", 10, 20), tool("s", "b", 10, 30)],
        ("fail", [("s", B_NOT_A + "span s has no match that started before it")]),
    ),
    (
        "array position is not evidence: later in the array but earlier in time",
        order(),
        [tool("s", "b", 10, 20), tool("r", "a", 0, 5)],
        PASS(),
    ),
    (
        "array position is not evidence: no timestamps",
        order(),
        [tool("r", "a"), tool("s", "b")],
        ("fail", [("s", B_NOT_A + "span s has no start time, so its order cannot be proven")]),
    ),
    (
        "a candidate without a start",
        order(),
        [tool("r", "a", None, 5), tool("s", "b", 10, 20)],
        ("fail", [("s", B_NOT_A + "span r has no start time, so its order cannot be proven")]),
    ),
    (
        "mixed timed and untimed candidates pass start-order",
        order(),
        [tool("r1", "a"), tool("r2", "a", 0, 5), tool("s", "b", 10, 20)],
        PASS(),
    ),
    (
        "a candidate without an end in finish-before-start",
        order("finish-before-start"),
        [tool("r", "a", 0, None), tool("s", "b", 10, 20)],
        ("fail", [("s", B_NOT_A + "span r has no end time, so its order cannot be proven")]),
    ),
    (
        "finish-before-start needs one witness",
        order("finish-before-start"),
        [tool("r1", "a", 0, 5), tool("r2", "a", 8, 30), tool("s", "b", 10, 20)],
        PASS(),
    ),
    (
        "every b needs its own witness",
        order(),
        [tool("s1", "b", 0, 1), tool("r", "a", 5, 6), tool("s2", "b", 10, 20)],
        ("fail", [("s1", B_NOT_A + "span s1 has no match that started before it")]),
    ),
    (
        "all-occurrences passes when every a ends first",
        order("all-occurrences"),
        [tool("r1", "a", 0, 5), tool("r2", "a", 6, 9), tool("s", "b", 10, 20)],
        PASS(),
    ),
    (
        "all-occurrences fails on a later a",
        order("all-occurrences"),
        [tool("r1", "a", 0, 5), tool("s", "b", 10, 20), tool("r2", "a", 30, 40)],
        ("fail", [("s", B_NOT_A + "span r2 ends after span s starts")]),
    ),
    (
        "all-occurrences needs every end",
        order("all-occurrences"),
        [tool("r1", "a", 0, None), tool("s", "b", 10, 20)],
        ("fail", [("s", B_NOT_A + "span r1 has no end time, so its order cannot be proven")]),
    ),
    (
        "all-occurrences: equality passes",
        order("all-occurrences"),
        [tool("r1", "a", 0, 10), tool("s", "b", 10, 20)],
        PASS(),
    ),
    (
        "a successor without a start",
        order("finish-before-start"),
        [tool("r", "a", 0, 1), tool("s", "b", None, 20)],
        ("fail", [("s", B_NOT_A + "span s has no start time, so its order cannot be proven")]),
    ),
]


@pytest.mark.parametrize(
    ("doc", "spans", "expected"), [c[1:] for c in ORDER_CASES], ids=[c[0] for c in ORDER_CASES]
)
def test_required_order_and_the_three_modes(
    doc: dict[str, Any], spans: list[Span], expected: Outcome
) -> None:
    assert outcome(run_check(doc, spans), "tools.requiredOrder[a->b]") == expected


LOW_ORDER_CASES: list[tuple[str, dict[str, Any], list[Span], Outcome]] = [
    (
        "a span never witnesses itself",
        low("precedes", a={"kind": "TOOL"}, b={"tool": "x"}),
        [tool("s", "x", 0, 1)],
        ("fail", [("s", "tool=x is not preceded by kind=TOOL: span s has no earlier match")]),
    ),
    (
        "another span of the same kind witnesses",
        low("precedes", a={"kind": "TOOL"}, b={"tool": "x"}),
        [tool("r", "y", 0, 1), tool("s", "x", 2, 3)],
        PASS(),
    ),
    (
        "neverUnless with no p passes",
        low("neverUnless", p={"tool": "pay"}, prior={"tool": "confirm"}),
        [tool("a", "other", 0, 1)],
        PASS(),
    ),
    (
        "neverUnless without any prior",
        low("neverUnless", p={"tool": "pay"}, prior={"tool": "confirm"}),
        [tool("a", "pay", 0, 1)],
        ("fail", [("a", "tool=pay without an earlier tool=confirm: span a has no earlier match")]),
    ),
    (
        "neverUnless with a later prior",
        low("neverUnless", p={"tool": "pay"}, prior={"tool": "confirm"}),
        [tool("a", "pay", 5, 6), tool("c", "confirm", 7, 8)],
        (
            "fail",
            [
                (
                    "a",
                    "tool=pay without an earlier tool=confirm: span a has no match that started before it",
                )
            ],
        ),
    ),
    (
        "neverUnless in finish-before-start",
        low(
            "neverUnless", p={"tool": "pay"}, prior={"tool": "confirm"}, order="finish-before-start"
        ),
        [tool("c", "confirm", 0, 6), tool("a", "pay", 5, 6)],
        (
            "fail",
            [
                (
                    "a",
                    "tool=pay without an earlier tool=confirm: span a has no match that finished before it started",
                )
            ],
        ),
    ),
    (
        "neverUnless witnessed",
        low("neverUnless", p={"tool": "pay"}, prior={"tool": "confirm"}),
        [tool("c", "confirm", 0, 1), tool("a", "pay", 5, 6)],
        PASS(),
    ),
]


@pytest.mark.parametrize(
    ("doc", "spans", "expected"),
    [c[1:] for c in LOW_ORDER_CASES],
    ids=[c[0] for c in LOW_ORDER_CASES],
)
def test_precedes_and_never_unless(
    doc: dict[str, Any], spans: list[Span], expected: Outcome
) -> None:
    assert outcome(run_check(doc, spans)) == expected


RUN_CASES: list[tuple[str, dict[str, Any], RunRecord, Outcome]] = [
    (
        "completed within the limit",
        {"requireCompleted": True, "maxDurationMs": 1000},
        RunRecord("completed", 0, 1000 * MS),
        PASS(),
    ),
    (
        "all three fail in order",
        {
            "maxDurationMs": 1000,
            "allowedStatuses": ["completed", "running"],
            "requireCompleted": True,
        },
        RunRecord("failed", 0, 1500 * MS),
        (
            "fail",
            [
                (None, "run status is failed, not completed"),
                (None, "run status failed is not one of completed, running"),
                (None, "run took 1500 ms, over 1000 ms"),
            ],
        ),
    ),
    (
        "unknown status is not allowed",
        {"allowedStatuses": ["failed"]},
        RunRecord(None, 0, 1),
        ("fail", [(None, "run status unknown is not one of failed")]),
    ),
    (
        "running may be allowed",
        {"allowedStatuses": ["running"]},
        RunRecord("running", 0, None),
        PASS(),
    ),
    (
        "unknown duration",
        {"maxDurationMs": 1000},
        RunRecord("completed", None, 5),
        ("fail", [(None, "run duration is unknown: start or end time is missing")]),
    ),
    (
        "running is not completed",
        {"requireCompleted": True},
        RunRecord("running", 0, None),
        ("fail", [(None, "run status is running, not completed")]),
    ),
]


@pytest.mark.parametrize(
    ("keys", "run", "expected"), [c[1:] for c in RUN_CASES], ids=[c[0] for c in RUN_CASES]
)
def test_run_rule(keys: dict[str, Any], run: RunRecord, expected: Outcome) -> None:
    assert outcome(run_check({"run": keys}, [sp("a"), sp("b")], run)) == expected
    assert outcome(run_check(low("run", **keys), [sp("a"), sp("b")], run)) == expected


def arg(tool_name: str = "Run", pointer: str = "/a", **check: Any) -> dict[str, Any]:
    return {"tools": {"arguments": [{"tool": tool_name, "pointer": pointer, **check}]}}


ARGUMENT_CASES: list[tuple[str, dict[str, Any], list[Span], Outcome]] = [
    (
        "no matching span",
        arg(exists=True),
        [tool("t", "Other", args={"a": 1})],
        (
            "fail",
            [
                (
                    None,
                    "no span matches kind=TOOL,tool=Run, so there is no argument evidence to check",
                )
            ],
        ),
    ),
    ("exists passes for null", arg(exists=True), [tool("t", "Run", args={"a": None})], PASS()),
    (
        "absent",
        arg(exists=True),
        [tool("t", "Run", args={"b": 1})],
        ("fail", [("t", "span t: argument /a is absent")]),
    ),
    ("1 equals 1.0", arg(equals=1), [tool("t", "Run", args={"a": 1.0})], PASS()),
    ("1.0 equals 1", arg(equals=1.0), [tool("t", "Run", args={"a": 1})], PASS()),
    (
        "true is not 1",
        arg(equals=1),
        [tool("t", "Run", args={"a": True})],
        ("fail", [("t", "span t: argument /a (a boolean) does not equal the expected value")]),
    ),
    (
        "1 is not true",
        arg(equals=True),
        [tool("t", "Run", args={"a": 1})],
        ("fail", [("t", "span t: argument /a (a number) does not equal the expected value")]),
    ),
    (
        "the string is not the number",
        arg(equals=42),
        [tool("t", "Run", args={"a": "42"})],
        ("fail", [("t", "span t: argument /a (a string) does not equal the expected value")]),
    ),
    (
        "objects compare regardless of key order",
        arg(equals={"x": 1, "y": [1, 2]}),
        [tool("t", "Run", args={"a": {"y": [1.0, 2], "x": 1}})],
        PASS(),
    ),
    (
        "arrays compare in order",
        arg(equals=[1, 2]),
        [tool("t", "Run", args={"a": [2, 1]})],
        ("fail", [("t", "span t: argument /a (an array) does not equal the expected value")]),
    ),
    ("equals null", arg(equals=None), [tool("t", "Run", args={"a": None})], PASS()),
    (
        "equals null but absent",
        arg(equals=None),
        [tool("t", "Run", args={})],
        ("fail", [("t", "span t: argument /a is absent")]),
    ),
    ("oneOf", arg(oneOf=["x", 2]), [tool("t", "Run", args={"a": 2.0})], PASS()),
    (
        "not one of",
        arg(oneOf=["x", 2]),
        [tool("t", "Run", args={"a": {"k": "secret-value"}})],
        ("fail", [("t", "span t: argument /a (an object) is not one of the expected values")]),
    ),
    ("type number", arg(type="number"), [tool("t", "Run", args={"a": 1.5})], PASS()),
    (
        "a boolean is not a number",
        arg(type="number"),
        [tool("t", "Run", args={"a": False})],
        ("fail", [("t", "span t: argument /a is a boolean, not a number")]),
    ),
    (
        "type article",
        arg(type="array"),
        [tool("t", "Run", args={"a": {}})],
        ("fail", [("t", "span t: argument /a is an object, not an array")]),
    ),
    ("type null", arg(type="null"), [tool("t", "Run", args={"a": None})], PASS()),
    ("whole value", arg(pointer="", type="object"), [tool("t", "Run", args={"a": 1})], PASS()),
    ("~1 is a slash", arg(pointer="/a~1b", equals=1), [tool("t", "Run", args={"a/b": 1})], PASS()),
    ("~0 is a tilde", arg(pointer="/a~0b", equals=1), [tool("t", "Run", args={"a~b": 1})], PASS()),
    (
        "~01 is ~1 literally",
        arg(pointer="/a~01", equals=1),
        [tool("t", "Run", args={"a~1": 1})],
        PASS(),
    ),
    (
        "array index",
        arg(pointer="/items/1/id", equals=7),
        [tool("t", "Run", args={"items": [{"id": 1}, {"id": 7}]})],
        PASS(),
    ),
    (
        "dash is absent",
        arg(pointer="/items/-", exists=True),
        [tool("t", "Run", args={"items": [1]})],
        ("fail", [("t", "span t: argument /items/- is absent")]),
    ),
    (
        "leading zero is absent",
        arg(pointer="/items/01", exists=True),
        [tool("t", "Run", args={"items": [1, 2]})],
        ("fail", [("t", "span t: argument /items/01 is absent")]),
    ),
    (
        "out of range is absent",
        arg(pointer="/items/2", exists=True),
        [tool("t", "Run", args={"items": [1, 2]})],
        ("fail", [("t", "span t: argument /items/2 is absent")]),
    ),
    (
        "a number key into an object",
        arg(pointer="/m/0", equals=1),
        [tool("t", "Run", args={"m": {"0": 1}})],
        PASS(),
    ),
    (
        "into a scalar is absent",
        arg(pointer="/a/b", exists=True),
        [tool("t", "Run", args={"a": "text"})],
        ("fail", [("t", "span t: argument /a/b is absent")]),
    ),
    ("the empty key", arg(pointer="/", equals=1), [tool("t", "Run", args={"": 1})], PASS()),
    (
        "all: one violation per failing call",
        arg(equals=1),
        [
            tool("t1", "Run", 0, 1, args={"a": 2}),
            tool("t2", "Run", 2, 3, args={"a": 1}),
            tool("t3", "Run", 4, 5, args={}),
        ],
        (
            "fail",
            [
                ("t1", "span t1: argument /a (a number) does not equal the expected value"),
                ("t3", "span t3: argument /a is absent"),
            ],
        ),
    ),
    (
        "any: one fine call passes",
        arg(equals=1, occurrence="any"),
        [tool("t1", "Run", args={"a": 2}), tool("t2", "Run", args={"a": 1})],
        PASS(),
    ),
    (
        "any: all failing",
        arg(equals=1, occurrence="any"),
        [tool("t1", "Run", args={"a": 2}), tool("t2", "Run")],
        (
            "fail",
            [
                ("t1", "span t1: argument /a (a number) does not equal the expected value"),
                ("t2", "span t2: the span carries no argument evidence"),
            ],
        ),
    ),
    (
        "first is the earliest start, not array order",
        arg(equals=1, occurrence="first"),
        [tool("t1", "Run", 5, 6, args={"a": 2}), tool("t2", "Run", 1, 2, args={"a": 1})],
        PASS(),
    ),
    (
        "last is the latest start",
        arg(equals=1, occurrence="last"),
        [tool("t1", "Run", 5, 6, args={"a": 2}), tool("t2", "Run", 1, 2, args={"a": 1})],
        ("fail", [("t1", "span t1: argument /a (a number) does not equal the expected value")]),
    ),
    (
        "first: ties keep array order",
        arg(equals=1, occurrence="first"),
        [tool("t1", "Run", 1, 2, args={"a": 1}), tool("t2", "Run", 1, 2, args={"a": 2})],
        PASS(),
    ),
    (
        "last: ties keep array order",
        arg(equals=1, occurrence="last"),
        [tool("t1", "Run", 1, 2, args={"a": 1}), tool("t2", "Run", 1, 2, args={"a": 2})],
        ("fail", [("t2", "span t2: argument /a (a number) does not equal the expected value")]),
    ),
    (
        "first needs every start when several match",
        arg(equals=1, occurrence="first"),
        [tool("t1", "Run", 1, 2, args={"a": 1}), tool("t2", "Run", None, 2, args={"a": 1})],
        ("fail", [("t2", "span t2 has no start time, so the first call cannot be chosen")]),
    ),
    (
        "first with one untimed match",
        arg(equals=1, occurrence="first"),
        [tool("t1", "Run", args={"a": 1})],
        PASS(),
    ),
    (
        "first checks only the chosen call",
        arg(equals=1, occurrence="first"),
        [tool("t1", "Run", 1, 2, args={"a": 1}), tool("t2", "Run", 3, 4)],
        PASS(),
    ),
]


@pytest.mark.parametrize(
    ("doc", "spans", "expected"),
    [c[1:] for c in ARGUMENT_CASES],
    ids=[c[0] for c in ARGUMENT_CASES],
)
def test_argument_checks(doc: dict[str, Any], spans: list[Span], expected: Outcome) -> None:
    assert outcome(run_check(doc, spans)) == expected


def test_argument_messages_never_echo_the_value() -> None:
    secret = "sk-" + "x" * 12
    for check_keys in ({"equals": "other"}, {"oneOf": ["a"]}, {"type": "number"}):
        verdict = run_check(arg(**check_keys), [tool("t", "Run", args={"a": secret})])
        assert verdict.status == "fail"
        assert all(secret not in v.detail for r in verdict.rules for v in r.violations)


def test_low_level_argument_rule() -> None:
    doc = low(
        "argument",
        p={"tool": "Run"},
        pointer="/a",
        check={"op": "type", "type": "string"},
        occurrence="any",
    )
    assert run_check(doc, [tool("t", "Run", args={"a": "x"})]).status == "pass"
    doc = low("argument", p={"tool": "Run"}, pointer="/a", check={"op": "equals", "value": None})
    assert run_check(doc, [tool("t", "Run", args={"a": None})]).status == "pass"
    assert outcome(run_check(doc, [])) == (
        "fail",
        [(None, "no span matches tool=Run, so there is no argument evidence to check")],
    )


CONNECTORS = [f"mcp__c__t{i}" for i in range(1, 9)]
ENFORCED = {"tools": {"allowed": ["Read", "Grep"], "enforced": True}}
NO_RECORD = "no span records the tools offered to the model (gen_ai.tool.definitions), so what the harness enforced is unknown"

OFFERED_CASES: list[tuple[str, dict[str, Any], list[Span], Outcome]] = [
    (
        "claude -p with connector tools",
        ENFORCED,
        [offering("l", json.dumps(["Read", "Grep", *CONNECTORS])), tool("t", "Read")],
        (
            "fail",
            [
                (
                    "l",
                    "span l offered the model 8 undeclared tool(s): "
                    + ", ".join(CONNECTORS[:6])
                    + " and 2 more",
                )
            ],
        ),
    ),
    (
        "--strict-mcp-config",
        ENFORCED,
        [offering("l", json.dumps(["Read", "Grep"])), tool("t", "Read")],
        PASS(),
    ),
    (
        "entries as objects and function objects",
        ENFORCED,
        [
            offering("l", [{"name": "Read"}, {"type": "function", "function": {"name": "Grep"}}]),
            tool("t", "Grep"),
        ],
        PASS(),
    ),
    (
        "OpenInference json_schema attributes",
        ENFORCED,
        [
            llm(
                "l",
                attrs={
                    "llm.tools.0.tool.json_schema": json.dumps(
                        {"type": "function", "function": {"name": "Read"}}
                    ),
                    "llm.tools.1.tool.json_schema": json.dumps({"name": "Grep"}),
                },
            ),
            tool("t", "Read"),
        ],
        PASS(),
    ),
    (
        "exactly six undeclared: no 'more'",
        ENFORCED,
        [offering("l", CONNECTORS[:6])],
        (
            "fail",
            [("l", "span l offered the model 6 undeclared tool(s): " + ", ".join(CONNECTORS[:6]))],
        ),
    ),
    (
        "no record at all: one violation only",
        ENFORCED,
        [tool("t", "Bash"), tool("u", None)],
        ("fail", [(None, NO_RECORD)]),
    ),
    (
        "not a list",
        {"tools": {"required": ["Read"], "enforced": True}},
        [offering("l", json.dumps({"name": "Read"})), tool("t", "Read")],
        (
            "fail",
            [
                ("l", "span l: gen_ai.tool.definitions is not a list"),
                (
                    "t",
                    "span t called Read, which was never offered: the harness did not enforce its tool set",
                ),
            ],
        ),
    ),
    (
        "an entry without a name",
        {"tools": {"required": ["Read"], "enforced": True}},
        [offering("l", [{"name": "Read"}, {"description": "nameless"}]), tool("t", "Read")],
        ("fail", [("l", "span l: gen_ai.tool.definitions has an entry without a tool name")]),
    ),
    (
        "a call never offered",
        {"tools": {"required": ["Read"], "enforced": True}},
        [offering("l", ["Read"]), tool("t", "Read"), tool("b", "Bash")],
        (
            "fail",
            [
                (
                    "b",
                    "span b called Bash, which was never offered: the harness did not enforce its tool set",
                )
            ],
        ),
    ),
    (
        "a call without a tool name",
        {"tools": {"required": ["Read"], "enforced": True}},
        [offering("l", ["Read"]), tool("t", "Read"), tool("u", None)],
        ("fail", [("u", "span u has no tool name, so it cannot be matched to an offered tool")]),
    ),
    (
        "offered names are unioned across spans",
        {"tools": {"required": ["Read"], "enforced": True}},
        [offering("l1", ["Read"]), offering("l2", ["Bash"]), tool("t", "Read"), tool("b", "Bash")],
        PASS(),
    ),
    (
        "an empty offered list with no calls passes",
        {"tools": {"maxCalls": 0, "enforced": True}},
        [offering("l", [])],
        PASS(),
    ),
    (
        "an empty offered list fails any call",
        {"tools": {"required": ["Read"], "enforced": True}},
        [offering("l", "[]"), tool("t", "Read")],
        (
            "fail",
            [
                (
                    "t",
                    "span t called Read, which was never offered: the harness did not enforce its tool set",
                )
            ],
        ),
    ),
]


@pytest.mark.parametrize(
    ("doc", "spans", "expected"), [c[1:] for c in OFFERED_CASES], ids=[c[0] for c in OFFERED_CASES]
)
def test_tools_enforced(doc: dict[str, Any], spans: list[Span], expected: Outcome) -> None:
    assert outcome(run_check(doc, spans), "tools.enforced") == expected


def test_low_level_tools_offered_without_declared_set() -> None:
    doc = low("toolsOffered")
    assert run_check(doc, [offering("l", ["Read", "Bash"]), tool("t", "Bash")]).status == "pass"
    doc = low("toolsOffered", declared=["Read"])
    assert outcome(run_check(doc, [offering("l", ["Read", "Bash"])])) == (
        "fail",
        [("l", "span l offered the model 1 undeclared tool(s): Bash")],
    )


KEY = "/idempotency_key"
PAY = {"tool": "charge_card", "idempotencyKey": KEY}
CHARGE = {"amount": 42.5, "currency": "EUR"}


def charge(sid: str, key: Any = ABSENT, *, status: str | None = None, **args: Any) -> Span:
    body: dict[str, Any] = {**CHARGE, **args}
    if key is not ABSENT:
        body["idempotency_key"] = key
    return tool(sid, "charge_card", args=body, status=status)


def retries(**keys: Any) -> dict[str, Any]:
    return {"retries": keys}


def same(name: str, n: int) -> str:
    return f"{name} was called {n} times with the same arguments"


RETRY_CASES: list[tuple[str, dict[str, Any], list[Span], Outcome]] = [
    (
        "§8: a timed-out first call and the same key",
        retries(writes=[PAY]),
        [charge("c1", "k-1", status="error"), charge("c2", "k-1")],
        PASS(),
    ),
    (
        "§8: the same write without a key pointer",
        retries(writes=[{"tool": "charge_card"}]),
        [charge("c1", "k-1", status="error"), charge("c2", "k-1")],
        (
            "fail",
            [
                (
                    "c2",
                    "write "
                    + same("charge_card", 2)
                    + " (spans c1, c2) and declares no idempotency key, so it may have applied more than once",
                ),
                (
                    "c1",
                    "write charge_card (span c1) errored and declares no idempotency key; its outcome is unknown, so a retry cannot be proven safe",
                ),
            ],
        ),
    ),
    (
        "a repeat of an undeclared tool",
        retries(reads=["lookup"]),
        [
            tool("s1", "search", args={"q": "a", "n": 1}),
            tool("s2", "search", args={"n": 1.0, "q": "a"}),
        ],
        (
            "fail",
            [
                (
                    "s2",
                    same("search", 2)
                    + " (spans s1, s2) and its side effect is not declared, so the repeat is not proven safe",
                )
            ],
        ),
    ),
    (
        "42.5 and '42.50' are different arguments",
        retries(reads=["lookup"]),
        [tool("s1", "search", args={"n": 42.5}), tool("s2", "search", args={"n": "42.50"})],
        PASS(),
    ),
    (
        "reads repeat freely, errors included",
        retries(reads=["lookup"]),
        [tool("s1", "lookup", args={"q": 1}, status="error"), tool("s2", "lookup", args={"q": 1})],
        PASS(),
    ),
    (
        "different arguments are different calls",
        retries(reads=["lookup"]),
        [tool("s1", "search", args={"q": 1}), tool("s2", "search", args={"q": 2})],
        PASS(),
    ),
    (
        "a call without a tool name",
        retries(reads=["lookup"]),
        [tool("u", None, args={})],
        ("fail", [("u", "span u has no tool name, so whether it repeats a call is unknown")]),
    ),
    (
        "unseen arguments on a repeated tool",
        retries(reads=["lookup"]),
        [tool("s1", "search", args={"q": 1}), tool("s2", "search")],
        (
            "fail",
            [
                (
                    "s2",
                    "search was called 2 times and span s2 has no captured arguments, so whether a call repeats another is unknown",
                )
            ],
        ),
    ),
    ("a single unseen call is fine", retries(reads=["lookup"]), [tool("s1", "search")], PASS()),
    (
        "a repeated write without a key at the pointer",
        retries(writes=[PAY]),
        [charge("c1", "k-1"), charge("c2")],
        (
            "fail",
            [
                (
                    "c2",
                    "write "
                    + same("charge_card", 2)
                    + f" (spans c1, c2); span c2 has no idempotency key at {KEY}, so it may have applied more than once",
                )
            ],
        ),
    ),
    (
        "two different keys",
        retries(writes=[PAY]),
        [charge("c1", "k-1"), charge("c2", "k-2")],
        (
            "fail",
            [
                (
                    "c2",
                    "write "
                    + same("charge_card", 2)
                    + " (spans c1, c2) under 2 different idempotency keys, so the target cannot tell they are one operation",
                )
            ],
        ),
    ),
    (
        "42 and '42' are one key",
        retries(writes=[PAY]),
        [charge("c1", 42), charge("c2", "42")],
        PASS(),
    ),
    (
        "an empty string is no key",
        retries(writes=[PAY]),
        [charge("c1", "k"), charge("c2", "")],
        (
            "fail",
            [
                (
                    "c2",
                    "write "
                    + same("charge_card", 2)
                    + f" (spans c1, c2); span c2 has no idempotency key at {KEY}, so it may have applied more than once",
                )
            ],
        ),
    ),
    (
        "a boolean is no key: each keyless call is flagged on itself",
        retries(writes=[PAY]),
        [charge("c1", True), charge("c2", True)],
        (
            "fail",
            [
                (
                    "c1",
                    "write "
                    + same("charge_card", 2)
                    + f" (spans c1, c2); span c1 has no idempotency key at {KEY}, so it may have applied more than once",
                ),
                (
                    "c2",
                    "write "
                    + same("charge_card", 2)
                    + f" (spans c1, c2); span c2 has no idempotency key at {KEY}, so it may have applied more than once",
                ),
            ],
        ),
    ),
    (
        "a keyless errored call in a group is already flagged",
        retries(writes=[PAY]),
        [charge("c1", status="error"), charge("c2", "k")],
        (
            "fail",
            [
                (
                    "c1",
                    "write "
                    + same("charge_card", 2)
                    + f" (spans c1, c2); span c1 has no idempotency key at {KEY}, so it may have applied more than once",
                )
            ],
        ),
    ),
    (
        "an errored write without a key pointer",
        retries(writes=[{"tool": "charge_card"}]),
        [charge("c1", status="error")],
        (
            "fail",
            [
                (
                    "c1",
                    "write charge_card (span c1) errored and declares no idempotency key; its outcome is unknown, so a retry cannot be proven safe",
                )
            ],
        ),
    ),
    (
        "an errored write without its key",
        retries(writes=[PAY]),
        [charge("c1", status="error")],
        (
            "fail",
            [
                (
                    "c1",
                    f"write charge_card (span c1) errored and has no idempotency key at {KEY}; its outcome is unknown, so a retry cannot be proven safe",
                )
            ],
        ),
    ),
    (
        "an errored write with its key",
        retries(writes=[PAY]),
        [charge("c1", "k", status="error")],
        PASS(),
    ),
    ("a write once, fine", retries(writes=[{"tool": "charge_card"}]), [charge("c1")], PASS()),
    (
        "an errored first call of a repeat is not the flagged 2nd call",
        retries(writes=[{"tool": "charge_card"}]),
        [charge("c1", status="error"), charge("c2")],
        (
            "fail",
            [
                (
                    "c2",
                    "write "
                    + same("charge_card", 2)
                    + " (spans c1, c2) and declares no idempotency key, so it may have applied more than once",
                ),
                (
                    "c1",
                    "write charge_card (span c1) errored and declares no idempotency key; its outcome is unknown, so a retry cannot be proven safe",
                ),
            ],
        ),
    ),
    (
        "refs: six then 'and k more'",
        retries(reads=["lookup"]),
        [tool(f"s{i}", "search", args={}) for i in range(1, 9)],
        (
            "fail",
            [
                (
                    "s2",
                    same("search", 8)
                    + " (spans s1, s2, s3, s4, s5, s6 and 2 more) and its side effect is not declared, so the repeat is not proven safe",
                )
            ],
        ),
    ),
]


@pytest.mark.parametrize(
    ("doc", "spans", "expected"), [c[1:] for c in RETRY_CASES], ids=[c[0] for c in RETRY_CASES]
)
def test_retries(doc: dict[str, Any], spans: list[Span], expected: Outcome) -> None:
    assert outcome(run_check(doc, spans), "retries") == expected


NO_CAPTURE = (
    "the trace records no tool calls and no offered tools, so tool capture cannot be confirmed"
)

CAPTURE_CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("forbidden", {"tools": {"forbidden": ["Bash"]}}, "tools.forbidden[Bash]", "error"),
    ("allowed", {"tools": {"allowed": ["Read"]}}, "tools.allowed", "error"),
    ("maxCalls", {"tools": {"maxCalls": 3}}, "tools.maxCalls", "error"),
    (
        "maxCallsPerTool",
        {"tools": {"maxCallsPerTool": {"Bash": 0}}},
        "tools.maxCallsPerTool[Bash]",
        "error",
    ),
    ("retries", retries(reads=["x"]), "retries", "error"),
    ("required fails normally", {"tools": {"required": ["Read"]}}, "tools.required[Read]", "fail"),
    ("a low-level never is not a capture rule", low("never", p={"kind": "TOOL"}), "r", "pass"),
    (
        "a low-level atMost is not a capture rule",
        low("atMost", p={"kind": "TOOL"}, max=0),
        "r",
        "pass",
    ),
    ("llm keys are not capture rules", {"llm": {"maxCalls": 0}}, "llm.maxCalls", "fail"),
]


@pytest.mark.parametrize(
    ("doc", "label", "status"), [c[1:] for c in CAPTURE_CASES], ids=[c[0] for c in CAPTURE_CASES]
)
def test_capture_evidence(doc: dict[str, Any], label: str, status: str) -> None:
    spans = [agent("r"), llm("l", parent="r")]
    got = outcome(run_check(doc, spans), label)
    if status == "error":
        assert got == ("error", [(None, NO_CAPTURE)])
    else:
        assert got[0] == status
    # The offered set recorded, still no call: evaluates normally.
    recorded = [agent("r"), offering("l", ["Read"], parent="r")]
    assert outcome(run_check(doc, recorded), label)[0] != "error"


def test_capture_error_makes_the_verdict_an_error_with_a_note() -> None:
    verdict = run_check({"tools": {"forbidden": ["Bash"], "required": ["Read"]}}, [llm("l")])
    assert verdict.status == "error"
    assert verdict.notes == "0/2 rules passed; 1 could not be evaluated"
    assert verdict.score == 0.0


# =============================================================================================
# §5 Scope and alternatives
# =============================================================================================


def scoped_trace() -> list[Span]:
    return [
        agent("root", 0, 100),
        agent("sub", 10, 40, **{"run.status": "completed", "agent.name": "refunds"}),
        tool("t1", "Read", 12, 14, parent="sub"),
        sp("mid", "step", 15, 16, parent="sub"),
        tool("t2", "Grep", 17, 18, parent="mid"),
        tool("t3", "Bash", 50, 51, parent="root"),
    ]


def test_scope_subject_is_the_root_and_its_descendants() -> None:
    doc = {
        "scope": {"root": {"kind": "agent", "attr": {"agent.name": "refunds"}}},
        "run": {"requireCompleted": True, "maxDurationMs": 30},
        "tools": {"forbidden": ["Bash"], "maxCalls": 2},
    }
    verdict = run_check(doc, scoped_trace(), RunRecord("failed", 0, 1))
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("run", "pass"),
        ("tools.forbidden[Bash]", "pass"),
        ("tools.maxCalls", "pass"),
    ]
    assert run_check({**doc, "tools": {"maxCalls": 1}}, scoped_trace()).status == "fail"


@pytest.mark.parametrize(
    ("root", "n", "text"),
    [
        ({"kind": "AGENT"}, 2, "kind=AGENT"),
        ({"name": "nothing"}, 0, "name=nothing"),
    ],
)
def test_scope_without_exactly_one_root_errors_every_rule(
    root: dict[str, Any], n: int, text: str
) -> None:
    doc = {
        "scope": {"root": root},
        "tools": {"required": ["Read"]},
        "alternatives": {"anyOf": [{"id": "a", "llm": {"maxCalls": 1}}]},
    }
    verdict = run_check(doc, scoped_trace())
    message = f"scope root {text} matched {n} spans; exactly one is required"
    assert verdict.status == "error"
    assert [(r.label, r.status, r.error) for r in verdict.rules] == [
        ("tools.required[Read]", "error", message),
        ("a/llm.maxCalls", "error", message),
    ]


def rule_of(outcome_: str, label: str) -> dict[str, Any]:
    """A low-level rule that passes, fails or errors on the trace `ALT_TRACE`."""
    p = {"pass": {"tool": "Read"}, "fail": {"tool": "Nope"}}.get(outcome_)
    if p is None:
        return {"kind": "eventually", "label": label, "p": {"name": {"$regex": "^(a|a)*$"}}}
    return {"kind": "eventually", "label": label, "p": p}


ALT_TRACE = [tool("t", "Read", 0, 1), sp("slow", "a" * 30 + "!")]

ALT_CASES: list[tuple[str, list[str], list[list[str]], str, str]] = [
    # (id, base rule outcomes, per-alternative outcomes, final status, notes)
    (
        "base passes, one alternative passes",
        ["pass"],
        [["fail"], ["pass", "pass"]],
        "pass",
        "2/2 rules passed",
    ),
    (
        "base passes, none passes",
        ["pass"],
        [["fail"], ["pass", "fail"]],
        "fail",
        "1/2 rules passed",
    ),
    (
        "base passes, one errors, none passes",
        ["pass"],
        [["fail"], ["error"]],
        "error",
        "1/2 rules passed; 1 could not be evaluated",
    ),
    (
        "base fails, an alternative errors",
        ["fail"],
        [["error"]],
        "fail",
        "0/2 rules passed; 1 could not be evaluated",
    ),
    (
        "base errors",
        ["error", "pass"],
        [["pass"]],
        "error",
        "2/3 rules passed; 1 could not be evaluated",
    ),
    ("empty base, an alternative passes", [], [["fail"], ["pass"]], "pass", "1/1 rules passed"),
    ("empty base, none passes", [], [["fail"]], "fail", "0/1 rules passed"),
    (
        "an errored alternative does not block a passing one",
        ["pass"],
        [["error"], ["pass"]],
        "pass",
        "2/2 rules passed",
    ),
]


@pytest.mark.parametrize(
    ("base", "alts", "status", "notes"), [c[1:] for c in ALT_CASES], ids=[c[0] for c in ALT_CASES]
)
def test_alternatives(base: list[str], alts: list[list[str]], status: str, notes: str) -> None:
    doc: dict[str, Any] = {
        "alternatives": {
            "anyOf": [
                {"id": f"alt{i}", "rules": [rule_of(o, f"r{j}") for j, o in enumerate(outs)]}
                for i, outs in enumerate(alts)
            ]
        }
    }
    if base:
        doc["rules"] = [rule_of(o, f"b{j}") for j, o in enumerate(base)]
    verdict = run_check(doc, ALT_TRACE)
    assert (verdict.status, verdict.notes) == (status, notes)
    passed, total = notes.split(" ")[0].split("/")
    assert verdict.score == int(passed) / int(total)
    alt_results = [r for r in verdict.rules if r.alternative is not None]
    one_passed = any(all(o == "pass" for o in outs) for outs in alts)
    for r in alt_results:
        if one_passed and not all(o == "pass" for o in alts[int(r.alternative[3:])]):
            assert (r.status, r.violations) == ("skipped", ())
    if not one_passed and any("fail" in outs for outs in alts):
        assert any(r.violations for r in alt_results if r.status == "fail")


# =============================================================================================
# §6 The verdict
# =============================================================================================


def test_verdict_fields() -> None:
    contract = compile_contract({"name": "v", "tools": {"required": ["Read", "Grep"]}})
    verdict = check([tool("t", "Read")], contract)
    assert (verdict.contract, verdict.trace_id, verdict.status, verdict.ok) == (
        "v",
        TRACE,
        "fail",
        False,
    )
    assert (verdict.score, verdict.notes) == (0.5, "1/2 rules passed")
    assert [(r.label, r.alternative, r.status, r.error) for r in verdict.rules] == [
        ("tools.required[Read]", None, "pass", None),
        ("tools.required[Grep]", None, "fail", None),
    ]


def test_check_all_gives_one_verdict_per_contract_and_refuses_none() -> None:
    passing = compile_contract({"name": "p", "tools": {"required": ["Read"]}})
    failing = compile_contract({"name": "f", "tools": {"required": ["Grep"]}})
    verdicts = check_all([tool("t", "Read")], [passing, failing])
    assert [(v.contract, v.status) for v in verdicts] == [("p", "pass"), ("f", "fail")]
    with pytest.raises((ValueError, TypeError)):
        check_all([tool("t", "Read")], [])


def test_checking_is_deterministic() -> None:
    doc = {"tools": {"allowed": ["Read"], "maxCalls": 1}, "retries": {"reads": ["Read"]}}
    spans = [tool("a", "Bash", args={"x": 1}), tool("b", "Bash", args={"x": 1})]
    assert run_check(doc, spans) == run_check(doc, list(spans))


# =============================================================================================
# §7 Strict parsing, lint and explain
# =============================================================================================

ALLOWED_TOOLS = "required, forbidden, allowed, maxCalls, maxCallsPerTool, requiredOrder, orderMode, arguments, enforced"


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (
            {"tools": {"requird": ["Read"]}},
            'tools: unknown key "requird" — did you mean "required"?',
        ),
        (
            {"tools": {"REQUIRED": ["Read"]}},
            'tools: unknown key "REQUIRED" — did you mean "required"?',
        ),
        ({"tool": {"required": ["Read"]}}, 'unknown key "tool" — did you mean "tools"?'),
        ({"runn": {"requireCompleted": True}}, 'unknown key "runn" — did you mean "run"?'),
        ({"llm": {"maxCall": 1}}, 'llm: unknown key "maxCall" — did you mean "maxCalls"?'),
        ({"run": {"allowedStatuses": ["complete"]}}, 'did you mean "completed"?'),
        (
            {"tools": {"requiredOrder": ["a", "b"], "orderMode": "start_order"}},
            'did you mean "start-order"?',
        ),
        (
            {"tools": {"arguments": [{"tool": "R", "pointer": "/a", "type": "strng"}]}},
            'did you mean "string"?',
        ),
        (
            {
                "tools": {
                    "arguments": [
                        {"tool": "R", "pointer": "/a", "exists": True, "occurrence": "frist"}
                    ]
                }
            },
            'did you mean "first"?',
        ),
    ],
)
def test_did_you_mean(doc: dict[str, Any], expected: str) -> None:
    found = problems({"name": "x", **doc})
    assert any(expected in p for p in found), found


def test_the_unknown_key_message_lists_the_allowed_keys() -> None:
    (found,) = problems({"name": "x", "tools": {"requird": ["Read"]}})
    assert found.startswith(
        'tools: unknown key "requird" — did you mean "required"? (allowed: required, forbidden'
    )
    (far,) = problems({"name": "x", "tools": {"zzzzzzzz": ["Read"]}})
    assert far.startswith('tools: unknown key "zzzzzzzz" (allowed: required')
    assert "did you mean" not in far


def test_every_problem_is_reported() -> None:
    found = problems(
        {
            "name": "x",
            "tools": {"requird": ["Read"], "maxCalls": -1},
            "llm": {"maxTotalTokens": "many"},
        }
    )
    assert len(found) >= 3
    assert [p.split(":")[0] for p in found if p.startswith(("tools", "llm"))][:3] == [
        "tools",
        "tools.maxCalls",
        "llm.maxTotalTokens",
    ]


def test_a_file_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\ntools:\n  requird: [Read]\n")
    with pytest.raises(ContractError) as caught:
        compile_contract(path)
    assert str(path) in str(caught.value) or caught.value.source == str(path)
    assert 'did you mean "required"' in str(caught.value)


def lint_codes(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f.level, f.code) for f in lint_contract({"name": "x", **doc})]


LINT_ERRORS: list[tuple[str, dict[str, Any]]] = [
    ("required and forbidden", {"tools": {"required": ["Bash"], "forbidden": ["Bash"]}}),
    ("required not allowed", {"tools": {"required": ["Bash"], "allowed": ["Read"]}}),
    ("required capped at 0", {"tools": {"required": ["Bash"], "maxCallsPerTool": {"Bash": 0}}}),
    ("required with maxCalls 0", {"tools": {"required": ["Bash"], "maxCalls": 0}}),
    ("more required than maxCalls", {"tools": {"required": ["a", "b", "c"], "maxCalls": 2}}),
    ("allowed and forbidden", {"tools": {"allowed": ["Bash"], "forbidden": ["Bash"]}}),
    (
        "argument check on a forbidden tool",
        {
            "tools": {
                "forbidden": ["Bash"],
                "arguments": [{"tool": "Bash", "pointer": "/c", "exists": True}],
            }
        },
    ),
    (
        "requireCompleted excluded",
        {"run": {"requireCompleted": True, "allowedStatuses": ["failed"]}},
    ),
    (
        "requiredOrder inside alternatives counts too",
        {
            "alternatives": {
                "anyOf": [{"id": "a", "tools": {"required": ["B"], "forbidden": ["B"]}}]
            }
        },
    ),
]


@pytest.mark.parametrize("doc", [c[1] for c in LINT_ERRORS], ids=[c[0] for c in LINT_ERRORS])
def test_lint_errors(doc: dict[str, Any]) -> None:
    assert any(level == "error" for level, _ in lint_codes(doc)), lint_codes(doc)


LINT_WARNINGS: list[tuple[str, dict[str, Any]]] = [
    ("cap on a forbidden tool", {"tools": {"forbidden": ["Bash"], "maxCallsPerTool": {"Bash": 1}}}),
    ("cap on a disallowed tool", {"tools": {"allowed": ["Read"], "maxCallsPerTool": {"Bash": 1}}}),
    (
        "argument check on a tool not required",
        {"tools": {"arguments": [{"tool": "Read", "pointer": "/a", "exists": True}]}},
    ),
    ("enforced without allowed", {"tools": {"required": ["Read"], "enforced": True}}),
    (
        "retry rule on a forbidden tool",
        {"tools": {"forbidden": ["pay"]}, "retries": {"writes": [{"tool": "pay"}]}},
    ),
    (
        "requireCompleted beside other statuses",
        {"run": {"requireCompleted": True, "allowedStatuses": ["completed", "failed"]}},
    ),
    ("llm.maxCalls 0 beside a token limit", {"llm": {"maxCalls": 0, "maxTotalTokens": 10}}),
    ("llm.maxCalls 0 beside models", {"llm": {"maxCalls": 0, "allowedModels": ["m"]}}),
    (
        "a single alternative",
        {
            "tools": {"required": ["R"]},
            "alternatives": {"anyOf": [{"id": "a", "tools": {"required": ["G"]}}]},
        },
    ),
]


@pytest.mark.parametrize("doc", [c[1] for c in LINT_WARNINGS], ids=[c[0] for c in LINT_WARNINGS])
def test_lint_warnings(doc: dict[str, Any]) -> None:
    found = lint_codes(doc)
    assert found and all(level == "warning" for level, _ in found), found


def test_lint_stable_codes_and_paths() -> None:
    findings = lint_contract({"name": "x", "tools": {"required": ["Bash"], "forbidden": ["Bash"]}})
    assert [(f.level, f.code) for f in findings] == [("error", "tools.required-and-forbidden")]
    assert findings[0].path.startswith("tools") and "Bash" in findings[0].message
    findings = lint_contract({"name": "x", "tools": {"requiredOrder": ["a", "b"]}})
    assert [(f.level, f.code, f.path) for f in findings] == [
        ("warning", "tools.order-default-mode", "tools.requiredOrder")
    ]
    assert (
        lint_contract(
            {"name": "x", "tools": {"requiredOrder": ["a", "b"], "orderMode": "start-order"}}
        )
        == []
    )
    assert lint_contract({"name": "x", "tools": {"requiredOrder": ["a"]}}) == []


def test_lint_clean_contract() -> None:
    doc = {
        "name": "refund-desk",
        "run": {"requireCompleted": True, "maxDurationMs": 120000},
        "tools": {
            "required": ["Read"],
            "forbidden": ["Bash"],
            "allowed": ["Read", "Grep", "Glob"],
            "maxCalls": 10,
            "enforced": True,
        },
        "retries": {
            "reads": ["lookup_order"],
            "writes": [{"tool": "charge_card", "idempotencyKey": "/idempotency_key"}],
        },
        "llm": {"maxTotalTokens": 200000, "allowedModels": ["claude-sonnet-4-5"]},
    }
    assert lint_contract(doc) == []


def test_explain_lines() -> None:
    doc = {
        "name": "ex",
        "description": "an example",
        "rules": [
            {"kind": "always", "label": "a", "p": {"kind": "LLM"}},
            {"kind": "never", "label": "n", "p": {"tool": "Bash"}},
            {
                "kind": "neverUnless",
                "label": "u",
                "p": {"tool": "pay"},
                "prior": {"tool": "ok"},
                "order": "all-occurrences",
            },
            {"kind": "atMost", "label": "m", "p": {"kind": "TOOL"}, "max": 3},
            {"kind": "tokensAtMost", "label": "k", "p": {"kind": "LLM"}, "max": 100},
        ],
        "tools": {
            "required": ["Read"],
            "requiredOrder": ["a", "b"],
            "orderMode": "finish-before-start",
        },
        "alternatives": {
            "anyOf": [
                {"id": "x", "tools": {"forbidden": ["Grep"]}},
                {"id": "y", "llm": {"maxCalls": 2}},
            ]
        },
    }
    lines = explain_contract(compile_contract(doc)).splitlines()
    assert lines[0] == 'Contract "ex" — an example'
    assert "Every rule must pass:" in lines
    body = [line.strip() for line in lines]
    for expected in [
        "- tools.required[Read]: some span matches kind=TOOL,tool=Read",
        "- tools.requiredOrder[a->b]: kind=TOOL,tool=a and kind=TOOL,tool=b both occur, and the first comes before the second (finish-before-start)",
        "- a: every span matches kind=LLM",
        "- n: no span matches tool=Bash",
        "- u: every tool=pay has an earlier tool=ok (all-occurrences)",
        "- m: at most 3 span(s) match kind=TOOL",
        "- k: spans matching kind=LLM use at most 100 tokens in total",
        "And at least one alternative must pass completely:",
    ]:
        assert expected in body, lines
    assert body.index("- tools.required[Read]: some span matches kind=TOOL,tool=Read") < body.index(
        "- a: every span matches kind=LLM"
    )
    alt_start = body.index("And at least one alternative must pass completely:")
    tail = "\n".join(lines[alt_start:])
    assert "tools.forbidden[Grep]" in tail and "no span matches kind=TOOL,tool=Grep" in tail
    assert "llm.maxCalls" in tail and "at most 2 span(s) match kind=LLM" in tail


def test_explain_scope_and_run() -> None:
    doc = {
        "name": "s",
        "scope": {"root": {"kind": "agent"}},
        "run": {"requireCompleted": True, "maxDurationMs": 10},
    }
    text = explain_contract(compile_contract(doc))
    lines = text.splitlines()
    assert lines[0].startswith('Contract "s"')
    scope_lines = [line for line in lines if "kind=AGENT" in line]
    assert scope_lines and lines.index(scope_lines[0]) < lines.index("Every rule must pass:")
    run_line = next(line for line in lines if line.strip().startswith("- run:"))
    assert "; " in run_line


# =============================================================================================
# §7 Duplicate keys in a contract document are refused
# =============================================================================================

DUPLICATE_DOCS: list[tuple[str, str, str, str]] = [
    (
        "json top level",
        "c.json",
        '{"name": "a", "name": "b", "tools": {"required": ["R"]}}',
        'duplicate key "name"',
    ),
    (
        "json nested",
        "c.json",
        '{"name": "a", "tools": {"required": ["R"], "required": ["G"]}}',
        'tools: duplicate key "required"',
    ),
    (
        "json in a list",
        "c.json",
        '{"name": "a", "tools": {"arguments": [{"tool": "R", "tool": "G", "pointer": "/a", "exists": true}]}}',
        'tools.arguments[0]: duplicate key "tool"',
    ),
    (
        "yaml top level",
        "c.yaml",
        "name: a\ntools:\n  required: [R]\nname: b\n",
        'duplicate key "name" (line 4, column 1)',
    ),
    (
        "yaml nested",
        "c.yaml",
        "name: a\ntools:\n  forbidden: [Bash]\n  forbidden: [Read]\n",
        'tools: duplicate key "forbidden" (line 4, column 3)',
    ),
    (
        "yaml flow mapping",
        "c.yaml",
        "name: a\nllm: {maxCalls: 1, maxCalls: 2}\n",
        'llm: duplicate key "maxCalls" (line 2, column 20)',
    ),
    (
        "yaml in a list",
        "c.yaml",
        "name: a\nrules:\n  - kind: never\n    label: x\n    p: {kind: TOOL, kind: LLM}\n",
        'rules[0].p: duplicate key "kind" (line 5, column 21)',
    ),
]


@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [c[1:] for c in DUPLICATE_DOCS],
    ids=[c[0] for c in DUPLICATE_DOCS],
)
def test_duplicate_keys_are_refused(
    tmp_path: Path, filename: str, text: str, expected: str
) -> None:
    path = tmp_path / filename
    path.write_text(text)
    for source, origin in ((path, str(path)), (text, None)):
        with pytest.raises(ContractError) as caught:
            compile_contract(source)
        assert [str(p) for p in caught.value.problems] == [expected]
        assert caught.value.source == origin
        with pytest.raises(ContractError):
            lint_contract(source)


def test_every_duplicate_key_is_reported() -> None:
    with pytest.raises(ContractError) as caught:
        compile_contract('{"name": "a", "name": "b", "llm": {"maxCalls": 1, "maxCalls": 1}}')
    assert [str(p) for p in caught.value.problems] == [
        'duplicate key "name"',
        'llm: duplicate key "maxCalls"',
    ]


def test_a_yaml_merge_key_is_not_a_duplicate() -> None:
    text = "name: a\nanchors: &b {maxCalls: 1}\nllm:\n  <<: *b\n  maxCalls: 2\n"
    with pytest.raises(ContractError) as caught:
        compile_contract(text)
    assert [str(p) for p in caught.value.problems] == [
        f'unknown key "anchors" (allowed: {", ".join(TOP_KEYS)})'
    ]


def test_a_recursive_yaml_alias_is_refused_without_hanging() -> None:
    with pytest.raises(ContractError):
        compile_contract("name: a\nrules: &r [*r]\n")


def test_equal_keys_in_sibling_objects_are_fine() -> None:
    text = '{"name": "a", "rules": [{"kind": "never", "label": "x", "p": {"kind": "TOOL"}}, {"kind": "never", "label": "y", "p": {"kind": "LLM"}}]}'
    compile_contract(text)
    compile_contract(
        "name: a\nrules:\n  - {kind: never, label: x, p: {kind: TOOL}}\n  - {kind: never, label: y, p: {kind: LLM}}\n"
    )


# =============================================================================================
# More edges found while auditing
# =============================================================================================

MORE_BAD: list[tuple[str, dict[str, Any], str]] = [
    (
        "a did-you-mean tie goes to the first candidate",
        {"rulx": 1},
        'unknown key "rulx" — did you mean "run"?',
    ),
    ("did-you-mean ignores case", {"RULX": 1}, 'unknown key "RULX" — did you mean "run"?'),
    (
        "an enum value in the wrong case is refused with the right one",
        {"tools": {"requiredOrder": ["a", "b"], "orderMode": "START-ORDER"}},
        'tools.orderMode: unknown value "START-ORDER" — did you mean "start-order"?',
    ),
    (
        "a kind in title case",
        low("never", p={"kind": "Tool"}),
        'rules[0].p.kind: unknown value "Tool" — did you mean "TOOL"?',
    ),
    ("an empty not", low("never", p={"not": {}}), "rules[0].p.not:"),
    ("an empty attr", low("never", p={"attr": {}}), "rules[0].p.attr:"),
    (
        "a matcher with both forms",
        low("never", p={"name": {"$regex": "a", "oneOf": ["a"]}}),
        "rules[0].p.name:",
    ),
    (
        "a matcher flag typo",
        low("never", p={"name": {"$regex": "a", "flag": "i"}}),
        'did you mean "flags"?',
    ),
    (
        "a non-string oneOf entry",
        low("never", p={"name": {"oneOf": ["a", 1]}}),
        "rules[0].p.name.oneOf[1]",
    ),
    (
        "equals without a value",
        low("argument", p={"kind": "TOOL"}, pointer="/a", check={"op": "equals"}),
        "rules[0].check",
    ),
    (
        "a value beside exists",
        low("argument", p={"kind": "TOOL"}, pointer="/a", check={"op": "exists", "value": 1}),
        "rules[0].check",
    ),
    (
        "exists as a string",
        {"tools": {"arguments": [{"tool": "R", "pointer": "/a", "exists": "true"}]}},
        "tools.arguments[0].exists",
    ),
    ("a write as a bare name", {"retries": {"writes": ["p"]}}, "retries.writes[0]"),
    (
        "a blank alternative id",
        {
            "tools": {"maxCalls": 1},
            "alternatives": {"anyOf": [{"id": " ", "tools": {"required": ["R"]}}]},
        },
        "alternatives.anyOf[0].id",
    ),
    (
        "a scope kind typo",
        {"scope": {"root": {"kind": "agnt"}}, "tools": {"maxCalls": 1}},
        'did you mean "AGENT"?',
    ),
]


@pytest.mark.parametrize(
    ("doc", "fragment"), [c[1:] for c in MORE_BAD], ids=[c[0] for c in MORE_BAD]
)
def test_more_refusals(doc: dict[str, Any], fragment: str) -> None:
    found = problems({"name": "x", **doc})
    assert any(fragment in p for p in found), found


MORE_OUTCOMES: list[tuple[str, dict[str, Any], list[Span], Outcome]] = [
    (
        "last needs every start too",
        arg(equals=1, occurrence="last"),
        [tool("t1", "Run", 1, 2, args={"a": 1}), tool("t2", "Run", None, 2, args={"a": 1})],
        ("fail", [("t2", "span t2 has no start time, so the last call cannot be chosen")]),
    ),
    (
        "all-occurrences: an untimed later candidate",
        order("all-occurrences"),
        [tool("r1", "a", 0, 5), tool("s", "b", 10, 20), tool("r2", "a", 30, None)],
        ("fail", [("s", B_NOT_A + "span r2 has no end time, so its order cannot be proven")]),
    ),
    (
        "all-occurrences: a span never witnesses itself",
        low("precedes", a={"kind": "TOOL"}, b={"tool": "x"}, order="all-occurrences"),
        [tool("s", "x", 10, 20), tool("r", "y", 0, 5)],
        PASS(),
    ),
    (
        "allowedModels: an LLM call without a model fails",
        {"llm": {"allowedModels": ["a", "b"]}},
        [llm("l", model=None)],
        ("fail", [("l", 'span l ("chat") matches never(kind=LLM,not(model=oneOf(a|b)))')]),
    ),
    (
        "maxCallsPerTool counts only that tool",
        {"tools": {"maxCallsPerTool": {"Read": 1}}},
        [tool("a", "Read"), tool("g", "Grep"), tool("b", "Read")],
        ("fail", [("b", "2 span(s) match kind=TOOL,tool=Read, over the limit of 1")]),
    ),
    (
        "a run over a fractional limit",
        {"run": {"maxDurationMs": 0.5}},
        [agent("r", 0, 1)],
        ("fail", [(None, "run took 1 ms, over 0.5 ms")]),
    ),
    (
        "an object attribute compares regardless of key order",
        low("eventually", p={"attr": {"k": {"a": 1, "b": [1]}}}),
        [sp("s", attrs={"k": {"b": [1.0], "a": 1}})],
        PASS(),
    ),
    (
        "the verbose regex flag",
        low("eventually", p={"name": {"$regex": "a b  # comment", "flags": "x"}}),
        [sp("s", "ab")],
        PASS(),
    ),
]


@pytest.mark.parametrize(
    ("doc", "spans", "expected"), [c[1:] for c in MORE_OUTCOMES], ids=[c[0] for c in MORE_OUTCOMES]
)
def test_more_outcomes(doc: dict[str, Any], spans: list[Span], expected: Outcome) -> None:
    verdict = run_check(doc, spans)
    label = (
        "tools.requiredOrder[a->b]" if "tools" in doc and "requiredOrder" in doc["tools"] else None
    )
    assert outcome(verdict, label) == expected


def test_a_value_that_cannot_be_canonicalized_is_a_rule_error() -> None:
    spans = [tool(f"s{i}", "search", attrs={"tool.arguments": {"n": float("nan")}}) for i in (1, 2)]
    verdict = run_check(retries(reads=["lookup"]), spans)
    assert verdict.status == "error"
    status, found = outcome(verdict)
    assert status == "error" and "canonicalized" in found[0][1]


def test_every_scoped_rule_errors_and_none_passes() -> None:
    doc = {
        "scope": {"root": {"name": "none"}},
        "tools": {"required": ["B"]},
        "llm": {"maxCalls": 1},
    }
    verdict = run_check(doc, [sp("a")])
    assert (verdict.status, verdict.score, verdict.notes) == (
        "error",
        0.0,
        "0/2 rules passed; 2 could not be evaluated",
    )


def test_capture_evidence_inside_an_alternative() -> None:
    doc = {
        "llm": {"maxCalls": 1},
        "alternatives": {
            "anyOf": [
                {"id": "x", "tools": {"forbidden": ["B"]}},
                {"id": "y", "llm": {"maxCalls": 0}},
            ]
        },
    }
    verdict = run_check(doc, [llm("l")])
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("llm.maxCalls", "pass"),
        ("x/tools.forbidden[B]", "error"),
        ("y/llm.maxCalls", "fail"),
    ]
    assert verdict.status == "error"


def test_lint_llm_max_calls_zero_message_agrees_in_number() -> None:
    (one,) = lint_contract({"name": "x", "llm": {"maxCalls": 0, "maxTotalTokens": 3}})
    assert (
        one.message == "is 0, so no model may be called, yet llm.maxTotalTokens limits model calls"
    )
    (two,) = lint_contract(
        {"name": "x", "llm": {"maxCalls": 0, "maxTotalTokens": 3, "allowedModels": ["m"]}}
    )
    assert two.message == (
        "is 0, so no model may be called, yet llm.maxTotalTokens and llm.allowedModels limit model calls"
    )
