"""The share-safety verdict of a file's recorded bytes, whatever a trace reader keeps of them.

A reader keeps what contracts read; a Claude Code stream's assistant text, a Zipkin endpoint or
an unknown protobuf field never becomes span content. `verify-safe` judges those bytes too:
JSON Lines record by record, a JSON document whole, text line by line, and protobuf by every
length-delimited field that holds UTF-8 text, at any depth (no schema needed).

What cannot be judged is never passed over: binary data that is not a trace a reader read, a
line that is not UTF-8 text or holds control characters, JSON nested past its parser's depth
limit, and a protobuf field longer than an id that is neither text nor a message are each an
unreadable entry, which makes the verdict UNKNOWN.
"""

from __future__ import annotations

import io
import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from redact import KnownSecrets, ShareVerdict, assess, combine_verdicts
from redact.json_pairs import loads_keeping_repeats
from redact.model import FindingTally, verdict_of
from redact.profiles import Profile
from redact.walk import Structure
from tracecheck.readers.inputs import UTF8_BOM, is_proto_stream, open_file
from tracecheck.readers.proto_split import message_fields

__all__ = [
    "assess_recorded",
    "assess_stream",
    "pointer",
    "protobuf_strings",
    "unreadable_verdict",
    "with_recorded",
]

_TEXT_PROBE = 4096
_MAX_DEPTH = 64  # protobuf nesting followed; OTLP needs 8
_GROUP_CHARS = 1 << 18  # text judged as one value
_ID_BYTES = 16  # the longest binary field OTLP holds (a trace id); longer ones are data
# Control characters that text files do not hold (tab, line ends, form feed, backspace and the
# escape of terminal colours are text): a file holding them is binary, or text in an encoding
# (UTF-16 without its mark) that hides what it says from every detector.
_CONTROL = "\x00-\x07\x0e-\x1a\x1c-\x1f\x7f"
_CONTROL_TEXT = re.compile(f"[{_CONTROL}]")
_CONTROL_BYTES = re.compile(f"[{_CONTROL}]".encode())
# orjson's message for JSON nested past the 1024 levels it parses.
_TOO_DEEP = "depth limit exceeded"
_DEEP = "JSON nested deeper than its parser's 1024 levels"
# The id and time fields of OTLP, Zipkin, Jaeger, flat spans and Claude Code records: ids with
# a value in the characters ids are written in (hex, base64), times with a number or an ISO 8601
# text. Such values are no free text, and a 16-digit id or time passes for a card number.
_IDS = rb"traceId|spanId|parentSpanId|trace_id|span_id|parent_span_id|traceID|spanID|parentId"
_TIMES = (
    rb"startTimeUnixNano|endTimeUnixNano|timeUnixNano|observedTimeUnixNano|start_time_unix_nano|"
    rb"end_time_unix_nano|time_unix_nano|timestamp|startTime|start_time|end_time|duration"
)
# The opening quote stands outside the alternation: `re` then looks for that one byte and tries
# the names only where it is (4.4x faster over OTLP JSON than a pattern whose branches each begin
# with it, which `re` tries at every byte).
_SPAN_CONTEXTS = ("spanContext", "_spanContext", "parentSpanContext")
_STRUCTURAL = re.compile(
    rb'"(?:(' + _IDS + rb')("\s*:\s*)(?:"[0-9A-Za-z+/=_-]*"|[0-9]+)'
    rb"|(" + _TIMES + rb')("\s*:\s*)(?:"[0-9T:.+Z -]*"|-?[0-9][0-9.eE+-]*))'
)


def assess_recorded(
    path: Path,
    profile: Profile,
    known: KnownSecrets,
    *,
    label: str = "",
    trace: bool = True,
) -> ShareVerdict:
    """The verdict of every string recorded in `path` (compressed or UTF-16/32 text decoded
    as the readers decode it); findings are placed by line (`line 14/result`), prefixed with
    `label` when given. `trace` says whether a reader read the file as a trace: binary data
    that is not one cannot be judged (UNKNOWN)."""
    with open_file(path) as stream:
        return assess_stream(stream, profile, known, label=label, trace=trace)


