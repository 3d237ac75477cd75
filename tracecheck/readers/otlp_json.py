"""OTLP/JSON: one `ExportTraceServiceRequest` (or `TracesData`) per document or per line.

Protobuf-JSON allows camelCase and snake_case field names, enum names or numbers, and 64-bit
integers as strings or numbers; real exporters use all of them, so every one is accepted. What
JSON and protobuf do not allow is refused with its place and type, never its value: an attribute
key that is not a string, an `intValue` Python would read but protobuf would not (`"1_000"`),
a time past 2^64 - 1. A span whose values nest deeper than `MAX_VALUE_DEPTH` levels is left out
with a note (`ReadContext.skip`), and the other spans of its document are read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import IO, Any

import orjson

from tracecheck.readers import deep_json
from tracecheck.readers.common import (
    INT64_MAX,
    INT64_MIN,
    MAX_VALUE_DEPTH,
    ReadContext,
    checked,
    decode_base64,
    described,
    indexed_place,
    normalize_id,
    otlp_span_kind,
    parse_int64,
    parse_status_code,
    parse_unix_nano,
    special_double,
)
from tracecheck.spans import EMPTY_ATTRIBUTES, Event, Link, Scope, Span, shared_view

__all__ = [
    "DEEP",
    "TYPED_AFTER",
    "ValueTooDeep",
    "any_value",
    "attribute_map",
    "read_otlp_json",
    "read_otlp_jsonl",
    "spans_from_request",
    "spans_of_line",
]


class _Invalid(ValueError):
    """A field that does not hold what OTLP says it holds; `field` is its path below the span."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field


class _TooDeep(_Invalid):
    """A value nested past `MAX_VALUE_DEPTH` levels."""

    def __init__(self, field: str) -> None:
        super().__init__(field, DEEP)


class ValueTooDeep(Exception):
    """An attribute list holds a value nested past `MAX_VALUE_DEPTH` levels, at `where`."""

    def __init__(self, where: str) -> None:
        super().__init__(f"{where}: {DEEP}")
        self.where = where


DEEP = f"holds a value nested deeper than {MAX_VALUE_DEPTH} levels"
# What `attribute_map` raises for a value too deep, unless it is told what to put instead.
_RAISE: Any = object()


# The typed fast path (`otlp_json_typed`) saves about 5 µs a span but costs msgspec's import,
# over 10 ms of a command's start-up: it pays for itself only past a few megabytes. So the
# first `TYPED_AFTER` bytes of OTLP/JSON a process reads take the general path alone, the rest
# the typed path first (the two build the same spans and notes: tests/test_roundtrip.py).
TYPED_AFTER = 4 << 20
_read_generally = 0  # bytes of OTLP/JSON read so far without the typed path
_TypedSpans = Callable[[bytes | memoryview, ReadContext, str], "list[Span] | None"]
_typed: _TypedSpans | None = None  # `otlp_json_typed.typed_spans`, once imported


def typed_spans(data: bytes | memoryview, ctx: ReadContext, prefix: str) -> list[Span] | None:
    """`otlp_json_typed.typed_spans`, or None (the general reader reads it) while this process
    has read less than `TYPED_AFTER` bytes of OTLP/JSON."""
    global _read_generally, _typed
    if _typed is None:
        if _read_generally < TYPED_AFTER:
            _read_generally += len(data)
            return None
        from tracecheck.readers.otlp_json_typed import typed_spans as typed

        _typed = typed
    return _typed(data, ctx, prefix)


def read_otlp_json(data: bytes, ctx: ReadContext) -> Iterator[Span]:
    """Spans of one OTLP/JSON document."""
    spans = typed_spans(data, ctx, "")
    if spans is not None:
        yield from spans
        return
    try:
        document = deep_json.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ctx.malformed_json(exc) from None
    yield from spans_from_request(document, ctx, "")


def read_otlp_jsonl(lines: IO[bytes], ctx: ReadContext) -> Iterator[Span]:
    """Spans of an OTLP JSON Lines file, one request per line, read line by line."""
    for number, line in enumerate(lines, 1):
        if not line.isspace():
            yield from spans_of_line(line, number, ctx)


