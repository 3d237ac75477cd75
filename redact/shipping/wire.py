"""The hosted-ingest wire `2026-07-24.v1` (spec `shipping.md` §3), written once for the shipper
and the receiver: its version, paths and headers, the request envelope, and what a valid span
row (`TraceSpanEvent`) is.

A row is valid when
- `traceId` is 32 and `spanId` 16 hex digits, not all zero; `parentSpanId`, when present, 16 hex
  digits (an empty string reads as absent). Upper-case hex is accepted and stored lower-case.
- `name` is a string; `startTimeUnixNano`, `endTimeUnixNano` and each event's `timeUnixNano` are
  canonical unsigned 64-bit base-10 strings (`0` or no leading zero, at most 2^64-1), and the end
  is not before the start (an end of `0`, OTLP's "not recorded", is accepted).
- `attributes` is an object whose values are strings, finite numbers or booleans (nested values
  must be flattened to JSON strings by the client); keys are non-empty.
- `events`, when present, is a list of `{timeUnixNano, name, attributes?}`; `status`, when
  present, `{code: "OK" | "ERROR" | "UNSET", message?: string}`.
- Optional pivots: `tangle.runId`, `tangle.cellId`, `tangle.scenarioId` (strings),
  `tangle.generation` (a number).
- No other field, at any level: a field outside the spec is refused rather than dropped.

Reasons name places (a field the wire defines, an entry's position) and types, never a value, an
attribute key or an unknown field's name: any of them may hold a secret.
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

import orjson

from tracecheck.naming import a_json_type
from tracecheck.readers import deep_json
from tracecheck.writers.span_events import GENERATION_PIVOT, STRING_PIVOTS

__all__ = [
    "API_KEY_ENV",
    "INGEST_PATH",
    "MAX_IDEMPOTENCY_KEY_CHARS",
    "READ_PATH",
    "TENANT_ENV",
    "URL_ENV",
    "WIRE_VERSION",
    "InvalidRequest",
    "envelope_spans",
    "is_hex",
    "validate_span",
    "version_message",
]

WIRE_VERSION: Final = "2026-07-24.v1"
INGEST_PATH: Final = "/v1/ingest/traces"
READ_PATH: Final = "/v1/traces/"  # + <traceId>
MAX_IDEMPOTENCY_KEY_CHARS: Final = 256
URL_ENV: Final = "TANGLE_INGEST_URL"
API_KEY_ENV: Final = "TANGLE_INGEST_API_KEY"
TENANT_ENV: Final = "TANGLE_TENANT_ID"

_U64_MAX = 2**64 - 1
_CANONICAL_U64 = re.compile(r"0|[1-9][0-9]{0,19}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_STATUS_CODES = ("OK", "ERROR", "UNSET")
_SPAN_FIELDS = frozenset(
    {
        "traceId",
        "spanId",
        "parentSpanId",
        "name",
        "startTimeUnixNano",
        "endTimeUnixNano",
        "attributes",
        "events",
        "status",
        GENERATION_PIVOT,
        *STRING_PIVOTS,
    }
)
_EVENT_FIELDS = frozenset({"timeUnixNano", "name", "attributes"})
_STATUS_FIELDS = frozenset({"code", "message"})
_ENVELOPE_FIELDS = frozenset({"wireVersion", "spans"})


class InvalidRequest(ValueError):
    """A request body refused whole (a 400); the message names no value."""


def is_hex(text: str, digits: int) -> bool:
    return len(text) == digits and _HEX.fullmatch(text) is not None


def envelope_spans(body: bytes) -> list[Any]:
    """The request's span rows, or `InvalidRequest` refusing the request whole."""
    try:
        # A row nested past the parser's depth is cut there and refused alone, not the batch.
        document = deep_json.loads(body)
    except orjson.JSONDecodeError as exc:
        raise InvalidRequest(
            f"the body is not JSON: {exc.msg.rstrip('.')} at line {exc.lineno}, column {exc.colno}"
        ) from None
    if not isinstance(document, dict):
        raise InvalidRequest(f"the body is {a_json_type(document)}, not an object")
    unknown = sum(1 for name in document if name not in _ENVELOPE_FIELDS)
    if unknown:
        raise InvalidRequest(f"the body has {_fields(unknown)} the wire does not define")
    if document.get("wireVersion") != WIRE_VERSION:
        raise InvalidRequest(version_message("wireVersion", document.get("wireVersion")))
    if "spans" not in document:
        raise InvalidRequest("spans is missing")
    spans = document["spans"]
    if not isinstance(spans, list):
        raise InvalidRequest(f"spans is {a_json_type(spans)}, not a list")
    return spans


def version_message(where: str, got: Any) -> str:
    if got is None:
        return f"{where} is missing: this server accepts {WIRE_VERSION} only"
    if not isinstance(got, str):
        return f"{where} is {a_json_type(got)}: this server accepts {WIRE_VERSION} only"
    return f"{where} is not accepted: this server accepts {WIRE_VERSION} only"


