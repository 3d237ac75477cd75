"""Spans back into OTLP: JSON documents, JSON Lines and protobuf.

Spans are grouped under their resource and scope again; attributes that a span only
inherited from its resource or scope are written once, on the resource or scope.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tracecheck.spans import Scope, Span
from tracecheck.writers.values import same_value, value_key

__all__ = [
    "to_otlp_json",
    "to_otlp_jsonl",
    "to_otlp_proto",
    "to_otlp_request",
    "write_proto_attributes",
    "write_proto_value",
]

_STATUS_CODES = {None: 0, "ok": 1, "error": 2}


_Group = tuple[Mapping[str, Any], list[tuple[Scope | None, list[Span]]]]


def _grouped(spans: Iterable[Span]) -> list[_Group]:
    """Spans under their resource and scope again, in first-seen order."""
    resources: dict[Any, tuple[Mapping[str, Any], dict[Any, tuple[Scope | None, list[Span]]]]] = {}
    for span in spans:
        by_scope = resources.get(resource_key := _identity(span.resource))
        if by_scope is None:
            by_scope = resources[resource_key] = (span.resource, {})
        scope = span.scope
        scope_key = (
            None if scope is None else (scope.name, scope.version, _identity(scope.attributes))
        )
        members = by_scope[1].get(scope_key)
        if members is None:
            members = by_scope[1][scope_key] = (scope, [])
        members[1].append(span)
    return [(resource, list(scopes.values())) for resource, scopes in resources.values()]


def _identity(attributes: Mapping[str, Any]) -> Any:
    """A hashable stand-in for a resource's or scope's attributes: their items when they
    hash, else their canonical JSON."""
    items = tuple(attributes.items())
    try:
        hash(items)
    except TypeError:
        return value_key(attributes)
    return items


def _own(span: Span, inherited: Mapping[str, Any]) -> dict[str, Any]:
    """The span's attributes but those it only inherited from its resource or scope."""
    if not inherited:
        return dict(span.attributes)
    return {
        key: value
        for key, value in span.attributes.items()
        if key not in inherited or not same_value(inherited[key], value)
    }


def to_otlp_request(spans: Iterable[Span]) -> dict[str, Any]:
    """An `ExportTraceServiceRequest` in the OTLP/JSON mapping (hex ids, string int64s)."""
    resource_spans = []
    for resource, scopes in _grouped(spans):
        entry: dict[str, Any] = {
            "resource": {"attributes": _key_values(resource)},
            "scopeSpans": [],
        }
        for scope, members in scopes:
            inherited = {**resource, **(scope.attributes if scope else {})}
            scope_spans: dict[str, Any] = {"spans": [_span(span, inherited) for span in members]}
            if scope is not None:
                scope_spans["scope"] = {
                    "name": scope.name,
                    "version": scope.version,
                    "attributes": _key_values(scope.attributes),
                }
            entry["scopeSpans"].append(scope_spans)
        resource_spans.append(entry)
    return {"resourceSpans": resource_spans}


def to_otlp_json(spans: Iterable[Span]) -> bytes:
    return orjson.dumps(to_otlp_request(spans))


def to_otlp_jsonl(batches: Iterable[Iterable[Span]]) -> bytes:
    """One request per line, one line per batch."""
    return b"".join(orjson.dumps(to_otlp_request(batch)) + b"\n" for batch in batches)


def to_otlp_proto(spans: Iterable[Span]) -> bytes:
    """One protobuf `ExportTraceServiceRequest`, filled straight from the spans."""
    request = ExportTraceServiceRequest()
    for resource, scopes in _grouped(spans):
        resource_spans = request.resource_spans.add()
        write_proto_attributes(resource_spans.resource.attributes, resource)
        for scope, members in scopes:
            scope_spans = resource_spans.scope_spans.add()
            if scope is not None:
                scope_spans.scope.name = scope.name
                scope_spans.scope.version = scope.version
                write_proto_attributes(scope_spans.scope.attributes, scope.attributes)
            inherited = {**resource, **(scope.attributes if scope else {})}
            for span in members:
                _proto_span(scope_spans.spans.add(), span, inherited)
    return request.SerializeToString()


