"""Storage for the hosted-ingest receiver: the `SpanStore` protocol and its SQLite implementation.

`SpanStore` is what a server database (Postgres, say) implements; the receiver in
`redact.shipping.ingest` speaks only to it. A store keeps

- spans, at most one per `(tenant_id, trace_id, span_id)`, each as the canonical JSON of its
  `TraceSpanEvent` (sorted keys, no whitespace), so an exact duplicate is recognised by comparing
  text and a conflicting payload with the same identity is refused with its reason;
- the responses of recent requests by `(tenant_id, Idempotency-Key)`, replayed for 24 hours.

`store_batch` runs in one transaction: a batch is stored whole or not at all. `store_batch_once`
stores a batch and records its response under its key in that same transaction, after looking
the key up inside it: of two requests with one key, from any number of processes, one stores
and the other gets the first one's response, never a second copy of the batch.

`SqliteSpanStore` choices:

- **WAL** journal: readers (`GET /v1/traces/...`) never block the writer, and a commit is one
  append to the log.
- **synchronous=FULL**: in WAL mode NORMAL may lose the last commits on power loss or an OS
  crash (they are in the log but not yet synced). The receiver answers `200 accepted` and the
  client then forgets the batch, so the answer must mean "on disk": FULL syncs the log at every
  commit. The cost is one fsync per batch, not per span.
- **one connection behind a lock**, not one per thread: SQLite admits one writer at a time
  anyway, the receiver's transactions are short, and a transaction's state lives on its
  connection, so the lock is what keeps two threads' batches from interleaving in one
  transaction. `check_same_thread=False` lets the server's worker threads share it.
- `BEGIN IMMEDIATE` takes the write lock when a batch starts, so a second process on the same
  file waits (`busy_timeout`) rather than failing half-way through.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import orjson

__all__ = [
    "IDEMPOTENCY_WINDOW_SECONDS",
    "Answer",
    "RecordedResponse",
    "RowOutcome",
    "SpanRow",
    "SpanStore",
    "SqliteSpanStore",
    "StoreError",
    "StoreUnavailable",
    "canonical_json",
]

IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60

_SCHEMA = """
CREATE TABLE IF NOT EXISTS spans (
    tenant_id   TEXT NOT NULL,
    trace_id    TEXT NOT NULL,
    span_id     TEXT NOT NULL,
    start_key   TEXT NOT NULL,
    payload     TEXT NOT NULL,
    PRIMARY KEY (tenant_id, trace_id, span_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS idempotency (
    tenant_id   TEXT NOT NULL,
    key         TEXT NOT NULL,
    recorded_at REAL NOT NULL,
    status      INTEGER NOT NULL,
    body        BLOB NOT NULL,
    PRIMARY KEY (tenant_id, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idempotency_age ON idempotency (recorded_at);
"""


class StoreError(Exception):
    """The store could not be opened or could not complete an operation."""


class StoreUnavailable(StoreError):
    """A transient failure (the database is locked, busy, or out of space): retry later."""


@dataclass(frozen=True, slots=True)
class SpanRow:
    """One validated span: its identity, its start time, and its canonical JSON."""

    trace_id: str
    span_id: str
    start_time_unix_nano: int
    payload: str

    @classmethod
    def of(cls, event: dict[str, object]) -> SpanRow:
        """The row of a validated `TraceSpanEvent` (ids already lower-case hex)."""
        start = event["startTimeUnixNano"]
        return cls(
            trace_id=str(event["traceId"]),
            span_id=str(event["spanId"]),
            start_time_unix_nano=int(str(start)),
            payload=canonical_json(event),
        )


@dataclass(frozen=True, slots=True)
class RowOutcome:
    """What became of one row: newly stored, an exact duplicate, or a conflict (with why)."""

    status: Literal["stored", "duplicate", "conflict"]
    reason: str | None = None

    @property
    def accepted(self) -> bool:
        return self.status != "conflict"


@dataclass(frozen=True, slots=True)
class RecordedResponse:
    """A response remembered under an Idempotency-Key."""

    status: int
    body: bytes


# Makes the response to a batch from the outcomes of its rows (inside the store's transaction).
Answer = Callable[[list["RowOutcome"]], "RecordedResponse"]


class SpanStore(Protocol):
    """Span storage for the hosted-ingest receiver."""

    def store_batch(self, tenant_id: str, rows: Sequence[SpanRow]) -> list[RowOutcome]:
        """One outcome per row, in order, all in one transaction: on any error nothing of the
        batch is stored and the error propagates. A later row with the identity of an earlier
        row of the same batch is judged against it."""
        ...

    def spans_of_trace(self, tenant_id: str, trace_id: str) -> list[str]:
        """The tenant's spans of a trace as canonical JSON, by start time then span id."""
        ...

    def store_batch_once(
        self,
        tenant_id: str,
        rows: Sequence[SpanRow],
        key: str,
        now: float,
        answer: Answer,
    ) -> tuple[RecordedResponse, bool]:
        """In one transaction: the response recorded under the tenant's key less than 24 hours
        before `now`, with True (replayed); else the rows stored as `store_batch` does, the
        response `answer` makes of their outcomes recorded under the key when it is a 200, and
        that response with False."""
        ...

    def recorded_response(self, tenant_id: str, key: str, now: float) -> RecordedResponse | None:
        """The response recorded under the tenant's key less than 24 hours before `now`."""
        ...

    def close(self) -> None: ...


def canonical_json(value: object) -> str:
    """Sorted keys, no whitespace: equal payloads have equal text."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


class SqliteSpanStore:
    """`SpanStore` on one SQLite file (WAL, synchronous=FULL, one transaction per batch)."""

    def __init__(self, path: str | Path, *, busy_timeout_ms: int = 5000) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=0
            )
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open: {exc}") from None
        try:
            self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"{self.path}: cannot use WAL mode (journal mode is {mode})")
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            self._db.close()
            raise StoreError(f"{self.path}: cannot open: {exc}") from None

    def store_batch(self, tenant_id: str, rows: Sequence[SpanRow]) -> list[RowOutcome]:
        with self._transaction() as cursor:
            return [self._store_row(cursor, tenant_id, row) for row in rows]

    def store_batch_once(
        self,
        tenant_id: str,
        rows: Sequence[SpanRow],
        key: str,
        now: float,
        answer: Answer,
    ) -> tuple[RecordedResponse, bool]:
        with self._transaction() as cursor:
            recorded = self._recorded(cursor, tenant_id, key, now)
            if recorded is not None:
                return recorded, True
            response = answer([self._store_row(cursor, tenant_id, row) for row in rows])
            if response.status == 200:  # a request refused whole may be corrected and sent again
                expired = now - IDEMPOTENCY_WINDOW_SECONDS
                cursor.execute("DELETE FROM idempotency WHERE recorded_at <= ?", (expired,))
                cursor.execute(
                    "INSERT INTO idempotency (tenant_id, key, recorded_at, status, body) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (tenant_id, key, now, response.status, response.body),
                )
            return response, False

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Cursor]:
        """One write transaction under the lock: committed when the block ends, rolled back when
        it raises (a locked or busy database as `StoreUnavailable`)."""
        with self._lock:
            cursor = self._db.cursor()
            try:
                cursor.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreUnavailable(f"{self.path}: {exc}") from None
            try:
                yield cursor
                cursor.execute("COMMIT")
            except BaseException as exc:
                if self._db.in_transaction:
                    cursor.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError):
                    raise StoreUnavailable(f"{self.path}: {exc}") from None
                raise

    def _store_row(self, cursor: sqlite3.Cursor, tenant_id: str, row: SpanRow) -> RowOutcome:
        found = cursor.execute(
            "SELECT payload FROM spans WHERE tenant_id = ? AND trace_id = ? AND span_id = ?",
            (tenant_id, row.trace_id, row.span_id),
        ).fetchone()
        if found is None:
            self._insert(cursor, tenant_id, row)
            return RowOutcome("stored")
        if found[0] == row.payload:
            return RowOutcome("duplicate")
        fields = _differing_fields(found[0], row.payload)
        differs = f"differs in {', '.join(fields)}" if fields else "a value differs in type"
        return RowOutcome(
            "conflict",
            f"span {row.span_id} of trace {row.trace_id} is already stored with a different "
            f"payload ({differs})",
        )

    def _insert(self, cursor: sqlite3.Cursor, tenant_id: str, row: SpanRow) -> None:
        cursor.execute(
            "INSERT INTO spans (tenant_id, trace_id, span_id, start_key, payload) "
            "VALUES (?, ?, ?, ?, ?)",
            (
                tenant_id,
                row.trace_id,
                row.span_id,
                f"{row.start_time_unix_nano:020d}",  # sorts as text; u64 overflows INTEGER
                row.payload,
            ),
        )

    def spans_of_trace(self, tenant_id: str, trace_id: str) -> list[str]:
        with self._lock:
            found = self._db.execute(
                "SELECT payload FROM spans WHERE tenant_id = ? AND trace_id = ? "
                "ORDER BY start_key, span_id",
                (tenant_id, trace_id),
            ).fetchall()
        return [payload for (payload,) in found]

    def recorded_response(self, tenant_id: str, key: str, now: float) -> RecordedResponse | None:
        with self._lock:
            return self._recorded(self._db.cursor(), tenant_id, key, now)

    @staticmethod
    def _recorded(
        cursor: sqlite3.Cursor, tenant_id: str, key: str, now: float
    ) -> RecordedResponse | None:
        found = cursor.execute(
            "SELECT status, body FROM idempotency "
            "WHERE tenant_id = ? AND key = ? AND recorded_at > ?",
            (tenant_id, key, now - IDEMPOTENCY_WINDOW_SECONDS),
        ).fetchone()
        if found is None:
            return None
        return RecordedResponse(int(found[0]), bytes(found[1]))

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _differing_fields(stored: str, incoming: str) -> list[str]:
    """The top-level fields that differ (names the wire defines), and how many attributes do:
    never a value, nor an attribute key (a key may hold what the gate renames)."""
    old, new = orjson.loads(stored), orjson.loads(incoming)
    fields: list[str] = []
    for name in sorted(old.keys() | new.keys()):
        if old.get(name) == new.get(name):
            continue
        if (
            name == "attributes"
            and isinstance(old.get(name), dict)
            and isinstance(new.get(name), dict)
        ):
            count = sum(
                1
                for key in old[name].keys() | new[name].keys()
                if old[name].get(key, _MISSING) != new[name].get(key, _MISSING)
            )
            fields.append(f"attributes ({count} {'key' if count == 1 else 'keys'})")
        else:
            fields.append(_short(name))
    return fields


_MISSING = object()


def _short(name: str, limit: int = 64) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"
