"""The OpenTelemetry contrib instrumentation of the OpenAI Agents SDK reads its guardrails as
guardrails (fixtures/producers/openai-agents-v2/, and its plain runs in fixtures/otel-genai/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracecheck import Kind, Trace, read_traces
from tracecheck.reading import read_subject
from tracecheck.rules.subject import Subject
from tracecheck.spans import Scope, Span

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
FOLDER = FIXTURES / "producers" / "openai-agents-v2"


def only_trace(path: Path) -> Trace:
    (trace,) = read_traces(path)
    return trace


@pytest.mark.parametrize("suffix", ["otlp.jsonl", "otlp.pb"])
def test_both_guardrails_read_as_guardrails_with_the_run_as_before(suffix: str) -> None:
    trace = only_trace(FOLDER / f"guardrails.{suffix}")
    assert {s.convention.name for s in trace.spans} == {"otel-openai-agents"}
    guardrails = sorted(
        (s for s in trace.spans if s.kind == Kind.GUARDRAIL), key=lambda s: s.start_ns or 0
    )
    assert [s.attributes["gen_ai.guardrail.name"] for s in guardrails] == [
        "no_card_numbers",
        "answer_names_the_order",
    ]
    assert all(s.attributes["gen_ai.guardrail.triggered"] is False for s in guardrails)
    tools = sorted((s for s in trace.spans if s.kind == Kind.TOOL), key=lambda s: s.start_ns or 0)
    assert [(s.tool_name, s.arguments.value) for s in tools] == [
        ("lookup_order", {"order_id": "A-1001"}),
        (
            "issue_refund",
            {"order_id": "A-1001", "amount": 42.5, "idempotency_key": "refund-A-1001-01"},
        ),
    ]
    calls = sorted((s for s in trace.spans if s.kind == Kind.LLM), key=lambda s: s.start_ns or 0)
    assert [s.tokens.total for s in calls] == [430, 530, 590]
    # The SDK's task and turn spans are described (operation `unknown`): no call, nothing unmapped.
    assert sorted(s.kind.value for s in trace.spans if s.name == "unknown") == ["UNKNOWN"] * 4
    assert read_subject(Subject(trace.spans)).notes == ()


def test_a_tripped_input_guardrail_is_a_guardrail_and_the_run_has_no_call() -> None:
    trace = only_trace(FOLDER / "input-tripwire.otlp.jsonl")
    (guardrail,) = [s for s in trace.spans if s.kind == Kind.GUARDRAIL]
    assert guardrail.attributes["gen_ai.guardrail.triggered"] is True
    assert not guardrail.is_error  # the turn span above it is the one in error
    assert [s.name for s in trace.spans if s.is_error] == ["unknown"]
    assert not [s for s in trace.spans if s.kind in (Kind.LLM, Kind.TOOL)]


def test_the_plain_runs_of_the_same_instrumentation_read_through_it_unchanged() -> None:
    trace = only_trace(FIXTURES / "otel-genai" / "forbidden.otlp.jsonl")
    assert {s.convention.name for s in trace.spans} == {"otel-openai-agents"}
    tools = sorted((s for s in trace.spans if s.kind == Kind.TOOL), key=lambda s: s.start_ns or 0)
    assert [s.tool_name for s in tools] == ["lookup_order", "run_shell", "issue_refund"]


def test_traceloops_instrumentation_of_the_same_scope_name_keeps_its_own_reading() -> None:
    # openllmetry's opentelemetry-instrumentation-openai-agents names its tracer alike
    # (with its version) and marks its spans with `traceloop.span.kind`.
    tool = Span(
        "a" * 32,
        "1" * 16,
        None,
        "lookup_order.tool",
        attributes={"traceloop.span.kind": "tool", "traceloop.entity.input": '{"order_id": "A-1"}'},
        scope=Scope("opentelemetry.instrumentation.openai_agents", "0.47.3"),
    )
    assert tool.convention.name == "traceloop-sdk"
    assert tool.kind == Kind.TOOL
