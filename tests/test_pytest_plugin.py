"""The pytest plugin, exercised only through `pytester` (the way its users meet it)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk")

# Imported here so that in-process pytester runs share these modules with this one.
import opentelemetry.sdk.trace.export.in_memory_span_exporter  # noqa: F401
from opentelemetry import trace

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT / "contracts" / "refund-desk.json"
FORBIDDEN = ROOT / "fixtures" / "otel-genai" / "forbidden.otlp.jsonl"

# The code under test in the generated test files: an agent that emits GenAI spans.
AGENT = """
import pytest
from opentelemetry import trace

REFUND_DESK = {contract!r}
FORBIDDEN = {forbidden!r}


def run_agent(tracer, tools=("lookup_order", "issue_refund")):
    with tracer.start_as_current_span("invoke_agent refund") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        for tool in tools:
            with tracer.start_as_current_span("execute_tool " + tool) as span:
                span.set_attribute("gen_ai.operation.name", "execute_tool")
                span.set_attribute("gen_ai.tool.name", tool)
                span.set_attribute(
                    "gen_ai.tool.call.arguments",
                    '{{"order_id": "A-1", "amount": 12.5, "idempotency_key": "k-1"}}',
                )
"""


def _literal(line: str) -> str:
    """An fnmatch pattern matching `line` exactly (rule labels hold brackets)."""
    return re.sub(r"([\[\]*?])", r"[\1]", line)


@pytest.fixture
def agent_tests(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(AGENT.format(contract=str(CONTRACT), forbidden=str(FORBIDDEN)))
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider --strict-markers\n")
    return pytester


def test_a_contract_that_holds_passes(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import REFUND_DESK, run_agent
        from tracecheck.testing import assert_contract

        @pytest.mark.trace_contract(REFUND_DESK)
        def test_marker(trace_spans):
            run_agent(trace_spans.tracer("agent"))

        def test_helper(trace_spans):
            run_agent(trace_spans.provider.get_tracer("agent"))
            verdict = trace_spans.assert_contract(REFUND_DESK)
            assert verdict.ok and len(trace_spans.spans()) == 3
            assert assert_contract(trace_spans.spans(), REFUND_DESK).status == "pass"
        """
    )
    agent_tests.runpytest().assert_outcomes(passed=2)


def test_a_failing_contract_reads_like_a_pytest_failure(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        from conftest import FORBIDDEN, REFUND_DESK
        from tracecheck.pytest_plugin import assert_contract

        def test_recorded(trace_spans):
            assert_contract(trace_spans.load(FORBIDDEN), REFUND_DESK)
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            ">       assert_contract(trace_spans.load(FORBIDDEN), REFUND_DESK)",
            _literal('E       AssertionError: trace contract "refund-desk" failed: 1 of 9 rules'),
            _literal(
                "E         - tools.forbidden[run_shell]: span 4b1b907d90c3da97 "
                '("execute_tool run_shell") matches never(kind=TOOL,tool=run_shell)'
            ),
            _literal(
                f"E       hint: run `tracecheck explain {CONTRACT}` to see what each rule requires"
            ),
            "test_a_failing_contract_reads_like_a_pytest_failure.py:5: AssertionError",
            "FAILED test_a_failing_contract_reads_like_a_pytest_failure.py::test_recorded*",
        ]
    )
    assert "assert_contract(spans_or_trace" not in result.stdout.str()  # helper frame hidden


def test_a_rule_shows_five_violations_then_counts_the_rest(agent_tests: pytest.Pytester) -> None:
    agent_tests.makefile(
        ".json", no_shell=json.dumps({"name": "no-shell", "tools": {"forbidden": ["run_shell"]}})
    )
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import run_agent

        @pytest.mark.trace_contract("no_shell.json")
        def test_shell_loop(trace_spans):
            run_agent(trace_spans.tracer("agent"), tools=["run_shell"] * 7)
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(failed=1)
    shown = r'      span * ("execute_tool run_shell") matches never(kind=TOOL,tool=run_shell)'
    result.stdout.fnmatch_lines(
        [
            "*_ test_shell_loop _*",
            'trace contract "no-shell" failed: 1 of 1 rules',
            _literal("  - tools.forbidden[run_shell]: 7 violations"),
            *[_literal(shown).replace("[*]", "*")] * 5,
            "      … and 2 more",
            "hint: run `tracecheck explain no_shell.json` to see what each rule requires",
        ]
    )


