"""What each format's records look like: the tests sniffing puts every input to.

Kept apart from the readers, so that telling a file's format loads no reader: `tracecheck
check` on an OTLP file imports neither the Zipkin, Jaeger, OpenTelemetry JS, flat-span nor
protobuf reader, each of which its own module re-exports its tests from.
"""

from __future__ import annotations

import struct
from typing import Any

__all__ = [
    "SPAN_ID_KEYS",
    "TRACE_ID_KEYS",
    "is_api_v3_answer",
    "is_jaeger_document",
    "is_jaeger_span",
    "is_model_span",
    "is_otel_js_span",
    "is_zipkin_span",
    "looks_like_flat_row",
    "looks_like_proto_message",
    "looks_like_proto_stream",
]

# How flat span rows name their ids (`flat` reads them in this order).
TRACE_ID_KEYS = ("traceId", "trace_id", "traceID")
SPAN_ID_KEYS = ("spanId", "span_id", "spanID", "id")

_PREFIX = struct.Struct(">I")  # a proto stream's length prefix
# ExportTraceServiceRequest.resource_spans (field 1, length-delimited), and the fields a
# ResourceSpans starts with (resource, scope_spans, schema_url).
_RESOURCE_SPANS_TAG = 0x0A
_RESOURCE_SPANS_FIELDS = (0x0A, 0x12, 0x1A)


def is_jaeger_document(document: Any) -> bool:
    """`{"data": [{"traceID": …, "spans": […], "processes": {…}}, …]}`."""
    data = document.get("data") if isinstance(document, dict) else None
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(t, dict) and "traceID" in t and "spans" in t for t in data[:3])
    )


def is_jaeger_span(row: Any) -> bool:
    """A span of Jaeger's JSON: `traceID` and `spanID`, spelled as Jaeger spells them."""
    return isinstance(row, dict) and "spanID" in row and "traceID" in row


def is_model_span(row: Any) -> bool:
    """A span of the model's JSON: `operationName` or a Duration string, with protobuf JSON's
    `traceId`/`spanId` (Jaeger's own JSON spells them `traceID`/`spanID`)."""
    if not isinstance(row, dict) or "spanID" in row or "traceID" in row or "name" in row:
        return False
    if "spanId" not in row and "traceId" not in row:
        return False
    duration = row.get("duration")
    return "operationName" in row or (isinstance(duration, str) and duration.endswith("s"))


def is_api_v3_answer(value: Any) -> bool:
    """`{"result": {"resourceSpans": [...]}}`."""
    result = value.get("result") if isinstance(value, dict) else None
    return isinstance(result, dict) and "resourceSpans" in result


def is_otel_js_span(row: Any) -> bool:
    """A span context object, and `startTime` as an `HrTime` pair."""
    if not isinstance(row, dict):
        return False
    context = row.get("_spanContext", row.get("spanContext"))
    start = row.get("startTime")
    return isinstance(context, dict) and (isinstance(start, list) or "traceId" in context)


def is_zipkin_span(row: Any) -> bool:
    """`id` rather than `spanId`, with an endpoint or a duration."""
    if not isinstance(row, dict) or "id" not in row or "traceId" not in row:
        return False
    if any(name in row for name in ("spanId", "span_id", "spanID")):
        return False
    return "localEndpoint" in row or "remoteEndpoint" in row or "duration" in row


def looks_like_flat_row(row: Any) -> bool:
    """A flat span row has span identity or timing at the top level and no OTLP nesting."""
    if not isinstance(row, dict) or "resourceSpans" in row or "resource_spans" in row:
        return False
    has_id = any(key in row for key in TRACE_ID_KEYS + SPAN_ID_KEYS[:3])
    has_eval_shape = "kind" in row and ("startedAt" in row or "toolName" in row)
    return has_id or has_eval_shape


def looks_like_proto_message(head: bytes, size: int | None) -> bool:
    """True when `head` starts like an `ExportTraceServiceRequest` of `size` bytes."""
    if len(head) < 2 or head[0] != _RESOURCE_SPANS_TAG:
        return False
    length, end = _varint(head, 1)
    if length is None or (size is not None and end + length > size):
        return False
    return end >= len(head) or length == 0 or head[end] in _RESOURCE_SPANS_FIELDS


def looks_like_proto_stream(head: bytes, size: int | None) -> bool:
    """True when `head` starts like a length-prefixed stream of requests."""
    if len(head) < _PREFIX.size + 2:
        return False
    (length,) = _PREFIX.unpack_from(head)
    if length == 0 or (size is not None and _PREFIX.size + length > size):
        return False
    return looks_like_proto_message(head[_PREFIX.size :], length)


def _varint(data: bytes, start: int) -> tuple[int | None, int]:
    value = shift = 0
    for index in range(start, min(len(data), start + 10)):
        byte = data[index]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, index + 1
        shift += 7
    return None, start