def _proto_span(target: Any, span: Span, inherited: Mapping[str, Any]) -> None:
    target.trace_id = bytes.fromhex(span.trace_id or "")
    target.span_id = bytes.fromhex(span.span_id or "")
    if span.parent_span_id:
        target.parent_span_id = bytes.fromhex(span.parent_span_id)
    target.name = span.name
    target.kind = span.otlp_kind
    target.start_time_unix_nano = span.start_ns or 0
    target.end_time_unix_nano = span.end_ns or 0
    write_proto_attributes(target.attributes, _own(span, inherited))
    target.status.code = _STATUS_CODES[span.status]
    if span.status_message:
        target.status.message = span.status_message
    for event in span.events:
        added = target.events.add()
        added.name = event.name
        added.time_unix_nano = event.time_ns or 0
        write_proto_attributes(added.attributes, event.attributes)
    for link in span.links:
        added = target.links.add()
        added.trace_id = bytes.fromhex(link.trace_id or "")
        added.span_id = bytes.fromhex(link.span_id or "")
        write_proto_attributes(added.attributes, link.attributes)


def write_proto_attributes(target: Any, attributes: Mapping[str, Any]) -> None:
    """Append `attributes` to a repeated `KeyValue` field."""
    for key, value in attributes.items():
        added = target.add()
        added.key = key
        write_proto_value(added.value, value)


def write_proto_value(target: Any, value: Any) -> None:
    """Set an `AnyValue` message from a Python value (a value of another type as its text)."""
    kind = value.__class__
    if kind is str:
        target.string_value = value
    elif kind is bool:
        target.bool_value = value
    elif kind is int:
        target.int_value = value
    elif kind is float:
        target.double_value = value
    elif value is None:
        return
    elif isinstance(value, bytes | bytearray):
        target.bytes_value = bytes(value)
    elif isinstance(value, Mapping):
        target.kvlist_value.SetInParent()
        write_proto_attributes(target.kvlist_value.values, value)
    elif isinstance(value, list | tuple):
        target.array_value.SetInParent()
        for item in value:
            write_proto_value(target.array_value.values.add(), item)
    else:
        target.string_value = str(value)


def _span(span: Span, inherited: Mapping[str, Any]) -> dict[str, Any]:
    own = _own(span, inherited)
    out: dict[str, Any] = {
        "traceId": span.trace_id or "",
        "spanId": span.span_id or "",
        "name": span.name,
        "kind": span.otlp_kind,
        "startTimeUnixNano": str(span.start_ns or 0),
        "endTimeUnixNano": str(span.end_ns or 0),
        "attributes": _key_values(own),
        "status": {"code": _STATUS_CODES[span.status]},
    }
    if span.parent_span_id:
        out["parentSpanId"] = span.parent_span_id
    if span.status_message:
        out["status"]["message"] = span.status_message
    if span.events:
        out["events"] = [
            {
                "timeUnixNano": str(event.time_ns or 0),
                "name": event.name,
                "attributes": _key_values(event.attributes),
            }
            for event in span.events
        ]
    if span.links:
        out["links"] = [
            {
                "traceId": link.trace_id or "",
                "spanId": link.span_id or "",
                "attributes": _key_values(link.attributes),
            }
            for link in span.links
        ]
    return out


def _key_values(attributes: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "value": _any_value(value)} for key, value in attributes.items()]


def _any_value(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        if math.isfinite(value):
            return {"doubleValue": value}
        return {
            "doubleValue": "NaN"
            if math.isnan(value)
            else ("Infinity" if value > 0 else "-Infinity")
        }
    if isinstance(value, (bytes, bytearray)):
        return {"bytesValue": base64.b64encode(value).decode("ascii")}
    if isinstance(value, Mapping):
        return {"kvlistValue": {"values": _key_values(value)}}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [_any_value(item) for item in value]}}
    return {"stringValue": str(value)}
