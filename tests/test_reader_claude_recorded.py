"""Claude Code runs recorded from the real CLI (fixtures/claude/recorded, see its README):
what each reads as, token totals equal to Claude Code's own, and verdicts that must not pass."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tracecheck import check, compile_contract
from tracecheck.readers import detect_format, group_traces, read_traces
from tracecheck.readers.claude import read_claude_session, read_claude_stream
from tracecheck.readers.claude.sessions import companions, is_companion, read_directory_file
from tracecheck.readers.common import ReadContext
from tracecheck.spans import Kind, ReadNote, Span, Trace

RECORDED = Path(__file__).resolve().parent.parent / "fixtures" / "claude" / "recorded"
STREAMS = sorted(RECORDED.rglob("*.stream.jsonl"))
COUNTS = ("inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens")


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def one_trace(path: Path) -> Trace:
    traces = read_traces(path, format="claude-stream")
    assert len(traces) == 1
    return traces[0]


def token_sums(spans: list[Span]) -> list[int | float]:
    llm = [s for s in spans if s.kind is Kind.LLM]
    assert all(s.tokens.output is not None for s in llm)
    return [
        sum(s.tokens.input or 0 for s in llm),
        sum(s.tokens.output or 0 for s in llm),
        sum(s.tokens.cache_read or 0 for s in llm),
        sum(s.tokens.cache_write or 0 for s in llm),
    ]


def session_read(files: list[Path]) -> Trace:
    notes: list[ReadNote] = []
    streams = [f.open("rb") for f in files]
    try:
        spans = list(
            read_claude_session(
                [(s, ReadContext(str(f), notes)) for f, s in zip(files, streams, strict=True)]
            )
        )
    finally:
        for s in streams:
            s.close()
    traces = group_traces(spans, notes)
    assert len(traces) == 1
    return traces[0]


def transcript(version: str, scenario: str) -> Path:
    folder = RECORDED / version / f"{scenario}.transcript"
    (main,) = [p for p in folder.glob("*.jsonl") if not p.name.startswith("agent-")]
    return main


# --- every recorded stream ------------------------------------------------------------------


def test_every_recording_is_present() -> None:
    names = {f"{p.parent.name}/{p.name}" for p in STREAMS}
    for version in ("2.0.77", "2.1.30", "2.1.332"):
        for scenario in ("refund", "refund-partial", "subagent", "max-turns"):
            assert f"{version}/{scenario}.stream.jsonl" in names
    assert "2.1.332/sdk.stream.jsonl" in names


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_streams_sniff_as_claude(path: Path) -> None:
    assert detect_format(path) == "claude-stream"


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_token_totals_equal_the_producers_own(path: Path) -> None:
    """All LLM spans sum to modelUsage (every model); main-thread ones to result.usage."""
    trace = one_trace(path)
    results = [r for r in records(path) if r.get("type") == "result"]
    model_usage = results[-1]["modelUsage"]
    expected = [sum(m.get(key, 0) for m in model_usage.values()) for key in COUNTS]
    assert token_sums(list(trace.spans)) == expected
    root = trace.roots[0]
    main = [s for s in trace.spans if s.parent_span_id == root.span_id]
    turns = [r["usage"] for r in results]
    keys = ("input_tokens", "output_tokens", "cache_read_input_tokens")
    keys += ("cache_creation_input_tokens",)
    main_sums = token_sums(main)
    for index, key in enumerate(keys):
        assert main_sums[index] >= sum(t[key] for t in turns)


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_run_status_and_duration_come_from_the_result(path: Path) -> None:
    results = [r for r in records(path) if r.get("type") == "result"]
    run = one_trace(path).run_record
    assert run is not None
    completed = results[-1]["subtype"] == "success" and not results[-1]["is_error"]
    assert run.status == ("completed" if completed else "failed")
    assert run.ended
    assert run.duration_ns is not None
    assert run.duration_ns >= sum(r["duration_ms"] for r in results) * 1_000_000


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_offered_tools_are_the_init_tools(path: Path) -> None:
    init = next(r for r in records(path) if r.get("subtype") == "init")
    root = one_trace(path).roots[0]
    assert root.offered_tools is not None
    assert list(root.offered_tools.names) == init["tools"]


# --- per scenario -----------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2.0.77", "2.1.30", "2.1.332"])
@pytest.mark.parametrize("scenario", ["refund", "refund-partial"])
def test_refund_run_reads_its_tool_calls_in_order(version: str, scenario: str) -> None:
    trace = one_trace(RECORDED / version / f"{scenario}.stream.jsonl")
    tools = [s for s in trace.spans if s.kind is Kind.TOOL]
    assert [s.tool_name for s in tools] == ["Read", "Grep", "Bash", "Write"]
    assert tools[0].arguments.value == {
        "file_path": "/tmp/tracecheck-claude/refund-desk/orders/A-1001.json"
    }
    assert tools[1].arguments.value["pattern"] == "broken"
    write = tools[3]
    assert write.is_error  # a permission denial answers the call with is_error
    assert write.attributes["claude.permission_denied"] is True
    models = {s.model for s in trace.spans if s.kind is Kind.LLM}
    assert models <= {"claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", "claude-opus-5-5"}
    assert (
        len([s for s in trace.spans if s.kind is Kind.LLM and s.name.startswith("chat claude")])
        >= 4
    )


@pytest.mark.parametrize("version", ["2.1.30", "2.1.332"])
def test_partial_messages_give_each_message_its_final_usage(version: str) -> None:
    trace = one_trace(RECORDED / version / "refund-partial.stream.jsonl")
    llm = [s for s in trace.spans if s.kind is Kind.LLM]
    assert [s.tokens.output for s in llm] == [187, 142, 96, 64]  # the fake API's final counts
    assert not any("claude.usage.reconciled" in s.attributes for s in llm)


@pytest.mark.parametrize("version", ["2.0.77", "2.1.30", "2.1.332"])
def test_max_turns_run_fails(version: str) -> None:
    run = one_trace(RECORDED / version / "max-turns.stream.jsonl").run_record
    assert run is not None and run.status == "failed"
    verdict = check(
        one_trace(RECORDED / version / "max-turns.stream.jsonl"),
        compile_contract({"name": "t", "run": {"requireCompleted": True}}),
    )
    assert verdict.status == "fail"


@pytest.mark.parametrize("version", ["2.0.77", "2.1.30", "2.1.332"])
def test_subagent_calls_hang_under_their_task_call(version: str) -> None:
    trace = one_trace(RECORDED / version / "subagent.stream.jsonl")
    by_id = {s.span_id: s for s in trace.spans}
    (task,) = [s for s in trace.spans if s.tool_name in ("Task", "Agent")]
    webfetch = next(s for s in trace.spans if s.tool_name == "WebFetch")
    assert by_id[webfetch.parent_span_id].parent_span_id == task.span_id
    assert webfetch.is_error  # no network in the recording's namespace


def test_agent_sdk_stdout_reads_without_a_format() -> None:
    path = RECORDED / "2.1.332" / "sdk.stream.jsonl"
    assert records(path)[0]["type"] == "control_response"
    (trace,) = read_traces(path)
    assert [s.tool_name for s in trace.spans if s.kind is Kind.TOOL] == [
        "Read",
        "Grep",
        "Bash",
        "Write",
    ]
    assert trace.run_record is not None and trace.run_record.status == "completed"


# --- verdicts that used to pass falsely ---------------------------------------------------------

NO_WEBFETCH = compile_contract({"name": "t", "tools": {"forbidden": ["WebFetch"]}})
CONTRACTS = Path(__file__).resolve().parent.parent / "contracts"


@pytest.mark.parametrize("version", ["2.0.77", "2.1.30", "2.1.332"])
def test_webfetch_in_a_subagent_fails_a_forbidden_rule_on_the_stream(version: str) -> None:
    assert (
        check(one_trace(RECORDED / version / "subagent.stream.jsonl"), NO_WEBFETCH).status == "fail"
    )


def test_webfetch_in_a_subagent_fails_on_the_session_file_alone() -> None:
    """The interactive CLI writes the sub-agent's messages into the session file as progress."""
    main = transcript("2.1.30", "subagent-interactive")
    trace = one_trace(main)
    assert check(trace, NO_WEBFETCH).status == "fail"
    by_id = {s.span_id: s for s in trace.spans}
    webfetch = next(s for s in trace.spans if s.tool_name == "WebFetch")
    assert by_id[by_id[webfetch.parent_span_id].parent_span_id].tool_name == "Task"


