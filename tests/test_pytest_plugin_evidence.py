"""Evidence files of failing checks, through `pytester`: redacted by default (fake secrets
planted at run time are in none of them, and `tracecheck verify-safe` passes them), raw only
when asked (and the failure text says so), the verdict file as it always was."""

from __future__ import annotations

import base64
import json
import os
import secrets
import string
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk")

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT / "contracts" / "refund-desk.json"
STEM = "test_{name}.py_test_shell"


def _token(alphabet: str, size: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(size))


@pytest.fixture
def planted() -> dict[str, str]:
    """Fake secrets shaped like real ones, built at run time (no scanner sees them here)."""
    letters = string.ascii_letters + string.digits
    return {
        "openai": "sk-" + "proj-" + _token(letters, 40),
        "aws": "AKIA" + _token(string.ascii_uppercase + string.digits, 16),
        "bearer": "ghp_" + _token(letters, 36),
        "email": _token(string.ascii_lowercase, 8) + "@" + "example.com",
        "known": "zq9 Opaque/" + _token(letters, 12),
    }


# An agent whose spans carry the secrets on every surface: name, attributes, an exception
# event, the status message, and the resource of the app's own provider.
LEAKY = """
import json
import pytest
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import Status, StatusCode

PLANTED = {planted!r}
REFUND_DESK = {contract!r}

trace.set_tracer_provider(
    TracerProvider(resource=Resource.create({{"deploy.token": PLANTED["bearer"]}}))
)
TRACER = trace.get_tracer("leaky.agent")


def run_agent():
    with TRACER.start_as_current_span("invoke_agent refund " + PLANTED["known"]) as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        for tool in ("lookup_order", "issue_refund", "run_shell"):
            with TRACER.start_as_current_span("execute_tool " + tool) as span:
                span.set_attribute("gen_ai.operation.name", "execute_tool")
                span.set_attribute("gen_ai.tool.name", tool)
                span.set_attribute(
                    "gen_ai.tool.call.arguments",
                    json.dumps({{"order_id": "A-1", "amount": 12.5, "idempotency_key": "k-1",
                                "api_key": PLANTED["openai"], "contact": PLANTED["email"]}}),
                )
                span.set_attribute("http.request.header.authorization", "Bearer " + PLANTED["bearer"])
                span.set_attribute("crm.export", "aws_access_key_id=" + PLANTED["aws"])
                if tool == "run_shell":
                    span.record_exception(PermissionError("denied for " + PLANTED["known"]))
                    span.set_status(Status(StatusCode.ERROR, "token " + PLANTED["openai"]))
"""

TEST = """
import pytest
from conftest import REFUND_DESK, run_agent

@pytest.mark.trace_contract(REFUND_DESK)
def test_shell():
    run_agent()
"""


def _forms(value: str) -> list[bytes]:
    raw = value.encode()
    return [raw, base64.b64encode(raw), json.dumps(value).encode()[1:-1]]


def _verify_safe(
    path: Path, *env_names: str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tracecheck", "verify-safe", str(path), "--profile", "default"]
    for name in env_names:
        command += ["--known-secret-env", name]
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)


@pytest.fixture
def leaky(pytester: pytest.Pytester, planted: dict[str, str]) -> pytest.Pytester:
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider --strict-markers\n")
    pytester.makeconftest(LEAKY.format(planted=planted, contract=str(CONTRACT)))
    pytester.makepyfile(**{"test_leaky": TEST})
    return pytester


