"""Logs and metrics scrubbed as the proxy will receive them (`redact.shipping.signals`).

Requests are real encodings: log records emitted through the OpenTelemetry SDK's logs pipeline
and encoded by the OTLP exporters' own encoders (protobuf and JSON), metrics recorded by the
SDK's metrics pipeline, and messages built with the opentelemetry-proto classes. Fake secrets
are assembled at run time.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, ResourceLogs

import redact.walk
from redact.profiles import PROFILES
from redact.shipping import signals
from redact.shipping.signals import ScrubbedSignal, scrub_logs, scrub_metrics
from tracecheck.errors import TraceReadError
from tracecheck.writers import write_proto_value

TOKEN = "ghp_" + "A1b2C3d4E5" * 3 + "f6G7h8"  # a fake GitHub token, 36 characters after ghp_
EMAIL = "ada.lovelace" + "@" + "example.org"
KEY = "sk-" + "live" + "Q9w8E7r6T5y4U3i2"
# A profile under which raw content stays unsafe: redaction cannot make such a value safe.
RAW_UNSAFE = replace(
    PROFILES["share"],
    name="raw-unsafe",
    severity={**PROFILES["share"].severity, "raw-content": "error"},
)


# ---------------------------------------------------------------------------------------------
# Producing requests


def sdk_log_records(emit: Callable[[Any], None]) -> Any:
    """Log records as the OpenTelemetry SDK hands them to an exporter, inside a span."""
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider

    exporter = InMemoryLogRecordExporter()  # type: ignore[no-untyped-call]
    provider = LoggerProvider(resource=Resource.create({"service.name": "refund-desk"}))
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    logger = provider.get_logger("opentelemetry.instrumentation.openai_v2", "2.1b0")
    with TracerProvider().get_tracer("agent").start_as_current_span("chat gpt-4o"):
        emit(logger)
    return exporter.get_finished_logs()


def proto_logs(records: Any) -> bytes:
    from opentelemetry.exporter.otlp.proto.common._internal._log_encoder import encode_logs

    return encode_logs(records).SerializeToString()


def json_logs(records: Any) -> bytes:
    from opentelemetry.exporter.otlp.json.common._log_encoder import encode_logs

    return encode_logs(records).to_json().encode()


def genai_events(logger: Any) -> None:
    """What an OpenAI instrumentation with EVENT_ONLY capture emits for one chat call."""
    from opentelemetry._logs import SeverityNumber

    logger.emit(
        event_name="gen_ai.user.message",
        severity_number=SeverityNumber.INFO,
        body={"content": f"my token is {TOKEN}", "role": "user"},
        attributes={"gen_ai.system": "openai"},
    )
    logger.emit(
        event_name="gen_ai.choice",
        body={
            "index": 0,
            "finish_reason": "stop",
            "message": {"role": "assistant", "content": f"I wrote to {EMAIL}"},
        },
        attributes={"gen_ai.system": "openai"},
    )


def records_of(payload: bytes | None) -> list[Any]:
    assert payload is not None
    request = ExportLogsServiceRequest.FromString(payload)
    return [r for rl in request.resource_logs for sl in rl.scope_logs for r in sl.log_records]


def log_request(*records: LogRecord, resource: dict[str, Any] | None = None) -> bytes:
    """An export request of these records, written field by field: protobuf would refuse to
    copy a record nested past its depth limit into a request, and a proxy receives such bytes."""
    resource_logs = ResourceLogs()
    for key, value in (resource or {"service.name": "agent"}).items():
        added = resource_logs.resource.attributes.add()
        added.key = key
        write_proto_value(added.value, value)
    scope = InstrumentationScope(name="agent.events").SerializeToString()
    scope_logs = field(1, scope) + b"".join(field(2, r.SerializeToString()) for r in records)
    return field(1, resource_logs.SerializeToString() + field(2, scope_logs))


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes([*out, value])


def log_record(body: Any = None, *, event: str = "", **attributes: Any) -> LogRecord:
    record = LogRecord(event_name=event, time_unix_nano=1_700_000_000_000_000_000)
    record.trace_id = bytes.fromhex("5b8efff798038103d269b633813fc60c")
    record.span_id = bytes.fromhex("eee19b7ec3c1b174")
    if body is not None:
        write_proto_value(record.body, body)
    for key, value in attributes.items():
        added = record.attributes.add()
        added.key = key
        write_proto_value(added.value, value)
    return record


def nested(levels: int, leaf: Any = "x") -> Any:
    value = leaf
    for _ in range(levels):
        value = {"k": value}
    return value


# ---------------------------------------------------------------------------------------------
# The API


def test_public_api() -> None:
    assert signals.__all__ == ["ScrubbedSignal", "SignalEncoding", "scrub_logs", "scrub_metrics"]


def test_an_empty_request_leaves_nothing_to_forward() -> None:
    for encoding, body in (("proto", b""), ("json", b"{}")):
        out = scrub_logs(body, encoding)  # type: ignore[arg-type]
        assert (out.received, out.kept, out.dropped, out.payload) == (0, 0, 0, None)
        assert scrub_metrics(body, encoding).payload is None  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Logs


def test_genai_events_from_the_sdk_are_redacted_and_kept() -> None:
    records = sdk_log_records(genai_events)
    body = proto_logs(records)
    assert TOKEN.encode() in body and EMAIL.encode() in body

    out = scrub_logs(body, "proto", profile="share")

    assert isinstance(out, ScrubbedSignal)
    assert (out.received, out.kept, out.dropped, out.reasons, out.redacted) == (2, 2, 0, (), 2)
    assert out.payload is not None
    assert TOKEN.encode() not in out.payload and EMAIL.encode() not in out.payload
    before = ExportLogsServiceRequest.FromString(body).resource_logs[0].scope_logs[0].log_records
    after = records_of(out.payload)
    for old, new in zip(before, after, strict=True):
        # Ids, flags, times, severity and the event name are what the SDK wrote.
        for name in ("trace_id", "span_id", "flags", "observed_time_unix_nano", "severity_number"):
            assert getattr(new, name) == getattr(old, name)
        assert new.event_name == old.event_name
    assert after[0].body.kvlist_value.values[1].value.string_value == "user"
    assert {f.path: f.detector for f in out.report.findings} == {
        "log:0/body/content": "github-token",
        "log:1/body/message/content": "email",
    }


def test_genai_events_in_otlp_json_keep_their_hex_ids() -> None:
    from opentelemetry.proto_json.collector.logs.v1.logs_service import (
        ExportLogsServiceRequest as JsonRequest,
    )

    body = json_logs(sdk_log_records(genai_events))
    out = scrub_logs(body, "json", profile="share")

    assert (out.received, out.kept, out.dropped) == (2, 2, 0)
    assert out.payload is not None
    assert TOKEN.encode() not in out.payload and EMAIL.encode() not in out.payload
    sent, got = json.loads(body), json.loads(out.payload)
    sent_records = sent["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    got_records = got["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    for old, new in zip(sent_records, got_records, strict=True):
        assert len(new["traceId"]) == 32 and len(new["spanId"]) == 16
        assert (new["traceId"], new["spanId"]) == (old["traceId"], old["spanId"])
        assert new["observedTimeUnixNano"] == old["observedTimeUnixNano"]
    # The OpenTelemetry JSON classes read what the proxy would forward.
    parsed = JsonRequest.from_json(out.payload)
    record = parsed.resource_logs[0].scope_logs[0].log_records[0]
    assert record.trace_id is not None
    assert record.trace_id.hex() == sent_records[0]["traceId"]


def test_the_otlp_logs_example_round_trips_in_json() -> None:
    # opentelemetry-proto's examples/logs.json (upper-case hex ids, intValue as a number).
    body = json.dumps(LOGS_EXAMPLE).encode()
    out = scrub_logs(body, "json")
    assert (out.received, out.kept, out.redacted) == (1, 1, 0)
    assert out.payload is not None
    record = json.loads(out.payload)["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0]
    assert record["traceId"] == "5b8efff798038103d269b633813fc60c"
    assert record["spanId"] == "eee19b7ec3c1b174"
    assert record["timeUnixNano"] == "1544712660300000000"
    assert record["severityText"] == "Information"
    assert record["attributes"][2] == {"key": "int.attribute", "value": {"intValue": "10"}}
    assert record["attributes"][3] == {"key": "double.attribute", "value": {"doubleValue": 637.704}}
    # The OpenTelemetry JSON classes read the ids back as the bytes they name.
    from opentelemetry.proto_json.collector.logs.v1.logs_service import (
        ExportLogsServiceRequest as JsonRequest,
    )

    parsed = JsonRequest.from_json(out.payload).resource_logs[0].scope_logs[0].log_records[0]
    assert parsed.trace_id is not None and parsed.span_id is not None
    assert (parsed.trace_id.hex(), parsed.span_id.hex()) == (record["traceId"], record["spanId"])


def test_credentials_in_genai_message_attributes_are_redacted() -> None:
    messages = json.dumps([{"role": "user", "parts": [{"type": "text", "content": KEY}]}])
    record = log_record(
        event="gen_ai.client.inference.operation.details",
        **{"gen_ai.input.messages": messages, "gen_ai.request.model": "gpt-4o"},
    )
    for encoding in ("proto", "json"):
        body = log_request(record)
        if encoding == "json":
            body = json_of_proto_logs(body)
        out = scrub_logs(body, encoding, profile="share")
        assert (out.kept, out.dropped, out.redacted) == (1, 0, 1)
        assert out.payload is not None and KEY.encode() not in out.payload
        assert b"gpt-4o" in out.payload


def json_of_proto_logs(body: bytes) -> bytes:
    from redact.shipping.signals_json import message_to_json

    return json.dumps(message_to_json(ExportLogsServiceRequest.FromString(body))).encode()


def test_a_record_redaction_cannot_make_safe_is_dropped_and_counted() -> None:
    # Under this profile a body is raw content that must not leave and is not removed.
    held = log_record({"content": "hello"}, event="gen_ai.user.message")
    kept = log_record(event="agent.step", step="plan")
    out = scrub_logs(log_request(held, kept), "proto", profile=RAW_UNSAFE)
    assert (out.received, out.kept, out.dropped) == (2, 1, 1)
    assert out.reasons == ("UNSAFE (raw-content/raw-content-key)",)
    assert [r.event_name for r in records_of(out.payload)] == ["agent.step"]


def test_nothing_is_forwarded_when_every_record_is_held_back() -> None:
    body = log_request(log_record({"content": "hello"}))
    out = scrub_logs(body, "proto", profile=RAW_UNSAFE)
    assert (out.received, out.kept, out.dropped, out.payload) == (1, 0, 1, None)


def test_an_unsafe_resource_holds_back_every_record_under_it() -> None:
    body = log_request(log_record(event="a"), log_record(event="b"), resource={"prompt": "hi"})
    out = scrub_logs(body, "proto", profile=RAW_UNSAFE)
    assert out.reasons == ("UNSAFE (raw-content/raw-content-key)",) * 2
    assert out.payload is None


def test_resource_and_scope_strings_are_redacted() -> None:
    request = ExportLogsServiceRequest.FromString(log_request(log_record(event="e")))
    resource_logs = request.resource_logs[0]
    resource_logs.schema_url = f"https://schemas.example/{TOKEN}"
    resource_logs.resource.attributes[0].value.string_value = f"agent of {EMAIL}"
    resource_logs.scope_logs[0].scope.version = TOKEN
    resource_logs.scope_logs[0].scope.attributes.add(key="owner").value.string_value = EMAIL
    out = scrub_logs(request.SerializeToString(), "proto")
    assert out.kept == 1 and out.payload is not None
    assert TOKEN.encode() not in out.payload and EMAIL.encode() not in out.payload
    assert out.redacted == 0  # the record itself held nothing


def test_pseudonyms_agree_across_records_and_signals_with_one_key() -> None:
    logs = log_request(log_record(event="a", **{"user.id": "u-1042"}), log_record(event="b"))
    request = ExportMetricsServiceRequest()
    metric = request.resource_metrics.add().scope_metrics.add().metrics.add(name="m")
    metric.gauge.data_points.add(as_int=1).attributes.add(
        key="user.id"
    ).value.string_value = "u-1042"
    key = b"k" * 32
    first = records_of(scrub_logs(logs, "proto", pseudonym_key=key).payload)[0]
    again = records_of(scrub_logs(logs, "proto", pseudonym_key=key).payload)[0]
    out = scrub_metrics(request.SerializeToString(), "proto", pseudonym_key=key)
    point = ExportMetricsServiceRequest.FromString(out.payload or b"").resource_metrics[0]
    label = point.scope_metrics[0].metrics[0].gauge.data_points[0].attributes[0]
    pseudonym = first.attributes[0].value.string_value
    assert pseudonym.startswith("[ID:") and "u-1042" not in pseudonym
    assert again.attributes[0].value.string_value == label.value.string_value == pseudonym


def test_reasons_are_counted_by_kind() -> None:
    held = [log_record({"content": "hi"}, event=str(n)) for n in range(3)]
    body = log_request(*held, log_record(nested(33)), log_record(event="kept"))
    out = scrub_logs(body, "proto", profile=RAW_UNSAFE)
    assert out.reason_counts() == {
        "UNSAFE (raw-content/raw-content-key)": 3,
        "UNKNOWN (nested too deep)": 1,
    }
    assert (out.received, out.kept, out.dropped) == (5, 1, 4)


def test_an_absent_resource_or_scope_stays_absent() -> None:
    request = ExportLogsServiceRequest()
    request.resource_logs.add().scope_logs.add().log_records.add(event_name="bare")
    for encoding, body in (
        ("proto", request.SerializeToString()),
        ("json", b'{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"eventName":"bare"}]}]}]}'),
    ):
        out = scrub_logs(body, encoding)  # type: ignore[arg-type]
        if encoding == "proto":
            assert out.payload == request.SerializeToString()
        else:
            assert json.loads(out.payload or b"") == json.loads(body)


def test_a_record_nested_too_deep_is_dropped_alone() -> None:
    fine = log_record("ok", event="fine")
    # protobuf refuses the whole request (past 100 nested messages): it is read record by
    # record; this record parses alone, and holds more than MAX_VALUE_DEPTH levels.
    out = scrub_logs(log_request(log_record(nested(33), event="deep"), fine), "proto")
    assert (out.received, out.kept, out.reasons) == (2, 1, ("UNKNOWN (nested too deep)",))
    assert [r.event_name for r in records_of(out.payload)] == ["fine"]
    # This one does not even parse alone.
    out = scrub_logs(log_request(log_record(nested(40), event="deep"), fine), "proto")
    assert (out.received, out.kept, out.reasons) == (2, 1, ("UNKNOWN (could not be read)",))
    assert [r.event_name for r in records_of(out.payload)] == ["fine"]
    # Lists are cheaper for protobuf: the request parses whole, the record is still too deep.
    out = scrub_logs(log_request(log_record(event="deep", tags=nested_list(33)), fine), "proto")
    assert (out.received, out.kept, out.reasons) == (2, 1, ("UNKNOWN (nested too deep)",))
    # JSON nested past anything a record may hold is left out before it is converted.
    document = {
        "resourceLogs": [
            {
                "scopeLogs": [
                    {
                        "logRecords": [
                            {"eventName": "deep", "body": json_any(nested(60))},
                            {"eventName": "fine"},
                        ]
                    }
                ]
            }
        ]
    }
    out = scrub_logs(json.dumps(document).encode(), "json")
    assert (out.received, out.kept, out.reasons) == (2, 1, ("UNKNOWN (nested too deep)",))


def nested_list(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


def json_any(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        pairs = [{"key": k, "value": json_any(v)} for k, v in value.items()]
        return {"kvlistValue": {"values": pairs}}
    return {"stringValue": value}


def test_a_request_of_which_no_record_can_be_read_is_malformed() -> None:
    with pytest.raises(TraceReadError) as caught:
        scrub_logs(log_request(log_record(nested(40))), "proto")
    assert str(caught.value) == (
        "request body: is not a valid ExportLogsServiceRequest (malformed protobuf)"
    )


def test_a_record_whose_redaction_raises_is_dropped_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    mapping = redact.walk.Redactor.mapping

    def failing(self: Any, value: Any, path: str, depth: int) -> Any:
        if path.startswith("log:1/"):
            raise RuntimeError(TOKEN)
        return mapping(self, value, path, depth)

    monkeypatch.setattr(redact.walk.Redactor, "mapping", failing)
    body = log_request(log_record(event="a"), log_record(event="b"), log_record(event="c"))
    out = scrub_logs(body, "proto")
    assert out.reasons == ("UNKNOWN (could not be redacted: RuntimeError)",)
    assert [r.event_name for r in records_of(out.payload)] == ["a", "c"]


def test_a_record_that_cannot_be_written_is_dropped_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    from redact.shipping.signals_json import message_to_json as writer

    def failing(message: Any) -> dict[str, Any]:
        out = writer(message)
        if '"eventName": "b"' in json.dumps(out):
            raise ValueError(TOKEN)
        return out

    monkeypatch.setattr("redact.shipping.signals_wire.message_to_json", failing)
    body = json_of_proto_logs(log_request(log_record(event="a"), log_record(event="b")))
    out = scrub_logs(body, "json")
    assert (out.received, out.kept) == (2, 1)
    assert out.reasons == ("UNKNOWN (could not be encoded: ValueError)",)


def test_values_protobuf_keeps_but_the_judge_never_saw_are_not_forwarded() -> None:
    record = log_record(event="e")
    # An earlier duplicate of a key, and a field this OTLP version does not define.
    record.attributes.add(key="note").value.string_value = TOKEN
    record.attributes.add(key="note").value.string_value = "fine"
    unknown = b"\xfa\x06" + bytes([len(TOKEN)]) + TOKEN.encode()  # field 111, a string
    body = log_request(LogRecord.FromString(record.SerializeToString() + unknown))
    assert TOKEN.encode() in body
    out = scrub_logs(body, "proto")
    assert out.kept == 1 and out.payload is not None and TOKEN.encode() not in out.payload


def test_severity_text_is_judged_but_never_changed() -> None:
    record = log_record(event="e")
    record.severity_text = "WARN"
    leaky = log_record(event="leaky")
    leaky.severity_text = EMAIL
    out = scrub_logs(log_request(record, leaky), "proto")
    assert out.reasons == ("UNSAFE (personal-data/email)",)
    assert [r.severity_text for r in records_of(out.payload)] == ["WARN"]


# ---------------------------------------------------------------------------------------------
# Malformed bodies


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            {"resourceLogs": [{"scopeLogs": [{"logRecords": [{"timeUnixNano": TOKEN}]}]}]},
            "request body: resourceLogs[0].scopeLogs[0].logRecords[0].timeUnixNano: "
            "is a string of 40 character(s), not an integer",
        ),
        (
            {"resourceLogs": [{"scopeLogs": [{"logRecords": [{TOKEN: 1}]}]}]},
            "request body: resourceLogs[0].scopeLogs[0].logRecords[0]: "
            "has a field OTLP does not define (a string of 40 character(s))",
        ),
        (
            {"resourceLogs": [{"scopeLogs": [{"logRecords": [{"traceId": TOKEN}]}]}]},
            "request body: resourceLogs[0].scopeLogs[0].logRecords[0].traceId: "
            "is a string of 40 character(s), not 32 hex digits",
        ),
        (
            {
                "resourceLogs": [
                    {
                        "resource": {
                            "attributes": [{"key": "a", "value": {"bytesValue": TOKEN + "!"}}]
                        }
                    }
                ]
            },
            "request body: resourceLogs[0].resource.attributes[0].value.bytesValue: "
            "is a string of 41 character(s), not base64",
        ),
        (
            {"resourceLogs": {"token": TOKEN}},
            "request body: resourceLogs: is not a list",
        ),
    ],
)
def test_malformed_json_names_the_place_and_never_the_value(
    document: dict[str, Any], message: str
) -> None:
    with pytest.raises(TraceReadError) as caught:
        scrub_logs(json.dumps(document).encode(), "json")
    assert str(caught.value) == message
    assert TOKEN not in str(caught.value)


def test_the_kvlist_erratum_of_the_events_example_is_refused() -> None:
    # An older examples/events.json wrote a kvlistValue as a bare list, which is not OTLP.
    record = {"body": {"kvlistValue": [{"key": "url", "value": {"stringValue": TOKEN}}]}}
    document = {"resourceLogs": [{"scopeLogs": [{"logRecords": [record]}]}]}
    with pytest.raises(TraceReadError) as caught:
        scrub_logs(json.dumps(document).encode(), "json")
    assert str(caught.value) == (
        "request body: resourceLogs[0].scopeLogs[0].logRecords[0].body.kvlistValue: "
        "is a list, not an object"
    )


def test_bodies_that_are_not_requests_are_refused_without_echo() -> None:
    for scrub in (scrub_logs, scrub_metrics):
        with pytest.raises(TraceReadError) as caught:
            scrub(b'{"resourceLogs": [' + TOKEN.encode(), "json")
        assert str(caught.value) == (
            "request body: line 1, column 19: "
            "malformed JSON: unexpected character, expected a JSON value"
        )
        assert TOKEN not in str(caught.value)
        with pytest.raises(TraceReadError) as caught:
            scrub(b"\x0a\xff\xff\xff\xff\x0f" + TOKEN.encode(), "proto")
        assert TOKEN not in str(caught.value)
        with pytest.raises(TraceReadError):
            scrub(b"[]", "json")


# ---------------------------------------------------------------------------------------------
# Metrics


def metric_request() -> ExportMetricsServiceRequest:
    """One data point of each kind, each labelled with a credential and an e-mail address."""
    request = ExportMetricsServiceRequest()
    resource_metrics = request.resource_metrics.add()
    resource_metrics.resource.attributes.add(key="deploy.token").value.string_value = TOKEN
    scope_metrics = resource_metrics.scope_metrics.add()
    scope_metrics.scope.name = "agent.meter"
    metrics = scope_metrics.metrics
    gauge = metrics.add(name="queue.depth", unit="1", description="tasks waiting")
    gauge.gauge.data_points.add(as_int=7, time_unix_nano=5)
    total = metrics.add(name="gen_ai.client.token.usage", unit="{token}")
    total.sum.data_points.add(as_double=1234.5, time_unix_nano=5)
    total.sum.aggregation_temporality = 2  # type: ignore[assignment]
    total.sum.is_monotonic = True
    histogram = metrics.add(name="gen_ai.client.operation.duration", unit="s")
    buckets = histogram.histogram.data_points.add(count=3, sum=1.5, min=0.1, max=0.9)
    buckets.bucket_counts.extend([1, 2, 0])
    buckets.explicit_bounds.extend([0.5, 1.0])
    exemplar = buckets.exemplars.add(as_double=0.9, time_unix_nano=6)
    exemplar.trace_id = bytes.fromhex("5b8efff798038103d269b633813fc60c")
    exemplar.span_id = bytes.fromhex("eee19b7ec3c1b174")
    exemplar.filtered_attributes.add(key="request.auth").value.string_value = f"Bearer {TOKEN}"
    exponential = metrics.add(name="latency.exp")
    scaled = exponential.exponential_histogram.data_points.add(count=2, scale=3, zero_count=1)
    scaled.positive.offset = -2
    scaled.positive.bucket_counts.extend([1, 0, 1])
    summary = metrics.add(name="latency.summary")
    summary.summary.data_points.add(count=4, sum=2.0).quantile_values.add(quantile=0.99, value=1.5)
    for metric in metrics:
        for point in points_of(metric):
            point.attributes.add(key="user").value.string_value = EMAIL
            point.attributes.add(key="note").value.string_value = f"key {TOKEN}"
            point.attributes.add(key="gen_ai.operation.name").value.string_value = "chat"
    return request


def points_of(metric: Any) -> Any:
    return getattr(metric, str(metric.WhichOneof("data"))).data_points


def without_attributes(request: ExportMetricsServiceRequest) -> ExportMetricsServiceRequest:
    """The request's numbers, names and ids: everything scrubbing must leave as it is."""
    copy = ExportMetricsServiceRequest()
    copy.CopyFrom(request)
    for resource_metrics in copy.resource_metrics:
        resource_metrics.resource.ClearField("attributes")
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                for point in points_of(metric):
                    point.ClearField("attributes")
                    for exemplar in getattr(point, "exemplars", ()):
                        exemplar.ClearField("filtered_attributes")
    return copy


