"""Fleet checking: many inputs on Dask (a real scheduler and two workers as processes on
127.0.0.1, and local worker processes), verdicts as Parquet rows equal to one-process `check`
row for row, inputs in S3 (a local moto server), traces spread over files, workers that die,
summaries and their comparison."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed", reason="the fleet extra is not installed")
pq = pytest.importorskip("pyarrow.parquet", reason="the fleet extra is not installed")

from fleet_support import (  # noqa: E402
    CONTRACT,
    DOOMED,
    dask_cluster,
    generated_fleet,
    otlp_line,
    rows_of_check_report,
    rows_of_parquet,
    run_spans,
)

from tracecheck.cli import Environment, ExitCode, main  # noqa: E402
from tracecheck.contract import compile_contract  # noqa: E402
from tracecheck.fleet import check_many, compare, read_verdicts, summarize, write_verdicts  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _main(argv: list[str]) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    env = Environment(io.TextIOWrapper(io.BytesIO()), stdout, stderr, {})
    code = main(argv, env=env)
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture
def fleet(tmp_path: Path) -> tuple[Path, Path]:
    """A directory of 24 generated runs, a README and a broken file; and the contract."""
    runs = tmp_path / "runs"
    generated_fleet(runs, 24)
    (runs / "README.md").write_text("# runs of the nightly suite\n")
    (runs / "run-9999.otlp.jsonl").write_text('{"resourceSpans": [{"scopeSpans": 5}]}\n')
    contract = tmp_path / "payments.json"
    contract.write_text(CONTRACT)
    return runs, contract


def _check_rows(tmp_path: Path, inputs: list[str], contract: Path) -> tuple[int, list[Any]]:
    report = tmp_path / "check.json"
    code, _, _ = _main(["check", *inputs, "--contract", str(contract), "--json", str(report), "-q"])
    return code, rows_of_check_report(json.loads(report.read_text()))


def test_verdicts_on_a_real_scheduler_and_two_workers_equal_one_process_check(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    runs, contract = fleet
    expected_code, expected = _check_rows(tmp_path, [str(runs)], contract)
    verdicts = tmp_path / "verdicts.parquet"
    with dask_cluster(tmp_path) as address:
        code, out, err = _main(
            ["fleet", "check", str(runs), "--contract", str(contract), "--scheduler", address,
             "-o", str(verdicts)]
        )  # fmt: skip
    assert rows_of_parquet(verdicts) == expected
    assert code == expected_code == ExitCode.UNREADABLE  # the broken file; failing runs too
    assert "run-9999.otlp.jsonl" in err
    table = pq.read_table(verdicts)
    unread = [row for row in table.to_pylist() if row["failure"] is not None]
    assert [(r["source"], r["status"], r["failure"]) for r in unread] == [
        (str(runs / "run-9999.otlp.jsonl"), "error", "unreadable")
    ]
    assert "tools.maxCallsPerTool[issue_refund]" in out and "worst traces:" in out


def test_check_on_a_scheduler_reports_as_one_process(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    runs, contract = fleet
    one = tmp_path / "one.json"
    many = tmp_path / "many.json"
    code_one, out_one, err_one = _main(
        ["check", str(runs), "--contract", str(contract), "--json", str(one)]
    )
    with dask_cluster(tmp_path) as address:
        code, out, err = _main(
            [
                "check",
                str(runs),
                "--contract",
                str(contract),
                "--json",
                str(many),
                "--scheduler",
                address,
            ]
        )
    assert (code, out, err) == (code_one, out_one, err_one)
    assert json.loads(many.read_text()) == json.loads(one.read_text())


def test_relative_inputs_are_the_callers_on_workers_elsewhere(
    tmp_path: Path, fleet: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers that start in another working directory read the files the caller named with
    relative paths and a quoted glob, and the reports spell them as the caller did."""
    runs, contract = fleet
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(runs.parent)
    inputs = [runs.name, f"{runs.name}/run-000*.otlp.jsonl", f"./{runs.name}/run-0011.otlp.jsonl"]
    argv = ["check", *inputs, "--contract", str(contract), "--json"]
    here = _main([*argv, "here.json"])
    with dask_cluster(tmp_path, cwd=elsewhere) as address:
        there = _main([*argv, "there.json", "--scheduler", address])
        target = tmp_path / "fleet.parquet"
        fleet_code, _, _ = _main(
            ["fleet", "check", *inputs, "--contract", str(contract), "--scheduler", address,
             "-o", str(target)]
        )  # fmt: skip
    report = (runs.parent / "here.json").read_text()
    assert there == here and (runs.parent / "there.json").read_text() == report
    assert '"source": "runs/run-0003.otlp.jsonl"' in report
    assert "no such file" not in here[2]
    rows = rows_of_check_report(json.loads(report))
    assert fleet_code == here[0] and rows_of_parquet(target) == rows


