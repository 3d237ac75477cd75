"""Repeated tests (`@pytest.mark.trace_repeat`, `--tracecheck-repeat`), exercised through
`pytester`: a test runs k times as one test with fresh function-scoped fixtures and a fresh
capture in each run, and passes or fails on pass^k or its pass rate; the failure names the
failing runs and the flaky rules, the terminal summary gives every repeated test's rate, JUnit
gets the figures as properties; wrong marker arguments are a setup error. The judgement's words
are tested on values directly (test_the_words_*)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from plugin_agent_support import agent_conftest, literal

from tracecheck.testing.assertion import first_problem
from tracecheck.testing.repeat import (
    Repeat,
    Repetition,
    Run,
    RunCheck,
    marker_problem,
    run_check,
)
from tracecheck.verdict import RuleResult, Verdict, Violation

pytest.importorskip("opentelemetry.sdk")

# Imported here so that in-process pytester runs share these modules with this one.
import opentelemetry.sdk.trace.export.in_memory_span_exporter  # noqa: F401

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT / "contracts" / "refund-desk.json"


def _section(output: str, test: str) -> str:
    """The failure or error section of one test in pytest's output."""
    after = re.split(rf"\n_+ (?:ERROR at setup of )?{re.escape(test)} _+\n", output, maxsplit=1)
    return re.split(r"\n_{3,} |\n=+ ", after[1], maxsplit=1)[0]


