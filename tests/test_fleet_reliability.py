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
        "verdict": status,
        "violations": int(status == "fail"),
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
    rows.append({"source": "runs/c/broken.jsonl", "rule": None, "status": "error", "violations": 0})
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


def test_fleet_summarize_says_how_reliable_each_rule_is(tmp_path: Any) -> None:
    import io
    import json

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from tracecheck.cli import Environment, main
    from tracecheck.fleet.verdicts import COLUMNS, verdict_schema

    rows = [{name: row.get(name) for name, _, _ in COLUMNS} for row in _suite()]
    verdicts, report = tmp_path / "v.parquet", tmp_path / "summary.json"
    pq.write_table(pa.Table.from_pylist(rows, verdict_schema()), verdicts)
    stdout = io.StringIO()
    env = Environment(io.StringIO(), stdout, io.StringIO(), {})
    argv = ["fleet", "summarize", str(verdicts), "--reliability", "--json", str(report)]
    main(argv, env=env)
    lines = stdout.getvalue().splitlines()
    start = lines.index("reliability over repeated runs (tasks by directory; pass^k of k=4 runs):")
    assert lines[start + 1] == (
        "  payments / shell: flaky — 7/8 runs passed (87.5%, 95% CI 52.9%–97.8%, few runs (8)), "
        "pass^4 0.50, flaky on 1 of 2 tasks; e.g. runs/b/run-2.otlp.jsonl span 5: ran sh"
    )
    assert [line.split(":")[0] for line in lines[start + 1 : start + 5]] == [
        "  payments / shell",
        "  payments / order",
        "  payments / budget",
        "  payments / ok",
    ]
    written = json.loads(report.read_text())["reliability"]
    assert (written["tasks_by"], written["runs_without_task"]) == ("directory", 0)
    assert written["rules"][0] == {
        "contract": "payments",
        "rule": "ok",
        "tasks": 2,
        "runs": 8,
        "passes": 8,
        "pass_rate": 1.0,
        "interval_95": [pytest.approx(0.675592, abs=1e-6), 1.0],
        "k": 4,
        "pass_hat_k": 1.0,
        "stability": "stable pass",
        "flaky_tasks": 0,
        "example": None,
    }
    assert "reliability" not in stdout.getvalue().split("reliability over")[0]  # asked only


def test_fleet_check_says_it_too_without_keeping_its_verdicts(tmp_path: Any) -> None:
    import io
    import shutil
    from pathlib import Path

    pytest.importorskip("pyarrow")
    from tracecheck.cli import Environment, main

    fixtures = Path(__file__).resolve().parent.parent / "fixtures" / "otel-genai"
    for task in ("task-a", "task-b"):
        (tmp_path / task).mkdir()
        for name in ("clean.otlp.jsonl", "forbidden.otlp.jsonl"):
            shutil.copyfile(fixtures / name, tmp_path / task / name)
    stdout = io.StringIO()
    env = Environment(io.StringIO(), stdout, io.StringIO(), {})
    contract = str(fixtures.parent.parent / "contracts" / "refund-desk.json")
    tasks = [str(tmp_path / "task-a"), str(tmp_path / "task-b")]  # the runs of two tasks
    argv = ["fleet", "check", *tasks, "--contract", contract, "-j", "1", "-q"]
    main([*argv, "--reliability"], env=env)
    assert (
        "  refund-desk / tools.forbidden[run_shell]: flaky — 2/4 runs passed" in stdout.getvalue()
    )


def test_an_example_from_a_shared_verdict_file_quotes_no_credential() -> None:
    import base64
    import hashlib

    # A fake key built here, random-looking as a real one is: no scanner trips on this file.
    body = base64.urlsafe_b64encode(hashlib.sha256(b"tracecheck-test").digest()).decode()
    secret = "sk-proj-" + body.rstrip("=")
    rows = [_row("a", 0, "shell", "fail", span="5", detail=f"ran curl -H {secret}")]
    (item,) = reliability(rows)
    assert item.example is not None and item.example.detail is not None
    assert secret not in item.example.detail and item.example.detail.startswith("ran curl -H ")


