"""One trace at a time: memory follows the largest trace, not the file (inputs.md).

`read_traces` builds every trace of an input before it gives any. `iter_traces` gives the same
traces (the same spans in the same order, one copy of a span recorded twice, the same notes) in
the same first-seen order, holding one trace at a time:

1. Index. A record-oriented file (OTLP JSON Lines, flat spans one per line, the Collector's
   length-prefixed protobuf stream) is scanned once for the trace ids of each record
   (`record_index`: only the ids are decoded); a gzip file is inflated into a temporary file on
   the way, to be read again. Any other file (one JSON document, one protobuf message, a Claude
   Code stream, whose sessions end only with the file) is one record and is read whole, as
   `read_traces` reads it. While the lines of an OTLP JSON Lines file hold one trace, the
   index reads them in full and keeps their spans for that trace: a file of one run is read
   once. Which records hold which trace is kept on disk (`trace_index`), so
   memory does not grow with the number of traces either.
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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Final, TypeVar

from tracecheck.errors import TraceReadError
from tracecheck.readers.common import Decline, ReadContext, collector_paused
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
from tracecheck.readers.sniff import FORMATS, HEAD_SIZE
from tracecheck.readers.trace_index import Place, Row, TraceIndex
from tracecheck.spans import ReadNote, Span, Trace

if TYPE_CHECKING:
    import tempfile

    from tracecheck.readers.record_index import Reader, Record

__all__ = ["WHOLE_BELOW", "iter_traces", "map_traces", "splits_by_trace", "visit_traces"]

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
    results: list[R] = []
    visit_traces(
        source,
        lambda trace: results.append(visit(trace)),
        format=format,
        failures=failures,
        name=name,
        restart=results.clear,
    )
    return results


def visit_traces(
    source: Source,
    visit: Callable[[Trace], object],
    *,
    format: str | None = None,
    failures: list[TraceReadError] | None = None,
    name: str | None = None,
    restart: Callable[[], object] | None = None,
    share: Sequence[Path] | None = None,
    unplaced: list[ReadNote] | None = None,
    part: tuple[int, int] | None = None,
) -> int:
    """`map_traces` keeping nothing: `visit(trace)` for each trace of `source` in order, and
    the number of traces visited. When a directory is read again without a file found
    unreadable late, `restart()` is called first: what the visits so far left behind is to be
    dropped.

    For readers working side by side on one directory: with a `share` (some of its files, as
    `inputs.trace_files` takes them), only those files are read, as if the directory held no
    others; with an `unplaced` list, the notes that name no trace read (each trace carries
    them) are put there. With a `part` (k, n), of the traces in first-seen order only the
    k-th of n runs of neighbours (as equal in number as can be) is read and visited: the
    whole input is indexed, but only the records of those traces are converted
    (`splits_by_trace` says whether that saves anything)."""
    broken: dict[str, TraceReadError] = {}
    stream = True
    visited = 0
    while True:
        if visited and restart is not None:
            restart()
        visited = 0
        found: list[TraceReadError] | None = [] if failures is not None else None
        reader = _Reader(source, format, found, broken, name, stream=stream, share=share, part=part)
        try:
            for trace in reader.traces():
                visited += 1
                visit(trace)
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
        if unplaced is not None:
            unplaced[:] = reader.unplaced
        return visited


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
    kept: dict[str | None, list[Span]] | None = None  # a whole file's spans, while held
    notes: list[ReadNote] = field(default_factory=list)  # a whole file's notes
    waiting: int = 0  # traces with spans in this file read whole not yet given
    validated: bool = False  # read through by its reader without error
    error: TraceReadError | None = None  # what reading it through raised
    number: int = 0  # its place among the files read


_Stashed = tuple[list[Span], list[ReadNote], int]
# The fields of an index row (`trace_index.Row`) read here.
_FILE: Final = 0
_RECORD: Final = 1
_OFFSET: Final = 2
_LENGTH: Final = 3


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
        share: Sequence[Path] | None = None,
        part: tuple[int, int] | None = None,
    ) -> None:
        self.source = source
        self.share = share
        self.part = part
        self.format = format
        self.broken = broken
        self.name = name
        self.stream = stream
        self.directory = not isinstance(source, bytes) and Path(source).is_dir()
        # Only a directory's files fail alone; any other input fails whole.
        self.failures = failures if self.directory else None
        self.units: list[_Unit] = []
        self.temp: tempfile.TemporaryDirectory[str] | None = None
        self.index = TraceIndex(self._temp_dir)
        self.unplaced: list[ReadNote] = []
        self.kept_bytes = 0
        # Spans of traces still to come, read with an earlier trace's record: record ->
        # trace -> (spans, notes, bytes they stand for).
        self.stash: dict[int, dict[str | None, _Stashed]] = {}
        self.stash_bytes = 0
        self.open: dict[int, IO[bytes]] = {}

    # --- the two passes ---------------------------------------------------------------------

    def traces(self) -> Iterator[Trace]:
        with collector_paused():
            self._index_all()
            notes = [note for unit in self.units for note in unit.notes]
            _, self.unplaced = place_notes(notes, self.index)
        first, end = 0, None
        if self.part is not None:
            count, (k, n) = len(self.index), self.part
            first, end = count * k // n, count * (k + 1) // n
        for number, (trace_id, place, rows) in enumerate(self.index.traces()):
            if number == end:
                return
            if number < first:
                self._skip(trace_id, rows)
                continue
            with collector_paused():
                trace = self._trace(trace_id, place, rows)
            yield trace

    def _skip(self, trace_id: str | None, rows: list[Row]) -> None:
        """A trace another part reads: what is held for it is let go."""
        for row in rows:
            if row[_OFFSET] is not None:
                self._stashed(row[_RECORD], trace_id)
                continue
            unit = self.units[row[_FILE]]
            unit.waiting -= 1
            if unit.kept is not None:
                unit.kept.pop(trace_id, None)
                if unit.waiting == 0:
                    unit.kept = None

    def close(self) -> None:
        for handle in self.open.values():
            handle.close()
        self.open.clear()
        self.index.close()
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
        files = trace_files(root, self.format, self.failures, self.share)
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
        number = len(self.units)
        scanned = False
        try:
            if unit.path is not None:
                base = unit.path.stat().st_size
            else:
                base = len(unit.store) if isinstance(unit.store, bytes) else 0
            unit.estimate = base * (_GZIP_RATIO if unit.size is None else 1)
            if self.stream:
                scanned = self._scan(unit, number)
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
        unit.number = number
        if scanned:
            self.units.append(unit)
            return
        unit.kind = unit.store = None
        try:
            trace_ids = self._read_whole(unit, keep=not self.directory)
        except TraceReadError as exc:
            self._fail(exc)
            return
        self.units.append(unit)
        self.index.add_whole(number, trace_ids)
        unit.waiting = len(trace_ids)

    def _declined(self, unit: _Unit) -> None:
        """A file the index could not judge (what its scan indexed was dropped): its reader
        reads it through first, so that a broken file fails without its spans being held."""
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

    def _scan(self, unit: _Unit, number: int) -> bool:
        """Index the file's records as file `number`; False to read it whole instead."""
        with unit.opener() as stream:
            head = stream.read(HEAD_SIZE)
            size = unit.size
            if size is None and len(head) < HEAD_SIZE:
                size = len(head)
            chosen = unit.format = unit.format or self.format or detect(unit.name, head, size)
            if unit.estimate < WHOLE_BELOW:
                return False
            start = start_of(head, chosen)
            stream.seek(start)
            kind = _record_kind(chosen, stream, head, size)
            if kind is None:
                return False
            unit.kind = kind
            first = self.index.next_record
            try:
                if unit.size is None:  # gzip: its records are read again from an inflated copy
                    store = self._temp_file()
                    with store.open("wb") as copy:
                        self.index.add_records(number, self._records(unit, kind, stream, 0, copy))
                    unit.store = store
                else:
                    self.index.add_records(number, self._records(unit, kind, stream, start, None))
                    unit.store = unit.path if unit.path is not None else unit.store
            except BaseException:
                self._unstash(first)  # the records read ahead are not indexed
                raise
        return True

    def _records(
        self, unit: _Unit, kind: str, stream: IO[bytes], start: int, copy: IO[bytes] | None
    ) -> Iterator[Record]:
        from tracecheck.readers.record_index import OTLP_LINES, SCANNERS  # msgspec: large files

        if kind != "otlp-lines" or self.directory or self.part is not None:
            return SCANNERS[kind](stream, start, copy)
        return OTLP_LINES(stream, start, copy, self._read_ahead(unit), self._next_record)

    def _next_record(self) -> int:
        return self.index.next_record

    def _read_ahead(self, unit: _Unit) -> Reader:
        """Lines of OTLP/JSON read in full as the index scans them, while they hold spans of
        one trace only, that trace's spans kept for it: a file of one trace (the usual run) is
        read once rather than scanned and then read. The first line that holds another trace
        ends it (the first trace's spans of that line are kept, and the others' while they
        cost little, as `_convert` keeps a record's later traces), as does a line only the
        general reader reads: the index scans the rest for ids alone. The kept spans are those
        the trace is read into (`_convert` would convert the same lines the same way), so
        memory still follows the largest trace."""
        from tracecheck.readers.otlp_json_typed import typed_spans

        target: list[str | None] = []  # the trace read ahead, once known
        done = False

        def read(line: bytes, number: int, record: int) -> tuple[str | None, ...] | None:
            nonlocal done
            if done:
                return None
            ctx = ReadContext(unit.name, [])
            # Without the newline, as `otlp_json.spans_of_line` reads it.
            text = memoryview(line)[: -1 if line.endswith(b"\n") else None]
            spans = typed_spans(text, ctx, f"line {number}: ")
            if spans is None:
                done = True
                return None
            ids = tuple(dict.fromkeys(span.trace_id for span in spans))
            if any(note.trace_id not in ids for note in ctx.notes):
                done = True  # a note only the reader itself places
                return None
            if not ids:
                return ids
            if not target:
                target.append(ids[0])
            trace_id = target[0]
            if ids == (trace_id,):
                self._keep(record, trace_id, spans, ctx.notes, len(line))
                return ids
            # The line's other traces come later: their spans are kept too while they cost
            # little, so that the line is not converted again.
            done = True
            others = 0
            for other in ids:
                own = [span for span in spans if span.trace_id == other]
                cost = len(line) * len(own) // len(spans)
                if other != trace_id:
                    if others + cost > _STASH_FLOOR:
                        continue
                    others += cost
                notes = [note for note in ctx.notes if note.trace_id == other]
                self._keep(record, other, own, notes, cost)
            return ids

        return read

    def _keep(
        self,
        record: int,
        trace_id: str | None,
        spans: list[Span],
        notes: list[ReadNote],
        cost: int,
    ) -> None:
        self.stash.setdefault(record, {})[trace_id] = (spans, notes, cost)
        self.stash_bytes += cost

    def _unstash(self, first: int) -> None:
        """Drop what was kept of records numbered `first` and after."""
        for record in [record for record in self.stash if record >= first]:
            for _, _, cost in self.stash.pop(record).values():
                self.stash_bytes -= cost

    def _read_whole(self, unit: _Unit, *, keep: bool) -> list[str | None]:
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
        return list(spans)

    def _temp_dir(self) -> Path:
        import tempfile  # only a file read record by record, or a large index, needs a folder

        if self.temp is None:
            self.temp = tempfile.TemporaryDirectory(prefix="tracecheck-")
        return Path(self.temp.name)

    def _temp_file(self) -> Path:
        import tempfile

        handle, name = tempfile.mkstemp(dir=self._temp_dir(), suffix=".records")
        os.close(handle)
        return Path(name)

    # --- 2. read ------------------------------------------------------------------------------

    def _trace(self, trace_id: str | None, place: Place, rows: list[Row]) -> Trace:
        located: list[Located] = []
        notes: list[ReadNote] = []
        start = 0
        while start < len(rows):  # a file's rows are together, in the order files were read
            file = rows[start][_FILE]
            end = start + 1
            while end < len(rows) and rows[end][_FILE] == file:
                end += 1
            unit = self.units[file]
            whole = rows[start][_OFFSET] is None
            try:
                if whole:
                    spans, own = self._whole_part(unit, trace_id)
                else:
                    spans, own = self._record_part(unit, rows[start:end], place, trace_id)
            except TraceReadError as exc:
                raise self._late(unit, exc) from None
            except INPUT_ERRORS as exc:
                error = TraceReadError(unit.name, f"could not be read: {exc}")
                raise self._late(unit, error) from None
            if whole:
                unit.waiting -= 1
                if unit.waiting == 0:
                    unit.kept = None
            located.extend((unit.located, span) for span in spans)
            notes.extend(own)
            start = end
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
        self, unit: _Unit, rows: list[Row], place: Place, trace_id: str | None
    ) -> tuple[list[Span], list[ReadNote]]:
        room = max(sum(row[_LENGTH] for row in rows), _STASH_FLOOR)
        spans: list[Span] = []
        notes: list[ReadNote] = []
        for row in rows:
            found = self._stashed(row[_RECORD], trace_id)
            if found is None:
                found = self._convert(unit, row, place, trace_id, room)
            spans.extend(found[0])
            notes.extend(found[1])
        return spans, notes

    def _convert(
        self, unit: _Unit, row: Row, place: Place, trace_id: str | None, room: int
    ) -> tuple[list[Span], list[ReadNote]]:
        """What one record holds about `trace_id`. A record often holds spans of the next
        traces too (an exporter's batch): theirs are kept for them while the kept spans cost
        less than the trace being read (`room`), so the record is not converted again."""
        _, record, offset, length, number, count = row
        assert offset is not None
        ctx = ReadContext(unit.name, [])
        data = self._record_bytes(unit, offset, length)
        found: dict[str | None, tuple[list[Span], list[ReadNote]]] = {trace_id: ([], [])}
        # The traces the index found in this record, with their places: asked for only when
        # the record holds spans of another trace (never, when the index found one trace).
        others: dict[str | None, Place] = {}
        convert = _CONVERTERS[unit.kind or ""]
        for span in convert(data, number, offset, ctx):
            entry = found.get(span.trace_id)
            if entry is None:
                if count > 1 and not others:
                    others = self.index.record_traces(record)
                if span.trace_id not in others:
                    raise _Mismatch
                found[span.trace_id] = entry = ([], [])
            entry[0].append(span)
        for note in ctx.notes:
            entry = found.get(note.trace_id)
            if entry is None:  # a note only `read_traces` would place
                raise _Mismatch
            entry[1].append(note)
        mine = found.pop(trace_id)
        spans = sum(len(entry[0]) for entry in found.values()) + len(mine[0])
        for other, entry in found.items():
            cost = len(data) * len(entry[0]) // max(spans, 1)
            later = others[other] > place
            if later and self.stash_bytes + cost <= room:
                self.stash.setdefault(record, {})[other] = (*entry, cost)
                self.stash_bytes += cost
        return mine

    def _stashed(
        self, record: int, trace_id: str | None
    ) -> tuple[list[Span], list[ReadNote]] | None:
        kept = self.stash.get(record)
        if kept is None or trace_id not in kept:
            return None
        spans, notes, cost = kept.pop(trace_id)
        if not kept:
            del self.stash[record]
        self.stash_bytes -= cost
        return spans, notes

    def _record_bytes(self, unit: _Unit, offset: int, length: int) -> bytes:
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