@pytest.fixture
def agent_tests(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(agent_conftest(REFUND_DESK=CONTRACT))
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider --strict-markers\n")
    return pytester


def test_a_body_that_fails_one_run_in_four_fails_unless_the_rate_allows_it(
    agent_tests: pytest.Pytester,
) -> None:
    # Module globals count the runs: one module, imported once, holds them for the session.
    agent_tests.makepyfile(
        """
        import pytest

        EVERY, RATE = [], []

        @pytest.mark.trace_repeat(4)
        def test_every_run():
            EVERY.append(1)
            assert len(EVERY) != 3, "the third run goes wrong"

        @pytest.mark.trace_repeat(4, pass_rate=0.7)
        def test_rate():
            RATE.append(1)
            assert len(RATE) != 3, "the third run goes wrong"

        def test_each_ran_four_times():
            assert (len(EVERY), len(RATE)) == (4, 4)
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(passed=2, failed=1)
    failure = _section(result.stdout.str(), "test_every_run")
    assert failure.splitlines()[:4] == [
        "pass^4 is 0.00, below 1 (every run must pass): "
        "3 of 4 runs passed (rate 75.0%, 95% CI 30.1%–95.4%)",
        "  run 3: AssertionError: the third run goes wrong",
        "",
        "run 3 of 4, the first to fail:",
    ]
    assert '>       assert len(EVERY) != 3, "the third run goes wrong"' in failure
    result.stdout.fnmatch_lines(
        [
            "*= tracecheck repeated tests =*",
            "test_a_body_that_fails_one_run_in_four_fails_unless_the_rate_allows_it.py::"
            "test_every_run fails: 3 of 4 runs passed (rate 75.0%, 95% CI 30.1%–95.4%), "
            "pass^4 0.00; needs every run to pass",
            "test_a_body_that_fails_one_run_in_four_fails_unless_the_rate_allows_it.py::"
            "test_rate passes: 3 of 4 runs passed (rate 75.0%, 95% CI 30.1%–95.4%), "
            "pass^4 0.00; needs pass rate ≥ 70%",
        ]
    )
    assert result.stdout.str().count("tracecheck repeated tests") == 1


def test_a_rule_that_passes_in_some_runs_is_flaky(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import REFUND_DESK, run_agent

        HALF, EVERY = [], []

        @pytest.mark.trace_repeat(4, pass_rate=0.5)
        @pytest.mark.trace_contract(REFUND_DESK)
        def test_half(trace_spans):
            HALF.append(1)
            assert trace_spans.spans() == []  # each run captures its own spans
            run_agent(trace_spans.tracer("agent"), shell=len(HALF) % 2 == 0)

        @pytest.mark.trace_repeat(4)
        @pytest.mark.trace_contract(REFUND_DESK)
        def test_every_run(trace_spans):
            EVERY.append(1)
            run_agent(trace_spans.tracer("agent"), shell=len(EVERY) % 2 == 0)
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    flaky = "refund-desk/tools.forbidden[run_shell] (passed in 2 of 4 checked runs)"
    failure = _section(result.stdout.str(), "test_every_run")
    lines = failure.splitlines()
    assert lines[0] == (
        "pass^4 is 0.00, below 1 (every run must pass): "
        "2 of 4 runs passed (rate 50.0%, 95% CI 15.0%–85.0%)"
    )
    assert re.fullmatch(
        r"  run 2: refund-desk/tools\.forbidden\[run_shell\]: run_shell was called "
        r'\(span [0-9a-f]{16} "execute_tool run_shell"\)',
        lines[1],
    )
    assert lines[2].startswith("  run 4: refund-desk/tools.forbidden[run_shell]: ")
    assert lines[3] == f"flaky rules: {flaky}"
    assert lines[5:7] == [
        "run 2 of 4, the first to fail:",
        'trace contract "refund-desk" failed: 1 of 9 rules',
    ]
    assert "never(" not in failure
    result.stdout.fnmatch_lines(
        [
            literal(
                "test_a_rule_that_passes_in_some_runs_is_flaky.py::test_half passes: 2 of 4 "
                "runs passed (rate 50.0%, 95% CI 15.0%–85.0%), pass^4 0.00; needs pass rate "
                f"≥ 50%; flaky rules: {flaky}"
            ),
        ]
    )


def test_each_failing_run_writes_evidence_of_its_own(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        test_evidence="""
        import pytest
        from conftest import REFUND_DESK, run_agent

        RUNS = []

        @pytest.mark.trace_repeat(4)
        @pytest.mark.trace_contract(REFUND_DESK)
        def test_agent(trace_spans):
            RUNS.append(1)
            run_agent(trace_spans.tracer("agent"), shell=len(RUNS) in (2, 4))
        """
    )
    result = agent_tests.runpytest("--tracecheck-evidence-dir", "evidence")
    result.assert_outcomes(failed=1)
    written = sorted(path.name for path in (agent_tests.path / "evidence").iterdir())
    assert written == [
        "test_evidence.py_test_agent_run_2.otlp.json",
        "test_evidence.py_test_agent_run_2.refund-desk.verdict.json",
        "test_evidence.py_test_agent_run_4.otlp.json",
        "test_evidence.py_test_agent_run_4.refund-desk.verdict.json",
    ]
    result.stdout.fnmatch_lines(["run 2 of 4, the first to fail:", "*evidence*run_2.otlp.json*"])


def test_each_run_has_fresh_function_fixtures_and_wider_ones_stay(
    agent_tests: pytest.Pytester,
) -> None:
    agent_tests.makepyfile(
        counts="EVENTS = []\n",
        test_a_repeated="""
        import pytest
        from counts import EVENTS

        @pytest.fixture(scope="module")
        def shared():
            EVENTS.append("module setup")
            yield
            EVENTS.append("module teardown")

        @pytest.fixture
        def fresh(shared):
            EVENTS.append("function setup")
            yield object()
            EVENTS.append("function teardown")

        SEEN = set()

        @pytest.mark.trace_repeat(3)
        def test_repeated(fresh, trace_spans):
            SEEN.add(id(trace_spans))
            EVENTS.append("run")
            with trace_spans.tracer("t").start_as_current_span("work"):
                pass
            assert [span.name for span in trace_spans.spans()] == ["work"]

        def test_after_in_the_same_module(shared):
            EVENTS.append("next test")
        """,
        test_b_counts="""
        from counts import EVENTS

        def test_counts():
            assert EVENTS == [
                "module setup",
                *["function setup", "run", "function teardown"] * 3,
                "next test",
                "module teardown",
            ]
        """,
    )
    agent_tests.runpytest().assert_outcomes(passed=3)


def test_a_run_that_cannot_be_set_up_later_is_a_failed_run(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest

        SETUPS = []

        @pytest.fixture
        def agent():
            SETUPS.append(1)
            if len(SETUPS) == 2:
                raise RuntimeError("the agent did not start")

        @pytest.mark.trace_repeat(3, pass_rate=0.6)
        def test_agent(agent):
            pass
        """
    )
    result = agent_tests.runpytest("-rA")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["*::test_agent passes: 2 of 3 runs passed (rate 66.7%, 95% CI 20.8%–93.9%), *"]
    )


