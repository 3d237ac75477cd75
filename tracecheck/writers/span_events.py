"""Spans as the hosted-ingest wire's flat `TraceSpanEvent` rows (the `spans` format): one row per
span, times as decimal strings, attributes flat (nested values and bytes as JSON strings), and
the wire's pivots (`tangle.runId`, `tangle.generation`, ...) lifted from the attributes into
fields of the row, which a store joins on.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from tracecheck.spans import Span
from tracecheck.writers.values import typed_json

__all__ = ["GENERATION_PIVOT", "STRING_PIVOTS", "to_trace_span_events"]

_EVENT_STATUS = {None: "UNSET", "ok": "OK", "error": "ERROR"}
# The hosted-ingest wire's pivots: fields of a row that a store joins on.
STRING_PIVOTS = ("tangle.runId", "tangle.cellId", "tangle.scenarioId")
GENERATION_PIVOT = "tangle.generation"


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
    # The wire's pivots are fields of the span (a store joins on them); spans carry them as
    # attributes.
    for key in STRING_PIVOTS:
        value = span.attributes.get(key)
        if isinstance(value, str):
            row[key] = value
    generation = span.attributes.get(GENERATION_PIVOT)
    if isinstance(generation, int) and not isinstance(generation, bool) and generation >= 0:
        row[GENERATION_PIVOT] = generation
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
            flat[key] = orjson.dumps(typed_json(value)).decode()
    return flat
