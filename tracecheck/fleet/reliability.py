"""How reliable each rule is over repeated runs of the same tasks, from a fleet's verdict rows.

Runs are grouped into tasks (the runs of a directory, of a file, or with the same value of the
attribute `fleet check --group-by` recorded in the `task` column), each task with its k runs. Per contract and rule: how many runs passed of how many, the pass rate with its Wilson
interval, pass^k averaged over the tasks (τ-bench's reliability: the chance that k runs of a
task all pass), whether the rule is a stable pass, a stable fail or flaky, and one failing run's
own violation as the example. A rule that could not be evaluated on a run did not pass it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from tracecheck.pass_rates import Stability, pass_hat_k, stability, wilson_interval
from tracecheck.unquoted import without_credentials

if TYPE_CHECKING:
    import pyarrow

__all__ = ["Example", "RuleReliability", "TaskGrouping", "reliability", "runs_without_task"]

TaskGrouping = Literal["directory", "file", "task"]


@dataclass(frozen=True, slots=True)
class Example:
    """One failing run of a rule: where it was read, its trace, and the rule's own words."""

    source: str
    trace_id: str | None
    span_id: str | None
    detail: str | None


@dataclass(frozen=True, slots=True)
class RuleReliability:
    contract: str
    rule: str
    tasks: int
    runs: int
    passes: int
    interval: tuple[float, float]  # the pass rate's 95% Wilson interval
    k: int  # pass^k is of this many runs (by default the fewest any task has)
    pass_hat_k: float | None  # averaged over the tasks of k runs or more (None: there is none)
    stability: Stability
    flaky_tasks: int
    example: Example | None  # a failing run, when one failed

    @property
    def rate(self) -> float:
        return self.passes / self.runs if self.runs else 0.0


def reliability(
    verdicts: pyarrow.Table | Iterable[Mapping[str, Any]],
    group_by: TaskGrouping = "directory",
    k: int | None = None,
) -> list[RuleReliability]:
    """Each rule's reliability over the runs of `verdicts` (as `read_verdicts` gives them, or
    as rows of its columns), grouped into tasks by `group_by`, in first-seen order. pass^k is
    of `k` runs (default: the fewest runs any task has; a task with fewer runs is left out of
    it). A rule is flaky when it is on some task, a stable pass when it passed every run, and
    otherwise a stable fail (it fails every run of some task).

    Passes are counted per rule and task by Arrow's group-by: Python sees a row per rule and
    task, not per run (bench/README.md, "Reliability over repeated runs")."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = _judged_rows(verdicts)
    passed = pc.equal(table["status"], "pass")
    counted = pa.table(
        {
            "contract": table["contract"],
            "rule": table["rule"],
            "task": _task(table, group_by),
            "passed": passed.cast(pa.int64()),
            "index": pa.array(range(table.num_rows), pa.int64()),
        }
    )
    per_task = (
        counted.group_by(["contract", "rule", "task"], use_threads=False)
        .aggregate([("passed", "sum"), ("passed", "count"), ("index", "min")])
        .sort_by("index_min")
        .to_pydict()
    )
    tasks: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for contract, rule, passes, runs in zip(
        per_task["contract"],
        per_task["rule"],
        per_task["passed_sum"],
        per_task["passed_count"],
        strict=True,
    ):
        tasks.setdefault((contract, rule), []).append((passes, runs))
    examples = _examples(table, counted.filter(pc.invert(passed)))
    return [_judged(key, counts, examples.get(key), k) for key, counts in tasks.items()]


def runs_without_task(verdicts: pyarrow.Table | Iterable[Mapping[str, Any]]) -> int:
    """How many runs of `verdicts` have no task (their spans lack the attribute `--group-by`
    named): `reliability` counts each as a task of its own."""
    import pyarrow.compute as pc

    table = _judged_rows(verdicts)
    untasked = table.filter(pc.is_null(table["task"]))
    return int(untasked.group_by(["source", "trace_id"]).aggregate([]).num_rows)


def _judged_rows(verdicts: pyarrow.Table | Iterable[Mapping[str, Any]]) -> pyarrow.Table:
    """The rows of rules judged on a run: not those of an input not read, nor an
    alternative's rule that was not needed (skipped)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from tracecheck.fleet.verdicts import COLUMNS, verdict_schema

    if not isinstance(verdicts, pa.Table):
        names = [name for name, _, _ in COLUMNS]
        rows = [{name: row.get(name) for name in names} for row in verdicts]
        verdicts = pa.Table.from_pylist(rows, verdict_schema())
    judged = pc.and_(pc.is_valid(verdicts["rule"]), pc.not_equal(verdicts["status"], "skipped"))
    return verdicts.filter(judged)


def _task(table: pyarrow.Table, group_by: TaskGrouping) -> pyarrow.ChunkedArray:
    """Each row's task, as a value that only the rows of one task share."""
    import pyarrow.compute as pc

    source = table["source"]
    if group_by == "file":
        return source
    if group_by == "directory":
        # A URL's folder too (`s3://runs/task-7/run-1.jsonl`): cut as text, not as a path.
        return pc.replace_substring_regex(source, pattern="[^/]*$", replacement="")
    # A run that does not say its task is not taken for a run of some other task: its own is
    # a value no attribute holds (a NUL cannot start an attribute read from a trace).
    own = pc.binary_join_element_wise("\0", source, pc.fill_null(table["trace_id"], ""), "\0")
    return pc.if_else(pc.is_valid(table["task"]), table["task"], own)


def _examples(table: pyarrow.Table, failed: pyarrow.Table) -> dict[tuple[str, str], Example]:
    """Each rule's first failing run, in the rule's own words."""
    first = failed.group_by(["contract", "rule"], use_threads=False).aggregate([("index", "min")])
    picked = table.take(first["index_min"]).to_pylist()
    examples = {}
    for row in picked:
        # Verdict files are shared: a detail from one written elsewhere quotes no secret.
        detail = row["detail"] and without_credentials(row["detail"])
        examples[row["contract"], row["rule"]] = Example(
            row["source"], row["trace_id"], row["first_violating_span"], detail
        )
    return examples


def _judged(
    key: tuple[str, str],
    tasks: Sequence[tuple[int, int]],
    example: Example | None,
    k: int | None,
) -> RuleReliability:
    """One rule's reliability from each task's (passes, runs)."""
    passes = sum(c for c, _ in tasks)
    total = sum(n for _, n in tasks)
    draw = k if k is not None else min(n for _, n in tasks)
    # Tasks of the same counts are many in a large fleet: each ratio is worked out once.
    hats = [_pass_hat_k(c, n, draw) for c, n in tasks if n >= draw]
    hat = float(sum(hats, Fraction(0)) / len(hats)) if hats else None
    kinds = [stability(c, n) for c, n in tasks]
    overall: Stability = "stable pass" if set(kinds) == {"stable pass"} else "stable fail"
    if "flaky" in kinds:
        overall = "flaky"
    return RuleReliability(
        key[0],
        key[1],
        len(tasks),
        total,
        passes,
        wilson_interval(passes, total),
        draw,
        hat,
        overall,
        kinds.count("flaky"),
        example,
    )


_pass_hat_k = lru_cache(maxsize=4096)(pass_hat_k)