def test_a_first_run_that_cannot_be_set_up_or_skips_is_not_repeated(
    agent_tests: pytest.Pytester,
) -> None:
    agent_tests.makepyfile(
        """
        import pytest

        SETUPS, BODIES = [], []

        @pytest.fixture
        def broken():
            SETUPS.append(1)
            raise RuntimeError("the agent did not start")

        @pytest.mark.trace_repeat(3)
        def test_broken(broken):
            pass

        @pytest.mark.trace_repeat(3)
        def test_skips():
            BODIES.append(1)
            pytest.skip("no model to talk to")

        @pytest.mark.trace_repeat(3)
        @pytest.mark.skipif(True, reason="never here")
        def test_skipped():
            pass

        def test_counts():
            assert (len(SETUPS), len(BODIES)) == (1, 1)
        """
    )
    result = agent_tests.runpytest("-rs")
    result.assert_outcomes(passed=1, skipped=2, errors=1)
    result.stdout.fnmatch_lines(["*RuntimeError: the agent did not start*"])
    assert "tracecheck repeated tests" not in result.stdout.str()


def test_a_skip_after_a_failed_run_does_not_hide_the_failure(
    agent_tests: pytest.Pytester,
) -> None:
    agent_tests.makepyfile(
        """
        import pytest

        RUNS = []

        @pytest.mark.trace_repeat(3)
        def test_flaky_then_skips():
            RUNS.append(1)
            if len(RUNS) == 1:
                assert False, "the agent called the wrong tool"
            pytest.skip("the model is gone")
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*run 1: *the agent called the wrong tool*",
            "*run 2: skipped, after a run that failed*",
        ]
    )


def test_a_teardown_that_fails_is_the_tests_teardown_error(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest

        TEARDOWNS = []

        @pytest.fixture
        def agent():
            yield
            TEARDOWNS.append(1)
            if len(TEARDOWNS) == 2:
                raise RuntimeError("the agent did not stop")

        @pytest.mark.trace_repeat(3)
        def test_agent(agent):
            pass
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*ERROR at teardown of test_agent*", "*RuntimeError: the agent did not stop"]
    )


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        (
            "trace_repeat(0)",
            "needs the number of runs, a whole number of 1 or more, "
            "e.g. @pytest.mark.trace_repeat(8), not 0",
        ),
        (
            "trace_repeat(4, pass_hat_k=0.9, pass_rate=0.5)",
            "takes one threshold, pass_hat_k= or pass_rate=, not both",
        ),
        ("trace_repeat(4, pass_rate=1.5)", "pass_rate is a fraction from 0 to 1, not 1.5"),
        (
            "trace_repeat(4, pass_hat_k=90)",
            "pass_hat_k is a fraction from 0 to 1, not 90 (90% is pass_hat_k=0.9)",
        ),
        ("trace_repeat(4, k=5)", "k is a whole number from 1 to the 4 runs, not 5"),
        (
            "trace_repeat(4, rate=0.5)",
            "takes only pass_hat_k=, pass_rate= and k= beside the number of runs, not rate",
        ),
    ],
)
def test_wrong_marker_arguments_are_a_setup_error(
    agent_tests: pytest.Pytester, marker: str, message: str
) -> None:
    agent_tests.makepyfile(
        f"""
        import pytest

        @pytest.mark.{marker}
        def test_wrong():
            pass
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(errors=1)
    assert _section(result.stdout.str(), "test_wrong").strip() == (
        f"@pytest.mark.trace_repeat {message}"
    )


def test_xfail_is_refused_beside_the_marker(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest

        @pytest.mark.trace_repeat(3, pass_rate=0.5)
        @pytest.mark.xfail(reason="flaky")
        def test_flaky():
            pass
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(errors=1)
    assert _section(result.stdout.str(), "test_flaky").strip() == (
        "@pytest.mark.trace_repeat does not combine with xfail: its threshold says how often "
        "the test may fail"
    )


def test_the_option_repeats_contract_tests_and_the_marker_goes_first(
    agent_tests: pytest.Pytester,
) -> None:
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import REFUND_DESK, run_agent

        RUNS = {"contract": 0, "marked": 0, "plain": 0, "xfail": 0}

        @pytest.mark.trace_contract(REFUND_DESK)
        def test_contract(trace_spans):
            RUNS["contract"] += 1
            run_agent(trace_spans.tracer("agent"))

        @pytest.mark.trace_repeat(2)
        @pytest.mark.trace_contract(REFUND_DESK)
        def test_marked(trace_spans):
            RUNS["marked"] += 1
            run_agent(trace_spans.tracer("agent"))

        def test_plain():
            RUNS["plain"] += 1

        @pytest.mark.xfail(reason="opens a shell", strict=True)
        @pytest.mark.trace_contract(REFUND_DESK)
        def test_known_to_fail(trace_spans):
            RUNS["xfail"] += 1
            run_agent(trace_spans.tracer("agent"), shell=True)

        def test_zz_counts():
            assert RUNS == {"contract": 3, "marked": 2, "plain": 1, "xfail": 1}
        """
    )
    result = agent_tests.runpytest("--tracecheck-repeat", "3")
    result.assert_outcomes(passed=4, xfailed=1)
    result.stdout.fnmatch_lines(
        [
            "*::test_contract passes: 3 of 3 runs passed (rate 100.0%, 95% CI 43.9%–100.0%), "
            "pass^3 1.00; needs every run to pass",
            "*::test_marked passes: 2 of 2 runs passed *",
        ]
    )
    refused = agent_tests.runpytest("--tracecheck-repeat", "0")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*--tracecheck-repeat is a number of runs, 1 or more, not 0"])


def test_junit_gets_the_figures_as_properties(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest

        RUNS = []

        @pytest.mark.trace_repeat(8, pass_hat_k=0.5, k=3)
        def test_agent(record_property):
            RUNS.append(1)
            record_property("run", len(RUNS))
            assert len(RUNS) != 5
        """
    )
    result = agent_tests.runpytest("--junitxml=out.xml")
    result.assert_outcomes(passed=1)
    cases = ET.parse(agent_tests.path / "out.xml").findall(".//testcase")
    assert len(cases) == 1  # one test, however many runs
    case = cases[0]
    properties = [(p.get("name"), p.get("value")) for p in case.iter("property")]
    assert properties == [
        *[("run", str(number)) for number in range(1, 9)],
        ("tracecheck_runs", "8"),
        ("tracecheck_passed_runs", "7"),
        ("tracecheck_pass_rate", "0.875"),
        ("tracecheck_pass_rate_ci95_low", "0.5291"),
        ("tracecheck_pass_rate_ci95_high", "0.9776"),
        ("tracecheck_pass_hat_3", "0.625"),
    ]


def test_a_golden_marker_is_diffed_in_every_run(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import os
        import pytest
        from conftest import run_agent

        RUNS = []

        @pytest.mark.trace_repeat(3)
        @pytest.mark.trace_golden("goldens/refund.otlp.json")
        def test_refund(trace_spans):
            RUNS.append(1)
            shell = os.environ.get("SHELL_ON_RUN") == str(len(RUNS))
            run_agent(trace_spans.tracer("agent"), shell=shell)
        """
    )
    agent_tests.runpytest("--update-golden").assert_outcomes(passed=1)
    agent_tests.runpytest().assert_outcomes(passed=1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SHELL_ON_RUN", "2")
        result = agent_tests.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "pass^3 is 0.00, below 1 (every run must pass): 2 of 3 runs passed *",
            "  run 2: Failed: golden run goldens/refund.otlp.json: the run differs*",
        ]
    )


def test_under_xdist_the_controller_summarizes_the_workers_runs(
    agent_tests: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import REFUND_DESK, run_agent

        RUNS = []

        @pytest.mark.trace_repeat(4, pass_rate=0.5)
        @pytest.mark.trace_contract(REFUND_DESK)
        def test_flaky(trace_spans):
            RUNS.append(1)
            run_agent(trace_spans.tracer("agent"), shell=len(RUNS) == 2)

        @pytest.mark.trace_repeat(2)
        def test_other():
            pass
        """
    )
    result = agent_tests.runpytest_subprocess("-n", "2")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*= tracecheck repeated tests =*",
            literal(
                "test_under_xdist_the_controller_summarizes_the_workers_runs.py::test_flaky "
                "passes: 3 of 4 runs passed (rate 75.0%, 95% CI 30.1%–95.4%), pass^4 0.00; "
                "needs pass rate ≥ 50%; flaky rules: refund-desk/tools.forbidden[run_shell] "
                "(passed in 3 of 4 checked runs)"
            ),
            "*::test_other passes: 2 of 2 runs passed *",
        ]
    )


