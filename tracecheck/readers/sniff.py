"""Which format a file holds, judged by its content, never by its name (inputs.md)."""

from __future__ import annotations

import re
from typing import Any

import orjson

from tracecheck.formats import FORMATS
from tracecheck.readers.shapes import (
    looks_like_flat_row,
    looks_like_proto_message,
    looks_like_proto_stream,
)
from tracecheck.readers.tracers import tracer_format_of_text, tracer_format_of_value

__all__ = ["FORMATS", "HEAD_SIZE", "is_claude_record", "json_layout", "sniff"]

HEAD_SIZE = 1 << 16
_OTLP_KEY = re.compile(rb'"(?:resourceSpans|resource_spans)"\s*:')
_FLAT_KEY = re.compile(rb'"(?:traceId|trace_id|spanId|span_id|startedAt|toolName)"\s*:')
_INGEST_KEY = re.compile(rb'"spans"\s*:\s*\[')
_CLAUDE_TYPES = frozenset({"system", "assistant", "user", "result", "summary"})
_CLAUDE_CONTROL = frozenset({"control_response", "control_request"})


def sniff(head: bytes, size: int | None) -> tuple[str, ...]:
    """Every format whose reader recognises `head`, the first bytes of a `size`-byte input."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text:
        return ()
    if text[:1] in (b"{", b"["):
        formats = _sniff_json(text, complete=size is not None and len(head) >= size)
        # A protobuf request starts with its tag, a newline byte, which the strip took: a
        # length of 123 or 91 bytes then reads as "{" or "[". Binary content settles it.
        if formats or _is_text(head):
            return formats
    elif _is_text(head):  # protobuf always holds control bytes (tags 0x12, short lengths)
        return ()
    if looks_like_proto_message(head, size) or looks_like_proto_stream(head, size):
        return ("otlp-proto",)
    return ()


def _is_text(head: bytes) -> bool:
    """True when the first bytes are printable UTF-8 text (blank lines and tabs allowed)."""
    try:
        text = head[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(char.isprintable() or char in "\t\r\n" for char in text)


def json_layout(head: bytes) -> str:
    """`document` for one JSON value, `lines` for JSON Lines (more than one value)."""
    first, rest = _first_line(head.lstrip(b"\xef\xbb\xbf \t\r\n"))
    if first is not None and rest.strip():
        return "lines"
    return "document"


def _sniff_json(text: bytes, *, complete: bool) -> tuple[str, ...]:
    first, rest = _first_line(text)
    # Zipkin, Jaeger, OpenTelemetry JS: shapes no other reader takes. A whole document is
    # judged by its values, one cut off after the first bytes by its keys.
    whole = _whole(text) if first is None and complete else None
    if first is not None or whole is not None:
        tracer = tracer_format_of_value(first if first is not None else whole)
    else:
        tracer = tracer_format_of_text(text)
    if tracer is not None:
        return (tracer,)
    if first is None:  # a pretty-printed or very long document: judge by its keys
        if text[:1] == b"[":
            return ("spans",) if _FLAT_KEY.search(text) else ()
        if _OTLP_KEY.search(text):
            return ("otlp-json",)
        if _INGEST_KEY.search(text) and _FLAT_KEY.search(text):
            return ("spans",)
        return ()
    many = bool(rest.strip()) or (not complete and not rest)
    if isinstance(first, list):
        return ("spans",) if not many and any(looks_like_flat_row(r) for r in first[:5]) else ()
    if not isinstance(first, dict):
        return ()
    found = []
    if "resourceSpans" in first or "resource_spans" in first:
        found.append("otlp-jsonl" if many else "otlp-json")
    if is_claude_record(first):
        found.append("claude-stream")
    spans = first.get("spans")
    if looks_like_flat_row(first) or (not many and isinstance(spans, list)):
        found.append("spans")
    return tuple(found)


def _whole(text: bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None


def _first_line(text: bytes) -> tuple[Any, bytes]:
    """The first line's JSON value and what follows, or (None, b"") when it does not parse."""
    end = text.find(b"\n")
    line, rest = (text, b"") if end < 0 else (text[:end], text[end + 1 :])
    try:
        return orjson.loads(line), rest
    except orjson.JSONDecodeError:
        return None, b""


def is_claude_record(record: Any) -> bool:
    """A Claude Code stream-json, Agent SDK stdout or session-transcript record."""
    if not isinstance(record, dict) or not isinstance(record.get("type"), str):
        return False
    if "session_id" in record or "sessionId" in record:
        return True
    if record["type"] == "file-history-snapshot":  # transcripts often open with one
        return "snapshot" in record and "messageId" in record
    if record["type"] in _CLAUDE_CONTROL:  # the Agent SDK's stdout opens with one
        payload = record.get("response", record.get("request"))
        return isinstance(payload, dict) and ("request_id" in payload or "request_id" in record)
    return record["type"] in _CLAUDE_TYPES and ("uuid" in record or "leafUuid" in record)
