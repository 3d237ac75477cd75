"""The instrumentation scope's name and version, and schema URLs, leave the exporter hook and the
proxy redacted: a token in a tracer's name never reaches the upstream."""

from __future__ import annotations

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, TraceFlags
from surfaces import TRACE, otlp_document, otlp_span, proxy_post

from redact.otel import RedactingSpanExporter
from tracecheck import read_traces

TOKEN = "ghp_" + "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5"
SCHEMA = "https://opentelemetry.io/schemas/1.26.0"


def span(scope: InstrumentationScope, resource: Resource) -> ReadableSpan:
    context = SpanContext(int(TRACE, 16), 1, False, TraceFlags(1))
    return ReadableSpan(
        name="work", context=context, resource=resource, instrumentation_scope=scope
    )


def test_the_hook_redacts_scope_name_and_version_and_drops_a_leaky_schema_url() -> None:
    inner = InMemorySpanExporter()
    exporter = RedactingSpanExporter(inner)
    leaky = span(
        InstrumentationScope(f"tracer {TOKEN}", f"v1-{TOKEN}", f"{SCHEMA}?key={TOKEN}"),
        Resource({"service.name": "desk"}, f"{SCHEMA}?key={TOKEN}"),
    )
    clean = span(InstrumentationScope("tracer", "1.0", SCHEMA), Resource({}, SCHEMA))
    assert exporter.export([leaky, clean]) is SpanExportResult.SUCCESS
    first, second = inner.get_finished_spans()
    assert first.instrumentation_scope is not None
    assert TOKEN not in first.instrumentation_scope.name
    assert TOKEN not in (first.instrumentation_scope.version or "")
    assert first.instrumentation_scope.schema_url == ""
    assert first.resource.schema_url == ""
    assert second.instrumentation_scope is not None
    assert (second.instrumentation_scope.name, second.instrumentation_scope.version) == (
        "tracer",
        "1.0",
    )
    assert second.instrumentation_scope.schema_url == SCHEMA
    assert second.resource.schema_url == SCHEMA


def test_the_proxy_redacts_the_scope_name() -> None:
    body = otlp_document(otlp_span("1" * 16, "work")).replace(
        b'"scope":{"name":"t"}', f'"scope":{{"name":"tracer {TOKEN}"}}'.encode()
    )
    response, _, upstream = proxy_post(body, "application/json")
    assert response.status_code == 200
    (forwarded,) = upstream.bodies
    assert TOKEN.encode() not in forwarded
    (trace,) = read_traces(forwarded)
    assert trace.spans[0].scope is not None
    assert trace.spans[0].scope.name.startswith("[REDACTED")
