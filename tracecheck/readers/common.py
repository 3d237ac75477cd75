"""What every reader shares: ids, timestamps, and building a span without inventing anything."""

from __future__ import annotations

import base64
import binascii
import gc
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from tracecheck.errors import TraceReadError
from tracecheck.spans import ReadNote, Span, SpanStatus

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "LEFT_OUT",
    "MAX_VALUE_DEPTH",
    "SPAN_KINDS",
    "U64_MAX",
    "Decline",
    "ReadContext",
    "Skipped",
    "checked",
    "collector_paused",
    "decode_base64",
    "described",
    "indexed_place",
    "normalize_id",
    "otlp_span_kind",
    "parse_epoch",
    "parse_int64",
    "parse_iso8601",
    "parse_status_code",
    "parse_unix_nano",
    "special_double",
    "too_deep",
]

U64_MAX = 2**64 - 1  # the largest time OTLP holds (fixed64 nanoseconds)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1  # an `intValue`
# Levels of nested lists and maps an attribute value may hold: what protobuf carries (its parsers
# stop at 100 nested messages, which leaves 31 levels of key-value lists inside a span) and what
# every writer can write back. A span holding a deeper value cannot be held as read: readers
# leave it out with a note, and what ships spans drops it (never the rest of its batch).
MAX_VALUE_DEPTH = 32
LEFT_OUT = "; it is left out"  # how a note about a span a reader left out ends
_INTEGER = re.compile(r"-?[0-9]+")

# OTLP's own span kinds by enum name (protobuf JSON may write names or numbers).
SPAN_KINDS = {
    "SPAN_KIND_UNSPECIFIED": 0,
    "SPAN_KIND_INTERNAL": 1,
    "SPAN_KIND_SERVER": 2,
    "SPAN_KIND_CLIENT": 3,
    "SPAN_KIND_PRODUCER": 4,
    "SPAN_KIND_CONSUMER": 5,
}
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")
_SPECIAL_DOUBLES = frozenset({"NaN", "Infinity", "-Infinity"})
_STATUS_CODES: dict[Any, SpanStatus | None] = {
    0: None,
    1: "ok",
    2: "error",
    "STATUS_CODE_UNSET": None,
    "STATUS_CODE_OK": "ok",
    "STATUS_CODE_ERROR": "error",
    "UNSET": None,
    "OK": "ok",
    "ERROR": "error",
    "unset": None,
    "ok": "ok",
    "error": "error",
}


@dataclass
class ReadContext:
    """The file being read and the notes its reader makes along the way."""

    source: str
    notes: list[ReadNote] = field(default_factory=list)
    # Raw trace id → normalised one: a file holds few traces and many spans of each, and
    # sharing one string per trace also saves memory.
    trace_ids: dict[Any, str | None] = field(default_factory=dict)
    # Likewise parent ids: the children of one span all name it.
    parent_ids: dict[Any, str | None] = field(default_factory=dict)
    # Spans left out because they cannot be held as read (a value nested too deep), each also
    # noted: what forwards spans (the proxy) counts them as dropped.
    skipped: list[Skipped] = field(default_factory=list)

    def trace_id(self, raw: Any, convert: Callable[[Any], str | None]) -> str | None:
        """`convert(raw)`, remembered for the rest of the file when `raw` is a str or bytes."""
        return _remembered(self.trace_ids, raw, convert)

    def parent_id(self, raw: Any, convert: Callable[[Any], str | None]) -> str | None:
        """As `trace_id`, for parent span ids."""
        return _remembered(self.parent_ids, raw, convert)

    def note(self, where: str, message: str, trace_id: str | None = None) -> None:
        self.notes.append(ReadNote(self.source, where, message, trace_id))

    def skip(self, where: str, reason: str, trace_id: str | None, span_id: str | None) -> None:
        """Leave a span out, with a note saying where and why (never what it holds)."""
        self.skipped.append(Skipped(where, trace_id, span_id, reason))
        self.note(where, f"span {span_id or '(no id)'} {reason}{LEFT_OUT}", trace_id)

    def error(self, where: str | None, reason: str) -> TraceReadError:
        return TraceReadError(self.source, reason, where=where)

    def malformed_json(
        self, exc: orjson.JSONDecodeError, line: int | None = None
    ) -> TraceReadError:
        """The error for JSON that does not parse, at the line and column of the fault."""
        where = f"line {exc.lineno if line is None else line}, column {exc.colno}"
        return self.error(where, f"malformed JSON: {exc.msg.rstrip('.')}")


class Decline(Exception):
    """The record holds something only its reader can judge (what `record_index`'s scanners
    raise). Defined here, so that the streaming reader catches it without importing the
    scanners for a file it reads whole."""


