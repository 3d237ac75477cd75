"""Spans back into an OpenTelemetry JS span dump (the reader's mapping, `readers/otel_js.py`, run
backwards), in the style it was read in: SDK 1.x or 2.x, the SDK objects' own fields or the
`ReadableSpan` getters' plain objects.

Only span data is written: the SDK's internals that a raw dump also holds (`_spanProcessor`,
`_spanLimits`, `_performanceStartTime`, ...) are not span data and are left out. Trace flags are
written as sampled (1); dropped counts as 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from tracecheck.readers.otel_js import OtelJsStyle
from tracecheck.spans import Span
from tracecheck.writers.values import json_value

__all__ = ["to_otel_js"]

_STATUS = {None: 0, "ok": 1, "error": 2}


def to_otel_js(spans: Iterable[Span], style: OtelJsStyle | None = None) -> bytes:
    """A JSON list of spans, as `JSON.stringify` writes what `getFinishedSpans()` returns."""
    style = style or OtelJsStyle()
    return orjson.dumps([_span(span, style) for span in spans])


def _span(span: Span, style: OtelJsStyle) -> dict[str, Any]:
    context = _context(span.trace_id, span.span_id)
    start, end = span.start_ns, span.end_ns
    duration = None if start is None or end is None else _hrtime(end - start)
    status: dict[str, Any] = {"code": _STATUS[span.status]}
    if span.status_message:
        status["message"] = span.status_message
    row: dict[str, Any] = {
        "name": span.name,
        "kind": max(span.otlp_kind - 1, 0),
        "_spanContext" if style.raw else "spanContext": context,
        "startTime": _hrtime(start),
        "endTime": _hrtime(end),
        "status": status,
        "attributes": _own(span),
        "links": [
            {
                "context": _context(link.trace_id, link.span_id),
                "attributes": _attributes(link.attributes),
                "droppedAttributesCount": 0,
            }
            for link in span.links
        ],
        "events": [
            {
                "name": event.name,
                "attributes": _attributes(event.attributes),
                "time": _hrtime(event.time_ns),
                "droppedAttributesCount": 0,
            }
            for event in span.events
        ],
        "_duration" if style.raw else "duration": duration or [0, 0],
        "_ended" if style.raw else "ended": end is not None,
    }
    row.update(_resource(span.resource, style))
    for field in ("droppedAttributesCount", "droppedEventsCount", "droppedLinksCount"):
        row[f"_{field}" if style.raw else field] = 0
    if span.parent_span_id:
        if style.major == 1:
            row["parentSpanId"] = span.parent_span_id
        else:
            row["parentSpanContext"] = _context(span.trace_id, span.parent_span_id)
    if span.scope is not None:
        scope = {"name": span.scope.name, "version": span.scope.version}
        row["instrumentationLibrary" if style.major == 1 else "instrumentationScope"] = scope
    return row


def _resource(resource: Mapping[str, Any], style: OtelJsStyle) -> dict[str, Any]:
    if not resource:
        return {}
    attributes = _attributes(resource)
    if not style.raw:
        return {"resource": {"attributes": attributes}}
    if style.major == 1:
        return {"resource": {"_attributes": attributes, "asyncAttributesPending": False}}
    pairs = [[key, value] for key, value in attributes.items()]
    return {"resource": {"_rawAttributes": pairs, "_asyncAttributesPending": False}}


def _own(span: Span) -> dict[str, Any]:
    """The span's attributes but those it only inherited from its resource."""
    resource = span.resource
    return {
        key: _plain(value)
        for key, value in span.attributes.items()
        if not (key in resource and type(resource[key]) is type(value) and resource[key] == value)
    }


def _attributes(attributes: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _plain(value) for key, value in attributes.items()}


def _context(trace_id: str | None, span_id: str | None) -> dict[str, Any]:
    return {"traceId": trace_id or "", "spanId": span_id or "", "traceFlags": 1}


def _hrtime(nanos: int | None) -> list[int]:
    return list(divmod(nanos, 1_000_000_000)) if nanos is not None and nanos > 0 else [0, 0]


def _plain(value: Any) -> Any:
    """JSON for any attribute value (JS attributes hold no bytes or objects: those as text)."""
    if isinstance(value, Mapping):
        return orjson.dumps({str(k): json_value(v) for k, v in value.items()}).decode()
    if isinstance(value, list | tuple):
        return [json_value(item) for item in value]
    return json_value(value)