@pytest.mark.parametrize(
    ("version", "scenario"),
    [
        ("2.1.30", "subagent-interactive"),
        ("2.1.30", "subagent"),
        ("2.1.332", "subagent"),
        ("2.0.77", "subagent"),
    ],
)
def test_session_read_with_its_subagent_files_hangs_them_under_the_task(
    version: str, scenario: str
) -> None:
    main = transcript(version, scenario)
    files = [main, *companions(main)]
    assert len(files) >= 2
    assert all(is_companion(f) for f in files[1:])
    trace = session_read(files)
    by_id = {s.span_id: s for s in trace.spans}
    webfetch = next(s for s in trace.spans if s.tool_name == "WebFetch")
    assert by_id[by_id[webfetch.parent_span_id].parent_span_id].tool_name in ("Task", "Agent")
    assert check(trace, NO_WEBFETCH).status == "fail"
    # The Task-scoped contract sees the sub-agent's calls (WebFetch and Read are allowed there).
    spec = json.loads((CONTRACTS / "subagent-scope.json").read_text())
    if version == "2.1.332":  # this version names the call Agent
        spec["scope"]["root"]["tool"] = "Agent"
        spec["tools"]["allowed"].append("Agent")
    scoped = check(trace, compile_contract(spec))
    assert scoped.status == "pass", [(r.label, r.violations) for r in scoped.rules]
    assert len([s for s in trace.spans if s.tool_name == "WebFetch"]) == 1  # counted once


