"""A fleet's verdicts as a Parquet dataset: one row per trace, contract and rule, in plain
column types (strings, 32- and 64-bit integers, doubles) that pandas, Polars, DuckDB and Spark
read as they are. An input that could not be read is a row of its own (status `error`, no
trace, contract or rule; `failure` says how it failed), so that a query over the rows never
mistakes a fleet that read nothing for one that passed."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow

    from tracecheck.report.model import ReadFailure
    from tracecheck.run.engine import InputOutcome
    from tracecheck.run.task import TraceResult
    from tracecheck.run.task_key import TaskKey

__all__ = [
    "COLUMNS",
    "VerdictWriter",
    "failure_rows",
    "partial_name",
    "read_verdicts",
    "rows_table",
    "task_key_of",
    "trace_rows",
    "verdict_rows",
    "verdict_schema",
    "write_verdicts",
]

# (name, pyarrow type name, what it holds): the dataset's columns in order (docs/fleet.md).
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("source", "string", "the trace file (or URL), or the input that could not be read"),
    ("trace_id", "string", "the trace's id; null for an input that could not be read"),
    ("contract", "string", "the contract's name"),
    ("contract_source", "string", "the contract file, when the contract came from one"),
    ("rule", "string", "the rule's label (`<alternative>/<label>` in an alternative)"),
    ("rule_kind", "string", "the rule's operator (never, eventually, atMost, ...)"),
    ("status", "string", "pass, fail, error (could not be evaluated, or unreadable) or skipped"),
    ("verdict", "string", "the status of the whole contract on the trace"),
    ("violations", "int32", "how many violations the rule found"),
    ("first_violating_span", "string", "the span id of the first violation, when it has one"),
    ("detail", "string", "the first violation, the error, or why the input was not read"),
    ("failure", "string", "unreadable or ambiguous, for an input that could not be read"),
    ("duration_ms", "float64", "how long the run took"),
    ("tokens", "int64", "tokens used by the run's model calls"),
    ("model", "string", "the models called, in first-use order"),
    ("spans", "int32", "how many spans the trace has"),
    (
        "task",
        "string",
        "which task the run is of: the value of `fleet check --group-by`'s attribute",
    ),
)
# Where the schema says which attribute the `task` column holds (`fleet check --group-by`).
TASK_KEY = b"tracecheck.task_key"
_BATCH_ROWS = 65_536


def verdict_schema(task_key: TaskKey | None = None) -> pyarrow.Schema:
    """The dataset's Arrow schema (`COLUMNS`), saying which attribute names each run's task
    when one does."""
    import pyarrow as pa

    metadata = {TASK_KEY: str(task_key).encode()} if task_key is not None else None
    return pa.schema([(name, getattr(pa, kind)()) for name, kind, _ in COLUMNS], metadata)


def task_key_of(table: pyarrow.Table) -> str | None:
    """The attribute the `task` column of `table` holds, as `fleet check --group-by` spelled
    it; None when the verdicts were written without one."""
    key = (table.schema.metadata or {}).get(TASK_KEY)
    return key.decode() if key is not None else None


def verdict_rows(outcome: InputOutcome) -> Iterator[dict[str, Any]]:
    """The rows of one input: each rule of each verdict, then each failure."""
    for trace in outcome.traces:
        yield from trace_rows(trace)
    yield from failure_rows(outcome.failures)


def trace_rows(trace: TraceResult) -> Iterator[dict[str, Any]]:
    """The rows of one trace: each rule of each contract's verdict."""
    facts = trace.facts
    for checked in trace.checked:
        verdict = checked.verdict
        for rule in verdict.rules:
            first = rule.violations[0] if rule.violations else None
            yield {
                "source": checked.source,
                "trace_id": verdict.trace_id,
                "contract": verdict.contract,
                "contract_source": checked.contract_source,
                "rule": rule.label,
                "rule_kind": rule.kind,
                "status": rule.status,
                "verdict": verdict.status,
                "violations": len(rule.violations),
                "first_violating_span": first.span_id if first else None,
                "detail": rule.error or (first.detail if first else None),
                "failure": None,
                "duration_ms": _finite(facts.duration_ms),
                "tokens": facts.tokens,
                "model": facts.model,
                "spans": facts.spans,
                "task": facts.task,
            }


def failure_rows(failures: Iterable[ReadFailure]) -> Iterator[dict[str, Any]]:
    for failure in failures:
        yield {
            "source": failure.source,
            "status": "error",
            "verdict": "error",
            "violations": 0,
            "detail": failure.message,
            "failure": failure.kind,
        }


