"""OTLP protobuf: one `ExportTraceServiceRequest`, or the Collector file exporter's stream.

The Collector's `file` exporter with `format: proto` writes each request prefixed by its
length as a 4-byte big-endian integer; the stream is read one record at a time.

A request protobuf refuses whole because one span nests past its 100 levels is read part by
part (`proto_split`): that span is left out with a note (`ReadContext.skip`), the others read.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator, Mapping
from typing import IO, Any

from tracecheck.readers.common import ReadContext, checked, indexed_place
from tracecheck.readers.proto_attributes import ProtoAttributes, proto_attributes
from tracecheck.readers.proto_split import PROTOBUF_DEPTH, DeepSpan, ResourcePart, split_request
from tracecheck.readers.shapes import looks_like_proto_message, looks_like_proto_stream
from tracecheck.spans import EMPTY_ATTRIBUTES, Event, Link, Scope, Span, SpanStatus, shared_view

__all__ = [
    "looks_like_proto_message",
    "looks_like_proto_stream",
    "read_otlp_proto",
    "read_otlp_proto_stream",
    "read_request",
    "record_place",
    "spans_from_message",
    "spans_of_record",
]

_STATUS: dict[int, SpanStatus | None] = {0: None, 1: "ok", 2: "error"}
_PREFIX = struct.Struct(">I")


def read_otlp_proto(data: bytes, ctx: ReadContext) -> Iterator[Span]:
    """Spans of one protobuf-encoded request."""
    yield from read_request(data, ctx, None, "")


def read_request(data: bytes, ctx: ReadContext, where: str | None, prefix: str) -> Iterator[Span]:
    """Spans of one `ExportTraceServiceRequest` at `where` (None: the whole input), a span
    nested past protobuf's depth limit left out (noted) rather than the request refused."""
    # protobuf is imported when a protobuf input is read, not for JSON.
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(data)
    except DecodeError as exc:
        parts = split_request(data)
        if parts is None:
            raise ctx.error(where, f"malformed OTLP protobuf: {exc}") from None
        yield from _spans_of_parts(parts, ctx, prefix)
        return
    yield from spans_from_message(request, ctx, prefix)


def read_otlp_proto_stream(stream: IO[bytes], ctx: ReadContext) -> Iterator[Span]:
    """Spans of a length-prefixed stream of requests, read record by record."""
    offset = 0
    number = 0
    while header := stream.read(_PREFIX.size):
        number += 1
        where = record_place(number, offset)
        if len(header) < _PREFIX.size:
            raise ctx.error(where, "ends inside a length prefix")
        (size,) = _PREFIX.unpack(header)
        body = stream.read(size)
        if len(body) < size:
            raise ctx.error(where, f"announces {size} bytes but only {len(body)} follow")
        yield from spans_of_record(body, where, ctx)
        offset += _PREFIX.size + size


def spans_of_record(body: bytes, where: str, ctx: ReadContext) -> Iterator[Span]:
    """Spans of one request of a length-prefixed stream; `where` names the record (the
    streaming reader reads a trace's records alone)."""
    yield from read_request(body, ctx, where, f"{where}: ")


def record_place(number: int, offset: int) -> str:
    """How notes and errors name record `number`, which starts at byte `offset`."""
    return f"record {number} (byte {offset})"


def spans_from_message(request: Any, ctx: ReadContext, prefix: str) -> Iterator[Span]:
    """Spans of a parsed `ExportTraceServiceRequest` or `TracesData`."""
    for i, resource_spans in enumerate(request.resource_spans):
        resource = proto_attributes(resource_spans.resource.attributes)
        view = shared_view(resource)
        for j, scope_spans in enumerate(resource_spans.scope_spans):
            raw_scope = scope_spans.scope
            scope_attributes = proto_attributes(raw_scope.attributes)
            scope = None
            if scope_spans.HasField("scope"):
                scope = Scope(
                    raw_scope.name, raw_scope.version, scope_attributes or EMPTY_ATTRIBUTES
                )
            base = {**resource, **scope_attributes} if scope_attributes else resource
            where = f"{prefix}resourceSpans[{i}].scopeSpans[{j}].spans"
            for k, span in enumerate(scope_spans.spans):
                yield _span(span, base, view, scope, ctx, indexed_place(where, k))


_DEEP = f"is nested deeper than protobuf's {PROTOBUF_DEPTH} levels"


def _spans_of_parts(parts: list[ResourcePart], ctx: ReadContext, prefix: str) -> Iterator[Span]:
    """The spans of a request read part by part, in the places the whole request gives them;
    a span nested too deep (or under a resource or scope nested too deep) is left out."""
    for i, part in enumerate(parts):
        resource = {} if part.deep else proto_attributes(part.resource.attributes)
        view = shared_view(resource)
        for j, group in enumerate(part.scopes):
            scope_attributes = (
                {}
                if group.deep or group.scope is None
                else proto_attributes(group.scope.attributes)
            )
            scope = None
            if group.scope is not None:
                scope = Scope(
                    group.scope.name, group.scope.version, scope_attributes or EMPTY_ATTRIBUTES
                )
            base = {**resource, **scope_attributes} if scope_attributes else resource
            where = f"{prefix}resourceSpans[{i}].scopeSpans[{j}].spans"
            for k, span in enumerate(group.spans):
                if isinstance(span, DeepSpan) or part.deep or group.deep:
                    trace_id, span_id = _ids(span)
                    reason = _DEEP if isinstance(span, DeepSpan) else _DEEP_ABOVE
                    ctx.skip(f"{where}[{k}]", reason, trace_id, span_id)
                    continue
                yield _span(span, base, view, scope, ctx, indexed_place(where, k))


_DEEP_ABOVE = f"has a resource or scope nested deeper than protobuf's {PROTOBUF_DEPTH} levels"


def _ids(span: Any) -> tuple[str | None, str | None]:
    if isinstance(span, DeepSpan):
        return span.trace_id, span.span_id
    return _hex(span.trace_id), _hex(span.span_id)


def _span(
    span: Any,
    base: dict[str, Any],
    resource: Mapping[str, Any],
    scope: Scope | None,
    ctx: ReadContext,
    where: Callable[[], str],
) -> Span:
    status = span.status
    events, links = span.events, span.links
    # Positional, in the order of `Span`: this runs once per span of every file.
    return checked(
        Span(
            ctx.trace_id(span.trace_id, _hex),
            _hex(span.span_id),
            ctx.parent_id(span.parent_span_id, _hex),
            span.name,
            span.start_time_unix_nano or None,
            span.end_time_unix_nano or None,
            _STATUS.get(status.code),
            status.message or None,
            ProtoAttributes(span.attributes, base),
            tuple(
                Event(
                    e.name,
                    e.time_unix_nano or None,
                    proto_attributes(e.attributes) or EMPTY_ATTRIBUTES,
                )
                for e in events
            )
            if events
            else (),
            tuple(
                Link(
                    _hex(x.trace_id),
                    _hex(x.span_id),
                    proto_attributes(x.attributes) or EMPTY_ATTRIBUTES,
                )
                for x in links
            )
            if links
            else (),
            resource or EMPTY_ATTRIBUTES,
            scope,
            None,
            span.kind,
        ),
        ctx,
        where,
    )


def _hex(raw: bytes) -> str | None:
    text = raw.hex()
    return text if text.strip("0") else None  # all zeros, like empty, means no id
