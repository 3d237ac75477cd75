"""One trace at a time: memory follows the largest trace, not the file (inputs.md).

`read_traces` builds every trace of an input before it gives any. `iter_traces` gives the same
traces (the same spans in the same order, one copy of a span recorded twice, the same notes) in
the same first-seen order, holding one trace at a time:

1. Index. A record-oriented file (OTLP JSON Lines, flat spans one per line, the Collector's
   length-prefixed protobuf stream) is scanned once for the trace ids of each record
   (`record_index`: only the ids are decoded); a gzip file is inflated into a temporary file on
   the way, to be read again. Any other file (one JSON document, one protobuf message, a Claude
   Code stream, whose sessions end only with the file) is one record and is read whole, as
   `read_traces` reads it.
2. Read. For each trace in first-seen order, the records that hold its spans are read again,
   in file order, and only its spans and the notes about them are kept.

A file smaller than `WHOLE_BELOW` is read whole as well: indexing it would save nothing worth
a second pass.

Errors are those `read_traces` raises. A record the index cannot judge sends its file to its
reader. A fault that only reading a trace shows (an attribute of the wrong type) is traced back
by reading the files in order, as `read_traces` does, so that the error given is the first one
it would meet. A directory's files that cannot be read fail alone (with `failures`): when such
a file is found only after traces were given, `map_traces` drops what it gathered and reads the
directory again without that file.
"""

from __future__ import annotations

import os
import tempfile
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TypeVar

from tracecheck.errors import TraceReadError
from tracecheck.readers.common import ReadContext, collector_paused
from tracecheck.readers.flat import span_of_line
from tracecheck.readers.grouping import Located, build_trace, place_notes
from tracecheck.readers.inputs import (
    INPUT_ERRORS,
    Opener,
    Source,
    bytes_input,
    detect,
    file_size,
    is_proto_stream,
    layout,
    name_of,
    open_file,
    read_one,
    read_trace_file,
    start_of,
    trace_files,
)
from tracecheck.readers.otlp_json import spans_of_line
from tracecheck.readers.otlp_proto import record_place, spans_of_record
from tracecheck.readers.record_index import SCANNERS, Decline, Record
from tracecheck.readers.sniff import FORMATS, HEAD_SIZE
from tracecheck.spans import ReadNote, Span, Trace

__all__ = ["WHOLE_BELOW", "iter_traces", "map_traces"]

R = TypeVar("R")

# Files smaller than this (in bytes; a gzip file counts `_GZIP_RATIO` times its size) are read
# whole. Whole files of a directory are kept between the index and the read while their sizes
# add up to less than `_KEEP_BYTES`; larger ones are read again when their traces come.
WHOLE_BELOW = 4 << 20
_KEEP_BYTES = 64 << 20
_GZIP_RATIO = 8
_OPEN_FILES = 16  # record files kept open while traces are read
_STASH_FLOOR = 1 << 20  # bytes of records whose later traces' spans may always be kept


def iter_traces(source: Source, *, format: str | None = None) -> Iterator[Trace]:
    """The traces of `source` (a file, a directory, or the bytes of one file), one at a time.

    The same traces as `read_traces`, in the same order; only the trace being given is held.
    Raises `TraceReadError` as `read_traces` does, but possibly after some traces were given:
    those belong to an input that could not be read whole (`read_traces` would give none).
    """
    reader = _Reader(source, format, None, {}, None, stream=True)
    given = 0
    try:
        for trace in reader.traces():
            given += 1
            yield trace
    except _Mismatch:
        if given:
            raise RuntimeError(
                f"{name_of(source)}: the streaming reader's index disagrees with its reader; "
                "read the input with read_traces"
            ) from None
        reader.close()
        reader = _Reader(source, format, None, {}, None, stream=False)
        yield from reader.traces()
    finally:
        reader.close()


def map_traces(
    source: Source,
    visit: Callable[[Trace], R],
    *,
    format: str | None = None,
    failures: list[TraceReadError] | None = None,
    name: str | None = None,
) -> list[R]:
    """`visit(trace)` for each trace of `source` in order, one trace held at a time.

    With a `failures` list, a directory's files that cannot be read are listed there and the
    others read, as `read_traces` does; a file found unreadable only after traces were visited
    makes the directory be read again without it (what `visit` returned so far is dropped, so
    it should only compute). `name` is how notes and errors name a file `source` (`<bytes>`
    for standard input spooled to a file). Raises `TraceReadError` for an input that cannot
    be read.
    """
    broken: dict[str, TraceReadError] = {}
    stream = True
    while True:
        found: list[TraceReadError] | None = [] if failures is not None else None
        reader = _Reader(source, format, found, broken, name, stream=stream)
        try:
            results = [visit(trace) for trace in reader.traces()]
        except _Broken as late:
            broken[late.name] = late.error
            continue
        except _Mismatch:
            stream = False
            continue
        finally:
            reader.close()
        if failures is not None and found:
            failures.extend(found)
        return results