@pytest.mark.parametrize("encoding", ["proto", "json"])
def test_metric_attributes_are_redacted_and_values_unchanged(encoding: str) -> None:
    request = metric_request()
    body = request.SerializeToString()
    if encoding == "json":
        from redact.shipping.signals_json import message_to_json

        body = json.dumps(message_to_json(request)).encode()
    out = scrub_metrics(body, encoding, profile="share")  # type: ignore[arg-type]

    assert (out.received, out.kept, out.dropped, out.redacted) == (5, 5, 0, 5)
    assert out.payload is not None
    assert TOKEN.encode() not in out.payload and EMAIL.encode() not in out.payload
    if encoding == "json":
        document = json.loads(out.payload)
        points = document["resourceMetrics"][0]["scopeMetrics"][0]["metrics"][2]
        exemplar = points["histogram"]["dataPoints"][0]["exemplars"][0]
        assert exemplar["traceId"] == "5b8efff798038103d269b633813fc60c"
        assert exemplar["spanId"] == "eee19b7ec3c1b174"
        got = ExportMetricsServiceRequest()
        from redact.shipping.signals_json import fill_message

        fill_message(got, document, "")
    else:
        got = ExportMetricsServiceRequest.FromString(out.payload)
    assert without_attributes(got) == without_attributes(request)
    point = got.resource_metrics[0].scope_metrics[0].metrics[0].gauge.data_points[0]
    labels = {kv.key: kv.value.string_value for kv in point.attributes}
    assert labels["gen_ai.operation.name"] == "chat"
    assert labels["note"] == "[REDACTED:github-token]"
    assert EMAIL not in labels["user"]


