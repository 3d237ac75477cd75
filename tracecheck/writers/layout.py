"""Every format spans can be written in, by name, and how a read file's own layout is found so
that it is written back the same way (`tracecheck redact` keeps the input's format)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import orjson

from tracecheck.formats import OUTPUT_FORMATS
from tracecheck.readers.common import ReadContext
from tracecheck.readers.jaeger import is_jaeger_document
from tracecheck.readers.jaeger_model import model_layout
from tracecheck.readers.otel_js import OtelJsStyle, otel_js_style
from tracecheck.readers.tracer_parts import json_values
from tracecheck.spans import Span
from tracecheck.writers.jaeger import to_jaeger, to_jaeger_api_v3, to_jaeger_model
from tracecheck.writers.otel_js import to_otel_js
from tracecheck.writers.otlp import to_otlp_json, to_otlp_jsonl, to_otlp_proto
from tracecheck.writers.span_events import to_trace_span_events
from tracecheck.writers.zipkin import to_zipkin

__all__ = ["OUTPUT_FORMATS", "Layout", "encode", "layout_of"]

_BATCH = 512  # spans per OTLP request (a JSONL line, a proto stream record), as SDKs batch


@dataclass(frozen=True, slots=True)
class Layout:
    """A format and how its file holds the spans: `variant` is `stream` (a length-prefixed
    proto stream), `lines` (JSON Lines of flat rows), a Jaeger download or `list`, a model
    `list`/`chunk`/`result`/`trace`; `style` is an OpenTelemetry JS dump's."""

    format: str
    variant: str = ""
    style: OtelJsStyle | None = None


def layout_of(format: str, data: bytes) -> Layout:
    """The layout of a file just read as `format` (its bytes, decompressed)."""
    if format not in ("jaeger", "jaeger-model", "otel-js"):
        return Layout(format)
    values = json_values(data, ReadContext("<layout>"))
    first = values[0][1] if values else None
    if format == "jaeger":
        return Layout(format, "download" if is_jaeger_document(first) else "list")
    if format == "jaeger-model":
        return Layout(format, model_layout(first))
    return Layout(format, style=otel_js_style(values))


def encode(spans: Sequence[Span], layout: Layout) -> bytes:
    """The spans in the layout's format."""
    format, variant = layout.format, layout.variant
    if format == "otlp-jsonl":
        return to_otlp_jsonl(_batches(spans))
    if format == "otlp-proto" and variant == "stream":
        return b"".join(
            len(body).to_bytes(4, "big") + body
            for body in (to_otlp_proto(batch) for batch in _batches(spans))
        )
    if format == "otlp-proto":
        return to_otlp_proto(spans)
    if format == "spans" and variant == "lines":
        return b"".join(orjson.dumps(row) + b"\n" for row in to_trace_span_events(spans))
    if format == "spans":
        return orjson.dumps(to_trace_span_events(spans))
    if format == "zipkin":
        return to_zipkin(spans)
    if format == "jaeger":
        return to_jaeger(spans, variant or "download")
    if format == "jaeger-model":
        return to_jaeger_model(spans, variant or "list")
    if format == "jaeger-api-v3":
        return to_jaeger_api_v3(spans)
    if format == "otel-js":
        return to_otel_js(spans, layout.style)
    return to_otlp_json(spans)


def _batches(spans: Sequence[Span]) -> Iterator[Sequence[Span]]:
    for start in range(0, len(spans), _BATCH):
        yield spans[start : start + _BATCH]
