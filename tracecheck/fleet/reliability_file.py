"""Each rule's reliability over repeated runs as a Parquet file, one row per contract and rule,
for the same notebooks and queries as the verdicts (`fleet summarize --reliability-parquet`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from tracecheck.fleet.reliability import RuleReliability

if TYPE_CHECKING:
    import pyarrow

__all__ = ["RELIABILITY_COLUMNS", "reliability_table", "write_reliability"]

# (name, pyarrow type name, what it holds), in order (docs/fleet.md).
RELIABILITY_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("contract", "string", "the contract's name"),
    ("rule", "string", "the rule's label"),
    ("tasks_by", "string", "how runs were grouped into tasks: directory, file or an attribute"),
    ("tasks", "int32", "how many tasks had runs of the rule"),
    ("runs", "int32", "how many runs the rule was evaluated on (skipped runs left out)"),
    ("passes", "int32", "how many of them it passed (could not be evaluated is not a pass)"),
    ("pass_rate", "float64", "passes / runs"),
    ("interval_low", "float64", "the pass rate's 95% Wilson interval, lower end"),
    ("interval_high", "float64", "the pass rate's 95% Wilson interval, upper end"),
    ("k", "int32", "how many runs pass^k is of"),
    ("pass_hat_k", "float64", "pass^k averaged over the tasks of k runs or more; null: none"),
    ("stability", "string", "stable pass, stable fail or flaky"),
    ("flaky_tasks", "int32", "how many tasks the rule is flaky on"),
    ("example_source", "string", "a failing run's file, when one failed"),
    ("example_trace_id", "string", "its trace id"),
    ("example_span_id", "string", "the rule's first violating span on it"),
    ("example_detail", "string", "the rule's first violation on it, without credentials"),
)


def reliability_table(items: Sequence[RuleReliability], tasks_by: str) -> pyarrow.Table:
    import pyarrow as pa

    schema = pa.schema([(name, getattr(pa, kind)()) for name, kind, _ in RELIABILITY_COLUMNS])
    return pa.Table.from_pylist([_row(item, tasks_by) for item in items], schema)


def write_reliability(
    path: str | os.PathLike[str],
    items: Sequence[RuleReliability],
    tasks_by: str,
    storage_options: dict[str, Any] | None = None,
) -> None:
    """`items` written to the Parquet file `path` (a local path or an fsspec URL), under a
    name of its own until the file is whole. Raises OSError when it cannot be written."""
    import fsspec
    import pyarrow.parquet as pq

    from tracecheck.fleet.verdicts import partial_name

    fs, target = fsspec.core.url_to_fs(os.fspath(path), **(storage_options or {}))
    partial = partial_name(target)
    try:
        with fs.open(partial, "wb") as file:
            pq.write_table(reliability_table(items, tasks_by), file, compression="zstd")
    except BaseException:
        if fs.exists(partial):
            fs.rm(partial)
        raise
    fs.mv(partial, target)


def _row(item: RuleReliability, tasks_by: str) -> dict[str, Any]:
    fields = asdict(item)  # the example too, as a dict (or None)
    low, high = fields.pop("interval")
    example = fields.pop("example") or {}
    return {
        **fields,
        "tasks_by": tasks_by,
        "pass_rate": item.rate,
        "interval_low": low,
        "interval_high": high,
        **{
            f"example_{name}": example.get(name)
            for name in ("source", "trace_id", "span_id", "detail")
        },
    }
