"""The ready-made contracts in contracts/: each passes a run that keeps its policy and fails,
at the right rule, a run that breaks it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tracecheck import Span, Trace, check, compile_contract, lint_contract, read_traces

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = ROOT / "contracts"
FIXTURES = ROOT / "fixtures"
TRACE = "c" * 32


def recorded(path: str) -> Trace:
    (trace,) = read_traces(FIXTURES / path)
    return trace


def tool(
    span_id: str, name: str, start: int, end: int, parent: str | None = "0", **arguments: Any
) -> Span:
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
    if arguments:
        attributes["gen_ai.tool.call.arguments"] = json.dumps(arguments)
    return Span(
        TRACE,
        span_id * 16,
        parent and parent * 16,
        f"execute_tool {name}",
        start,
        end,
        attributes=attributes,
    )


def llm(span_id: str, model: str, tokens: tuple[int, int]) -> Span:
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": model,
        "gen_ai.usage.input_tokens": tokens[0],
        "gen_ai.usage.output_tokens": tokens[1],
    }
    return Span(TRACE, span_id * 16, "0" * 15 + "1", f"chat {model}", 1, 2, attributes=attributes)


def verdict_of(contract: str, trace: Trace | list[Span]) -> tuple[str, list[str]]:
    verdict = check(trace, compile_contract(CONTRACTS / contract))
    return verdict.status, [r.label for r in verdict.rules if r.status != "pass"]


@pytest.mark.parametrize(
    "path",
    sorted(
        p.name
        for p in CONTRACTS.iterdir()
        if p.suffix in (".json", ".yaml") and p.name != "contract.schema.json"
    ),
)
def test_every_ready_contract_compiles_lints_clean_and_explains_itself(path: str) -> None:
    contract = compile_contract(CONTRACTS / path)
    assert contract.description and len(contract.description) > 40
    assert [f for f in lint_contract(CONTRACTS / path) if f.level == "error"] == []


def test_no_shell() -> None:
    assert verdict_of("no-shell.yaml", recorded("claude/refund-stream.jsonl")) == ("pass", [])
    assert verdict_of("no-shell.yaml", recorded("openinference/forbidden.otlp.jsonl")) == (
        "fail",
        ["tools.forbidden[run_shell]"],
    )


def test_read_only_research() -> None:
    assert verdict_of("read-only-research.json", recorded("claude/refund-stream.jsonl")) == (
        "pass",
        [],
    )
    assert verdict_of("read-only-research.json", recorded("otel-genai/clean.otlp.jsonl")) == (
        "fail",
        ["tools.allowed"],
    )


def test_approval_before_transfer() -> None:
    approved = [
        tool("1", "request_human_approval", 10, 20),
        tool("2", "transfer_funds", 20, 30, idempotency_key="t-1", amount=10),
    ]
    assert verdict_of("approval-before-transfer.json", approved) == ("pass", [])
    overlapping = [
        tool("1", "request_human_approval", 10, 25),
        tool("2", "transfer_funds", 20, 30, idempotency_key="t-1", amount=10),
    ]
    assert verdict_of("approval-before-transfer.json", overlapping) == (
        "fail",
        ["approval before transfer"],
    )
    retried_without_key = [
        tool("1", "request_human_approval", 10, 20),
        tool("2", "transfer_funds", 20, 30, amount=10),
        tool("3", "transfer_funds", 40, 50, amount=10),
    ]
    assert verdict_of("approval-before-transfer.json", retried_without_key) == ("fail", ["retries"])


def test_model_budget() -> None:
    assert verdict_of("model-budget.yaml", recorded("otel-genai/clean.otlp.jsonl")) == ("pass", [])
    assert verdict_of("model-budget.yaml", recorded("claude/refund-stream.jsonl")) == ("pass", [])
    wrong_model = [llm("1", "gpt-4o", (100, 10))]
    assert verdict_of("model-budget.yaml", wrong_model) == ("fail", ["llm.allowedModels"])
    over_budget = [llm(str(i), "gpt-4.1-mini", (150_000, 100)) for i in range(1, 3)]
    assert verdict_of("model-budget.yaml", over_budget) == ("fail", ["llm.maxTotalTokens"])


def test_subagent_scope() -> None:
    assert verdict_of("subagent-scope.json", recorded("claude/refund-stream.jsonl")) == ("pass", [])
    writing = [
        Span(TRACE, "0" * 16, None, "session", 1, 100),
        tool("1", "Write", 5, 6),  # outside the sub-agent: not this contract's business
        tool("2", "Task", 10, 90),
        tool("3", "Read", 20, 30, parent="2"),
        tool("4", "Write", 40, 50, parent="2"),
    ]
    assert verdict_of("subagent-scope.json", writing) == (
        "fail",
        ["tools.forbidden[Write]", "tools.allowed"],
    )
