"""A span nested past what can be held is left out and counted, never an internal error, and
never the loss of the other spans of its file or batch.

Readers hold values nested at most `MAX_VALUE_DEPTH` (32) levels: what protobuf carries (its
parsers stop at 100 nested messages) and every writer writes back (orjson encodes 255 levels).
JSON nested past orjson's 1024 levels is parsed with the deepest parts cut (`deep_json`), and a
protobuf request past 100 levels is read part by part (`proto_split`). The proxy, the exporter
hook and the shipper drop such a span (UNKNOWN) and forward the rest.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanContext, TraceFlags
from surfaces import TRACE, kvlist, otlp_document, otlp_span, proxy_post

from redact.otel import RedactingSpanExporter
from redact.profiles import resolve_profile
from redact.shipping import ShipRefused, prepare_shipment
from redact.shipping.otlp import encodable
from redact.spans import scrub_spans
from tracecheck import read_traces
from tracecheck.cli import ExitCode, main
from tracecheck.readers import deep_json
from tracecheck.readers.common import MAX_VALUE_DEPTH
from tracecheck.spans import Span
from tracecheck.writers import to_otlp_json, to_otlp_proto

LEFT_OUT = "span {} holds a value nested deeper than 32 levels (in attributes[0]); it is left out"
PROTO_LEFT_OUT = "span {} is nested deeper than protobuf's 100 levels; it is left out"


def nested(depth: int) -> Any:
    """A Python value: `depth` maps, one inside the other."""
    value: Any = "leaf"
    for _ in range(depth):
        value = {"k": value}
    return value


def read(data: bytes) -> tuple[list[str], list[str]]:
    traces = read_traces(data)
    return [s.span_id or "" for t in traces for s in t.spans], [
        f"{n.where}: {n.message}" for t in traces for n in t.notes
    ]


# --- readers ----------------------------------------------------------------------------------


def test_the_limit_is_what_protobuf_carries() -> None:
    assert MAX_VALUE_DEPTH == 32


@pytest.mark.parametrize("depth", [32, 33, 300, 2000])
def test_an_otlp_json_span_nested_too_deep_is_left_out_with_a_note(depth: int) -> None:
    data = otlp_document(
        otlp_span("1" * 16, "before"),
        otlp_span("2" * 16, "deep", payload=kvlist(depth)),
        otlp_span("3" * 16, "after"),
    )
    ids, notes = read(data)
    if depth <= MAX_VALUE_DEPTH:
        assert (ids, notes) == (["1" * 16, "2" * 16, "3" * 16], [])
        return
    assert ids == ["1" * 16, "3" * 16]
    assert notes == ["resourceSpans[0].scopeSpans[0].spans[1]: " + LEFT_OUT.format("2" * 16)]


def test_json_past_the_parsers_1024_levels_is_cut_and_the_other_spans_read() -> None:
    # 100k levels of arrays in a field no reader reads, and a value nested 2000 levels.
    deep = otlp_span("2" * 16, "deep", payload=kvlist(2000))
    data = otlp_document(otlp_span("1" * 16, "before"), deep, otlp_span("3" * 16, "after"))
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(data)
    unknown = data.replace(
        b'"name":"before"', b'"name":"before","x":' + b"[" * 100_000 + b"]" * 100_000
    )
    ids, notes = read(unknown)
    assert ids == ["1" * 16, "3" * 16]
    assert notes == ["resourceSpans[0].scopeSpans[0].spans[1]: " + LEFT_OUT.format("2" * 16)]


def test_json_lines_and_a_deep_resource() -> None:
    line_ok = otlp_document(otlp_span("1" * 16, "ok"))
    line_deep = otlp_document(
        otlp_span("2" * 16, "a"), otlp_span("3" * 16, "b"), resource={"r": kvlist(40)}
    )
    ids, notes = read(line_ok + b"\n" + line_deep + b"\n")
    assert ids == ["1" * 16]
    reason = "has a resource that holds a value nested deeper than 32 levels; it is left out"
    assert notes == [
        f"line 2: resourceSpans[0].scopeSpans[0].spans[0]: span {'2' * 16} {reason}",
        f"line 2: resourceSpans[0].scopeSpans[0].spans[1]: span {'3' * 16} {reason}",
    ]


@pytest.mark.parametrize("depth", [31, 32, 40, 300])
def test_a_protobuf_span_nested_past_100_messages_is_left_out(depth: int) -> None:
    spans = [
        Span(TRACE, "1" * 16, name="before"),
        Span(TRACE, "2" * 16, name="deep", attributes={"payload": nested(depth)}),
        Span(TRACE, "3" * 16, name="after"),
    ]
    ids, notes = read(to_otlp_proto(spans))
    if depth <= 31:  # 31 maps: 99 messages deep inside the request
        assert (ids, notes) == (["1" * 16, "2" * 16, "3" * 16], [])
        return
    assert ids == ["1" * 16, "3" * 16]
    assert notes == ["resourceSpans[0].scopeSpans[0].spans[1]: " + PROTO_LEFT_OUT.format("2" * 16)]


def test_a_malformed_protobuf_is_still_an_error(tmp_path: Any) -> None:
    data = to_otlp_proto([Span(TRACE, "1" * 16, name="x")])
    path = tmp_path / "cut.pb"
    path.write_bytes(data[:-3])
    assert main(["show", str(path)]) == ExitCode.UNREADABLE


def test_flat_rows_cut_a_value_too_deep_and_keep_the_row() -> None:
    rows = [
        {
            "traceId": TRACE,
            "spanId": "1" * 16,
            "name": "deep",
            "attributes": {"x": nested(40), "y": 1},
        },
        {"traceId": TRACE, "spanId": "2" * 16, "name": "fine"},
    ]
    traces = read_traces(orjson.dumps(rows))
    (first, second) = traces[0].spans
    assert first.attributes["x"] == deep_json.MARKER
    assert first.attributes["y"] == 1
    assert second.name == "fine"
    assert [f"{n.where}: {n.message}" for n in traces[0].notes] == [
        "[0]: holds a value nested deeper than 32 levels; it reads as "
        '"[tracecheck: nested too deep to read]"'
    ]


def test_deep_json_cuts_only_what_lies_past_its_depth() -> None:
    shallow = b'{"a": [1, {"b": "[{not a bracket}]"}]}'
    assert deep_json.loads(shallow) == orjson.loads(shallow)
    value = deep_json.loads(b'{"keep": 1, "deep": ' + b"[" * 2000 + b"]" * 2000 + b"}")
    assert value["keep"] == 1
    level, depth = value["deep"], 1
    while isinstance(level, list):
        level, depth = level[0], depth + 1
    assert (level, depth) == (deep_json.MARKER, deep_json.CUT_DEPTH)
    with pytest.raises(orjson.JSONDecodeError) as info:
        deep_json.loads(b"[" * 2000 + b"]" * 1999)  # malformed as well as deep
    assert info.value.msg.startswith("depth limit exceeded")


# --- the CLI ----------------------------------------------------------------------------------


def test_check_show_and_redact_read_the_rest_and_redact_warns(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.otlp.json"
    path.write_bytes(
        otlp_document(otlp_span("1" * 16, "before"), otlp_span("2" * 16, "deep", p=kvlist(50)))
    )
    assert main(["show", str(path)]) == ExitCode.OK
    assert "before" in capsys.readouterr().out
    out = tmp_path / "out.otlp.json"
    assert main(["redact", str(path), "-o", str(out)]) == ExitCode.OK
    err = capsys.readouterr().err
    assert err.splitlines()[0] == (
        f"tracecheck: warning: {path}: resourceSpans[0].scopeSpans[0].spans[1]: "
        + LEFT_OUT.format("2" * 16)
    )
    assert [s.span_id for t in read_traces(out) for s in t.spans] == ["1" * 16]
    # verify-safe judges the bytes as well: a value it cannot read is never SAFE.
    assert main(["verify-safe", str(path)]) == ExitCode.FAILED
    assert capsys.readouterr().out.splitlines()[0] == f"{path}: UNKNOWN"


# --- the proxy, the exporter hook, the shipper -------------------------------------------------


@pytest.mark.parametrize("encoding", ["json", "proto"])
def test_the_proxy_drops_and_counts_a_span_too_deep_and_forwards_the_rest(encoding: str) -> None:
    if encoding == "json":
        body = otlp_document(
            otlp_span("1" * 16, "before"),
            otlp_span("2" * 16, "deep", payload=kvlist(2000)),
            otlp_span("3" * 16, "after"),
        )
        media = "application/json"
    else:
        spans = [
            Span(TRACE, "1" * 16, name="before"),
            Span(TRACE, "2" * 16, name="deep", attributes={"payload": nested(40)}),
            Span(TRACE, "3" * 16, name="after"),
        ]
        body, media = to_otlp_proto(spans), "application/x-protobuf"
    response, app, upstream = proxy_post(body, media)
    assert response.status_code == 200
    if encoding == "json":
        partial = orjson.loads(response.content)["partialSuccess"]
        assert partial["rejectedSpans"] == "1"
        message = partial["errorMessage"]
        forwarded = [s.span_id for t in read_traces(upstream.bodies[0]) for s in t.spans]
    else:
        answer = ExportTraceServiceResponse.FromString(response.content)
        assert answer.partial_success.rejected_spans == 1
        message = answer.partial_success.error_message
        request = ExportTraceServiceRequest.FromString(upstream.bodies[0])
        forwarded = [
            s.span_id.hex() for r in request.resource_spans for g in r.scope_spans for s in g.spans
        ]
    assert forwarded == ["1" * 16, "3" * 16]
    assert (
        message
        == "1 span is still not share-safe after redaction and not forwarded: UNKNOWN (unreadable) ×1"
    )
    assert app.metrics.value("tracecheck_proxy_spans_dropped_unsafe_total") == 1
    assert app.metrics.value("tracecheck_proxy_spans_received_total") == 3
    assert app.metrics.value("tracecheck_proxy_spans_forwarded_total") == 2


def test_the_proxy_drops_a_span_the_encoder_refuses() -> None:
    def picky(spans: Any) -> bytes:
        if any(span.name == "unwritable" for span in spans):
            raise TypeError("Recursion limit reached")
        return to_otlp_json(spans)

    body = otlp_document(otlp_span("1" * 16, "fine"), otlp_span("2" * 16, "unwritable"))
    spans = [s for t in read_traces(body) for s in t.spans]
    data, kept, dropped = encodable(spans, picky, resolve_profile("share"))
    assert [s.name for s in kept] == ["fine"]
    assert [(d.span_id, d.verdict.status.value) for d in dropped] == [("2" * 16, "UNKNOWN")]
    assert [s.name for t in read_traces(data) for s in t.spans] == ["fine"]


def sdk_span(span_id: int, name: str, **attributes: Any) -> ReadableSpan:
    context = SpanContext(int(TRACE, 16), span_id, False, TraceFlags(1))
    return ReadableSpan(name=name, context=context, attributes=attributes)


def test_the_exporter_hook_drops_and_counts_a_span_too_deep(
    caplog: pytest.LogCaptureFixture,
) -> None:
    inner = InMemorySpanExporter()
    exporter = RedactingSpanExporter(inner)
    batch = [
        sdk_span(1, "before"),
        sdk_span(2, "deep", payload=nested(100_000)),
        sdk_span(3, "after"),
    ]
    with caplog.at_level(logging.WARNING, logger="redact.otel"):
        assert exporter.export(batch) is SpanExportResult.SUCCESS
    assert [s.name for s in inner.get_finished_spans()] == ["before", "after"]
    assert exporter.counters == {
        "received": 3,
        "exported": 2,
        "redacted_values": 0,
        "dropped_unsafe": 1,
        "dropped_errors": 0,
        "export_failed": 0,
        "dropped_after_shutdown": 0,
    }
    assert [r.getMessage() for r in caplog.records] == [
        "dropped 1 span whose redacted form is UNKNOWN (unreadable); further drops of this kind "
        "are counted, not logged"
    ]


def test_the_exporter_hook_drops_only_the_span_whose_redaction_fails(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def fragile(spans: Any, **options: Any) -> Any:
        if any(span.name == "fragile" for span in spans):
            raise RuntimeError("the redactor broke")
        return scrub_spans(spans, **options)

    inner = InMemorySpanExporter()
    exporter = RedactingSpanExporter(inner, scrub=fragile)
    batch = [sdk_span(1, "before"), sdk_span(2, "fragile"), sdk_span(3, "after")]
    with caplog.at_level(logging.WARNING, logger="redact.otel"):
        assert exporter.export(batch) is SpanExportResult.SUCCESS
    assert [s.name for s in inner.get_finished_spans()] == ["before", "after"]
    assert (exporter.exported, exporter.dropped_errors) == (2, 1)
    assert [r.getMessage() for r in caplog.records] == [
        "dropped 1 span whose redaction failed (RuntimeError); the rest of the batch was sent; "
        "further drops of this kind are counted, not logged"
    ]


def test_the_shipper_refuses_or_drops_a_span_too_deep() -> None:
    spans = [
        Span(TRACE, "1" * 16, name="fine", start_ns=1, end_ns=2),
        Span(TRACE, "2" * 16, name="deep", start_ns=1, end_ns=2, attributes={"p": nested(5000)}),
    ]
    with pytest.raises(ShipRefused) as info:
        prepare_shipment(spans)
    assert str(info.value) == (
        "1 of 2 spans are not safe to share after redaction (UNKNOWN ×1); nothing sent"
    )
    assert info.value.dropped[0].verdict.unreadable == (
        "span:2222222222222222/: holds a value nested deeper than 32 levels",
    )
    shipment = prepare_shipment(spans, on_unsafe="drop")
    assert [span_id for batch in shipment.batches for _, span_id in batch.span_ids] == ["1" * 16]
    assert [d.span_id for d in shipment.dropped_unsafe] == ["2" * 16]