# The judgement's words, on values.


def _runs(*passed: bool, flaky_rule: bool = False) -> tuple[Run, ...]:
    runs = []
    for number, ok in enumerate(passed, 1):
        rules = (("never-delete-user", ok),) if flaky_rule else ()
        check = RunCheck("refund-policy", rules, None if ok else "never-delete-user: deleted")
        problem = None if ok else "refund-policy/never-delete-user: deleted"
        runs.append(Run(number, ok, problem, (check,)))
    return tuple(runs)


def test_the_words_of_pass_hat_k_below_its_threshold() -> None:
    runs = _runs(True, True, False, True, True, True, True, True, flaky_rule=True)
    repetition = Repetition(Repeat(8, 3, pass_hat_k=0.9), runs)
    assert not repetition.ok
    assert repetition.failure_lines() == [
        "pass^3 is 0.62, below 0.9: 7 of 8 runs passed (rate 87.5%, 95% CI 52.9%–97.8%)",
        "  run 3: refund-policy/never-delete-user: deleted",
        "flaky rules: refund-policy/never-delete-user (passed in 7 of 8 checked runs)",
    ]
    assert repetition.summary() == (
        "fails: 7 of 8 runs passed (rate 87.5%, 95% CI 52.9%–97.8%), pass^3 0.62; needs "
        "pass^3 ≥ 0.9; flaky rules: refund-policy/never-delete-user (passed in 7 of 8 checked "
        "runs)"
    )
    assert Repetition(Repeat(8, 3, pass_hat_k=0.6), runs).ok


