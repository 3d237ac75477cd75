"""Jaeger's protobuf model (`jaeger.api_v2`, jaeger-idl `proto/api_v2/model.proto`) as protobuf
JSON, and the answers of Jaeger's `/api/v3/traces` (OTLP wrapped in `{"result": ...}`).

Model JSON is what the gRPC query API gives when printed as JSON (`grpcurl` on `GetTrace`:
one `{"spans": [...]}` chunk after another) and what tools built on the model write: a list of
spans, a chunk, a `Batch` (`spans` and one `process`), a `Trace` (`spans`, `processMap`,
`warnings`), each possibly inside a gRPC-gateway `{"result": ...}`. A span has base64
`traceId`/`spanId`, `operationName`, `references` (`refType` absent is CHILD_OF, proto3's
default), an RFC 3339 `startTime`, a `duration` as Jaeger's `jsonpb` reads it (Go's
`time.ParseDuration`: protobuf's `"0.001500s"`, Jaeger's own fixtures' `"1500000ns"`), typed tags
`{"key", "vType", "vStr" | "vBool" | "vInt64" | "vFloat64" | "vBinary"}` (`vType` absent is
STRING, an absent value its type's zero), `logs`, a `process` (or `processId`) and `warnings`.
It maps as Jaeger's UI JSON does (see `jaeger`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tracecheck.readers.common import (
    INT64_MAX,
    INT64_MIN,
    ReadContext,
    decode_base64,
    described,
    parse_int64,
    parse_iso8601,
    special_double,
)
from tracecheck.readers.jaeger import (
    TRACE_WARNINGS,
    Owner,
    Reference,
    jaeger_span,
    log_events,
    tag_owner,
)
from tracecheck.readers.jaeger_values import go_duration
from tracecheck.readers.otlp_json import spans_from_request
from tracecheck.readers.shapes import is_api_v3_answer, is_model_span
from tracecheck.readers.tracer_parts import JsonValue, at, checked_id, refuse_misread, text
from tracecheck.spans import Event, Span

__all__ = [
    "is_api_v3_answer",
    "is_model_span",
    "model_layout",
    "read_jaeger_api_v3",
    "read_jaeger_model",
]

_VALUE_FIELDS = {
    "STRING": "vStr",
    "BOOL": "vBool",
    "INT64": "vInt64",
    "FLOAT64": "vFloat64",
    "BINARY": "vBinary",
}
_VALUE_TYPES = ("STRING", "BOOL", "INT64", "FLOAT64", "BINARY")
_BATCH: Owner = ("batch", None, "process tag")  # a Batch's process
_MAPPED: Owner = ("process", None, "process tag")  # a Trace's processMap entry
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def model_layout(value: Any) -> str:
    """How the first value of a model file holds its spans, for a writer to do the same:
    `list`, `chunk` (`{"spans"}`), `trace` (with `processMap`) or `result` (wrapped)."""
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict) and isinstance(value.get("result"), dict):
        return "result"
    if isinstance(value, dict) and "processMap" in value:
        return "trace"
    return "chunk"


def read_jaeger_model(values: list[JsonValue], ctx: ReadContext) -> list[Span]:
    spans: list[Span] = []
    for where, value in values:
        spans.extend(_value(value, ctx, where))
    refuse_misread(spans, ctx, "jaeger-model")
    return spans


def read_jaeger_api_v3(values: list[JsonValue], ctx: ReadContext) -> list[Span]:
    """Each `{"result": TracesData}` read as OTLP/JSON; an error answer is refused."""
    spans: list[Span] = []
    for where, value in values:
        if not is_api_v3_answer(value):
            raise ctx.error(where or None, _not_a_result(value))
        spans.extend(spans_from_request(value["result"], ctx, at(where, "result") + "."))
    return spans


def _not_a_result(value: Any) -> str:
    error = value.get("error") if isinstance(value, dict) else None
    if isinstance(error, dict):
        code = error.get("grpcCode", error.get("httpCode"))
        # A status code is no content: shown as it is when it is one.
        shown = code if type(code) is int and 0 <= code < 1000 else described(code)
        return f"is an error answer from Jaeger (code {shown}), not a trace"
    return 'is not an answer of the form {"result": {"resourceSpans": [...]}}'


def _value(value: Any, ctx: ReadContext, where: str) -> Iterator[Span]:
    if isinstance(value, dict) and isinstance(value.get("result"), dict):
        value, where = value["result"], at(where, "result")
    if isinstance(value, list):
        yield from _spans(value, None, {}, ctx, where)
    elif isinstance(value, dict) and isinstance(value.get("spans"), list):
        process = _process(value.get("process"), ctx, at(where, "process"), _BATCH)
        processes = _process_map(value.get("processMap"), ctx, at(where, "processMap"))
        spans = list(_spans(value["spans"], process, processes, ctx, at(where, "spans")))
        warnings = value.get("warnings")  # a Trace's own (model.proto `Trace.warnings`)
        if warnings and spans:
            attributes = {**spans[0].attributes, TRACE_WARNINGS: warnings}
            spans[0] = spans[0].replace(attributes=attributes)
        yield from spans
    elif isinstance(value, dict) and "error" in value:
        raise ctx.error(where or None, _not_a_result(value))
    elif isinstance(value, dict):
        yield _span(value, None, {}, ctx, where)
    else:
        raise ctx.error(where or None, "is not a Jaeger model span, chunk or list of spans")


def _spans(
    rows: list[Any],
    process: dict[str, Any] | None,
    processes: dict[str, dict[str, Any]],
    ctx: ReadContext,
    where: str,
) -> Iterator[Span]:
    for index, row in enumerate(rows):
        yield _span(row, process, processes, ctx, at(where, f"[{index}]"))


def _span(
    raw: Any,
    batch_process: dict[str, Any] | None,
    processes: dict[str, dict[str, Any]],
    ctx: ReadContext,
    where: str,
) -> Span:
    if not isinstance(raw, dict):
        raise ctx.error(where or None, "is not a span object")
    # The span's own process wins over its batch's (model.proto, "Note that both Span and
    # Batch may contain a Process").
    trace_id = checked_id(raw.get("traceId"), 16, ctx, at(where, "traceId"))
    span_id = checked_id(raw.get("spanId"), 8, ctx, at(where, "spanId"))
    named = span_id or "(no id)"
    process = _process(
        raw.get("process"), ctx, at(where, "process"), ("span", named, "process tag")
    )
    if process is None and isinstance(raw.get("processId"), str):
        process = processes.get(raw["processId"])
    start = _timestamp(raw.get("startTime"), ctx, at(where, "startTime"))
    return jaeger_span(
        ctx,
        where,
        trace_id=trace_id,
        span_id=span_id,
        name=text(raw.get("operationName"), ctx, at(where, "operationName")),
        references=_references(raw.get("references"), ctx, at(where, "references")),
        legacy_parent=None,
        start_ns=start,
        duration_ns=_duration(raw.get("duration"), ctx, at(where, "duration")),
        tags=model_tags(raw.get("tags"), ctx, at(where, "tags"), ("span", named, "tag")),
        logs=_logs(raw.get("logs"), ctx, at(where, "logs"), ("span", named, "log field")),
        process=process if process is not None else dict(batch_process or {}),
        warnings=raw.get("warnings"),
        flags=raw.get("flags"),
    )


def model_tags(
    raw: Any, ctx: ReadContext, where: str, owner: Owner = ("", None, "tag")
) -> dict[str, Any]:
    """`KeyValue`s as a mapping, each value of its `vType` (absent fields are proto3 zeros); a
    value not of its type is an error naming the tag's `owner` and key, never the value."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise ctx.error(where, f"is {described(raw)}, not a list of tags")
    tags = {}
    for index, tag in enumerate(raw):
        place = f"{where}[{index}]"
        if not isinstance(tag, dict) or not isinstance(tag.get("key"), str):
            raise ctx.error(place, "is not a tag with a key")
        kind = tag.get("vType", "STRING")
        if isinstance(kind, int) and not isinstance(kind, bool) and 0 <= kind < 5:
            kind = _VALUE_TYPES[kind]
        if kind not in _VALUE_FIELDS:
            raise ctx.error(f"{place}.vType", f"{described(kind)} is not a Jaeger value type")
        field = _VALUE_FIELDS[kind]
        try:
            tags[tag["key"]] = _model_value(kind, tag.get(field))
        except ValueError as exc:
            raise ctx.error(f"{place}.{field}", f"{tag_owner(owner, tag['key'])}: {exc}") from None
    return tags