def assess_stream(
    stream: IO[bytes],
    profile: Profile,
    known: KnownSecrets,
    *,
    label: str = "",
    trace: bool = True,
) -> ShareVerdict:
    """`assess_recorded` of the bytes of a seekable stream, decoded. A file that is not a
    trace (`trace=False`) is judged as it is: a JSON document at the root of the paths, and
    ids and times as any other value."""
    prefix = f"{label} " if label else ""
    # Folded one record at a time, so that memory follows a record, not the file.
    verdicts = (
        unreadable_verdict(profile, item.entry)
        if isinstance(item, _Unreadable)
        else assess(item, profile=profile, known_secrets=known)
        for item in _recorded_values(stream, prefix, trace)
    )
    return combine_verdicts(profile.name, verdicts)


def unreadable_verdict(profile: Profile, *entries: str) -> ShareVerdict:
    """The UNKNOWN verdict of what could not be read, each entry `place: reason`."""
    return verdict_of(profile.name, FindingTally(), entries)


def pointer(key: str) -> str:
    """The place of a top-level key, as a finding's path names it (RFC 6901); `/` for none."""
    return "/" + key.replace("~", "~0").replace("/", "~1") if key else "/"


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


@dataclass(frozen=True, slots=True)
class _Unreadable:
    """Something recorded that cannot be judged: `place: reason`."""

    entry: str

    @classmethod
    def at(cls, key: str, reason: str) -> _Unreadable:
        return cls(f"{pointer(key.rstrip())}: {reason}")


def _recorded_values(stream: IO[bytes], prefix: str, trace: bool) -> Iterator[Any]:
    head = stream.read(_TEXT_PROBE)
    stream.seek(0)
    if _is_text(head):
        if trace:
            yield from _text_values(stream, prefix)
        else:
            yield from _document_values(stream.read().removeprefix(UTF8_BOM), prefix)
        return
    if not trace:
        yield _Unreadable.at(prefix, "binary data that is not a trace tracecheck reads")
        return
    size = _size(stream)
    if is_proto_stream(head, size):
        for number, record in enumerate(_proto_records(stream), 1):
            yield from _protobuf_values(record, f"{prefix}record {number}")
        return
    yield from _protobuf_values(stream.read(), f"{prefix}protobuf")


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


