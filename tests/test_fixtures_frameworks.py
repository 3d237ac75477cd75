"""Traces recorded from other real agent frameworks (fixtures/generate_frameworks.py) read right.

LangGraph under OpenInference, the OpenAI client under OpenLLMetry with util-genai tool spans,
Pydantic AI's own instrumentation and smolagents under OpenInference ran the same scripted
refund-desk agent; each must normalise (contracts.md §1) to the tool calls, model calls, models
and token counts the fake model served, and get the verdict those imply.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tracecheck import Kind, Span, Trace, check, compile_contract, read_traces

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "frameworks"
CONTRACT = compile_contract(FIXTURES / "refund-desk.contract.json")
FRAMEWORKS = (
    "langgraph-openinference",
    "openai-traceloop",
    "pydantic-ai",
    "smolagents-openinference",
    "strands",
)
# Frameworks whose LLM spans carry only the request model (no response model).
REQUEST_MODEL_ONLY = {"smolagents-openinference", "strands"}
RUNS = ("clean", "tool-error", "cache")
FORMATS = ("otlp.jsonl", "otlp.pb")

RESPONSE_MODEL = "gpt-4.1-mini-2025-04-14"
REQUEST_MODEL = "gpt-4.1-mini"
LOOKUP = {"order_id": "A-1001"}
REFUND = {"order_id": "A-1001", "amount": 42.5, "idempotency_key": "refund-A-1001-01"}
OFFERED = ("lookup_order", "issue_refund", "run_shell")
# (input, output) per model call, as the fake model served them.
USAGE = {
    "clean": [(412, 18), (489, 41), (561, 29)],
    "tool-error": [(412, 18), (489, 41), (575, 33)],
    "cache": [(1612, 18), (1689, 27)],
}
CACHE_READ = 1536


def recorded(framework: str, run: str, fmt: str = "otlp.jsonl") -> Trace:
    traces = read_traces(FIXTURES / framework / f"{run}.{fmt}")
    assert len(traces) == 1
    return traces[0]


def by_start(trace: Trace, kind: Kind) -> list[Span]:
    spans = [span for span in trace.spans if span.kind is kind]
    assert all(span.start_ns is not None for span in spans)
    return sorted(spans, key=lambda span: (span.start_ns or 0, span.span_id))


def expected_tools(framework: str, run: str) -> list[tuple[str, Any, bool]]:
    """(tool, arguments as normalised, in error) per call, in start order."""
    lookup: Any = LOOKUP
    refund: Any = REFUND
    if framework == "langgraph-openinference":
        # LangChain hands a one-parameter tool's bare value to the callback: no JSON object.
        lookup = "A-1001"
    # OpenInference's smolagents wrapper records the call's Python signature,
    # {"args": [], "sanitize_inputs_outputs": true, "kwargs": {...}}: its convention reads the
    # keyword arguments.
    calls = [("lookup_order", lookup, False)]
    if run != "cache":
        calls.append(("issue_refund", refund, run == "tool-error"))
    if framework == "smolagents-openinference":
        calls.append(("final_answer", None, False))  # its arguments are the answer text
    return calls


def expected_llm_calls(framework: str, run: str) -> list[tuple[str, int, int, int]]:
    usage = USAGE[run]
    if (framework, run) == ("pydantic-ai", "tool-error"):
        usage = usage[:2]  # the tool error ended the run
    # smolagents' OpenInference spans and Strands' spans carry only the request model.
    model = REQUEST_MODEL if framework in REQUEST_MODEL_ONLY else RESPONSE_MODEL
    return [(model, i, o, i + o) for i, o in usage]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_tool_calls_in_order(framework: str, run: str, fmt: str) -> None:
    trace = recorded(framework, run, fmt)
    calls = by_start(trace, Kind.TOOL)
    expected = expected_tools(framework, run)
    assert [span.tool_name for span in calls] == [name for name, _, _ in expected]
    for span, (name, arguments, in_error) in zip(calls, expected, strict=True):
        assert span.arguments.known, name
        if arguments is not None:
            assert span.arguments.value == arguments, name
        assert span.is_error is in_error, name


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_llm_calls_models_and_tokens(framework: str, run: str, fmt: str) -> None:
    trace = recorded(framework, run, fmt)
    calls = by_start(trace, Kind.LLM)
    assert [
        (span.model, span.tokens.input, span.tokens.output, span.tokens.total) for span in calls
    ] == expected_llm_calls(framework, run)
    for span in calls:
        offered = span.offered_tools
        if framework == "strands":
            # Strands names the agent's tools only in gen_ai.agent.tools on its root span.
            assert offered is None
            (root,) = trace.roots
            assert root.offered_tools is not None and root.offered_tools.names == OFFERED
            continue
        assert offered is not None and offered.problem is None
        extra = ("final_answer",) if framework == "smolagents-openinference" else ()
        assert offered.names == OFFERED + extra
        assert span.tokens.cache_write is None
        assert span.tokens.cache_outside_input == 0


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_cache_reads_are_inside_input(framework: str) -> None:
    first, second = by_start(recorded(framework, "cache"), Kind.LLM)
    if framework == "smolagents-openinference":
        # smolagents does not pass cached_tokens on to its instrumentation.
        assert (first.tokens.cache_read, second.tokens.cache_read) == (None, None)
    elif framework == "pydantic-ai":
        # Pydantic AI writes a cache count only when it is not zero.
        assert (first.tokens.cache_read, second.tokens.cache_read) == (None, CACHE_READ)
    else:
        assert (first.tokens.cache_read, second.tokens.cache_read) == (0, CACHE_READ)
    assert second.tokens.total == 1689 + 27  # included in input: not added again


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_json_lines_and_protobuf_hold_the_same_spans(framework: str, run: str) -> None:
    jsonl, proto = (recorded(framework, run, fmt) for fmt in FORMATS)
    assert jsonl.trace_id == proto.trace_id
    assert list(jsonl.spans) == list(proto.spans)


ROOTS = {
    "langgraph-openinference": ("refund-desk", Kind.CHAIN),
    "openai-traceloop": ("invoke_agent refund-desk", Kind.AGENT),
    "pydantic-ai": ("invoke_agent refund-desk", Kind.AGENT),
    "smolagents-openinference": ("refund_desk.run", Kind.AGENT),
    "strands": ("invoke_agent refund-desk", Kind.AGENT),
}


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_one_root_and_the_run_record(framework: str, run: str) -> None:
    trace = recorded(framework, run)
    (root,) = trace.roots
    assert (root.name, root.kind) == ROOTS[framework]
    assert all(len(span.trace_id) == 32 and len(span.span_id) == 16 for span in trace.spans)
    record = trace.run_record
    assert record is not None
    assert (record.start_ns, record.end_ns) == (root.start_ns, root.end_ns)
    assert root.start_ns is not None and root.end_ns is not None
    assert all(
        root.start_ns <= (span.start_ns or 0) <= (span.end_ns or 0) <= root.end_ns
        for span in trace.spans
    )
    # Nothing sets run.status; only Pydantic AI's root records the error that ended its run.
    failed = (framework, run) == ("pydantic-ai", "tool-error")
    assert record.status == ("failed" if failed else None)


def test_tokens_on_agent_spans_are_not_llm_calls() -> None:
    # smolagents' root sums the run's tokens under OpenInference's LLM keys: an AGENT span's
    # counts, which the LLM token budget does not add again.
    trace = recorded("smolagents-openinference", "clean")
    (root,) = trace.roots
    assert root.kind is Kind.AGENT
    assert (root.tokens.input, root.tokens.output) == (412 + 489 + 561, 18 + 41 + 29)
    # Pydantic AI's root uses gen_ai.aggregated_usage.*, which is no token count of §1.4.
    (root,) = recorded("pydantic-ai", "clean").roots
    assert (root.tokens.input, root.tokens.output) == (None, None)
    # Strands' root sums them under the GenAI keys, cache counts included.
    trace = recorded("strands", "cache")
    (root,) = trace.roots
    assert root.kind is Kind.AGENT
    assert (root.tokens.input, root.tokens.output, root.tokens.cache_read) == (3301, 45, 1536)
    assert sum(span.tokens.total or 0 for span in by_start(trace, Kind.LLM)) == 3346


def failures(framework: str, run: str, fmt: str = "otlp.jsonl") -> dict[str, list[str]]:
    verdict = check(recorded(framework, run, fmt), CONTRACT)
    assert verdict.status in ("pass", "fail")
    return {
        rule.label: [v.detail for v in rule.violations]
        for rule in verdict.rules
        if rule.status != "pass"
    }


NO_REFUND = {
    "tools.required[issue_refund]",
    "tools.requiredOrder[lookup_order->issue_refund]",
    "tools.arguments[0] issue_refund /idempotency_key type string",
    "tools.arguments[1] issue_refund /amount equals",
    "llm.maxTotalTokens",
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_contract_verdict(framework: str, run: str, fmt: str) -> None:
    failed = failures(framework, run, fmt)
    expected: set[str] = set()
    if run == "cache":
        expected |= NO_REFUND
    if framework in REQUEST_MODEL_ONLY:
        expected.add("llm.allowedModels")
    assert set(failed) == expected
    if run == "cache":
        assert failed["llm.maxTotalTokens"] == [
            "3346 tokens across 2 span(s) matching kind=LLM, over the limit of 2000"
        ]


def test_smolagents_arguments_read_as_the_calls_keywords() -> None:
    trace = recorded("smolagents-openinference", "clean")
    assert {span.convention.name for span in trace.spans} == {"smolagents"}
    contract = compile_contract(
        {
            "name": "smolagents-kwargs",
            "tools": {
                "arguments": [
                    {"tool": "issue_refund", "pointer": "/idempotency_key", "type": "string"}
                ]
            },
        }
    )
    assert check(trace, contract).ok


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_enforced_tool_set_sees_the_offered_shell(framework: str) -> None:
    contract = compile_contract(
        {
            "name": "enforced",
            "tools": {
                "allowed": ["lookup_order", "issue_refund", "final_answer"],
                "enforced": True,
            },
        }
    )
    verdict = check(recorded(framework, "clean"), contract)
    (rule,) = [r for r in verdict.rules if r.label == "tools.enforced"]
    assert rule.status == "fail"
    if framework == "strands":  # the agent's tool set, recorded once on its root
        (violation,) = rule.violations
        assert violation.detail.endswith("offered the model 1 undeclared tool(s): run_shell")
        return
    assert len(rule.violations) == 3  # one per model call that offered run_shell
    assert all("undeclared tool(s): run_shell" in v.detail for v in rule.violations)


def test_run_rule_sees_the_failed_pydantic_ai_run() -> None:
    contract = compile_contract({"name": "completed", "run": {"allowedStatuses": ["completed"]}})
    verdict = check(recorded("pydantic-ai", "tool-error"), contract)
    (rule,) = verdict.rules
    assert [v.detail for v in rule.violations] == ["run status failed is not one of completed"]