def _model_value(kind: str, value: Any) -> Any:
    if kind == "STRING" and (value is None or isinstance(value, str)):
        return value or ""
    if kind == "BOOL" and (value is None or isinstance(value, bool)):
        return bool(value)
    if kind == "INT64" and not isinstance(value, bool):
        if value is None:
            return 0
        if isinstance(value, str):
            return parse_int64(value)  # protobuf JSON's int64, as a string
        if isinstance(value, int):
            if not INT64_MIN <= value <= INT64_MAX:
                raise ValueError(f"{described(value)} is beyond the 64-bit integer range")
            return value
    if kind == "FLOAT64" and not isinstance(value, bool):
        if value is None:
            return 0.0
        if isinstance(value, int | float):
            return float(value)
        if isinstance(value, str) and (special := special_double(value)) is not None:
            return special
        if isinstance(value, str) and _JSON_NUMBER.fullmatch(value):
            return float(value)  # protobuf JSON accepts a double as a string
    if kind == "BINARY":
        if value is None:
            return b""
        decoded = decode_base64(value) if isinstance(value, str) else None
        if decoded is not None:
            return decoded
    raise ValueError(f"{described(value)} is not a value of type {kind}")


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
        kind = reference.get("refType", "CHILD_OF")
        if kind not in ("CHILD_OF", "FOLLOWS_FROM", 0, 1) or isinstance(kind, bool):
            raise ctx.error(
                f"{place}.refType", f"{described(kind)} is not CHILD_OF or FOLLOWS_FROM"
            )
        references.append(
            Reference(
                kind in ("CHILD_OF", 0),
                checked_id(reference.get("traceId"), 16, ctx, f"{place}.traceId"),
                checked_id(reference.get("spanId"), 8, ctx, f"{place}.spanId"),
            )
        )
    return references


