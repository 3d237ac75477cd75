"""Spans written back into Zipkin, Jaeger (UI, model, api_v3) and OpenTelemetry JS dumps, and
`tracecheck redact` keeping each of those formats with every string surface redacted.

Fake secrets only, glued together from parts at run time.
"""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redact import redact_spans
from tracecheck import iter_spans, read_traces
from tracecheck.cli import ExitCode, main
from tracecheck.readers import detect_format
from tracecheck.readers.otel_js import OtelJsStyle
from tracecheck.spans import Event, Scope, Span
from tracecheck.writers.layout import OUTPUT_FORMATS, Layout, encode, layout_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TRACER_FIXTURES = sorted(
    [
        *(FIXTURES / "zipkin").glob("*.json"),
        *(FIXTURES / "jaeger").glob("*.json"),
        *(FIXTURES / "otel-js").glob("*.sdk*.json"),
    ]
)
EMAIL = "jane.doe" + "@" + "example.com"
OPENAI_KEY = "sk-" + "proj-" + "FAKEfake0123456789" + "FAKEfake0123"
OWNER = "platform-owner" + "@" + "example.test"
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
ROOT = "00f067aa0ba902b7"
CHILD = "53995c3f42cd8ad8"
START = 1_714_564_800_123_456_000


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRACECHECK_PSEUDONYM_KEY", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")


def spans_of(source: Path | bytes) -> list[Span]:
    """Every span as recorded, repeats included."""
    return list(iter_spans(source))


# --- every recorded file written back reads as the same spans --------------------------------------


