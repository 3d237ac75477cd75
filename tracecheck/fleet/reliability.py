"""How reliable each rule is over repeated runs of the same tasks, from a fleet's verdict rows.

Runs are grouped into tasks (the runs of a directory, of a file, or with the same value of the
attribute `fleet check --group-by` recorded in the `task` column), each task with its k runs. Per contract and rule: how many runs passed of how many, the pass rate with its Wilson
interval, pass^k averaged over the tasks (τ-bench's reliability: the chance that k runs of a
task all pass), whether the rule is a stable pass, a stable fail or flaky, and one failing run's
own violation as the example. A rule that could not be evaluated on a run did not pass it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from tracecheck.fleet.statistics import Stability, pass_hat_k, stability, wilson_interval
from tracecheck.unquoted import without_credentials

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
    rows: Iterable[Mapping[str, Any]], group_by: TaskGrouping = "directory", k: int | None = None
) -> list[RuleReliability]:
    """Each rule's reliability over the runs of `rows` (verdict rows as `read_verdicts` gives
    them, `to_pylist()`), grouped into tasks by `group_by`, in first-seen order. pass^k is of
    `k` runs (default: the fewest runs any task has; a task with fewer runs is left out of it).
    A rule is flaky when it is on some task, a stable pass when it passed every run, and
    otherwise a stable fail (it fails every run of some task)."""
    runs: dict[tuple[str, str], dict[object, list[bool]]] = defaultdict(lambda: defaultdict(list))
    examples: dict[tuple[str, str], Example] = {}
    for row in rows:
        if row.get("rule") is None or row.get("status") == "skipped":
            continue  # an input not read, or an alternative's rule not needed
        key = (row["contract"], row["rule"])
        task = _task(row, group_by)
        passed = row["status"] == "pass"
        runs[key][task].append(passed)
        if not passed and key not in examples:
            # Verdict files are shared: a detail from one written elsewhere quotes no secret.
            detail = row["detail"] and without_credentials(row["detail"])
            examples[key] = Example(
                row["source"], row["trace_id"], row["first_violating_span"], detail
            )
    return [_judged(key, tasks, examples.get(key), k) for key, tasks in runs.items()]


def runs_without_task(rows: Iterable[Mapping[str, Any]]) -> int:
    """How many runs of `rows` have no task (their spans lack the attribute `--group-by`
    named): `reliability` counts each as a task of its own."""
    return len(
        {(r["source"], r["trace_id"]) for r in rows if r["trace_id"] and r.get("task") is None}
    )


def _task(row: Mapping[str, Any], group_by: TaskGrouping) -> object:
    if group_by == "task":
        # A run that does not say its task is not taken for a run of some other task.
        task = row.get("task")
        return task if task is not None else (None, row["source"], row["trace_id"])
    # A URL's folder too (`s3://runs/task-7/run-1.jsonl`): split as text, not as a path.
    return row["source"] if group_by == "file" else row["source"].rpartition("/")[0]


def _judged(
    key: tuple[str, str], tasks: Mapping[object, list[bool]], example: Example | None, k: int | None
) -> RuleReliability:
    passes = sum(sum(outcomes) for outcomes in tasks.values())
    total = sum(len(outcomes) for outcomes in tasks.values())
    draw = k if k is not None else min(len(outcomes) for outcomes in tasks.values())
    drawn = [o for o in tasks.values() if len(o) >= draw]
    hats = [pass_hat_k(sum(o), len(o), draw) for o in drawn]
    hat = float(sum(hats, Fraction(0)) / len(hats)) if hats else None
    kinds = [stability(sum(o), len(o)) for o in tasks.values()]
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
