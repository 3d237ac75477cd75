"""Golden runs in the pytest plugin, exercised only through `pytester`: a missing golden fails
unless `--update-golden` records it (redacted, never a secret on disk), a run that parts from
its golden fails with the diff, `--update-golden` rewrites it, the marker does what the fixture
method does, and wrong options are a setup error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk")

# Imported here so that in-process pytester runs share these modules with this one.
import opentelemetry.sdk.trace.export.in_memory_span_exporter  # noqa: F401

from tracecheck import read_traces

pytest_plugins = ["pytester"]

# The code under test: an agent that asks a model, then calls each tool, GenAI attributes.
AGENT = """
import json

SECRET = "ghp_" + "q7W3" * 9  # a fake GitHub token, built at run time


def run_agent(tracer, tools=("lookup_order", "issue_refund"), amount=12.5, secret=False):
    with tracer.start_as_current_span("invoke_agent refund") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        for tool in (*tools, None):
            with tracer.start_as_current_span("chat gpt-4.1-mini") as chat:
                chat.set_attribute("gen_ai.operation.name", "chat")
                chat.set_attribute("gen_ai.request.model", "gpt-4.1-mini")
                chat.set_attribute("gen_ai.usage.input_tokens", 100)
                chat.set_attribute("gen_ai.usage.output_tokens", 10)
            if tool is None:
                break
            with tracer.start_as_current_span("execute_tool " + tool) as span:
                span.set_attribute("gen_ai.operation.name", "execute_tool")
                span.set_attribute("gen_ai.tool.name", tool)
                arguments = {"order_id": "A-1", "amount": amount}
                if secret:
                    arguments["auth"] = SECRET
                span.set_attribute("gen_ai.tool.call.arguments", json.dumps(arguments))
"""

GOLDEN = "goldens/refund.otlp.json"


@pytest.fixture
def agent_tests(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(AGENT)
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider --strict-markers\n")
    return pytester


TESTS = """
import pytest
from conftest import run_agent

def test_refund(trace_spans):
    run_agent(trace_spans.tracer("agent"){arguments})
    trace_spans.assert_matches_golden("goldens/refund.otlp.json"{options})
"""


def write_test(pytester: pytest.Pytester, arguments: str = "", options: str = "") -> None:
    pytester.makepyfile(test_golden=TESTS.format(arguments=arguments, options=options))


def test_a_missing_golden_fails_unless_update_golden_records_it(
    agent_tests: pytest.Pytester,
) -> None:
    write_test(agent_tests)
    result = agent_tests.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"E       AssertionError: golden run {GOLDEN} does not exist: run pytest "
            "--update-golden to record it from this test's spans, then review the file and "
            "commit it",
        ]
    )
    assert not (agent_tests.path / GOLDEN).exists()
    result = agent_tests.runpytest("--update-golden")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*= tracecheck golden runs =*", f"recorded {GOLDEN}"])
    (trace,) = read_traces(agent_tests.path / GOLDEN)
    tools = [span.tool_name for span in trace.spans if span.tool_name]
    assert sorted(tools) == ["issue_refund", "lookup_order"]
    # The same run again, without the option: it matches, and nothing is written.
    before = (agent_tests.path / GOLDEN).read_bytes()
    result = agent_tests.runpytest()
    result.assert_outcomes(passed=1)
    assert "q7W3" not in result.stdout.str()
    assert "tracecheck golden runs" not in result.stdout.str()
    assert (agent_tests.path / GOLDEN).read_bytes() == before


def test_the_golden_file_holds_no_secret(agent_tests: pytest.Pytester) -> None:
    write_test(agent_tests, arguments=", secret=True")
    agent_tests.runpytest("--update-golden").assert_outcomes(passed=1)
    text = (agent_tests.path / GOLDEN).read_text()
    assert "q7W3" not in text
    # The arguments are JSON: the redactor cuts the token's value and keeps the rest.
    (trace,) = read_traces(agent_tests.path / GOLDEN)
    arguments = [span.arguments.value for span in trace.spans if span.tool_name]
    assert [sorted(a) for a in arguments] == [["amount", "auth", "order_id"]] * 2
    assert {a["auth"] for a in arguments} == {"[REDACTED:credential-key]"}
    # Compared with a run redacted the same way, the run matches its golden, arguments too.
    agent_tests.runpytest().assert_outcomes(passed=1)
    write_test(agent_tests, arguments=", secret=True", options=', match_arguments="exact"')
    result = agent_tests.runpytest()
    result.assert_outcomes(passed=1)
    assert "q7W3" not in result.stdout.str()


def test_the_gate_refuses_a_golden_that_holds_a_known_secret(
    agent_tests: pytest.Pytester,
) -> None:
    """The known secrets gate the golden as they gate evidence: here one the redactor leaves
    in place (the trace id, which no redaction touches) is found in the bytes, and nothing is
    written."""
    agent_tests.makepyfile(
        test_golden="""
from conftest import run_agent

def test_refund(trace_spans, monkeypatch):
    run_agent(trace_spans.tracer("agent"))
    monkeypatch.setenv("GOLDEN_KEY", trace_spans.spans()[0].trace_id)
    trace_spans.assert_matches_golden("goldens/refund.otlp.json")