def spans_of_line(line: bytes, number: int, ctx: ReadContext) -> Iterator[Span]:
    """Spans of line `number` of an OTLP JSON Lines file (the streaming reader reads a trace's
    lines alone)."""
    # Without the newline, so that a cut line reports the column where it ends.
    text = memoryview(line)[: -1 if line.endswith(b"\n") else None]
    spans = typed_spans(text, ctx, f"line {number}: ")
    if spans is not None:
        yield from spans
        return
    try:
        document = deep_json.loads(text)
    except orjson.JSONDecodeError as exc:
        raise ctx.malformed_json(exc, number) from None
    yield from spans_from_request(document, ctx, f"line {number}: ")


def spans_from_request(document: Any, ctx: ReadContext, prefix: str) -> Iterator[Span]:
    """Spans of a decoded request; `prefix` locates the document (e.g. `line 3: `).

    The document is consumed: each parsed span is dropped from it once converted.
    """
    if not isinstance(document, dict):
        raise ctx.error(prefix.rstrip(": ") or None, "is not an OTLP trace request object")
    resource_spans = _field(document, "resourceSpans", "resource_spans")
    for i, entry in enumerate(_list(resource_spans, ctx, f"{prefix}resourceSpans")):
        where = f"{prefix}resourceSpans[{i}]"
        if not isinstance(entry, dict):
            raise ctx.error(where, "is not an object")
        deep = None
        try:
            resource = _resource_attributes(entry, ctx, where)
        except ValueTooDeep:  # every span of the resource is left out
            resource, deep = {}, f"has a resource that {DEEP}"
        scope_spans = _field(entry, "scopeSpans", "scope_spans")
        if scope_spans is None:  # OTLP before 0.15, still written by some exporters
            scope_spans = _field(
                entry, "instrumentationLibrarySpans", "instrumentation_library_spans"
            )
        for j, group in enumerate(_list(scope_spans, ctx, f"{where}.scopeSpans")):
            yield from _scope_group(group, resource, ctx, f"{where}.scopeSpans[{j}]", deep)


def _scope_group(
    group: Any, resource: dict[str, Any], ctx: ReadContext, where: str, deep: str | None
) -> Iterator[Span]:
    if not isinstance(group, dict):
        raise ctx.error(where, "is not an object")
    raw_scope = _field(group, "scope", "instrumentationLibrary", "instrumentation_library")
    scope = None
    try:
        scope = _scope(raw_scope, ctx, f"{where}.scope") if raw_scope is not None else None
    except ValueTooDeep:
        deep = deep or f"has an instrumentation scope that {DEEP}"
    base = {**resource, **scope.attributes} if scope and scope.attributes else resource
    view = shared_view(resource)
    spans_where = f"{where}.spans"
    raw_spans = _list(group.get("spans"), ctx, spans_where)
    for k, raw in enumerate(raw_spans):
        try:
            if deep is not None:
                ctx.skip(f"{spans_where}[{k}]", deep, *_ids(raw))
                continue
            span = _span(raw, base, view, scope, ctx, indexed_place(spans_where, k))
        except _TooDeep as exc:
            at = exc.field.lstrip(".").split(".value", 1)[0]
            ctx.skip(f"{spans_where}[{k}]", f"{DEEP} (in {at})", *_ids(raw))
            raw_spans[k] = None
            continue
        except _Invalid as exc:
            raise ctx.error(f"{spans_where}[{k}]{exc.field}", str(exc)) from None
        # Drop the parsed span as soon as it is converted, so that a large document's tree
        # shrinks while its spans grow instead of both being held at their peak.
        raw_spans[k] = raw = None
        yield span


