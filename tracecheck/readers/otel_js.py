"""OpenTelemetry JS spans dumped as JSON: the `ReadableSpan`s an `InMemorySpanExporter` holds
(`exporter.getFinishedSpans()`), from `@opentelemetry/sdk-trace-base` 1.x and 2.x.

`JSON.stringify` of the spans themselves meets a cycle (span -> its processor -> the exporter
-> its list of spans), so dumps come two ways, and both are read: the SDK objects' own fields
through a replacer that cuts the cycle (`_spanContext`, `_duration`, `_ended`, a resource's
`_attributes` in 1.x or `_rawAttributes` pairs in 2.x, internals such as `_spanProcessor`
ignored), or the `ReadableSpan` getters copied into plain objects (`spanContext`, `duration`,
`ended`, `resource.attributes`). 1.x names the parent `parentSpanId` and the scope
`instrumentationLibrary`; 2.x has `parentSpanContext` and `instrumentationScope`.

Times are `HrTime` pairs `[seconds, nanoseconds]` (`[0, 0]` is not recorded); `kind` is the JS
API's number (INTERNAL 0 ... CONSUMER 4, OTLP's number minus one); `status.code` is 0 unset,
1 ok, 2 error. A list of spans, one span object, or one span per line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tracecheck.readers.common import ReadContext, checked, described
from tracecheck.readers.shapes import is_otel_js_span
from tracecheck.readers.tracer_parts import JsonValue, at, checked_id, refuse_misread, text
from tracecheck.spans import EMPTY_ATTRIBUTES, Event, Link, Scope, Span, SpanStatus

__all__ = ["OtelJsStyle", "is_otel_js_span", "otel_js_style", "read_otel_js"]

_STATUS: dict[Any, SpanStatus | None] = {0: None, 1: "ok", 2: "error"}
_CONTEXTS = ("_spanContext", "spanContext")
# Where a resource keeps its attributes, most complete first: the getter's copy, 2.x's memo of
# it, 1.x's merged and sync-only fields; 2.x's raw pairs are read last (first value wins).
_RESOURCE_FIELDS = ("attributes", "_memoizedAttributes", "_attributes", "_syncAttributes")


@dataclass(frozen=True, slots=True)
class OtelJsStyle:
    """How a dump was written, for a writer to write the same: SDK major version, and
    whether it holds the SDK objects' own fields (`raw`) or the `ReadableSpan` getters."""

    major: int = 2
    raw: bool = False


def otel_js_style(values: list[JsonValue]) -> OtelJsStyle:
    """The style of the first span of the values (2.x plain objects when there is none)."""
    for _, row in _rows(values):
        if isinstance(row, dict):
            old = "instrumentationLibrary" in row or "parentSpanId" in row
            new = "instrumentationScope" in row or "parentSpanContext" in row
            major = 1 if old and not new else 2
            return OtelJsStyle(major, "_spanContext" in row)
    return OtelJsStyle()


def read_otel_js(values: list[JsonValue], ctx: ReadContext) -> list[Span]:
    for where, value in values:
        if not isinstance(value, list | dict):
            raise ctx.error(where or None, "is neither a span nor a list of spans")
    spans = [_span(row, ctx, where) for where, row in _rows(values)]
    refuse_misread(spans, ctx, "otel-js")
    return spans


def _rows(values: list[JsonValue]) -> Iterator[tuple[str, Any]]:
    for where, value in values:
        if isinstance(value, list):
            for index, row in enumerate(value):
                yield at(where, f"[{index}]"), row
        elif isinstance(value, dict):
            yield where, value


def _span(raw: Any, ctx: ReadContext, where: str) -> Span:
    if not isinstance(raw, dict):
        raise ctx.error(where or None, "is not a span object")
    context_field = next((name for name in _CONTEXTS if name in raw), _CONTEXTS[1])
    context = _object(raw.get(context_field), ctx, at(where, context_field))
    trace_id = checked_id(context.get("traceId"), 16, ctx, at(where, f"{context_field}.traceId"))
    start = _hrtime(raw.get("startTime"), ctx, at(where, "startTime"))
    end = _end(raw, start, ctx, where)
    status, message = _status(raw.get("status"), ctx, at(where, "status"))
    resource = _resource(raw.get("resource"), ctx, at(where, "resource"))
    attributes = _object(raw.get("attributes"), ctx, at(where, "attributes"))
    return checked(
        Span(
            trace_id=trace_id,
            span_id=checked_id(context.get("spanId"), 8, ctx, at(where, f"{context_field}.spanId")),
            parent_span_id=_parent(raw, ctx, where),
            name=text(raw.get("name"), ctx, at(where, "name")),
            start_ns=start,
            end_ns=end,
            status=status,
            status_message=message,
            attributes={**resource, **attributes} if resource else attributes,
            events=_events(raw.get("events"), ctx, at(where, "events")),
            links=_links(raw.get("links"), ctx, at(where, "links")),
            resource=resource or EMPTY_ATTRIBUTES,
            scope=_scope(raw, ctx, where),
            otlp_kind=_kind(raw.get("kind"), ctx, at(where, "kind")),
        ),
        ctx,
        where or "span",
    )


