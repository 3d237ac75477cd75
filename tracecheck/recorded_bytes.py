"""The share-safety verdict of a file's recorded bytes, whatever a trace reader keeps of them.

A reader keeps what contracts read; a Claude Code stream's assistant text, a Zipkin endpoint or
an unknown protobuf field never becomes span content. `verify-safe` judges those bytes too:
JSON Lines record by record, a JSON document whole, text line by line, and protobuf by every
length-delimited field that holds UTF-8 text, at any depth (no schema needed).
"""

from __future__ import annotations

import gzip
import io
import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, cast

import orjson

from redact import KnownSecrets, ShareVerdict, assess, combine_verdicts
from redact.model import FindingTally, verdict_of
from redact.profiles import Profile
from tracecheck.readers.inputs import is_proto_stream

__all__ = ["assess_recorded", "assess_stream", "protobuf_strings", "with_recorded"]

_GZIP_MAGIC = b"\x1f\x8b"
_TEXT_PROBE = 4096
_MAX_DEPTH = 64  # protobuf nesting followed; OTLP needs 8
_GROUP_CHARS = 1 << 18  # text judged as one value
# The id and time fields of OTLP, Zipkin, Jaeger, flat spans and Claude Code records: ids with
# a value in the characters ids are written in (hex, base64), times with a number or an ISO 8601
# text. Such values are no free text, and a 16-digit id or time passes for a card number.
_IDS = rb"traceId|spanId|parentSpanId|trace_id|span_id|parent_span_id|traceID|spanID|parentId"
_TIMES = (
    rb"startTimeUnixNano|endTimeUnixNano|timeUnixNano|observedTimeUnixNano|start_time_unix_nano|"
    rb"end_time_unix_nano|time_unix_nano|timestamp|startTime|start_time|end_time|duration"
)
_STRUCTURAL = re.compile(
    rb'("(?:' + _IDS + rb')"\s*:\s*)(?:"[0-9A-Za-z+/=_-]*"|[0-9]+)'
    rb'|("(?:' + _TIMES + rb')"\s*:\s*)(?:"[0-9T:.+Z -]*"|-?[0-9][0-9.eE+-]*)'
)


def assess_recorded(
    path: Path, profile: Profile, known: KnownSecrets, *, label: str = ""
) -> ShareVerdict:
    """The verdict of every string recorded in `path` (gzip read transparently); findings are
    placed by line (`line 14/result`), prefixed with `label` when given."""
    with _open(path) as stream:
        return assess_stream(stream, profile, known, label=label)


def assess_stream(
    stream: IO[bytes], profile: Profile, known: KnownSecrets, *, label: str = ""
) -> ShareVerdict:
    """`assess_recorded` of the bytes of a seekable stream, uncompressed."""
    prefix = f"{label} " if label else ""
    # Folded one record at a time, so that memory follows a record, not the file.
    verdicts = (
        assess(value, profile=profile, known_secrets=known)
        for value in _recorded_values(stream, prefix)
    )
    return combine_verdicts(profile.name, verdicts)


def with_recorded(spans: ShareVerdict, recorded: Sequence[ShareVerdict]) -> ShareVerdict:
    """The spans' verdict, with what the recorded bytes hold beyond the spans.

    The bytes hold every span string too, so a detector's findings count only where the bytes
    hold more of them than the spans do: the status is never below either verdict's, and a
    finding in span content is not reported twice.
    """
    tally = FindingTally()
    for finding in spans.findings:
        tally.add_many(
            finding.category, finding.detector, finding.severity, finding.count, finding.paths
        )
    in_spans = Counter({(f.category, f.detector): f.count for f in spans.findings})
    beyond = combine_verdicts(spans.profile, recorded)
    for finding in beyond.findings:
        extra = finding.count - in_spans[finding.category, finding.detector]
        if extra > 0:
            tally.add_many(
                finding.category, finding.detector, finding.severity, extra, finding.paths
            )
    # Unreadable values are listed by place, which differs between the two readings: only as
    # many as the bytes hold beyond the spans' own are added.
    extra_unreadable = beyond.unreadable[len(spans.unreadable) :]
    return verdict_of(spans.profile, tally, (*spans.unreadable, *extra_unreadable))


def _recorded_values(stream: IO[bytes], prefix: str) -> Iterator[Any]:
    head = stream.read(_TEXT_PROBE)
    stream.seek(0)
    if _is_text(head):
        yield from _text_values(stream, prefix)
        return
    size = _size(stream)
    if is_proto_stream(head, size):
        for number, record in enumerate(_proto_records(stream), 1):
            yield from _string_groups(protobuf_strings(record), f"{prefix}record {number}")
        return
    yield from _string_groups(protobuf_strings(stream.read()), f"{prefix}protobuf")


