"""The cost rule on the command line (`check --prices`, `fleet check --prices`: every exit code)
and in the pytest plugin (`--tracecheck-prices`, the marker's and `assert_contract`'s
`prices=`), with the precedence each documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracecheck.cli import ExitCode, main

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
RUN = str(ROOT / "fixtures" / "frameworks" / "pydantic-ai" / "cache.otlp.jsonl")  # $0.000932
CLEAN = str(ROOT / "fixtures" / "frameworks" / "pydantic-ai" / "clean.otlp.jsonl")
MINI = "gpt-4.1-mini*: {input: 0.40, output: 1.60, cacheRead: 0.10}\n"
WARNING = "warning [llm.cost-without-prices]"


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def budget(tmp_path: Path, limit: float, prices: str = "") -> str:
    table = f"prices:\n  {prices}" if prices else ""
    return write(tmp_path, "budget.yaml", f"name: budget\nllm: {{maxCostUsd: {limit}}}\n{table}")


def test_the_contracts_prices_pass_and_fail_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", RUN, "--contract", budget(tmp_path, 0.001, MINI)]) == ExitCode.OK
    assert main(["check", RUN, "--contract", budget(tmp_path, 0.0009, MINI)]) == ExitCode.FAILED
    out = capsys.readouterr().out
    assert "model calls cost $0.000932 in total, over the limit of $0.0009" in out


def test_without_any_prices_the_rule_cannot_be_evaluated_and_lint_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    contract = budget(tmp_path, 1)
    assert main(["check", RUN, "--contract", contract]) == ExitCode.USAGE
    captured = capsys.readouterr()
    assert f"{contract}: llm.maxCostUsd: {WARNING} has no prices to use" in captured.err
    assert "! llm.maxCostUsd: could not be evaluated: no price table is given" in captured.out


def test_a_prices_file_prices_the_run_and_silences_the_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = write(tmp_path, "prices.yaml", MINI)
    contract = budget(tmp_path, 0.0009)
    assert main(["check", RUN, "--contract", contract, "--prices", prices]) == ExitCode.FAILED
    captured = capsys.readouterr()
    assert WARNING not in captured.err
    assert f"priced by the prices in {prices}" in captured.out


def test_a_prices_file_replaces_the_contracts_prices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    contract = budget(tmp_path, 0.001, MINI)
    dearer = write(
        tmp_path, "dearer.json", '{"gpt-4.1-mini*": {"input": 4, "output": 16, "cacheRead": 1}}'
    )
    assert main(["check", RUN, "--contract", contract, "--prices", dearer]) == ExitCode.FAILED
    assert "model calls cost $0.009316 in total" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("gpt-4.1-mini*: {input: 1}\n", '["gpt-4.1-mini*"]: missing required key "output"'),
        ("m: {input: 1, output: 1, cached: 0}\n", '["m"]: unknown key "cached" (allowed: input'),
        ("{", "malformed"),
    ],
)
def test_a_bad_prices_file_exits_2_naming_the_file_and_the_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str
) -> None:
    prices = write(tmp_path, "prices.yaml", text)
    code = main(["check", RUN, "--contract", budget(tmp_path, 1), "--prices", prices])
    assert code == ExitCode.USAGE
    err = capsys.readouterr().err
    assert f"{prices}: " in err and problem in err
    assert WARNING not in err


def test_a_missing_prices_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "none.yaml")
    code = main(["check", RUN, "--contract", budget(tmp_path, 1), "--prices", missing])
    assert code == ExitCode.USAGE
    assert f"{missing}: cannot be read: No such file or directory" in capsys.readouterr().err


def test_worker_processes_price_as_one_process_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = write(tmp_path, "prices.yaml", MINI)
    contract = budget(tmp_path, 0.0008)  # the cached run costs $0.000932, the clean $0.0007256
    reports = []
    for jobs in ("1", "2"):
        report = tmp_path / f"report-{jobs}.json"
        argv = ["check", RUN, CLEAN, "--contract", contract, "--prices", prices, "-j", jobs]
        assert main([*argv, "--json", str(report)]) == ExitCode.FAILED
        document = json.loads(report.read_text())
        reports.append([r["status"] for t in document["results"] for r in t["rules"]])
    assert reports[0] == reports[1] == ["fail", "pass"]


def test_fleet_check_takes_the_prices_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("dask")
    pytest.importorskip("pyarrow")
    prices = write(tmp_path, "prices.yaml", MINI)
    argv = ["fleet", "check", RUN, "--contract", budget(tmp_path, 0.0005), "-j", "1"]
    assert main([*argv, "--prices", prices]) == ExitCode.FAILED
    assert main(argv) == ExitCode.USAGE
    assert WARNING in capsys.readouterr().err


def test_report_takes_the_prices_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    prices = write(tmp_path, "prices.yaml", MINI)
    page = tmp_path / "report.html"
    argv = ["report", RUN, "--contract", budget(tmp_path, 0.0005), "-o", str(page)]
    assert main([*argv, "--prices", prices]) == ExitCode.FAILED
    assert "over the limit of $0.0005" in page.read_text(encoding="utf-8")


# --- the pytest plugin ------------------------------------------------------------------------

AGENT = """
def run_agent(tracer, calls=2):
    with tracer.start_as_current_span("invoke_agent refund") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        for _ in range(calls):
            with tracer.start_as_current_span("chat gpt-4.1-mini") as chat:
                chat.set_attribute("gen_ai.operation.name", "chat")
                chat.set_attribute("gen_ai.request.model", "gpt-4.1-mini")
                chat.set_attribute("gen_ai.usage.input_tokens", 100)
                chat.set_attribute("gen_ai.usage.output_tokens", 10)
            with tracer.start_as_current_span("execute_tool lookup_order") as span:
                span.set_attribute("gen_ai.operation.name", "execute_tool")
                span.set_attribute("gen_ai.tool.name", "lookup_order")
