"""Which traces each record of a record-oriented file holds, found cheaply: only the ids.

The streaming reader (`by_trace`) indexes a JSON Lines or length-prefixed protobuf file with
these scanners before it reads any trace, then reads each trace's records alone. A scanner
decodes a record into structs that hold nothing but trace ids (`msgspec` skips every other
field without building it; a protobuf record is parsed by `upb`, whose fields are read lazily),
so indexing costs a fraction of reading.

Each scanner picks a span's trace id exactly as its reader does (field names, fall-backs,
normalisation). On anything unusual (a record that does not decode, an id the reader would
refuse) it raises `Decline`, and the caller lets the reader itself read the file, which reports
what is wrong at its place.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Protocol

import msgspec

from tracecheck.readers.common import Decline, normalize_id
from tracecheck.readers.zipkin import is_zipkin_span

__all__ = [
    "OTLP_LINES",
    "SCANNERS",
    "Decline",
    "LinesScanner",
    "Reader",
    "Record",
    "Scanner",
    "split_lines",
]

_PREFIX = struct.Struct(">I")


@dataclass(frozen=True, slots=True)
class Record:
    """One record: where it is, how its reader numbers it, and the traces of its spans."""

    offset: int  # of its first byte (a proto record's length prefix)
    length: int  # in bytes, the newline or the length prefix included
    number: int  # its line number, or its number in a proto stream
    trace_ids: tuple[str | None, ...]  # distinct, in the order its spans are read


# A scanner reads records from `stream`, whose first record starts at byte `start`; a `copy`
# receives every byte it reads (a gzip file's inflated content, to be read again later).
Scanner = Callable[[IO[bytes], int, "IO[bytes] | None"], Iterator[Record]]


# Reads a line in full while it is scanned, given the line (its newline kept), its number and
# the number the index gives its record: the trace ids of the spans it read (its caller keeps
# them), or None, and from then on only ids are decoded.
Reader = Callable[[bytes, int, int], "tuple[str | None, ...] | None"]


class LinesScanner(Protocol):
    """A scanner of JSON Lines that may read each line in full while it scans (`_lines`)."""

    def __call__(
        self,
        stream: IO[bytes],
        start: int,
        copy: IO[bytes] | None,
        read: Reader | None = None,
        first_record: Callable[[], int] | None = None,
    ) -> Iterator[Record]: ...


# --- OTLP/JSON Lines ---------------------------------------------------------------------------

_Raw = str | int | float | bool | None  # what a trace id may be before the reader refuses it


class _IdSpan(msgspec.Struct, gc=False):
    traceId: _Raw = None
    trace_id: _Raw = None


class _IdScopeSpans(msgspec.Struct, gc=False):
    spans: list[_IdSpan] | None = None


class _IdResourceSpans(msgspec.Struct, gc=False):
    scopeSpans: list[_IdScopeSpans] | None = None
    scope_spans: list[_IdScopeSpans] | None = None
    instrumentationLibrarySpans: list[_IdScopeSpans] | None = None
    instrumentation_library_spans: list[_IdScopeSpans] | None = None


class _IdRequest(msgspec.Struct, gc=False):
    resourceSpans: list[_IdResourceSpans] | None = None
    resource_spans: list[_IdResourceSpans] | None = None


_OTLP = msgspec.json.Decoder(_IdRequest)


def _otlp_ids(line: bytes, known: dict[Any, str | None]) -> tuple[str | None, ...]:
    """The trace ids of one OTLP/JSON request, as `otlp_json` picks them (first non-null field
    name, `traceId or trace_id` for a span)."""
    try:
        request = _OTLP.decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError):
        raise Decline from None
    found: dict[str | None, None] = {}
    resource_spans = request.resourceSpans
    if resource_spans is None:
        resource_spans = request.resource_spans
    for entry in resource_spans or ():
        groups = _first(entry.scopeSpans, entry.scope_spans)
        if groups is None:
            groups = _first(entry.instrumentationLibrarySpans, entry.instrumentation_library_spans)
        for group in groups or ():
            for span in group.spans or ():
                found[_trace_id(span.traceId or span.trace_id, known)] = None
    return tuple(found)


def _first(*values: Any) -> Any:
    for value in values:
        if value is not None:
            return value
    return None


def _trace_id(raw: Any, known: dict[Any, str | None]) -> str | None:
    try:
        return known[raw]
    except KeyError:
        pass
    except TypeError:  # unhashable: the reader refuses it
        raise Decline from None
    try:
        converted = normalize_id(raw, 16)
    except ValueError:
        raise Decline from None
    _remember(known, raw, converted)
    return converted


# Raw ids remembered with their normal form: the spans of a trace name it again and again, but
# a file of many small traces would make the memory grow with them, so the table starts afresh
# when full.
_KNOWN = 1024


def _remember(known: dict[Any, str | None], raw: Any, converted: str | None) -> None:
    if len(known) >= _KNOWN:
        known.clear()
    known[raw] = converted


# --- Flat span rows, one per line ---------------------------------------------------------------

_UNSET: Any = msgspec.UNSET


class _IdRow(msgspec.Struct, gc=False):
    """The fields a row's trace id and its Zipkin shape are judged by (unset when absent)."""

    traceId: Any = _UNSET
    trace_id: Any = _UNSET
    traceID: Any = _UNSET
    id: Any = _UNSET
    spanId: Any = _UNSET
    span_id: Any = _UNSET
    spanID: Any = _UNSET
    localEndpoint: Any = _UNSET
    remoteEndpoint: Any = _UNSET
    duration: Any = _UNSET