def rows_table(traces: Iterable[TraceResult]) -> pyarrow.Table:
    """The rows of `traces` as an Arrow table: what a worker sends back instead of verdicts
    when only rows are wanted (a fleet's client then writes them as they are)."""
    import pyarrow as pa

    return pa.Table.from_pylist(
        [row for trace in traces for row in trace_rows(trace)], verdict_schema()
    )


class VerdictWriter:
    """Rows written to the Parquet file `path` (a local path or an fsspec URL) outcome by
    outcome, in row groups, so memory holds one batch of rows at a time. Opening raises
    OSError when the file cannot be written. The rows go to a file beside `path` first, which
    takes its name only once the writer closes whole: a run that stops (an error, the
    scheduler lost, an interrupt) leaves no file a later query would take for the verdicts."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        storage_options: dict[str, Any] | None = None,
        task_key: TaskKey | None = None,
    ) -> None:
        import fsspec
        import pyarrow.parquet as pq

        self.schema = verdict_schema(task_key)
        self.fs, self.target = fsspec.core.url_to_fs(os.fspath(path), **(storage_options or {}))
        self.partial = partial_name(self.target)
        self.file = self.fs.open(self.partial, "wb")
        self.writer = pq.ParquetWriter(self.file, self.schema, compression="zstd")
        self.batch: list[dict[str, Any]] = []
        self.tables: list[pyarrow.Table] = []  # rows workers built, waiting with `batch`
        self.waiting = 0

    def add(self, outcome: InputOutcome) -> None:
        if outcome.rows:
            self.tables.extend(table for table in outcome.rows if table.num_rows)
            self.waiting += sum(table.num_rows for table in outcome.rows)
            self.batch.extend(failure_rows(outcome.failures))
        else:
            self.batch.extend(verdict_rows(outcome))
        if self.waiting + len(self.batch) >= _BATCH_ROWS:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        tables = [*self.tables, pa.Table.from_pylist(self.batch, self.schema)]
        self.writer.write_table(pa.concat_tables(tables))
        self.batch, self.tables, self.waiting = [], [], 0

    def close(self) -> None:
        """The last rows written, and the file given its name."""
        try:
            self._flush()
            self.writer.close()
        except BaseException:
            self.abort()
            raise
        self.file.close()
        self.fs.mv(self.partial, self.target)

    def abort(self) -> None:
        """The rows written so far thrown away: no file is left."""
        import contextlib

        # Closed here, or pyarrow closes it when collected, into a file already gone.
        with contextlib.suppress(Exception):  # the file is removed whatever it says
            self.writer.close()
        try:
            self.file.close()
        finally:
            if self.fs.exists(self.partial):
                self.fs.rm(self.partial)

    def __enter__(self) -> VerdictWriter:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()


def write_verdicts(
    path: str | os.PathLike[str],
    outcomes: Iterable[InputOutcome],
    storage_options: dict[str, Any] | None = None,
    task_key: TaskKey | None = None,
) -> int:
    """Every outcome's rows written to the Parquet file `path` (with `task_key`: the one the
    outcomes were checked with, which the file then names); how many inputs were written."""
    count = 0
    with VerdictWriter(path, storage_options, task_key) as writer:
        for outcome in outcomes:
            writer.add(outcome)
            count += 1
    return count


def read_verdicts(
    path: str | os.PathLike[str], storage_options: dict[str, Any] | None = None
) -> pyarrow.Table:
    """The verdict rows of a Parquet file (or dataset directory) written by `write_verdicts`.
    Raises ValueError when it lacks a column the summaries need."""
    import pyarrow.parquet as pq

    from tracecheck.run.storage import is_remote

    path = os.fspath(path)
    if is_remote(path):
        import fsspec

        fs, _, (where,) = fsspec.get_fs_token_paths(path, storage_options=storage_options)
        table = pq.read_table(where, filesystem=fs)
    else:
        table = pq.read_table(path)
    missing = [name for name, _, _ in COLUMNS if name not in table.column_names]
    if missing == ["task"]:  # written before runs had tasks: none of them has one
        import pyarrow as pa

        return table.append_column("task", pa.nulls(table.num_rows, pa.string()))
    if missing:
        raise ValueError(f"has no column {', '.join(missing)}: not verdicts of tracecheck")
    return table


def partial_name(target: str) -> str:
    """Where a file bound for `target` is written until it is whole (then it is renamed)."""
    return f"{target}.tracecheck-{os.getpid()}.partial"


def _finite(number: float | None) -> float | None:
    return number if number is None or math.isfinite(number) else None