"""
    )
    result = agent_tests.runpytest("--update-golden", "--tracecheck-known-secret-env", "GOLDEN_KEY")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"E       AssertionError: golden run {GOLDEN} was not written: the test's spans, "
            "redacted, are still UNSAFE under profile default",
        ]
    )
    assert not (agent_tests.path / GOLDEN).exists()
    # Without the known secret, the same spans pass the gate.
    agent_tests.runpytest("--update-golden").assert_outcomes(passed=1)


def test_an_unset_known_secret_variable_is_said(agent_tests: pytest.Pytester) -> None:
    write_test(agent_tests)
    option = ("--tracecheck-known-secret-env", "NOT_SET_HERE")
    result = agent_tests.runpytest(*option)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"E       AssertionError: golden run {GOLDEN} does not exist: *; $NOT_SET_HERE not set, "
            "so not cut"
        ]
    )
    result = agent_tests.runpytest("--update-golden", *option)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"recorded {GOLDEN}; $NOT_SET_HERE not set, so not cut"])
    write_test(agent_tests, arguments=', tools=("lookup_order",)')
    result = agent_tests.runpytest(*option)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"E       AssertionError: golden run {GOLDEN}: the run differs (*); $NOT_SET_HERE not "
            "set, so not cut"
        ]
    )


def test_a_run_that_parts_from_its_golden_fails_with_the_diff(agent_tests: pytest.Pytester) -> None:
    write_test(agent_tests)
    agent_tests.runpytest("--update-golden").assert_outcomes(passed=1)
    write_test(agent_tests, arguments=', tools=("lookup_order", "run_shell", "issue_refund")')
    result = agent_tests.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"E       AssertionError: golden run {GOLDEN}: the run differs (1 call added; "
            "tokens over the tolerance)",
            "E         baseline: trace *, 2 steps, 2 tool calls, 3 model calls",
            "E         run:      trace *, 3 steps, 3 tool calls, 4 model calls",
            "E         first divergence: baseline step 2 (issue_refund), run step 2 "
            "(run_shell): the baseline has no call to match run_shell (added)",
            "E         + run_shell (span *) at run step 2: added",
            "E         ✗ tokens: 330 → 440 (+110, +33.3%): over the tolerance of 10%",
            "E       hint: if the new run is right, run pytest --update-golden and review the "
            "rewritten file",
        ]
    )
    assert "q7W3" not in result.stdout.str()
    # Accepted: the golden is rewritten, and the next run matches it.
    result = agent_tests.runpytest("--update-golden")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"rewritten {GOLDEN}"])
    agent_tests.runpytest().assert_outcomes(passed=1)


def test_argument_changes_count_only_when_matched(agent_tests: pytest.Pytester) -> None:
    write_test(agent_tests)
    agent_tests.runpytest("--update-golden").assert_outcomes(passed=1)
    write_test(agent_tests, arguments=", amount=99")
    agent_tests.runpytest().assert_outcomes(passed=1)  # reported only: the same path
    write_test(agent_tests, arguments=", amount=99", options=', match_arguments="exact"')
    result = agent_tests.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E         first divergence: baseline step 1 (lookup_order), run step 1 "
            "(lookup_order): the arguments of lookup_order differ",
            "E         ~ lookup_order (*): /amount changed: 12.5 → 99",
        ]
    )


def test_the_marker_compares_after_the_test_body(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        test_marked="""
        import pytest
        from conftest import run_agent

        @pytest.mark.trace_golden("goldens/marked.otlp.jsonl", tokens_tolerance="off")
        def test_refund(trace_spans):
            run_agent(trace_spans.tracer("agent"))

        @pytest.mark.trace_golden("goldens/marked.otlp.jsonl", tokens_tolerance="off")
        def test_more(trace_spans):
            run_agent(trace_spans.tracer("agent"), tools=("lookup_order",))
        """
    )
    result = agent_tests.runpytest("-k", "test_refund", "--update-golden")
    result.assert_outcomes(passed=1)
    golden = agent_tests.path / "goldens" / "marked.otlp.jsonl"
    assert len(golden.read_bytes().splitlines()) == 1  # JSONL, as its name says
    json.loads(golden.read_bytes())
    result = agent_tests.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*golden run goldens/marked.otlp.jsonl: the run differs (1 call missing)",
            "*- issue_refund (span *) at baseline step 2: missing",
        ]
    )


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ("@pytest.mark.trace_golden()", "@pytest.mark.trace_golden needs one golden run path*"),
        (
            '@pytest.mark.trace_golden("g.json", tolerance="5%")',
            "@pytest.mark.trace_golden takes only tokens_tolerance, duration_tolerance, "
            "match_arguments, capture, trace_id beside its golden path, not tolerance",
        ),
        (
            '@pytest.mark.trace_golden("g.json", tokens_tolerance="lots")',
            "@pytest.mark.trace_golden 'lots' is not a tolerance*",
        ),
    ],
)
def test_a_wrong_marker_is_a_setup_error(
    agent_tests: pytest.Pytester, marker: str, message: str
) -> None:
    agent_tests.makepyfile(f"import pytest\n\n{marker}\ndef test_it(trace_spans):\n    pass\n")
    result = agent_tests.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])


def test_a_test_that_emits_nothing_fails(agent_tests: pytest.Pytester) -> None:
    agent_tests.makepyfile(
        """
        def test_nothing(trace_spans):
            trace_spans.assert_matches_golden("goldens/refund.otlp.json")
        """
    )
    result = agent_tests.runpytest("--update-golden")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"E       AssertionError: golden run {GOLDEN} could not be compared: no spans were captured*"
        ]
    )
    assert not Path(agent_tests.path / GOLDEN).exists()


def test_an_unreadable_golden_fails_and_update_golden_replaces_it(
    agent_tests: pytest.Pytester,
) -> None:
    write_test(agent_tests)
    (agent_tests.path / "goldens").mkdir()
    (agent_tests.path / GOLDEN).write_text("{not json")
    result = agent_tests.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"E       AssertionError: golden run {GOLDEN} cannot be read: *"])
    agent_tests.runpytest("--update-golden").assert_outcomes(passed=1)
    agent_tests.runpytest().assert_outcomes(passed=1)