def _end(raw: dict[str, Any], start: int | None, ctx: ReadContext, where: str) -> int | None:
    """The end time; from the duration when only that was kept; none for a span not ended."""
    if raw.get("ended", raw.get("_ended")) is False:
        return None
    end = _hrtime(raw.get("endTime"), ctx, at(where, "endTime"))
    if end is None and start is not None:
        field = "duration" if "duration" in raw else "_duration"
        duration = _hrtime(raw.get(field), ctx, at(where, field), moment=False)
        if duration is not None:
            end = start + duration
    return end


def _parent(raw: dict[str, Any], ctx: ReadContext, where: str) -> str | None:
    parent = raw.get("parentSpanContext")
    if parent is not None:
        parent = _object(parent, ctx, at(where, "parentSpanContext"))
        return checked_id(parent.get("spanId"), 8, ctx, at(where, "parentSpanContext.spanId"))
    return checked_id(raw.get("parentSpanId"), 8, ctx, at(where, "parentSpanId"))


def _hrtime(raw: Any, ctx: ReadContext, where: str, *, moment: bool = True) -> int | None:
    """Nanoseconds of `[seconds, nanoseconds]`; a moment of `[0, 0]` is not recorded."""
    if raw is None:
        return None
    if (
        not isinstance(raw, list)
        or len(raw) != 2
        or not all(isinstance(part, int) and not isinstance(part, bool) for part in raw)
        or raw[0] < 0
        or not 0 <= raw[1] < 1_000_000_000
    ):
        raise ctx.error(where, f"is {described(raw)}, not an HrTime [seconds, nanoseconds]")
    nanos = int(raw[0]) * 1_000_000_000 + int(raw[1])
    return None if moment and nanos == 0 else nanos


def _status(raw: Any, ctx: ReadContext, where: str) -> tuple[SpanStatus | None, str | None]:
    if raw is None:
        return None, None
    status = _object(raw, ctx, where)
    code = status.get("code", 0)
    if code.__class__ is not int or code not in _STATUS:
        raise ctx.error(f"{where}.code", f"{described(code)} is not 0, 1 or 2")
    message = status.get("message")
    return _STATUS[code], message if isinstance(message, str) and message else None


def _resource(raw: Any, ctx: ReadContext, where: str) -> dict[str, Any]:
    if raw is None:
        return {}
    resource = _object(raw, ctx, where)
    for field in _RESOURCE_FIELDS:
        attributes = resource.get(field)
        if isinstance(attributes, dict):
            return {key: value for key, value in attributes.items() if _settled(value)}
    pairs = resource.get("_rawAttributes")
    if pairs is None:
        return {}
    if not isinstance(pairs, list):
        raise ctx.error(f"{where}._rawAttributes", "is not a list of [key, value] pairs")
    attributes = {}
    for index, pair in enumerate(pairs):
        if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
            raise ctx.error(f"{where}._rawAttributes[{index}]", "is not a [key, value] pair")
        key, value = pair
        if key not in attributes and value is not None and _settled(value):
            attributes[key] = value  # as the SDK's getter: the first settled value wins
    return attributes


def _settled(value: Any) -> bool:
    """False for `{}`: what JSON makes of a resource attribute still held as a Promise."""
    return not isinstance(value, dict)


def _scope(raw: dict[str, Any], ctx: ReadContext, where: str) -> Scope | None:
    for field in ("instrumentationScope", "instrumentationLibrary"):
        if raw.get(field) is not None:
            scope = _object(raw[field], ctx, at(where, field))
            name, version = scope.get("name"), scope.get("version")
            return Scope(
                name if isinstance(name, str) else "",
                version if isinstance(version, str) else "",
            )
    return None


def _kind(raw: Any, ctx: ReadContext, where: str) -> int:
    if raw is None:
        return 0
    if raw.__class__ is not int or not 0 <= raw <= 4:
        raise ctx.error(where, f"{described(raw)} is not a SpanKind from 0 to 4")
    return int(raw) + 1


def _events(raw: Any, ctx: ReadContext, where: str) -> tuple[Event, ...]:
    events = []
    for index, event in enumerate(_list(raw, ctx, where)):
        place = f"{where}[{index}]"
        event = _object(event, ctx, place)
        attributes = _object(event.get("attributes"), ctx, f"{place}.attributes")
        events.append(
            Event(
                text(event.get("name"), ctx, f"{place}.name"),
                _hrtime(event.get("time"), ctx, f"{place}.time"),
                attributes or EMPTY_ATTRIBUTES,
            )
        )
    return tuple(events)


def _links(raw: Any, ctx: ReadContext, where: str) -> tuple[Link, ...]:
    links = []
    for index, link in enumerate(_list(raw, ctx, where)):
        place = f"{where}[{index}]"
        link = _object(link, ctx, place)
        context = _object(link.get("context"), ctx, f"{place}.context")
        attributes = _object(link.get("attributes"), ctx, f"{place}.attributes")
        links.append(
            Link(
                checked_id(context.get("traceId"), 16, ctx, f"{place}.context.traceId"),
                checked_id(context.get("spanId"), 8, ctx, f"{place}.context.spanId"),
                attributes or EMPTY_ATTRIBUTES,
            )
        )
    return tuple(links)


def _object(raw: Any, ctx: ReadContext, where: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ctx.error(where, f"is {described(raw)}, not an object")
    return raw


def _list(raw: Any, ctx: ReadContext, where: str) -> list[Any]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ctx.error(where, f"is {described(raw)}, not a list")
    return raw
