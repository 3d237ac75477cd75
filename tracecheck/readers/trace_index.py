"""Which records hold each trace, in first-seen order, kept on disk so that memory does not
grow with the number of traces or records.

The streaming reader (`by_trace`) scans a record-oriented file for the trace ids of each
record, then reads the traces in the order their first span was seen, each from its own
records. Held in memory, that index costs a few hundred bytes per trace and tens per record:
megabytes for a file of many small traces. Here it goes to a SQLite database in a temporary
file with a small page cache; SQLite also sorts it into first-seen order, spilling to
temporary files rather than growing.

A trace's place is where its id was first seen: the record, then its rank among the record's
distinct trace ids. Records are numbered across every file of the input in the order they
were scanned, so sorting by them keeps files in order and each file's records in order. A file
read whole is one record with no place in the file (`offset` None).

Files read whole (small files, a directory of them, a format that is one document) are few
traces: they are indexed in memory, and moved to disk once a file is scanned record by record
or once they hold many traces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

    from tracecheck.readers.record_index import Record

__all__ = ["Place", "Row", "TraceIndex"]

Place = int  # where a trace was first seen: its first record and rank there, as one number
# One record of a trace: (file number, record number, offset or None when the file is read
# whole, length in bytes, the reader's number of the record, how many traces it holds).
Row = tuple[int, int, int | None, int, int, int]

_CACHE_KB = 256  # SQLite's page cache, which also bounds its sorter's memory
_FLUSH = 1024  # records gathered before they are written
_IN_MEMORY = 20_000  # trace entries of files read whole held in memory before moving to disk
_NO_ID = b""  # how a trace without an id is stored (a blob never equals a text id)
# A posting's key: its record's number, then the trace's rank among the record's traces. The
# table is written in key order, so sorting by key keeps files and records in order, and a
# record's postings are a range of keys.
_RANKS = 32

_SCHEMA = (
    "PRAGMA journal_mode = OFF",
    "PRAGMA synchronous = OFF",
    "PRAGMA locking_mode = EXCLUSIVE",
    "PRAGMA temp_store = FILE",
    f"PRAGMA cache_size = -{_CACHE_KB}",
    "CREATE TABLE postings (key INTEGER PRIMARY KEY, trace, file INTEGER, offset INTEGER,"
    " length INTEGER, number INTEGER, traces INTEGER)",
)
# Where each trace was first seen, once every record is in (one pass in SQLite).
_FIRSTS = (
    "CREATE TABLE firsts (trace PRIMARY KEY, first INTEGER) WITHOUT ROWID",
    "INSERT INTO firsts SELECT trace, MIN(key) FROM postings GROUP BY trace",
)
_ORDERED = (
    f"SELECT f.first, p.trace, p.file, p.key >> {_RANKS}, p.offset, p.length, p.number,"
    " p.traces FROM postings AS p JOIN firsts AS f ON f.trace = p.trace"
    " ORDER BY f.first, p.key"
)
_IN_RECORD = (
    "SELECT p.trace, f.first FROM postings AS p JOIN firsts AS f ON f.trace = p.trace"
    " WHERE p.key >= ? AND p.key < ?"
)


def _key(trace_id: str | None) -> str | bytes:
    return _NO_ID if trace_id is None else trace_id


def _trace_id(key: str | bytes) -> str | None:
    return key if isinstance(key, str) else None


class TraceIndex:
    """Each trace's records, given in first-seen order (`traces`) once every file is in.
    `folder` gives the directory for the database, created on first use; `close` releases
    it."""

    def __init__(self, folder: Callable[[], Path]) -> None:
        self._folder = folder
        self._db: sqlite3.Connection | None = None
        self._done = False  # every file is in: where each trace was first seen is known
        # Before the index moves to disk: each trace's files read whole, in first-seen order.
        self._whole: dict[str | None, list[int]] = {}
        self._entries = 0
        self._next = 0  # the next record number
        self._postings: list[tuple[int, str | bytes, int, int | None, int, int, int]] = []

    # --- building -------------------------------------------------------------------------------

    def add_whole(self, file: int, trace_ids: Iterable[str | None]) -> None:
        """A file read whole, holding spans of these traces (distinct, in first-seen order)."""
        assert not self._done
        if self._db is None:
            for trace_id in trace_ids:
                self._whole.setdefault(trace_id, []).append(file)
                self._entries += 1
            if self._entries > _IN_MEMORY:
                self._to_disk()
            return
        self._add(file, None, 0, 0, tuple(trace_ids))

    @property
    def next_record(self) -> int:
        """The number the next record added will have."""
        return self._next

    def add_records(self, file: int, records: Iterable[Record]) -> None:
        """A file's records as scanned. If the scan raises, none of this file's records are
        kept (the file is then read whole)."""
        assert not self._done
        self._to_disk()
        self._flush()  # what is gathered from here on is this file's alone
        start = self._next
        try:
            for record in records:
                self._add(file, record.offset, record.length, record.number, record.trace_ids)
        except BaseException:
            self._postings.clear()
            self._next = start
            db = self._connection()
            db.execute("DELETE FROM postings WHERE key >= ?", (start << _RANKS,))
            raise

    def _add(
        self,
        file: int,
        offset: int | None,
        length: int,
        number: int,
        trace_ids: tuple[str | None, ...],
    ) -> None:
        record = self._next
        self._next += 1
        base = record << _RANKS
        count = len(trace_ids)
        postings = self._postings
        for rank, trace_id in enumerate(trace_ids):
            key = _NO_ID if trace_id is None else trace_id
            postings.append((base + rank, key, file, offset, length, number, count))
        if len(postings) >= _FLUSH:
            self._flush()

    def _flush(self) -> None:
        if self._postings:
            db = self._connection()
            db.executemany("INSERT INTO postings VALUES (?, ?, ?, ?, ?, ?, ?)", self._postings)
            self._postings.clear()

    def _to_disk(self) -> None:
        """Move what is held in memory to the database (from now on, everything goes there)."""
        if self._db is not None:
            return
        self._connection()
        by_file: dict[int, list[str | None]] = {}
        for trace_id, files in self._whole.items():
            for file in files:
                by_file.setdefault(file, []).append(trace_id)
        self._whole = {}
        for file in sorted(by_file):
            self._add(file, None, 0, 0, tuple(by_file[file]))

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            path = self._folder() / "index.sqlite"
            import sqlite3  # only once the index moves to disk: a small file's stays in memory

            db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute("BEGIN")
            self._db = db
        return self._db

    def _finished(self) -> sqlite3.Connection | None:
        """The database, with every trace's first place known; None while in memory."""
        if self._db is not None and not self._done:
            self._flush()
            for statement in _FIRSTS:
                self._db.execute(statement)
        self._done = True
        return self._db

    # --- reading --------------------------------------------------------------------------------

    def __contains__(self, trace_id: object) -> bool:
        db = self._finished()
        if db is None:
            return trace_id in self._whole
        if trace_id is not None and not isinstance(trace_id, str):
            return False
        found = db.execute("SELECT 1 FROM firsts WHERE trace = ?", (_key(trace_id),))
        return found.fetchone() is not None

    def __len__(self) -> int:
        """How many traces there are (once every file is in)."""
        db = self._finished()
        if db is None:
            return len(self._whole)
        (count,) = db.execute("SELECT COUNT(*) FROM firsts").fetchone()
        return int(count)

    def traces(self) -> Iterator[tuple[str | None, Place, list[Row]]]:
        """Each trace, where it was first seen, and its records in order, first seen first."""
        db = self._finished()
        if db is None:
            for first, (trace_id, files) in enumerate(self._whole.items()):
                yield trace_id, first, [(file, -1, None, 0, 0, 0) for file in files]
            return
        rows: list[Row] = []
        current = -1
        trace: str | bytes = _NO_ID
        for found in db.execute(_ORDERED):
            if found[0] != current:
                if rows:
                    yield _trace_id(trace), current, rows
                rows = []
                current, trace = found[0], found[1]
            rows.append(found[2:])
        if rows:
            yield _trace_id(trace), current, rows

    def record_traces(self, record: int) -> dict[str | None, Place]:
        """The traces a record holds, each with where it was first seen."""
        db = self._finished()
        assert db is not None
        found = db.execute(_IN_RECORD, (record << _RANKS, (record + 1) << _RANKS))
        return {_trace_id(trace): first for trace, first in found}

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
