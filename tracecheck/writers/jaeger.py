"""Spans back into Jaeger's formats (the readers' mappings, `readers/jaeger*.py`, run backwards):
its UI's JSON (a download, or a bare list of its spans), its protobuf model as JSON, and the
`{"result": ...}` answers of `/api/v3/traces`.

The parent is the first CHILD_OF reference, links the others (their `opentracing.ref_type`,
FOLLOWS_FROM when they have none); spans sharing a resource share a process; OTLP's kind,
status and scope go into the `span.kind`, `otel.status_code`/`error`/`otel.status_description`
and `otel.scope.name`/`otel.scope.version` tags unless tags already carry them; times are
truncated to microseconds in the UI's JSON, as Jaeger does. Attribute values of no Jaeger type
(lists, objects) are written as JSON strings; link attributes other than the reference type
have no place in Jaeger and are not written.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import orjson

from tracecheck.readers.jaeger import FLAGS, KINDS, REF_TYPE, TRACE_WARNINGS, WARNINGS
from tracecheck.spans import Event, Link, Span
from tracecheck.writers.otlp import to_otlp_request
from tracecheck.writers.values import json_value, same_value

__all__ = ["to_jaeger", "to_jaeger_api_v3", "to_jaeger_model"]

_KIND_NAMES = {number: name for name, number in KINDS.items()}
_OWN_FIELDS = frozenset({WARNINGS, TRACE_WARNINGS, FLAGS})


def to_jaeger(spans: Iterable[Span], layout: str = "download") -> bytes:
    """Jaeger's UI JSON: a download (`{"data": [...]}`, one entry per trace) or, with
    `layout="list"`, a bare list of spans each holding its process."""
    traces = _by_trace(spans)
    if layout == "list":
        rows = []
        for members in traces.values():
            processes = _Processes()
            for span in members:
                row = _ui_span(span, processes.id_of(span.resource))
                if span.resource:
                    row["process"] = _ui_process(span.resource)
                rows.append(row)
        return orjson.dumps(rows)
    data = []
    for trace_id, members in traces.items():
        processes = _Processes()
        rows = [_ui_span(span, processes.id_of(span.resource)) for span in members]
        warnings = members[0].attributes.get(TRACE_WARNINGS)
        data.append(
            {
                "traceID": trace_id or "",
                "spans": rows,
                "processes": {key: _ui_process(r) for key, r in processes.resources.items()},
                "warnings": warnings if warnings else None,
            }
        )
    return orjson.dumps({"data": data, "total": 0, "limit": 0, "offset": 0, "errors": None})


def to_jaeger_model(spans: Iterable[Span], layout: str = "list") -> bytes:
    """Jaeger's protobuf model as JSON: a list of spans, a chunk `{"spans"}`, the same inside
    `{"result": ...}`, or a `Trace` with its `processMap` (`layout="trace"`)."""
    spans = list(spans)
    if layout == "trace":
        processes = _Processes()
        rows = [_model_span(span, processes.id_of(span.resource)) for span in spans]
        trace: dict[str, Any] = {
            "spans": rows,
            "processMap": [
                {"processId": key, "process": _model_process(resource)}
                for key, resource in processes.resources.items()
            ],
        }
        warnings = spans[0].attributes.get(TRACE_WARNINGS) if spans else None
        if warnings:
            trace["warnings"] = warnings
        return orjson.dumps(trace)
    rows = [_model_span(span, None) for span in spans]
    if layout == "chunk":
        return orjson.dumps({"spans": rows})
    if layout == "result":
        return orjson.dumps({"result": {"spans": rows}})
    return orjson.dumps(rows)


def to_jaeger_api_v3(spans: Iterable[Span]) -> bytes:
    """An `/api/v3/traces` answer: the spans as OTLP/JSON inside `{"result": ...}`."""
    return orjson.dumps({"result": to_otlp_request(spans)})


class _Processes:
    """Process ids (`p1`, `p2`, ...) for the distinct resources of one trace."""

    def __init__(self) -> None:
        self.resources: dict[str, Mapping[str, Any]] = {}
        self._ids: dict[bytes, str] = {}

    def id_of(self, resource: Mapping[str, Any]) -> str:
        key = orjson.dumps(json_value(resource), option=orjson.OPT_SORT_KEYS)
        if key not in self._ids:
            self._ids[key] = f"p{len(self._ids) + 1}"
            self.resources[self._ids[key]] = resource
        return self._ids[key]


def _by_trace(spans: Iterable[Span]) -> dict[str | None, list[Span]]:
    traces: dict[str | None, list[Span]] = {}
    for span in spans:
        traces.setdefault(span.trace_id, []).append(span)
    return traces


def _ui_span(span: Span, process_id: str) -> dict[str, Any]:
    start = span.start_ns
    row: dict[str, Any] = {
        "traceID": span.trace_id or "",
        "spanID": span.span_id or "",
        "operationName": span.name,
        "references": [
            {"refType": kind, "traceID": trace_id or "", "spanID": span_id or ""}
            for kind, trace_id, span_id in _references(span)
        ],
        "startTime": (start or 0) // 1000,
    }
    if start is not None and span.end_ns is not None:
        row["duration"] = (span.end_ns - start) // 1000
    row["tags"] = [_ui_tag(key, value) for key, value in _tags(span).items()]
    row["logs"] = [
        {
            "timestamp": (event.time_ns or 0) // 1000,
            "fields": [_ui_tag(key, value) for key, value in _fields(event).items()],
        }
        for event in span.events
    ]
    row["processID"] = process_id
    warnings = span.attributes.get(WARNINGS)
    row["warnings"] = warnings if warnings else None
    flags = span.attributes.get(FLAGS)
    row["flags"] = flags if flags is not None else 1
    return row


def _model_span(span: Span, process_id: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "traceId": _b64_id(span.trace_id, 16),
        "spanId": _b64_id(span.span_id, 8),
    }
    row["operationName"] = span.name  # even empty (as with EmitDefaults): it marks model JSON
    references = []
    for kind, trace_id, span_id in _references(span):
        reference = {"traceId": _b64_id(trace_id, 16), "spanId": _b64_id(span_id, 8)}
        if kind == "FOLLOWS_FROM":  # CHILD_OF is proto3's default, which protobuf JSON omits
            reference["refType"] = kind
        references.append(reference)
    if references:
        row["references"] = references
    flags = span.attributes.get(FLAGS)
    row["flags"] = flags if flags is not None else 1
    if span.start_ns is not None:
        row["startTime"] = _rfc3339(span.start_ns)
        if span.end_ns is not None:
            row["duration"] = _duration(span.end_ns - span.start_ns)
    tags = [_model_tag(key, value) for key, value in _tags(span).items()]
    if tags:
        row["tags"] = tags
    logs = []
    for event in span.events:
        log: dict[str, Any] = {"fields": [_model_tag(k, v) for k, v in _fields(event).items()]}
        if event.time_ns is not None:
            log = {"timestamp": _rfc3339(event.time_ns), **log}
        logs.append(log)
    if logs:
        row["logs"] = logs
    if process_id is not None:
        row["processId"] = process_id
    elif span.resource:
        row["process"] = _model_process(span.resource)
    warnings = span.attributes.get(WARNINGS)
    if warnings:
        row["warnings"] = warnings
    return row


def _references(span: Span) -> list[tuple[str, str | None, str | None]]:
    references: list[tuple[str, str | None, str | None]] = []
    if span.parent_span_id:
        references.append(("CHILD_OF", span.trace_id, span.parent_span_id))
    references.extend(
        (
            "CHILD_OF" if _ref_type(link) == "child_of" else "FOLLOWS_FROM",
            link.trace_id,
            link.span_id,
        )
        for link in span.links
    )
    return references


def _ref_type(link: Link) -> Any:
    return link.attributes.get(REF_TYPE)


def _tags(span: Span) -> dict[str, Any]:
    """The span's own attributes (not those it only inherited from its resource), and its
    kind, scope and status where no tag carries them yet."""
    resource = span.resource
    tags = {
        key: value
        for key, value in span.attributes.items()
        if key not in _OWN_FIELDS and not (key in resource and same_value(resource[key], value))
    }
    if span.scope is not None and "otel.scope.name" not in tags:
        tags["otel.scope.name"] = span.scope.name
        if span.scope.version:
            tags["otel.scope.version"] = span.scope.version
    if "span.kind" not in tags and span.otlp_kind in _KIND_NAMES:
        tags["span.kind"] = _KIND_NAMES[span.otlp_kind]
    if span.status is not None and "otel.status_code" not in tags and "error" not in tags:
        tags["otel.status_code"] = "ERROR" if span.status == "error" else "OK"
        if span.status == "error":
            tags["error"] = True
    described = "otel.status_description" in tags or isinstance(tags.get("error"), str)
    if span.status == "error" and span.status_message and not described:
        tags["otel.status_description"] = span.status_message
    return tags


def _fields(event: Event) -> dict[str, Any]:
    """A log's fields: the event's name as `event`, then its attributes."""
    if not event.name:
        return dict(event.attributes)
    return {"event": event.name, **{k: v for k, v in event.attributes.items() if k != "event"}}


def _ui_process(resource: Mapping[str, Any]) -> dict[str, Any]:
    service = resource.get("service.name")
    return {
        "serviceName": service if isinstance(service, str) else "",
        "tags": [_ui_tag(k, v) for k, v in resource.items() if k != "service.name" or v != service],
    }


def _model_process(resource: Mapping[str, Any]) -> dict[str, Any]:
    service = resource.get("service.name")
    process: dict[str, Any] = {}
    if isinstance(service, str) and service:
        process["serviceName"] = service
    tags = [_model_tag(k, v) for k, v in resource.items() if k != "service.name" or v != service]
    if tags:
        process["tags"] = tags
    return process


def _ui_tag(key: str, value: Any) -> dict[str, Any]:
    if value is None or isinstance(value, str):
        return {"key": key, "type": "string", "value": value}
    if isinstance(value, bool):
        return {"key": key, "type": "bool", "value": value}
    if isinstance(value, int):
        return {"key": key, "type": "int64", "value": value}
    if isinstance(value, float) and math.isfinite(value):
        return {"key": key, "type": "float64", "value": value}
    if isinstance(value, bytes | bytearray):
        return {"key": key, "type": "binary", "value": base64.b64encode(value).decode("ascii")}
    return {"key": key, "type": "string", "value": _text(value)}


def _model_tag(key: str, value: Any) -> dict[str, Any]:
    """A `KeyValue` as protobuf JSON writes it: zero values and the STRING type left out."""
    tag: dict[str, Any] = {"key": key}
    if isinstance(value, bool):
        tag["vType"] = "BOOL"
        if value:
            tag["vBool"] = True
    elif isinstance(value, int):
        tag["vType"] = "INT64"
        if value:
            tag["vInt64"] = str(value)
    elif isinstance(value, float):
        tag["vType"] = "FLOAT64"
        if value:
            tag["vFloat64"] = value if math.isfinite(value) else _special(value)
    elif isinstance(value, bytes | bytearray):
        tag["vType"] = "BINARY"
        if value:
            tag["vBinary"] = base64.b64encode(value).decode("ascii")
    elif isinstance(value, str):
        if value:
            tag["vStr"] = value
    elif value is not None:
        tag["vStr"] = _text(value)
    return tag


def _special(value: float) -> str:
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _text(value: Any) -> str:
    """A value of no Jaeger type as JSON text."""
    if isinstance(value, float):
        return str(value)
    return orjson.dumps(json_value(value)).decode()


def _b64_id(hex_id: str | None, size: int) -> str:
    raw = bytes.fromhex(hex_id or "")
    return base64.b64encode(raw.rjust(size, b"\0")).decode("ascii") if raw else ""


def _rfc3339(nanos: int) -> str:
    """As protobuf JSON writes a Timestamp: UTC, 0, 3, 6 or 9 fractional digits."""
    seconds, fraction = divmod(nanos, 1_000_000_000)
    moment = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{moment}{_fraction(fraction)}Z"


def _duration(nanos: int) -> str:
    """As protobuf JSON writes a Duration: `"0.001500s"`, `"3s"`."""
    sign = "-" if nanos < 0 else ""
    seconds, fraction = divmod(abs(nanos), 1_000_000_000)
    return f"{sign}{seconds}{_fraction(fraction)}s"


def _fraction(nanos: int) -> str:
    if nanos == 0:
        return ""
    digits = f"{nanos:09d}"
    while digits.endswith("000"):
        digits = digits[:-3]
    return f".{digits}"
