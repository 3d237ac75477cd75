"""Each rule's reliability over repeated runs of the same tasks, from verdict rows."""

from __future__ import annotations

from typing import Any

import pytest

from tracecheck.fleet.reliability import Example, reliability


def _row(task: str, run: int, rule: str, status: str, **more: Any) -> dict[str, Any]:
    return {
        "source": f"runs/{task}/run-{run}.otlp.jsonl",
        "trace_id": f"{task}-{run}",
        "contract": "payments",
        "rule": rule,
        "status": status,
        "first_violating_span": more.get("span"),
        "detail": more.get("detail"),
    }


def _suite() -> list[dict[str, Any]]:
    """Two tasks of four runs: `ok` always passes, `shell` fails once on task b, `budget`
    always fails on task a and passes on b, `order` could not be evaluated on one run."""
    rows = []
    for task in ("a", "b"):
        for run in range(4):
            rows.append(_row(task, run, "ok", "pass"))
            failed = task == "b" and run == 2
            rows.append(
                _row(task, run, "shell", "fail" if failed else "pass", span="5", detail="ran sh")
            )
            rows.append(_row(task, run, "budget", "fail" if task == "a" else "pass"))
            rows.append(_row(task, run, "order", "error" if (task, run) == ("a", 0) else "pass"))
    rows.append({"source": "runs/c/broken.jsonl", "rule": None, "status": "error"})
    return rows


def test_each_rule_is_judged_over_its_tasks() -> None:
    found = {r.rule: r for r in reliability(_suite())}
    assert list(found) == ["ok", "shell", "budget", "order"]
    ok, shell, budget, order = found.values()
    assert (ok.tasks, ok.runs, ok.passes, ok.stability, ok.pass_hat_k) == (
        2,
        8,
        8,
        "stable pass",
        1,
    )
    assert ok.example is None and ok.interval[1] == 1.0
    assert (shell.passes, shell.stability, shell.flaky_tasks) == (7, "flaky", 1)
    # pass^4: task a 1, task b C(3,4)/C(4,4) = 0; averaged over the tasks.
    assert shell.k == 4 and shell.pass_hat_k == pytest.approx(0.5)
    assert shell.example == Example("runs/b/run-2.otlp.jsonl", "b-2", "5", "ran sh")
    assert (budget.stability, budget.flaky_tasks, budget.rate) == ("stable fail", 0, 0.5)
    assert order.stability == "flaky" and order.passes == 7  # could not evaluate: not a pass


def test_pass_hat_k_of_fewer_runs_and_tasks_too_short_for_k() -> None:
    shell = next(r for r in reliability(_suite(), k=2) if r.rule == "shell")
    # task b: C(3,2)/C(4,2) = 1/2; task a: 1.
    assert (shell.k, shell.pass_hat_k) == (2, pytest.approx(0.75))
    too_many = next(r for r in reliability(_suite(), k=5) if r.rule == "shell")
    assert too_many.pass_hat_k is None


def test_runs_grouped_by_file_are_tasks_of_one_run() -> None:
    shell = next(r for r in reliability(_suite(), group_by="file") if r.rule == "shell")
    assert (shell.tasks, shell.k, shell.stability) == (8, 1, "stable fail")
    assert shell.pass_hat_k == pytest.approx(7 / 8)