def _span(
    raw: Any,
    base: dict[str, Any],
    resource: Mapping[str, Any],
    scope: Scope | None,
    ctx: ReadContext,
    where: Callable[[], str],
) -> Span:
    if raw.__class__ is not dict:
        raise _Invalid("", "is not an object")
    get = raw.get
    attributes = base.copy()  # span attributes win over resource and scope ones
    own = get("attributes")
    if own:
        _fill_attributes(own, attributes)
    status = get("status")
    code, message = _status(status) if status else (None, None)
    events, links = get("events"), get("links")
    # Positional, in the order of `Span`: this runs once per span of every file.
    return checked(
        Span(
            ctx.trace_id(get("traceId") or get("trace_id"), _as_trace_id),
            _id(get("spanId") or get("span_id"), 8, ".spanId"),
            _id(get("parentSpanId") or get("parent_span_id"), 8, ".parentSpanId"),
            _string(get("name"), ".name"),
            _time(get("startTimeUnixNano") or get("start_time_unix_nano"), ".startTimeUnixNano"),
            _time(get("endTimeUnixNano") or get("end_time_unix_nano"), ".endTimeUnixNano"),
            code,
            message,
            attributes,
            _events(events) if events else (),
            _links(links) if links else (),
            resource or EMPTY_ATTRIBUTES,
            scope,
            None,
            _span_kind(get("kind")),
        ),
        ctx,
        where,
    )


def _ids(raw: Any) -> tuple[str | None, str | None]:
    """A raw span's trace and span ids when they read as ids (for the note that leaves it
    out), else None."""
    if not isinstance(raw, dict):
        return None, None
    ids: list[str | None] = []
    for names, size in ((("traceId", "trace_id"), 16), (("spanId", "span_id"), 8)):
        try:
            ids.append(normalize_id(_field(raw, *names), size))
        except ValueError:
            ids.append(None)
    return ids[0], ids[1]


def attribute_map(raw: Any, ctx: ReadContext, where: str, *, deep: Any = _RAISE) -> dict[str, Any]:
    """A `KeyValue` list as a dict, raising a located error for a malformed entry. A value
    nested past `MAX_VALUE_DEPTH` raises `ValueTooDeep`, or is replaced by `deep` when given."""
    try:
        return _attributes(raw, "", deep=deep)
    except _TooDeep as exc:
        raise ValueTooDeep(f"{where}{exc.field.split('.value', 1)[0]}") from None
    except _Invalid as exc:
        raise ctx.error(f"{where}{exc.field}", str(exc)) from None


def _fill_attributes(raw: Any, into: dict[str, Any]) -> None:
    """Add a span's `KeyValue` list to `into`: the fast path for well-formed input.

    Anything unusual (a missing value, a wrong type) falls back to the checked path, which
    accepts what OTLP allows and locates what it does not.
    """
    try:
        for pair in raw:
            value = pair["value"]
            key = pair["key"]
            if key.__class__ is not str:
                raise TypeError  # the checked path names its place and type
            text = value.get("stringValue")
            into[key] = text if text.__class__ is str else any_value(value)
    except (KeyError, TypeError, AttributeError, _Invalid):
        into.update(_attributes(raw, ".attributes"))


def _attributes(raw: Any, where: str, depth: int = 0, deep: Any = _RAISE) -> dict[str, Any]:
    """A `KeyValue` list at nesting `depth` (the lists and maps around it)."""
    if not raw:
        return {}
    if not isinstance(raw, list):
        raise _Invalid(where, "is not a list of key-value pairs")
    out: dict[str, Any] = {}
    for index, pair in enumerate(raw):
        try:
            key = pair["key"]
            value = pair.get("value")
        except (KeyError, TypeError, AttributeError):
            raise _Invalid(f"{where}[{index}]", "is not a key-value pair") from None
        if not isinstance(key, str):
            # `true` would become the key "True", and a verdict would read a key never written.
            raise _Invalid(f"{where}[{index}].key", f"is {described(key)}, not a string")
        try:
            # Strings are most attribute values; test for them before anything else.
            text = value.get("stringValue") if isinstance(value, dict) else None
            out[key] = text if isinstance(text, str) else any_value(value, depth)
        except _TooDeep as exc:
            if deep is _RAISE:
                raise _TooDeep(f"{where}[{index}].value{exc.field}") from None
            out[key] = deep
        except _Invalid as exc:
            raise _Invalid(f"{where}[{index}].value{exc.field}", str(exc)) from None
    return out