class _Broken(Exception):
    """A directory's file turned out unreadable after traces that may hold its spans were given."""

    def __init__(self, name: str, error: TraceReadError) -> None:
        self.name = name
        self.error = error


class _Mismatch(Exception):
    """A record held a span its index entry did not name: the index cannot be trusted."""


@dataclass(eq=False)
class _Unit:
    """One input file (or the bytes given), as indexed."""

    name: str  # how notes and errors name it
    located: str  # how its traces name it (the source as given for a single file)
    path: Path | None  # None for bytes
    opener: Opener
    size: int | None  # None when gzip
    read_whole: Callable[[list[ReadNote]], Iterator[Span]]
    format: str | None = None  # as sniffed, once opened
    estimate: int = 0  # its size in bytes, gzip counted as inflated, for what to read whole
    kind: str | None = None  # the record scanner's name; None when read whole
    store: Path | bytes | None = None  # where its records are read again
    offsets: array[int] = field(default_factory=lambda: array("q"))
    lengths: array[int] = field(default_factory=lambda: array("i"))
    numbers: array[int] = field(default_factory=lambda: array("i"))
    kept: dict[str | None, list[Span]] | None = None  # a whole file's spans, while held
    notes: list[ReadNote] = field(default_factory=list)  # a whole file's notes
    waiting: int = 0  # traces with spans here not yet given
    validated: bool = False  # read through by its reader without error
    error: TraceReadError | None = None  # what reading it through raised
    number: int = 0  # its place among the files read


_Stashed = tuple[list[Span], list[ReadNote], int]
# What the index holds per trace, compact (a file holds many small traces): for each file with
# spans of the trace, one array [the trace's place in first-seen order, the file's number, the
# numbers of its records holding them...] (no records: the file is read whole); one array when
# the trace is in one file, a list of them otherwise.
_PLACE, _UNIT, _FIRST = 0, 1, 2


def _parts(entry: array[int] | list[array[int]]) -> list[array[int]]:
    return entry if isinstance(entry, list) else [entry]