def test_the_marker_turns_a_violation_into_a_test_failure(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import REFUND_DESK, run_agent

        @pytest.mark.trace_contract(REFUND_DESK)
        def test_shell(trace_spans):
            run_agent(trace_spans.tracer("agent"), tools=("lookup_order", "issue_refund", "run_shell"))

        @pytest.mark.trace_contract(REFUND_DESK)
        def test_without_the_fixture():
            pass

        @pytest.mark.trace_contract(REFUND_DESK)
        def test_that_fails_by_itself(trace_spans):
            assert 1 == 2, "the test's own failure"
        """
    )
    result = agent_tests.runpytest("-rfE")
    result.assert_outcomes(failed=3)
    reports = result.reprec.getreports("pytest_runtest_logreport")  # type: ignore[attr-defined]
    failed = {r.nodeid.split("::")[1]: r.when for r in reports if r.failed}
    assert failed == {
        "test_shell": "call",
        "test_without_the_fixture": "call",
        "test_that_fails_by_itself": "call",
    }
    result.stdout.fnmatch_lines(
        [
            "*_ test_shell _*",
            'trace contract "refund-desk" failed: 1 of 9 rules',
            _literal(
                "  - tools.forbidden[run_shell]: span * matches never(kind=TOOL,tool=run_shell)"
            ).replace("[*]", "*"),
            "hint: *",
            "*_ test_without_the_fixture _*",
            'trace contract "refund-desk" could not be checked: 7 of 9 rules '
            "(2 could not be evaluated)",
            "no spans were captured: pass the fixture's provider or tracer to the code under test",
            "*_ test_that_fails_by_itself _*",
            "E       AssertionError: the test's own failure",
        ]
    )
    # The test's own failure section ends where the short summary begins; the summary
    # legitimately names the contract for the other two tests.
    own_section = result.stdout.str().split("test_that_fails_by_itself _")[1]
    assert "refund-desk" not in own_section.split("short test summary info")[0]


def test_a_broken_contract_in_the_marker_is_a_setup_error(agent_tests: pytest.Pytester) -> None:
    agent_tests.makefile(".json", broken=json.dumps({"name": "x", "tools": {"requird": ["a"]}}))
    agent_tests.makepyfile(
        """
        import pytest

        @pytest.mark.trace_contract("broken.json")
        def test_broken(trace_spans):
            pass

        @pytest.mark.trace_contract()
        def test_no_path(trace_spans):
            pass
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            '*trace_contract: *broken.json: tools: unknown key "requird"*',
            "*@pytest.mark.trace_contract needs one or more contract paths*",
        ]
    )