def _task_runs(tmp_path: Any) -> tuple[Any, str]:
    """Seven runs in one folder: task-a's three (one calls the forbidden tool), task-b's
    three (none does), and one whose resource does not say its task."""
    import json
    from pathlib import Path

    fixtures = Path(__file__).resolve().parent.parent / "fixtures"
    runs = tmp_path / "runs"
    runs.mkdir()
    plan = [("task-a", "clean"), ("task-a", "forbidden"), ("task-a", "clean")]
    plan += [("task-b", "clean")] * 3 + [(None, "forbidden")]
    for number, (task, name) in enumerate(plan):
        text = (fixtures / "otel-genai" / f"{name}.otlp.jsonl").read_text()
        lines = []
        for line in text.splitlines():
            batch = json.loads(line)
            for resource in batch["resourceSpans"]:
                for scope in resource["scopeSpans"]:
                    for span in scope["spans"]:  # a run of its own, not one read in parts
                        span["traceId"] = f"{number + 1:032x}"
                if task is not None:
                    resource["resource"]["attributes"].append(
                        {"key": "agent.task.id", "value": {"stringValue": task}}
                    )
            lines.append(json.dumps(batch))
        (runs / f"run-{number}.otlp.jsonl").write_text("\n".join(lines) + "\n")
    return runs, str(fixtures.parent / "contracts" / "refund-desk.json")


TASK_KEY = 'resource.attributes["agent.task.id"]'


def test_fleet_check_groups_runs_into_tasks_by_a_resource_attribute(tmp_path: Any) -> None:
    import io
    import json

    pq = pytest.importorskip("pyarrow.parquet")
    from tracecheck.cli import Environment, main

    runs, contract = _task_runs(tmp_path)
    verdicts, report = tmp_path / "v.parquet", tmp_path / "r.json"
    stdout = io.StringIO()
    env = Environment(io.StringIO(), stdout, io.StringIO(), {})
    argv = ["fleet", "check", str(runs), "--contract", contract, "-j", "1", "-q"]
    argv += ["-o", str(verdicts), "--reliability", "--group-by", TASK_KEY, "--json", str(report)]
    main(argv, env=env)
    table = pq.read_table(verdicts)
    assert table.schema.metadata[b"tracecheck.task_key"] == TASK_KEY.encode()
    by_source = dict(zip(table["source"].to_pylist(), table["task"].to_pylist(), strict=True))
    assert [by_source[str(runs / f"run-{n}.otlp.jsonl")] for n in range(7)] == [
        *["task-a"] * 3,
        *["task-b"] * 3,
        None,
    ]
    text = stdout.getvalue()
    assert f"reliability over repeated runs (tasks by {TASK_KEY}; pass^k of k=1 runs):" in text
    assert f"  1 run(s) have no {TASK_KEY}: each counts as a task of its own" in text
    # Forbidden on one run of task-a and on the run of no task: flaky on task-a alone.
    assert (
        "  refund-desk / tools.forbidden[run_shell]: flaky — 5/7 runs passed (71.4%, 95% CI "
        in text
    )
    assert "flaky on 1 of 3 tasks" in text
    written = json.loads(report.read_text())["reliability"]
    assert (written["tasks_by"], written["runs_without_task"]) == (TASK_KEY, 1)