def _protobuf_values(data: bytes, label: str) -> Iterator[Any]:
    """The strings of one protobuf message in bounded groups, and what cannot be judged."""
    found = _strings(memoryview(data), 0)
    if found is None:  # not a message: judged as text when it is text, never passed over
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            yield _Unreadable.at(label, "binary data that is not a protobuf message")
            return
        found = _Found([text], 0)
    yield from _string_groups(found.strings, label)
    if found.binary:
        yield _Unreadable.at(
            label,
            f"holds {found.binary} binary field(s) longer than an id that are neither text "
            "nor a message",
        )


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

    The ids and times a reader parses (`traceId`, `startTimeUnixNano`, ...) are left out: they
    are no free text, and a 16-digit id or a 19-digit time can pass for a card number. JSON
    nested past the parser's limit, and text that is not UTF-8 or holds control characters,
    cannot be judged.
    """
    lines_as_json = True
    for number, line in enumerate(stream, 1):
        if number == 1:
            line = line.removeprefix(UTF8_BOM)
        if not line.strip():
            continue
        try:
            value = _loads(_neutralized(line))
        except orjson.JSONDecodeError as exc:
            if _too_deep(exc):
                yield _Unreadable.at(f"{prefix}line {number}", _DEEP)
                continue
            lines_as_json = False
            break
        yield {f"{prefix}line {number}": _structure_marked(value)}
    if lines_as_json:
        return
    stream.seek(0)
    data = stream.read().removeprefix(UTF8_BOM)
    try:
        value = _loads(_neutralized(data))
    except orjson.JSONDecodeError as exc:
        if _too_deep(exc):
            yield _Unreadable.at(f"{prefix}document", _DEEP)
    else:
        yield {f"{prefix}document": _structure_marked(value)}
        return
    yield from _text_lines(data, prefix)


def _structure_marked(value: Any) -> Any:
    """A trace's JSON value with the containers its format defines under content-like names
    marked as `Structure` (their key's class does not apply; what they hold is judged): the
    Jaeger query API's `result` around OTLP, and the span contexts of the OpenTelemetry JS
    SDK's spans (a list of them, or one)."""
    if value.__class__ is dict and value.keys() == {"result"}:
        inner = value["result"]
        if inner.__class__ is dict and "resourceSpans" in inner:
            return {"result": Structure(inner)}
    for span in value if value.__class__ is list else (value,):
        if span.__class__ is dict:
            for key in _SPAN_CONTEXTS:
                if span.get(key).__class__ is dict:
                    span[key] = Structure(span[key])
    return value


def _document_values(data: bytes, prefix: str) -> Iterator[Any]:
    """A file that holds no trace, judged as it is: one JSON document (at the root of the
    paths, or under the file's label), JSON Lines (one value per line), or text lines."""
    try:
        value = _loads(data)
    except orjson.JSONDecodeError as exc:
        if _too_deep(exc):
            yield _Unreadable.at(prefix, _DEEP)
            yield from _text_lines(data, prefix)
            return
    else:
        yield {prefix.rstrip(): value} if prefix else value
        return
    lines: dict[str, Any] = {}
    deep: list[_Unreadable] = []
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        key = f"{prefix}line {number}"
        try:
            lines[key] = _loads(line)
        except orjson.JSONDecodeError as exc:
            if not _too_deep(exc):
                yield from _text_lines(data, prefix)
                return
            deep.append(_Unreadable.at(key, _DEEP))
    yield from deep
    yield lines


def _loads(data: bytes) -> Any:
    """The JSON value of `data`, an object that writes a key twice with every value it holds
    (`redact.json_pairs`: the fast reader keeps only the last). Raises orjson's decode error."""
    value = orjson.loads(data)
    try:
        return loads_keeping_repeats(data, value)
    except RecursionError:  # read again by `json`, whose depth is Python's recursion limit
        raise orjson.JSONDecodeError(f"{_TOO_DEEP} (a key written twice)", "", 0) from None


def _too_deep(exc: orjson.JSONDecodeError) -> bool:
    return exc.msg.startswith(_TOO_DEEP)


def _text_lines(data: bytes, prefix: str) -> Iterator[Any]:
    """Text, keyed by line number; lines that are not UTF-8 text, or that hold control
    characters, are unreadable (they may be binary, or text in another encoding)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        if not _CONTROL_TEXT.search(text):
            yield {
                f"{prefix}line {number}": line
                for number, line in enumerate(text.splitlines(), 1)
                if line
            }
            return
    lines: dict[str, str] = {}
    for number, raw in enumerate(data.split(b"\n"), 1):
        key = f"{prefix}line {number}"
        try:
            line = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError:
            yield _Unreadable.at(key, "not UTF-8 text")
            continue
        if _CONTROL_TEXT.search(line):
            yield _Unreadable.at(key, "holds control characters (binary data)")
        elif line:
            lines[key] = line
    yield lines


def _neutralized(data: bytes) -> bytes:
    return _STRUCTURAL.sub(_neutral, data)


def _neutral(match: re.Match[bytes]) -> bytes:
    """The field's name and colon as written, its value an empty string."""
    ids, id_colon, times, time_colon = match.groups()
    return b'"' + (ids or times) + (id_colon or time_colon) + b'""'


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
    return found.strings if found is not None else [data.decode("utf-8", "replace")]


@dataclass(slots=True)
class _Found:
    """The text fields of a message, and how many fields are binary data longer than an id."""

    strings: list[str]
    binary: int


def _strings(data: memoryview, depth: int) -> _Found | None:
    """The strings of `data` read as a message, or None when it is not one."""
    fields = message_fields(data)
    if fields is None:
        return None
    found = _Found([], 0)
    for _, payload in fields:
        inner = _strings(payload, depth + 1) if depth < _MAX_DEPTH and len(payload) else None
        if inner is not None:
            found.strings.extend(inner.strings)
            found.binary += inner.binary
        try:
            text = bytes(payload).decode("utf-8")
        except UnicodeDecodeError:
            if inner is None and len(payload) > _ID_BYTES:
                found.binary += 1
            continue
        if text and (inner is None or text.isprintable()):
            found.strings.append(text)
    return found


def _is_text(head: bytes) -> bool:
    """True when the first bytes are UTF-8 text without the control characters of binary
    data (a byte-order mark allowed)."""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:  # a multi-byte character cut at the probe's end
        if exc.start < len(head) - 3:
            return False
        head = head[: exc.start]
    return not _CONTROL_BYTES.search(head)
