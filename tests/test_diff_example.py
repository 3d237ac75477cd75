"""The golden-run example works as shipped (examples/golden-run/): its workflow's commands run
on the refund desk with the scripted model (record a run, diff it against the committed golden,
redact it for upload) and gate as they should, and its pytest project passes and fails where it
says. Skipped without the examples extra (openai and OpenLLMetry's instrumentation)."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tracecheck.cli import Environment, ExitCode, main
from tracecheck.cli.app import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "golden-run"
WORKFLOW = EXAMPLE / "golden-run.yml"
QUESTION = "Order A-1001 arrived broken. Please refund the 42.5 EUR I paid."
PAYMENT_LOG = "Was I charged twice for order A-1001? Please check the payment log."


def needs_the_agent() -> None:
    for module in ("openai", "opentelemetry.instrumentation.openai"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed: pip install -e '.[examples]'")


def steps() -> list[dict[str, Any]]:
    (job,) = yaml.safe_load(WORKFLOW.read_text())["jobs"].values()
    found: list[dict[str, Any]] = job["steps"]
    return found


def commands(program: str) -> list[list[str]]:
    """The argument lists of every `<program> ...` line the workflow's steps run."""
    found = []
    for step in steps():
        words = shlex.split(str(step.get("run", "")), comments=True)
        if words and words[0] == program:
            found.append(words[1:])
    return found


def clean_environ() -> dict[str, str]:
    """This process's environment without model, tracing or pytest settings."""
    prefixes = ("PYTEST_", "OPENAI_", "OTEL_", "LANGSMITH_", "LANGCHAIN_", "GITHUB_")
    return {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}


def record(where: Path, out: str, question: str) -> None:
    (words,) = [words for words in commands("python") if words[0].endswith("record.py")]
    assert words[:3] == ["examples/golden-run/record.py", "--out", "runs/refund.otlp.pb"]
    command = [sys.executable, words[0], "--fake-model", "--out", out, question]
    result = subprocess.run(
        command, cwd=where, env=clean_environ(), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_workflow_records_diffs_gates_and_uploads() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    trigger = workflow.get("on", workflow.get(True))  # PyYAML reads `on` as YAML 1.1's true
    assert "pull_request" in trigger
    assert workflow["permissions"]["security-events"] == "write"
    names = [step.get("name", "") for step in steps()]
    assert names.index("Record a run of the agent") < names.index("Diff it against the golden run")
    uses = [step["uses"] for step in steps() if "uses" in step]
    assert all(re.fullmatch(r"(actions|github/codeql-action)/[a-z-]+@v\d+", use) for use in uses)
    uploads = [step for step in steps() if "upload" in step.get("uses", "")]
    assert len(uploads) == 2 and all(step.get("if") == "always()" for step in uploads)
    assert [words[0] for words in commands("tracecheck")] == ["diff", "redact"]
    parser, known = build_parser(), {name for name, _ in COMMANDS}
    for words in commands("tracecheck"):
        assert words[0] in known
        parser.parse_args(words)  # every option exists


def run_workflow(where: Path, environ: dict[str, str]) -> list[int]:
    streams = io.StringIO(), io.StringIO(), io.StringIO()
    return [main(words, env=Environment(*streams, environ)) for words in commands("tracecheck")]


def test_the_workflows_commands_gate_on_the_golden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_the_agent()
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    record(tmp_path, "runs/refund.otlp.pb", QUESTION)
    monkeypatch.chdir(tmp_path)
    summary = tmp_path / "summary.md"
    environ = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    assert run_workflow(tmp_path, environ) == [ExitCode.OK, ExitCode.OK]
    report = json.loads((tmp_path / "reports" / "diff.json").read_text())
    assert report["status"] == "same" and report["changed"] == []
    assert (tmp_path / "reports" / "diff.xml").is_file()
    assert (tmp_path / "reports" / "refund.redacted.otlp.pb").is_file()
    assert summary.read_text().startswith("## tracecheck diff: ✅ SAME\n")
    # A run that opens a shell where the golden issues the refund fails the job.
    record(tmp_path, "runs/refund.otlp.pb", PAYMENT_LOG)
    summary.write_text("")
    assert run_workflow(tmp_path, environ)[0] == ExitCode.FAILED
    sarif = json.loads((tmp_path / "reports" / "diff.sarif").read_text())
    rules = sorted(result["ruleId"] for result in sarif["runs"][0]["results"])
    assert rules == ["diff/added", "diff/missing"]
    text = summary.read_text()
    assert text.startswith("## tracecheck diff: ❌ DIFFERENT\n")
    assert (
        "**First divergence:** baseline step 2 (issue\\_refund), run step 2 (run\\_shell)" in text
    )


def test_the_example_tests_pass_and_fail_where_they_say() -> None:
    needs_the_agent()
    environ = {**clean_environ(), "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", str(EXAMPLE), "-p", "no:cacheprovider", "-q"],
        cwd=EXAMPLE,
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
    )
    where = result.stdout + result.stderr
    assert result.returncode == 1, where
    assert re.search(r"^1 failed, 1 passed in ", result.stdout, re.MULTILINE), where
    assert "FAILED test_refund_golden.py::test_payment_log_parts_from_the_golden" in where
    assert (
        "golden run goldens/refund.otlp.json: the run differs (1 call added, 1 call missing)"
        in result.stdout
    ), where
    assert not (EXAMPLE / "runs").exists()