def test_fleet_summarize_groups_by_the_attribute_the_verdicts_recorded(tmp_path: Any) -> None:
    import io

    pytest.importorskip("pyarrow")
    from tracecheck.cli import Environment, main

    runs, contract = _task_runs(tmp_path)
    verdicts = tmp_path / "v.parquet"
    check = ["fleet", "check", str(runs), "--contract", contract, "-j", "1", "-q"]
    main(
        [*check, "-o", str(verdicts), "--group-by", TASK_KEY],
        env=Environment(io.StringIO(), io.StringIO(), io.StringIO(), {}),
    )

    def summarize(*more: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        env = Environment(io.StringIO(), out, err, {})
        code = main(["fleet", "summarize", str(verdicts), "--reliability", *more], env=env)
        return code, out.getvalue(), err.getvalue()

    for spelling in ("task", TASK_KEY, "resource.attributes['agent.task.id']"):
        code, out, _ = summarize("--group-by", spelling, "-k", "3")
        assert code == 1 and "flaky on 1 of 3 tasks" in out
        assert f"(tasks by {TASK_KEY}; pass^k of k=3 runs)" in out
    code, out, err = summarize("--group-by", 'span.attributes["agent.task.id"]')
    assert code == 2 and out == ""
    assert f"records its runs' tasks by {TASK_KEY}, not by span.attributes" in err
    code, out, _ = summarize()  # by directory: the seven runs are one task
    assert "flaky on 1 of 1 tasks" in out


def test_group_by_task_needs_verdicts_that_recorded_one(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    pytest.importorskip("pyarrow")
    from tracecheck.cli import Environment, main

    runs, contract = _task_runs(tmp_path)
    verdicts = tmp_path / "v.parquet"
    check = ["fleet", "check", str(runs), "--contract", contract, "-j", "1", "-q"]
    main(
        [*check, "-o", str(verdicts)],
        env=Environment(io.StringIO(), io.StringIO(), io.StringIO(), {}),
    )
    err = io.StringIO()
    env = Environment(io.StringIO(), io.StringIO(), err, {})
    argv = ["fleet", "summarize", str(verdicts), "--reliability", "--group-by", "task"]
    assert main(argv, env=env) == 2
    assert (
        "records no task of its runs, so --group-by task has nothing to group by" in err.getvalue()
    )
    err = io.StringIO()
    env = Environment(io.StringIO(), io.StringIO(), err, {})
    assert main([*check, "--group-by", "task"], env=env) == 2
    assert "name the attribute to record" in err.getvalue()
    assert main([*check, "--group-by", "resource.agent"], env=env) == 2
    assert "'resource.agent' is not directory, file, task or an attribute path (" in (
        capsys.readouterr().err  # argparse's own message
    )


def test_reliability_is_written_as_parquet_and_drawn_on_the_page(tmp_path: Any) -> None:
    import io

    pq = pytest.importorskip("pyarrow.parquet")
    pytest.importorskip("matplotlib")
    from tracecheck.cli import Environment, main

    runs, contract = _task_runs(tmp_path)
    verdicts, out, page = tmp_path / "v.parquet", tmp_path / "r.parquet", tmp_path / "p.html"
    check = ["fleet", "check", str(runs), "--contract", contract, "-j", "1", "-q"]
    env = Environment(io.StringIO(), io.StringIO(), io.StringIO(), {})
    main([*check, "-o", str(verdicts), "--group-by", TASK_KEY], env=env)
    argv = ["fleet", "summarize", str(verdicts), "--group-by", "task"]
    argv += ["--reliability-parquet", str(out), "--html", str(page)]
    main(argv, env=env)
    rows = {row["rule"]: row for row in pq.read_table(out).to_pylist()}
    forbidden = rows["tools.forbidden[run_shell]"]
    assert {k: forbidden[k] for k in ("tasks_by", "tasks", "runs", "passes", "stability")} == {
        "tasks_by": TASK_KEY,
        "tasks": 3,
        "runs": 7,
        "passes": 5,
        "stability": "flaky",
    }
    assert forbidden["example_source"] == str(runs / "run-1.otlp.jsonl")
    assert forbidden["interval_low"] < 5 / 7 < forbidden["interval_high"]
    assert [p.name for p in tmp_path.iterdir() if "partial" in p.name] == []
    html = page.read_text()
    assert "Reliability over repeated runs" in html and "tools.forbidden[run_shell]" in html


def test_reliability_parquet_that_cannot_be_written_is_said(tmp_path: Any) -> None:
    import io

    pytest.importorskip("pyarrow")
    from tracecheck.cli import Environment, main

    runs, contract = _task_runs(tmp_path)
    err = io.StringIO()
    env = Environment(io.StringIO(), io.StringIO(), err, {})
    target = tmp_path / "missing" / "r.parquet"
    argv = ["fleet", "check", str(runs), "--contract", contract, "-j", "1", "-q"]
    assert main([*argv, "--reliability-parquet", str(target)], env=env) == 2
    assert f"{target}: cannot write" in err.getvalue()