def test_metric_attributes_that_stay_unsafe_become_markers() -> None:
    from redact.shipping.signals_json import message_to_json

    request = ExportMetricsServiceRequest()
    metric = request.resource_metrics.add().scope_metrics.add().metrics.add(name="prompts")
    point = metric.sum.data_points.add(as_int=3)
    point.attributes.add(key="prompt").value.string_value = "refund my order"
    # Deeper than MAX_VALUE_DEPTH: only JSON carries a metric that deep (protobuf refuses it).
    point.attributes.add(key="deep").value.CopyFrom(any_value(nested(33)))
    point.attributes.add(key="model").value.string_value = "gpt-4o"
    body = json.dumps(message_to_json(request)).encode()
    out = scrub_metrics(body, "json", profile=RAW_UNSAFE)
    assert (out.received, out.kept, out.dropped, out.redacted) == (1, 1, 0, 1)
    kept = json.loads(out.payload or b"")["resourceMetrics"][0]["scopeMetrics"][0]["metrics"][0]
    kept = kept["sum"]["dataPoints"][0]
    assert kept["asInt"] == "3"
    assert {kv["key"]: kv["value"]["stringValue"] for kv in kept["attributes"]} == {
        "prompt": "[REDACTED:raw-content-key]",
        "deep": "[REDACTED:depth-limit]",
        "model": "gpt-4o",
    }
    assert {f.detector for f in out.report.findings} == {"raw-content-key", "depth-limit"}


