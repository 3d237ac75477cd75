"""Zipkin v2 JSON: what Zipkin's `/api/v2/spans` takes and `/api/v2/trace/{id}` gives back, and
what the OpenTelemetry Zipkin exporter POSTs. A list of spans, one span object, or one per line.

Times are microseconds; tags are strings (the OpenTelemetry exporter also writes nulls);
OpenTelemetry's status travels in the tags `otel.status_code`, `otel.status_description` and
`error`, its scope in `otel.scope.name`/`otel.library.name` (read into the span's scope).
Annotations are events: a value that is a JSON object `{"<name>": {<attributes>}}`, as the
OpenTelemetry exporter encodes an event with attributes, is read back as that event.

What Zipkin has and a span does not keep under its own fields is kept where redaction sees it
and a writer finds it again: the local endpoint's service as the resource's `service.name`
(its address and port as `zipkin.localEndpoint.ipv4`/`ipv6`/`port` resource attributes), the
remote endpoint as `zipkin.remoteEndpoint.serviceName`/`ipv4`/`ipv6`/`port` attributes,
`debug` and `shared` as `zipkin.debug` and `zipkin.shared`.

An RPC traced on both sides is, in Zipkin's B3 model, one span id reported twice: the
client's half, and the server's half marked `shared`. A contract counts calls, so the two
halves are read as **one** span, as Zipkin's UI shows them: the client's name, times, kind
and parent (the server's where the client's half lacks one), tags of both (the client's on a
clash), events of both, in error when either half is. The server's half is kept whole, as it
was written, under the attribute `zipkin.shared` (an object), so that it is redacted with
the span and written back as the second half; `zipkin.clientTags` lists the client half's own
tag keys, for the first half to be written back with exactly its tags. A shared half without its client half in the
file stays a span of its own, with `zipkin.shared: true`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from tracecheck.readers.common import ReadContext, checked, described, normalize_id
from tracecheck.readers.shapes import is_zipkin_span
from tracecheck.readers.tracer_parts import (
    JsonValue,
    at,
    count,
    not_a_count,
    refuse_misread,
    scope_from_tags,
    status_from_tags,
)
from tracecheck.spans import EMPTY_ATTRIBUTES, Event, Span

__all__ = [
    "CLIENT_TAGS",
    "DEBUG",
    "ENDPOINT_FIELDS",
    "KINDS",
    "LOCAL_ENDPOINT",
    "REMOTE_ENDPOINT",
    "SHARED",
    "decode_annotation",
    "is_zipkin_span",
    "read_zipkin",
    "zipkin_values",
]

KINDS = {"CLIENT": 3, "SERVER": 2, "PRODUCER": 4, "CONSUMER": 5}
LOCAL_ENDPOINT = "zipkin.localEndpoint."  # resource attributes
REMOTE_ENDPOINT = "zipkin.remoteEndpoint."  # span attributes
SHARED = "zipkin.shared"
CLIENT_TAGS = "zipkin.clientTags"  # the tag keys of a call's client half
DEBUG = "zipkin.debug"
ENDPOINT_FIELDS = ("serviceName", "ipv4", "ipv6", "port")


def read_zipkin(values: list[JsonValue], ctx: ReadContext) -> list[Span]:
    """The spans of the JSON values of one file, client and server halves joined."""
    halves = list(_halves(values, ctx))
    spans = _joined(halves)
    refuse_misread(spans, ctx, "zipkin")
    return spans


def zipkin_values(values: list[JsonValue], ctx: ReadContext) -> Iterator[tuple[str, Any]]:
    """(place, span object) of every span in the values: lists, single objects, lines."""
    for where, value in values:
        if isinstance(value, list):
            for index, item in enumerate(value):
                yield at(where, f"[{index}]"), item
        elif isinstance(value, dict):
            yield where, value
        else:
            raise ctx.error(where or None, "is neither a Zipkin span nor a list of them")


@dataclass(frozen=True, slots=True)
class _Half:
    """One Zipkin span object as read, and the raw object (a shared half is kept whole)."""

    where: str
    raw: dict[str, Any]
    span: Span
    shared: bool


def _halves(values: list[JsonValue], ctx: ReadContext) -> Iterator[_Half]:
    for where, raw in zipkin_values(values, ctx):
        if not isinstance(raw, dict):
            raise ctx.error(where or None, "is not a span object")
        shared = raw.get("shared") is True
        yield _Half(where, raw, _span(raw, ctx, where), shared)


def _joined(halves: list[_Half]) -> list[Span]:
    """Spans in file order; a client half and the shared server half of its id become one,
    at the client's place."""
    by_id: dict[tuple[str | None, str], list[int]] = {}
    for index, half in enumerate(halves):
        if half.span.span_id is not None:
            by_id.setdefault((half.span.trace_id, half.span.span_id), []).append(index)
    partner: dict[int, int] = {}
    for indexes in by_id.values():
        if len(indexes) != 2:
            continue  # one half alone, or a span recorded again: left to the reader's notes
        first, second = (halves[i] for i in indexes)
        if first.shared != second.shared:
            client, server = indexes if second.shared else indexes[::-1]
            partner[client], partner[server] = server, -1
    spans = []
    for index, half in enumerate(halves):
        other = partner.get(index)
        if other is None:
            spans.append(half.span)
        elif other >= 0:
            spans.append(_merged(half, halves[other]))
    return spans