_ROW = msgspec.json.Decoder(_IdRow)
_ROW_FIELDS = _IdRow.__struct_fields__
_TRACE_FIELDS = ("traceId", "trace_id", "traceID")


def _flat_ids(line: bytes, known: dict[Any, str | None]) -> tuple[str | None, ...]:
    """The trace id of one flat row, as `flat` picks it: a Zipkin span's `traceId` as written,
    else the first of the id fields that is not null, an integer written as hex."""
    try:
        row = _ROW.decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError):
        raise Decline from None
    present = {name: value for name in _ROW_FIELDS if (value := getattr(row, name)) is not _UNSET}
    if is_zipkin_span(present):
        return (_trace_id(present["traceId"], known),)
    raw = next((present[n] for n in _TRACE_FIELDS if present.get(n) is not None), None)
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = format(raw, "032x")
    return (_trace_id(raw, known),)


# --- The scanners -------------------------------------------------------------------------------


# Bytes read at a time: `for line in stream` costs 2-4 times more, and 16 MiB blocks twice as
# much as 1 MiB (each is fresh memory the kernel must map). The file is not memory-mapped: a
# mapped file cut short while it is scanned (rewritten in place) kills the process (SIGBUS),
# where a read sees the shorter file and reading its records again says it changed; and mapping
# was slower for short lines (page faults, releasing read pages), faster only for long ones.
_BLOCK = 1 << 20


def split_lines(stream: IO[bytes], block: int = _BLOCK) -> Iterator[bytes]:
    """The lines of `stream`, each with its newline (the last one may have none), read in
    large blocks."""
    pieces: list[bytes] = []
    while data := stream.read(block):
        start = 0
        find = data.find
        while (end := find(b"\n", start)) >= 0:
            if pieces:
                pieces.append(data[start : end + 1])
                yield b"".join(pieces)
                pieces.clear()
            else:
                yield data[start : end + 1]
            start = end + 1
        if start < len(data):
            pieces.append(data[start:] if start else data)
    if pieces:
        yield b"".join(pieces)


def _lines(
    ids: Callable[[bytes, dict[Any, str | None]], tuple[str | None, ...]],
) -> LinesScanner:
    def scan(
        stream: IO[bytes],
        start: int,
        copy: IO[bytes] | None,
        read: Reader | None = None,
        first_record: Callable[[], int] | None = None,
    ) -> Iterator[Record]:
        """`read`, when given, is tried on each line first (`first_record()` is the number
        the index gives the next record); once it declines, only ids are decoded."""
        known: dict[Any, str | None] = {}
        offset = start
        for number, line in enumerate(split_lines(stream), 1):
            if copy is not None:
                copy.write(line)
            if not line.isspace():
                found = None
                if read is not None:
                    assert first_record is not None
                    found = read(line, number, first_record())
                    if found is None:
                        read = None
                yield Record(
                    offset, len(line), number, ids(line, known) if found is None else found
                )
            offset += len(line)

    return scan


def _proto_records(stream: IO[bytes], start: int, copy: IO[bytes] | None) -> Iterator[Record]:
    """The records of a length-prefixed stream of `ExportTraceServiceRequest`s."""
    # protobuf is imported when a proto stream is read, not for JSON Lines.
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    offset = start
    number = 0
    known: dict[Any, str | None] = {}
    while header := stream.read(_PREFIX.size):
        number += 1
        if len(header) < _PREFIX.size:
            raise Decline
        (size,) = _PREFIX.unpack(header)
        body = stream.read(size)
        if len(body) < size:
            raise Decline
        if copy is not None:
            copy.write(header)
            copy.write(body)
        request = ExportTraceServiceRequest()
        try:
            request.ParseFromString(body)
        except DecodeError:
            raise Decline from None
        found: dict[str | None, None] = {}
        for entry in request.resource_spans:
            for group in entry.scope_spans:
                for span in group.spans:
                    raw = span.trace_id
                    trace_id = known.get(raw, _UNSET)
                    if trace_id is _UNSET:
                        text = raw.hex()
                        trace_id = text if text.strip("0") else None
                        _remember(known, raw, trace_id)
                    found[trace_id] = None
        yield Record(offset, _PREFIX.size + size, number, tuple(found))
        offset += _PREFIX.size + size


OTLP_LINES = _lines(_otlp_ids)
SCANNERS: dict[str, Scanner] = {
    "otlp-lines": OTLP_LINES,
    "flat-lines": _lines(_flat_ids),
    "proto-stream": _proto_records,
}