def test_evidence_is_redacted_and_passes_verify_safe(
    leaky: pytest.Pytester, planted: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPLOY_KEY", planted["known"])
    result = leaky.runpytest_subprocess(
        "--tracecheck-evidence-dir", "evidence", "--tracecheck-known-secret-env", "DEPLOY_KEY"
    )
    result.assert_outcomes(failed=1)
    evidence = leaky.path / "evidence"
    stem = STEM.format(name="leaky")
    spans_file, verdict_file = (
        evidence / f"{stem}.otlp.json",
        evidence / f"{stem}.refund-desk.verdict.json",
    )
    assert sorted(evidence.iterdir()) == sorted([spans_file, verdict_file])
    result.stdout.fnmatch_lines(
        [f"evidence (redacted, profile default): {spans_file} and {verdict_file}"]
    )
    for path in (spans_file, verdict_file):
        data = path.read_bytes()
        for name, value in planted.items():
            for form in _forms(value):
                assert form not in data, (path.name, name)
        checked = _verify_safe(path, "DEPLOY_KEY", env=dict(os.environ))
        assert checked.returncode == 0, checked.stdout + checked.stderr
    # The spans keep their shape: ids, kinds, tool names (a value holding a secret is replaced
    # whole, so the arguments of these calls are gone).
    from tracecheck import read_traces

    (trace,) = read_traces(spans_file)
    assert [s.tool_name for s in trace.spans if s.tool_name] == [
        "lookup_order",
        "issue_refund",
        "run_shell",
    ]
    assert json.loads(verdict_file.read_text())["trace_id"] == trace.trace_id


def test_raw_evidence_keeps_the_spans_and_says_so(
    leaky: pytest.Pytester, planted: dict[str, str]
) -> None:
    result = leaky.runpytest_subprocess(
        "--tracecheck-evidence-dir", "evidence", "--tracecheck-evidence-raw"
    )
    result.assert_outcomes(failed=1)
    evidence = leaky.path / "evidence"
    stem = STEM.format(name="leaky")
    result.stdout.fnmatch_lines(
        [
            "evidence (raw spans, not redacted: keep them local, never upload them): "
            f"{evidence / stem}.otlp.json and {evidence / stem}.refund-desk.verdict.json"
        ]
    )
    assert planted["openai"].encode() in (evidence / f"{stem}.otlp.json").read_bytes()


def test_an_unset_or_unusable_known_secret_is_said(
    leaky: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NOT_SET_HERE", raising=False)
    result = leaky.runpytest_subprocess(
        "--tracecheck-evidence-dir", "evidence", "--tracecheck-known-secret-env", "NOT_SET_HERE"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["evidence (redacted, profile default): *; $NOT_SET_HERE not set, so not cut"]
    )
    monkeypatch.setenv("TOO_SHORT", "abc")
    result = leaky.runpytest_subprocess(
        "--tracecheck-evidence-dir", "short", "--tracecheck-known-secret-env", "TOO_SHORT"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["evidence: *.verdict.json; the spans were not written: a known secret cannot be cut: *"]
    )
    assert [p.name for p in (leaky.path / "short").iterdir()] == [
        f"{STEM.format(name='leaky')}.refund-desk.verdict.json"
    ]


def test_the_verdict_file_is_as_it_was(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider --strict-markers\n")
    pytester.makepyfile(
        f"""
        import pytest

        REFUND_DESK = {str(CONTRACT)!r}

        def run_agent(tracer, tools):
            with tracer.start_as_current_span("invoke_agent refund"):
                with tracer.start_as_current_span("chat gpt-4.1-mini") as span:
                    span.set_attribute("gen_ai.operation.name", "chat")
                    span.set_attribute("gen_ai.request.model", "gpt-4.1-mini")
                for tool in tools:
                    with tracer.start_as_current_span("execute_tool " + tool) as span:
                        span.set_attribute("gen_ai.operation.name", "execute_tool")
                        span.set_attribute("gen_ai.tool.name", tool)

        @pytest.mark.parametrize("tools", [("lookup_order", "run_shell")], ids=["shell/1"])
        @pytest.mark.trace_contract(REFUND_DESK)
        def test_shell(trace_spans, tools):
            run_agent(trace_spans.tracer("agent"), tools)
        """
    )
    result = pytester.runpytest("--tracecheck-evidence-dir", "evidence")
    result.assert_outcomes(failed=1)
    evidence = pytester.path / "evidence"
    stem = "test_the_verdict_file_is_as_it_was.py_test_shell_shell_1"
    assert sorted(p.name for p in evidence.iterdir()) == [
        f"{stem}.otlp.json",
        f"{stem}.refund-desk.verdict.json",
    ]
    from tracecheck import read_traces

    (trace,) = read_traces(evidence / f"{stem}.otlp.json")
    assert [s.name for s in trace.spans] == [
        "chat gpt-4.1-mini",
        "execute_tool lookup_order",
        "execute_tool run_shell",
        "invoke_agent refund",
    ]
    verdict = json.loads((evidence / f"{stem}.refund-desk.verdict.json").read_text())
    assert sorted(verdict) == [
        "contract",
        "conventions",
        "notes",
        "reading_notes",
        "rules",
        "score",
        "status",
        "test",
        "trace_id",
        "version",
    ]
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
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.trace_contract({str(CONTRACT)!r})
        def test_shell(trace_spans):
            tracer = trace_spans.tracer("agent")
            with tracer.start_as_current_span("chat gpt-4.1-mini") as span:
                span.set_attribute("gen_ai.operation.name", "chat")
                span.set_attribute("gen_ai.request.model", "gpt-4.1-mini")
            with tracer.start_as_current_span("execute_tool run_shell") as span:
                span.set_attribute("gen_ai.operation.name", "execute_tool")
                span.set_attribute("gen_ai.tool.name", "run_shell")
        """
    )
    (pytester.path / "taken").write_text("a file, not a directory")
    result = pytester.runpytest("-p", "no:cacheprovider", "--tracecheck-evidence-dir", "taken")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            'trace contract "refund-desk" failed: *',
            f"evidence could not be written to {pytester.path / 'taken'}: *",
        ]
    )