@pytest.mark.parametrize("field", ["name", "description", "unit"])
def test_a_metric_described_with_a_credential_is_held_back_whole(field: str) -> None:
    request = metric_request()
    metric = request.resource_metrics[0].scope_metrics[0].metrics[1]
    setattr(metric, field, f"calls with {TOKEN}")
    held = len(points_of(metric))
    out = scrub_metrics(request.SerializeToString(), "proto")
    assert (out.received, out.kept, out.dropped) == (5, 5 - held, held)
    assert out.reasons == ("UNSAFE (credential/github-token)",) * held
    assert out.payload is not None and TOKEN.encode() not in out.payload


def any_value(value: Any) -> Any:
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue

    out = AnyValue()
    write_proto_value(out, value)
    return out


@pytest.mark.parametrize(
    ("failing_at", "kept", "gone"),
    [
        ("resource:0/resource/", 0, None),
        ("metric:0/0/0/metadata", 4, "queue.depth"),
        ("metric:0/0/5/metadata", 5, "dataless"),
    ],
)
def test_a_metric_part_that_cannot_be_scrubbed_is_held_back_whole(
    monkeypatch: pytest.MonkeyPatch, failing_at: str, kept: int, gone: str | None
) -> None:
    mapping = redact.walk.Redactor.mapping

    def failing(self: Any, value: Any, path: str, depth: int) -> Any:
        if path.startswith(failing_at):
            raise RuntimeError(TOKEN)
        return mapping(self, value, path, depth)

    monkeypatch.setattr(redact.walk.Redactor, "mapping", failing)
    request = metric_request()
    # A metric with no data points still carries metadata: it goes with its part.
    dataless = request.resource_metrics[0].scope_metrics[0].metrics.add(name="dataless")
    dataless.metadata.add(key="owner").value.string_value = EMAIL
    out = scrub_metrics(request.SerializeToString(), "proto")
    assert (out.received, out.kept) == (5, kept)
    assert out.reasons == ("UNKNOWN (could not be redacted: RuntimeError)",) * (5 - kept)
    if gone is None:
        assert out.payload is None
        return
    assert out.payload is not None and EMAIL.encode() not in out.payload
    got = ExportMetricsServiceRequest.FromString(out.payload)
    names = [m.name for m in got.resource_metrics[0].scope_metrics[0].metrics]
    assert len(names) == 5 and gone not in names