def any_value(value: Any, depth: int = 0) -> Any:
    """An OTLP `AnyValue` as a Python value: kvlist → dict, array → list, bytes → bytes.
    `depth` counts the lists and maps around it; one more than `MAX_VALUE_DEPTH` is refused."""
    if not value:
        return None
    if not isinstance(value, dict):
        raise _Invalid("", f"is {described(value)}, not an AnyValue object")
    for name, raw in value.items():
        convert = _ANY_VALUE.get(name)
        if convert is not None:
            return convert(raw, depth)
    # Field names are input, and may be anything: they are counted, never quoted.
    raise _Invalid("", f"has no value field OTLP defines ({len(value)} other field(s))")


def _int_value(raw: Any, depth: int) -> int:
    if isinstance(raw, str):
        try:
            return parse_int64(raw)
        except ValueError as exc:
            if "range" in str(exc):
                raise _Invalid(".intValue", "is beyond the 64-bit integer range (a str)") from None
            raise _Invalid(".intValue", "is not an integer (a str)") from None
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if isinstance(raw, int) and not isinstance(raw, bool):
        if not INT64_MIN <= raw <= INT64_MAX:
            raise _Invalid(".intValue", "is beyond the 64-bit integer range (a number)")
        return raw
    raise _Invalid(".intValue", f"is not an integer (a {type(raw).__name__})")


def _double_value(raw: Any, depth: int) -> float:
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return float(raw)
    special = special_double(raw) if isinstance(raw, str) else None
    if special is not None:
        return special
    raise _Invalid(".doubleValue", f"is not a number (a {type(raw).__name__})")


def _bool_value(raw: Any, depth: int) -> bool:
    if isinstance(raw, bool):
        return raw
    raise _Invalid(".boolValue", f"is not a boolean (a {type(raw).__name__})")


def _string_value(raw: Any, depth: int) -> str:
    if isinstance(raw, str):
        return raw
    raise _Invalid(".stringValue", f"is not a string (a {type(raw).__name__})")


def _bytes_value(raw: Any, depth: int) -> bytes:
    data = decode_base64(raw) if isinstance(raw, str) else None
    if data is None:
        raise _Invalid(".bytesValue", "is not base64")
    return data


def _array_value(raw: Any, depth: int) -> list[Any]:
    if depth >= MAX_VALUE_DEPTH:
        raise _TooDeep(".arrayValue")
    values = raw.get("values") if isinstance(raw, dict) else None
    if values is None:
        if isinstance(raw, dict):
            return []
        raise _Invalid(".arrayValue", "is not an object with values")
    if not isinstance(values, list):
        raise _Invalid(".arrayValue.values", "is not a list")
    out = []
    for index, item in enumerate(values):
        try:
            out.append(any_value(item, depth + 1))
        except _TooDeep as exc:
            raise _TooDeep(f".arrayValue.values[{index}]{exc.field}") from None
        except _Invalid as exc:
            raise _Invalid(f".arrayValue.values[{index}]{exc.field}", str(exc)) from None
    return out


def _kvlist_value(raw: Any, depth: int) -> dict[str, Any]:
    if depth >= MAX_VALUE_DEPTH:
        raise _TooDeep(".kvlistValue")
    if not isinstance(raw, dict):
        raise _Invalid(".kvlistValue", "is not an object with values")
    return _attributes(raw.get("values"), ".kvlistValue.values", depth + 1)


_ANY_VALUE: dict[str, Any] = {}
for _names, _convert in (
    (("stringValue", "string_value"), _string_value),
    (("boolValue", "bool_value"), _bool_value),
    (("intValue", "int_value"), _int_value),
    (("doubleValue", "double_value"), _double_value),
    (("bytesValue", "bytes_value"), _bytes_value),
    (("arrayValue", "array_value"), _array_value),
    (("kvlistValue", "kvlist_value"), _kvlist_value),
):
    for _name in _names:
        _ANY_VALUE[_name] = _convert


