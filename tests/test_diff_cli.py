"""`tracecheck diff` on the command line: its exit codes, its text, and its machine outputs
(JSON against diff.schema.json, JUnit against junit-10.xsd, SARIF against the OASIS schema, the
job summary), each empty of differences for a run against itself and free of any secret."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from diff_support import Call, agent_run, span_id
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft4Validator, Draft202012Validator

from tracecheck.cli import Environment, ExitCode, main
from tracecheck.diff import ArgumentMatch
from tracecheck.report.diff_json import DIFF_SCHEMA_FILE, DIFF_SCHEMA_VERSION, diff_report_schema
from tracecheck.writers import to_otlp_json

ROOT = Path(__file__).resolve().parent.parent
GENAI = ROOT / "fixtures" / "otel-genai"
ADK = ROOT / "fixtures" / "producers" / "google-adk" / "schema-v2"
CLEAN, FORBIDDEN = str(GENAI / "clean.otlp.jsonl"), str(GENAI / "forbidden.otlp.jsonl")
BATCHED = str(GENAI / "clean-batched.otlp.jsonl")
REFUND = span_id("s0-0")
JSON_SCHEMA = Draft202012Validator(diff_report_schema())
JUNIT_SCHEMA = xmlschema.XMLSchema10(ROOT / "tests" / "schemas" / "junit-10.xsd")
SARIF = json.loads((ROOT / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text())
SARIF_SCHEMA = Draft4Validator(SARIF, format_checker=Draft4Validator.FORMAT_CHECKER)


def run_cli(
    *words: str, environ: dict[str, str] | None = None, stdin: bytes = b""
) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    source = io.TextIOWrapper(io.BytesIO(stdin))
    env = Environment(source, out, err, {"NO_COLOR": "1", **(environ or {})})
    code = main(["diff", *words], env=env)
    return code, out.getvalue(), err.getvalue()


def outputs(tmp_path: Path, *words: str) -> tuple[int, dict[str, Any]]:
    """Every output of one diff: the code, the text, JSON, JUnit, SARIF and the summary."""
    summary = tmp_path / "summary.md"
    code, text, _ = run_cli(
        *words,
        "--json", str(tmp_path / "diff.json"),
        "--junit", str(tmp_path / "diff.xml"),
        "--sarif", str(tmp_path / "diff.sarif"),
        environ={"GITHUB_STEP_SUMMARY": str(summary)},
    )  # fmt: skip
    report = json.loads((tmp_path / "diff.json").read_text())
    assert list(JSON_SCHEMA.iter_errors(report)) == []
    junit = (tmp_path / "diff.xml").read_text()
    JUNIT_SCHEMA.validate(junit)
    sarif = json.loads((tmp_path / "diff.sarif").read_text())
    assert [e.message for e in SARIF_SCHEMA.iter_errors(sarif)] == []
    found = {"text": text, "json": report, "junit": junit, "sarif": sarif}
    found["summary"] = summary.read_text()
    return code, found


def written(tmp_path: Path, name: str, spans: list[Any]) -> str:
    path = tmp_path / name
    path.write_bytes(to_otlp_json(spans))
    return str(path)


# --- exit codes --------------------------------------------------------------------------


def test_a_divergence_exits_1_and_says_where(tmp_path: Path) -> None:
    code, found = outputs(tmp_path, CLEAN, FORBIDDEN)
    assert code == ExitCode.FAILED
    lines = found["text"].splitlines()
    assert lines[0] == (
        f"tracecheck diff: DIFFERENT: {CLEAN} → {FORBIDDEN} (1 call added; tokens over the "
        "tolerance)"
    )
    assert lines[3:] == [
        "  first divergence: baseline step 2 (issue_refund), run step 2 (run_shell): the "
        "baseline has no call to match run_shell (added)",
        "  + run_shell (span 4b1b907d90c3da97) at run step 2: added",
        "  ✗ tokens: 1550 → 2179 (+629, +40.6%): over the tolerance of 10%",
        "  ✓ duration: 92.7 ms → 43.0 ms (−49.6 ms, −53.5%): within the tolerance of 50%,1000ms",
    ]
    report = found["json"]
    assert report["status"] == "different"
    assert [call["tool"] for call in report["added"]] == ["run_shell"]
    assert report["first_divergence"]["kind"] == "added"
    assert report["first_divergence"]["run_step"] == 2
    assert '<testcase name="trajectory"' in found["junit"] and "<failure" in found["junit"]
    results = found["sarif"]["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["diff/added", "diff/tokens"]
    assert results[0]["properties"] == {
        "runSpanId": "4b1b907d90c3da97",
        "runStep": 2,
        "tool": "run_shell",
    }
    assert found["summary"].startswith("## tracecheck diff: ❌ DIFFERENT\n")
    assert "| added | run\\_shell | — | step 2, span 4b1b907d90c3da97 | ✗ |" in found["summary"]


def test_the_same_path_exits_0() -> None:
    code, text, _ = run_cli(CLEAN, BATCHED, "-q")
    assert code == ExitCode.OK
    assert text == f"tracecheck diff: SAME: {CLEAN} → {BATCHED} (the same path)\n"


def test_tolerances_and_matched_arguments_are_options(tmp_path: Path) -> None:
    assert run_cli(CLEAN, FORBIDDEN, "--tokens-tolerance", "50%")[0] == ExitCode.FAILED
    before = written(tmp_path, "a.json", agent_run([[Call("refund", {"amount": 5})]]))
    after = written(tmp_path, "b.json", agent_run([[Call("refund", {"amount": 6})]]))
    assert run_cli(before, after)[0] == ExitCode.OK
    assert run_cli(before, after, "--match-arguments", "exact")[0] == ExitCode.FAILED
    assert run_cli(before, after, "--match-arguments", "refund=/amount")[0] == ExitCode.FAILED
    assert run_cli(before, after, "--match-arguments", "refund=/other")[0] == ExitCode.OK
    _code, text, _ = run_cli(before, after, "--match-arguments", "exact")
    assert (
        f"  ~ refund (baseline step 1, span {REFUND}; run step 1, span {REFUND}): "
        "/amount changed: 5 → 6" in text
    )
    slow = written(tmp_path, "slow.json", agent_run([[Call("refund", {"amount": 5})]], step_ms=400))
    assert run_cli(before, slow)[0] == ExitCode.OK  # 20 ms against 800 ms: within a second
    assert run_cli(before, slow, "--duration-tolerance", "50%")[0] == ExitCode.FAILED
    assert run_cli(before, slow, "--duration-tolerance", "off")[0] == ExitCode.OK


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["-", "-"], "- (standard input) can be read only once"),
        (
            [CLEAN, FORBIDDEN, "--tokens-tolerance", "ten"],
            "--tokens-tolerance: 'ten' is not a tolerance",
        ),
        (
            [CLEAN, FORBIDDEN, "--tokens-tolerance", "2s"],
            "a token tolerance is a count, not a time",
        ),
        ([CLEAN, FORBIDDEN, "--duration-tolerance", "5%,6%"], "gives two percentages"),
        (
            [CLEAN, FORBIDDEN, "--match-arguments", "some"],
            "tracecheck: error: --match-arguments: 'some' is not ignore or exact\n",
        ),
        (
            [CLEAN, FORBIDDEN, "--match-arguments", "refund=amount"],
            "--match-arguments: invalid JSON Pointer 'amount': Location must start with /\n",
        ),
        (
            [CLEAN, FORBIDDEN, "--match-arguments", "=/amount"],
            "--match-arguments: '=/amount' names no tool before =\n",
        ),
        (
            [CLEAN, FORBIDDEN, "--duration-tolerance", "5x"],
            "--duration-tolerance: '5x' is not a tolerance",
        ),
        (
            [CLEAN, FORBIDDEN, "--json", "-", "--sarif", "-"],
            "--json - and --sarif - both want stdout",
        ),
    ],
)
def test_usage_errors_exit_2(words: list[str], message: str) -> None:
    code, out, err = run_cli(*words)
    assert code == ExitCode.USAGE
    assert message in err and "Traceback" not in err and out == ""


def test_the_command_line_and_the_library_agree_on_matched_arguments(tmp_path: Path) -> None:
    """The command line builds the mapping and the library checks it: an empty pointer is the
    whole arguments in both (RFC 6901), so every difference of that tool counts."""
    from tracecheck.diff import diff_runs

    runs = [agent_run([[Call("refund", {"amount": n})]]) for n in (5, 6)]
    before, after = (written(tmp_path, f"{n}.json", run) for n, run in enumerate(runs))
    assert diff_runs(*runs, match_arguments={"refund": [""]}).status == "different"
    assert run_cli(before, after, "--match-arguments", "refund=")[0] == ExitCode.FAILED
    with pytest.raises(ValueError, match="'some' is not ignore or exact"):
        diff_runs(*runs, match_arguments=ArgumentMatch("some"))  # type: ignore[arg-type]


def test_an_input_of_several_traces_needs_a_trace_id(tmp_path: Path) -> None:
    both = tmp_path / "both.otlp.jsonl"
    both.write_bytes(Path(CLEAN).read_bytes() + Path(FORBIDDEN).read_bytes())
    code, _, err = run_cli(str(both), CLEAN)
    assert code == ExitCode.USAGE
    assert err == (
        f"tracecheck: error: {both}: holds 2 traces (bdfc178765b50e0a8be66e350728be0e, "
        "168b0270d96edde63163f0a84510227f): choose the baseline's with --baseline-trace-id\n"
    )
    code, _, _ = run_cli(
        str(both), CLEAN, "--baseline-trace-id", "bdfc178765b50e0a8be66e350728be0e"
    )
    assert code == ExitCode.OK
    code, _, _ = run_cli(CLEAN, str(both), "--run-trace-id", "168B0270D96EDDE63163F0A84510227F")
    assert code == ExitCode.FAILED
    code, _, err = run_cli(CLEAN, str(both), "--run-trace-id", "ab" * 16)
    assert code == ExitCode.USAGE and f"no trace has id {'ab' * 16}" in err


def test_standard_input_is_one_of_the_runs() -> None:
    code, text, _ = run_cli(CLEAN, "-", stdin=Path(FORBIDDEN).read_bytes())
    assert code == ExitCode.FAILED
    assert text.startswith(f"tracecheck diff: DIFFERENT: {CLEAN} → <stdin> ")


def test_an_unreadable_input_exits_3_and_an_ambiguous_one_4(tmp_path: Path) -> None:
    code, found = outputs(tmp_path, CLEAN, str(tmp_path / "missing.jsonl"))
    assert code == ExitCode.UNREADABLE
    assert found["json"]["status"] == "error"
    assert found["json"]["unread"][0]["kind"] == "unreadable"
    assert "settings" not in found["json"]
    assert "<error" in found["junit"]
    (invocation,) = found["sarif"]["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["descriptor"] == {"id": "unreadable"}
    # Located at the input's file, as `check --sarif` locates it.
    location = notification["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": (tmp_path / "missing.jsonl").as_uri()}
    both = tmp_path / "both.jsonl"
    record = {"type": "assistant", "session_id": "s", "traceId": "a" * 32, "spanId": "b" * 16}
    both.write_text(json.dumps(record) + "\n" + json.dumps(record) + "\n")
    code, _, err = run_cli(str(both), CLEAN)
    assert code == ExitCode.AMBIGUOUS and "--format" in err


def test_doubt_about_capture_exits_2_unless_lenient(tmp_path: Path) -> None:
    autogen = ROOT / "fixtures" / "producers" / "autogen" / "assistant" / "clean.otlp.jsonl"
    trace_id = "c6dadd1cc0d1f0de056e7eba22f44a65"  # the trace with the tool calls
    words = [
        str(autogen),
        str(autogen),
        "--baseline-trace-id",
        trace_id,
        "--run-trace-id",
        trace_id,
    ]
    code, found = outputs(tmp_path, *words)
    assert code == ExitCode.USAGE
    assert found["json"]["status"] == "error"
    assert any("recorded but no model call" in problem for problem in found["json"]["problems"])
    assert "  ! baseline: 2 tool calls are recorded but no model call" in found["text"]
    assert '<testcase name="capture"' in found["junit"]
    assert "### The diff cannot vouch for these runs" in found["summary"]
    # Lenient about capture, but no model call records tokens to hold to a tolerance.
    assert run_cli(*words, "--lenient-capture")[0] == ExitCode.USAGE
    assert run_cli(*words, "--lenient-capture", "--tokens-tolerance", "off")[0] == ExitCode.OK


def test_junit_fails_the_trajectory_for_an_added_call_after_a_counted_argument_change(
    tmp_path: Path,
) -> None:
    before = written(tmp_path, "a.json", agent_run([[Call("refund", {"amount": 5})]]))
    after = written(
        tmp_path,
        "b.json",
        agent_run([[Call("refund", {"amount": 6})], [Call("run_shell")]]),
    )
    code, found = outputs(tmp_path, before, after, "--match-arguments", "exact")
    assert code == ExitCode.FAILED
    assert found["json"]["first_divergence"]["kind"] == "arguments"
    junit = found["junit"]
    trajectory = junit[junit.index('<testcase name="trajectory"') :]
    trajectory = trajectory[: trajectory.index("</testcase>")]
    assert '<failure message="added: run_shell (span ' in trajectory
    assert 'type="Divergence"' in trajectory


# --- the outputs ---------------------------------------------------------------------------


def assert_empty(code: int, found: dict[str, Any]) -> None:
    assert code == ExitCode.OK
    report = found["json"]
    assert report["status"] == "same"
    assert report["first_divergence"] is None
    assert report["added"] == report["missing"] == report["changed"] == report["problems"] == []
    assert not any(model["changed"] for model in report["models"])
    assert 'failures="0"' in found["junit"] and 'errors="0"' in found["junit"]
    assert found["sarif"]["runs"][0]["results"] == []
    assert found["summary"].startswith("## tracecheck diff: ✅ SAME\n")
    assert "### Differences" not in found["summary"] and "First divergence" not in found["summary"]
    assert not any(
        line.startswith(("  +", "  -", "  ~", "  ·", "  !")) for line in found["text"].splitlines()
    )


@pytest.mark.parametrize("run", [CLEAN, FORBIDDEN, str(ADK / "parallel.otlp.jsonl")])
def test_a_recorded_run_against_itself_is_empty_in_every_output(tmp_path: Path, run: str) -> None:
    assert_empty(*outputs(tmp_path, run, run))


TOOLS = ("lookup", "refund", "notify")
steps = st.lists(
    st.lists(
        st.builds(Call, st.sampled_from(TOOLS), st.fixed_dictionaries({"id": st.integers(0, 3)})),
        min_size=1,
        max_size=3,
    ),
    min_size=1,
    max_size=5,
)


@given(steps)
@settings(max_examples=25, deadline=None)
def test_a_built_run_against_itself_is_empty_in_every_output(
    tmp_path_factory: pytest.TempPathFactory, run_steps: list[list[Call]]
) -> None:
    folder = tmp_path_factory.mktemp("same")
    run = written(folder, "run.json", agent_run(run_steps))
    again = written(folder, "again.json", list(reversed(agent_run(run_steps, prefix="r"))))
    assert_empty(*outputs(folder, run, again))


def test_no_secret_reaches_any_output(tmp_path: Path) -> None:
    token = "ghp_" + "x9Y8" * 9  # built here: a scanner must not trip on a literal
    before = written(
        tmp_path,
        "a.json",
        agent_run([[Call("login", {"token": "old", "user": "bob", "key": token})]]),
    )
    after = written(
        tmp_path,
        "b.json",
        agent_run([[Call("login", {"token": "new", "user": "al", "key": token + "1"})]]),
    )
    code, found = outputs(tmp_path, before, after, "--match-arguments", "exact", "-v")
    assert code == ExitCode.FAILED
    text = json.dumps(found)
    assert token not in text and '"old"' not in text and '"new"' not in text
    changes = {c["pointer"]: c for c in found["json"]["changed"][0]["arguments"]}
    assert changes["/user"]["shown"] and changes["/user"]["run_value"] == "al"
    assert not changes["/key"]["shown"] and "run_value" not in changes["/key"]
    assert "/key changed (string, not shown)" in found["text"]


def test_no_secret_held_in_an_argument_key_reaches_any_output(tmp_path: Path) -> None:
    token = "ghp_" + "k7Z2" * 9  # built here: a scanner must not trip on a literal
    before = written(tmp_path, "a.json", agent_run([[Call("login", {"headers": {token: 1}})]]))
    after = written(tmp_path, "b.json", agent_run([[Call("login", {"headers": {token: 2}})]]))
    code, found = outputs(tmp_path, before, after, "--match-arguments", "login=/headers", "-v")
    assert code == ExitCode.FAILED  # still counted: matched on the key as recorded
    assert token not in json.dumps(found)
    (change,) = found["json"]["changed"][0]["arguments"]
    assert change["pointer"] == "/headers/[REDACTED:github-token]"
    assert change["counted"]


def test_the_json_schema_is_draft_2020_12_shipped_with_the_package() -> None:
    schema = json.loads((ROOT / "tracecheck" / "report" / DIFF_SCHEMA_FILE).read_text())
    Draft202012Validator.check_schema(schema)
    assert schema["$id"] == DIFF_SCHEMA_FILE
    assert schema["properties"]["schemaVersion"] == {"const": DIFF_SCHEMA_VERSION}
    assert diff_report_schema() == schema