def test_metrics_from_the_sdk_pipeline() -> None:
    from opentelemetry.exporter.otlp.proto.common._internal.metrics_encoder import encode_metrics
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    reader = InMemoryMetricReader()
    meter = MeterProvider(metric_readers=[reader]).get_meter("agent")
    counter = meter.create_counter("tool.calls")
    counter.add(2, {"tool": "refund", "api_key_hint": TOKEN})
    counter.add(1, {"tool": "lookup", "customer": EMAIL})
    meter.create_histogram("latency", unit="s").record(0.25, {"tool": "refund"})
    data = reader.get_metrics_data()
    assert data is not None
    body = encode_metrics(data).SerializeToString()

    out = scrub_metrics(body, "proto")

    assert (out.received, out.kept, out.dropped) == (3, 3, 0)
    assert out.payload is not None
    assert TOKEN.encode() not in out.payload and EMAIL.encode() not in out.payload
    got = ExportMetricsServiceRequest.FromString(out.payload)
    metrics = {m.name: m for m in got.resource_metrics[0].scope_metrics[0].metrics}
    assert sorted(p.as_int for p in metrics["tool.calls"].sum.data_points) == [1, 2]
    assert metrics["latency"].histogram.data_points[0].sum == 0.25


def test_a_metric_protobuf_cannot_read_costs_only_its_own_data_points() -> None:
    request = metric_request()
    deep = request.resource_metrics[0].scope_metrics[0].metrics.add(name="deep")
    for _ in range(2):
        deep.gauge.data_points.add(as_int=1).attributes.add(key="d").value.CopyFrom(
            any_value(nested(40))
        )
    out = scrub_metrics(request.SerializeToString(), "proto")
    assert (out.received, out.kept) == (7, 5)
    assert out.reasons == ("UNKNOWN (could not be read)",) * 2
    got = ExportMetricsServiceRequest.FromString(out.payload or b"")
    assert [m.name for m in got.resource_metrics[0].scope_metrics[0].metrics] == [
        m.name for m in metric_request().resource_metrics[0].scope_metrics[0].metrics
    ]


