"""The proxy's `/v1/logs` and `/v1/metrics`: an app that points every signal at the proxy
(`OTEL_EXPORTER_OTLP_ENDPOINT`) gets its logs scrubbed, GenAI events included, and its metrics
passed through with scrubbed attributes. Each request comes from the OpenTelemetry SDK's own
exporters, over loopback, to a proxy in front of a capturing upstream."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import orjson
import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from test_proxy import SECRETS, Upstream, proxy_to, serve

from redact.shipping.proxy import ProxyApp

pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

TOKEN = SECRETS.provider_keys[2]  # a GitHub-style token, built at run time
EMAIL = SECRETS.emails[0]


@contextmanager
def stack(**options: Any) -> Iterator[tuple[str, ProxyApp, Upstream]]:
    upstream = Upstream()
    with serve(upstream) as upstream_url, proxy_to(upstream_url, **options) as (url, app):
        yield url, app, upstream


def emit_genai_events(url: str, exporter_kind: str) -> Any:
    """An app's OpenAI instrumentation with EVENT_ONLY capture, exporting its logs to `url`."""
    from opentelemetry._logs import SeverityNumber
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
    from opentelemetry.sdk.resources import Resource

    if exporter_kind == "proto":
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    else:
        from opentelemetry.exporter.otlp.json.http._log_exporter import (  # type: ignore[no-redef]
            OTLPLogExporter,
        )
    exporter = OTLPLogExporter(endpoint=f"{url}/v1/logs", timeout=10)
    provider = LoggerProvider(resource=Resource.create({"service.name": "refund-desk"}))
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    logger = provider.get_logger("opentelemetry.instrumentation.openai_v2", "2.1b0")
    logger.emit(
        event_name="gen_ai.user.message",
        severity_number=SeverityNumber.INFO,
        body={"content": f"my token is {TOKEN}", "role": "user"},
        attributes={"gen_ai.system": "openai"},
    )
    logger.emit(
        event_name="gen_ai.choice",
        body={"index": 0, "message": {"role": "assistant", "content": f"mail {EMAIL}"}},
        attributes={"gen_ai.system": "openai"},
    )
    provider.shutdown()


def logs_of(arrival: Any) -> ExportLogsServiceRequest:
    request = ExportLogsServiceRequest()
    if arrival.content_type.startswith("application/json"):
        from redact.shipping.signals_json import fill_message

        fill_message(request, orjson.loads(arrival.body), "")
    else:
        request.ParseFromString(arrival.body)
    return request


@pytest.mark.parametrize(("exporter_kind", "processes"), [("proto", 1), ("json", 1), ("proto", 2)])
def test_genai_log_events_are_scrubbed_before_they_leave(
    exporter_kind: str, processes: int
) -> None:
    with stack(scrub_processes=processes) as (url, app, upstream):
        emit_genai_events(url, exporter_kind)
    arrivals = [a for a in upstream.arrivals if a.path == "/v1/logs"]
    assert len(arrivals) == 2  # the simple processor exports each record on its own
    for arrival in arrivals:
        assert TOKEN.encode() not in arrival.body and EMAIL.encode() not in arrival.body
    events = [
        record.event_name
        for arrival in arrivals
        for resource_logs in logs_of(arrival).resource_logs
        for scope_logs in resource_logs.scope_logs
        for record in scope_logs.log_records
    ]
    assert events == ["gen_ai.user.message", "gen_ai.choice"]
    received = 'tracecheck_proxy_records_received_total{signal="logs"}'
    forwarded = 'tracecheck_proxy_records_forwarded_total{signal="logs"}'
    rendered = app.metrics.render()
    assert f"{received} 2\n" in rendered and f"{forwarded} 2\n" in rendered


def test_a_log_record_that_stays_unsafe_is_dropped_and_answered_as_rejected(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from test_shipping_signals import RAW_UNSAFE, json_logs, proto_logs, sdk_log_records

    def emit(logger: Any) -> None:
        logger.emit(event_name="agent.step", body="refund order 1234")
        logger.emit(event_name="agent.note", attributes={"gen_ai.system": "openai"})

    records = sdk_log_records(emit)
    caplog.set_level(logging.WARNING, logger="redact.proxy")
    with stack(profile=RAW_UNSAFE) as (url, _app, upstream):
        proto = httpx.post(
            f"{url}/v1/logs",
            content=proto_logs(records),
            headers={"content-type": "application/x-protobuf"},
        )
        json = httpx.post(
            f"{url}/v1/logs",
            content=json_logs(records),
            headers={"content-type": "application/json"},
        )
    assert proto.status_code == json.status_code == 200
    partial = ExportLogsServiceResponse.FromString(proto.content).partial_success
    assert partial.rejected_log_records == 1
    assert partial.error_message.startswith(
        "1 log record is still not share-safe after redaction and not forwarded: UNSAFE ("
    )
    assert orjson.loads(json.content)["partialSuccess"]["rejectedLogRecords"] == "1"
    kept = [logs_of(a) for a in upstream.arrivals if a.path == "/v1/logs"]
    assert len(kept) == 2
    for request in kept:
        names = [r.event_name for r in request.resource_logs[0].scope_logs[0].log_records]
        assert names == ["agent.note"]
    assert b"refund order" not in b"".join(a.body for a in upstream.arrivals)
    logged = [r.getMessage() for r in caplog.records if "log record dropped" in r.getMessage()]
    assert len(logged) == 1 and "refund order" not in logged[0]


def test_metrics_pass_through_with_their_attributes_scrubbed() -> None:
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

    with stack() as (url, app, upstream):
        exporter = OTLPMetricExporter(endpoint=f"{url}/v1/metrics", timeout=10)
        reader = PeriodicExportingMetricReader(exporter, export_interval_millis=60_000)
        provider = MeterProvider(metric_readers=[reader])
        meter = provider.get_meter("opentelemetry.instrumentation.openai_v2")
        tokens = meter.create_counter("gen_ai.client.token.usage", unit="{token}")
        tokens.add(120, {"gen_ai.request.model": "gpt-4o", "user.email": EMAIL})
        tokens.add(30, {"gen_ai.request.model": "gpt-4o", "note": f"key {TOKEN}"})
        provider.shutdown()  # exports once more, then stops
    arrivals = [a for a in upstream.arrivals if a.path == "/v1/metrics"]
    assert arrivals and all(a.status == 200 for a in arrivals)
    body = b"".join(a.body for a in arrivals)
    assert TOKEN.encode() not in body and EMAIL.encode() not in body
    request = ExportMetricsServiceRequest.FromString(arrivals[0].body)
    metric = request.resource_metrics[0].scope_metrics[0].metrics[0]
    assert metric.name == "gen_ai.client.token.usage"
    assert sorted(point.as_int for point in metric.sum.data_points) == [30, 120]
    assert app.metrics.value("tracecheck_proxy_records_received_total", signal="metrics") >= 2


def test_a_logs_body_that_is_not_a_request_is_400_without_its_content() -> None:
    with stack() as (url, _app, upstream):
        response = httpx.post(
            f"{url}/v1/logs",
            content=b'{"resourceLogs": [{"scopeLogs": 7}]}',
            headers={"content-type": "application/json"},
        )
    assert response.status_code == 400
    assert "resourceLogs[0].scopeLogs" in orjson.loads(response.content)["message"]
    assert upstream.arrivals == []
