"""OTLP/JSON decoded straight into typed structs, the fast path for what exporters write.

A generic JSON parser builds a dict for every `KeyValue` and every `AnyValue`, and converting
those dicts costs more than parsing. `msgspec` decodes the canonical camelCase OTLP/JSON into
compact structs, checking every type as it goes, in less time than a generic parse alone.

The fast path declines rather than guesses: snake_case or legacy field names, a value of an
unexpected type, an integer protobuf would not read, a value nested past `MAX_VALUE_DEPTH`,
JSON nested past what the decoder follows, anything it does not know returns None, and the
caller reads the document with the general reader, which accepts every spelling, locates every
error and leaves out what cannot be held. Both paths build the same spans (tested).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import msgspec

from tracecheck.readers.common import (
    INT64_MAX,
    INT64_MIN,
    MAX_VALUE_DEPTH,
    ReadContext,
    checked,
    collector_paused,
    decode_base64,
    indexed_place,
    normalize_id,
    otlp_span_kind,
    parse_int64,
    parse_status_code,
    parse_unix_nano,
    special_double,
)
from tracecheck.spans import EMPTY_ATTRIBUTES, Event, Link, Scope, Span, _Fields, shared_view

__all__ = ["typed_spans"]


class _Strict(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """Unknown fields decline; instances hold no cycles, so the collector need not track them."""


class AnyValue(_Strict):
    stringValue: str | None = None
    boolValue: bool | None = None
    intValue: int | str | None = None
    doubleValue: float | str | None = None
    bytesValue: str | None = None
    arrayValue: ArrayValue | None = None
    kvlistValue: KeyValueList | None = None


class KeyValue(_Strict):
    key: str
    value: AnyValue | None = None


class ArrayValue(_Strict):
    values: list[AnyValue] = []


class KeyValueList(_Strict):
    values: list[KeyValue] = []


class _Status(_Strict):
    code: int | str | None = None
    message: str | None = None


class _Event(_Strict):
    name: str = ""
    timeUnixNano: int | str | None = None
    attributes: list[KeyValue] = []
    droppedAttributesCount: int = 0


class _Link(_Strict):
    traceId: str = ""
    spanId: str = ""
    traceState: str = ""
    attributes: list[KeyValue] = []
    droppedAttributesCount: int = 0
    flags: int = 0


class _Span(_Strict):
    traceId: str = ""
    spanId: str = ""
    traceState: str = ""
    parentSpanId: str = ""
    flags: int = 0
    name: str = ""
    kind: int | str | None = None
    startTimeUnixNano: int | str | None = None
    endTimeUnixNano: int | str | None = None
    attributes: list[KeyValue] = []
    droppedAttributesCount: int = 0
    events: list[_Event] = []
    droppedEventsCount: int = 0
    links: list[_Link] = []
    droppedLinksCount: int = 0
    status: _Status | None = None


class _Scope(_Strict):
    name: str = ""
    version: str = ""
    attributes: list[KeyValue] = []
    droppedAttributesCount: int = 0


class _ScopeSpans(_Strict):
    scope: _Scope | None = None
    spans: list[_Span] = []
    schemaUrl: str = ""


class _Resource(_Strict):
    attributes: list[KeyValue] = []
    droppedAttributesCount: int = 0


class _ResourceSpans(_Strict):
    resource: _Resource | None = None
    scopeSpans: list[_ScopeSpans] = []
    schemaUrl: str = ""


class _Request(_Strict):
    resourceSpans: list[_ResourceSpans] = []


_DECODER = msgspec.json.Decoder(_Request)
_SHORT = 20  # texts up to this length are shared (longer ones seldom repeat)
# One copy of each attribute key and short text, shared by the spans that repeat it. Not
# `sys.intern`: on Python 3.12 an interned string is immortal, so every distinct short value
# ever read (times, ids) would stay for the life of the process. Started afresh past its bound.
_SHARED: dict[str, str] = {}
_SHARED_MOST = 1 << 16


_UNSEEN: Any = object()  # an id not converted yet


class _Decline(Exception):
    """The document holds something only the general reader handles."""


def typed_spans(data: bytes | memoryview, ctx: ReadContext, prefix: str) -> list[Span] | None:
    """The spans of one canonical OTLP/JSON request, or None to let the general reader try.

    Notes about kept-but-doubtful spans are made only once the whole document has been
    converted, so that declining half-way leaves no duplicate notes behind.
    """
    with collector_paused():
        try:
            request = _DECODER.decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            return None
        local = ReadContext(ctx.source, [], ctx.trace_ids, ctx.parent_ids)
        try:
            spans = list(_spans(request, local, prefix))
        except (_Decline, ValueError):
            return None
    ctx.notes.extend(local.notes)
    return spans


def _spans(request: _Request, ctx: ReadContext, prefix: str) -> Iterator[Span]:
    for i, resource_spans in enumerate(request.resourceSpans):
        raw_resource = resource_spans.resource
        resource = _attributes(raw_resource.attributes) if raw_resource else {}
        view = shared_view(resource)
        for j, group in enumerate(resource_spans.scopeSpans):
            scope = None
            base = resource
            if group.scope is not None:
                scope_attributes = _attributes(group.scope.attributes)
                scope = Scope(
                    group.scope.name, group.scope.version, scope_attributes or EMPTY_ATTRIBUTES
                )
                if scope_attributes:
                    base = {**resource, **scope_attributes}
            where = f"{prefix}resourceSpans[{i}].scopeSpans[{j}].spans"
            for k, span in enumerate(group.spans):
                if len(_SHARED) > _SHARED_MOST:
                    _SHARED.clear()
                yield _span(span, base, view, scope, ctx, where, k)


def _span(
    span: _Span,
    base: dict[str, Any],
    resource: Mapping[str, Any],
    scope: Scope | None,
    ctx: ReadContext,
    where: str,
    index: int,
) -> Span:
    # The resource's (and scope's) attributes first, the span's own over them: what
    # `{**base, **own}` gives, without building the span's own dict first. Keys, and short
    # texts (kinds, operations, models, tool names), are shared (`_SHARED`): every span of a
    # producer repeats them, and the decoder gives each its own copy (a fifth of a large
    # trace's memory).
    attributes = base.copy()
    share = _SHARED.setdefault
    for pair in span.attributes:
        key = share(pair.key, pair.key)
        value = pair.value
        if value is not None:
            text = value.stringValue
            if text is not None:
                attributes[key] = share(text, text) if len(text) <= _SHORT else text
                continue
            # An intValue as protobuf JSON writes it, below 10^18 (token counts, sizes):
            # what `_value` gives it, without the call.
            raw = value.intValue
            if (
                raw.__class__ is str
                and value.boolValue is None
                and len(raw) <= 18
                and raw.isdigit()
                and raw.isascii()
            ):
                attributes[key] = int(raw)
                continue
        attributes[key] = _value(value)
    # The common shapes inline (a call each cost as much as the attribute loop); anything
    # else through the general functions, which give the same values and the same errors.
    raw = span.traceId
    trace_id = ctx.trace_ids.get(raw, _UNSEEN)
    if trace_id is _UNSEEN:
        trace_id = ctx.trace_id(raw, _as_trace_id)
    span_id = normalize_id(span.spanId, 8)
    raw = span.parentSpanId
    parent_id = ctx.parent_ids.get(raw, _UNSEEN)
    if parent_id is _UNSEEN:
        parent_id = ctx.parent_id(raw, _as_span_id)
    start = span.startTimeUnixNano
    # Up to 19 ASCII digits: below 2^64, what `parse_unix_nano` reads them as.
    if start.__class__ is str and len(start) <= 19 and start.isdigit() and start.isascii():
        start = int(start) or None
    else:
        start = parse_unix_nano(start)
    end = span.endTimeUnixNano
    if end.__class__ is str and len(end) <= 19 and end.isdigit() and end.isascii():
        end = int(end) or None
    else:
        end = parse_unix_nano(end)
    status = span.status
    state = message = None
    if status is not None:
        code = status.code
        state = parse_status_code(code) if code else None  # 0, "" and absent are unset
        message = status.message or None
    kind = span.kind
    if kind.__class__ is not int or not 0 <= kind <= 5:
        kind = _span_kind(kind)
    # `Span(...)` without its `__new__` call (a tenth of building a span): the fields written
    # to a writable twin, which then becomes the immutable span (`tracecheck.spans`).
    built: Span = _Fields(  # type: ignore[assignment]
        trace_id,
        span_id,
        parent_id,
        span.name,
        start,
        end,
        state,
        message,
        attributes,
        tuple(_event(event) for event in span.events) if span.events else (),
        tuple(_link(link) for link in span.links) if span.links else (),
        resource or EMPTY_ATTRIBUTES,
        scope,
        None,
        kind,
    )
    built.__class__ = Span
    if (
        trace_id is None
        or span_id is None
        or (start is not None and end is not None and end < start)
    ):
        return checked(built, ctx, indexed_place(where, index))
    return built


def _as_trace_id(raw: str) -> str | None:
    return normalize_id(raw, 16)


def _as_span_id(raw: str) -> str | None:
    return normalize_id(raw, 8)


def _attributes(pairs: list[KeyValue], depth: int = 0) -> dict[str, Any]:
    return {pair.key: _value(pair.value, depth) for pair in pairs}


def _value(value: AnyValue | None, depth: int = 0) -> Any:
    """A non-string `AnyValue` as a Python value, the same as the general reader gives; one
    nested past `MAX_VALUE_DEPTH` declines (the general reader leaves its span out)."""
    if value is None:
        return None
    if value.stringValue is not None:
        return value.stringValue
    if value.boolValue is not None:
        return value.boolValue
    if value.intValue is not None:
        raw = value.intValue
        if isinstance(raw, str) and len(raw) <= 18 and raw.isdigit() and raw.isascii():
            return int(raw)  # below 10^18: in range, and what `parse_int64` gives
        number = raw if isinstance(raw, int) else parse_int64(raw)  # ValueError declines
        if not INT64_MIN <= number <= INT64_MAX:
            raise _Decline
        return number
    if value.doubleValue is not None:
        double = value.doubleValue
        if isinstance(double, float):
            return double
        special = special_double(double)
        if special is None:
            raise _Decline
        return special
    if value.bytesValue is not None:
        data = decode_base64(value.bytesValue)
        if data is None:
            raise _Decline
        return data
    if value.arrayValue is not None or value.kvlistValue is not None:
        if depth >= MAX_VALUE_DEPTH:
            raise _Decline
        if value.arrayValue is not None:
            return [_value(item, depth + 1) for item in value.arrayValue.values]
        assert value.kvlistValue is not None
        return _attributes(value.kvlistValue.values, depth + 1)
    return None


def _event(event: _Event) -> Event:
    attributes = _attributes(event.attributes)
    return Event(event.name, parse_unix_nano(event.timeUnixNano), attributes or EMPTY_ATTRIBUTES)


def _link(link: _Link) -> Link:
    attributes = _attributes(link.attributes)
    return Link(
        normalize_id(link.traceId, 16),
        normalize_id(link.spanId, 8),
        attributes or EMPTY_ATTRIBUTES,
    )


def _span_kind(raw: int | str | None) -> int:
    kind = otlp_span_kind(raw)
    if kind is None:
        raise _Decline
    return kind
