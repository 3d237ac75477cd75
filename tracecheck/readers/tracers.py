"""Zipkin v2 and Jaeger JSON, turned into the flat rows `flat` reads.

Both come from tracing back ends that OpenTelemetry exports to: Zipkin v2 spans are what the
OpenTelemetry Zipkin exporter POSTs; a Jaeger document is what Jaeger's UI downloads and its
`/api/traces` returns. Times are microseconds; OpenTelemetry's status travels as the tags
`otel.status_code`, `otel.status_description` and `error`. A field of an unexpected type is
passed on as it is, for the row reader to report at its place.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeGuard

__all__ = ["is_jaeger_document", "is_zipkin_span", "jaeger_as_rows", "zipkin_as_row"]


def is_zipkin_span(row: dict[str, Any]) -> bool:
    """`id` rather than `spanId`, with an endpoint or a duration."""
    if "id" not in row or any(name in row for name in ("spanId", "span_id", "spanID")):
        return False
    return "localEndpoint" in row or "remoteEndpoint" in row or "duration" in row


def zipkin_as_row(span: dict[str, Any]) -> dict[str, Any]:
    """Tags as attributes, annotations as events, the local endpoint's service as the
    resource; a span without a kind is a local (INTERNAL) one."""
    tags = span.get("tags")
    tags = tags if isinstance(tags, dict) else {}
    row = _row(span.get("traceId"), span.get("id"), span.get("parentId"), tags)
    _times(row, span, "timestamp")
    row["name"] = span.get("name", "")
    row["kind"] = span.get("kind") or "INTERNAL"
    endpoint = span.get("localEndpoint")
    if isinstance(endpoint, dict) and isinstance(endpoint.get("serviceName"), str):
        row["resource"] = {"service.name": endpoint["serviceName"]}
    annotations = span.get("annotations")
    if isinstance(annotations, list):
        row["events"] = [
            _event(a.get("value"), a.get("timestamp"), {}) if isinstance(a, dict) else a
            for a in annotations
        ]
    return row


def is_jaeger_document(document: Any) -> bool:
    """`{"data": [{"traceID": …, "spans": […], "processes": {…}}, …]}`."""
    data = document.get("data") if isinstance(document, dict) else None
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(t, dict) and "traceID" in t and "spans" in t for t in data[:3])
    )


def jaeger_as_rows(document: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(place, rows) for each trace of the document; rows as they are when not a list."""
    for index, trace in enumerate(document["data"]):
        where = f"data[{index}].spans"
        spans = trace.get("spans") if isinstance(trace, dict) else None
        if not isinstance(spans, list):
            yield where, spans
            continue
        processes = trace.get("processes")
        processes = processes if isinstance(processes, dict) else {}
        yield where, [_jaeger_row(span, processes) for span in spans]


def _jaeger_row(span: Any, processes: dict[str, Any]) -> Any:
    if not isinstance(span, dict):
        return span
    tags = _tags(span.get("tags"))
    row = _row(span.get("traceID"), span.get("spanID"), _jaeger_parent(span), tags)
    _times(row, span, "startTime")
    row["name"] = span.get("operationName", "")
    kind = tags.get("span.kind")
    row["kind"] = kind.upper() if isinstance(kind, str) else "INTERNAL"
    process_id = span.get("processID")
    process = processes.get(process_id) if isinstance(process_id, str) else None
    if isinstance(process, dict):
        resource = _tags(process.get("tags"))
        if isinstance(process.get("serviceName"), str):
            resource["service.name"] = process["serviceName"]
        row["resource"] = resource
    logs = span.get("logs")
    if isinstance(logs, list):
        row["events"] = [_jaeger_event(log) for log in logs]
    return row


def _jaeger_parent(span: dict[str, Any]) -> Any:
    """The span a CHILD_OF reference in the same trace names (older exports: `parentSpanID`)."""
    references = span.get("references")
    for reference in references if isinstance(references, list) else ():
        if (
            isinstance(reference, dict)
            and reference.get("refType") == "CHILD_OF"
            and reference.get("traceID") == span.get("traceID")
        ):
            return reference.get("spanID")
    return span.get("parentSpanID")


def _jaeger_event(log: Any) -> Any:
    if not isinstance(log, dict):
        return log
    fields = _tags(log.get("fields"))
    name = fields.pop("event", None) or fields.pop("message", None) or ""
    return _event(name, log.get("timestamp"), fields)


def _tags(raw: Any) -> dict[str, Any]:
    """Jaeger's `[{"key", "type", "value"}]` as a mapping; entries without a key are skipped."""
    if not isinstance(raw, list):
        return {}
    return {
        tag["key"]: tag.get("value")
        for tag in raw
        if isinstance(tag, dict) and isinstance(tag.get("key"), str)
    }


def _row(trace_id: Any, span_id: Any, parent_id: Any, tags: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {
        "traceId": trace_id,
        "spanId": span_id,
        "parentSpanId": parent_id,
        "attributes": tags,
    }
    status = _status(tags)
    if status is not None:
        row["status"] = status
    return row


def _times(row: dict[str, Any], span: dict[str, Any], start_field: str) -> None:
    """Start and end in nanoseconds from the start and duration in microseconds."""
    start, duration = span.get(start_field), span.get("duration")
    if _is_count(start):
        row["startTimeUnixNano"] = start * 1000
        if _is_count(duration):
            row["endTimeUnixNano"] = (start + duration) * 1000
    elif start is not None:
        row[start_field] = start  # for the row reader to refuse at its place


def _status(tags: dict[str, Any]) -> dict[str, Any] | None:
    code = str(tags.get("otel.status_code", "")).upper()
    if code == "ERROR" or tags.get("error") not in (None, False, "false"):
        message = tags.get("otel.status_description")
        if message is None and isinstance(tags.get("error"), str):
            message = tags["error"]
        return {"code": "ERROR", "message": message if isinstance(message, str) else None}
    if code == "OK":
        return {"code": "OK"}
    return None


def _event(name: Any, timestamp: Any, attributes: dict[str, Any]) -> dict[str, Any]:
    event: dict[str, Any] = {"name": name, "attributes": attributes}
    if _is_count(timestamp):
        event["timeUnixNano"] = timestamp * 1000
    elif timestamp is not None:
        event["timestamp"] = timestamp
    return event


def _is_count(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
