"""The pytest plugin, exercised only through `pytester` (the way its users meet it): contracts
held in a test, failures that read in the contract's words. Capture under process-wide
instrumentation is in test_pytest_plugin_capture.py, evidence in test_pytest_plugin_evidence.py,
the cost of an unused plugin in test_pytest_plugin_cost.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from plugin_agent_support import agent_conftest, literal

pytest.importorskip("opentelemetry.sdk")

# Imported here so that in-process pytester runs share these modules with this one.
import opentelemetry.sdk.trace.export.in_memory_span_exporter  # noqa: F401
from opentelemetry import trace

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT / "contracts" / "refund-desk.json"
FORBIDDEN = ROOT / "fixtures" / "otel-genai" / "forbidden.otlp.jsonl"
REPEATED = ROOT / "fixtures" / "otel-genai" / "repeated-write.otlp.jsonl"


def _section(output: str, test: str) -> str:
    """The failure section of one test in pytest's output."""
    after = re.split(rf"\n_+ {re.escape(test)} _+\n", output, maxsplit=1)[1]
    return re.split(r"\n_{3,} |\n=+ short test summary", after, maxsplit=1)[0]


@pytest.fixture
def agent_tests(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(
        agent_conftest(REFUND_DESK=CONTRACT, FORBIDDEN=FORBIDDEN, REPEATED=REPEATED)
    )
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
            assert verdict.ok and len(trace_spans.spans()) == 5
            assert assert_contract(trace_spans.spans(), REFUND_DESK).status == "pass"
        """
    )
    agent_tests.runpytest().assert_outcomes(passed=2)


def test_a_failing_contract_reads_in_the_contracts_words(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        from conftest import FORBIDDEN, REFUND_DESK
        from tracecheck.testing.plugin import assert_contract

        def test_recorded(trace_spans):
            assert_contract(trace_spans.load(FORBIDDEN), REFUND_DESK)
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            ">       assert_contract(trace_spans.load(FORBIDDEN), REFUND_DESK)",
            literal('E       AssertionError: trace contract "refund-desk" failed: 1 of 9 rules'),
            literal(
                "E         - tools.forbidden[run_shell]: run_shell was called "
                '(span 4b1b907d90c3da97 "execute_tool run_shell")'
            ),
            literal(
                f"E       hint: run `tracecheck explain {CONTRACT}` to see what each rule requires"
            ),
            "test_a_failing_contract_reads_in_the_contracts_words.py:5: AssertionError",
            "FAILED test_a_failing_contract_reads_in_the_contracts_words.py::test_recorded*",
        ]
    )
    assert "assert_contract(spans_or_trace" not in result.stdout.str()  # helper frame hidden
    assert "never(" not in result.stdout.str()


def test_a_repeated_write_is_one_violation_per_repeated_call(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        from conftest import REPEATED, REFUND_DESK
        from tracecheck import read_traces
        from tracecheck.testing import assert_contract

        def test_recorded():
            assert_contract(read_traces(REPEATED)[0], REFUND_DESK)
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(failed=1)
    section = _section(result.stdout.str(), "test_recorded")
    bullets = [line for line in section.splitlines() if line.startswith("E         - ")]
    assert bullets == [
        "E         - retries: issue_refund was called 2 times with the same arguments "
        "(spans a5e166efe95ea15f, 5a019169d9e6364c) without an idempotency key at "
        "/idempotency_key, so it may have applied more than once"
    ]


def test_every_rule_kind_reads_without_the_rule_notation(agent_tests: pytest.Pytester) -> None:
    contract = {
        "name": "tight",
        "tools": {
            "required": ["lookup_order", "issue_refund"],
            "forbidden": ["run_shell"],
            "allowed": ["lookup_order", "issue_refund", "run_shell"],
            "maxCalls": 3,
            "maxCallsPerTool": {"run_shell": 1},
            "requiredOrder": ["lookup_order", "issue_refund"],
            "arguments": [{"tool": "issue_refund", "pointer": "/amount", "type": "number"}],
        },
        "llm": {"allowedModels": ["gpt-4.1-mini"], "maxTotalTokens": 250, "maxCalls": 3},
    }
    agent_tests.makefile(".json", tight=json.dumps(contract))
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import run_agent

        @pytest.mark.trace_contract("tight.json")
        def test_agent(trace_spans):
            run_agent(
                trace_spans.tracer("agent"),
                tools=["lookup_order", "run_shell", "run_shell", "delete_db"],
                model="gpt-4o",
            )
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(failed=1)
    section = _section(result.stdout.str(), "test_agent")
    lines = section.splitlines()
    assert lines[0] == 'trace contract "tight" failed: 10 of 11 rules'
    by_label = {
        line.split(": ", 1)[0].strip(" -"): line.split(": ", 1)[1]
        for line in lines
        if line.startswith("  - ")
    }
    span = r"span [0-9a-f]{16}"
    expected = {
        "tools.required[issue_refund]": (
            r"issue_refund was never called; tool calls seen: lookup_order, run_shell, delete_db"
        ),
        "tools.forbidden[run_shell]": r"run_shell was called 2 times \(spans [0-9a-f]{16}, "
        r"[0-9a-f]{16}\)",
        "tools.allowed": rf"delete_db was called, outside the allowed tools \({span} "
        r'"execute_tool delete_db"\)',
        "tools.maxCalls": r"4 tool calls, over the limit of 3",
        "tools.maxCallsPerTool[run_shell]": r"run_shell was called 2 times, over the limit of 1",
        "tools.requiredOrder[lookup_order->issue_refund]": r"issue_refund was never called",
        "tools.arguments[0] issue_refund /amount type number": (
            r"issue_refund was never called, so there is no argument to check"
        ),
        "llm.maxCalls": r"4 model calls, over the limit of 3",
        "llm.maxTotalTokens": r"440 tokens across 4 model calls, over the limit of 250",
        "llm.allowedModels": r"gpt-4o was used 4 times, outside the allowed models \(spans "
        r"[0-9a-f]{16}, [0-9a-f]{16}, [0-9a-f]{16}, [0-9a-f]{16}\)",
    }
    assert sorted(by_label) == sorted(expected)
    for label, pattern in expected.items():
        assert re.fullmatch(pattern, by_label[label]), (label, by_label[label])
    for notation in ("never(", "eventually(", "always(", "kind=TOOL", "kind=LLM", "oneOf("):
        assert notation not in section


def test_a_rule_shows_five_violations_then_counts_the_rest(agent_tests: pytest.Pytester) -> None:
    agent_tests.makefile(
        ".json",
        no_shell=json.dumps(
            {
                "name": "no-shell",
                "rules": [
                    {
                        "kind": "never",
                        "label": "no-shell",
                        "p": {"kind": "TOOL", "name": {"$regex": "shell"}},
                    }
                ],
            }
        ),
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
    shown = r'      span * ("execute_tool run_shell") matches kind=TOOL,name=/shell/'
    result.stdout.fnmatch_lines(
        [
            "*_ test_shell_loop _*",
            'trace contract "no-shell" failed: 1 of 1 rules',
            literal("  - no-shell: 7 violations"),
            *[literal(shown).replace("[*]", "*")] * 5,
            "      … and 2 more",
            "hint: run `tracecheck explain no_shell.json` to see what each rule requires",
        ]
    )


def test_reading_notes_follow_the_bullets(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import REFUND_DESK, run_agent

        @pytest.mark.trace_contract(REFUND_DESK)
        def test_no_model_calls(trace_spans):
            run_agent(trace_spans.tracer("agent"), tools=("lookup_order", "run_shell"), model=None)
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(failed=1)
    section = _section(result.stdout.str(), "test_no_model_calls")
    lines = section.splitlines()
    notes = [line for line in lines if line.startswith("  note: ")]
    assert notes == [
        "  note: 2 tool calls are recorded but no model call: the producer may not record "
        "them, so rules about models see none"
    ]
    assert lines.index(notes[0]) > max(i for i, line in enumerate(lines) if line.startswith("  - "))
    assert lines[-1].startswith("hint: ")


def test_doubt_about_capture_fails_a_test_unless_capture_is_lenient(
    agent_tests: pytest.Pytester,
) -> None:
    # No model call recorded: the rules about models could not be evaluated, by default.
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import REFUND_DESK, run_agent

        @pytest.mark.trace_contract(REFUND_DESK)
        def test_strict(trace_spans):
            run_agent(trace_spans.tracer("agent"), model=None)

        @pytest.mark.trace_contract(REFUND_DESK, capture="lenient")
        def test_lenient_marker(trace_spans):
            run_agent(trace_spans.tracer("agent"), model=None)

        def test_lenient_call(trace_spans):
            run_agent(trace_spans.tracer("agent"), model=None)
            verdict = trace_spans.assert_contract(REFUND_DESK, capture="lenient")
            assert verdict.ok and verdict.reading_notes

        @pytest.mark.trace_contract(REFUND_DESK, capture="strict")
        def test_strict_marker(trace_spans):
            run_agent(trace_spans.tracer("agent"), model=None)
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(passed=2, failed=2)
    section = _section(result.stdout.str(), "test_strict")
    assert section.splitlines()[0] == (
        'trace contract "refund-desk" could not be checked: 2 of 9 rules (2 could not be evaluated)'
    )
    assert (
        "  - llm.maxTotalTokens: could not be evaluated: 2 tool calls are recorded but no model "
        "call: the producer may not record them, so rules about models see none"
    ) in section.splitlines()
    # The whole run lenient, by option or ini; a marker's own strict capture still holds.
    result = agent_tests.runpytest("--tracecheck-lenient-capture")
    result.assert_outcomes(passed=3, failed=1)
    agent_tests.makeini(
        "[pytest]\naddopts = -p no:cacheprovider --strict-markers\n"
        "tracecheck_lenient_capture = true\n"
    )
    agent_tests.runpytest().assert_outcomes(passed=3, failed=1)


def test_the_contract_marker_takes_only_a_known_capture(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import REFUND_DESK

        @pytest.mark.trace_contract(REFUND_DESK, capture="loose")
        def test_unknown_capture(trace_spans):
            pass

        @pytest.mark.trace_contract(REFUND_DESK, strict=True)
        def test_unknown_option(trace_spans):
            pass
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            '*@pytest.mark.trace_contract takes only capture="strict"|"lenient" and '
            "prices=FILE beside its contract paths, not 'loose'*",
            '*@pytest.mark.trace_contract takes only capture="strict"|"lenient" and '
            "prices=FILE beside its contract paths, not strict*",
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
            literal(
                '  - tools.forbidden[run_shell]: run_shell was called (span * "execute_tool run_shell")'
            ).replace("[*]", "*"),
            "hint: *",
            "*_ test_without_the_fixture _*",
            'trace contract "refund-desk" could not be checked: no spans were captured; *',
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
            '*trace_contract: *broken.json:1:*: tools: unknown key "requird"*',
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


def test_no_captured_span_is_one_line_naming_the_cause(agent_tests: pytest.Pytester) -> None:
    # Low-level rules get no capture-evidence error (contracts.md 4.11, 9.7): with no span at
    # all this contract would pass, though nothing was checked; the refund desk's would fail
    # seven rules, none of which is the cause.
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
        from conftest import REFUND_DESK
        from opentelemetry import trace
        from tracecheck.testing import assert_contract

        @pytest.mark.trace_contract("never_bash.json")
        def test_marker(trace_spans):
            pass  # the code under test was not given the provider

        @pytest.mark.trace_contract(REFUND_DESK)
        def test_refund_desk(trace_spans):
            with trace.get_tracer("app").start_as_current_span("not captured"):
                pass  # no SDK provider is installed: a no-op span

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
    result.assert_outcomes(failed=4, passed=1)
    output = result.stdout.str()
    cause = (
        "no spans were captured; no OpenTelemetry SDK TracerProvider is installed globally: "
        "for instrumentation set up once, mark the test "
        "@pytest.mark.trace_spans(global_provider=True) or set tracecheck_global_provider = "
        "true in the ini file; for code that takes a provider, hand it trace_spans.provider"
    )
    for test, contract in (("test_marker", "never-bash"), ("test_refund_desk", "refund-desk")):
        assert _section(output, test).strip().splitlines() == [
            f'trace contract "{contract}" could not be checked: {cause}'
        ]
    assert f'E       AssertionError: trace contract "never-bash" could not be checked: {cause}' in (
        _section(output, "test_helper")
    )
    assert (
        'AssertionError: trace contract "never-bash" could not be checked: no spans were given; '
        "pass the spans the code under test emitted, or a trace read from a file"
    ) in _section(output, "test_free_function")


def test_no_span_under_a_disabled_sdk_says_so(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest
        from conftest import REFUND_DESK, run_agent

        @pytest.mark.trace_contract(REFUND_DESK)
        def test_disabled(trace_spans, monkeypatch):
            monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            'trace contract "refund-desk" could not be checked: no spans were captured; '
            "OTEL_SDK_DISABLED is set, so the OpenTelemetry SDK records nothing; unset it"
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


def test_the_fixture_leaves_an_unset_global_provider_alone(agent_tests: pytest.Pytester) -> None:
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


def test_the_marker_takes_only_known_options(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        import pytest

        @pytest.mark.trace_spans(global_provider=True, sampler="off")
        def test_unknown_option(trace_spans):
            pass

        @pytest.mark.trace_spans(True)
        def test_positional(trace_spans):
            pass
        """
    )
    result = agent_tests.runpytest()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            "*@pytest.mark.trace_spans takes only global_provider=True|False, not sampler*",
            "*@pytest.mark.trace_spans takes only global_provider=True|False, not positional "
            "arguments*",
        ]
    )


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
            monkeypatch.delitem(sys.modules, "tracecheck.testing.capture", raising=False)

        def test_needs_sdk(no_sdk, trace_spans):
            pass
        """
    )
    result = agent_tests.runpytest_subprocess()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "the trace_spans fixture needs the OpenTelemetry SDK, which is not installed: "
            "pip install 'agent-tracecheck[otel]'"
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
        [
            "trace contracts (tracecheck):",
            "*--tracecheck-evidence-dir=DIR*",
            "*--tracecheck-known-secret-env=NAME*",
            "*--tracecheck-evidence-raw*",
            "*tracecheck_global_provider (bool):*",
        ]
    )
    agent_tests.runpytest_subprocess().assert_outcomes(passed=1)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    by_name = agent_tests.runpytest_subprocess("-p", "tracecheck.testing.plugin")
    by_name.assert_outcomes(passed=1)
    without = agent_tests.runpytest_subprocess()
    without.assert_outcomes(errors=1)
