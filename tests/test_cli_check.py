"""`tracecheck check`, `lint` and `explain`: reports, machine output and every exit code."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tracecheck.cli import ExitCode, main

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = str(ROOT / "contracts" / "refund-desk.json")


def recorded(scenario: str, instrumentation: str = "otel-genai") -> str:
    return str(ROOT / "fixtures" / instrumentation / f"{scenario}.otlp.jsonl")


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_passing_run_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", recorded("clean"), "--contract", CONTRACT]) == ExitCode.OK
    (line,) = capsys.readouterr().out.splitlines()
    assert line.endswith('contract "refund-desk" PASS (9/9 rules passed)')


def test_a_failing_rule_exits_1_and_names_its_span(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", recorded("forbidden"), "--contract", CONTRACT]) == ExitCode.FAILED
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith('contract "refund-desk" FAIL (8/9 rules passed)')
    assert out[1] == "  ✗ tools.forbidden[run_shell]"
    assert out[2].startswith("      span ") and out[2].endswith(
        '("execute_tool run_shell") matches never(kind=TOOL,tool=run_shell)'
    )
    assert len(out) == 3


def test_verbose_lists_passing_rules_and_quiet_only_verdicts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["check", recorded("forbidden"), "--contract", CONTRACT, "-v"])
    verbose = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("  ✓ ") for line in verbose) == 8
    main(["check", recorded("forbidden"), "--contract", CONTRACT, "-q"])
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_a_malformed_contract_exits_2_with_a_suggestion(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = write(tmp_path, "bad.json", '{"name": "x", "tools": {"requird": ["Read"]}}')
    assert main(["check", recorded("clean"), "--contract", bad]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert f'{bad}:1:15: tools: unknown key "requird" — did you mean "required"?' in err


def test_a_contradictory_contract_is_refused_and_warnings_are_printed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    contradictory = write(
        tmp_path, "c.json", '{"name": "x", "tools": {"required": ["Read"], "forbidden": ["Read"]}}'
    )
    assert main(["check", recorded("clean"), "--contract", contradictory]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "error [tools.required-and-forbidden]" in err
    warned = write(
        tmp_path,
        "w.json",
        '{"name": "x", "tools": {"requiredOrder": ["lookup_order", "issue_refund"]}}',
    )
    assert main(["check", recorded("clean"), "--contract", warned]) == ExitCode.OK
    assert "warning [tools.order-default-mode]" in capsys.readouterr().err


def test_a_rule_that_cannot_be_evaluated_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    no_tools = write(tmp_path, "t.json", '{"name": "x", "tools": {"maxCalls": 3}}')
    trace = write(
        tmp_path,
        "span.json",
        json.dumps(
            {
                "resourceSpans": [
                    {
                        "scopeSpans": [
                            {"spans": [{"traceId": "a" * 32, "spanId": "b" * 16, "name": "n"}]}
                        ]
                    }
                ]
            }
        ),
    )
    assert main(["check", trace, "--contract", no_tools]) == ExitCode.USAGE
    assert "tool capture cannot be confirmed" in capsys.readouterr().out


def test_unreadable_and_ambiguous_traces_exit_3_and_4(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = write(tmp_path, "broken.json", '{"resourceSpans": [')
    assert main(["check", broken, "--contract", CONTRACT]) == ExitCode.UNREADABLE
    record = {"type": "assistant", "session_id": "s", "traceId": "a" * 32, "spanId": "b" * 16}
    both = write(tmp_path, "both.jsonl", (json.dumps(record) + "\n") * 2)
    assert main(["check", both, "--contract", CONTRACT]) == ExitCode.AMBIGUOUS
    assert "pass --format claude-stream or --format spans" in capsys.readouterr().err


def test_usage_errors_exit_2() -> None:
    assert main(["check", recorded("clean")]) == ExitCode.USAGE  # no --contract
    assert (
        main(["check", recorded("clean"), "--contract", CONTRACT, "--trace-id", "f" * 32])
        == ExitCode.USAGE
    )


def test_json_report_on_stdout_keeps_the_summary_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", recorded("repeated-write"), "--contract", CONTRACT, "--json", "-"]) == 1
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert (report["version"], report["status"]) == (1, "fail")
    (result,) = report["results"]
    failed = [rule for rule in result["rules"] if rule["status"] == "fail"]
    assert [rule["label"] for rule in failed] == ["retries"]
    assert len(failed[0]["violations"]) == 2
    assert 'contract "refund-desk" FAIL' in captured.err


def test_junit_parses_back_with_one_case_per_rule(tmp_path: Path) -> None:
    junit = tmp_path / "out.xml"
    traces = [recorded("clean"), recorded("forbidden", "openinference")]
    assert main(["check", *traces, "--contract", CONTRACT, "--junit", str(junit), "-q"]) == 1
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("18", "1", "0")
    suites = root.findall("testsuite")
    assert [len(s.findall("testcase")) for s in suites] == [9, 9]
    (failure,) = root.iter("failure")
    assert "matches never(kind=TOOL,tool=run_shell)" in (failure.get("message") or "")


def test_github_annotations(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    main(["check", recorded("forbidden"), "--contract", CONTRACT])
    (annotation,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("::")]
    assert annotation.startswith(
        f"::error file={recorded('forbidden')},title=refund-desk%3A tools.forbidden[run_shell]::span "
    )


def test_lint_and_explain(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["lint", CONTRACT]) == ExitCode.OK
    assert capsys.readouterr().out.strip() == f"{CONTRACT}: no findings"
    contradictory = write(
        tmp_path, "c.json", '{"name": "x", "tools": {"required": ["Read"], "forbidden": ["Read"]}}'
    )
    assert main(["lint", contradictory]) == ExitCode.USAGE
    assert "error [tools.required-and-forbidden]" in capsys.readouterr().out
    assert main(["explain", CONTRACT]) == ExitCode.OK
    out = capsys.readouterr().out
    assert out.startswith('Contract "refund-desk" — ')
    assert "  - tools.forbidden[run_shell]: no span matches kind=TOOL,tool=run_shell" in out
    assert main(["explain", write(tmp_path, "bad.json", "{")]) == ExitCode.USAGE


def test_a_progress_line_for_large_or_slow_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import threading

    from tracecheck.cli import Environment
    from tracecheck.readers.by_trace import visit_traces

    main(["check", recorded("clean"), "--contract", CONTRACT])
    assert "reading" not in capsys.readouterr().err  # small and quick: silent
    large = Environment.current(progress_bytes=0)  # a large file: at once
    main(["check", recorded("clean"), "--contract", CONTRACT], env=large)
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"tracecheck: reading {recorded('clean')} (")
    assert err[1].startswith("tracecheck: read 11 spans in ")
    # A slow read (gzip, a directory, stdin): the line comes once the threshold has passed.
    announced = threading.Event()

    class Stderr(io.StringIO):
        def write(self, text: str) -> int:
            if text.startswith("tracecheck: reading"):
                announced.set()
            return super().write(text)

    def slow(source: object, visit: object, **kwargs: object) -> object:
        announced.wait(timeout=10)
        return visit_traces(source, visit, **kwargs)  # type: ignore[arg-type]

    stderr = Stderr()
    slowly = Environment.current(
        stderr=stderr, read=slow, progress_bytes=10**12, progress_seconds=0.01
    )
    main(["check", recorded("clean"), "--contract", CONTRACT], env=slowly)
    err = stderr.getvalue().splitlines()
    assert err[0] == f"tracecheck: reading {recorded('clean')}…"  # too small to give a size
    assert err[1].startswith("tracecheck: read 11 spans in ")


@pytest.mark.parametrize("quiet", [[], ["-q"]])
def test_a_reading_note_is_printed_once(
    capsys: pytest.CaptureFixture[str], quiet: list[str]
) -> None:
    # The folder holds each run twice (JSON Lines and protobuf): read together, their spans
    # are recorded twice and noted, once per trace however many contracts judge it.
    folder = str(ROOT / "fixtures" / "otel-genai")
    no_shell = str(ROOT / "contracts" / "no-shell.yaml")
    main(["check", folder, "--contract", CONTRACT, "--contract", no_shell, *quiet])
    out, err = capsys.readouterr()
    notes = [line.strip() for line in (out + err).splitlines() if line.strip().startswith("note: ")]
    assert notes and len(notes) == len(set(notes))
    assert any("recorded more than once" in note for note in notes)
    # Under the verdicts when they are shown, on stderr when they are not.
    assert all(not line.startswith("note: ") for line in err.splitlines()) or quiet
    assert all("note: " not in line for line in out.splitlines()) or not quiet