class _Reader:
    def __init__(
        self,
        source: Source,
        format: str | None,
        failures: list[TraceReadError] | None,
        broken: dict[str, TraceReadError],
        name: str | None,
        *,
        stream: bool,
    ) -> None:
        self.source = source
        self.format = format
        self.broken = broken
        self.name = name
        self.stream = stream
        self.directory = not isinstance(source, bytes) and Path(source).is_dir()
        # Only a directory's files fail alone; any other input fails whole.
        self.failures = failures if self.directory else None
        self.units: list[_Unit] = []
        self.index: dict[str | None, array[int] | list[array[int]]] = {}
        self.unplaced: list[ReadNote] = []
        self.kept_bytes = 0
        # Spans of traces still to come, read with an earlier trace's record: (file number,
        # record) -> trace -> (spans, notes, bytes they stand for).
        self.stash: dict[tuple[int, int], dict[str | None, _Stashed]] = {}
        self.stash_bytes = 0
        self.temp: tempfile.TemporaryDirectory[str] | None = None
        self.open: dict[int, IO[bytes]] = {}

    # --- the two passes ---------------------------------------------------------------------

    def traces(self) -> Iterator[Trace]:
        with collector_paused():
            self._index_all()
            notes = [note for unit in self.units for note in unit.notes]
            _, self.unplaced = place_notes(notes, self.index)
        for trace_id, entry in self.index.items():
            with collector_paused():
                trace = self._trace(trace_id, _parts(entry))
            yield trace

    def close(self) -> None:
        for handle in self.open.values():
            handle.close()
        self.open.clear()
        if self.temp is not None:
            self.temp.cleanup()
            self.temp = None

    # --- 1. index -----------------------------------------------------------------------------

    def _index_all(self) -> None:
        source, format = self.source, self.format
        if format is not None and format not in FORMATS:
            raise TraceReadError(
                name_of(source), f"unknown format {format!r} (known: {', '.join(FORMATS)})"
            )
        if isinstance(source, bytes):
            opener, size = bytes_input(source)
            name = self.name or "<bytes>"
            unit = _Unit(name, name, None, opener, size, _reads(name, opener, size, format))
            unit.store = source
            self._add(unit)
            return
        path = Path(source)
        if self.directory:
            self._index_directory(path)
        elif path.exists():
            name = self.name or str(path)
            opener = _opener(path)
            size = file_size(path)
            read = _reads(name, opener, size, format)
            self._add(_Unit(name, self.name or name_of(source), path, opener, size, read))
        else:
            raise TraceReadError(str(path), "no such file or directory")

    def _index_directory(self, root: Path) -> None:
        files = trace_files(root, self.format, self.failures)
        while True:
            try:
                found = next(files, None)
            except TraceReadError as exc:  # an ambiguous file, or no trace file at all
                raise self._first_error(exc) from None
            if found is None:
                return
            path, chosen = found
            name = str(path)
            if name in self.broken:  # found unreadable by an earlier attempt
                assert self.failures is not None
                self.failures.append(self.broken[name])
                continue
            try:
                size = file_size(path)
            except TraceReadError as exc:
                self._fail(exc)
                continue
            read = _reads_file(path, chosen)
            self._add(_Unit(name, name, path, _opener(path), size, read, chosen))

    def _add(self, unit: _Unit) -> None:
        """Index one file, or read it whole; a file that cannot be read fails here."""
        records = None
        try:
            if unit.path is not None:
                base = unit.path.stat().st_size
            else:
                base = len(unit.store) if isinstance(unit.store, bytes) else 0
            unit.estimate = base * (_GZIP_RATIO if unit.size is None else 1)
            if self.stream:
                records = self._scan(unit)
        except Decline:
            self._declined(unit)
        except TraceReadError as exc:
            self._fail(exc)
            return
        except INPUT_ERRORS:  # a damaged gzip file, say: its reader tells where and how
            self._declined(unit)
        if unit.error is not None:
            self._fail(unit.error)
            return
        if records is None:
            unit.kind = unit.store = None
            try:
                records = self._read_whole(unit, keep=not self.directory)
            except TraceReadError as exc:
                self._fail(exc)
                return
        unit.number = len(self.units)
        self.units.append(unit)
        for trace_id, part in records.items():
            part[_UNIT] = unit.number
            entry = self.index.get(trace_id)
            if entry is None:
                part[_PLACE] = len(self.index)
                self.index[trace_id] = part
            else:
                part[_PLACE] = _parts(entry)[0][_PLACE]
                if isinstance(entry, list):
                    entry.append(part)
                else:
                    self.index[trace_id] = [entry, part]
            unit.waiting += 1

    def _declined(self, unit: _Unit) -> None:
        """A file the index could not judge: its reader reads it through first, so that a
        broken file fails without its spans being held."""
        unit.offsets, unit.lengths, unit.numbers = array("q"), array("i"), array("i")
        self._validate(unit)

    def _fail(self, exc: TraceReadError) -> None:
        if self.failures is not None:
            self.failures.append(exc)
            return
        raise self._first_error(exc)

    def _first_error(self, error: TraceReadError) -> TraceReadError:
        """The error `read_traces` would meet first: an earlier file may hold a fault that only
        reading it through shows (indexing decodes only the ids)."""
        for unit in self.units:
            found = self._validate(unit)
            if found is not None:
                return found
        return error

    def _validate(self, unit: _Unit) -> TraceReadError | None:
        """The first error of reading the file through, or None."""
        if not unit.validated and unit.error is None:
            try:
                for _ in unit.read_whole([]):
                    pass
            except TraceReadError as exc:
                unit.error = exc
            else:
                unit.validated = True
        return unit.error

    def _scan(self, unit: _Unit) -> dict[str | None, array[int]] | None:
        """The file's records of each trace in first-seen order, or None to read it whole."""
        with unit.opener() as stream:
            head = stream.read(HEAD_SIZE)
            size = unit.size
            if size is None and len(head) < HEAD_SIZE:
                size = len(head)
            chosen = unit.format = unit.format or self.format or detect(unit.name, head, size)
            if unit.estimate < WHOLE_BELOW:
                return None
            start = start_of(head, chosen)
            stream.seek(start)
            kind = _record_kind(chosen, stream, head, size)
            if kind is None:
                return None
            unit.kind = kind
            if unit.size is None:  # gzip: its records are read again from an inflated copy
                store = self._temp_file()
                with store.open("wb") as copy:
                    records = self._records(unit, SCANNERS[kind](stream, 0, copy))
                unit.store = store
            else:
                records = self._records(unit, SCANNERS[kind](stream, start, None))
                unit.store = unit.path if unit.path is not None else unit.store
        return records

    def _records(self, unit: _Unit, scan: Iterator[Record]) -> dict[str | None, array[int]]:
        """Each trace's part of the index for this file (its place and file number to come)."""
        by_trace: dict[str | None, array[int]] = {}
        for number, record in enumerate(scan):
            unit.offsets.append(record.offset)
            unit.lengths.append(record.length)
            unit.numbers.append(record.number)
            for trace_id in record.trace_ids:
                part = by_trace.get(trace_id)
                if part is None:
                    by_trace[trace_id] = part = array("i", (0, 0))
                part.append(number)
        return by_trace

    def _read_whole(self, unit: _Unit, *, keep: bool) -> dict[str | None, array[int]]:
        """Read a file whole: its notes are kept, and its spans too while they are small."""
        notes: list[ReadNote] = []
        spans: dict[str | None, list[Span]] = {}
        for span in unit.read_whole(notes):
            group = spans.get(span.trace_id)
            if group is None:
                spans[span.trace_id] = group = []
            group.append(span)
        unit.validated = True
        unit.notes = notes
        if keep or not self.stream or self.kept_bytes + unit.estimate <= _KEEP_BYTES:
            self.kept_bytes += unit.estimate
            unit.kept = spans
        return {trace_id: array("i", (0, 0)) for trace_id in spans}

    def _temp_file(self) -> Path:
        if self.temp is None:
            self.temp = tempfile.TemporaryDirectory(prefix="tracecheck-")
        handle, name = tempfile.mkstemp(dir=self.temp.name, suffix=".records")
        os.close(handle)
        return Path(name)

    # --- 2. read ------------------------------------------------------------------------------

    def _trace(self, trace_id: str | None, parts: list[array[int]]) -> Trace:
        located: list[Located] = []
        notes: list[ReadNote] = []
        for part in parts:
            unit = self.units[part[_UNIT]]
            try:
                if len(part) == _FIRST:
                    spans, own = self._whole_part(unit, trace_id)
                else:
                    spans, own = self._record_part(unit, part, trace_id)
            except TraceReadError as exc:
                raise self._late(unit, exc) from None
            except INPUT_ERRORS as exc:
                error = TraceReadError(unit.name, f"could not be read: {exc}")
                raise self._late(unit, error) from None
            unit.waiting -= 1
            if unit.waiting == 0:
                unit.kept = None
            located.extend((unit.located, span) for span in spans)
            notes.extend(own)
        return build_trace(trace_id, located, notes, self.unplaced)

    def _whole_part(self, unit: _Unit, trace_id: str | None) -> tuple[list[Span], list[ReadNote]]:
        if unit.kept is None:  # read again, and held until its last trace is given
            spans: dict[str | None, list[Span]] = {}
            for span in unit.read_whole([]):
                spans.setdefault(span.trace_id, []).append(span)
            unit.kept = spans
        notes = [note for note in unit.notes if note.trace_id == trace_id]
        return unit.kept.pop(trace_id, []), notes

    def _record_part(
        self, unit: _Unit, part: array[int], trace_id: str | None
    ) -> tuple[list[Span], list[ReadNote]]:
        lengths = unit.lengths
        records = range(_FIRST, len(part))
        room = max(sum(lengths[part[at]] for at in records), _STASH_FLOOR)
        spans: list[Span] = []
        notes: list[ReadNote] = []
        for at in records:
            record = part[at]
            found = self._stashed(unit, record, trace_id)
            if found is None:
                found = self._convert(unit, record, part[_PLACE], trace_id, room)
            spans.extend(found[0])
            notes.extend(found[1])
        return spans, notes

    def _convert(
        self, unit: _Unit, record: int, place: int, trace_id: str | None, room: int
    ) -> tuple[list[Span], list[ReadNote]]:
        """What one record holds about `trace_id`. A record often holds spans of the next
        traces too (an exporter's batch): theirs are kept for them while the kept spans cost
        less than the trace being read (`room`), so the record is not converted again."""
        ctx = ReadContext(unit.name, [])
        data = self._record_bytes(unit, record)
        found: dict[str | None, tuple[list[Span], list[ReadNote]]] = {trace_id: ([], [])}
        convert = _CONVERTERS[unit.kind or ""]
        for span in convert(data, unit.numbers[record], unit.offsets[record], ctx):
            entry = found.get(span.trace_id)
            if entry is None:
                if not self._indexed(span.trace_id, unit, record):
                    raise _Mismatch
                found[span.trace_id] = entry = ([], [])
            entry[0].append(span)
        for note in ctx.notes:
            entry = found.get(note.trace_id)
            if entry is None:  # a note only `read_traces` would place
                raise _Mismatch
            entry[1].append(note)
        mine = found.pop(trace_id)
        count = sum(len(entry[0]) for entry in found.values()) + len(mine[0])
        for other, entry in found.items():
            cost = len(data) * len(entry[0]) // max(count, 1)
            later = _parts(self.index[other])[0][_PLACE] > place
            if later and self.stash_bytes + cost <= room:
                self.stash.setdefault((unit.number, record), {})[other] = (*entry, cost)
                self.stash_bytes += cost
        return mine

    def _stashed(
        self, unit: _Unit, record: int, trace_id: str | None
    ) -> tuple[list[Span], list[ReadNote]] | None:
        key = (unit.number, record)
        kept = self.stash.get(key)
        if kept is None or trace_id not in kept:
            return None
        spans, notes, cost = kept.pop(trace_id)
        if not kept:
            del self.stash[key]
        self.stash_bytes -= cost
        return spans, notes

    def _indexed(self, trace_id: str | None, unit: _Unit, record: int) -> bool:
        entry = self.index.get(trace_id)
        for part in _parts(entry) if entry is not None else ():
            if part[_UNIT] == unit.number and len(part) > _FIRST:
                at = bisect_left(part, record, _FIRST)
                return at < len(part) and part[at] == record
        return False

    def _record_bytes(self, unit: _Unit, record: int) -> bytes:
        offset, length = unit.offsets[record], unit.lengths[record]
        store = unit.store
        if isinstance(store, bytes):
            return store[offset : offset + length]
        key = id(unit)
        handle = self.open.get(key)
        if handle is None:
            assert store is not None
            if len(self.open) >= _OPEN_FILES:
                self.open.pop(next(iter(self.open))).close()
            handle = self.open[key] = store.open("rb")
        handle.seek(offset)
        data = handle.read(length)
        if len(data) < length:
            raise EOFError("the file changed while it was read")
        return data

    def _late(self, unit: _Unit, error: TraceReadError) -> Exception:
        """A fault found while reading a trace: the error `read_traces` gives, or, for a
        directory's file with `failures`, a read of the directory again without that file."""
        own = self._validate(unit) or error
        if self.failures is not None:
            return _Broken(unit.name, own)
        return self._first_error(own)