def _field(raw: dict[str, Any], *names: str) -> Any:
    for name in names:
        value = raw.get(name)
        if value is not None:
            return value
    return None


def _list(raw: Any, ctx: ReadContext, where: str) -> list[Any]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ctx.error(where, "is not a list")
    return raw


def _resource_attributes(entry: dict[str, Any], ctx: ReadContext, where: str) -> dict[str, Any]:
    resource = entry.get("resource")
    if resource is None:
        return {}
    if not isinstance(resource, dict):
        raise ctx.error(f"{where}.resource", "is not an object")
    return attribute_map(resource.get("attributes"), ctx, f"{where}.resource.attributes")


def _scope(raw: Any, ctx: ReadContext, where: str) -> Scope:
    if not isinstance(raw, dict):
        raise ctx.error(where, "is not an object")
    attributes = attribute_map(raw.get("attributes"), ctx, f"{where}.attributes")
    name, version = raw.get("name") or "", raw.get("version") or ""
    if not isinstance(name, str) or not isinstance(version, str):
        raise ctx.error(where, "has a name or version that is not a string")
    return Scope(name, version, attributes or EMPTY_ATTRIBUTES)


def _as_trace_id(raw: Any) -> str | None:
    return _id(raw, 16, ".traceId")


def _id(raw: Any, size: int, where: str) -> str | None:
    try:
        return normalize_id(raw, size)
    except ValueError as exc:
        raise _Invalid(where, str(exc)) from None


def _time(raw: Any, where: str) -> int | None:
    try:
        return parse_unix_nano(raw)
    except ValueError as exc:
        raise _Invalid(where, str(exc)) from None


def _string(raw: Any, where: str) -> str:
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise _Invalid(where, f"is a {type(raw).__name__}, not a string")
    return raw


def _status(raw: Any) -> tuple[Any, str | None]:
    if not isinstance(raw, dict):
        raise _Invalid(".status", "is not an object")
    code = raw.get("code")
    try:
        code = parse_status_code(0 if code is None else code)  # null is the default, UNSET
    except ValueError as exc:
        raise _Invalid(".status.code", str(exc)) from None
    message = raw.get("message")
    return code, (message if isinstance(message, str) and message else None)


def _span_kind(raw: Any) -> int:
    kind = otlp_span_kind(raw)
    if kind is None:
        raise _Invalid(".kind", f"{described(raw)} is not a span kind (0 to 5, or its name)")
    return kind


def _events(raw: Any) -> tuple[Event, ...]:
    if not raw:
        return ()
    if not isinstance(raw, list):
        raise _Invalid(".events", "is not a list")
    events = []
    for index, event in enumerate(raw):
        where = f".events[{index}]"
        if not isinstance(event, dict):
            raise _Invalid(where, "is not an object")
        events.append(
            Event(
                _string(event.get("name"), f"{where}.name"),
                _time(_field(event, "timeUnixNano", "time_unix_nano"), f"{where}.timeUnixNano"),
                _attributes(event.get("attributes"), f"{where}.attributes") or EMPTY_ATTRIBUTES,
            )
        )
    return tuple(events)


def _links(raw: Any) -> tuple[Link, ...]:
    if not raw:
        return ()
    if not isinstance(raw, list):
        raise _Invalid(".links", "is not a list")
    links = []
    for index, link in enumerate(raw):
        where = f".links[{index}]"
        if not isinstance(link, dict):
            raise _Invalid(where, "is not an object")
        links.append(
            Link(
                _id(_field(link, "traceId", "trace_id"), 16, f"{where}.traceId"),
                _id(_field(link, "spanId", "span_id"), 8, f"{where}.spanId"),
                _attributes(link.get("attributes"), f"{where}.attributes") or EMPTY_ATTRIBUTES,
            )
        )
    return tuple(links)
