"""Spans back into Zipkin v2 JSON (the reader's mapping, `readers/zipkin.py`, run backwards).

A span read from Zipkin is written as it was: kind, endpoints, annotations, `debug`, and a call
read from a client half and a shared server half as those two halves again. A span from
another format is written as OpenTelemetry's Zipkin exporters write it: attribute values as
strings (lists and objects as JSON), the status as `otel.status_code` and `error`, the scope as
`otel.scope.name`/`otel.scope.version`, events with attributes as `{"<name>": {...}}`, and
resource attributes other than `service.name` as tags, as the Collector's exporter does. Zipkin
has no links: they are not written.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from tracecheck.readers.zipkin import (
    CLIENT_TAGS,
    DEBUG,
    ENDPOINT_FIELDS,
    KINDS,
    LOCAL_ENDPOINT,
    REMOTE_ENDPOINT,
    SHARED,
    decode_annotation,
)
from tracecheck.spans import Event, Span
from tracecheck.writers.values import json_value

__all__ = ["to_zipkin", "zipkin_spans"]

_KIND_NAMES = {number: name for name, number in KINDS.items()}
# Attributes the reader made of Zipkin's own fields, written back as those fields.
_FIELDS = frozenset(
    {SHARED, CLIENT_TAGS, DEBUG, *(REMOTE_ENDPOINT + key for key in ENDPOINT_FIELDS)}
)
_LOCAL = frozenset({"service.name", *(LOCAL_ENDPOINT + key for key in ENDPOINT_FIELDS)})


def to_zipkin(spans: Iterable[Span]) -> bytes:
    """A Zipkin v2 JSON list of spans (what `POST /api/v2/spans` takes)."""
    return orjson.dumps(zipkin_spans(spans))


def zipkin_spans(spans: Iterable[Span]) -> list[dict[str, Any]]:
    written = []
    for span in spans:
        server = span.attributes.get(SHARED)
        written.append(_span(span))
        if isinstance(server, Mapping):
            written.append(_server_half(span, server))
    return written


def _span(span: Span) -> dict[str, Any]:
    out: dict[str, Any] = {"traceId": span.trace_id or ""}
    if span.parent_span_id:
        out["parentId"] = span.parent_span_id
    out["id"] = span.span_id or ""
    if span.otlp_kind in _KIND_NAMES:
        out["kind"] = _KIND_NAMES[span.otlp_kind]
    out["name"] = span.name
    if span.start_ns is not None:
        out["timestamp"] = _micros(span.start_ns)
        if span.end_ns is not None:
            out["duration"] = _micros(span.end_ns - span.start_ns)
    local = {"serviceName": span.resource.get("service.name")}
    local.update((key, span.resource.get(LOCAL_ENDPOINT + key)) for key in ENDPOINT_FIELDS[1:])
    # Always written, as OpenTelemetry's exporters do: it is also what tells Zipkin JSON apart.
    out["localEndpoint"] = {key: value for key, value in local.items() if value is not None}
    remote = {key: span.attributes.get(REMOTE_ENDPOINT + key) for key in ENDPOINT_FIELDS}
    if any(value is not None for value in remote.values()):
        out["remoteEndpoint"] = {key: value for key, value in remote.items() if value is not None}
    server = span.attributes.get(SHARED)
    events = _client_events(span.events, server) if isinstance(server, Mapping) else span.events
    if events:
        out["annotations"] = [_annotation(event) for event in events]
    out["tags"] = _tags(span, server if isinstance(server, Mapping) else None)
    if span.attributes.get(DEBUG) is True:
        out["debug"] = True
    if server is True:
        out["shared"] = True
    return out


def _server_half(span: Span, server: Mapping[str, Any]) -> dict[str, Any]:
    """The server half as it was read (and redacted), under the call's ids."""
    out: dict[str, Any] = {"traceId": span.trace_id or ""}
    if server.get("parentId") is not None:
        out["parentId"] = server["parentId"]
    out["id"] = span.span_id or ""
    out.update((key, json_value(value)) for key, value in server.items() if key != "parentId")
    out["shared"] = True
    return out


def _client_events(events: tuple[Event, ...], server: Mapping[str, Any]) -> list[Event]:
    """The call's events but those its server half holds (the reader put both halves' there)."""
    theirs = []
    annotations = server.get("annotations")
    for annotation in annotations if isinstance(annotations, list) else ():
        if isinstance(annotation, Mapping) and isinstance(annotation.get("value"), str):
            name, attributes = decode_annotation(annotation["value"])
            stamp = annotation.get("timestamp")
            time = stamp * 1000 if isinstance(stamp, int) and stamp > 0 else None
            theirs.append((name, time, attributes))
    ours = []
    for event in events:
        key = (event.name, event.time_ns, dict(event.attributes))
        if key in theirs:
            theirs.remove(key)
        else:
            ours.append(event)
    return ours


def _tags(span: Span, server: Mapping[str, Any] | None) -> dict[str, Any]:
    """The span's own attributes as tags (what it only inherited from its resource left out),
    and the status and scope where no tag carries them yet."""
    resource = span.resource
    theirs = server.get("tags") if server is not None else None
    theirs = theirs if isinstance(theirs, Mapping) else {}
    ours = span.attributes.get(CLIENT_TAGS) if server is not None else None
    ours = set(ours) if isinstance(ours, list | tuple) else None
    tags: dict[str, Any] = {}
    for key, value in span.attributes.items():
        if key in _FIELDS or (key in resource and resource[key] == value):
            continue
        if ours is not None and key not in ours:
            continue  # the server half's own tag, written with that half
        if ours is None and key in theirs and theirs[key] == value:
            continue
        tags[key] = _tag_value(value)
    for key, value in resource.items():
        if key not in _LOCAL and key not in tags:
            tags[key] = _tag_value(value)
    if span.scope is not None and "otel.scope.name" not in tags:
        tags["otel.scope.name"] = span.scope.name
        if span.scope.version:
            tags["otel.scope.version"] = span.scope.version
    if server is not None:
        return tags  # each half carries its own status tags
    if span.status is not None and "otel.status_code" not in tags and "error" not in tags:
        tags["otel.status_code"] = "ERROR" if span.status == "error" else "OK"
        if span.status == "error":
            tags["error"] = span.status_message or ""
    elif span.status == "error" and span.status_message and "error" not in tags:
        tags.setdefault("otel.status_description", span.status_message)
    return tags


def _tag_value(value: Any) -> Any:
    """Zipkin's tags are strings; a null read from a Zipkin file stays null."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    return orjson.dumps(json_value(value)).decode()


def _annotation(event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if event.time_ns is not None:
        out["timestamp"] = _micros(event.time_ns)
    if event.attributes or _looks_encoded(event.name):
        out["value"] = orjson.dumps({event.name: json_value(dict(event.attributes))}).decode()
    else:
        out["value"] = event.name
    return out


def _looks_encoded(name: str) -> bool:
    """A name that would read back as an encoded event: write it encoded, so it reads as itself."""
    return decode_annotation(name) != (name, {})


def _micros(nanos: int) -> int:
    """Microseconds, rounded as OpenTelemetry's Zipkin exporters round."""
    return (nanos + 500) // 1000