def test_the_words_of_a_pass_rate_below_its_threshold() -> None:
    repetition = Repetition(Repeat(10, 10, pass_rate=0.7), _runs(*[True] * 6, *[False] * 4))
    assert repetition.headline() == (
        "pass rate is 60.0%, below 70%: 6 of 10 runs passed (95% CI 31.3%–83.2%), pass^10 0.00"
    )
    lines = repetition.failure_lines()
    assert lines[1:] == [
        *[f"  run {n}: refund-policy/never-delete-user: deleted" for n in (7, 8, 9, 10)]
    ]


def test_the_failing_runs_shown_are_five_then_a_count() -> None:
    lines = Repetition(Repeat(8, 8), _runs(*[False] * 7, True)).failure_lines()
    assert lines[6] == "  … and 2 more failing runs"
    assert len(lines) == 7


def test_thresholds_compare_as_the_decimals_written() -> None:
    # 1 run in 10 is a rate of 0.1 exactly, which the float 0.1 (a little above) would refuse.
    assert Repetition(Repeat(10, 10, pass_rate=0.1), _runs(True, *[False] * 9)).ok
    assert Repetition(Repeat(4, 4, pass_rate=0), _runs(False, False, False, False)).ok
    assert not Repetition(Repeat(4, 4, pass_hat_k=0.5), _runs(True, True, True, False)).ok


def test_a_pass_hat_k_that_rounds_to_one_is_shown_exactly() -> None:
    runs = _runs(*[True] * 999, False)
    repetition = Repetition(Repeat(1000, 1, pass_hat_k=1), runs)
    assert repetition.headline().startswith("pass^1 is 999/1000, below 1: 999 of 1000 runs")


def test_a_session_that_stops_midway_fails_the_test() -> None:
    repetition = Repetition(Repeat(8, 8, pass_rate=0.5), _runs(True, True))
    assert not repetition.ok
    assert repetition.headline().startswith(
        "the session stopped after 2 of 8 runs; pass rate is 100.0%, below 50%"
    )


def test_marker_arguments_that_are_right() -> None:
    assert marker_problem((3,), {}) is None
    assert marker_problem((3,), {"pass_hat_k": 1, "k": 2}) is None
    assert marker_problem((3,), {"pass_rate": 0}) is None
    assert Repeat.from_marker((5,), {"pass_rate": 0.8}) == Repeat(5, 5, pass_rate=0.8)
    assert marker_problem((True,), {}) is not None  # a bool is not a number of runs
    assert marker_problem((3,), {"pass_rate": float("nan")}) == (
        "pass_rate is a fraction from 0 to 1, not nan"
    )


def test_a_runs_first_problem_is_one_line_and_its_rules_count_only_with_spans() -> None:
    rules = (
        RuleResult("tools.required[lookup_order]", None, "pass"),
        RuleResult("llm.maxTotalTokens", None, "skipped"),
        RuleResult("tools.forbidden[run_shell]", None, "fail", (Violation("a1", "x"),)),
        RuleResult("llm.allowedModels", None, "error", error="no model call was recorded"),
    )
    verdict = Verdict("refund-desk", None, "error", rules, 0.5, "")
    assert first_problem(verdict) == "tools.forbidden[run_shell]: span a1: x"
    errored = Verdict("refund-desk", None, "error", rules[3:], 0.0, "")
    assert first_problem(errored) == (
        "llm.allowedModels: could not be evaluated: no model call was recorded"
    )
    noted = Verdict("refund-desk", None, "pass", rules[:1], 1.0, "")
    assert first_problem(noted, capture_notes=["spans went elsewhere"]) == (
        "the capture is incomplete: spans went elsewhere"
    )
    assert run_check(verdict, "p", spans_seen=True).rules == (
        ("tools.required[lookup_order]", True),
        ("tools.forbidden[run_shell]", False),
        ("llm.allowedModels", False),  # could not be evaluated: not a pass
    )
    assert run_check(verdict, "p", spans_seen=False).rules == ()