def test_a_missing_contract_file_is_a_setup_error_naming_it(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest

        @pytest.mark.trace_contract("contracts/missing.json")
        def test_missing(trace_spans):
            pass
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(errors=1)
    missing = agent_tests.path / "contracts" / "missing.json"
    result.stdout.fnmatch_lines([f"trace_contract: {missing}: cannot be read: *"])
    # One clear message: not the ContractError again as a chained exception.
    assert "During handling of the above exception" not in result.stdout.str()


def test_a_test_that_emits_no_span_fails_instead_of_passing_vacuously(
    agent_tests: pytest.Pytester,
) -> None:
    # Low-level rules get no capture-evidence error (contracts.md 4.11, 9.7): with no span at
    # all this contract would pass, though nothing was checked.
    agent_tests.makefile(
        ".json",
        never_bash=json.dumps(
            {
                "name": "never-bash",
                "rules": [{"kind": "never", "label": "n", "p": {"tool": "Bash"}}],
            }
        ),
    )
    agent_tests.makepyfile(
        """
        import pytest
        from tracecheck.testing import assert_contract

        @pytest.mark.trace_contract("never_bash.json")
        def test_marker(trace_spans):
            pass  # the code under test was not given the provider

        def test_helper(trace_spans):
            trace_spans.assert_contract("never_bash.json")

        def test_free_function():
            assert_contract([], "never_bash.json")

        @pytest.mark.trace_contract("never_bash.json")
        def test_with_a_span(trace_spans):
            with trace_spans.tracer("agent").start_as_current_span("work"):
                pass
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(failed=3, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_marker _*",
            'trace contract "never-bash" could not be checked: no spans were captured',
            "pass the fixture's provider or tracer to the code under test",
            "hint: run `tracecheck explain never_bash.json` to see what each rule requires",
            "*_ test_helper _*",
            '*AssertionError: trace contract "never-bash" could not be checked: no spans were captured',
            "*_ test_free_function _*",
            '*AssertionError: trace contract "never-bash" could not be checked: no spans were given',
        ]
    )


def test_marker_paths_are_relative_to_the_rootdir(agent_tests: pytest.Pytester) -> None:
    (agent_tests.path / "contracts").mkdir()
    (agent_tests.path / "contracts" / "refund-desk.json").write_bytes(CONTRACT.read_bytes())
    agent_tests.mkpydir("tests").joinpath("test_deep.py").write_text(
        "import pytest\n"
        "from conftest import run_agent\n\n"
        '@pytest.mark.trace_contract("contracts/refund-desk.json")\n'
        "def test_deep(trace_spans):\n"
        '    run_agent(trace_spans.tracer("agent"))\n'
    )
    agent_tests.chdir()
    result = agent_tests.runpytest("tests", "--rootdir", str(agent_tests.path))
    result.assert_outcomes(passed=1)


def test_the_evidence_dir_keeps_spans_and_verdict_of_a_failure(
    agent_tests: pytest.Pytester,
) -> None:
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import REFUND_DESK, run_agent

        @pytest.mark.parametrize("tools", [("lookup_order", "run_shell")], ids=["shell/1"])
        @pytest.mark.trace_contract(REFUND_DESK)
        def test_shell(trace_spans, tools):
            run_agent(trace_spans.tracer("agent"), tools=tools)

        @pytest.mark.trace_contract(REFUND_DESK)
        def test_clean(trace_spans):
            run_agent(trace_spans.tracer("agent"))
        """
    )
    result = agent_tests.runpytest("--tracecheck-evidence-dir", "evidence")
    result.assert_outcomes(passed=1, failed=1)
    evidence = agent_tests.path / "evidence"
    stem = "test_the_evidence_dir_keeps_spans_and_verdict_of_a_failure.py_test_shell_shell_1"
    assert sorted(p.name for p in evidence.iterdir()) == [
        f"{stem}.otlp.json",
        f"{stem}.refund-desk.verdict.json",
    ]
    result.stdout.fnmatch_lines(
        [f"evidence: {evidence / stem}.otlp.json and {evidence / stem}.refund-desk.verdict.json"]
    )
    from tracecheck import read_traces

    (trace,) = read_traces(evidence / f"{stem}.otlp.json")
    assert [s.name for s in trace.spans] == [
        "execute_tool lookup_order",
        "execute_tool run_shell",
        "invoke_agent refund",
    ]
    verdict = json.loads((evidence / f"{stem}.refund-desk.verdict.json").read_text())
    assert (verdict["version"], verdict["contract"], verdict["status"]) == (
        1,
        "refund-desk",
        "fail",
    )
    assert verdict["test"].endswith("::test_shell[shell/1]")
    assert verdict["trace_id"] == trace.trace_id
    failed = {r["label"] for r in verdict["rules"] if r["status"] == "fail"}
    assert "tools.forbidden[run_shell]" in failed


def test_an_evidence_dir_that_cannot_be_written_still_reports_the_verdict(
    agent_tests: pytest.Pytester,
) -> None:
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import REFUND_DESK, run_agent

        @pytest.mark.trace_contract(REFUND_DESK)
        def test_shell(trace_spans):
            run_agent(trace_spans.tracer("agent"), tools=("lookup_order", "run_shell"))
        """
    )
    (agent_tests.path / "taken").write_text("a file, not a directory")
    result = agent_tests.runpytest("--tracecheck-evidence-dir", "taken")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            'trace contract "refund-desk" failed: *',
            f"evidence could not be written to {agent_tests.path / 'taken'}: *",
        ]
    )


def test_the_fixture_leaves_the_global_provider_alone(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        from opentelemetry import trace

        def test_private(trace_spans):
            assert trace._TRACER_PROVIDER is None
            assert trace.get_tracer_provider() is not trace_spans.provider
            with trace.get_tracer("elsewhere").start_as_current_span("not captured"):
                pass
            with trace_spans.tracer("agent").start_as_current_span("captured"):
                pass
            assert [s.name for s in trace_spans.spans()] == ["captured"]
        """
    )
    agent_tests.runpytest().assert_outcomes(passed=1)
    assert trace._TRACER_PROVIDER is None


