"""`tracecheck check` on awkward inputs: mixed outcomes, empty inputs, stdin, hostile text,
and JUnit XML held to the common (Jenkins/Surefire) JUnit schema."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tracecheck.cli import Environment, ExitCode, main

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = str(ROOT / "contracts" / "refund-desk.json")
CLEAN = str(ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl")
FORBIDDEN = str(ROOT / "fixtures" / "otel-genai" / "forbidden.otlp.jsonl")
FORBIDDEN_TRACE = "168b0270d96edde63163f0a84510227f"


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def otlp(*spans: dict[str, Any]) -> str:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]})


def tool_span(span_id: str, name: str, tool: str) -> dict[str, Any]:
    return {
        "traceId": "a" * 32,
        "spanId": span_id,
        "name": name,
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": "2000",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": tool}},
        ],
    }


def ambiguous(tmp_path: Path) -> str:
    record = {"type": "assistant", "session_id": "s", "traceId": "a" * 32, "spanId": "b" * 16}
    return write(tmp_path, "both.jsonl", (json.dumps(record) + "\n") * 2)


def tool_free_trace(tmp_path: Path) -> str:
    return write(tmp_path, "no-tools.json", otlp({"traceId": "c" * 32, "spanId": "d" * 16}))


# --- exit codes when outcomes mix: every input is read, the highest code wins ---------------


def test_an_unreadable_trace_beside_a_failing_one_exits_3_and_still_reports_the_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = str(tmp_path / "missing.jsonl")
    assert main(["check", missing, FORBIDDEN, "--contract", CONTRACT]) == ExitCode.UNREADABLE
    # In the other order too: the code does not depend on which input comes first.
    assert main(["check", FORBIDDEN, missing, "--contract", CONTRACT]) == ExitCode.UNREADABLE
    captured = capsys.readouterr()
    assert captured.out.count('contract "refund-desk" FAIL') == 2
    assert f"tracecheck: error: {missing}: no such file or directory" in captured.err


def test_an_ambiguous_trace_outranks_an_unreadable_one(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.jsonl")
    both = ambiguous(tmp_path)
    assert main(["check", missing, both, CLEAN, "--contract", CONTRACT]) == ExitCode.AMBIGUOUS
    assert main(["check", both, missing, "--contract", CONTRACT]) == ExitCode.AMBIGUOUS


def test_a_rule_error_outranks_a_failure_and_an_unreadable_trace_outranks_both(
    tmp_path: Path,
) -> None:
    no_tools = tool_free_trace(tmp_path)
    args = [no_tools, FORBIDDEN, "--contract", CONTRACT]
    assert main(["check", *args]) == ExitCode.USAGE  # error (4.11) + fail
    assert main(["check", str(tmp_path / "gone"), *args]) == ExitCode.UNREADABLE


def test_a_malformed_contract_stops_before_any_trace_is_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = write(tmp_path, "bad.json", "{")
    assert main(["check", str(tmp_path / "gone"), "--contract", bad]) == ExitCode.USAGE
    assert "gone" not in capsys.readouterr().err


# --- nothing to check never passes ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("zero.json", '{"resourceSpans": []}', "holds no spans, so there is nothing to check"),
        ("empty.jsonl", "", "is empty"),
        ("scopes.json", '{"resourceSpans": [{"scopeSpans": [{"spans": []}]}]}', "holds no spans"),
    ],
)
def test_an_input_without_spans_exits_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = write(tmp_path, name, content)
    assert main(["check", path, "--contract", CONTRACT]) == ExitCode.UNREADABLE
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"tracecheck: error: {path}: {message}" in captured.err


def test_an_empty_directory_exits_3(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    assert main(["check", str(tmp_path / "runs"), "--contract", CONTRACT]) == 3


def test_a_broken_file_in_a_directory_fails_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    write(runs, "a-clean.otlp.jsonl", Path(CLEAN).read_text(encoding="utf-8"))
    cut = write(runs, "b-cut.otlp.jsonl", Path(FORBIDDEN).read_text(encoding="utf-8")[:500])
    junit = tmp_path / "out.xml"
    assert main(["check", str(runs), "--contract", CONTRACT, "--junit", str(junit)]) == 3
    captured = capsys.readouterr()
    assert 'contract "refund-desk" PASS' in captured.out
    assert f"tracecheck: error: {cut}: line 1, column 501: malformed JSON" in captured.err
    suites = {suite.get("name"): suite for suite in ET.parse(junit).getroot()}
    assert suites[cut].get("errors") == "1"
    assert len(suites) == 2
    # The ambiguous file fails too, with its own code; the readable run is still checked.
    ambiguous(runs)
    assert main(["check", str(runs), "--contract", CONTRACT]) == ExitCode.AMBIGUOUS
    assert 'contract "refund-desk" PASS' in capsys.readouterr().out


def test_show_of_an_input_without_spans_exits_3(tmp_path: Path) -> None:
    path = write(tmp_path, "zero.json", '{"resourceSpans": []}')
    assert main(["show", path]) == ExitCode.UNREADABLE


# --- selecting and naming inputs -----------------------------------------------------------


def test_trace_id_selects_case_insensitively_and_an_absent_or_blank_one_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["check", FORBIDDEN, CLEAN, "--contract", CONTRACT, "--trace-id"]
    assert main([*args, FORBIDDEN_TRACE.upper()]) == ExitCode.FAILED
    assert capsys.readouterr().out.count("contract ") == 1
    assert main([*args, "0" * 32]) == ExitCode.USAGE
    assert f"tracecheck: error: no trace has id {'0' * 32}" in capsys.readouterr().err
    assert main([*args, ""]) == ExitCode.USAGE
    assert "--trace-id needs a trace id" in capsys.readouterr().err


def test_the_same_file_or_contract_twice_is_checked_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spelled_twice = str(Path(CLEAN).parent / ".." / "otel-genai" / "clean.otlp.jsonl")
    assert (
        main(["check", CLEAN, spelled_twice, "--contract", CONTRACT, "--contract", CONTRACT]) == 0
    )
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_stdin_is_read_with_a_dash(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Stdin:
        buffer = __import__("io").BytesIO(gzip.compress(Path(FORBIDDEN).read_bytes()))

    monkeypatch.setattr(sys, "stdin", Stdin)
    assert main(["check", "-", "--contract", CONTRACT]) == ExitCode.FAILED
    assert capsys.readouterr().out.startswith(f"<stdin>: trace {FORBIDDEN_TRACE}: ")
    Stdin.buffer = __import__("io").BytesIO(b"")
    assert main(["check", "-", "--contract", CONTRACT]) == ExitCode.UNREADABLE
    assert "tracecheck: error: <stdin>: is empty" in capsys.readouterr().err
    assert main(["check", "-", "-", "--contract", CONTRACT]) == ExitCode.USAGE


def test_gzip_input_and_yaml_contracts_with_unicode_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    packed = tmp_path / "run.jsonl.gz"
    packed.write_bytes(gzip.compress(Path(FORBIDDEN).read_bytes()))
    contract = write(tmp_path, "c.yaml", "name: übung-✓\ntools:\n  forbidden: [run_shell]\n")
    assert main(["check", str(packed), "--contract", contract]) == ExitCode.FAILED
    assert 'contract "übung-✓" FAIL (0/1 rules passed)' in capsys.readouterr().out


def test_a_contract_path_that_is_a_directory_or_missing_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["check", CLEAN, "--contract", str(tmp_path)]) == ExitCode.USAGE
    assert main(["check", CLEAN, "--contract", str(tmp_path / "nope.json")]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert f"tracecheck: error: {tmp_path}: cannot be read" in err
    assert f"tracecheck: error: {tmp_path / 'nope.json'}: cannot be read" in err


# --- machine output stays machine-readable --------------------------------------------------


def test_json_on_stdout_is_pure_json_and_lists_unread_inputs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # annotations go with the human text
    missing = str(tmp_path / "missing.jsonl")
    assert main(["check", FORBIDDEN, missing, "--contract", CONTRACT, "--json", "-"]) == 3
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert (report["version"], report["status"]) == (1, "error")
    assert [r["status"] for r in report["results"]] == ["fail"]
    assert report["unread"] == [
        {"source": missing, "kind": "unreadable", "error": f"{missing}: no such file or directory"}
    ]
    assert 'contract "refund-desk" FAIL' in captured.err
    assert "::error file=" in captured.err


def test_junit_on_stdout_is_pure_xml_and_both_on_stdout_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", FORBIDDEN, "--contract", CONTRACT, "--junit", "-"]) == 1
    captured = capsys.readouterr()
    assert ET.fromstring(captured.out.encode()).tag == "testsuites"
    assert 'contract "refund-desk" FAIL' in captured.err
    both = ["check", FORBIDDEN, "--contract", CONTRACT, "--junit", "-", "--json", "-"]
    assert main(both) == ExitCode.USAGE
    assert "--json - and --junit - both want stdout" in capsys.readouterr().err


def test_junit_creates_its_directory(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "ci" / "tracecheck.xml"
    assert main(["check", CLEAN, "--contract", CONTRACT, "--junit", str(target), "-q"]) == 0
    assert ET.parse(target).getroot().get("tests") == "9"


# --- JUnit XML against the common schema (Jenkins junit.xsd / Surefire) ----------------------

_DECIMAL = re.compile(r"^\d+(\.\d+)?$")
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$")  # ISO 8601, no zone


def assert_junit_schema(root: ET.Element) -> None:
    """The structure the Jenkins JUnit schema requires, and counts that add up."""
    assert root.tag == "testsuites"
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    assert _DECIMAL.match(root.get("time", ""))
    for suite in root:
        assert suite.tag == "testsuite"
        assert suite.get("name")
        assert _DECIMAL.match(suite.get("time", ""))
        assert _TIMESTAMP.match(suite.get("timestamp", ""))
        children = [child.tag for child in suite]
        assert children[0] == "properties" and set(children[1:]) == {"testcase"}
        for prop in suite.find("properties") or ():
            assert prop.tag == "property" and prop.get("name") and prop.get("value") is not None
        cases = suite.findall("testcase")
        outcome = {"failures": "failure", "errors": "error", "skipped": "skipped"}
        counted = {"tests": len(cases)}
        counted.update(
            {key: sum(case.find(tag) is not None for case in cases) for key, tag in outcome.items()}
        )
        for key, value in counted.items():
            assert int(suite.get(key, "-1")) == value, (key, suite.get("name"))
            totals[key] += value
        for case in cases:
            assert case.get("name") and case.get("classname")
            assert _DECIMAL.match(case.get("time", "0"))
            assert len(case) <= 1  # at most one of failure / error / skipped
            for result in case:
                assert result.tag in ("failure", "error", "skipped")
                if result.tag != "skipped":
                    assert result.get("message") is not None and result.get("type")
    for key in ("tests", "failures", "errors"):
        assert int(root.get(key, "-1")) == totals[key], key
    assert root.get("skipped") is None  # junit-10.xsd has no such attribute on <testsuites>


def test_junit_follows_the_schema_with_failures_errors_skips_and_unread_inputs(
    tmp_path: Path,
) -> None:
    alternatives = write(
        tmp_path,
        "alt.json",
        json.dumps(
            {
                "name": "alt",
                "tools": {"required": ["lookup_order"]},
                "alternatives": {
                    "anyOf": [
                        {"id": "refund", "tools": {"required": ["issue_refund"]}},
                        {"id": "shell", "tools": {"required": ["run_shell"]}},
                    ]
                },
            }
        ),
    )
    target = tmp_path / "out.xml"
    inputs = [CLEAN, FORBIDDEN, tool_free_trace(tmp_path), str(tmp_path / "gone.jsonl")]
    code = main(
        [
            "check",
            *inputs,
            "--contract",
            CONTRACT,
            "--contract",
            alternatives,
            "--junit",
            str(target),
        ]
    )
    assert code == ExitCode.UNREADABLE
    root = ET.parse(target).getroot()
    assert_junit_schema(root)
    # 2 traces x (9 + 3) rules + the tool-free trace's 12 + 1 unread input; failures: 1 in
    # forbidden, 5 + 3 in the tool-free trace; errors: its 2 capture errors, its 2 model rules
    # (a span with no name and no time puts capture in doubt) + the unread input;
    # skipped: the clean run passes alternative "refund", so "shell" is skipped (counted by
    # the suites: the root has no skipped count).
    counts = [root.get(key) for key in ("tests", "failures", "errors")]
    assert counts == ["37", "9", "5"]
    assert sum(int(suite.get("skipped", "0")) for suite in root) == 1
    unread = root.findall("testsuite")[-1]
    assert unread.get("name") == str(tmp_path / "gone.jsonl")
    error = unread.find("testcase/error")
    assert error is not None and error.get("type") == "UnreadableTrace"
    assert error.get("message") == f"{tmp_path / 'gone.jsonl'}: no such file or directory"
    skipped = [c for c in root.iter("testcase") if c.find("skipped") is not None]
    assert {c.get("name") for c in skipped} >= {"shell/tools.required[run_shell]"}


def test_junit_testcases_are_unique_per_trace_and_contract(tmp_path: Path) -> None:
    target = tmp_path / "out.xml"
    main(["check", CLEAN, FORBIDDEN, "--contract", CONTRACT, "--junit", str(target), "-q"])
    keys = [
        (c.get("classname"), c.get("name")) for c in ET.parse(target).getroot().iter("testcase")
    ]
    assert len(keys) == len(set(keys)) == 18


def test_control_characters_never_make_invalid_xml_or_move_the_terminal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    hostile = "execute_tool bad\x01\x0b\x1b[31m\u202e]]>\r\nforged line"
    trace = write(tmp_path, "ctrl.json", otlp(tool_span("c" * 16, hostile, "bad\x1btool")))
    contract = write(
        tmp_path, "c.json", json.dumps({"name": "ctl\x07", "tools": {"allowed": ["x"]}})
    )
    target = tmp_path / "out.xml"
    args = ["check", trace, "--contract", contract, "--junit", str(target), "--annotations"]
    assert main(args) == ExitCode.FAILED
    root = ET.parse(target).getroot()  # well-formed
    assert_junit_schema(root)
    (failure,) = root.iter("failure")
    assert "bad\\x01\\x0b\\x1b[31m" in (failure.get("message") or "")
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x01" not in out and "\u202e" not in out
    assert not any(line.startswith("forged line") for line in out.splitlines())
    (annotation,) = [line for line in out.splitlines() if line.startswith("::")]
    assert "%0D%0Aforged line" in annotation and "\\x1b" in annotation


def test_a_very_long_span_name_is_shortened_in_the_text_report_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    name = "execute_tool " + "x" * 20_000
    trace = write(tmp_path, "long.json", otlp(tool_span("c" * 16, name, "run_shell")))
    target = tmp_path / "r.json"
    assert main(["check", trace, "--contract", CONTRACT, "--json", str(target)]) != 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) < 600
    assert any(" … " in line for line in lines)
    details = [
        v["detail"]
        for r in json.loads(target.read_text())["results"][0]["rules"]
        for v in r["violations"]
    ]
    assert any(name in detail for detail in details)


def test_annotations_escape_percent_and_property_separators(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = write(tmp_path, "a,b:c%.json", otlp(tool_span("c" * 16, "execute_tool x", "x")))
    contract = write(
        tmp_path, "c.json", json.dumps({"name": "p%q,r:s", "tools": {"forbidden": ["x"]}})
    )
    assert main(["check", trace, "--contract", contract, "--annotations"]) == 1
    (annotation,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("::")]
    assert annotation.startswith(
        f"::error file={tmp_path}/a%2Cb%3Ac%25.json,"  # tmp_path itself holds none of them
        "title=p%25q%2Cr%3As%3A tools.forbidden[x]::span cccccccccccccccc "
    )


def test_annotations_show_five_violations_per_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    spans = [tool_span(f"{i:016x}", "execute_tool run_shell", "run_shell") for i in range(1, 9)]
    trace = write(tmp_path, "many.json", otlp(*spans))
    contract = write(
        tmp_path, "c.json", json.dumps({"name": "c", "tools": {"forbidden": ["run_shell"]}})
    )
    assert main(["check", trace, "--contract", contract, "--annotations"]) == 1
    out = capsys.readouterr().out.splitlines()
    annotations = [line for line in out if line.startswith("::error")]
    assert len(annotations) == 5 and annotations[-1].endswith("(and 3 more)")
    assert "      … and 3 more" in out  # the text report caps at five lines too


# --- colour, interruptions, internal errors --------------------------------------------------


def test_colour_needs_a_terminal_and_follows_no_color_force_color_and_dumb_terminals(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(variable, raising=False)
    main(["check", FORBIDDEN, "--contract", CONTRACT])
    assert "\x1b[" not in capsys.readouterr().out  # not a terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    main(["check", FORBIDDEN, "--contract", CONTRACT])
    assert "\x1b[31mFAIL\x1b[0m" in capsys.readouterr().out
    monkeypatch.setenv("NO_COLOR", "1")
    main(["check", FORBIDDEN, "--contract", CONTRACT])
    assert "\x1b[" not in capsys.readouterr().out
    monkeypatch.delenv("FORCE_COLOR")
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    main(["check", FORBIDDEN, "--contract", CONTRACT])
    assert "\x1b[" not in capsys.readouterr().out


def test_an_interrupt_exits_130_without_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    env = Environment.current(read=interrupted)
    assert main(["check", CLEAN, "--contract", CONTRACT], env=env) == 130
    assert capsys.readouterr().err == "tracecheck: error: interrupted\n"


def test_a_reader_bug_is_an_unreadable_input_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tracecheck.readers.by_trace import visit_traces

    def flaky(source: object, visit: Any, **kwargs: Any) -> Any:
        if str(source) == CLEAN:
            raise TypeError("unexpected attribute shape")
        return visit_traces(source, visit, **kwargs)  # type: ignore[arg-type]

    env = Environment.current(read=flaky)
    assert main(["check", CLEAN, FORBIDDEN, "--contract", CONTRACT], env=env) == (
        ExitCode.UNREADABLE
    )
    captured = capsys.readouterr()
    assert f"tracecheck: error: {CLEAN}: could not be read: internal error: TypeError\n" in (
        captured.err
    )
    assert "unexpected attribute shape" not in captured.err  # an exception may quote a span
    assert "Traceback" not in captured.err
    assert 'contract "refund-desk" FAIL' in captured.out


def test_a_rule_bug_is_a_rule_error(capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: object, **options: object) -> None:
        raise ValueError("boom")

    env = Environment.current(check=broken)
    assert main(["check", CLEAN, "--contract", CONTRACT], env=env) == ExitCode.USAGE
    out = capsys.readouterr().out
    assert "! (check): could not be evaluated: internal error: ValueError" in out
    assert "boom" not in out


def test_a_closed_pipe_ends_output_quietly(tmp_path: Path) -> None:
    spans = [tool_span(f"{i:016x}", f"execute_tool t{i}", f"t{i}") for i in range(1, 4000)]
    trace = write(tmp_path, "big.json", otlp(*spans))
    for args in (["show", trace], ["check", trace, "--contract", CONTRACT, "-v"]):
        process = subprocess.Popen(
            [sys.executable, "-m", "tracecheck", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stdout is not None and process.stderr is not None
        process.stdout.readline()
        process.stdout.close()  # `| head -1`
        err = process.stderr.read().decode()
        process.wait(timeout=60)
        assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_check_help_lists_the_exit_codes_and_which_one_wins(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "--help"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "  3  a trace or input file could not be read\n" in out
    assert out.endswith(
        "when several apply (one run fails, another cannot be read), the highest code wins;\n"
        "every input is still read and every readable trace checked and reported.\n"
    )


def test_a_bug_is_named_by_its_type_and_shown_whole_only_on_request(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("value of an attribute")  # a message may quote span content

    monkeypatch.delenv("TRACECHECK_DEBUG", raising=False)
    env = Environment.current(compile=broken)
    assert main(["check", CLEAN, "--contract", CONTRACT], env=env) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err == (
        "tracecheck: error: internal error: RuntimeError (TRACECHECK_DEBUG=1 shows where)\n"
    )
    monkeypatch.setenv("TRACECHECK_DEBUG", "1")
    env = Environment.current(compile=broken)
    assert main(["check", CLEAN, "--contract", CONTRACT], env=env) == ExitCode.USAGE
    assert "Traceback" in capsys.readouterr().err