def _proto_records(stream: IO[bytes]) -> Iterator[bytes]:
    """The messages of the Collector's length-prefixed proto stream, one at a time; what does
    not frame as a record is given whole, so that no byte goes unjudged."""
    while prefix := stream.read(4):
        length = int.from_bytes(prefix, "big") if len(prefix) == 4 else -1
        record = stream.read(length) if length >= 0 else b""
        if length < 0 or len(record) < length:
            yield prefix + record + stream.read()
            return
        yield record


def _string_groups(strings: list[str], label: str) -> Iterator[Any]:
    """The strings in groups of bounded size: one value per group keeps each assessment (and
    the time budget of its detectors) to a record's worth of text."""
    group: list[str] = []
    size = 0
    for text in strings:
        group.append(text)
        size += len(text)
        if size >= _GROUP_CHARS:
            yield {label: group}
            group, size = [], 0
    if group or not strings:
        yield {label: group}


def _text_values(stream: IO[bytes], prefix: str) -> Iterator[Any]:
    """Each line's JSON value (keyed by its line number), or the whole file when its lines are
    not JSON each (a pretty-printed document, or text).

    The ids and times a reader parses (`traceId`, `startTimeUnixNano`, ...) are left out: they are
    no free text, and a 16-digit id or a 19-digit time can pass for a card number.
    """
    lines_as_json = True
    for number, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            value = orjson.loads(_STRUCTURAL.sub(_neutral, line))
        except orjson.JSONDecodeError:
            lines_as_json = False
            break
        yield {f"{prefix}line {number}": value}
    if lines_as_json:
        return
    stream.seek(0)
    data = stream.read()
    try:
        yield {f"{prefix}document": orjson.loads(_STRUCTURAL.sub(_neutral, data))}
    except orjson.JSONDecodeError:
        text = data.decode("utf-8", "replace")
        yield {
            f"{prefix}line {number}": line
            for number, line in enumerate(text.splitlines(), 1)
            if line
        }


def _neutral(match: re.Match[bytes]) -> bytes:
    return (match.group(1) or match.group(2)) + b'""'


def _size(stream: IO[bytes]) -> int | None:
    try:
        return os.fstat(stream.fileno()).st_size
    except (OSError, AttributeError, io.UnsupportedOperation):
        return None


def protobuf_strings(data: bytes) -> list[str]:
    """Every length-delimited field of a protobuf message, at any depth, that is UTF-8 text.

    Without the schema a field may read both as text and as a message: a field that parses as a
    message is searched inside, and kept as text too when it holds no control characters (a
    message's tags and lengths are mostly control bytes; text that also parses is kept whole).
    """
    found = _strings(memoryview(data), 0)
    return found if found is not None else [data.decode("utf-8", "replace")]


def _strings(data: memoryview, depth: int) -> list[str] | None:
    """The strings of `data` read as a message, or None when it is not one."""
    payloads = _payloads(data)
    if payloads is None:
        return None
    found: list[str] = []
    for payload in payloads:
        inner = _strings(payload, depth + 1) if depth < _MAX_DEPTH and len(payload) else None
        if inner is not None:
            found.extend(inner)
        try:
            text = bytes(payload).decode("utf-8")
        except UnicodeDecodeError:
            continue
        if text and (inner is None or text.isprintable()):
            found.append(text)
    return found


def _payloads(data: memoryview) -> list[memoryview] | None:
    """The length-delimited payloads of a message's fields, or None when it is not one."""
    payloads: list[memoryview] = []
    position, end = 0, len(data)
    while position < end:
        key, position = _varint(data, position)
        if key is None or key >> 3 == 0:
            return None
        wire = key & 7
        if wire == 0:
            value, position = _varint(data, position)
            if value is None:
                return None
        elif wire == 1:
            position += 8
        elif wire == 5:
            position += 4
        elif wire == 2:
            length, position = _varint(data, position)
            if length is None or position + length > end:
                return None
            payloads.append(data[position : position + length])
            position += length
        else:  # groups (3, 4) are not in OTLP; anything else is not protobuf
            return None
        if position > end:
            return None
    return payloads


def _varint(data: memoryview, position: int) -> tuple[int | None, int]:
    result = shift = 0
    while position < len(data) and shift < 64:
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, position
        shift += 7
    return None, position


def _is_text(head: bytes) -> bool:
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:  # a multi-byte character cut at the probe's end
        if exc.start < len(head) - 3:
            return False
        text = head[: exc.start].decode("utf-8")
    return all(char.isprintable() or char in "\t\r\n" for char in text.lstrip("\ufeff"))


def _open(path: Path) -> IO[bytes]:
    with path.open("rb") as raw:
        gzipped = raw.read(2) == _GZIP_MAGIC
    return cast(IO[bytes], gzip.open(path, "rb")) if gzipped else path.open("rb")
