"""Traces recorded from real instrumentation (fixtures/generate.py) read correctly.

The same agent runs were recorded under the official OpenTelemetry GenAI instrumentation and
under OpenInference; whatever each convention calls things, the normalised runs must agree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tracecheck import Kind, Span, Trace, read_traces

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
INSTRUMENTATIONS = ("otel-genai", "openinference")
SCENARIOS = (
    "clean",
    "forbidden",
    "repeated-write",
    "timeout",
    "looping",
    "cache",
    "cache-responses",
)


def only_trace(path: Path) -> Trace:
    traces = read_traces(path)
    assert len(traces) == 1, f"{path} holds {len(traces)} traces"
    return traces[0]


def by_start(trace: Trace, kind: Kind) -> list[Span]:
    spans = [span for span in trace.spans if span.kind is kind]
    assert all(span.start_ns is not None for span in spans)
    return sorted(spans, key=lambda span: (span.start_ns, span.span_id))


def tool_calls(trace: Trace) -> list[tuple[Any, ...]]:
    return [
        (span.tool_name, span.arguments.known, span.arguments.value, span.status)
        for span in by_start(trace, Kind.TOOL)
    ]


def llm_calls(trace: Trace) -> list[tuple[Any, ...]]:
    return [
        (span.model, span.tokens.input, span.tokens.output, span.tokens.total)
        for span in by_start(trace, Kind.LLM)
    ]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_both_instrumentations_normalise_to_the_same_run(scenario: str) -> None:
    genai, openinference = (
        only_trace(FIXTURES / i / f"{scenario}.otlp.jsonl") for i in INSTRUMENTATIONS
    )
    assert tool_calls(genai) == tool_calls(openinference)
    assert llm_calls(genai) == llm_calls(openinference)
    assert tool_calls(genai), "every scenario calls at least one tool"
    assert all(total is not None for *_, total in llm_calls(genai))


@pytest.mark.parametrize("instrumentation", INSTRUMENTATIONS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_json_lines_and_protobuf_of_one_run_read_the_same(
    instrumentation: str, scenario: str
) -> None:
    folder = FIXTURES / instrumentation
    from_json = only_trace(folder / f"{scenario}.otlp.jsonl")
    from_proto = only_trace(folder / f"{scenario}.otlp.pb")
    assert from_json.trace_id == from_proto.trace_id
    assert sorted(from_json.spans, key=lambda s: s.span_id or "") == sorted(
        from_proto.spans, key=lambda s: s.span_id or ""
    )
    assert not from_json.notes and not from_proto.notes


@pytest.mark.parametrize("instrumentation", INSTRUMENTATIONS)
def test_a_run_exported_in_batches_is_one_trace(instrumentation: str) -> None:
    folder = FIXTURES / instrumentation
    lines = only_trace(folder / "clean-batched.otlp.jsonl")
    stream = only_trace(folder / "clean-batched.otlp.pbstream")
    assert len((folder / "clean-batched.otlp.jsonl").read_text().splitlines()) > 1
    assert list(lines.spans) == list(stream.spans)
    assert tool_calls(lines) == tool_calls(only_trace(folder / "clean.otlp.jsonl"))


@pytest.mark.parametrize("instrumentation", INSTRUMENTATIONS)
def test_the_scenarios_show_what_they_are_named_for(instrumentation: str) -> None:
    def tools(scenario: str) -> list[str | None]:
        return [
            call[0]
            for call in tool_calls(
                only_trace(FIXTURES / instrumentation / f"{scenario}.otlp.jsonl")
            )
        ]

    assert tools("clean") == ["lookup_order", "issue_refund"]
    assert "run_shell" in tools("forbidden")
    assert tools("repeated-write").count("issue_refund") == 2
    repeated = [
        c for c in tool_calls(only_trace(FIXTURES / instrumentation / "repeated-write.otlp.jsonl"))
    ]
    writes = [call for call in repeated if call[0] == "issue_refund"]
    assert writes[0][2] == writes[1][2]
    timeout = tool_calls(only_trace(FIXTURES / instrumentation / "timeout.otlp.jsonl"))
    assert [call[3] for call in timeout] == ["ok", "error"]
    looping = tool_calls(only_trace(FIXTURES / instrumentation / "looping.otlp.jsonl"))
    assert [call[0] for call in looping] == ["lookup_order", "slow_lookup"] * 3
    assert [call[3] for call in looping] == ["ok", "error"] * 3


def test_openinference_records_cache_reads_inside_input() -> None:
    trace = only_trace(FIXTURES / "openinference" / "cache-responses.otlp.jsonl")
    second = by_start(trace, Kind.LLM)[1]
    assert second.tokens.cache_read == 1536
    # the OpenInference prompt count already includes cache reads: counted once
    assert second.tokens.total == second.tokens.input + second.tokens.output


def test_openinference_records_the_offered_tools() -> None:
    trace = only_trace(FIXTURES / "openinference" / "cache-responses.otlp.jsonl")
    offered = [span.offered_tools for span in by_start(trace, Kind.LLM)]
    assert all(o is not None and o.problem is None for o in offered)
    assert offered[0] is not None and "lookup_order" in offered[0].names


@pytest.mark.parametrize("instrumentation", INSTRUMENTATIONS)
def test_every_span_keeps_its_resource(instrumentation: str) -> None:
    trace = only_trace(FIXTURES / instrumentation / "clean.otlp.jsonl")
    assert all(span.resource.get("service.name") for span in trace.spans)
    assert len(trace.roots) == 1
    assert trace.roots[0].kind is Kind.AGENT