# ---------------------------------------------------------------------------------------------
# Property: a planted known secret never leaves


SCALARS = (
    st.text(max_size=12)
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False)
    | st.booleans()
    | st.binary(max_size=8)
)
TREES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)


def planted(tree: Any, secret: str, choice: int) -> Any:
    """`tree` with the secret put into one place: inside a string, or as a new item or key of
    a list or map (the `choice`-th place, depth first, modulo their number)."""
    places = _places(tree)
    if not places:
        return [tree, f"x{secret}y"]
    return _plant(tree, secret, [choice % places])


def _places(tree: Any) -> int:
    if isinstance(tree, str):
        return 1
    if isinstance(tree, list):
        return 1 + sum(_places(item) for item in tree)
    if isinstance(tree, dict):
        return 1 + sum(_places(item) for item in tree.values())
    return 0


def _plant(tree: Any, secret: str, left: list[int]) -> Any:
    if isinstance(tree, str | list | dict):
        here = left[0] == 0
        left[0] -= 1
        if here and isinstance(tree, str):
            return tree[:2] + secret + tree[2:]
        if here and isinstance(tree, list):
            return [*tree, secret]
        if here and isinstance(tree, dict):
            return {**tree, f"k{secret}": 1}
    if isinstance(tree, list):
        return [_plant(item, secret, left) for item in tree]
    if isinstance(tree, dict):
        return {key: _plant(item, secret, left) for key, item in tree.items()}
    return tree


