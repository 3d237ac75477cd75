"""What the readers of tracing back ends' own formats share (`tracers` lists the formats).

Each is read straight into spans by its own module; here are the pieces they have in common:
the JSON values a file holds (one document, JSON Lines, or pretty-printed values one after
another, as `grpcurl` prints a stream), OpenTelemetry's status as these back ends carry it in
tags, the instrumentation scope likewise, and the check that refuses a file that read as
spans with neither a name nor a time: that is a misread, not a trace.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from tracecheck.readers.common import ReadContext, described, normalize_id
from tracecheck.spans import Scope, Span, SpanStatus

__all__ = [
    "JsonValue",
    "at",
    "checked_id",
    "count",
    "json_values",
    "not_a_count",
    "refuse_misread",
    "scope_from_tags",
    "status_from_tags",
    "text",
]

# One JSON value of a file and the place that names it in messages ("" for the whole file,
# "line 3" for JSON Lines, "value 2" for the second of several pretty-printed values).
JsonValue = tuple[str, Any]

_SCOPE_TAGS = (
    ("otel.scope.name", "otel.scope.version"),
    ("otel.library.name", "otel.library.version"),
)


def json_values(data: bytes, ctx: ReadContext) -> list[JsonValue]:
    """The JSON values of `data`: one document, JSON Lines, or values one after another."""
    try:
        return [("", orjson.loads(data))]
    except orjson.JSONDecodeError as exc:
        whole = exc
    lines = [line for line in data.splitlines() if line.strip()]
    if len(lines) > 1:
        try:
            return [
                (f"line {number}", orjson.loads(line))
                for number, line in enumerate(data.splitlines(), 1)
                if line.strip()
            ]
        except orjson.JSONDecodeError:
            pass
    values = _concatenated(data)
    if values is None:
        raise ctx.malformed_json(whole) from None
    return values


def _concatenated(data: bytes) -> list[JsonValue] | None:
    """Pretty-printed values one after another (a gRPC stream as `grpcurl` prints it)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    decoder = json.JSONDecoder()
    values: list[JsonValue] = []
    position = 0
    while True:
        while position < len(text) and text[position] in " \t\r\n":
            position += 1
        if position == len(text):
            break
        try:
            value, position = decoder.raw_decode(text, position)
        except (json.JSONDecodeError, RecursionError):
            return None
        values.append((f"value {len(values) + 1}", value))
    return values if len(values) > 1 else None


def at(where: str, field: str) -> str:
    """The place of a field: `[3].name`, `data[0].spans[1].tags`, or `line 3: name`."""
    if not where:
        return field
    if where.startswith(("line ", "value ")):
        return f"{where}: {field}"
    return f"{where}{field}" if field.startswith("[") else f"{where}.{field}"


def status_from_tags(tags: Mapping[str, Any]) -> tuple[SpanStatus | None, str | None]:
    """OpenTelemetry's status as exporters to Zipkin and Jaeger write it: `otel.status_code`
    (`OK`/`ERROR`), `otel.status_description`, and Zipkin's and OpenTracing's `error` tag,
    whose presence alone marks an error (Zipkin puts the message in it)."""
    code = tags.get("otel.status_code")
    code = code.upper() if isinstance(code, str) else None
    error = tags.get("error")
    if code == "ERROR" or (error is not None and error is not False and error != "false"):
        message = tags.get("otel.status_description")
        if not isinstance(message, str) or not message:
            message = error if isinstance(error, str) and error not in ("", "true") else None
        return "error", message
    return ("ok", None) if code == "OK" else (None, None)


def scope_from_tags(tags: dict[str, Any]) -> Scope | None:
    """The instrumentation scope OpenTelemetry's exporters put in tags (`otel.scope.name`, or
    the older `otel.library.name`), taken out of `tags`; None when there is none."""
    for name_key, version_key in _SCOPE_TAGS:
        name = tags.get(name_key)
        if isinstance(name, str) and name:
            version = tags.get(version_key)
            del tags[name_key]
            if version is None or isinstance(version, str):
                tags.pop(version_key, None)
            return Scope(name, version if isinstance(version, str) else "")
    return None


def refuse_misread(spans: Sequence[Span], ctx: ReadContext, format: str) -> None:
    """Raise when every span read has neither a name nor a time: the file has this format's
    outline but not its content, and spans made of nothing would pass any contract."""
    if spans and all(not span.name and span.start_ns is None for span in spans):
        count = f"{len(spans)} span{'' if len(spans) == 1 else 's'}"
        raise ctx.error(
            None,
            f"reads as {format}, but none of its {count} has a name or a time: "
            "not a file of this format, or not one this version reads",
        )


def count(raw: Any) -> int | None:
    """A non-negative whole number given as a JSON number or a string of digits, else None."""
    if raw.__class__ is int:
        return int(raw) if raw >= 0 else None
    if isinstance(raw, float) and raw.is_integer() and raw >= 0:
        return int(raw)
    if isinstance(raw, str) and raw.isascii() and raw.isdigit():
        return int(raw)
    return None


def not_a_count(raw: Any, unit: str) -> str:
    return f"{described(raw)} is not a count of {unit}"


def checked_id(raw: Any, size: int, ctx: ReadContext, where: str) -> str | None:
    """A trace or span id of `size` bytes as lower-case hex (hex or base64 written)."""
    try:
        return normalize_id(raw, size)
    except ValueError as exc:
        raise ctx.error(where, str(exc)) from None


def text(raw: Any, ctx: ReadContext, where: str) -> str:
    """A string field; absent is empty."""
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise ctx.error(where, f"is {described(raw)}, not a string")
    return raw
