"""Tracing back ends' and SDKs' own formats: Zipkin v2, Jaeger (UI JSON, protobuf model JSON,
api_v3 answers) and OpenTelemetry JS span dumps (`tracecheck/readers/tracers.py`)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck import (
    Kind,
    Span,
    TraceReadError,
    check,
    compile_contract,
    detect_format,
    read_traces,
)
from tracecheck.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CONTRACT = FIXTURES.parent / "contracts" / "refund-desk.json"
RUNS = ["clean", "forbidden", "repeated-write"]
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
OTHER_TRACE = "0af7651916cd43dd8448eb211c80319c"
ROOT = "00f067aa0ba902b7"
CHILD = "53995c3f42cd8ad8"
START = 1_714_564_800_123_456_789  # 2024-05-01T12:00:00.123456789Z
TOOLS = {
    "clean": ["lookup_order", "issue_refund"],
    "forbidden": ["lookup_order", "run_shell", "issue_refund"],
    "repeated-write": ["lookup_order", "issue_refund", "issue_refund"],
}


def b64(hex_id: str) -> str:
    return base64.b64encode(bytes.fromhex(hex_id)).decode()


def _rounded_us(ns: int) -> int:  # the Zipkin exporter rounds to microseconds
    return (ns + 500) // 1000


def _truncated_us(ns: int) -> int:  # Jaeger truncates
    return ns // 1000


# file suffix, format, how the encoding rounds a time to microseconds
EXPORTS = {
    "zipkin": ("zipkin", ".zipkin.json", _rounded_us),
    "jaeger": ("jaeger", ".jaeger.json", _truncated_us),
    "jaeger-model": ("jaeger", ".jaeger-model.json", _truncated_us),
    "jaeger-api-v3": ("jaeger", ".jaeger-api-v3.json", lambda ns: ns),
}


def outcome(path: Path) -> list[tuple[str, str, tuple[str | None, ...]]]:
    (trace,) = read_traces(path)
    verdict = check(trace, compile_contract(CONTRACT))
    return [(r.label, r.status, tuple(v.span_id for v in r.violations)) for r in verdict.rules]


# --- the recorded runs, encoded by Zipkin's and Jaeger's shapes ----------------------------------


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("export", list(EXPORTS))
def test_a_tracer_export_reads_like_the_otlp_run_it_encodes(export: str, run: str) -> None:
    folder, suffix, to_us = EXPORTS[export]
    (otlp,) = read_traces(FIXTURES / "otel-genai" / f"{run}.otlp.jsonl")
    path = FIXTURES / folder / f"{run}{suffix}"
    assert detect_format(path) == export
    (exported,) = read_traces(path)
    assert exported.trace_id == otlp.trace_id
    assert not exported.notes

    def facts(span: Span) -> tuple[Any, ...]:
        # Microseconds only; Zipkin writes every tag as a string (numbers too).
        start, end = span.start_ns, span.end_ns
        duration = None if start is None or end is None else to_us(end - start)
        return (
            span.span_id,
            span.parent_span_id,
            span.name,
            span.kind,
            span.tool_name,
            span.model,
            span.tokens.total,
            span.arguments.value,
            span.status,
            span.otlp_kind,
            None if start is None else to_us(start),
            duration,
            [event.name for event in span.events],
            span.scope.name if span.scope else None,
        )

    assert [facts(s) for s in exported.spans] == [facts(s) for s in otlp.spans]
    assert exported.spans[0].resource["service.name"] == "refund-desk"


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("export", list(EXPORTS))
def test_tracer_exports_get_the_verdicts_of_their_otlp_runs(export: str, run: str) -> None:
    folder, suffix, _ = EXPORTS[export]
    otlp = outcome(FIXTURES / "otel-genai" / f"{run}.otlp.jsonl")
    assert outcome(FIXTURES / folder / f"{run}{suffix}") == otlp
    assert any(status == "fail" for _, status, _ in otlp) == (run != "clean")


# --- OpenTelemetry JS dumps, recorded with the real SDKs ------------------------------------------

OTEL_JS = [f"{run}.sdk{major}.json" for run in RUNS for major in (1, 2)] + [
    "clean.sdk1.readable.json",
    "clean.sdk2.readable.json",
]
USAGE = {  # input and output tokens per model turn, as record.mjs scripts them
    "clean": [(412, 18), (489, 41), (561, 29)],
    "forbidden": [(412, 18), (489, 24), (547, 41), (619, 29)],
    "repeated-write": [(412, 18), (489, 33), (553, 33), (617, 29)],
}


@pytest.mark.parametrize("name", OTEL_JS)
def test_an_otel_js_dump_reads_kinds_tools_models_tokens_status_and_times(name: str) -> None:
    path = FIXTURES / "otel-js" / name
    run = name.split(".")[0]
    assert detect_format(path) == "otel-js"
    (trace,) = read_traces(path)
    assert not trace.notes
    spans = trace.spans
    (agent,) = [s for s in spans if s.parent_span_id is None]
    assert (agent.kind, agent.name, agent.status, agent.otlp_kind) == (
        Kind.AGENT,
        "invoke_agent refund-desk",
        "ok",
        1,
    )
    assert all(s.parent_span_id == agent.span_id for s in spans if s is not agent)
    tools = sorted((s for s in spans if s.kind == Kind.TOOL), key=lambda s: s.start_ns or 0)
    assert [s.tool_name for s in tools] == TOOLS[run]
    refunds = [s.arguments.value for s in tools if s.tool_name == "issue_refund"]
    key = None if run == "repeated-write" else "refund-A-1001-01"
    assert refunds[0] == {"order_id": "A-1001", "amount": 42.5, "idempotency_key": key}
    llms = sorted((s for s in spans if s.kind == Kind.LLM), key=lambda s: s.start_ns or 0)
    assert [(s.tokens.input, s.tokens.output) for s in llms] == USAGE[run]
    assert {(s.model, s.otlp_kind, s.status) for s in llms} == {
        ("gpt-4.1-mini-2025-04-14", 3, None)
    }
    assert list(llms[0].attributes["gen_ai.response.finish_reasons"]) == ["tool_calls"]
    assert [e.name for e in llms[0].events] == ["gen_ai.choice"]
    assert llms[0].events[0].attributes == {"index": 0, "finish_reason": "tool_calls"}
    for span in spans:  # HrTime pairs to nanoseconds: real, ordered, inside the agent span
        assert span.start_ns is not None and span.end_ns is not None
        assert agent.start_ns is not None and agent.end_ns is not None
        assert 1_600_000_000 * 10**9 < span.start_ns <= span.end_ns
        # The SDK takes a start from the wall clock (often to the millisecond) and an end from
        # the monotonic clock, so a child may end a fraction of a millisecond "after" its parent.
        assert agent.start_ns <= span.start_ns and span.end_ns <= agent.end_ns + 1_000_000
    assert spans[0].resource["service.name"] == "refund-desk"
    assert spans[0].resource["deployment.environment.name"] == "fixtures"
    major = name.split(".")[1][-1]
    assert spans[0].resource["telemetry.sdk.version"].startswith(f"{major}.")
    assert spans[0].scope is not None
    assert (spans[0].scope.name, spans[0].scope.version) == ("refund-desk-agent", "0.3.0")


@pytest.mark.parametrize("major", [1, 2])
def test_the_retried_refund_links_to_the_first(major: int) -> None:
    (trace,) = read_traces(FIXTURES / "otel-js" / f"repeated-write.sdk{major}.json")
    first, second = (s for s in trace.spans if s.tool_name == "issue_refund")
    (link,) = second.links
    assert (link.trace_id, link.span_id, dict(link.attributes)) == (
        trace.trace_id,
        first.span_id,
        {"link.reason": "retry"},
    )


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("major", [1, 2])
def test_otel_js_runs_get_the_verdicts_of_the_otlp_runs(major: int, run: str) -> None:
    """Another recording of the same run: the same rules pass and fail, for as many spans."""

    def shape(path: Path) -> list[tuple[str, str, int]]:
        return [(label, status, len(spans)) for label, status, spans in outcome(path)]

    otlp = shape(FIXTURES / "otel-genai" / f"{run}.otlp.jsonl")
    assert shape(FIXTURES / "otel-js" / f"{run}.sdk{major}.json") == otlp


def test_the_plain_and_the_raw_dump_of_one_run_read_alike() -> None:
    for major in (1, 2):
        (raw,) = read_traces(FIXTURES / "otel-js" / f"clean.sdk{major}.json")
        (plain,) = read_traces(FIXTURES / "otel-js" / f"clean.sdk{major}.readable.json")
        assert raw.spans == plain.spans


def js_span(**fields: Any) -> dict[str, Any]:
    span = {
        "name": "execute_tool issue_refund",
        "kind": 0,
        "spanContext": {"traceId": TRACE, "spanId": CHILD, "traceFlags": 1},
        "startTime": [1_714_564_800, 123_456_789],
        "endTime": [1_714_564_802, 623_456_789],
        "status": {"code": 0},
        "attributes": {"gen_ai.tool.name": "issue_refund"},
    }
    span.update(fields)
    return span


def test_otel_js_parents_status_kind_and_resource_pairs() -> None:
    spans = [
        js_span(
            parentSpanContext={"traceId": TRACE, "spanId": ROOT},
            status={"code": 2, "message": "payment provider unavailable"},
            kind=2,
            resource={
                "_rawAttributes": [["service.name", "desk"], ["k", {}], ["service.name", "x"]]
            },
            instrumentationScope={"name": "agent", "version": "1.0"},
        ),
        js_span(
            spanContext={"traceId": TRACE, "spanId": ROOT},
            parentSpanId=None,
            endTime=[0, 0],
            duration=[3, 5],
            name="invoke_agent desk",
            attributes={},
        ),
    ]
    (trace,) = read_traces(json.dumps(spans).encode())
    tool, agent = trace.spans
    assert (tool.parent_span_id, tool.status, tool.status_message, tool.otlp_kind) == (
        ROOT,
        "error",
        "payment provider unavailable",
        3,
    )
    assert tool.resource == {"service.name": "desk"}  # first value wins; a pending {} is none
    assert tool.scope is not None and (tool.scope.name, tool.scope.version) == ("agent", "1.0")
    assert (tool.start_ns, tool.end_ns) == (START, START + 2_500_000_000)
    assert agent.end_ns == START + 3_000_000_005  # from the duration when the end is [0, 0]


def test_an_unended_otel_js_span_has_no_end() -> None:
    (trace,) = read_traces(json.dumps([js_span(_ended=False, endTime=[0, 0])]).encode())
    assert trace.spans[0].end_ns is None


def test_one_otel_js_span_object_reads() -> None:
    assert detect_format(json.dumps(js_span()).encode()) == "otel-js"
    (trace,) = read_traces(json.dumps(js_span()).encode())
    assert trace.spans[0].tool_name == "issue_refund"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("startTime", 1714564800123, "[0].startTime: is an integer, not an HrTime"),
        ("kind", 7, "[0].kind: an integer is not a SpanKind from 0 to 4"),
        ("status", {"code": "ERROR"}, "[0].status.code: a string of 5 character(s) is not 0,"),
        ("attributes", [1], "[0].attributes: is a list, not an object"),
    ],
)
def test_otel_js_problems_are_located(field: str, value: Any, message: str) -> None:
    with pytest.raises(TraceReadError) as info:
        read_traces(json.dumps([js_span(**{field: value})]).encode())
    assert str(info.value).startswith(f"<bytes>: {message}")


# --- Zipkin --------------------------------------------------------------------------------------


def zipkin_span(**fields: Any) -> dict[str, Any]:
    span = {
        "traceId": TRACE,
        "id": CHILD,
        "parentId": ROOT,
        "name": "execute_tool issue_refund",
        "timestamp": START // 1000,
        "duration": 2_500_000,
        "localEndpoint": {"serviceName": "refund-desk"},
        "tags": {"gen_ai.tool.name": "issue_refund"},
    }
    span.update(fields)
    return span


def test_zipkin_status_annotations_and_parent() -> None:
    span = zipkin_span(
        kind=None,
        annotations=[
            {"timestamp": START // 1000 + 5, "value": "retry"},
            {"timestamp": START // 1000 + 6, "value": '{"exception": {"exception.type": "E"}}'},
        ],
        tags={
            "gen_ai.tool.name": "issue_refund",
            "otel.status_code": "ERROR",
            "error": "payment provider unavailable",
            "otel.scope.name": "agents",
            "otel.scope.version": None,
        },
        debug=True,
    )
    (trace,) = read_traces(json.dumps([span]).encode())
    (read,) = trace.spans
    assert (read.span_id, read.parent_span_id, read.tool_name) == (CHILD, ROOT, "issue_refund")
    assert (read.status, read.status_message) == ("error", "payment provider unavailable")
    assert (read.start_ns, read.end_ns) == (
        START // 1000 * 1000,
        (START // 1000 + 2_500_000) * 1000,
    )
    assert [(e.name, e.time_ns, dict(e.attributes)) for e in read.events] == [
        ("retry", (START // 1000 + 5) * 1000, {}),
        ("exception", (START // 1000 + 6) * 1000, {"exception.type": "E"}),
    ]
    assert read.otlp_kind == 1  # no kind: a local span
    assert read.scope is not None and (read.scope.name, read.scope.version) == ("agents", "")
    assert read.attributes["zipkin.debug"] is True
    assert "otel.scope.name" not in read.attributes
    assert read.resource == {"service.name": "refund-desk"}


def test_one_zipkin_span_object_reads() -> None:
    data = json.dumps(zipkin_span(kind="CLIENT")).encode()
    assert detect_format(data) == "zipkin"
    (trace,) = read_traces(data)
    assert (trace.spans[0].tool_name, trace.spans[0].otlp_kind) == ("issue_refund", 3)


def test_zipkin_json_lines_read() -> None:
    lines = [zipkin_span(), zipkin_span(id=ROOT, parentId=None, name="agent", tags={})]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    assert detect_format(data) == "zipkin"
    (trace,) = read_traces(data)
    assert [s.span_id for s in trace.spans] == [CHILD, ROOT]


def rpc_halves() -> tuple[dict[str, Any], dict[str, Any]]:
    client = zipkin_span(
        kind="CLIENT",
        name="post /tools/issue_refund",
        remoteEndpoint={"serviceName": "refund-tools", "ipv4": "10.0.0.7", "port": 8081},
        tags={"http.method": "POST", "http.path": "/tools/issue_refund"},
    )
    server = zipkin_span(
        kind="SERVER",
        parentId=None,
        timestamp=START // 1000 + 150,
        duration=2_499_700,
        localEndpoint={"serviceName": "refund-tools", "port": 8081},
        tags={
            "http.method": "POST",
            "http.path": "/tools/issue_refund-server",
            "gen_ai.tool.name": "issue_refund",
            "gen_ai.tool.call.arguments": '{"order_id": "A-1001"}',
            "error": "declined",
        },
        annotations=[{"timestamp": START // 1000 + 200, "value": "wr"}],
        shared=True,
    )
    return client, server


@pytest.mark.parametrize("server_first", [False, True])
def test_the_two_halves_of_a_shared_rpc_span_are_one_call(server_first: bool) -> None:
    client, server = rpc_halves()
    spans = [server, client] if server_first else [client, server]
    (trace,) = read_traces(json.dumps(spans).encode())
    (call,) = trace.spans
    assert not trace.notes
    assert (call.span_id, call.parent_span_id) == (CHILD, ROOT)  # the client's parent
    assert call.name == "post /tools/issue_refund"
    assert (call.kind, call.tool_name, call.otlp_kind) == (Kind.TOOL, "issue_refund", 3)
    assert call.arguments.value == {"order_id": "A-1001"}
    assert (call.start_ns, call.end_ns) == (
        START // 1000 * 1000,
        (START // 1000 + 2_500_000) * 1000,
    )
    assert (call.status, call.status_message) == ("error", "declined")  # the server's error
    assert call.attributes["http.path"] == "/tools/issue_refund"  # the client's tag wins
    assert call.attributes["zipkin.remoteEndpoint.serviceName"] == "refund-tools"
    assert call.resource == {"service.name": "refund-desk"}
    assert [e.name for e in call.events] == ["wr"]
    kept = call.attributes["zipkin.shared"]
    assert kept["localEndpoint"] == {"serviceName": "refund-tools", "port": 8081}
    assert kept["kind"] == "SERVER" and kept["timestamp"] == START // 1000 + 150


def test_a_shared_half_alone_is_a_span_of_its_own() -> None:
    _, server = rpc_halves()
    (trace,) = read_traces(json.dumps([server]).encode())
    (span,) = trace.spans
    assert (span.otlp_kind, span.attributes["zipkin.shared"]) == (2, True)
    assert span.resource == {
        "service.name": "refund-tools",
        "zipkin.localEndpoint.port": 8081,
    }


def test_the_same_half_twice_is_a_repeat_not_a_call() -> None:
    client, _ = rpc_halves()
    (trace,) = read_traces(json.dumps([client, client]).encode())
    assert len(trace.spans) == 1
    assert "recorded more than once" in trace.notes[0].message


def test_the_shared_rpc_fixture_reads_and_checks_like_the_clean_run() -> None:
    path = FIXTURES / "zipkin" / "shared-rpc.zipkin.json"
    (trace,) = read_traces(path)
    (otlp,) = read_traces(FIXTURES / "otel-genai" / "clean.otlp.jsonl")
    assert [s.span_id for s in trace.spans] == [s.span_id for s in otlp.spans]
    tools = [s for s in trace.spans if s.kind == Kind.TOOL]
    assert [s.tool_name for s in tools] == ["lookup_order", "issue_refund"]
    assert all(s.name.startswith("post /tools/") and s.otlp_kind == 3 for s in tools)
    assert outcome(path) == outcome(FIXTURES / "otel-genai" / "clean.otlp.jsonl")


def test_a_zipkin_span_with_a_bad_timestamp_is_located() -> None:
    span = {"traceId": TRACE, "id": CHILD, "timestamp": "soon", "duration": 5, "tags": {}}
    with pytest.raises(TraceReadError) as info:
        read_traces(json.dumps([span]).encode())
    assert str(info.value).startswith("<bytes>: [0].timestamp: ")


def test_zipkin_still_reads_as_spans_when_asked() -> None:
    client, server = rpc_halves()
    (trace,) = read_traces(json.dumps([client, server]).encode(), format="spans")
    assert len(trace.spans) == 1 and trace.spans[0].tool_name == "issue_refund"


def test_a_row_with_id_but_no_zipkin_fields_reads_as_before() -> None:
    row = {"traceId": TRACE, "id": CHILD, "name": "x", "startTime": "2024-05-01T12:00:00Z"}
    assert detect_format(json.dumps([row]).encode()) == "spans"
    (trace,) = read_traces(json.dumps([row]).encode())
    assert trace.spans[0].span_id == CHILD
    assert trace.spans[0].start_ns == 1_714_564_800_000_000_000


# --- Jaeger UI JSON ------------------------------------------------------------------------------


def tag(key: str, value: Any, kind: str = "string") -> dict[str, Any]:
    return {"key": key, "type": kind, "value": value}


def jaeger_spans() -> list[dict[str, Any]]:
    root = {
        "traceID": TRACE,
        "spanID": ROOT,
        "operationName": "invoke_agent refund-desk",
        "references": [],
        "startTime": START // 1000,
        "duration": 3_000_000,
        "tags": [tag("gen_ai.operation.name", "invoke_agent")],
        "processID": "p1",
        "warnings": None,
    }
    tool = {
        "traceID": TRACE,
        "spanID": CHILD,
        "flags": 1,
        "operationName": "execute_tool issue_refund",
        "references": [
            {"refType": "FOLLOWS_FROM", "traceID": OTHER_TRACE, "spanID": "1" * 16},
            {"refType": "CHILD_OF", "traceID": TRACE, "spanID": ROOT},
        ],
        "startTime": START // 1000 + 10,
        "duration": 2_000,
        "tags": [
            tag("gen_ai.tool.name", "issue_refund"),
            tag("gen_ai.usage.input_tokens", 12, "int64"),
            tag("ratio", 1, "float64"),
            tag("blob", "AAE=", "binary"),
            tag("span.kind", "client"),
            tag("error", True, "bool"),
            tag("otel.status_code", "ERROR"),
            tag("otel.status_description", "payment provider unavailable"),
            tag("otel.scope.name", "agents"),
        ],
        "logs": [
            {
                "timestamp": START // 1000 + 11,
                "fields": [tag("event", "exception"), tag("exception.type", "TimeoutError")],
            },
            {"timestamp": START // 1000 + 12, "fields": [tag("message", "no event field")]},
        ],
        "processID": "p1",
        "warnings": ["clock skew adjusted"],
    }
    return [root, tool]


PROCESS = {"serviceName": "refund-desk", "tags": [tag("host.name", "worker-1")]}


def test_jaeger_tags_logs_processes_references_and_status() -> None:
    document = {
        "data": [
            {
                "traceID": TRACE,
                "spans": jaeger_spans(),
                "processes": {"p1": PROCESS},
                "warnings": ["trace warning"],
            }
        ]
    }
    (trace,) = read_traces(json.dumps(document).encode())
    agent, call = trace.spans
    assert (agent.kind, agent.parent_span_id, agent.otlp_kind) == (Kind.AGENT, None, 0)
    assert agent.attributes["jaeger.trace.warnings"] == ["trace warning"]
    assert (call.parent_span_id, call.tool_name, call.otlp_kind) == (ROOT, "issue_refund", 3)
    assert (call.status, call.status_message) == ("error", "payment provider unavailable")
    assert call.attributes["gen_ai.usage.input_tokens"] == 12
    assert call.attributes["ratio"] == 1.0 and isinstance(call.attributes["ratio"], float)
    assert call.attributes["blob"] == b"\x00\x01"
    assert call.attributes["jaeger.warnings"] == ["clock skew adjusted"]
    assert call.scope is not None and call.scope.name == "agents"
    assert call.resource == {"service.name": "refund-desk", "host.name": "worker-1"}
    assert [(link.trace_id, link.span_id, dict(link.attributes)) for link in call.links] == [
        (OTHER_TRACE, "1" * 16, {"opentracing.ref_type": "follows_from"})
    ]
    assert [(e.name, e.time_ns, dict(e.attributes)) for e in call.events] == [
        ("exception", (START // 1000 + 11) * 1000, {"exception.type": "TimeoutError"}),
        ("", (START // 1000 + 12) * 1000, {"message": "no event field"}),
    ]
    assert (call.start_ns, call.end_ns) == (
        (START // 1000 + 10) * 1000,
        (START // 1000 + 2010) * 1000,
    )


def test_a_bare_list_of_jaeger_spans_reads() -> None:
    spans = jaeger_spans()
    spans[1]["process"] = PROCESS  # a span may hold its process itself
    data = json.dumps(spans).encode()
    assert detect_format(data) == "jaeger"
    (trace,) = read_traces(data)
    agent, call = trace.spans
    assert agent.resource == {}  # its processID names no process here
    assert call.resource["service.name"] == "refund-desk"
    assert call.parent_span_id == ROOT


def test_jaeger_problems_are_located() -> None:
    span = {"traceID": TRACE, "spanID": CHILD, "operationName": "x", "startTime": "soon"}
    document = {"data": [{"traceID": TRACE, "spans": [span], "processes": {}}]}
    with pytest.raises(TraceReadError) as info:
        read_traces(json.dumps(document).encode())
    assert str(info.value).startswith("<bytes>: data[0].spans[0].startTime: ")
    document = {"data": [{"traceID": TRACE, "spans": "none"}]}
    with pytest.raises(TraceReadError) as info:
        read_traces(json.dumps(document).encode(), format="jaeger")
    assert str(info.value) == "<bytes>: data[0].spans: is not a list of spans"
    span = {**span, "startTime": 5, "tags": [tag("n", "x", "int64")]}
    with pytest.raises(TraceReadError) as info:
        read_traces(json.dumps([span]).encode())
    assert str(info.value) == (
        '<bytes>: [0].tags[0].value: span 53995c3f42cd8ad8, tag "n": '
        "a string of 1 character(s) is not a whole number"
    )


def test_a_jaeger_download_still_reads_as_spans_when_asked() -> None:
    document = {"data": [{"traceID": TRACE, "spans": jaeger_spans(), "processes": {}}]}
    (trace,) = read_traces(json.dumps(document).encode(), format="spans")
    assert [s.span_id for s in trace.spans] == [ROOT, CHILD]


# --- Jaeger's protobuf model as JSON, and api_v3 ---------------------------------------------------


def model_span(**fields: Any) -> dict[str, Any]:
    span = {
        "traceId": b64(TRACE),
        "spanId": b64(CHILD),
        "operationName": "chat gpt-4.1-mini",
        "references": [{"traceId": b64(TRACE), "spanId": b64(ROOT)}],
        "startTime": "2024-05-01T12:00:00.123456789Z",
        "duration": "2.5s",
        "tags": [
            {"key": "gen_ai.operation.name", "vStr": "chat"},
            {"key": "gen_ai.request.model", "vType": "STRING", "vStr": "gpt-4.1-mini"},
            {"key": "gen_ai.usage.input_tokens", "vType": "INT64", "vInt64": "412"},
            {"key": "gen_ai.usage.output_tokens", "vType": 2, "vInt64": 18},
            {"key": "cached", "vType": "BOOL"},
            {"key": "temperature", "vType": "FLOAT64", "vFloat64": 0.2},
            {"key": "zero", "vType": "FLOAT64"},
            {"key": "blob", "vType": "BINARY", "vBinary": "AAE="},
            {"key": "empty"},
            {"key": "span.kind", "vStr": "client"},
        ],
        "logs": [
            {
                "timestamp": "2024-05-01T12:00:01Z",
                "fields": [
                    {"key": "event", "vStr": "gen_ai.choice"},
                    {"key": "index", "vType": "INT64"},
                ],
            }
        ],
        "process": {
            "serviceName": "refund-desk",
            "tags": [{"key": "host.name", "vStr": "worker-1"}],
        },
    }
    span.update(fields)
    return span


def test_jaeger_model_json_reads_names_times_typed_tags_and_processes() -> None:
    data = json.dumps([model_span()]).encode()
    assert detect_format(data) == "jaeger-model"
    (trace,) = read_traces(data)
    (span,) = trace.spans
    assert (span.trace_id, span.span_id, span.parent_span_id) == (TRACE, CHILD, ROOT)
    assert (span.name, span.kind, span.model, span.otlp_kind) == (
        "chat gpt-4.1-mini",
        Kind.LLM,
        "gpt-4.1-mini",
        3,
    )
    assert (span.tokens.input, span.tokens.output) == (412, 18)
    assert (span.start_ns, span.end_ns) == (START, START + 2_500_000_000)
    attributes = span.attributes
    assert (attributes["cached"], attributes["zero"], attributes["empty"]) == (False, 0.0, "")
    assert (attributes["temperature"], attributes["blob"]) == (0.2, b"\x00\x01")
    assert span.resource == {"service.name": "refund-desk", "host.name": "worker-1"}
    assert [(e.name, e.time_ns, dict(e.attributes)) for e in span.events] == [
        ("gen_ai.choice", 1_714_564_801_000_000_000, {"index": 0})
    ]


@pytest.mark.parametrize(
    "wrap",
    [
        lambda spans: {"spans": spans},
        lambda spans: {"result": {"spans": spans}},
        lambda spans: {"spans": spans, "process": {"serviceName": "batch"}},
    ],
)
def test_jaeger_model_chunks_batches_and_gateway_answers(wrap: Any) -> None:
    spans = [model_span(process=None), model_span(spanId=b64(ROOT), references=[])]
    data = json.dumps(wrap(spans), indent=2).encode()
    assert detect_format(data) == "jaeger-model"
    (trace,) = read_traces(data)
    assert [s.span_id for s in trace.spans] == [CHILD, ROOT]
    assert trace.spans[1].parent_span_id is None


def test_a_jaeger_model_trace_with_a_process_map_and_references() -> None:
    follows = {"traceId": b64(OTHER_TRACE), "spanId": b64("1" * 16), "refType": "FOLLOWS_FROM"}
    trace_json = {
        "spans": [
            model_span(
                process=None,
                processId="p1",
                references=[follows, {"traceId": b64(TRACE), "spanId": b64(ROOT)}],
            )
        ],
        "processMap": [{"processId": "p1", "process": {"serviceName": "desk"}}],
        "warnings": ["w"],
    }
    (trace,) = read_traces(json.dumps(trace_json).encode())
    (span,) = trace.spans
    assert span.resource == {"service.name": "desk"}
    assert span.parent_span_id == ROOT
    assert [(link.span_id, dict(link.attributes)) for link in span.links] == [
        ("1" * 16, {"opentracing.ref_type": "follows_from"})
    ]
    assert span.attributes["jaeger.trace.warnings"] == ["w"]


def test_grpcurl_output_several_chunks_one_after_another() -> None:
    chunks = [{"spans": [model_span()]}, {"spans": [model_span(spanId=b64(ROOT), references=[])]}]
    data = "\n".join(json.dumps(chunk, indent=2) for chunk in chunks).encode()
    assert detect_format(data) == "jaeger-model"
    (trace,) = read_traces(data)
    assert [s.span_id for s in trace.spans] == [CHILD, ROOT]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("duration", "2.5 seconds", "[0].duration: a string of 11 character(s) is not a Duration"),
        ("duration", "-1s", "[0].duration: a string of 3 character(s) is negative"),
        ("startTime", "yesterday", "[0].startTime: a string of 9 character(s) is not an ISO-8601"),
        (
            "tags",
            [{"key": "k", "vType": "INT64", "vInt64": "x"}],
            '[0].tags[0].vInt64: span 53995c3f42cd8ad8, tag "k": a string',
        ),
        ("tags", [{"key": "k", "vType": "DATE"}], "[0].tags[0].vType: a string of 4 character(s)"),
        # Past int64, as a string and as a number: refused where read, not when written.
        (
            "tags",
            [{"key": "k", "vType": "INT64", "vInt64": "9" * 23}],
            '[0].tags[0].vInt64: span 53995c3f42cd8ad8, tag "k": a string of 23 character(s) '
            "is beyond the 64-bit integer range",
        ),
        (
            "tags",
            [{"key": "k", "vType": "INT64", "vInt64": 2**63}],
            '[0].tags[0].vInt64: span 53995c3f42cd8ad8, tag "k": an integer is beyond the '
            "64-bit integer range",
        ),
    ],
)
def test_jaeger_model_problems_are_located(field: str, value: Any, message: str) -> None:
    with pytest.raises(TraceReadError) as info:
        read_traces(json.dumps([model_span(**{field: value})]).encode())
    assert str(info.value).startswith(f"<bytes>: {message}")


def test_a_refused_model_tag_is_named_by_what_holds_it() -> None:
    bad = [{"key": "k", "vType": "BOOL", "vBool": "maybe"}]
    log = [{"timestamp": "2024-05-01T12:00:01Z", "fields": bad}]
    held = {
        "[0].tags[0].vBool: span 53995c3f42cd8ad8, tag": [model_span(tags=bad)],
        "[0].logs[0].fields[0].vBool: span 53995c3f42cd8ad8, log field": [model_span(logs=log)],
        "[0].process.tags[0].vBool: span 53995c3f42cd8ad8, process tag": [
            model_span(process={"serviceName": "s", "tags": bad})
        ],
        "process.tags[0].vBool: batch, process tag": {
            "spans": [model_span()],
            "process": {"serviceName": "s", "tags": bad},
        },
        "processMap[0].process.tags[0].vBool: process, process tag": {
            "spans": [model_span()],
            "processMap": [{"processId": "p1", "process": {"serviceName": "s", "tags": bad}}],
        },
    }
    for holder, document in held.items():
        with pytest.raises(TraceReadError) as info:
            read_traces(json.dumps(document).encode(), format="jaeger-model")
        assert (
            str(info.value)
            == f'<bytes>: {holder} "k": a string of 5 character(s) is not a value of type BOOL'
        )


def test_a_model_tag_past_int64_is_an_unreadable_trace_for_redact(tmp_path: Path) -> None:
    source = tmp_path / "model.json"
    tag = {"key": "k", "vType": "INT64", "vInt64": "9" * 23}
    source.write_text(json.dumps([model_span(tags=[tag])]))
    out = tmp_path / "out.pb"
    assert main(["redact", str(source), "-o", str(out), "--output-format", "otlp-proto"]) == 3
    assert not out.exists()


def test_an_api_v3_answer_is_otlp_inside_result() -> None:
    otlp = (FIXTURES / "otel-genai" / "clean.otlp.jsonl").read_text().strip()
    pretty = json.dumps({"result": json.loads(otlp)}, indent=2).encode()
    assert detect_format(pretty) == "jaeger-api-v3"
    (trace,) = read_traces(pretty)
    (original,) = read_traces(FIXTURES / "otel-genai" / "clean.otlp.jsonl")
    assert trace.spans == original.spans


def test_an_api_v3_error_answer_is_refused() -> None:
    error = {"error": {"grpcCode": 5, "httpCode": 404, "message": "trace not found"}}
    with pytest.raises(TraceReadError) as info:
        read_traces(json.dumps(error).encode(), format="jaeger-api-v3")
    assert str(info.value) == "<bytes>: is an error answer from Jaeger (code 5), not a trace"


# --- a shape read with nothing in it is refused, never silence ------------------------------------


@pytest.mark.parametrize(
    ("format", "document"),
    [
        ("jaeger-model", [{"traceId": b64(TRACE), "spanId": b64(CHILD), "operationName": ""}]),
        ("jaeger", [{"traceID": TRACE, "spanID": CHILD, "startTime": 0}]),
        ("zipkin", [{"traceId": TRACE, "id": CHILD, "duration": 5}]),
        ("otel-js", [{"spanContext": {"traceId": TRACE, "spanId": CHILD}}] * 2),
    ],
)
def test_spans_with_no_name_and_no_time_are_a_misread(format: str, document: Any) -> None:
    data = json.dumps(document).encode()
    assert detect_format(data) == format
    with pytest.raises(TraceReadError) as info:
        read_traces(data)
    assert f"reads as {format}, but none of its" in str(info.value)
    assert "has a name or a time" in str(info.value)


def test_jaeger_model_json_forced_through_the_ui_reader_is_refused_not_read_empty() -> None:
    """What used to happen silently: model JSON read as nameless, untimed UI spans."""
    data = json.dumps({"data": [{"traceID": TRACE, "spans": [model_span()]}]}).encode()
    with pytest.raises(TraceReadError, match=r"startTime: .* is not a count of microseconds"):
        read_traces(data, format="jaeger")
    untimed = {k: v for k, v in model_span().items() if k in ("traceId", "spanId", "tags")}
    data = json.dumps({"data": [{"traceID": TRACE, "spans": [untimed]}]}).encode()
    with pytest.raises(TraceReadError, match="none of its 1 span has a name or a time"):
        read_traces(data, format="jaeger")


# --- sniffing ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ([zipkin_span()], "zipkin"),
        (zipkin_span(), "zipkin"),
        (jaeger_spans(), "jaeger"),
        ({"data": [{"traceID": TRACE, "spans": jaeger_spans()}]}, "jaeger"),
        ([model_span()], "jaeger-model"),
        ({"result": {"spans": [model_span()]}}, "jaeger-model"),
        ({"result": {"resourceSpans": []}}, "jaeger-api-v3"),
        ([js_span()], "otel-js"),
    ],
)
@pytest.mark.parametrize("layout", ["compact", "pretty", "long"])
def test_each_format_is_recognised_however_it_is_laid_out(
    content: Any, expected: str, layout: str
) -> None:
    if layout == "compact":
        data = json.dumps(content).encode()
    elif layout == "pretty":
        data = json.dumps(content, indent=2).encode()
    else:  # one line longer than the sniffer reads: judged by the keys it sees first
        padding = "x" * 70_000
        if isinstance(content, list):
            content = [{**content[0], "padding": padding}, *content[1:]]
        else:
            content = {**content, "padding": padding}
        data = json.dumps(content).encode()
        assert len(data) > 1 << 16
    assert detect_format(data) == expected


# --- properties: any input reads or is refused at its place ---------------------------------------

LEAVES = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6)
)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "traceID",
                "spanID",
                "operationName",
                "references",
                "startTime",
                "duration",
                "tags",
                "logs",
                "processID",
                "parentSpanID",
                "process",
                "warnings",
                "flags",
            ]
        ),
        st.recursive(
            LEAVES,
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(
                    st.sampled_from(
                        ["key", "type", "value", "refType", "traceID", "spanID", "fields"]
                    ),
                    inner,
                    max_size=3,
                )
            ),
            max_leaves=12,
        ),
    )
)
def test_any_jaeger_span_reads_or_is_refused_at_its_place(span: dict[str, Any]) -> None:
    document = {"data": [{"traceID": TRACE, "spans": [span], "processes": {"p1": span}}]}
    try:
        read_traces(json.dumps(document).encode(), format="jaeger")
    except TraceReadError as exc:
        assert str(exc).startswith("<bytes>")


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "traceId",
                "spanId",
                "operationName",
                "references",
                "startTime",
                "duration",
                "tags",
                "logs",
                "process",
                "processId",
                "warnings",
            ]
        ),
        st.recursive(
            LEAVES,
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(
                    st.sampled_from(
                        ["key", "vType", "vStr", "vInt64", "vBinary", "refType", "fields"]
                    ),
                    inner,
                    max_size=3,
                )
            ),
            max_leaves=12,
        ),
    )
)
def test_any_jaeger_model_span_reads_or_is_refused_at_its_place(span: dict[str, Any]) -> None:
    try:
        read_traces(json.dumps({"spans": [span]}).encode(), format="jaeger-model")
    except TraceReadError as exc:
        assert str(exc).startswith("<bytes>")


@settings(max_examples=200, deadline=None)
@given(
    st.fixed_dictionaries(
        {"traceId": st.just(TRACE), "id": st.just(CHILD), "duration": st.integers(-5, 10**6)},
        optional={
            key: LEAVES
            | st.lists(
                st.dictionaries(
                    st.sampled_from(["timestamp", "value"]), st.integers() | st.text(max_size=4)
                ),
                max_size=2,
            )
            | st.dictionaries(
                st.sampled_from(["serviceName", "otel.status_code", "error", "k", "ipv4"]),
                st.text(max_size=6) | st.integers(),
            )
            for key in (
                "parentId",
                "name",
                "kind",
                "timestamp",
                "tags",
                "annotations",
                "localEndpoint",
                "remoteEndpoint",
                "shared",
                "debug",
            )
        },
    ),
    st.booleans(),
)
def test_any_zipkin_span_reads_or_is_refused_at_its_place(
    span: dict[str, Any], twice: bool
) -> None:
    spans = [span, {**span, "shared": True}] if twice else [span]
    try:
        read_traces(json.dumps(spans).encode(), format="zipkin")
    except TraceReadError as exc:
        assert str(exc).startswith("<bytes>")


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "name",
                "kind",
                "_spanContext",
                "spanContext",
                "parentSpanId",
                "parentSpanContext",
                "startTime",
                "endTime",
                "duration",
                "ended",
                "status",
                "attributes",
                "events",
                "links",
                "resource",
                "instrumentationScope",
            ]
        ),
        st.recursive(
            LEAVES,
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(
                    st.sampled_from(
                        ["traceId", "spanId", "code", "name", "time", "_rawAttributes"]
                    ),
                    inner,
                    max_size=3,
                )
            ),
            max_leaves=12,
        ),
    )
)
def test_any_otel_js_span_reads_or_is_refused_at_its_place(span: dict[str, Any]) -> None:
    try:
        read_traces(json.dumps([span]).encode(), format="otel-js")
    except TraceReadError as exc:
        assert str(exc).startswith("<bytes>")