def _merged(client: _Half, server: _Half) -> Span:
    """One span for the call: see the module's docstring."""
    ours, theirs = client.span, server.span
    status, message = ours.status, ours.status_message
    if status != "error" and theirs.status is not None:
        status, message = theirs.status, theirs.status_message
    timed = ours if ours.start_ns is not None else theirs
    kept = {
        key: value for key, value in server.raw.items() if key not in ("traceId", "id", "shared")
    }
    own = {key: value for key, value in theirs.attributes.items() if key not in theirs.resource}
    own.pop(SHARED, None)
    tags = client.raw.get("tags")
    keys = [key for key in tags if isinstance(key, str)] if isinstance(tags, dict) else []
    attributes = {**own, **ours.attributes, SHARED: kept, CLIENT_TAGS: keys}
    return Span(
        trace_id=ours.trace_id,
        span_id=ours.span_id,
        parent_span_id=ours.parent_span_id or theirs.parent_span_id,
        name=ours.name or theirs.name,
        start_ns=timed.start_ns,
        end_ns=timed.end_ns,
        status=status,
        status_message=message,
        attributes=attributes,
        events=(*ours.events, *theirs.events),
        resource=ours.resource,
        scope=ours.scope or theirs.scope,
        otlp_kind=ours.otlp_kind,
    )


def _span(raw: dict[str, Any], ctx: ReadContext, where: str) -> Span:
    tags = _tags(raw.get("tags"), ctx, at(where, "tags"))
    status, message = status_from_tags(tags)
    scope = scope_from_tags(tags)
    resource = _endpoint(raw.get("localEndpoint"), ctx, at(where, "localEndpoint"))
    service = resource.pop("serviceName", None)
    resource = {LOCAL_ENDPOINT + key: value for key, value in resource.items()}
    if service is not None:
        resource = {"service.name": service, **resource}
    remote = _endpoint(raw.get("remoteEndpoint"), ctx, at(where, "remoteEndpoint"))
    tags.update((REMOTE_ENDPOINT + key, value) for key, value in remote.items())
    if raw.get("debug") is True:
        tags[DEBUG] = True
    if raw.get("shared") is True:
        tags[SHARED] = True
    start = _micros(raw, "timestamp", ctx, where)
    duration = _micros(raw, "duration", ctx, where)
    return checked(
        Span(
            trace_id=_id(raw, "traceId", 16, ctx, where),
            span_id=_id(raw, "id", 8, ctx, where),
            parent_span_id=_id(raw, "parentId", 8, ctx, where),
            name=_name(raw.get("name"), ctx, at(where, "name")),
            start_ns=start,
            end_ns=None if start is None or duration is None else start + duration,
            status=status,
            status_message=message,
            attributes={**resource, **tags} if resource else tags,
            events=_events(raw.get("annotations"), ctx, at(where, "annotations")),
            resource=resource or EMPTY_ATTRIBUTES,
            scope=scope,
            otlp_kind=_kind(raw.get("kind"), ctx, at(where, "kind")),
        ),
        ctx,
        where or "span",
    )


def _tags(raw: Any, ctx: ReadContext, where: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ctx.error(where, f"is {described(raw)}, not an object of tags")
    return dict(raw)


def _endpoint(raw: Any, ctx: ReadContext, where: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ctx.error(where, f"is {described(raw)}, not an endpoint object")
    return {key: raw[key] for key in ENDPOINT_FIELDS if raw.get(key) is not None}


def _micros(raw: dict[str, Any], field: str, ctx: ReadContext, where: str) -> int | None:
    """Nanoseconds of a microsecond count; 0 or absent is not recorded."""
    value = raw.get(field)
    if value is None:
        return None
    micros = count(value)
    if micros is None:
        raise ctx.error(at(where, field), not_a_count(value, "microseconds"))
    if field == "timestamp" and micros == 0:
        return None
    return micros * 1000


def _id(raw: dict[str, Any], field: str, size: int, ctx: ReadContext, where: str) -> str | None:
    try:
        return normalize_id(raw.get(field), size)
    except ValueError as exc:
        raise ctx.error(at(where, field), str(exc)) from None


def _name(raw: Any, ctx: ReadContext, where: str) -> str:
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise ctx.error(where, f"is {described(raw)}, not a string")
    return raw


def _kind(raw: Any, ctx: ReadContext, where: str) -> int:
    """OTLP's span kind; a span without one is local (INTERNAL), as Zipkin defines it."""
    if raw is None:
        return 1
    if isinstance(raw, str) and raw.upper() in KINDS:
        return KINDS[raw.upper()]
    if isinstance(raw, str) and raw.upper() == "INTERNAL":  # not Zipkin's, but written
        return 1
    raise ctx.error(where, f"is {described(raw)}, not CLIENT, SERVER, PRODUCER or CONSUMER")


def _events(raw: Any, ctx: ReadContext, where: str) -> tuple[Event, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ctx.error(where, f"is {described(raw)}, not a list of annotations")
    events = []
    for index, annotation in enumerate(raw):
        place = f"{where}[{index}]"
        if not isinstance(annotation, dict):
            raise ctx.error(place, "is not an annotation object")
        time = _micros(annotation, "timestamp", ctx, place)
        value = annotation.get("value")
        if value is not None and not isinstance(value, str):
            raise ctx.error(f"{place}.value", f"is {described(value)}, not a string")
        name, attributes = decode_annotation(value or "")
        events.append(Event(name, time, attributes or EMPTY_ATTRIBUTES))
    return tuple(events)


def decode_annotation(value: str) -> tuple[str, dict[str, Any]]:
    """An annotation's event: `{"<name>": {<attributes>}}` as the OpenTelemetry exporter
    encodes an event with attributes, else the value is the event's name."""
    if value.startswith("{") and value.endswith("}"):
        try:
            decoded = orjson.loads(value)
        except orjson.JSONDecodeError:
            return value, {}
        if isinstance(decoded, dict) and len(decoded) == 1:
            ((name, attributes),) = decoded.items()
            if isinstance(attributes, dict):
                return name, attributes
    return value, {}