@pytest.mark.parametrize("path", TRACER_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_recorded_file_written_back_reads_as_the_same_spans(path: Path) -> None:
    format = detect_format(path)
    layout = layout_of(format, path.read_bytes())
    written = encode(spans_of(path), layout)
    assert detect_format(written) == format
    assert spans_of(written) == spans_of(path)
    if format in ("jaeger", "jaeger-model", "otel-js"):
        assert layout_of(format, written) == layout  # the same layout, not only the format


def test_layouts_are_found() -> None:
    model = (FIXTURES / "jaeger" / "clean.jaeger-model.json").read_bytes()
    assert layout_of("jaeger-model", model) == Layout("jaeger-model", "chunk")
    download = (FIXTURES / "jaeger" / "clean.jaeger.json").read_bytes()
    assert layout_of("jaeger", download) == Layout("jaeger", "download")
    raw = (FIXTURES / "otel-js" / "clean.sdk1.json").read_bytes()
    assert layout_of("otel-js", raw).style == OtelJsStyle(1, raw=True)
    plain = (FIXTURES / "otel-js" / "clean.sdk2.readable.json").read_bytes()
    assert layout_of("otel-js", plain).style == OtelJsStyle(2, raw=False)


def test_the_two_halves_of_a_shared_call_are_written_back_as_two_halves() -> None:
    path = FIXTURES / "zipkin" / "shared-rpc.zipkin.json"
    original = json.loads(path.read_text())
    written = orjson.loads(encode(spans_of(path), Layout("zipkin")))
    assert len(written) == len(original) == 13
    halves = [row for row in written if row["id"] == original[-1]["id"]]
    client, server = halves
    assert (client["kind"], client["name"], "shared" in client) == (
        "CLIENT",
        "post /tools/issue_refund",
        False,
    )
    assert server == original[-1]  # the server half, exactly as it was
    assert client["remoteEndpoint"] == {
        "serviceName": "refund-tools",
        "ipv4": "127.0.0.1",
        "port": 8081,
    }
    assert client["tags"] == {"http.method": "POST", "http.path": "/tools/issue_refund"}


def test_a_zipkin_span_keeps_kind_endpoints_annotations_and_debug() -> None:
    span = {
        "traceId": TRACE,
        "parentId": ROOT,
        "id": CHILD,
        "kind": "PRODUCER",
        "name": "publish refund",
        "timestamp": START // 1000,
        "duration": 1500,
        "localEndpoint": {"serviceName": "desk", "ipv6": "::1", "port": 9},
        "remoteEndpoint": {"serviceName": "queue"},
        "annotations": [
            {"timestamp": START // 1000 + 1, "value": "ws"},
            {"timestamp": START // 1000 + 2, "value": '{"exception":{"exception.type":"E"}}'},
        ],
        "tags": {"k": "v", "otel.status_code": "ERROR", "error": "boom"},
        "debug": True,
    }
    (row,) = orjson.loads(encode(spans_of(json.dumps([span]).encode()), Layout("zipkin")))
    assert row == span


def test_a_jaeger_download_keeps_processes_references_logs_and_warnings() -> None:
    path = FIXTURES / "jaeger" / "forbidden.jaeger.json"
    original = json.loads(path.read_text())
    written = orjson.loads(encode(spans_of(path), Layout("jaeger", "download")))
    (trace,) = written["data"]
    (before,) = original["data"]
    assert trace["processes"] == before["processes"]
    assert set(written) == {"data", "total", "limit", "offset", "errors"}
    for old, new in zip(before["spans"], trace["spans"], strict=True):
        assert new["references"] == old["references"]
        assert (new["startTime"], new["duration"], new["operationName"]) == (
            old["startTime"],
            old["duration"],
            old["operationName"],
        )
        assert sorted(map(json.dumps, new["tags"])) == sorted(map(json.dumps, old["tags"]))
        assert new["logs"] == old["logs"] and new["processID"] == old["processID"]


# --- properties: read -> write -> read gives the same spans ----------------------------------------

TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
HEX16 = st.binary(min_size=8, max_size=8).filter(any).map(bytes.hex)
HEX32 = st.binary(min_size=16, max_size=16).filter(any).map(bytes.hex)
NANOS = st.integers(1, 4_000_000_000).map(lambda us: START + us * 1000)
VALUES = (
    TEXT
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer())
)
KEYS = st.text("abcdefghij.", min_size=1, max_size=8).filter(
    lambda k: not k.startswith(("otel.", "zipkin.", "jaeger.", "error", "span.kind"))
)


@st.composite
def spans(draw: st.DrawFn) -> list[Span]:
    trace_id = draw(HEX32)
    ids = draw(st.lists(HEX16, min_size=1, max_size=4, unique=True))
    out = []
    for index, span_id in enumerate(ids):
        start = draw(NANOS)
        end = draw(st.none() | st.integers(0, 10**9).map(lambda d, s=start: s + d * 1000))
        status = draw(st.sampled_from([None, "ok", "error"]))
        message = draw(st.none() | TEXT.filter(bool)) if status == "error" else None
        resource = draw(st.dictionaries(KEYS, TEXT, max_size=2))
        service = draw(st.none() | TEXT.filter(bool))
        if service is not None:
            resource = {**resource, "service.name": service}
        out.append(
            Span(
                trace_id=trace_id,
                span_id=span_id,
                parent_span_id=ids[index - 1] if index else None,
                name=draw(TEXT),
                start_ns=start,
                end_ns=end,
                status=status,
                status_message=message,
                attributes={**resource, **draw(st.dictionaries(KEYS, VALUES, max_size=4))},
                events=tuple(
                    Event(name, draw(NANOS), attributes)
                    for name, attributes in draw(
                        st.lists(
                            st.tuples(TEXT, st.dictionaries(KEYS, TEXT, max_size=2)), max_size=2
                        )
                    )
                ),
                resource=resource,
                scope=draw(st.none() | st.builds(Scope, TEXT.filter(bool), TEXT)),
                otlp_kind=draw(st.integers(1, 5)),
            )
        )
    return out


LAYOUTS = [
    Layout("zipkin"),
    Layout("jaeger", "download"),
    Layout("jaeger", "list"),
    *(Layout("jaeger-model", variant) for variant in ("list", "chunk", "result", "trace")),
    Layout("jaeger-api-v3"),
    *(
        Layout("otel-js", style=OtelJsStyle(major, raw))
        for major in (1, 2)
        for raw in (True, False)
    ),
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spans(), st.sampled_from(LAYOUTS))
def test_read_write_read_gives_the_same_spans(original: list[Span], layout: Layout) -> None:
    first = encode(original, layout)
    assert detect_format(first) == layout.format
    once = spans_of(first)
    again = spans_of(encode(once, layout))
    assert again == once
    # What every format keeps of any span: ids, name, kind, times (to the microsecond), status.
    # Formats that group spans by scope (Jaeger API v3) may change their order, not their set.
    read = {(span.trace_id, span.span_id): span for span in once}
    assert len(read) == len(once) == len(original)
    for before in original:
        after = read[(before.trace_id, before.span_id)]
        assert (after.trace_id, after.span_id, after.parent_span_id, after.name) == (
            before.trace_id,
            before.span_id,
            before.parent_span_id,
            before.name,
        )
        assert after.otlp_kind == before.otlp_kind
        assert after.status == before.status
        assert after.start_ns is not None and abs(after.start_ns - (before.start_ns or 0)) < 1000
        assert (after.end_ns is None) == (before.end_ns is None)
        assert [e.name for e in after.events] == [e.name for e in before.events]
        for key, value in before.attributes.items():
            if isinstance(value, str):
                assert after.attributes[key] == value


@settings(max_examples=40, deadline=None)
@given(spans())
def test_formats_that_keep_types_keep_attribute_values(original: list[Span]) -> None:
    for layout in (Layout("jaeger", "download"), Layout("jaeger-model", "list")):
        for before, after in zip(original, spans_of(encode(original, layout)), strict=True):
            for key, value in before.attributes.items():
                read = after.attributes[key]
                assert read == value and type(read) is type(value), (layout, key)
                if isinstance(value, float):
                    assert math.isfinite(read)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spans(), st.sampled_from(LAYOUTS))
def test_redacted_spans_re_read_in_the_same_format(original: list[Span], layout: Layout) -> None:
    planted = [
        span.replace(
            name=f"{span.name} {EMAIL}",
            attributes={**span.attributes, "note": f"key {OPENAI_KEY}"},
            events=(*span.events, Event(f"to {EMAIL}", span.start_ns, {"m": EMAIL})),
        )
        for span in spans_of(encode(original, layout))
    ]
    redacted = redact_spans(planted, profile="share").spans
    data = encode(redacted, layout)
    assert detect_format(data) == layout.format
    assert EMAIL.encode() not in data and OPENAI_KEY.encode() not in data
    again = spans_of(data)
    assert [(s.span_id, s.start_ns, s.status) for s in again] == [
        (s.span_id, s.start_ns, s.status) for s in planted
    ]
    assert spans_of(encode(again, layout)) == again


# --- redact keeps the format, and redacts every string surface --------------------------------------


def leaky_zipkin() -> list[dict[str, Any]]:
    client = {
        "traceId": TRACE,
        "id": CHILD,
        "parentId": ROOT,
        "kind": "CLIENT",
        "name": f"mail {EMAIL}",
        "timestamp": START // 1000,
        "duration": 2000,
        "localEndpoint": {"serviceName": f"desk-{EMAIL}"},
        "remoteEndpoint": {"serviceName": f"crm {EMAIL}"},
        "annotations": [{"timestamp": START // 1000 + 1, "value": f"sent to {EMAIL}"}],
        "tags": {"api_key": OPENAI_KEY, "note": f"key {OPENAI_KEY}"},
    }
    server = {
        **client,
        "kind": "SERVER",
        "shared": True,
        "localEndpoint": {"serviceName": "crm"},
        "remoteEndpoint": None,
        "tags": {
            "gen_ai.tool.name": "call_crm",
            "gen_ai.tool.call.arguments": f'{{"e": "{EMAIL}"}}',
        },
        "annotations": [{"timestamp": START // 1000 + 2, "value": f"from {EMAIL}"}],
    }
    del server["remoteEndpoint"]
    root = {**client, "id": ROOT, "kind": None, "name": "agent", "tags": {}, "annotations": []}
    del root["parentId"]
    return [root, client, server]


def leaky_jaeger() -> dict[str, Any]:
    def tag(key: str, value: Any) -> dict[str, Any]:
        return {"key": key, "type": "string", "value": value}

    span = {
        "traceID": TRACE,
        "spanID": CHILD,
        "operationName": f"mail {EMAIL}",
        "references": [],
        "startTime": START // 1000,
        "duration": 2000,
        "tags": [tag("api_key", OPENAI_KEY), tag("note", f"key {OPENAI_KEY}")],
        "logs": [{"timestamp": START // 1000, "fields": [tag("event", f"to {EMAIL}")]}],
        "processID": "p1",
        "warnings": [f"user {EMAIL}"],
    }
    process = {"serviceName": f"desk {EMAIL}", "tags": [tag("owner", OWNER)]}
    return {"data": [{"traceID": TRACE, "spans": [span], "processes": {"p1": process}}]}


def leaky_otel_js() -> list[dict[str, Any]]:
    return [
        {
            "name": f"mail {EMAIL}",
            "kind": 2,
            "_spanContext": {"traceId": TRACE, "spanId": CHILD, "traceFlags": 1},
            "parentSpanId": ROOT,
            "startTime": [START // 10**9, START % 10**9],
            "endTime": [START // 10**9 + 1, 0],
            "status": {"code": 2, "message": f"denied for {EMAIL}"},
            "attributes": {"api_key": OPENAI_KEY, "note": f"key {OPENAI_KEY}"},
            "events": [{"name": "exception", "attributes": {"m": EMAIL}, "time": [1, 0]}],
            "links": [{"context": {"traceId": TRACE, "spanId": ROOT}, "attributes": {"m": EMAIL}}],
            "resource": {"_attributes": {"service.name": "desk", "owner": OWNER}},
            "instrumentationLibrary": {"name": "agent", "version": "1"},
        }
    ]


LEAKY = {
    "zipkin": lambda: json.dumps(leaky_zipkin()),
    "jaeger": lambda: json.dumps(leaky_jaeger(), indent=2),
    "jaeger-model": lambda: encode(
        spans_of(json.dumps(leaky_jaeger()).encode()), Layout("jaeger-model", "chunk")
    ).decode(),
    "otel-js": lambda: json.dumps(leaky_otel_js()),
}


@pytest.mark.parametrize("format", list(LEAKY))
def test_redact_writes_the_format_it_read_with_every_string_surface_redacted(
    format: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.json"
    source.write_text(LEAKY[format]())
    assert detect_format(source) == format
    out = tmp_path / "out.json"
    assert main(["redact", str(source), "-o", str(out), "--profile", "share"]) == ExitCode.OK
    data = out.read_bytes()
    for secret in (EMAIL, OPENAI_KEY, OWNER):
        assert secret.encode() not in data, secret
    assert detect_format(out) == format
    assert layout_of(format, data) == layout_of(format, source.read_bytes())
    before, after = spans_of(source), spans_of(out)
    assert [(s.span_id, s.start_ns, s.end_ns, s.status) for s in after] == [
        (s.span_id, s.start_ns, s.end_ns, s.status) for s in before
    ]
    assert main(["verify-safe", str(out), "--profile", "share"]) == ExitCode.OK
    assert "redacted" in capsys.readouterr().err


@pytest.mark.parametrize("output_format", OUTPUT_FORMATS)
def test_output_format_chooses_what_is_written(output_format: str, tmp_path: Path) -> None:
    source = FIXTURES / "otel-genai" / "clean.otlp.jsonl"
    out = tmp_path / "out.data"
    args = ["redact", str(source), "-o", str(out), "--output-format", output_format]
    assert main(args) == ExitCode.OK
    read_as = detect_format(out)
    assert read_as == ("otlp-json" if output_format == "otlp-jsonl" else output_format)
    (trace,) = read_traces(out)
    (original,) = read_traces(source)
    assert [(s.span_id, s.tool_name, s.model) for s in trace.spans] == [
        (s.span_id, s.tool_name, s.model) for s in original.spans
    ]


def test_a_claude_record_is_written_as_another_format_when_asked(tmp_path: Path) -> None:
    # Without --output-format it is written back as records (tests/test_redact_claude.py).
    source = FIXTURES / "claude" / "refund-stream.jsonl"
    out = tmp_path / "out.json"
    assert main(["redact", str(source), "-o", str(out), "--output-format", "zipkin"]) == 0
    assert detect_format(out) == "zipkin"


def test_a_gzip_zipkin_file_stays_gzip_zipkin(tmp_path: Path) -> None:
    import gzip

    source = tmp_path / "in.json.gz"
    source.write_bytes(gzip.compress((FIXTURES / "zipkin" / "clean.zipkin.json").read_bytes()))
    out = tmp_path / "out.json.gz"
    assert main(["redact", str(source), "-o", str(out)]) == ExitCode.OK
    assert out.read_bytes()[:2] == b"\x1f\x8b"
    assert detect_format(out) == "zipkin"
    assert len(spans_of(out)) == 11


def test_base64_ids_of_the_model_are_protobuf_json() -> None:
    written = orjson.loads(
        encode(
            spans_of(FIXTURES / "jaeger" / "clean.jaeger-model.json"),
            Layout("jaeger-model", "list"),
        )
    )
    assert base64.b64decode(written[0]["traceId"]).hex() == "bdfc178765b50e0a8be66e350728be0e"
    assert written[0]["duration"].endswith("s") and written[0]["startTime"].endswith("Z")
