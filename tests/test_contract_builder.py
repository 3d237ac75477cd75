"""The Python builder makes the same rule objects as the compiler."""

from __future__ import annotations

import pytest

from tracecheck.contract import compile_contract, contract_builder
from tracecheck.contract.builder import PathBuilder
from tracecheck.errors import ContractError


def test_builder_equals_compiled() -> None:
    built = (
        contract_builder("refund-desk")
        .describe("Answer refund questions without a shell")
        .scope(kind="agent", name="refund")
        .run(require_completed=True, max_duration_ms=120000)
        .tools(
            required=["Read"],
            forbidden=["Bash"],
            max_calls_per_tool={"Read": 3},
            enforced=True,
            allowed=["Read", "Grep"],
        )
        .tools(required_order=["Read", "Grep"], order_mode="finish-before-start")
        .retries(
            reads=["lookup_order"],
            writes=["log", {"tool": "charge_card", "idempotencyKey": "/key"}],
        )
        .llm(max_total_tokens=1000, allowed_models=["m"])
        .never(kind="TOOL", tool="Bash", label="no shell")
        .eventually(tool={"$regex": "^Re"})
        .precedes(a={"tool": "Read"}, b={"tool": "Grep"}, order="all-occurrences")
        .never_unless(p={"tool": "Write"}, prior={"tool": "Read"})
        .at_most(2, kind="LLM")
        .tokens_at_most(50, kind="LLM", model="m")
        .always(not_={"kind": "GUARDRAIL"}, attr={"env": "ci"})
        .argument(
            p={"tool": "Read"},
            pointer="/path",
            check={"op": "type", "type": "string"},
            occurrence="last",
        )
        .alternative("cache-hit", lambda path: path.eventually(tool="cache"))
        .build()
    )
    doc = {
        "name": "refund-desk",
        "description": "Answer refund questions without a shell",
        "scope": {"root": {"kind": "agent", "name": "refund"}},
        "run": {"requireCompleted": True, "maxDurationMs": 120000},
        "tools": {
            "required": ["Read"],
            "forbidden": ["Bash"],
            "maxCallsPerTool": {"Read": 3},
            "enforced": True,
            "allowed": ["Read", "Grep"],
            "requiredOrder": ["Read", "Grep"],
            "orderMode": "finish-before-start",
        },
        "retries": {
            "reads": ["lookup_order"],
            "writes": [{"tool": "log"}, {"tool": "charge_card", "idempotencyKey": "/key"}],
        },
        "llm": {"maxTotalTokens": 1000, "allowedModels": ["m"]},
        "rules": [
            {"kind": "never", "label": "no shell", "p": {"kind": "TOOL", "tool": "Bash"}},
            {
                "kind": "eventually",
                "label": "eventually(tool=/^Re/)",
                "p": {"tool": {"$regex": "^Re"}},
            },
            {
                "kind": "precedes",
                "label": "precedes(tool=Read, tool=Grep)",
                "a": {"tool": "Read"},
                "b": {"tool": "Grep"},
                "order": "all-occurrences",
            },
            {
                "kind": "neverUnless",
                "label": "neverUnless(tool=Write, tool=Read)",
                "p": {"tool": "Write"},
                "prior": {"tool": "Read"},
            },
            {"kind": "atMost", "label": "atMost(kind=LLM, 2)", "p": {"kind": "LLM"}, "max": 2},
            {
                "kind": "tokensAtMost",
                "label": "tokensAtMost(kind=LLM,model=m, 50)",
                "p": {"kind": "LLM", "model": "m"},
                "max": 50,
            },
            {
                "kind": "always",
                "label": 'always(attr.env="ci",not(kind=GUARDRAIL))',
                "p": {"not": {"kind": "GUARDRAIL"}, "attr": {"env": "ci"}},
            },
            {
                "kind": "argument",
                "label": "argument(tool=Read /path type)",
                "p": {"tool": "Read"},
                "pointer": "/path",
                "check": {"op": "type", "type": "string"},
                "occurrence": "last",
            },
        ],
        "alternatives": {
            "anyOf": [
                {
                    "id": "cache-hit",
                    "rules": [
                        {
                            "kind": "eventually",
                            "label": "eventually(tool=cache)",
                            "p": {"tool": "cache"},
                        }
                    ],
                }
            ]
        },
    }
    assert built == compile_contract(doc)


def test_builder_to_spec_round_trips() -> None:
    builder = contract_builder("c").never(tool="Bash")
    assert builder.to_spec() == {
        "name": "c",
        "rules": [{"kind": "never", "label": "never(tool=Bash)", "p": {"tool": "Bash"}}],
    }
    assert builder.build() == compile_contract(builder.to_spec())


def test_builder_reports_problems_like_the_compiler() -> None:
    with pytest.raises(ContractError) as info:
        contract_builder("c").tools(max_calls=-1).never(kind="tool").build()
    assert [str(p) for p in info.value.problems] == [
        "tools.maxCalls: must be an integer ≥ 0, not -1",
        'rules[0].p.kind: unknown value "tool" — did you mean "TOOL"? (allowed: AGENT, CHAIN, LLM, '
        "TOOL, EVALUATOR, RETRIEVER, EMBEDDING, RERANKER, GUARDRAIL, PROMPT, UNKNOWN)",
    ]


def test_empty_builder_is_refused() -> None:
    with pytest.raises(ContractError):
        contract_builder("c").build()
    assert isinstance(PathBuilder().run(require_completed=True), PathBuilder)