def splits_by_trace(source: str, format: str | None = None) -> bool:
    """Whether reading a `part` of the file `source` converts only that part's records: a
    record-oriented file (JSON Lines, a proto stream) large enough to be indexed, not read
    whole. False for anything else, or for a file that cannot be opened or sniffed."""
    path = Path(source)
    try:
        if not path.is_file():
            return False
        size = file_size(path)
        estimate = path.stat().st_size * (_GZIP_RATIO if size is None else 1)
        if estimate < WHOLE_BELOW:
            return False
        with open_file(path) as stream:
            head = stream.read(HEAD_SIZE)
            if size is None and len(head) < HEAD_SIZE:
                size = len(head)
            chosen = format or detect(str(path), head, size)
            stream.seek(start_of(head, chosen))
            return _record_kind(chosen, stream, head, size) is not None
    except (TraceReadError, *INPUT_ERRORS):
        return False


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


# The readers of records, imported when a file is read record by record (a large one). As
# `import ... as`, which costs a sixth of a `from ... import` per record once loaded.


def _otlp_line(data: bytes, number: int, offset: int, ctx: ReadContext) -> Iterator[Span]:
    import tracecheck.readers.otlp_json as otlp_json

    return otlp_json.spans_of_line(data, number, ctx)


def _flat_line(data: bytes, number: int, offset: int, ctx: ReadContext) -> Iterator[Span]:
    import tracecheck.readers.flat as flat

    yield flat.span_of_line(data, number, ctx)


def _proto_record(data: bytes, number: int, offset: int, ctx: ReadContext) -> Iterator[Span]:
    import tracecheck.readers.otlp_proto as otlp_proto

    return otlp_proto.spans_of_record(data[4:], otlp_proto.record_place(number, offset), ctx)


_CONVERTERS: dict[str, Callable[[bytes, int, int, ReadContext], Iterator[Span]]] = {
    "otlp-lines": _otlp_line,
    "flat-lines": _flat_line,
    "proto-stream": _proto_record,
}
