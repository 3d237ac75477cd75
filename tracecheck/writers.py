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

__all__ = [
    "to_otlp_json",
    "to_otlp_jsonl",
    "to_otlp_proto",
    "to_otlp_request",
    "to_trace_span_events",
]

_STATUS_CODES = {None: 0, "ok": 1, "error": 2}


def to_otlp_request(spans: Iterable[Span]) -> dict[str, Any]:
    """An `ExportTraceServiceRequest` in the OTLP/JSON mapping (hex ids, string int64s)."""
    groups: dict[tuple[bytes, bytes], tuple[Mapping[str, Any], Scope | None, list[Span]]] = {}
    for span in spans:
        key = (_key(span.resource), _key(_scope_identity(span.scope)))
        group = groups.get(key)
        if group is None:
            groups[key] = group = (span.resource, span.scope, [])
        group[2].append(span)
    resource_spans: dict[bytes, dict[str, Any]] = {}
    for (resource_key, _), (resource, scope, members) in groups.items():
        entry = resource_spans.get(resource_key)
        if entry is None:
            entry = {"resource": {"attributes": _key_values(resource)}, "scopeSpans": []}
            resource_spans[resource_key] = entry
        inherited = {**resource, **(scope.attributes if scope else {})}
        scope_spans: dict[str, Any] = {"spans": [_span(span, inherited) for span in members]}
        if scope is not None:
            scope_spans["scope"] = {
                "name": scope.name,
                "version": scope.version,
                "attributes": _key_values(scope.attributes),
            }
        entry["scopeSpans"].append(scope_spans)
    return {"resourceSpans": list(resource_spans.values())}


def to_otlp_json(spans: Iterable[Span]) -> bytes:
    return orjson.dumps(to_otlp_request(spans))


def to_otlp_jsonl(batches: Iterable[Iterable[Span]]) -> bytes:
    """One request per line, one line per batch."""
    return b"".join(orjson.dumps(to_otlp_request(batch)) + b"\n" for batch in batches)


def to_otlp_proto(spans: Iterable[Span]) -> bytes:
    request = ExportTraceServiceRequest()
    for resource_json in to_otlp_request(spans)["resourceSpans"]:
        resource_spans = request.resource_spans.add()
        _fill_attributes(
            resource_spans.resource.attributes, resource_json["resource"]["attributes"]
        )
        for group in resource_json["scopeSpans"]:
            scope_spans = resource_spans.scope_spans.add()
            if "scope" in group:
                scope_spans.scope.name = group["scope"]["name"]
                scope_spans.scope.version = group["scope"]["version"]
                _fill_attributes(scope_spans.scope.attributes, group["scope"]["attributes"])
            for span_json in group["spans"]:
                _fill_span(scope_spans.spans.add(), span_json)
    return request.SerializeToString()


_EVENT_STATUS = {None: "UNSET", "ok": "OK", "error": "ERROR"}


def to_trace_span_events(spans: Iterable[Span]) -> list[dict[str, Any]]:
    """Flat `TraceSpanEvent` rows of the hosted-ingest wire: times as unsigned 64-bit decimal
    strings, flat attributes (nested values and bytes written as JSON strings)."""
    return [_span_event(span) for span in spans]


def _span_event(span: Span) -> dict[str, Any]:
    row: dict[str, Any] = {
        "traceId": span.trace_id or "",
        "spanId": span.span_id or "",
        "name": span.name,
        "startTimeUnixNano": str(span.start_ns or 0),
        "endTimeUnixNano": str(span.end_ns or 0),
        "attributes": _flat_attributes(span.attributes),
    }
    if span.parent_span_id:
        row["parentSpanId"] = span.parent_span_id
    if span.events:
        row["events"] = [
            {
                "timeUnixNano": str(event.time_ns or 0),
                "name": event.name,
                "attributes": _flat_attributes(event.attributes),
            }
            for event in span.events
        ]
    if span.status is not None or span.status_message:
        row["status"] = {"code": _EVENT_STATUS[span.status]}
        if span.status_message:
            row["status"]["message"] = span.status_message
    return row


def _flat_attributes(attributes: Mapping[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in attributes.items():
        if value is None:
            continue
        if isinstance(value, str | bool | int):
            flat[key] = value
        elif isinstance(value, float):
            flat[key] = value if math.isfinite(value) else str(value)
        else:
            flat[key] = orjson.dumps(_jsonable(value)).decode()
    return flat


def _span(span: Span, inherited: Mapping[str, Any]) -> dict[str, Any]:
    own = {
        key: value
        for key, value in span.attributes.items()
        if key not in inherited or not _same(inherited[key], value)
    }
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


def _fill_span(target: Any, span: dict[str, Any]) -> None:
    target.trace_id = bytes.fromhex(span["traceId"])
    target.span_id = bytes.fromhex(span["spanId"])
    target.parent_span_id = bytes.fromhex(span.get("parentSpanId", ""))
    target.name = span["name"]
    target.kind = span["kind"]
    target.start_time_unix_nano = int(span["startTimeUnixNano"])
    target.end_time_unix_nano = int(span["endTimeUnixNano"])
    _fill_attributes(target.attributes, span["attributes"])
    target.status.code = span["status"]["code"]
    target.status.message = span["status"].get("message", "")
    for event in span.get("events", ()):
        added = target.events.add()
        added.name = event["name"]
        added.time_unix_nano = int(event["timeUnixNano"])
        _fill_attributes(added.attributes, event["attributes"])
    for link in span.get("links", ()):
        added = target.links.add()
        added.trace_id = bytes.fromhex(link["traceId"])
        added.span_id = bytes.fromhex(link["spanId"])
        _fill_attributes(added.attributes, link["attributes"])


def _fill_attributes(target: Any, pairs: list[dict[str, Any]]) -> None:
    for pair in pairs:
        added = target.add()
        added.key = pair["key"]
        _fill_value(added.value, pair["value"])


def _fill_value(target: Any, value: dict[str, Any]) -> None:
    for name, raw in value.items():
        if name == "stringValue":
            target.string_value = raw
        elif name == "boolValue":
            target.bool_value = raw
        elif name == "intValue":
            target.int_value = int(raw)
        elif name == "doubleValue":
            target.double_value = (
                float(raw.replace("Infinity", "inf")) if isinstance(raw, str) else raw
            )
        elif name == "bytesValue":
            target.bytes_value = base64.b64decode(raw)
        elif name == "arrayValue":
            target.array_value.SetInParent()
            for item in raw["values"]:
                _fill_value(target.array_value.values.add(), item)
        elif name == "kvlistValue":
            target.kvlist_value.SetInParent()
            _fill_attributes(target.kvlist_value.values, raw["values"])


def _scope_identity(scope: Scope | None) -> Any:
    if scope is None:
        return None
    return [scope.name, scope.version, dict(scope.attributes)]


def _key(value: Any) -> bytes:
    return orjson.dumps(_jsonable(value), option=orjson.OPT_SORT_KEYS)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, float) and not math.isfinite(value):
        return {"$float": repr(value)}
    return value


def _same(left: Any, right: Any) -> bool:
    return type(left) is type(right) and _key(left) == _key(right)