@dataclass(frozen=True, slots=True)
class Skipped:
    """A span a reader left out: where it was, its ids when known, and why."""

    where: str
    trace_id: str | None
    span_id: str | None
    reason: str


# Ids remembered per file: enough for the traces and parents a file mixes at a time; a file of
# many small traces read span by span (redact, verify-safe) would otherwise grow them with the
# file, so they start afresh when full.
_REMEMBERED = 4096


def _remembered(
    known: dict[Any, str | None], raw: Any, convert: Callable[[Any], str | None]
) -> str | None:
    if raw.__class__ is not str and raw.__class__ is not bytes:
        return convert(raw)
    if raw in known:
        return known[raw]
    if len(known) >= _REMEMBERED:
        known.clear()
    converted = known[raw] = convert(raw)
    return converted


def normalize_id(raw: Any, size: int) -> str | None:
    """Lower-case hex of an id given as hex or protobuf-JSON base64; None when absent.

    `size` is the id's length in bytes (16 for a trace, 8 for a span). Raises ValueError
    with a reason for a value that is neither.
    """
    if raw.__class__ is str and len(raw) == 2 * size and raw.isalnum():
        try:  # the common case, hex as OTLP/JSON writes it: one C call validates it
            bytes.fromhex(raw)
        except ValueError:
            pass
        else:
            return raw.lower() if raw.strip("0") else None
    if raw is None or raw == "":
        return None
    if isinstance(raw, bytes):
        hex_id = raw.hex()
    elif not isinstance(raw, str):
        raise ValueError(f"is a {type(raw).__name__}, not a string")
    elif len(raw) == 2 * size and _HEX.match(raw):
        hex_id = raw.lower()
    elif len(raw) == _base64_length(size) and (decoded := _base64_id(raw, size)) is not None:
        hex_id = decoded
    elif len(raw) % 2 == 0 and _HEX.match(raw):
        hex_id = raw.lower()  # other widths (64-bit Zipkin trace ids) are kept as written
    elif len(raw) == 36 and _UUID.match(raw):
        hex_id = raw.replace("-", "").lower()  # eval stores and session logs use UUIDs
    else:
        raise ValueError(f"{described(raw)} is neither {2 * size} hex digits nor base64")
    return None if not hex_id.strip("0") else hex_id


def _base64_id(raw: str, size: int) -> str | None:
    """Hex of a base64 id that decodes to exactly `size` bytes, else None."""
    data = decode_base64(raw)
    return data.hex() if data is not None and len(data) == size else None


def decode_base64(text: str) -> bytes | None:
    """Bytes of standard or URL-safe base64, padded or not (protobuf JSON allows both)."""
    try:
        padded = text + "=" * (-len(text) % 4)
        return base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return None


def special_double(text: str) -> float | None:
    """The float protobuf JSON writes as a string (`NaN`, `Infinity`, `-Infinity`), else None."""
    return float(text.replace("Infinity", "inf")) if text in _SPECIAL_DOUBLES else None


def otlp_span_kind(raw: Any) -> int | None:
    """OTLP's span kind from its number or enum name (absent is 0), None when it is neither."""
    if raw is None:
        return 0
    if raw.__class__ is int and 0 <= raw <= 5:
        return int(raw)
    return SPAN_KINDS.get(raw) if isinstance(raw, str) else None


def described(raw: Any) -> str:
    """How an error names an input value: by its type and shape, never by the value itself (a
    string, or a number, may be a secret or a card number)."""
    if isinstance(raw, str):
        return f"a string of {len(raw)} character(s)"
    if isinstance(raw, bool):
        return "a boolean"
    if isinstance(raw, int):
        return "a negative integer" if raw < 0 else "an integer"
    if isinstance(raw, float):
        if not math.isfinite(raw):
            return "a non-finite number"
        return "a number" if raw.is_integer() else "a non-integral number"
    return "null" if raw is None else f"a {type(raw).__name__}"


def parse_int64(raw: str) -> int:
    """The integer a protobuf-JSON string holds: ASCII digits with an optional minus sign, in
    the signed 64-bit range. Python's `int()` accepts more (`1_000`, spaces, other scripts'
    digits) that JSON and protobuf do not; ValueError names why, never the value."""
    if not raw.isascii() or not _INTEGER.fullmatch(raw):
        raise ValueError(f"{described(raw)} is not an integer")
    value = int(raw)
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError(f"{described(raw)} is beyond the 64-bit integer range")
    return value


