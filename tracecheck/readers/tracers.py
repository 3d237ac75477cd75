"""The formats of tracing back ends and SDKs that are not OTLP: how to tell them, how to read them.

| format          | what it is                                                        | module         |
|-----------------|-------------------------------------------------------------------|----------------|
| `zipkin`        | Zipkin v2 JSON: a list of spans, one span, or one per line         | `zipkin`       |
| `jaeger`        | Jaeger's JSON: its UI's download, `/api/traces`, or a list of its spans | `jaeger`  |
| `jaeger-model`  | Jaeger's protobuf model (`jaeger.api_v2`) as JSON: spans, chunks, batches, traces | `jaeger_model` |
| `jaeger-api-v3` | `/api/v3/traces` answers: OTLP/JSON inside `{"result": ...}`       | `jaeger_model` |
| `otel-js`       | OpenTelemetry JS `ReadableSpan`s dumped as JSON (SDK 1.x and 2.x)  | `otel_js`      |
| `langfuse-export` | Langfuse's traces and observations from its API and UI downloads | `langfuse_export` |

Each file is read whole: Zipkin's two halves of one call may be anywhere in it.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Iterable
from typing import IO, Any

from tracecheck.formats import TRACER_FORMATS
from tracecheck.readers.common import ReadContext
from tracecheck.readers.langfuse_shapes import langfuse_layout, looks_like_langfuse_text
from tracecheck.readers.shapes import (
    is_api_v3_answer,
    is_jaeger_document,
    is_jaeger_span,
    is_model_span,
    is_otel_js_span,
    is_zipkin_span,
)
from tracecheck.spans import Span

__all__ = [
    "TRACER_FORMATS",
    "TRACER_READERS",
    "read_tracer_values",
    "tracer_format_of_text",
    "tracer_format_of_value",
]

# Each format's reader, as (module, function), imported when a file of that format is read:
# telling the formats apart (below) needs none of them.
_READ_VALUES: dict[str, tuple[str, str]] = {
    "zipkin": ("tracecheck.readers.zipkin", "read_zipkin"),
    "jaeger": ("tracecheck.readers.jaeger", "read_jaeger"),
    "jaeger-model": ("tracecheck.readers.jaeger_model", "read_jaeger_model"),
    "jaeger-api-v3": ("tracecheck.readers.jaeger_model", "read_jaeger_api_v3"),
    "otel-js": ("tracecheck.readers.otel_js", "read_otel_js"),
    "langfuse-export": ("tracecheck.readers.langfuse_export", "read_langfuse_export"),
}


def read_tracer_values(format: str, data: bytes, ctx: ReadContext) -> list[Span]:
    """The spans of a whole file of one of these formats."""
    from tracecheck.readers.tracer_parts import json_values

    module, name = _READ_VALUES[format]
    read: Callable[[Any, ReadContext], list[Span]] = getattr(importlib.import_module(module), name)
    return read(json_values(data, ctx), ctx)


def _reader(
    format: str,
) -> Callable[[IO[bytes], bytes, int | None, ReadContext], Iterable[Span]]:
    def read(stream: IO[bytes], head: bytes, size: int | None, ctx: ReadContext) -> list[Span]:
        return read_tracer_values(format, stream.read(), ctx)

    return read


# What the file reader calls for each format: (stream, first bytes, size, context).
TRACER_READERS = {format: _reader(format) for format in TRACER_FORMATS}


def tracer_format_of_value(value: Any) -> str | None:
    """The format whose shape the first JSON value of a file has, or None."""
    if langfuse_layout(value) is not None:  # its observations name `traceId`: before the rest
        return "langfuse-export"
    if isinstance(value, dict):
        if is_api_v3_answer(value):
            return "jaeger-api-v3"
        if is_jaeger_document(value):
            return "jaeger"
        result = value.get("result")
        holder = result if isinstance(result, dict) else value
        spans = holder.get("spans")
        if isinstance(spans, list):
            first = next((row for row in spans[:5] if isinstance(row, dict)), None)
            if is_model_span(first):
                return "jaeger-model"
            return "jaeger" if is_jaeger_span(first) else None
        return _span_format(value)
    if isinstance(value, list):
        return _span_format(next((row for row in value[:5] if isinstance(row, dict)), None))
    return None


def _span_format(row: Any) -> str | None:
    if is_otel_js_span(row):
        return "otel-js"
    if is_zipkin_span(row):
        return "zipkin"
    if is_jaeger_span(row):
        return "jaeger"
    if is_model_span(row):
        return "jaeger-model"
    return None


_TextRule = tuple[str, tuple[re.Pattern[bytes], ...], re.Pattern[bytes] | None]


def _keys(*names: str) -> re.Pattern[bytes]:
    return re.compile(rb'"(?:' + "|".join(names).encode() + rb')"\s*:')


# Compiled on first use: only a document whose first line does not parse is judged by its
# text, and a dozen patterns cost a millisecond of every command's start-up.
@functools.cache
def _text_rules() -> tuple[
    re.Pattern[bytes], re.Pattern[bytes], re.Pattern[bytes], tuple[_TextRule, ...]
]:
    """`{"result": {`, an OTLP key, `operationName`, and the rules for a document whose first
    line does not parse (pretty-printed, or longer than the head): every pattern of a rule must
    be found in the first bytes, and not its `unless`."""
    operation = re.compile(rb'"operationName"\s*:')
    rules: tuple[_TextRule, ...] = (
        ("jaeger", (re.compile(rb'"data"\s*:\s*\['), _keys("traceID"), operation), None),
        ("jaeger", (_keys("traceID"), _keys("spanID"), operation), None),
        ("jaeger-model", (_keys("spanId"), operation), _keys("spanID", "traceID")),
        (
            "otel-js",
            (_keys("_spanContext", "spanContext"), re.compile(rb'"startTime"\s*:\s*\[')),
            None,
        ),
        ("zipkin", (_keys("traceId"), _keys("localEndpoint", "remoteEndpoint")), _keys("spanId")),
    )
    result = re.compile(rb'^\{\s*"result"\s*:\s*\{')
    otlp = re.compile(rb'"(?:resourceSpans|resource_spans)"\s*:')
    return result, otlp, operation, rules


def tracer_format_of_text(text: bytes) -> str | None:
    """The format the first bytes of a document show by their keys, or None."""
    if looks_like_langfuse_text(text):
        return "langfuse-export"
    result, otlp, operation, rules = _text_rules()
    if result.match(text):
        if otlp.search(text):
            return "jaeger-api-v3"
        return "jaeger-model" if operation.search(text) else None
    if otlp.search(text):
        return None
    for format, patterns, unless in rules:
        if all(p.search(text) for p in patterns) and not (unless and unless.search(text)):
            return format
    return None