"""
# Two calls of 100 in and 10 out: $0.000112 at gpt-4.1-mini's prices, $0.00112 at ten times.


@pytest.fixture
def cost_tests(pytester: pytest.Pytester) -> pytest.Pytester:
    pytest.importorskip("opentelemetry.sdk")
    pytester.makeconftest(AGENT)
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider --strict-markers\n")
    pytester.makefile(".yaml", budget="name: budget\nllm: {maxCostUsd: 0.0005}\n")
    pytester.makefile(".yaml", cheap=MINI)
    pytester.makefile(".yaml", dear="gpt-4.1-mini*: {input: 4, output: 16}\n")
    return pytester


def test_the_marker_prices_by_its_own_table_before_the_sessions(
    cost_tests: pytest.Pytester,
) -> None:
    cost_tests.makepyfile(
        """
        import pytest
        from conftest import run_agent

        @pytest.mark.trace_contract("budget.yaml", prices="cheap.yaml")
        def test_cheap(trace_spans):
            run_agent(trace_spans.tracer("agent"))

        @pytest.mark.trace_contract("budget.yaml")
        def test_dear(trace_spans):
            run_agent(trace_spans.tracer("agent"))
        """
    )
    result = cost_tests.runpytest("--tracecheck-prices", "dear.yaml")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*llm.maxCostUsd: model calls cost $0.00112 in total, over the limit of $0.0005*",
            "FAILED *::test_dear*",
        ]
    )


def test_assert_contract_takes_prices_and_the_sessions_table(cost_tests: pytest.Pytester) -> None:
    cost_tests.makepyfile(
        """
        import pytest
        from conftest import run_agent

        def test_session(trace_spans):
            run_agent(trace_spans.tracer("agent"))
            assert trace_spans.assert_contract("budget.yaml").ok

        def test_given(trace_spans):
            run_agent(trace_spans.tracer("agent"))
            with pytest.raises(AssertionError, match=r"\\$0\\.00112 in total"):
                trace_spans.assert_contract("budget.yaml", prices="dear.yaml")

        def test_none(trace_spans):
            run_agent(trace_spans.tracer("agent"))
            with pytest.raises(AssertionError, match="no price table is given"):
                trace_spans.assert_contract("budget.yaml")
        """
    )
    result = cost_tests.runpytest(
        "--tracecheck-prices", "cheap.yaml", "-k", "test_session or test_given"
    )
    result.assert_outcomes(passed=2, deselected=1)
    cost_tests.runpytest("-k", "test_none").assert_outcomes(passed=1, deselected=2)


def test_a_bad_marker_table_is_a_setup_error(cost_tests: pytest.Pytester) -> None:
    cost_tests.makefile(".yaml", broken="m: {input: 1}\n")
    cost_tests.makepyfile(
        """
        import pytest

        @pytest.mark.trace_contract("budget.yaml", prices="broken.yaml")
        def test_broken(trace_spans):
            pass

        @pytest.mark.trace_contract("budget.yaml", prices=3)
        def test_not_a_path(trace_spans):
            pass
        """
    )
    result = cost_tests.runpytest()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            '*trace_contract: *broken.yaml: [[]"m"[]]: missing required key "output"*',
            '*@pytest.mark.trace_contract takes only capture="strict"|"lenient" and prices=FILE '
            "beside its contract paths, not prices=3*",
        ]
    )