def _opener(path: Path) -> Opener:
    return lambda: open_file(path)


def _reads(
    name: str, opener: Opener, size: int | None, format: str | None
) -> Callable[[list[ReadNote]], Iterator[Span]]:
    return lambda notes: read_one(name, opener, size, format, notes)


def _reads_file(path: Path, format: str) -> Callable[[list[ReadNote]], Iterator[Span]]:
    return lambda notes: read_trace_file(path, format, notes)


def _record_kind(format: str, stream: IO[bytes], head: bytes, size: int | None) -> str | None:
    """Which scanner indexes a file of this format, or None when it is one record."""
    if format == "otlp-jsonl" or (format == "otlp-json" and layout(stream, head) == "lines"):
        return "otlp-lines"
    if format == "spans" and layout(stream, head) == "lines":
        return "flat-lines"
    if format == "otlp-proto" and is_proto_stream(head, size):
        return "proto-stream"
    return None


def _otlp_line(data: bytes, number: int, offset: int, ctx: ReadContext) -> Iterator[Span]:
    return spans_of_line(data, number, ctx)


def _flat_line(data: bytes, number: int, offset: int, ctx: ReadContext) -> Iterator[Span]:
    yield span_of_line(data, number, ctx)


def _proto_record(data: bytes, number: int, offset: int, ctx: ReadContext) -> Iterator[Span]:
    return spans_of_record(data[4:], record_place(number, offset), ctx)


_CONVERTERS: dict[str, Callable[[bytes, int, int, ReadContext], Iterator[Span]]] = {
    "otlp-lines": _otlp_line,
    "flat-lines": _flat_line,
    "proto-stream": _proto_record,
}