def test_local_worker_processes_give_the_rows_of_one_process(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    runs, contract = fleet
    _, expected = _check_rows(tmp_path, [str(runs)], contract)
    verdicts = tmp_path / "v.parquet"
    code, _, _ = _main(
        ["fleet", "check", str(runs), "--contract", str(contract), "-j", "2", "-o", str(verdicts)]
    )
    assert code == ExitCode.UNREADABLE
    assert rows_of_parquet(verdicts) == expected


def test_inputs_in_s3_are_checked_as_local_files(tmp_path: Path, fleet: tuple[Path, Path]) -> None:
    moto_server = pytest.importorskip("moto.server", reason="moto is not installed")
    s3fs = pytest.importorskip("s3fs", reason="s3fs is not installed")
    runs, contract = fleet
    _, expected = _check_rows(tmp_path, [str(runs)], contract)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    try:
        host, port = server.get_host_and_port()
        options = {"endpoint_url": f"http://{host}:{port}", "key": "testing", "secret": "testing"}
        fs = s3fs.S3FileSystem(**options)
        fs.mkdir("nightly")
        fs.put(str(runs) + "/", "nightly/runs/", recursive=True)
        flags = [f"--storage-option={k}={v}" for k, v in options.items()]
        verdicts = tmp_path / "s3.parquet"
        with dask_cluster(tmp_path) as address:
            code, _, err = _main(
                ["fleet", "check", "s3://nightly/runs/", "--contract", str(contract),
                 "--scheduler", address, "-o", str(verdicts), *flags]
            )  # fmt: skip
        check_json = tmp_path / "s3-check.json"
        check_code, _, _ = _main(
            [
                "check",
                "s3://nightly/runs",
                "--contract",
                str(contract),
                "--json",
                str(check_json),
                *flags,
            ]
        )
    finally:
        server.stop()
    local = str(runs)
    as_local = [
        (row[0].replace("s3://nightly/runs", local), *row[1:]) for row in rows_of_parquet(verdicts)
    ]
    assert as_local == expected
    assert code == check_code == ExitCode.UNREADABLE
    assert "s3://nightly/runs/run-9999.otlp.jsonl" in err and "tracecheck-fleet-" not in err
    via_check = rows_of_check_report(json.loads(check_json.read_text()))
    assert [(row[0].replace("s3://nightly/runs", local), *row[1:]) for row in via_check] == expected


def test_a_trace_spread_over_files_is_judged_whole(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    """Two refunds of one run, saved in two files: each file alone holds one refund and would
    pass `maxCallsPerTool[issue_refund]: 1`; the fleet reads them together and fails it."""
    _, contract = fleet
    runs = tmp_path / "spread"
    runs.mkdir()
    trace_id = "ab" * 16
    spans = run_spans(trace_id, ["lookup_order", "issue_refund", "issue_refund"])
    (runs / "a.otlp.jsonl").write_text(otlp_line(spans[:4]) + "\n")
    (runs / "b.otlp.jsonl").write_text(otlp_line(spans[4:]) + "\n")
    outcomes = list(check_many([str(runs)], [str(contract)]))
    verdicts = [checked.verdict for outcome in outcomes for checked in outcome.checked()]
    assert len(verdicts) == 1 and verdicts[0].trace_id == trace_id
    statuses = {rule.label: rule.status for rule in verdicts[0].rules}
    assert statuses["tools.maxCallsPerTool[issue_refund]"] == "fail"
    _, expected = _check_rows(tmp_path, [str(runs)], contract)
    target = tmp_path / "spread.parquet"
    code, _, _ = _main(
        ["fleet", "check", str(runs), "--contract", str(contract), "-j", "1", "-o", str(target)]
    )
    assert code == ExitCode.FAILED and rows_of_parquet(target) == expected


def test_a_worker_that_dies_fails_its_input_and_the_rest_go_on(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    from distributed import Client
    from fleet_support import dying_check

    from tracecheck.contract import compile_contract
    from tracecheck.run.engine import outcomes
    from tracecheck.run.executors import runner
    from tracecheck.run.plan import plan
    from tracecheck.run.task import Work

    runs, contract = fleet
    (runs / "run-0005.otlp.jsonl").write_text(otlp_line(run_spans(DOOMED, ["lookup_order"])) + "\n")
    work = Work((compile_contract(str(contract)),), check=dying_check)
    # No task retried by Dask: a batch lost with its worker is retried unit by unit by the
    # fleet itself, so only the unit that kills its worker fails.
    allowed = {"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"}
    with (
        dask_cluster(tmp_path, environ=allowed) as address,
        Client(address) as client,
        runner(work, executor=client) as run,
    ):
        (outcome,) = outcomes(run, work, plan([str(runs)], workers=2))
    failed = [f for f in outcome.failures if "run-0005" in f.source]
    assert len(failed) == 1
    assert failed[0].message.endswith("could not be checked: internal error: KilledWorker")
    checked = {trace.trace_id for trace in outcome.traces}
    assert DOOMED not in checked and len(checked) == 24 - 1 + 3  # four files hold two runs


def _lost_mid_run(
    tmp_path: Path, fleet: tuple[Path, Path], lost: Callable[[list[Any]], None]
) -> tuple[list[int], str, str]:
    """`fleet check` on a real cluster, `lost` done to the cluster's processes (the scheduler
    first) once a worker has begun checking: the exit codes the command ended with (none
    when it hangs), what it printed on stderr, and the scheduler's address."""
    import subprocess
    import threading

    from fleet_support import slow_check

    runs, contract = fleet
    target, begun = tmp_path / "verdicts.parquet", tmp_path / "begun"
    cluster: list[subprocess.Popen[bytes]] = []
    stderr = io.StringIO()
    env = Environment(io.TextIOWrapper(io.BytesIO()), io.StringIO(), stderr, {}, check=slow_check)
    ended: list[int] = []
    environ = {"TRACECHECK_TEST_STARTED": str(begun)}
    with dask_cluster(tmp_path, environ=environ, started=cluster) as address:
        argv = ["fleet", "check", str(runs), "--contract", str(contract), "-o", str(target)]
        command = threading.Thread(
            target=lambda: ended.append(main([*argv, "--scheduler", address], env=env)),
            daemon=True,
        )
        command.start()
        while not begun.exists() and command.is_alive():  # a worker has begun checking
            command.join(0.05)
        lost(cluster)
        # Not a timing bound (the is 60 s): a command that hangs would hang the suite.
        command.join(300)
    assert list(tmp_path.glob("verdicts.parquet*")) == []  # no file, whole or in part
    return ended, stderr.getvalue(), address


def test_a_scheduler_lost_mid_run_ends_the_command_and_leaves_no_verdicts(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    ended, stderr, address = _lost_mid_run(tmp_path, fleet, lambda cluster: cluster[0].kill())
    assert ended == [ExitCode.UNREADABLE]
    assert f"tracecheck: error: the Dask cluster at {address} is lost: its scheduler" in stderr


def test_every_worker_lost_ends_the_command_and_leaves_no_verdicts(
    tmp_path: Path, fleet: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tracecheck.run import executors

    monkeypatch.setattr(executors._Awaited, "WORKERLESS", 4.0)  # 30 s in a real run
    ended, stderr, address = _lost_mid_run(
        tmp_path, fleet, lambda cluster: [worker.kill() for worker in cluster[1:]]
    )
    assert ended == [ExitCode.UNREADABLE]
    assert f"tracecheck: error: the Dask cluster at {address} is lost: it has had no wor" in stderr


def test_verdicts_take_their_name_only_when_written_whole(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    runs, contract = fleet
    target = tmp_path / "verdicts.parquet"

    def stopped() -> Any:
        yield from check_many([str(runs)], [str(contract)])
        raise KeyboardInterrupt  # the run stops before its end

    with pytest.raises(KeyboardInterrupt):
        write_verdicts(str(target), stopped())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["payments.json", "runs"]  # no part
    assert write_verdicts(str(target), check_many([str(runs)], [str(contract)])) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["payments.json", "runs", target.name]
    assert read_verdicts(str(target)).num_rows > 0


def test_summaries_compare_two_runs_of_a_suite(tmp_path: Path, fleet: tuple[Path, Path]) -> None:
    runs, contract = fleet
    before, after = tmp_path / "before.parquet", tmp_path / "after.parquet"
    (runs / "run-9999.otlp.jsonl").unlink()
    calm = tmp_path / "calm"
    calm.mkdir()
    for path in sorted(runs.glob("*.jsonl")):
        if "run_shell" not in path.read_text():
            shutil.copy(path, calm / path.name)
    assert _main(
        ["fleet", "check", str(calm), "--contract", str(contract), "-j", "1", "-o", str(before)]
    )[0] in (0, 1)
    _main(["fleet", "check", str(runs), "--contract", str(contract), "-j", "1", "-o", str(after)])
    code, out, _ = _main(
        [
            "fleet",
            "summarize",
            str(after),
            "--baseline",
            str(before),
            "--json",
            str(tmp_path / "s.json"),
        ]
    )
    assert code == ExitCode.FAILED
    assert "started failing: payments / tools.forbidden[run_shell] (0.0% → " in out
    report = json.loads((tmp_path / "s.json").read_text())
    assert report["version"] == 1
    assert {c["rule"] for c in report["changes"] if c["change"] == "started failing"} == {
        "tools.forbidden[run_shell]"
    }
    library = compare(summarize(read_verdicts(str(after))), summarize(read_verdicts(str(before))))
    assert [c.change for c in library if c.rule == "tools.forbidden[run_shell]"] == [
        "started failing"
    ]


def test_the_summary_counts_every_rule_outcome(tmp_path: Path, fleet: tuple[Path, Path]) -> None:
    runs, contract = fleet
    target = tmp_path / "v.parquet"
    _main(["fleet", "check", str(runs), "--contract", str(contract), "-j", "1", "-o", str(target)])
    table = read_verdicts(str(target))
    rows = [row for row in table.to_pylist() if row["rule"] is not None]
    summary = summarize(table)
    for tally in summary.tallies:
        mine = [row["status"] for row in rows if row["rule"] == tally.rule]
        assert (tally.passed, tally.failed, tally.errors) == (
            mine.count("pass"), mine.count("fail"), mine.count("error")
        )  # fmt: skip
    assert summary.traces == len({(row["source"], row["trace_id"]) for row in rows})
    assert summary.worst[0].rules_failed >= summary.worst[-1].rules_failed
    assert [n.source for n in summary.not_read] == [str(runs / "run-9999.otlp.jsonl")]


def test_globs_and_the_parquet_columns(tmp_path: Path, fleet: tuple[Path, Path]) -> None:
    runs, contract = fleet
    target = tmp_path / "v.parquet"
    _code, _, _ = _main(
        [
            "fleet",
            "check",
            str(runs / "run-000*.otlp.jsonl"),
            "--contract",
            str(contract),
            "-j",
            "1",
            "-o",
            str(target),
        ]
    )
    table = pq.read_table(target)
    assert sorted({row["source"] for row in table.to_pylist()}) == [
        str(runs / f"run-000{n}.otlp.jsonl") for n in range(10)
    ]
    types = {field.name: str(field.type) for field in table.schema}
    assert types["violations"] == "int32" and types["tokens"] == "int64"
    assert types["duration_ms"] == "double" and types["status"] == "string"
    first = table.to_pylist()[0]
    assert first["duration_ms"] == 1000.0 and first["model"] in ("gpt-4.1-mini", "gpt-4.1")
    assert first["tokens"] in (320, 920, 5020) and first["spans"] >= 3


def test_bad_verdicts_and_an_unreachable_scheduler_are_clear_errors(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    runs, contract = fleet
    not_parquet = tmp_path / "v.parquet"
    not_parquet.write_text("sk-not-a-secret-but-not-parquet either")
    code, _out, err = _main(["fleet", "summarize", str(not_parquet)])
    assert code == ExitCode.UNREADABLE
    assert (
        err
        == f"tracecheck: error: {not_parquet}: cannot be read as Parquet verdicts (ArrowInvalid)\n"
    )
    other = tmp_path / "other.parquet"
    import pyarrow as pa

    pq.write_table(pa.table({"a": [1]}), other)
    code, _, err = _main(["fleet", "summarize", str(other)])
    assert code == ExitCode.UNREADABLE and "has no column source" in err
    target = tmp_path / "never.parquet"
    code, _, err = _main(
        [
            "fleet",
            "check",
            str(runs),
            "--contract",
            str(contract),
            "--scheduler",
            "tcp://127.0.0.1:9",
            "-o",
            str(target),
        ]
    )
    assert code == ExitCode.USAGE
    assert err.startswith(
        "tracecheck: error: the Dask scheduler at tcp://127.0.0.1:9 cannot be reached"
    )
    assert list(tmp_path.glob("never.parquet*")) == []  # no file, whole or in part
    code, _, err = _main(["fleet"])
    assert code == ExitCode.USAGE and "fleet needs a command" in err


def test_the_fleet_page_draws_the_rules_and_the_worst_traces_and_sarif_validates(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    import re

    from jsonschema import Draft4Validator

    pytest.importorskip("matplotlib", reason="the report extra is not installed")
    runs, contract = fleet
    page, sarif, verdicts = (
        tmp_path / "fleet.html",
        tmp_path / "fleet.sarif",
        tmp_path / "v.parquet",
    )
    code, _, _ = _main(
        ["fleet", "check", str(runs), "--contract", str(contract), "-j", "1", "-o", str(verdicts),
         "--html", str(page), "--sarif", str(sarif)]
    )  # fmt: skip
    assert code == ExitCode.UNREADABLE
    rows = [row for row in pq.read_table(verdicts).to_pylist() if row["rule"] is not None]
    text = page.read_text()
    assert "http://" not in text and "https://" not in text
    for rule in {row["rule"] for row in rows}:
        assert rule in text  # every rule in the table
    drawn = set(re.findall(r'id="span-([0-9a-f]{16})', text))
    marked = set(re.findall(r'id="violation-([0-9a-f]{16})', text))
    assert drawn and marked <= drawn  # the worst traces drawn, violations on their spans
    traces = re.findall(r"<h2>trace <code>([0-9a-f]{32})", text)
    bad: dict[str, int] = {}
    for row in rows:
        if row["status"] in ("fail", "error"):
            bad[row["trace_id"]] = bad.get(row["trace_id"], 0) + 1
    assert len(traces) == len(set(traces)) == min(10, len(bad))  # the ten worst, each once
    cut = min(w.rules_failed for w in summarize(read_verdicts(str(verdicts))).worst)
    assert all(bad[trace] >= cut for trace in traces)
    schema = json.loads((ROOT / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text())
    log = json.loads(sarif.read_text())
    Draft4Validator(schema).validate(log)
    failing = sum(row["violations"] for row in rows if row["status"] == "fail")
    assert len([r for r in log["runs"][0]["results"] if r["kind"] == "fail"]) == failing
    code, _, _ = _main(["fleet", "summarize", str(verdicts), "--html", str(tmp_path / "s.html")])
    assert (
        code == ExitCode.UNREADABLE
        and "tools.forbidden[run_shell]" in (tmp_path / "s.html").read_text()
    )


def test_small_files_go_many_to_a_task_and_every_worker_gets_work() -> None:
    from tracecheck.run.engine import BATCH_BYTES, BATCH_UNITS, batches
    from tracecheck.run.task import Unit

    def members(count: int, size: int) -> list[tuple[int, Unit]]:
        return [(n, Unit(f"f{n}", None, (f"f{n}",), size=size)) for n in range(count)]

    tiny = list(batches(members(10_000, 2_000), workers=2))
    assert [len(batch) for batch in tiny[:3]] == [BATCH_UNITS] * 3
    assert [n for batch in tiny for n, _ in batch] == list(range(10_000))  # in order, each once
    few = list(batches(members(16, 2_000), workers=2))
    assert len(few) == 8  # four tasks per worker at least
    large = list(batches(members(6, BATCH_BYTES // 2 + 1), workers=1))
    assert [len(batch) for batch in large] == [1] * 6


def test_rows_built_by_workers_are_the_rows_of_the_verdicts(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    from tracecheck.fleet import write_verdicts
    from tracecheck.fleet.verdicts import rows_table

    runs, contract = fleet
    spans = run_spans("cd" * 16, ["lookup_order", "issue_refund", "issue_refund"])
    (runs / "split-a.otlp.jsonl").write_text(otlp_line(spans[:4]) + "\n")
    (runs / "split-b.otlp.jsonl").write_text(otlp_line(spans[4:]) + "\n")
    tables = []
    for rows in (None, rows_table):
        target = tmp_path / f"rows-{rows is not None}.parquet"
        outcomes = list(check_many([str(runs)], [str(contract)], rows=rows))
        assert all(bool(outcome.rows) is (rows is not None) for outcome in outcomes)
        write_verdicts(str(target), outcomes)
        tables.append(pq.read_table(target).to_pylist())
    assert tables[0] == tables[1]
    assert sum(row["trace_id"] == "cd" * 16 for row in tables[1]) == 5  # one trace, five rules


def test_a_large_file_is_checked_in_parts_by_trace(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    from tracecheck.run.engine import outcomes
    from tracecheck.run.executors import runner
    from tracecheck.run.plan import plan
    from tracecheck.run.task import Work

    _, contract = fleet
    big = tmp_path / "big.otlp.jsonl"
    padding = "x" * 6_000  # a long system prompt, as real runs have
    with big.open("w") as out:
        for number in range(600):
            spans = run_spans(f"{number + 1:032x}", ["lookup_order", "issue_refund"])
            spans[0]["attributes"].append({"key": "note", "value": {"stringValue": padding}})
            out.write(otlp_line(spans) + "\n")
    assert big.stat().st_size > 4 << 20  # the streaming reader indexes files this large
    (planned,) = plan([str(big)], workers=2, part_bytes=1 << 20)
    assert [unit.part for unit in planned.units] == [(k, 4) for k in range(4)]
    from tracecheck.fleet.verdicts import rows_table

    work = Work((compile_contract(str(contract)),), rows=rows_table)
    target = tmp_path / "parts.parquet"
    with runner(work) as run:
        write_verdicts(str(target), outcomes(run, work, [planned]))
    _, expected = _check_rows(tmp_path, [str(big)], contract)
    assert rows_of_parquet(target) == expected and len(expected) == 600 * 5


def test_inputs_served_over_http_are_checked_as_local_files(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    """An `http://` file (fsspec's HTTP filesystem, as `https://` is), from a server on
    loopback: the same rows as the file read locally, named by its URL."""
    import functools
    import http.server
    import threading

    runs, contract = fleet
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(runs))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/run-0003.otlp.jsonl"
        target = tmp_path / "http.parquet"
        code, _, _ = _main(
            ["fleet", "check", url, "--contract", str(contract), "-j", "1", "-o", str(target)]
        )
        missing = url.replace("run-0003", "run-7777")
        gone, _, err = _main(["check", missing, "--contract", str(contract)])
    finally:
        server.shutdown()
    _, expected = _check_rows(tmp_path, [str(runs / "run-0003.otlp.jsonl")], contract)
    local = str(runs / "run-0003.otlp.jsonl")
    assert [(local, *row[1:]) for row in rows_of_parquet(target)] == expected
    assert {row[0] for row in rows_of_parquet(target)} == {url}
    assert code == ExitCode.FAILED
    assert gone == ExitCode.UNREADABLE and err == f"tracecheck: error: {missing}: does not exist\n"


def test_the_readers_notes_are_those_of_one_process(tmp_path: Path) -> None:
    """The fixtures hold each run twice (JSON Lines and protobuf): read together, the spans
    recorded twice are noted, as `check` notes them."""
    fixtures, contract = (
        str(ROOT / "fixtures" / "otel-genai"),
        str(ROOT / "contracts" / "no-shell.yaml"),
    )
    _, shown, one = _main(["check", fixtures, "--contract", contract])
    _, _, fleet = _main(["fleet", "check", fixtures, "--contract", contract, "-j", "1"])

    def notes(text: str) -> list[str]:
        return [line.strip() for line in text.splitlines() if line.strip().startswith("note: ")]

    # `check` prints a trace's notes under its verdict and the others on stderr, once each.
    assert sorted(notes(fleet)) == sorted(notes(shown) + notes(one))
    assert "recorded more than once" in notes(fleet)[0]


def test_the_fleet_holds_doubt_about_capture_as_check_does(tmp_path: Path) -> None:
    """AutoGen's own tracing records tool calls and no model call: the rules about models are
    could not be evaluated by default, on the fleet as in `check`, and judged when lenient."""
    run = str(ROOT / "fixtures" / "producers" / "autogen" / "assistant" / "clean.otlp.jsonl")
    contract = tmp_path / "budget.json"
    contract.write_text(json.dumps({"name": "budget", "llm": {"maxCalls": 10}}))
    for lenient, code in (([], ExitCode.USAGE), (["--lenient-capture"], ExitCode.OK)):
        argv = [run, "--contract", str(contract), *lenient]
        assert _main(["check", *argv])[0] == code
        target = tmp_path / f"verdicts{len(lenient)}"
        assert _main(["fleet", "check", *argv, "-j", "1", "-o", str(target)])[0] == code
        # The file's first trace is the agent's creation alone, with no call to doubt.
        rows = read_verdicts(target).to_pylist()
        assert [row["status"] for row in rows] == ["pass", "pass" if lenient else "error"]


def test_the_library_call_takes_paths_and_one_input_or_contract(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    """`check_many` takes inputs and contracts as `read_traces` and `compile_contract` do:
    `pathlib.Path`s as well as strings, and one of each without a list around it; the
    verdicts are written and read back at a `Path`."""
    runs, contract = fleet
    one = runs / "run-0003.otlp.jsonl"
    expected = list(check_many([str(one)], [str(contract)]))
    for inputs, contracts in (
        ([one], [contract]),
        (one, contract),
        (str(one), str(contract)),
        (one, compile_contract(str(contract))),
        (one, json.loads(contract.read_text())),
    ):
        outcomes = list(check_many(inputs, contracts))
        assert [o.source for o in outcomes] == [str(one)]
        assert [c.verdict for c in outcomes[0].checked()] == [
            c.verdict for c in expected[0].checked()
        ]
    target = tmp_path / "one.parquet"
    assert write_verdicts(target, check_many(one, contract)) == 1
    assert read_verdicts(target).num_rows == 2 * 5  # the file holds two runs; five rules each


def test_a_trace_id_no_input_holds_and_an_empty_directory_exit_as_check_does(
    tmp_path: Path, fleet: tuple[Path, Path]
) -> None:
    runs, contract = fleet
    one = str(runs / "run-0003.otlp.jsonl")
    missing = str(tmp_path / "missing.otlp.jsonl")
    empty = tmp_path / "empty"
    empty.mkdir()
    notes = tmp_path / "notes"  # no trace file either: a README alone
    notes.mkdir()
    (notes / "README.md").write_text("# the nightly suite's notes\n")
    for inputs in ([one], [one, missing], [str(notes)], [str(empty)]):
        trace_id = ["--trace-id", "deadbeef"] if inputs[0] == one else []
        argv = [*inputs, "--contract", str(contract), *trace_id]
        code, _, err = _main(["check", *argv])
        fleet_code, out, fleet_err = _main(["fleet", "check", *argv, "-j", "1"])
        assert fleet_code == code and code in (ExitCode.USAGE, ExitCode.UNREADABLE)
        assert fleet_err.splitlines()[-1] == err.splitlines()[-1]
    assert err == f"tracecheck: error: {empty}: holds no trace file this command reads\n"
    code, out, err = _main(
        ["fleet", "check", one, "--contract", str(contract), "--trace-id", "deadbeef", "-j", "1"]
    )
    assert (code, out, err) == (ExitCode.USAGE, "", "tracecheck: error: no trace has id deadbeef\n")


def test_a_url_whose_fsspec_backend_is_not_installed_names_the_package(
    request: pytest.FixtureRequest, fleet: tuple[Path, Path]
) -> None:
    """As `gs://` without gcsfs: the input is not read (exit 3), in fsspec's words, and the
    rest go on; a worker missing a package says which, not `internal error: ImportError`."""
    from fsspec.registry import known_implementations, register_implementation

    from tracecheck.run.task import Unit, failed_unit

    runs, contract = fleet
    register_implementation(
        "tcnosuchfs", "tc_no_such_package.FileSystem", errtxt="Please install tc-no-such-fs"
    )
    request.addfinalizer(lambda: known_implementations.pop("tcnosuchfs", None))
    one = str(runs / "run-0003.otlp.jsonl")
    argv = ["tcnosuchfs://bucket/runs/", one, "--contract", str(contract)]
    message = (
        "tracecheck: error: tcnosuchfs://bucket/runs/: cannot be read without a package that "
        "is not installed: Please install tc-no-such-fs\n"
    )
    code, _, err = _main(["check", *argv])
    assert code == ExitCode.UNREADABLE and err == message
    code, out, err = _main(["fleet", "check", *argv, "-j", "1"])
    assert code == ExitCode.UNREADABLE and err == message and "1 input(s) not read" in out
    unit = Unit(one, None, (one,))
    lost = failed_unit(unit, ModuleNotFoundError("No module named 'tracecheck'", name="tracecheck"))
    assert lost.failures[0].message == (
        f"{one}: cannot be read without a package that is not installed: "
        "no module named 'tracecheck'"
    )


def test_object_storage_that_cannot_be_reached_is_an_input_not_read(
    fleet: tuple[Path, Path],
) -> None:
    """botocore's EndpointConnectionError is not an OSError: the input is not read (exit 3)
    and the rest go on, where it stopped the command with an internal error."""
    pytest.importorskip("s3fs", reason="s3fs is not installed")
    runs, contract = fleet
    one = str(runs / "run-0003.otlp.jsonl")
    options = [
        "--storage-option=endpoint_url=http://127.0.0.1:9",
        "--storage-option=key=testing",
        "--storage-option=secret=testing",
        '--storage-option=config_kwargs={"connect_timeout": 1, "retries": {"max_attempts": 1}}',
    ]
    argv = ["s3://nightly/runs/", one, "--contract", str(contract), *options]
    message = "tracecheck: error: s3://nightly/runs/: cannot be listed: EndpointConnectionError\n"
    code, out, err = _main(["check", *argv])
    assert code == ExitCode.UNREADABLE and err == message
    assert out.count(f"{one}: trace ") == 2  # the local file's two runs were checked
    code, out, err = _main(["fleet", "check", *argv, "-j", "1"])
    assert code == ExitCode.UNREADABLE and err == message
    assert out.startswith("2 trace(s) checked")


def test_a_scheduler_address_dask_cannot_use_is_a_usage_error(fleet: tuple[Path, Path]) -> None:
    runs, contract = fleet
    one = str(runs / "run-0003.otlp.jsonl")
    for command in (["check"], ["fleet", "check"]):
        code, out, err = _main(
            [*command, one, "--contract", str(contract), "--scheduler", "dask-0"]
        )
        assert (code, out) == (ExitCode.USAGE, "")
        assert err == (
            "tracecheck: error: --scheduler dask-0: not an address Dask connects to "
            "(missing port number in address 'dask-0')\n"
        )
    code, _, err = _main(["check", one, "--contract", str(contract), "--scheduler", "http://h:1"])
    assert code == ExitCode.USAGE
    assert err.startswith("tracecheck: error: --scheduler http://h:1: not an address Dask ")


def test_check_reads_a_glob_as_the_fleet_does(tmp_path: Path, fleet: tuple[Path, Path]) -> None:
    """A pattern no shell expanded (quoted, or a shell that does not) is its matches in sorted
    order for `check` as for `fleet check`; one that matches nothing says so (exit 3)."""
    runs, contract = fleet
    pattern = str(runs / "run-001*.otlp.jsonl")
    code, expected = _check_rows(
        tmp_path, [str(runs / f"run-001{n}.otlp.jsonl") for n in range(10)], contract
    )
    assert _check_rows(tmp_path, [pattern], contract) == (code, expected)
    target = tmp_path / "glob.parquet"
    fleet_code, _, _ = _main(
        ["fleet", "check", pattern, "--contract", str(contract), "-j", "1", "-o", str(target)]
    )
    assert fleet_code == code and rows_of_parquet(target) == expected
    nothing = str(runs / "*.nothing")
    code, _, err = _main(["check", nothing, "--contract", str(contract)])
    assert code == ExitCode.UNREADABLE and err == f"tracecheck: error: {nothing}: matches no file\n"
