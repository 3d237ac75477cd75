"""Tool results read through each producer's convention (`Span.result`), from the recorded
runs in fixtures/: the tool's own return value, whatever wrapper the producer recorded it in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracecheck import check, compile_contract, read_traces
from tracecheck.rules.requires import Requires
from tracecheck.rules.subject import Subject
from tracecheck.spans import Scope, Span, ToolResult

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ORDER = {
    "order_id": "A-1001",
    "status": "delivered",
    "total": 42.5,
    "currency": "EUR",
    "delivered_on": "2025-03-02",
}

# (recording, the convention that reads it): each records the lookup's result its own way.
RECORDED = [
    ("frameworks/pydantic-ai/cache.otlp.jsonl", "pydantic-ai"),  # gen_ai.tool.call.result
    ("producers/logfire-pydantic-ai/1.107.10-v2/cache.otlp.jsonl", "pydantic-ai"),  # tool_response
    ("producers/vercel-ai-v5/cache-anthropic.otlp.json", "vercel-ai"),  # ai.toolCall.result
    ("producers/vercel-ai-v7/cache-anthropic.otlp.json", "otel-genai"),
    ("producers/agno-openinference/cache.otlp.jsonl", "agno"),  # output.value
    ("producers/mlflow/default/cache.otlp.jsonl", "mlflow"),  # mlflow.spanOutputs, JSON twice
    ("producers/traceloop-sdk/cache.otlp.jsonl", "traceloop-sdk"),  # traceloop.entity.output
    # LangChain's ToolMessage: its content
    ("producers/langgraph-openllmetry/v0.52/cache.otlp.jsonl", "openllmetry-langchain"),
    ("producers/langgraph-openllmetry/v0.62/cache.otlp.jsonl", "openllmetry-langchain"),
    ("producers/llama-index/openinference/cache.otlp.jsonl", "llama-index"),  # ToolOutput
    ("producers/llama-index/openllmetry/cache.otlp.jsonl", "openllmetry-llamaindex"),
    ("producers/google-adk/openinference/cache.otlp.jsonl", "google-adk"),  # {"result": …}
    ("producers/google-adk/openinference-adk-1.4/cache.otlp.jsonl", "google-adk"),
    ("producers/google-genai/instrumentation-0.7b2/content/cache.otlp.jsonl", "google-genai"),
    ("producers/langfuse-v3/cache.otlp.jsonl", "langfuse"),
    ("langfuse-export/cache.trace-sdk.json", "langfuse-export"),
    ("producers/logfire-openai-agents/cache-responses.otlp.jsonl", "logfire-openai-agents"),
    # MCP's content blocks: one text block is its text
    ("producers/logfire-claude-agent-sdk/cache.otlp.jsonl", "logfire-claude-agent-sdk"),
    ("frameworks/strands/cache.otlp.jsonl", "strands"),  # Bedrock's [{"text": …}]
    ("producers/mastra/core-0.24.9/cache-anthropic.otlp.json", "mastra"),
    ("producers/mastra/core-0.24.9/telemetry-clean.otlp.json", "mastra-telemetry"),
    ("producers/mastra/core-1.71.0/cache-anthropic.otlp.json", "mastra"),
    ("producers/dspy-openinference/dspy/cache.otlp.jsonl", "dspy"),
    ("frameworks/smolagents-openinference/cache.otlp.jsonl", "smolagents"),
]


def lookups(name: str) -> list[Span]:
    """The lookup's tool calls (an agent step naming the tool, LlamaIndex's
    `BaseWorkflowAgent.task` under OpenLLMetry, is no call and has no result)."""
    spans = [span for trace in read_traces(FIXTURES / name) for span in trace.spans]
    return [
        span
        for span in spans
        if span.kind == "TOOL" and (span.tool_name or "").endswith("lookup_order")
    ]


@pytest.mark.parametrize(("name", "convention"), RECORDED, ids=[name for name, _ in RECORDED])
def test_the_lookup_s_result_is_the_order(name: str, convention: str) -> None:
    if not (FIXTURES / name).exists():
        pytest.skip(f"{name} is not recorded")
    found = [span for span in lookups(name) if span.convention.name == convention]
    assert found
    for span in found:
        assert span.result == ToolResult(True, ORDER, None)


def test_a_result_recording_a_failure_makes_the_call_a_failed_one() -> None:
    # LlamaIndex's agent step records a failed tool's ToolOutput with is_error, its span unset.
    spans = read_traces(FIXTURES / "producers/llama-index/openllmetry/tool-error.otlp.jsonl")
    (refund,) = [s for t in spans for s in t.spans if s.tool_name == "issue_refund"]
    assert refund.status is None
    assert refund.result.failed
    assert refund.end_ns is not None
    notify = Span(
        refund.trace_id,
        "notify",
        name="execute_tool notify",
        start_ns=refund.end_ns + 1,
        end_ns=refund.end_ns + 2,
        attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "notify"},
    )
    (violation,) = Requires("r", "notify", "issue_refund").evaluate(Subject([refund, notify]))
    assert violation.detail == (
        "span notify: notify runs after issue_refund failed, with no successful issue_refund "
        "call finished before it"
    )
    (lookup,) = lookups("producers/llama-index/openllmetry/cache.otlp.jsonl")[:1]
    assert not lookup.result.failed


def test_a_span_without_a_result_says_so() -> None:
    (span,) = lookups("producers/autogen/assistant/cache.otlp.jsonl")[:1]
    assert span.result == ToolResult(False, None, "the span carries no result evidence")


def test_same_as_reads_an_earlier_result_in_recorded_runs() -> None:
    contract = compile_contract(
        {
            "name": "refund the looked-up order",
            "tools": {
                "arguments": [
                    {
                        "tool": "issue_refund",
                        "pointer": "/order_id",
                        "sameAs": {"tool": "lookup_order", "result": "/order_id"},
                    },
                    {
                        "tool": "issue_refund",
                        "pointer": "/amount",
                        "range": {"min": 0, "max": 42.5},
                    },
                ]
            },
        }
    )
    for name in (
        "frameworks/pydantic-ai/clean.otlp.jsonl",
        "producers/vercel-ai-v5/clean.otlp.json",
        "producers/langgraph-openllmetry/v0.62/clean.otlp.jsonl",
    ):
        (trace,) = read_traces(FIXTURES / name)
        verdict = check(trace, contract)
        assert verdict.status == "pass", [(r.label, r.violations, r.error) for r in verdict.rules]


def tool_span(scope: str, **attributes: object) -> Span:
    return Span(
        "a" * 32,
        "1" * 16,
        name="execute_tool lookup_order",
        attributes={"gen_ai.operation.name": "execute_tool", **attributes},
        scope=Scope(scope, "1.0.0"),
    )


@pytest.mark.parametrize(
    ("recorded", "value"),
    [
        ({"result": {"order_id": "A-1001"}}, {"order_id": "A-1001"}),  # ADK's wrapper
        ({"result": None}, None),  # the tool returned None
        # The tool's own object, with a `result` key among others: not a wrapper.
        (
            {"status": "ok", "result": {"id": 7}, "order": "A-1001"},
            {"status": "ok", "result": {"id": 7}, "order": "A-1001"},
        ),
    ],
)
def test_adk_unwraps_only_its_own_wrapper(recorded: object, value: object) -> None:
    for key in ("gen_ai.tool.call.result", "gcp.vertex.agent.tool_response"):
        span = tool_span("gcp.vertex.agent", **{key: json.dumps(recorded)})
        assert span.convention.name == "google-adk"
        assert span.result == ToolResult(True, value, None)


def test_a_producer_s_wrapper_is_never_read_as_the_result() -> None:
    # LlamaIndex's ToolOutput: a tool that returned None records raw_output null.
    output = {"content": "None", "tool_name": "lookup_order", "raw_output": None, "is_error": False}
    scope = "openinference.instrumentation.llama_index"
    span = tool_span(scope, **{"output.value": json.dumps(output)})
    assert span.convention.name == "llama-index"
    assert span.result == ToolResult(True, None, None)
    # A wrapper of another shape leaves the result unknown.
    del output["raw_output"]
    span = tool_span(scope, **{"output.value": json.dumps(output)})
    assert span.result == ToolResult(
        False, None, "output.value is recorded but holds no result at output.value#/raw_output"
    )


def test_only_a_tool_call_has_a_result() -> None:
    # A model call's `output.value` is its answer, never read as a tool's result.
    chat = Span(
        "a" * 32,
        "2" * 16,
        name="ChatOpenAI",
        attributes={"openinference.span.kind": "LLM", "output.value": '{"order_id": "A-1"}'},
    )
    assert chat.kind == "LLM"
    assert chat.result == ToolResult(False, None, "the span is not a tool call")
    tool = chat.replace(attributes={**chat.attributes, "openinference.span.kind": "TOOL"})
    assert tool.result == ToolResult(True, {"order_id": "A-1"}, None)
