"""Flat span rows: the hosted-ingest `TraceSpanEvent`, snake_case rows, eval-store spans.

Zipkin v2 spans and Jaeger's JSON, which this reader took before they had formats of their own
(`zipkin`, `jaeger`), are still read under `--format spans`, by their own readers.

Rows may arrive as a JSON array, as JSON Lines, or inside an ingest request body
(`{"wireVersion": ..., "spans": [...]}`). Top-level fields that are not part of the span's
structure (`toolName`, `model`, `input_tokens`, …) are read as attributes, under the row's own
`attributes`, so the normalisation of contracts.md §1 sees them.

A row's value nested deeper than `MAX_VALUE_DEPTH` levels (which no writer could write back) is
cut: it reads as `deep_json.MARKER`, with a note, and the row's other values are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

import orjson

from tracecheck.readers import deep_json
from tracecheck.readers.common import (
    MAX_VALUE_DEPTH,
    ReadContext,
    checked,
    normalize_id,
    parse_epoch,
    parse_iso8601,
    parse_status_code,
    parse_unix_nano,
    too_deep,
)
from tracecheck.readers.jaeger import read_jaeger
from tracecheck.readers.otlp_json import attribute_map
from tracecheck.readers.shapes import (
    SPAN_ID_KEYS,
    TRACE_ID_KEYS,
    is_jaeger_document,
    is_zipkin_span,
    looks_like_flat_row,
)
from tracecheck.readers.zipkin import read_zipkin
from tracecheck.spans import EMPTY_ATTRIBUTES, Event, Span

__all__ = [
    "looks_like_flat_row",
    "read_flat_json",
    "read_flat_jsonl",
    "span_of_line",
    "spans_from_rows",
]

_TRACE_ID = TRACE_ID_KEYS
_SPAN_ID = SPAN_ID_KEYS
_PARENT_ID = ("parentSpanId", "parent_span_id", "parentId", "parent_id", "parentSpanID")
# (field, unit): None means an OTLP nanosecond count; "ms" an epoch in milliseconds;
# "auto" an ISO-8601 string or an epoch number whose unit is read from its magnitude.
_START = (
    ("startTimeUnixNano", None),
    ("start_time_unix_nano", None),
    ("start_time", "auto"),
    ("startTime", "auto"),
    ("startedAt", "ms"),
    ("started_at", "auto"),
    ("timestamp", "auto"),
)
_END = (
    ("endTimeUnixNano", None),
    ("end_time_unix_nano", None),
    ("end_time", "auto"),
    ("endTime", "auto"),
    ("endedAt", "ms"),
    ("ended_at", "auto"),
)
_STRUCTURAL = frozenset(
    {
        *_TRACE_ID,
        *_SPAN_ID,
        *_PARENT_ID,
        *(name for name, _ in _START + _END),
        "name",
        "kind",
        "span_kind",
        "spanKind",
        "attributes",
        "events",
        "links",
        "status",
        "status_message",
        "statusMessage",
        "resource",
        "resource_attributes",
        "resourceAttributes",
    }
)
_OTLP_KINDS = {"INTERNAL": 1, "SERVER": 2, "CLIENT": 3, "PRODUCER": 4, "CONSUMER": 5}


def read_flat_json(data: bytes, ctx: ReadContext) -> Iterator[Span]:
    """Rows of a JSON array, or of an ingest request body holding `spans`."""
    try:
        document = deep_json.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ctx.malformed_json(exc) from None
    prefix = ""
    if is_jaeger_document(document):
        yield from read_jaeger([("", document)], ctx)
        return
    if is_zipkin_span(document) or (
        isinstance(document, list) and document and is_zipkin_span(document[0])
    ):
        yield from read_zipkin([("", document)], ctx)
        return
    if isinstance(document, dict) and isinstance(document.get("spans"), list):
        document, prefix = document["spans"], "spans"
    elif looks_like_flat_row(document):  # a single row: JSON Lines with one line
        yield _row(document, ctx, "line 1")
        return
    if not isinstance(document, list):
        raise ctx.error(None, "is not a list of spans")
    yield from spans_from_rows(document, ctx, prefix)


def read_flat_jsonl(lines: IO[bytes], ctx: ReadContext) -> Iterator[Span]:
    """One row per line."""
    for number, line in enumerate(lines, 1):
        if line.strip():
            yield span_of_line(line, number, ctx)


def span_of_line(line: bytes, number: int, ctx: ReadContext) -> Span:
    """The span of line `number` (the streaming reader reads a trace's lines alone)."""
    try:
        row = deep_json.loads(line)
    except orjson.JSONDecodeError as exc:
        raise ctx.malformed_json(exc, number) from None
    return _row(row, ctx, f"line {number}")


def spans_from_rows(rows: list[Any], ctx: ReadContext, prefix: str) -> Iterator[Span]:
    for index, row in enumerate(rows):
        yield _row(row, ctx, f"{prefix}[{index}]")


def _row(row: Any, ctx: ReadContext, where: str) -> Span:
    if not isinstance(row, dict):
        raise ctx.error(where, "is not a span object")
    if is_zipkin_span(row):  # a line of Zipkin JSON Lines, or a Zipkin span among rows
        (span,) = read_zipkin([(where, row)], ctx)
        return span
    attributes = {k: v for k, v in row.items() if k not in _STRUCTURAL and v is not None}
    attributes.update(_attributes(row.get("attributes"), ctx, _at(where, "attributes")))
    attributes = _cut(attributes, ctx, where)
    resource = _cut(
        _attributes(
            _first(row, ("resource_attributes", "resourceAttributes")) or _resource(row),
            ctx,
            _at(where, "resource"),
        ),
        ctx,
        _at(where, "resource"),
    )
    code, message = _status(row, ctx, where)
    declared = row.get("kind")
    return checked(
        Span(
            trace_id=_id(row, _TRACE_ID, 16, ctx, where),
            span_id=_id(row, _SPAN_ID, 8, ctx, where),
            parent_span_id=_id(row, _PARENT_ID, 8, ctx, where),
            name=_name(row, ctx, where),
            start_ns=_time(row, _START, ctx, where),
            end_ns=_time(row, _END, ctx, where),
            status=code,
            status_message=message,
            attributes={**resource, **attributes} if resource else attributes,
            events=_events(row.get("events"), ctx, _at(where, "events")),
            resource=resource or EMPTY_ATTRIBUTES,
            declared_kind=declared if isinstance(declared, str) else None,
            otlp_kind=_otlp_kind(_first(row, ("span_kind", "spanKind")) or declared),
        ),
        ctx,
        where,
    )


def _at(where: str, field: str) -> str:
    """The place of a row's field: `[3].name`, or `line 3: name` in JSON Lines."""
    return f"{where}: {field}" if where.startswith("line ") else f"{where}.{field}"


def _first(row: dict[str, Any], names: tuple[str, ...]) -> Any:
    for name in names:
        value = row.get(name)
        if value is not None:
            return value
    return None


def _resource(row: dict[str, Any]) -> Any:
    resource = row.get("resource")
    if isinstance(resource, dict) and "attributes" in resource:
        return resource["attributes"]
    return resource


def _attributes(raw: Any, ctx: ReadContext, where: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, list):  # OTLP KeyValue list, written by tools that copy OTLP spans
        values = attribute_map(raw, ctx, where, deep=deep_json.MARKER)
        if deep_json.MARKER in values.values():
            ctx.note(where, _CUT)
        return values
    raise ctx.error(where, "is not an object of attributes")


_CUT = (
    f'holds a value nested deeper than {MAX_VALUE_DEPTH} levels; it reads as "{deep_json.MARKER}"'
)


def _cut(values: dict[str, Any], ctx: ReadContext, where: str) -> dict[str, Any]:
    """`values` with each value nested past `MAX_VALUE_DEPTH` replaced by the marker (noted)."""
    deep = [key for key, value in values.items() if isinstance(value, _NESTED) and too_deep(value)]
    if not deep:
        return values
    ctx.note(where, _CUT)
    return {key: deep_json.MARKER if key in deep else value for key, value in values.items()}


_NESTED = (dict, list)


def _id(
    row: dict[str, Any], names: tuple[str, ...], size: int, ctx: ReadContext, where: str
) -> Any:
    for name in names:
        raw = row.get(name)
        if raw is None:
            continue
        if isinstance(raw, int) and not isinstance(raw, bool):
            raw = format(raw, f"0{2 * size}x")
        try:
            return normalize_id(raw, size)
        except ValueError as exc:
            raise ctx.error(_at(where, name), str(exc)) from None
    return None


def _name(row: dict[str, Any], ctx: ReadContext, where: str) -> str:
    name = row.get("name")
    if name is None:
        tool = row.get("toolName")
        return tool if isinstance(tool, str) else ""
    if not isinstance(name, str):
        raise ctx.error(_at(where, "name"), f"is a {type(name).__name__}, not a string")
    return name


def _time(
    row: dict[str, Any], fields: tuple[tuple[str, str | None], ...], ctx: ReadContext, where: str
) -> int | None:
    for name, unit in fields:
        raw = row.get(name)
        if raw is None:
            continue
        try:
            if unit is None:
                return parse_unix_nano(raw)
            if isinstance(raw, str) and not raw.strip().lstrip("-").replace(".", "", 1).isdigit():
                return parse_iso8601(raw)
            if isinstance(raw, str):  # an integer string keeps every digit (nanoseconds)
                text = raw.strip()
                number = int(text) if text.lstrip("-").isdigit() else float(text)
            else:
                number = raw
            if isinstance(number, bool) or not isinstance(number, (int, float)):
                raise ValueError(f"is a {type(raw).__name__}, not a time")
            return parse_epoch(number, 1_000_000 if unit == "ms" else None)
        except ValueError as exc:
            raise ctx.error(_at(where, name), str(exc)) from None
    return None


def _status(row: dict[str, Any], ctx: ReadContext, where: str) -> tuple[Any, str | None]:
    raw = row.get("status")
    message = _first(row, ("status_message", "statusMessage"))
    if isinstance(raw, dict):
        message = raw.get("message") or message
        raw = raw.get("code")
    try:
        code = parse_status_code(raw if raw is not None else 0)
    except ValueError as exc:
        raise ctx.error(_at(where, "status"), str(exc)) from None
    return code, message if isinstance(message, str) and message else None


def _events(raw: Any, ctx: ReadContext, where: str) -> tuple[Event, ...]:
    if not raw:
        return ()
    if not isinstance(raw, list):
        raise ctx.error(where, "is not a list")
    events = []
    for index, event in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(event, dict):
            raise ctx.error(at, "is not an object")
        time = _time(
            event, (("timeUnixNano", None), ("time", "auto"), ("timestamp", "auto")), ctx, at
        )
        name = event.get("name")
        attributes = _cut(
            _attributes(event.get("attributes"), ctx, f"{at}.attributes"), ctx, f"{at}.attributes"
        )
        events.append(
            Event(name if isinstance(name, str) else "", time, attributes or EMPTY_ATTRIBUTES)
        )
    return tuple(events)


def _otlp_kind(raw: Any) -> int:
    if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw <= 5:
        return raw
    if isinstance(raw, str):
        return _OTLP_KINDS.get(raw.upper().removeprefix("SPAN_KIND_"), 0)
    return 0