def _logs(raw: Any, ctx: ReadContext, where: str, owner: Owner) -> tuple[Event, ...]:
    return log_events(raw, ctx, where, _timestamp, model_tags, owner)


def _process(raw: Any, ctx: ReadContext, where: str, owner: Owner) -> dict[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ctx.error(where, f"is {described(raw)}, not a process object")
    resource = model_tags(raw.get("tags"), ctx, at(where, "tags"), owner)
    service = raw.get("serviceName")
    if isinstance(service, str) and service:
        resource["service.name"] = service
    return resource


def _process_map(raw: Any, ctx: ReadContext, where: str) -> dict[str, dict[str, Any]]:
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise ctx.error(where, f"is {described(raw)}, not a list of process mappings")
    processes = {}
    for index, entry in enumerate(raw):
        place = f"{where}[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("processId"), str):
            raise ctx.error(place, "is not a process mapping with a processId")
        processes[entry["processId"]] = (
            _process(entry.get("process"), ctx, f"{place}.process", _MAPPED) or {}
        )
    return processes


def _timestamp(raw: Any, ctx: ReadContext, where: str) -> int | None:
    """Unix nanoseconds of an RFC 3339 string (or `{"seconds", "nanos"}`); the epoch, which
    a proto3 zero time is, means not recorded."""
    if raw is None:
        return None
    try:
        nanos = parse_iso8601(raw) if isinstance(raw, str) else _seconds_nanos(raw)
    except ValueError as exc:
        raise ctx.error(where, str(exc)) from None
    return nanos if nanos > 0 else None


def _duration(raw: Any, ctx: ReadContext, where: str) -> int | None:
    """Nanoseconds of a Duration as Jaeger's `jsonpb` reads one (Go's `time.ParseDuration`:
    `"1.5s"`, `"1500ms"`, `"1500000000ns"`, `"1m30s"`), or of a `{seconds, nanos}` object."""
    if raw is None:
        return None
    try:
        if isinstance(raw, str):
            try:
                nanos = go_duration(raw)
            except ValueError:
                raise ValueError(
                    f'{described(raw)} is not a Duration such as "0.0015s" or "1500000ns"'
                ) from None
        else:
            nanos = _seconds_nanos(raw)
        if nanos < 0:
            raise ValueError(f"{described(raw)} is negative")
    except ValueError as exc:
        raise ctx.error(where, str(exc)) from None
    return nanos


def _seconds_nanos(raw: Any) -> int:
    if not isinstance(raw, dict):
        raise ValueError(f"is {described(raw)}, not a time")
    seconds, nanos = raw.get("seconds", 0), raw.get("nanos", 0)
    if isinstance(seconds, str) and seconds.lstrip("-").isdigit():
        seconds = int(seconds)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (seconds, nanos)):
        raise ValueError("is not {seconds, nanos} of whole numbers")
    return int(seconds) * 1_000_000_000 + int(nanos)
