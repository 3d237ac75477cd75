"""GitHub Actions output: at most ten error annotations and one that counts the rest, and the
Markdown job summary appended to `$GITHUB_STEP_SUMMARY` (verdict table, failing rules with their
spans, files read), which never shows a violation's prose or an attribute value."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from tracecheck.cli import Environment, ExitCode, main
from tracecheck.report import CheckedTrace, ReadFailure, render_annotations, render_summary
from tracecheck.report.github import MAX_ANNOTATIONS
from tracecheck.verdict import RuleResult, Verdict, Violation

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = str(ROOT / "contracts" / "refund-desk.json")
CLEAN = str(ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl")
FORBIDDEN = str(ROOT / "fixtures" / "otel-genai" / "forbidden.otlp.jsonl")
REPEATED = str(ROOT / "fixtures" / "otel-genai" / "repeated-write.otlp.jsonl")


def failing(rules: int, violations: int) -> CheckedTrace:
    results = tuple(
        RuleResult(
            f"rule{r}",
            None,
            "fail",
            tuple(Violation(f"{v:016x}", f"violation {v}") for v in range(violations)),
            kind="never",
        )
        for r in range(rules)
    )
    verdict = Verdict("c", "t" * 32, "fail", results, 0.0, f"0/{rules} rules passed")
    return CheckedTrace("run.jsonl", "c.json", verdict)


def md(path: str) -> str:
    """A path as the summary shows it (underscores escaped)."""
    return path.replace("_", "\\_")


def errors_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("::error")]


@pytest.mark.parametrize(
    ("rules", "violations", "shown", "more"),
    [(2, 5, 10, None), (1, 3, 3, None), (3, 5, 9, 6), (4, 8, 9, 11), (11, 1, 9, 2)],
)
def test_at_most_ten_error_annotations_the_last_counting_the_rest(
    rules: int, violations: int, shown: int, more: int | None
) -> None:
    # GitHub shows ten error annotations per step: the count must be one of them.
    lines = errors_of(render_annotations([failing(rules, violations)]))
    assert len([line for line in lines if "file=" in line]) == shown <= MAX_ANNOTATIONS
    assert len(lines) <= MAX_ANNOTATIONS
    if more is None:
        assert len(lines) == shown
    else:
        noun = "failure" if more == 1 else "failures"
        assert lines[-1] == f"::error title=tracecheck::{more} more {noun}; see the job summary"
        assert len(lines) == MAX_ANNOTATIONS


def test_unread_inputs_count_among_the_ten() -> None:
    failures = [ReadFailure(f"f{i}.jsonl", "unreadable", f"f{i}.jsonl: broken") for i in range(12)]
    lines = errors_of(render_annotations([], failures))
    assert len(lines) == 10 and lines[-1].startswith("::error title=tracecheck::3 more failures")


def test_the_cli_caps_annotations_under_github_actions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    traces = [str(tmp_path / f"gone{i}.jsonl") for i in range(12)]
    assert main(["check", FORBIDDEN, *traces, "--contract", CONTRACT]) == ExitCode.UNREADABLE
    lines = errors_of(capsys.readouterr().out)
    assert len(lines) == 10
    assert lines[-1] == "::error title=tracecheck::4 more failures; see the job summary"


def run_with_summary(tmp_path: Path, *args: str) -> tuple[int, str]:
    summary = tmp_path / "summary.md"
    env = Environment.current(environ={"GITHUB_STEP_SUMMARY": str(summary)})
    code = main(["check", *args, "-q"], env=env)
    return code, summary.read_text(encoding="utf-8") if summary.exists() else ""


def test_the_job_summary_is_appended(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("# an earlier step\n\n")
    code, text = run_with_summary(tmp_path, CLEAN, FORBIDDEN, "--contract", CONTRACT)
    assert code == ExitCode.FAILED
    assert text.startswith("# an earlier step\n\n## tracecheck: ❌ FAIL\n\n")
    _, again = run_with_summary(tmp_path, CLEAN, "--contract", CONTRACT)
    assert again.startswith(text) and again.count("## tracecheck:") == 2
    assert again.endswith("\n\n")  # the next step's summary starts apart


def test_the_job_summary_holds_the_verdicts_the_failing_rules_and_the_files(
    tmp_path: Path,
) -> None:
    missing = str(tmp_path / "gone.jsonl")
    _, text = run_with_summary(
        tmp_path, CLEAN, FORBIDDEN, REPEATED, missing, "--contract", CONTRACT
    )
    lines = text.splitlines()
    assert lines[0] == "## tracecheck: ⚠️ ERROR"
    assert lines[2] == "3 verdicts: 1 pass, 2 fail; 1 input not read."
    table = lines[lines.index("| file | trace | contract | verdict | rules passed |") :]
    assert table[1] == "|---|---|---|---|---|"
    assert table[2:5] == [
        f"| {md(CLEAN)} | bdfc178765b50e0a8be66e350728be0e | refund-desk | ✅ PASS | 9/9 |",
        f"| {md(FORBIDDEN)} | 168b0270d96edde63163f0a84510227f | refund-desk | ❌ FAIL | 8/9 |",
        f"| {md(REPEATED)} | a3f01c4cdd491fd7b7734f89deccadde | refund-desk | ❌ FAIL | 8/9 |",
    ]
    assert "### Failing rules" in lines
    assert (
        "- tools.forbidden\\[run\\_shell\\] (never): failed at span 4b1b907d90c3da97 "
        "(tool run\\_shell)" in lines
    )
    assert any(
        line.startswith("- retries (retrySafe): failed at spans ")
        and "(tool issue\\_refund)" in line
        for line in lines
    )
    files = lines[lines.index("### Files read") + 2 :]
    assert files == [
        f"- {md(CLEAN)}: 1 trace",
        f"- {md(FORBIDDEN)}: 1 trace",
        f"- {md(REPEATED)}: 1 trace",
        f"- {md(CONTRACT)}: contract",
        f"- {md(missing)}: not read: {md(missing)}: no such file or directory",
        "",  # a blank line ends the summary
    ]
    # Prose is for the annotations and the text report: the summary shows data only.
    assert "matches never(" not in text


def test_rules_passed_agree_with_the_verdicts_own_count(tmp_path: Path) -> None:
    contracts = [
        arg
        for path in sorted((ROOT / "contracts").glob("*.json"))
        if path.name != "contract.schema.json"
        for arg in ("--contract", str(path))
    ]
    report = tmp_path / "r.json"
    _, text = run_with_summary(
        tmp_path, str(ROOT / "fixtures" / "otel-genai"), *contracts, "--json", str(report)
    )
    notes = [result["notes"].split(" ")[0] for result in json.loads(report.read_text())["results"]]
    rows = [line for line in text.splitlines() if line.startswith("| ") and "|---" not in line]
    assert [row.rsplit("|", 2)[-2].strip() for row in rows[1:]] == notes


def test_the_summary_never_shows_an_attribute_value_and_escapes_markup(tmp_path: Path) -> None:
    secret = "hunter2-value-of-an-attribute"
    span = {
        "traceId": "a" * 32,
        "spanId": "b" * 16,
        "name": "execute_tool run_shell",
        "kind": 1,
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "run_shell"}},
            {
                "key": "gen_ai.tool.call.arguments",
                "value": {"stringValue": json.dumps({"cmd": secret})},
            },
            {"key": "note", "value": {"stringValue": secret}},
        ],
    }
    trace = tmp_path / "<b>x|y<b>.json"
    trace.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    contract = tmp_path / "c.json"
    contract.write_text(
        json.dumps(
            {
                "name": "<img src=x onerror=alert(1)> | *bold* [link](http://x) @someone",
                "tools": {
                    "arguments": [{"tool": "run_shell", "pointer": "/cmd", "type": "number"}],
                },
            }
        )
    )
    code, text = run_with_summary(tmp_path, str(trace), "--contract", str(contract))
    assert code == ExitCode.FAILED
    assert secret not in text
    assert "<" not in text.replace("\\<", "") and "[link]" not in text and "*bold*" not in text
    assert "@someone" not in text.replace("\\@someone", "")
    for line in text.splitlines():
        if line.startswith("| ") and "FAIL" in line:
            assert len(re.findall(r"(?<!\\)\|", line)) == 6  # five cells, whatever the names
    assert "failed at span bbbbbbbbbbbbbbbb (tool run\\_shell, argument /cmd)" in text


def test_a_summary_that_cannot_be_written_is_a_warning(tmp_path: Path) -> None:
    # The outcome stands (a passing run stays green) and the warning says which file and why:
    # silenced, a CI job would lose its summary with no word of it.
    stdout, stderr = io.StringIO(), io.StringIO()
    env = Environment.current(
        environ={"GITHUB_STEP_SUMMARY": str(tmp_path)},  # a folder
        stdout=stdout,
        stderr=stderr,
    )
    assert main(["check", CLEAN, "--contract", CONTRACT, "-q"], env=env) == ExitCode.OK
    assert stderr.getvalue() == (
        f"tracecheck: warning: $GITHUB_STEP_SUMMARY ({tmp_path}): cannot write: Is a directory\n"
    )


def test_render_summary_of_nothing_and_of_errors() -> None:
    assert render_summary([]).startswith("## tracecheck: ✅ PASS\n\n0 verdicts.\n\n")
    error = RuleResult("r", None, "error", error="no run record", kind="run")
    verdict = Verdict(
        "c", None, "error", (error,), 0.0, "0/1 rules passed; 1 could not be evaluated"
    )
    text = render_summary([CheckedTrace("a.jsonl", None, verdict)])
    assert "- r (run): could not be evaluated\n" in text
    assert "| a.jsonl | (no trace id) | c | ⚠️ ERROR | 0/1 |" in text