def leaked(payload: bytes | None, secret: str) -> bool:
    if payload is None:
        return False
    forms = [secret.encode(), base64.b64encode(secret.encode()), secret.encode().hex().encode()]
    return any(form in payload for form in forms)


@settings(max_examples=60)
@given(
    tree=TREES,
    secret=st.text(
        "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", min_size=12, max_size=20
    ),
    choice=st.integers(min_value=0, max_value=50),
    where=st.sampled_from(["body", "attribute", "event", "metric"]),
)
def test_a_planted_known_secret_never_leaves(
    tree: Any, secret: str, choice: int, where: str
) -> None:
    value = planted(tree, secret, choice)
    if where == "metric":
        request = ExportMetricsServiceRequest()
        metric = request.resource_metrics.add().scope_metrics.add().metrics.add(name="m")
        point = metric.gauge.data_points.add(as_double=1.0)
        point.attributes.add(key="label").value.CopyFrom(any_value(value))
        body, scrub = request.SerializeToString(), scrub_metrics
    else:
        if where == "body":
            record = log_record(value, event="gen_ai.choice")
        elif where == "attribute":
            record = log_record(event="gen_ai.choice", **{"gen_ai.output.messages": value})
        else:
            record = log_record(event=f"gen_ai.{secret}")
        body, scrub = log_request(record, log_record("fine", event="other")), scrub_logs
    for encoding in ("proto", "json"):
        sent = body
        if encoding == "json":
            from redact.shipping.signals_json import message_to_json

            message = ExportMetricsServiceRequest if where == "metric" else ExportLogsServiceRequest
            sent = json.dumps(message_to_json(message.FromString(body))).encode()
        out = scrub(sent, encoding, known_secrets=[secret])
        assert not leaked(out.payload, secret)
        assert out.received == out.kept + out.dropped