def too_deep(value: Any, limit: int = MAX_VALUE_DEPTH) -> bool:
    """True when `value` holds lists and maps nested more than `limit` levels (a list or map is
    one level). Iterative, so that no depth of nesting can exhaust the stack."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, Mapping):
            children: Iterable[Any] = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if level > limit:
            return True
        stack.extend((child, level + 1) for child in children if isinstance(child, _NESTED))
    return False


_NESTED = (Mapping, list, tuple)


def _base64_length(size: int) -> int:
    return 4 * ((size + 2) // 3)


def parse_unix_nano(raw: Any) -> int | None:
    """Unix nanoseconds from a string or a number; 0 or absent means not recorded. A time is an
    unsigned 64-bit integer: a fraction, a negative number or one past 2^64 - 1 is refused."""
    if raw.__class__ is str and raw.isascii() and raw.isdigit():
        value = int(raw)
    elif raw is None:
        return None
    elif isinstance(raw, bool):
        raise ValueError("is a boolean, not a time")
    elif isinstance(raw, str):
        raise ValueError(f"{described(raw)} is not an unsigned integer")
    elif isinstance(raw, int):
        value = raw
    elif isinstance(raw, float) and raw.is_integer():
        value = int(raw)
    else:
        raise ValueError(f"{described(raw)} is not an unsigned integer")
    if value < 0:
        raise ValueError(f"{described(raw)} is not an unsigned integer")
    if value > U64_MAX:
        raise ValueError(f"{described(raw)} is beyond 2^64 - 1, the latest time OTLP holds")
    return value or None


def parse_epoch(raw: float, unit_ns: int | None = None) -> int | None:
    """Unix nanoseconds from an epoch number in `unit_ns`, or guessed from its magnitude; a
    time past 2^64 - 1 nanoseconds (or not finite) is refused."""
    if isinstance(raw, float) and not math.isfinite(raw):
        raise ValueError(f"{described(raw)} is not a time")
    if raw <= 0:
        return None
    if unit_ns is None:
        magnitude = abs(raw)
        if magnitude < 1e11:
            unit_ns = 1_000_000_000
        elif magnitude < 1e14:
            unit_ns = 1_000_000
        elif magnitude < 1e17:
            unit_ns = 1_000
        else:
            unit_ns = 1
    nanos = raw * unit_ns if isinstance(raw, int) else round(raw * unit_ns)
    if nanos > U64_MAX:
        raise ValueError(f"{described(raw)} is beyond 2^64 - 1 nanoseconds, the latest time")
    return nanos


_ISO_FRACTION = re.compile(r"^(.*T\d\d:\d\d:\d\d)(?:[.,](\d+))?(.*)$")


def parse_iso8601(text: str) -> int:
    """Unix nanoseconds of an ISO-8601 time, keeping every fractional digit (UTC if naive)."""
    match = _ISO_FRACTION.match(text.strip().replace(" ", "T", 1))
    if not match:
        raise ValueError(f"{described(text)} is not an ISO-8601 time")
    head, fraction, zone = match.groups()
    try:
        moment = datetime.fromisoformat(head + zone.replace("z", "Z"))
    except ValueError:
        raise ValueError(f"{described(text)} is not an ISO-8601 time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    nanos = int((fraction or "0")[:9].ljust(9, "0"))
    value = int(moment.timestamp()) * 1_000_000_000 + nanos
    if value > U64_MAX:
        raise ValueError(f"{described(text)} is a time after 2554, past 2^64 - 1 nanoseconds")
    return value


def parse_status_code(raw: Any) -> SpanStatus | None:
    try:
        return _STATUS_CODES[raw]
    except (KeyError, TypeError):
        raise ValueError(f"{described(raw)} is not a status code") from None


def indexed_place(prefix: str, index: int) -> Callable[[], str]:
    """`prefix[index]`, formatted only if a note needs it."""
    return lambda: f"{prefix}[{index}]"


def checked(span: Span, ctx: ReadContext, where: str | Callable[[], str]) -> Span:
    """The span, with missing ids and an end before its start noted, never silently repaired.

    Such a span is kept (without the impossible end time) so that rules can still report it.
    `where` may be a function giving the place, so that hot paths format it only for a note.
    """
    trace_id, span_id, start_ns, end_ns = span.trace_id, span.span_id, span.start_ns, span.end_ns
    backwards = start_ns is not None and end_ns is not None and end_ns < start_ns
    if trace_id is not None and span_id is not None and not backwards:
        return span
    place = where if isinstance(where, str) else where()
    if trace_id is None:
        ctx.note(place, f'span "{span.name}" has no trace id')
    if span_id is None:
        ctx.note(place, f'span "{span.name}" has no span id', trace_id)
    if backwards:
        ref = span_id or f'"{span.name}"'
        ctx.note(place, f"span {ref} ends before it starts; its end time is dropped", trace_id)
        return span.replace(end_ns=None)
    return span


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while millions of acyclic dicts are built.

    With it running, every generation-2 pass walks all live objects, which makes reading a
    large trace several times slower; nothing a reader builds holds a reference cycle.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