def test_progress_and_subagent_file_give_one_span_per_message() -> None:
    main = transcript("2.1.30", "subagent-interactive")
    alone = one_trace(main)
    together = session_read([main, *companions(main)])
    ids_together = [s.span_id for s in together.spans]
    assert len(ids_together) == len(set(ids_together))
    # Progress records hold a sub-agent's tool-use messages, not its last (text) message: read
    # alone, that one is a span built from the Task result; with the sub-agent's file, its own.
    from_result = {s.span_id for s in alone.spans if "last message" in s.name}
    assert len(from_result) == 1
    assert {s.span_id for s in alone.spans} - from_result <= set(ids_together)


def test_task_scope_with_a_forbidden_tool_in_the_subagent_fails() -> None:
    main = transcript("2.1.30", "subagent-interactive")
    trace = session_read([main, *companions(main)])
    no_read = compile_contract(
        {
            "name": "t",
            "scope": {"root": {"kind": "tool", "tool": "Task"}},
            "tools": {"forbidden": ["Read"]},
        }
    )
    assert check(trace, no_read).status == "fail"


def test_directory_file_reader_skips_companions_and_reads_sessions_whole() -> None:
    main = transcript("2.1.30", "subagent-interactive")
    (agent,) = companions(main)
    assert list(read_directory_file(agent, [])) == []
    spans = list(read_directory_file(main, []))
    assert any(s.tool_name == "WebFetch" for s in spans)


def stream_with(extra: dict[str, Any]) -> Trace:
    base = RECORDED / "2.0.77" / "refund.stream.jsonl"  # no timestamps of its own
    lines = [r for r in records(base) if r.get("type") != "result"]
    result = next(r for r in records(base) if r.get("type") == "result")
    data = b"".join(json.dumps(r).encode() + b"\n" for r in [*lines, {**result, **extra}])
    notes: list[ReadNote] = []
    return group_traces(read_claude_stream(io.BytesIO(data), ReadContext("<t>", notes)), notes)[0]


def test_require_completed_passes_on_a_successful_result_without_timestamps() -> None:
    path = RECORDED / "2.0.77" / "refund.stream.jsonl"
    assert not any("timestamp" in r for r in records(path))
    contract = compile_contract({"name": "t", "run": {"requireCompleted": True}})
    assert check(one_trace(path), contract).status == "pass"


def test_max_duration_fails_when_one_timestamp_hides_a_long_result_duration() -> None:
    trace = stream_with({"duration_ms": 9352, "timestamp": "2026-01-05T10:00:00.000Z"})
    run = trace.run_record
    assert run is not None and run.duration_ns == 9_352_000_000
    verdict = check(trace, compile_contract({"name": "t", "run": {"maxDurationMs": 5000}}))
    assert verdict.status == "fail"
    assert "run took 9352 ms, over 5000 ms" in str(verdict.rules[0].violations)


def test_max_duration_takes_the_longer_of_span_times_and_result_duration() -> None:
    trace = one_trace(RECORDED / "2.1.332" / "subagent.stream.jsonl")
    run = trace.run_record
    assert run is not None and run.start_ns is not None and run.end_ns is not None
    assert run.recorded_duration_ns is not None
    measured = run.end_ns - run.start_ns
    assert run.duration_ns == max(measured, run.recorded_duration_ns)


def test_unknown_record_types_are_noted() -> None:
    data = (RECORDED / "2.0.77" / "refund.stream.jsonl").read_bytes()
    data += b'{"type":"brand_new_record","session_id":"x"}\n'
    notes: list[ReadNote] = []
    list(read_claude_stream(io.BytesIO(data), ReadContext("<t>", notes)))
    assert any("'brand_new_record'" in n.message for n in notes)


def test_transcripts_without_totals_leave_snapshot_output_unknown() -> None:
    trace = one_trace(transcript("2.0.77", "refund"))
    llm = [s for s in trace.spans if s.kind is Kind.LLM]
    assert llm and all(s.tokens.output is None for s in llm)
    assert all(s.attributes["claude.usage.output_tokens_at_start"] == 8 for s in llm)
    verdict = check(trace, compile_contract({"name": "t", "llm": {"maxTotalTokens": 10**9}}))
    assert verdict.status != "pass"
    assert any("unknown" in n.message for n in trace.notes)


def test_newer_transcripts_settle_against_cost_state() -> None:
    main = transcript("2.1.332", "subagent")
    trace = session_read([main, *companions(main)])
    cost = next(r for r in records(main) if r.get("type") == "cost-state")
    expected = [sum(m.get(k, 0) for m in cost["modelUsage"].values()) for k in COUNTS]
    assert token_sums(list(trace.spans)) == expected