LOGS_EXAMPLE: dict[str, Any] = {
    "resourceLogs": [
        {
            "resource": {
                "attributes": [{"key": "service.name", "value": {"stringValue": "my.service"}}]
            },
            "scopeLogs": [
                {
                    "scope": {
                        "name": "my.library",
                        "version": "1.0.0",
                        "attributes": [
                            {
                                "key": "my.scope.attribute",
                                "value": {"stringValue": "some scope attribute"},
                            }
                        ],
                    },
                    "logRecords": [
                        {
                            "timeUnixNano": 1544712660300000000,
                            "observedTimeUnixNano": 1544712660300000000,
                            "severityText": "Information",
                            "traceId": "5B8EFFF798038103D269B633813FC60C",
                            "spanId": "EEE19B7EC3C1B174",
                            "body": {"stringValue": "Example log record"},
                            "attributes": [
                                {
                                    "key": "string.attribute",
                                    "value": {"stringValue": "some string"},
                                },
                                {"key": "boolean.attribute", "value": {"boolValue": True}},
                                {"key": "int.attribute", "value": {"intValue": 10}},
                                {"key": "double.attribute", "value": {"doubleValue": 637.704}},
                                {
                                    "key": "array.attribute",
                                    "value": {
                                        "arrayValue": {
                                            "values": [
                                                {"stringValue": "many"},
                                                {"stringValue": "values"},
                                            ]
                                        }
                                    },
                                },
                                {
                                    "key": "map.attribute",
                                    "value": {
                                        "kvlistValue": {
                                            "values": [
                                                {
                                                    "key": "some.map.key",
                                                    "value": {"stringValue": "some value"},
                                                }
                                            ]
                                        }
                                    },
                                },
                            ],
                        }
                    ],
                }
            ],
        }
    ]
}


def test_ids_that_are_not_ids_hold_their_unit_back() -> None:
    """Protobuf takes bytes of any length as an id; such bytes are content no one judged."""
    smuggled = f"password={TOKEN}".encode()
    logs = ExportLogsServiceRequest()
    records = logs.resource_logs.add().scope_logs.add().log_records
    records.add(event_name="smuggler", trace_id=smuggled, span_id=b"\x01" * 8)
    records.add(event_name="fine", trace_id=b"\x02" * 16, span_id=b"\x03" * 8)
    records.add(event_name="no ids")
    out = scrub_logs(logs.SerializeToString(), "proto")
    assert (out.received, out.kept, out.reasons) == (
        3,
        2,
        ("UNKNOWN (an id is not 16 or 8 bytes)",),
    )
    assert out.payload is not None and TOKEN.encode() not in out.payload
    assert [r.event_name for r in records_of(out.payload)] == ["fine", "no ids"]

    metrics = metric_request()
    metric = metrics.resource_metrics[0].scope_metrics[0].metrics[0]
    points_of(metric)[0].exemplars.add(as_int=1, span_id=smuggled, trace_id=b"\x02" * 16)
    scrubbed = scrub_metrics(metrics.SerializeToString(), "proto")
    assert scrubbed.reasons == ("UNKNOWN (an id is not 16 or 8 bytes)",)
    assert scrubbed.payload is not None and TOKEN.encode() not in scrubbed.payload
