"""`tracecheck show`: the span tree, its JSON form, and the exit codes."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tracecheck.cli import ExitCode, main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
FORBIDDEN = FIXTURES / "otel-genai" / "forbidden.otlp.jsonl"


def test_show_prints_one_line_per_span_as_a_tree(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(FIXTURES / "openinference" / "timeout.otlp.pb")]) == ExitCode.OK
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("trace ")
    header, *lines = out
    assert len(lines) == int(header.split()[2])
    assert lines[0].startswith("AGENT")
    tools = [line for line in lines if "TOOL " in line]
    assert any("slow_lookup" in line and "✗ error" in line for line in tools)
    assert not any("lookup_order" in line and "error" in line for line in tools)
    assert any(
        line.lstrip("│├└─ ").startswith("LLM") and "tokens 412 in / 18 out" in line
        for line in lines
    )
    assert any("└─ " in line for line in lines)


def test_show_never_prints_attribute_values(capsys: pytest.CaptureFixture[str]) -> None:
    main(["show", str(FORBIDDEN)])
    out = capsys.readouterr().out
    assert "payments.log" not in out  # a tool argument
    assert "A-1001" not in out


def test_show_json_is_versioned_and_complete(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--json", str(FORBIDDEN)]) == ExitCode.OK
    document = json.loads(capsys.readouterr().out)
    assert document["version"] == 1
    (trace,) = document["traces"]
    tools = [s["tool"] for s in trace["spans"] if s["kind"] == "TOOL"]
    assert sorted(tools) == ["issue_refund", "lookup_order", "run_shell"]
    llm = [s for s in trace["spans"] if s["kind"] == "LLM"]
    assert all(s["model"] == "gpt-4.1-mini" and s["tokens"]["total"] for s in llm)
    assert trace["spans"][0]["depth"] == 0 and max(s["depth"] for s in trace["spans"]) >= 2


def test_show_selects_a_trace_by_id(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    both = tmp_path / "both"
    both.mkdir()
    for name in ("clean", "forbidden"):
        (both / f"{name}.jsonl").write_bytes(
            (FIXTURES / "otel-genai" / f"{name}.otlp.jsonl").read_bytes()
        )
    main(["show", "--json", str(both)])
    ids = [t["trace_id"] for t in json.loads(capsys.readouterr().out)["traces"]]
    assert len(ids) == 2
    assert main(["show", "--json", "--trace-id", ids[1].upper(), str(both)]) == ExitCode.OK
    assert [t["trace_id"] for t in json.loads(capsys.readouterr().out)["traces"]] == [ids[1]]
    assert main(["show", "--trace-id", "f" * 32, str(both)]) == ExitCode.USAGE
    assert f"no trace has id {'f' * 32}" in capsys.readouterr().err


def test_siblings_are_listed_in_start_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Exporters group spans by scope: here the model calls are written before the tool call
    # they precede and follow; the untimed span keeps its place after the timed ones.
    def span(span_id: str, name: str, start: int | None) -> dict[str, object]:
        timed = {} if start is None else {"startTimeUnixNano": str(start)}
        own = {"traceId": "a" * 32, "spanId": span_id, "parentSpanId": "f" * 16, "name": name}
        return own | timed

    root = {"traceId": "a" * 32, "spanId": "f" * 16, "name": "agent"}
    spans = [root, span("1" * 16, "chat 1", 10), span("2" * 16, "untimed", None)]
    spans += [span("3" * 16, "chat 2", 30), span("4" * 16, "tool", 20)]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    assert main(["show", "--json", str(path)]) == ExitCode.OK
    (trace,) = json.loads(capsys.readouterr().out)["traces"]
    assert [s["name"] for s in trace["spans"]] == ["agent", "chat 1", "tool", "chat 2", "untimed"]


def test_unreadable_trace_exits_3(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"resourceSpans": [\n  {"scopeSpans": [}\n]}')
    assert main(["show", str(broken)]) == ExitCode.UNREADABLE
    err = capsys.readouterr().err
    assert err.startswith(f"tracecheck: error: {broken}: line 2, column ")
    assert "Traceback" not in err
    assert main(["show", str(tmp_path / "missing.json")]) == ExitCode.UNREADABLE
    assert "no such file or directory" in capsys.readouterr().err


def test_ambiguous_trace_exits_4(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    both = tmp_path / "both.jsonl"
    record = {"type": "assistant", "session_id": "s", "traceId": "a" * 32, "spanId": "b" * 16}
    both.write_text(json.dumps(record) + "\n" + json.dumps(record) + "\n")
    assert main(["show", str(both)]) == ExitCode.AMBIGUOUS
    assert "pass --format claude-stream or --format spans" in capsys.readouterr().err
    assert main(["show", "--format", "spans", str(both)]) == ExitCode.OK


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show"]) == ExitCode.USAGE
    assert main(["show", "--format", "csv", str(FORBIDDEN)]) == ExitCode.USAGE
    assert main([]) == ExitCode.USAGE


def test_help_lists_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == ExitCode.OK
    out = capsys.readouterr().out
    for code in range(5):
        assert f"\n  {code}  " in out


def test_version_names_the_installed_distribution(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == ExitCode.OK
    assert (
        capsys.readouterr().out == f"tracecheck {importlib.metadata.version('agent-tracecheck')}\n"
    )


def test_notes_go_to_stderr(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "late.json"
    span = {
        "traceId": "a" * 32,
        "spanId": "b" * 16,
        "name": "n",
        "startTimeUnixNano": "9",
        "endTimeUnixNano": "5",
    }
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    assert main(["show", str(path)]) == ExitCode.OK
    captured = capsys.readouterr()
    assert "ends before it starts" in captured.err and "ends before" not in captured.out


def show_in_a_subprocess(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    trace = FIXTURES / "otel-genai" / "timeout.otlp.jsonl"
    command = [sys.executable, "-m", "tracecheck", "show", str(trace)]
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)


def test_colour_follows_no_color() -> None:
    plain = show_in_a_subprocess({"NO_COLOR": "1", "FORCE_COLOR": "1", "PATH": ""})
    assert plain.returncode == 0 and "\x1b[" not in plain.stdout
    coloured = show_in_a_subprocess({"FORCE_COLOR": "1", "PATH": ""})
    assert coloured.returncode == 0 and "\x1b[31m" in coloured.stdout
