"""Jaeger's JSON, as its UI downloads a trace and `/api/traces` answers:
`{"data": [{"traceID", "spans": [...], "processes": {"p1": {...}}, "warnings"}], ...}`; also a
bare list of such spans, as people copy `data[0].spans` out of a download.

A span has hex `traceID`/`spanID`, `operationName`, `references` (`CHILD_OF`/`FOLLOWS_FROM`),
`startTime` and `duration` in microseconds, typed `tags` (`{"key", "type", "value"}`; a `bool`,
`int64` or `float64` value may be written as a string, as Jaeger's Elasticsearch documents, its
UI's own test traces and other back ends serving its API write them, read as Jaeger's Go code
reads them: `strconv.ParseBool`/`ParseInt`/`ParseFloat`), `logs`
(timestamped fields), a `processID` naming its process in the trace's `processes` (or the
process itself under `process`), and `warnings`.

How it maps, as OpenTelemetry's Jaeger translation does: the CHILD_OF reference in the same
trace is the parent, every other reference a link carrying `opentracing.ref_type`
(`child_of`/`follows_from`); the `span.kind` tag is OTLP's kind; `otel.status_code`,
`otel.status_description` and `error` are the status; `otel.scope.name` (`otel.library.name`)
is the scope; a log's `event` field is the event's name; the process is the resource, its
service the resource's `service.name`. The span's `warnings` are kept as the attribute
`jaeger.warnings`, the trace's as `jaeger.trace.warnings` on its first span, and `flags`
other than 1 (sampled) as `jaeger.flags`, for a writer to put back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tracecheck.readers.common import (
    INT64_MAX,
    INT64_MIN,
    ReadContext,
    checked,
    decode_base64,
    described,
)
from tracecheck.readers.jaeger_values import go_bool, go_float, go_int
from tracecheck.readers.shapes import is_jaeger_document, is_jaeger_span
from tracecheck.readers.tracer_parts import (
    JsonValue,
    at,
    checked_id,
    count,
    not_a_count,
    refuse_misread,
    scope_from_tags,
    status_from_tags,
    text,
)
from tracecheck.spans import EMPTY_ATTRIBUTES, Event, Link, Span

__all__ = [
    "FLAGS",
    "KINDS",
    "REF_TYPE",
    "TRACE_WARNINGS",
    "WARNINGS",
    "Owner",
    "Reference",
    "is_jaeger_document",
    "is_jaeger_span",
    "jaeger_span",
    "log_event",
    "log_events",
    "read_jaeger",
    "tag_owner",
    "typed_tags",
]

KINDS = {"internal": 1, "server": 2, "client": 3, "producer": 4, "consumer": 5}
REF_TYPE = "opentracing.ref_type"  # on a link: the reference it was
WARNINGS = "jaeger.warnings"
TRACE_WARNINGS = "jaeger.trace.warnings"
FLAGS = "jaeger.flags"
_TYPES = ("string", "bool", "int64", "float64", "binary")

# Who holds a tag, as a refusal names it: the holder (`span`, `batch`), its id if it has one,
# and the tag's role (`tag`, `log field`, `process tag`). Joined into words only when a tag is
# refused, so that reading a span formats no name.
Owner = tuple[str, str | None, str]


@dataclass(frozen=True, slots=True)
class Reference:
    """A reference as read: CHILD_OF or FOLLOWS_FROM, and the span it names."""

    child_of: bool
    trace_id: str | None
    span_id: str | None


def read_jaeger(values: list[JsonValue], ctx: ReadContext) -> list[Span]:
    """Every span of a download (or of a list of its spans), in file order."""
    spans: list[Span] = []
    for where, value in values:
        if is_jaeger_document(value):
            for index, trace in enumerate(value["data"]):
                spans.extend(_trace(trace, ctx, at(where, f"data[{index}]")))
        elif isinstance(value, list):
            spans.extend(_spans(value, {}, ctx, where))
        elif isinstance(value, dict) and isinstance(value.get("spans"), list):
            spans.extend(_trace(value, ctx, where))
        elif isinstance(value, dict):
            spans.append(_span(value, {}, ctx, where))
        else:
            raise ctx.error(where or None, "is not a Jaeger trace, span or list of spans")
    refuse_misread(spans, ctx, "jaeger")
    return spans


def _trace(trace: dict[str, Any], ctx: ReadContext, where: str) -> list[Span]:
    spans = trace.get("spans")
    if not isinstance(spans, list):
        raise ctx.error(at(where, "spans"), "is not a list of spans")
    processes = trace.get("processes")
    if processes is not None and not isinstance(processes, dict):
        raise ctx.error(at(where, "processes"), "is not an object of processes")
    read = list(_spans(spans, processes or {}, ctx, at(where, "spans")))
    warnings = trace.get("warnings")
    if warnings and read:
        read[0] = read[0].replace(attributes={**read[0].attributes, TRACE_WARNINGS: warnings})
    return read


def _spans(
    rows: list[Any], processes: dict[str, Any], ctx: ReadContext, where: str
) -> Iterator[Span]:
    for index, row in enumerate(rows):
        yield _span(row, processes, ctx, at(where, f"[{index}]"))


def _span(raw: Any, processes: dict[str, Any], ctx: ReadContext, where: str) -> Span:
    if not isinstance(raw, dict):
        raise ctx.error(where or None, "is not a span object")
    trace_id = checked_id(raw.get("traceID"), 16, ctx, at(where, "traceID"))
    span_id = checked_id(raw.get("spanID"), 8, ctx, at(where, "spanID"))
    named = span_id or "(no id)"
    process = raw.get("process")
    if process is None and isinstance(raw.get("processID"), str):
        process = processes.get(raw["processID"])
    start = _micros(raw.get("startTime"), ctx, at(where, "startTime"))
    duration = _micros(raw.get("duration"), ctx, at(where, "duration"), moment=False)
    return jaeger_span(
        ctx,
        where,
        trace_id=trace_id,
        span_id=span_id,
        name=text(raw.get("operationName"), ctx, at(where, "operationName")),
        references=_references(raw.get("references"), ctx, at(where, "references")),
        legacy_parent=checked_id(raw.get("parentSpanID"), 8, ctx, at(where, "parentSpanID")),
        start_ns=start,
        duration_ns=duration,
        tags=typed_tags(raw.get("tags"), ctx, at(where, "tags"), ("span", named, "tag")),
        logs=_logs(raw.get("logs"), ctx, at(where, "logs"), ("span", named, "log field")),
        process=_process(process, ctx, at(where, "process"), ("span", named, "process tag")),
        warnings=raw.get("warnings"),
        flags=raw.get("flags"),
    )


def jaeger_span(
    ctx: ReadContext,
    where: str,
    *,
    trace_id: str | None,
    span_id: str | None,
    name: str,
    references: list[Reference],
    legacy_parent: str | None,
    start_ns: int | None,
    duration_ns: int | None,
    tags: dict[str, Any],
    logs: tuple[Event, ...],
    process: dict[str, Any],
    warnings: Any,
    flags: Any,
) -> Span:
    """A span from the parts both Jaeger encodings have (see the module's docstring)."""
    parent, links = None, []
    for reference in references:
        if parent is None and reference.child_of and reference.trace_id == trace_id:
            parent = reference.span_id
        else:
            kind = "child_of" if reference.child_of else "follows_from"
            links.append(Link(reference.trace_id, reference.span_id, {REF_TYPE: kind}))
    status, message = status_from_tags(tags)
    scope = scope_from_tags(tags)
    kind_tag = tags.get("span.kind")
    if warnings:
        tags[WARNINGS] = warnings
    if flags is not None and flags != 1 and flags != 0:
        tags[FLAGS] = flags
    return checked(
        Span(
            trace_id=trace_id,
            span_id=span_id,
            parent_span_id=parent or legacy_parent,
            name=name,
            start_ns=start_ns,
            end_ns=None if start_ns is None or duration_ns is None else start_ns + duration_ns,
            status=status,
            status_message=message,
            attributes={**process, **tags} if process else tags,
            events=logs,
            links=tuple(links),
            resource=process or EMPTY_ATTRIBUTES,
            scope=scope,
            otlp_kind=KINDS.get(kind_tag.lower(), 0) if isinstance(kind_tag, str) else 0,
        ),
        ctx,
        where or "span",
    )


def typed_tags(
    raw: Any, ctx: ReadContext, where: str, owner: Owner = ("", None, "tag")
) -> dict[str, Any]:
    """`[{"key", "type", "value"}]` as a mapping, each value of its declared type. A value
    that is not of its type is an error naming the tag by its `owner` (`span 5399…, tag`) and
    its key, never the value."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise ctx.error(where, f"is {described(raw)}, not a list of tags")
    tags = {}
    for index, tag in enumerate(raw):
        place = f"{where}[{index}]"
        if not isinstance(tag, dict) or not isinstance(tag.get("key"), str):
            raise ctx.error(place, "is not a tag with a key")
        kind = tag.get("type", "string")
        try:
            tags[tag["key"]] = _typed(kind, tag.get("value"))
        except ValueError as exc:
            raise ctx.error(f"{place}.value", f"{tag_owner(owner, tag['key'])}: {exc}") from None
    return tags


def tag_owner(owner: Owner, key: str) -> str:
    """How a message names a tag: its owner and its key, quoted (long keys shortened)."""
    holder, named, role = owner
    holder = holder if named is None else f"{holder} {named}"
    shown = key if len(key) <= 80 else key[:79] + "…"
    return f"{holder + ', ' if holder else ''}{role} {json.dumps(shown, ensure_ascii=False)}"


def _typed(kind: Any, value: Any) -> Any:
    if kind not in _TYPES:
        raise ValueError(f"has the type {described(kind)}, not one of {', '.join(_TYPES)}")
    if value is None:
        return None
    if isinstance(value, str) and kind in _FROM_TEXT:
        return _FROM_TEXT[kind](value)
    if kind == "string" and isinstance(value, str):
        return value
    if kind == "bool" and isinstance(value, bool):
        return value
    if kind == "int64" and not isinstance(value, bool):
        if isinstance(value, int) and INT64_MIN <= value <= INT64_MAX:
            return value
        if isinstance(value, float) and value.is_integer() and INT64_MIN <= value <= INT64_MAX:
            return int(value)  # a JSON number with a fraction point, as JavaScript writes 1e21
    if kind == "float64" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind == "binary" and isinstance(value, str):
        decoded = decode_base64(value)
        if decoded is not None:
            return decoded
    raise ValueError(f"{described(value)} is not a value of type {kind}")


# A bool, int64 or float64 written as a string is read as Jaeger's Go code reads it.
_FROM_TEXT: dict[str, Callable[[str], Any]] = {
    "bool": go_bool,
    "int64": go_int,
    "float64": go_float,
}


def _references(raw: Any, ctx: ReadContext, where: str) -> list[Reference]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ctx.error(where, f"is {described(raw)}, not a list of references")
    references = []
    for index, reference in enumerate(raw):
        place = f"{where}[{index}]"
        if not isinstance(reference, dict):
            raise ctx.error(place, "is not a reference object")
        kind = reference.get("refType")
        if kind not in ("CHILD_OF", "FOLLOWS_FROM"):
            raise ctx.error(
                f"{place}.refType", f"{described(kind)} is not CHILD_OF or FOLLOWS_FROM"
            )
        references.append(
            Reference(
                kind == "CHILD_OF",
                checked_id(reference.get("traceID"), 16, ctx, f"{place}.traceID"),
                checked_id(reference.get("spanID"), 8, ctx, f"{place}.spanID"),
            )
        )
    return references


def _logs(raw: Any, ctx: ReadContext, where: str, owner: Owner) -> tuple[Event, ...]:
    return log_events(raw, ctx, where, _micros, typed_tags, owner)


def log_events(
    raw: Any,
    ctx: ReadContext,
    where: str,
    time_of: Callable[[Any, ReadContext, str], int | None],
    fields_of: Callable[[Any, ReadContext, str, Owner], dict[str, Any]],
    owner: Owner,
) -> tuple[Event, ...]:
    """A span's logs as events, each log's time and fields read as its format writes them."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ctx.error(where, f"is {described(raw)}, not a list of logs")
    events = []
    for index, log in enumerate(raw):
        place = f"{where}[{index}]"
        if not isinstance(log, dict):
            raise ctx.error(place, "is not a log object")
        time = time_of(log.get("timestamp"), ctx, f"{place}.timestamp")
        events.append(log_event(time, fields_of(log.get("fields"), ctx, f"{place}.fields", owner)))
    return tuple(events)


def log_event(time_ns: int | None, fields: dict[str, Any]) -> Event:
    """A log as an event: its `event` field is the name, the other fields its attributes."""
    name = fields.pop("event", None)
    if not isinstance(name, str):
        if name is not None:
            fields["event"] = name
        name = ""
    return Event(name, time_ns, fields or EMPTY_ATTRIBUTES)


def _process(raw: Any, ctx: ReadContext, where: str, owner: Owner) -> dict[str, Any]:
    """The process as resource attributes: its tags, and its service as `service.name`."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ctx.error(where, f"is {described(raw)}, not a process object")
    resource = typed_tags(raw.get("tags"), ctx, at(where, "tags"), owner)
    service = raw.get("serviceName")
    if isinstance(service, str) and service:
        resource["service.name"] = service
    return resource


def _micros(raw: Any, ctx: ReadContext, where: str, *, moment: bool = True) -> int | None:
    """Nanoseconds of a count of microseconds; a moment of 0 is not recorded."""
    if raw is None:
        return None
    micros = count(raw)
    if micros is None:
        raise ctx.error(where, not_a_count(raw, "microseconds"))
    return None if moment and micros == 0 else micros * 1000