class _Invalid(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason


def validate_span(row: Any) -> dict[str, Any]:
    """The row as it is stored (ids lower-case, an empty `parentSpanId` dropped), or
    ValueError with the reason it is not a `TraceSpanEvent`."""
    try:
        return _span(row)
    except _Invalid as exc:
        raise ValueError(exc.reason) from None


def _span(row: Any) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise _Invalid(f"the span is {a_json_type(row)}, not an object")
    _only(row, _SPAN_FIELDS, "")
    out = dict(row)
    out["traceId"] = _hex_id(row, "traceId", 16)
    out["spanId"] = _hex_id(row, "spanId", 8)
    if row.get("parentSpanId") == "":
        del out["parentSpanId"]
    elif "parentSpanId" in row:
        out["parentSpanId"] = _hex_id(row, "parentSpanId", 8)
    _string(row, "name", "name")
    start = _u64(row, "startTimeUnixNano", "startTimeUnixNano")
    end = _u64(row, "endTimeUnixNano", "endTimeUnixNano")
    if 0 < end < start:  # 0 is OTLP's "not recorded"
        raise _Invalid("endTimeUnixNano is before startTimeUnixNano")
    if "attributes" not in row:
        raise _Invalid("attributes is missing")
    _attributes(row["attributes"], "attributes")
    if "events" in row:
        _events(row["events"])
    if "status" in row:
        _status(row["status"])
    for pivot in STRING_PIVOTS:
        if pivot in row:
            _string(row, pivot, pivot)
    if GENERATION_PIVOT in row and not _is_number(row[GENERATION_PIVOT]):
        raise _Invalid(f"{GENERATION_PIVOT} is {a_json_type(row[GENERATION_PIVOT])}, not a number")
    return out


def _only(obj: dict[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sum(1 for name in obj if name not in allowed)
    if unknown:
        place = f"{where} has" if where else "the span has"
        raise _Invalid(f"{place} {_fields(unknown)} the wire does not define")


def _fields(count: int) -> str:
    """`a field`, `3 fields`: unknown fields are counted, never named (a name is input)."""
    return "a field" if count == 1 else f"{count} fields"


def _hex_id(row: dict[str, Any], name: str, size: int) -> str:
    raw = _string(row, name, name)
    if len(raw) != 2 * size or not _HEX.fullmatch(raw):
        raise _Invalid(f"{name} is not {2 * size} hex digits")
    if not raw.strip("0"):
        raise _Invalid(f"{name} is all zeros")
    return raw.lower()


def _string(obj: dict[str, Any], name: str, where: str) -> str:
    if name not in obj:
        raise _Invalid(f"{where} is missing")
    value = obj[name]
    if not isinstance(value, str):
        raise _Invalid(f"{where} is {a_json_type(value)}, not a string")
    return value


def _u64(obj: dict[str, Any], name: str, where: str) -> int:
    if name not in obj:
        raise _Invalid(f"{where} is missing")
    value = obj[name]
    if not isinstance(value, str):
        raise _Invalid(f"{where} is {a_json_type(value)}, not a base-10 string")
    if not _CANONICAL_U64.fullmatch(value) or int(value) > _U64_MAX:
        raise _Invalid(f"{where} is not a canonical unsigned 64-bit base-10 string")
    return int(value)


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def _attributes(raw: Any, where: str) -> None:
    if not isinstance(raw, dict):
        raise _Invalid(f"{where} is {a_json_type(raw)}, not an object")
    for number, (key, value) in enumerate(raw.items(), 1):
        if not key:
            raise _Invalid(f"{where} has an empty key")
        if not (isinstance(value, str | bool) or _is_number(value)):
            # By position: an attribute key may hold a secret (the gate renames such keys).
            raise _Invalid(
                f"{where}: the value of entry {number} is {a_json_type(value)}, "
                "not a string, number or boolean"
            )


def _events(raw: Any) -> None:
    if not isinstance(raw, list):
        raise _Invalid(f"events is {a_json_type(raw)}, not a list")
    for index, event in enumerate(raw):
        where = f"events[{index}]"
        if not isinstance(event, dict):
            raise _Invalid(f"{where} is {a_json_type(event)}, not an object")
        _only(event, _EVENT_FIELDS, where)
        _u64(event, "timeUnixNano", f"{where}.timeUnixNano")
        _string(event, "name", f"{where}.name")
        if "attributes" in event:
            _attributes(event["attributes"], f"{where}.attributes")


def _status(raw: Any) -> None:
    if not isinstance(raw, dict):
        raise _Invalid(f"status is {a_json_type(raw)}, not an object")
    _only(raw, _STATUS_FIELDS, "status")
    code = raw.get("code")
    if code not in _STATUS_CODES:
        shown = "missing" if "code" not in raw else f"not one of {', '.join(_STATUS_CODES)}"
        raise _Invalid(f"status.code is {shown}")
    if "message" in raw:
        _string(raw, "message", "status.message")


# --------------------------------------------------------------------------- the gate
