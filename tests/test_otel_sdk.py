"""In-process capture: SDK ReadableSpans map to the same spans as their OTLP export."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

from tracecheck import Kind, iter_spans, spans_from_otel
from tracecheck.writers import to_otlp_proto


def record() -> InMemorySpanExporter:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "refund-desk"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("agent", "1.2.3")
    with tracer.start_as_current_span("invoke_agent refund", kind=SpanKind.SERVER) as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        root.set_attribute("run.status", "completed")
        with tracer.start_as_current_span("chat gpt-4o", kind=SpanKind.CLIENT) as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute("gen_ai.request.model", "gpt-4o")
            chat.set_attribute("gen_ai.usage.input_tokens", 120)
            chat.set_attribute("gen_ai.usage.output_tokens", 8)
            chat.set_attribute("gen_ai.tool.definitions", ("lookup_order", "issue_refund"))
            chat.add_event("gen_ai.choice", {"index": 0})
        with tracer.start_as_current_span("execute_tool lookup_order") as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            tool.set_attribute("gen_ai.tool.call.arguments", '{"order_id": "A-1"}')
            tool.set_status(Status(StatusCode.ERROR, "order service unavailable"))
    provider.shutdown()
    return exporter


def test_readable_spans_become_spans() -> None:
    spans = spans_from_otel(record().get_finished_spans())
    by_name = {span.name: span for span in spans}
    root, chat, tool = (
        by_name[n] for n in ("invoke_agent refund", "chat gpt-4o", "execute_tool lookup_order")
    )
    assert root.kind is Kind.AGENT and root.parent_span_id is None
    assert root.run_record.status == "completed"
    assert chat.parent_span_id == root.span_id and tool.parent_span_id == root.span_id
    assert len({s.trace_id for s in spans}) == 1 and len(root.trace_id or "") == 32
    assert (chat.kind, chat.model, chat.tokens.total) == (Kind.LLM, "gpt-4o", 128)
    assert chat.offered_tools is not None and chat.offered_tools.names == (
        "lookup_order",
        "issue_refund",
    )
    assert chat.events[0].name == "gen_ai.choice" and chat.events[0].attributes == {"index": 0}
    assert (tool.kind, tool.tool_name, tool.arguments.value) == (
        Kind.TOOL,
        "lookup_order",
        {"order_id": "A-1"},
    )
    assert (tool.status, tool.status_message) == ("error", "order service unavailable")
    assert (
        chat.resource["service.name"] == "refund-desk"
        and chat.attributes["service.name"] == "refund-desk"
    )
    assert chat.scope is not None and (chat.scope.name, chat.scope.version) == ("agent", "1.2.3")
    assert (root.otlp_kind, chat.otlp_kind, tool.otlp_kind) == (2, 3, 1)


def test_in_process_and_exported_spans_are_equal() -> None:
    spans = spans_from_otel(record().get_finished_spans())
    assert list(iter_spans(to_otlp_proto(spans))) == spans