def test_the_global_provider_is_an_explicit_opt_in_and_restored(
    agent_tests: pytest.Pytester,
) -> None:
    agent_tests.makepyfile(
        """
        import pytest
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider

        BEFORE = TracerProvider()
        trace.set_tracer_provider(BEFORE)

        @pytest.mark.trace_spans(global_provider=True)
        def test_global(trace_spans):
            assert trace.get_tracer_provider() is trace_spans.provider
            trace.set_tracer_provider(TracerProvider())  # refused: the test's provider stays
            assert trace.get_tracer_provider() is trace_spans.provider
            with trace.get_tracer("instrumented").start_as_current_span("captured"):
                pass
            assert [s.name for s in trace_spans.spans()] == ["captured"]

        def test_after():
            assert trace.get_tracer_provider() is BEFORE

        @pytest.mark.trace_spans(global_provider=True, sampler="off")
        def test_unknown_option(trace_spans):
            pass
        """
    )
    result = agent_tests.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        ["*@pytest.mark.trace_spans takes only global_provider=True|False, not sampler*"]
    )


def test_the_global_provider_is_restored_when_it_was_unset(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest
        from opentelemetry import trace

        @pytest.mark.trace_spans(global_provider=True)
        def test_global(trace_spans):
            assert trace.get_tracer_provider() is trace_spans.provider
        """
    )
    agent_tests.runpytest().assert_outcomes(passed=1)
    assert trace._TRACER_PROVIDER is None
    assert trace._TRACER_PROVIDER_SET_ONCE._done is False


def test_loading_a_recorded_file(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import FORBIDDEN
        from tracecheck import TraceReadError

        def test_load(trace_spans):
            trace = trace_spans.load(FORBIDDEN)
            assert trace.trace_id and any(s.tool_name == "run_shell" for s in trace.spans)
            assert trace_spans.load(FORBIDDEN, trace_id=trace.trace_id) == trace
            with pytest.raises(TraceReadError, match="holds no trace with id 00"):
                trace_spans.load(FORBIDDEN, trace_id="00")
        """
    )
    agent_tests.runpytest().assert_outcomes(passed=1)


def test_without_the_sdk_the_fixture_names_the_extra(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import sys
        import pytest

        @pytest.fixture(autouse=True)
        def no_sdk(monkeypatch):
            monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)

        def test_needs_sdk(no_sdk, trace_spans):
            pass
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "the trace_spans fixture needs the OpenTelemetry SDK, which is not installed: "
            "pip install 'tracecheck[otel]'"
        ]
    )
    assert "During handling of the above exception" not in result.stdout.str()


def test_the_plugin_loads_from_its_entry_point_or_by_name(
    agent_tests: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_tests.makepyfile(
        """
        def test_fixture(trace_spans):
            assert trace_spans.spans() == []
        """
    )
    result = agent_tests.runpytest_subprocess("--help")
    result.stdout.fnmatch_lines(
        ["trace contracts (tracecheck):", "*--tracecheck-evidence-dir=DIR*"]
    )
    agent_tests.runpytest_subprocess().assert_outcomes(passed=1)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    by_name = agent_tests.runpytest_subprocess("-p", "tracecheck.pytest_plugin")
    by_name.assert_outcomes(passed=1)
    without = agent_tests.runpytest_subprocess()
    without.assert_outcomes(errors=1)
