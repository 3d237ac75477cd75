"""The OTLP/HTTP messages the proxy reads and writes: content types, the export request read as
spans and written back, the export response (with its partial success) and the `Status` body of
a refused request, and what an upstream's answer says."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, Literal

import orjson
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from redact.isolated import unreadable_span
from redact.model import FindingTally, verdict_of
from redact.profiles import Profile
from redact.spans import DroppedSpan
from tracecheck.readers.common import ReadContext, Skipped
from tracecheck.readers.otlp_json import read_otlp_json
from tracecheck.readers.otlp_proto import read_request
from tracecheck.readers.proto_attributes import ProtoAttributes
from tracecheck.readers.proto_split import write_varint
from tracecheck.spans import Span
from tracecheck.writers.otlp import to_otlp_json, to_otlp_proto

__all__ = [
    "CONTENT_TYPES",
    "ENCODERS",
    "MEDIA_TYPES",
    "Encoding",
    "encodable",
    "export_response",
    "parse_spans",
    "skipped_span",
    "status_body",
    "upstream_message",
    "upstream_partial",
]

Encoding = Literal["proto", "json"]

CONTENT_TYPES: Final[dict[str, Encoding]] = {
    "application/x-protobuf": "proto",
    "application/json": "json",
}
MEDIA_TYPES: Final[dict[Encoding, str]] = {
    "proto": "application/x-protobuf",
    "json": "application/json",
}
# google.rpc.Code values for the Status body of a failed request.
_RPC_CODES: Final[dict[int, int]] = {
    400: 3,  # INVALID_ARGUMENT
    404: 5,  # NOT_FOUND
    405: 12,  # UNIMPLEMENTED
    413: 3,
    415: 3,
    429: 8,  # RESOURCE_EXHAUSTED
    500: 13,  # INTERNAL
    503: 14,  # UNAVAILABLE
}


def parse_spans(body: bytes, encoding: Encoding) -> tuple[list[Span], list[Skipped]]:
    """The request's spans, and those left out: nested past the depth readers hold, or with
    an id that is no OTLP id (readers keep any length, for checking; here the bytes would go
    upstream unjudged, so such a span is held back, and its ids are not repeated)."""
    ctx = ReadContext("request body")
    if encoding == "json":
        read = list(read_otlp_json(body, ctx))
    else:
        # Scrubbing looks at every value several times (depth, prescan, redaction, the gate):
        # converted once here, instead of through the lazy mapping at each look (−20% a batch).
        read = [_converted(span) for span in read_request(body, ctx, None, "")]
    spans = [span for span in read if _otlp_ids(span)]
    odd = [Skipped("request body", None, None, MALFORMED_ID)] * (len(read) - len(spans))
    return spans, [*ctx.skipped, *odd]


MALFORMED_ID: Final = "holds an id that is not 16 or 8 bytes"


def _otlp_ids(span: Span) -> bool:
    ids = [(span.trace_id, 32), (span.span_id, 16), (span.parent_span_id, 16)]
    ids += [(link.trace_id, 32) for link in span.links]
    ids += [(link.span_id, 16) for link in span.links]
    return all(value is None or len(value) == size for value, size in ids)


def _converted(span: Span) -> Span:
    attributes = span.attributes
    if isinstance(attributes, ProtoAttributes):
        return span.replace(attributes=attributes.to_dict())
    return span


def skipped_span(item: Skipped, profile: Profile) -> DroppedSpan:
    entry = f"span:{item.span_id or '(no id)'}/: {item.reason}"
    verdict = verdict_of(profile.name, FindingTally(), [entry])
    return DroppedSpan(item.trace_id, item.span_id, verdict)


ENCODERS: Final[dict[Encoding, Callable[[Sequence[Span]], bytes]]] = {
    "json": to_otlp_json,
    "proto": to_otlp_proto,
}


def encodable(
    spans: Sequence[Span], encode: Callable[[Sequence[Span]], bytes], profile: Profile
) -> tuple[bytes, list[Span], list[DroppedSpan]]:
    """The batch encoded, with the spans the encoder refuses dropped (UNKNOWN): one span that
    cannot be written (a value past the JSON encoder's depth) never costs its batch."""
    try:
        return encode(spans), list(spans), []
    except Exception:
        pass
    kept: list[Span] = []
    dropped: list[DroppedSpan] = []
    for span in spans:
        try:
            encode([span])
        except Exception as exc:
            reason = f"could not be encoded ({type(exc).__name__})"
            dropped.append(unreadable_span(span, profile, reason))
        else:
            kept.append(span)
    return (encode(kept) if kept else b""), kept, dropped


def status_body(encoding: Encoding | None, status: int, message: str) -> tuple[bytes, str]:
    """A `google.rpc.Status` in the request's encoding (plain text when it is not known)."""
    code = _RPC_CODES.get(status, 2)
    if encoding is None:
        return (message + "\n").encode("utf-8"), "text/plain; charset=utf-8"
    if encoding == "json":
        return orjson.dumps({"code": code, "message": message}), MEDIA_TYPES["json"]
    text = message.encode("utf-8")
    body = b"\x08" + write_varint(code) + b"\x12" + write_varint(len(text)) + text
    return body, MEDIA_TYPES["proto"]


# Per signal: its export response type and the name of its partial success's count.
_RESPONSES: Final[dict[str, tuple[Any, str, str]]] = {
    "traces": (ExportTraceServiceResponse, "rejected_spans", "rejectedSpans"),
    "logs": (ExportLogsServiceResponse, "rejected_log_records", "rejectedLogRecords"),
    "metrics": (ExportMetricsServiceResponse, "rejected_data_points", "rejectedDataPoints"),
}


def export_response(
    encoding: Encoding, rejected: int, message: str, signal: str = "traces"
) -> bytes:
    """The signal's export response: empty, or a partial success counting what was rejected."""
    kind, field, json_field = _RESPONSES[signal]
    if encoding == "json":
        if not rejected and not message:
            return b"{}"
        partial: dict[str, Any] = {json_field: str(rejected)}
        if message:
            partial["errorMessage"] = message
        return orjson.dumps({"partialSuccess": partial})
    response = kind()
    if rejected or message:
        setattr(response.partial_success, field, rejected)
        response.partial_success.error_message = message
    return bytes(response.SerializeToString())


def upstream_partial(encoding: Encoding, body: bytes, signal: str = "traces") -> tuple[int, str]:
    """The upstream's own `partial_success`, when its answer says one; (0, "") otherwise."""
    if not body:
        return 0, ""
    kind, field, json_field = _RESPONSES[signal]
    try:
        if encoding == "json":
            partial = orjson.loads(body).get("partialSuccess") or {}
            return int(partial.get(json_field, 0)), str(partial.get("errorMessage", ""))
        response = kind()
        response.ParseFromString(body)
        success = response.partial_success
        return int(getattr(success, field)), success.error_message
    except (DecodeError, orjson.JSONDecodeError, AttributeError, TypeError, ValueError):
        return 0, ""


def upstream_message(body: bytes) -> str:
    """The message of the upstream's `Status` answer (protobuf or JSON), if it has one."""
    try:
        document = orjson.loads(body)
        if isinstance(document, dict) and isinstance(document.get("message"), str):
            return str(document["message"])[:300]
    except orjson.JSONDecodeError:
        pass
    # protobuf Status: field 2 (message) is length-delimited, after an optional code varint.
    view = body
    if view[:1] == b"\x08":
        i = 1
        while i < len(view) and view[i] & 0x80:
            i += 1
        view = view[i + 1 :]
    if view[:1] == b"\x12" and len(view) > 2 and view[1] < 0x80:
        return view[2 : 2 + view[1]].decode("utf-8", "replace")[:300]
    return ""
