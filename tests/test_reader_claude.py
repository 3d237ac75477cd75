"""Claude Code stream-json output and session transcripts (inputs.md, "Claude Code streams")."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck.errors import TraceReadError
from tracecheck.readers import detect_format, read_traces
from tracecheck.readers.claude import read_claude_stream
from tracecheck.readers.common import ReadContext
from tracecheck.spans import Kind, Span

SESSION = "5b0c2a7e-3f41-4d8e-9a6b-2c1f0e9d8a71"
STAMP = "2025-10-14T09:12:{:02d}.{:03d}Z"
NS = 1_760_433_120_000_000_000  # 2025-10-14T09:12:00Z


# --- building records -------------------------------------------------------------------------


def init(**extra: Any) -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": "init",
        "session_id": SESSION,
        "cwd": "/home/dev/refund-desk",
        "tools": ["Task", "Bash", "Read"],
        "mcp_servers": [{"name": "orders", "status": "connected"}],
        "model": "claude-sonnet-4-5-20250929",
        "permissionMode": "default",
        "apiKeySource": "none",
        "uuid": "u-init",
        **extra,
    }


def usage(inp: int, out: int, read: int = 0, create: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "output_tokens": out,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": create,
        "service_tier": "standard",
    }


def assistant(
    message_id: str,
    *blocks: dict[str, Any],
    model: str = "claude-sonnet-4-5-20250929",
    tokens: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    message = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(blocks),
        "stop_reason": None,
        "usage": tokens if tokens is not None else usage(3, 10),
    }
    return {
        "type": "assistant",
        "message": message,
        "parent_tool_use_id": None,
        "session_id": SESSION,
        **extra,
    }


def user(*blocks: dict[str, Any] | str, **extra: Any) -> dict[str, Any]:
    content: Any = blocks[0] if len(blocks) == 1 and isinstance(blocks[0], str) else list(blocks)
    return {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": None,
        "session_id": SESSION,
        **extra,
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def tool_result(call_id: str, content: Any, is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}


def result(subtype: str = "success", is_error: bool = False, **extra: Any) -> dict[str, Any]:
    return {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "duration_ms": 48213,
        "duration_api_ms": 39877,
        "num_turns": 3,
        "total_cost_usd": 0.056,
        "result": "done",
        "session_id": SESSION,
        "uuid": "u-result",
        **extra,
    }


def transcript(
    record: dict[str, Any],
    second: int,
    uuid: str,
    parent: str | None,
    sidechain: bool = False,
    millis: int = 0,
) -> dict[str, Any]:
    """A stream-json record as a transcript writes it: sessionId, uuid chain, timestamp."""
    out = {k: v for k, v in record.items() if k not in ("session_id", "parent_tool_use_id")}
    return {
        "parentUuid": parent,
        "isSidechain": sidechain,
        "userType": "external",
        "cwd": "/home/dev/refund-desk",
        "sessionId": SESSION,
        "version": "2.0.14",
        "gitBranch": "main",
        **out,
        "uuid": uuid,
        "timestamp": STAMP.format(second, millis),
    }


def jsonl(*records: Any) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def read(data: bytes) -> list[Span]:
    return list(read_claude_stream(io.BytesIO(data), ReadContext("<test>")))


def by_name(spans: list[Span]) -> dict[str, Span]:
    return {s.name: s for s in spans}


REFUND = jsonl(
    init(),
    assistant("msg_1", text("I'll read the order."), tokens=usage(3, 1, 11843, 5210)),
    assistant(
        "msg_1",
        tool_use("toolu_read", "Read", {"file_path": "orders/A-1001.json"}),
        tokens=usage(3, 61, 11843, 5210),
    ),
    user(tool_result("toolu_read", '{"order_id": "A-1001", "total": 42.5}')),
    assistant("msg_2", tool_use("toolu_bad", "Read", {"file_path": "orders/A-1002.json"})),
    user(tool_result("toolu_bad", "<tool_use_error>File does not exist.</tool_use_error>", True)),
    assistant(
        "msg_3",
        tool_use(
            "toolu_task", "Task", {"prompt": "Find the refund policy.", "subagent_type": "Explore"}
        ),
    ),
    user(text("Find the refund policy."), parent_tool_use_id="toolu_task"),
    assistant(
        "msg_sub",
        tool_use("toolu_grep", "Grep", {"pattern": "refund"}),
        model="claude-haiku-4-5-20251001",
        parent_tool_use_id="toolu_task",
    ),
    user(
        tool_result("toolu_grep", [text("policy.md:3: capped"), text("policy.md:4: 30 days")]),
        parent_tool_use_id="toolu_task",
    ),
    user(tool_result("toolu_task", [text("Refunds are capped at the order total.")])),
    assistant("msg_4", text("A-1001 can be refunded.")),
    result(),
)


# --- structure --------------------------------------------------------------------------------


def test_stream_has_a_session_root_llm_calls_and_tool_calls_under_them() -> None:
    spans = read(REFUND)
    root = spans[0]
    assert (root.name, root.kind, root.parent_span_id) == ("session", Kind.AGENT, None)
    assert root.attributes["session.id"] == SESSION
    assert root.attributes["gen_ai.system"] == "anthropic"
    assert [(s.kind, s.name) for s in spans[1:]] == [
        (Kind.LLM, "chat claude-sonnet-4-5-20250929"),
        (Kind.TOOL, "Read"),
        (Kind.LLM, "chat claude-sonnet-4-5-20250929"),
        (Kind.TOOL, "Read"),
        (Kind.LLM, "chat claude-sonnet-4-5-20250929"),
        (Kind.TOOL, "Task"),
        (Kind.LLM, "chat claude-haiku-4-5-20251001"),
        (Kind.TOOL, "Grep"),
        (Kind.LLM, "chat claude-sonnet-4-5-20250929"),
    ]
    llm, read_call = spans[1], spans[2]
    assert llm.parent_span_id == root.span_id
    assert read_call.parent_span_id == llm.span_id
    assert {s.trace_id for s in spans} == {SESSION.replace("-", "")}


def test_llm_span_carries_model_and_response_attributes() -> None:
    llm = read(REFUND)[1]
    assert llm.model == "claude-sonnet-4-5-20250929"
    assert llm.attributes["gen_ai.operation.name"] == "chat"
    assert llm.attributes["gen_ai.response.id"] == "msg_1"
    assert "gen_ai.request.model" not in llm.attributes


def test_tool_span_carries_name_call_id_arguments_and_result() -> None:
    call = read(REFUND)[2]
    assert call.tool_name == "Read"
    assert call.attributes["gen_ai.tool.call.id"] == "toolu_read"
    assert call.attributes["gen_ai.tool.call.arguments"] == {"file_path": "orders/A-1001.json"}
    assert call.arguments.value == {"file_path": "orders/A-1001.json"}
    assert call.attributes["gen_ai.tool.call.result"] == '{"order_id": "A-1001", "total": 42.5}'
    assert (call.status, call.status_message) == ("ok", None)


def test_tool_result_given_as_text_blocks_is_joined() -> None:
    grep = by_name(read(REFUND))["Grep"]
    assert grep.attributes["gen_ai.tool.call.result"] == "policy.md:3: capped\npolicy.md:4: 30 days"


def test_tool_result_is_error_makes_the_tool_span_an_error_without_copying_output() -> None:
    failed = read(REFUND)[4]
    assert (failed.status, failed.status_message) == ("error", "tool result is_error")
    assert "File does not exist" in failed.attributes["gen_ai.tool.call.result"]


def test_tool_use_without_result_has_no_end_and_no_status() -> None:
    spans = read(jsonl(init(), assistant("msg_1", tool_use("toolu_1", "Bash", {"command": "ls"}))))
    assert (spans[2].end_ns, spans[2].status) == (None, None)


def test_result_for_an_unknown_tool_use_is_noted() -> None:
    ctx = ReadContext("<test>")
    list(read_claude_stream(io.BytesIO(jsonl(init(), user(tool_result("toolu_x", "ok")))), ctx))
    assert [(n.where, n.message) for n in ctx.notes] == [
        ("line 2", "message.content[0] answers no tool_use read before it")
    ]


# --- merged messages and usage ----------------------------------------------------------------


def test_records_of_one_message_id_make_one_llm_span_with_the_final_usage() -> None:
    last = assistant(
        "msg_1",
        tool_use("toolu_a", "Read", {}),
        tool_use("toolu_b", "Read", {}),
        tokens=usage(3, 88),
    )
    last["message"]["stop_reason"] = "tool_use"  # written after the message's final usage
    spans = read(
        jsonl(
            assistant("msg_1", {"type": "thinking", "thinking": "…"}, tokens=usage(3, 1)),
            assistant("msg_1", text("Reading both."), tokens=usage(3, 20)),
            last,
        )
    )
    llms = [s for s in spans if s.kind is Kind.LLM]
    assert len(llms) == 1
    assert llms[0].tokens.output == 88
    assert [s.parent_span_id for s in spans if s.kind is Kind.TOOL] == [llms[0].span_id] * 2


def test_a_stale_copy_with_fewer_output_tokens_does_not_replace_the_final_usage() -> None:
    final = assistant("msg_1", tokens=usage(3, 88))
    final["message"]["stop_reason"] = "end_turn"
    spans = read(jsonl(final, assistant("msg_1", tokens=usage(3, 1))))
    assert spans[1].tokens.output == 88


def test_start_of_message_usage_that_no_total_settles_leaves_output_unknown() -> None:
    spans = read(
        jsonl(assistant("msg_1", tokens=usage(3, 8)), assistant("msg_1", tokens=usage(3, 8)))
    )
    assert spans[1].tokens.output is None
    assert spans[1].tokens.input == 3
    assert spans[1].attributes["claude.usage.output_tokens_at_start"] == 8


def test_usage_keeps_anthropic_cache_counts_separate_and_adds_them_to_the_total() -> None:
    final = assistant("msg_1", text("I'll read the order."), tokens=usage(3, 61, 11843, 5210))
    final["message"]["stop_reason"] = "end_turn"
    llm = read(jsonl(init(), final))[1]
    assert llm.attributes["gen_ai.usage.input_tokens"] == 3
    assert llm.attributes["gen_ai.usage.output_tokens"] == 61
    assert llm.attributes["gen_ai.usage.cache_read_input_tokens"] == 11843
    assert llm.attributes["gen_ai.usage.cache_creation_input_tokens"] == 5210
    tokens = llm.tokens
    assert (tokens.input, tokens.output, tokens.cache_read, tokens.cache_write) == (
        3,
        61,
        11843,
        5210,
    )
    assert tokens.total == 3 + 61 + 11843 + 5210


def test_stop_reason_becomes_finish_reasons() -> None:
    record = assistant("msg_1", text("done"))
    record["message"]["stop_reason"] = "end_turn"
    assert read(jsonl(record))[1].attributes["gen_ai.response.finish_reasons"] == ["end_turn"]


def test_synthetic_messages_are_not_llm_calls() -> None:
    api_error = assistant(
        "msg_e",
        text("API Error: 529 Overloaded"),
        model="<synthetic>",
        tokens=usage(0, 0),
        isApiErrorMessage=True,
    )
    spans = read(jsonl(init(), api_error, result("success", is_error=True)))
    assert [s.name for s in spans] == ["session"]
    assert spans[0].run_record.status == "failed"


# --- sub-agents -------------------------------------------------------------------------------


def test_stream_subagent_calls_hang_under_their_task_tool_span() -> None:
    spans = by_name(read(REFUND))
    task, sub = spans["Task"], spans["chat claude-haiku-4-5-20251001"]
    assert sub.parent_span_id == task.span_id
    assert spans["Grep"].parent_span_id == sub.span_id
    assert task.attributes["gen_ai.tool.call.result"] == "Refunds are capped at the order total."


def test_transcript_sidechain_hangs_under_the_task_call_with_its_prompt() -> None:
    spans = read(
        jsonl(
            transcript(user("Check both."), 1, "u1", None),
            transcript(
                assistant(
                    "msg_1",
                    tool_use("toolu_a", "Task", {"prompt": "Check A."}),
                    tool_use("toolu_b", "Task", {"prompt": "Check B."}),
                ),
                2,
                "u2",
                "u1",
            ),
            transcript(user("Check B."), 3, "s1", None, sidechain=True),
            transcript(user("Check A."), 3, "s2", None, sidechain=True, millis=5),
            transcript(assistant("msg_a", text("A is fine.")), 4, "s3", "s2", sidechain=True),
            transcript(assistant("msg_b", text("B is fine.")), 5, "s4", "s1", sidechain=True),
            transcript(user(tool_result("toolu_a", "A is fine.")), 6, "u3", "u2"),
            transcript(user(tool_result("toolu_b", "B is fine.")), 6, "u4", "u2"),
        )
    )
    calls = {s.attributes.get("gen_ai.tool.call.id"): s for s in spans if s.kind is Kind.TOOL}
    answers = {s.attributes["gen_ai.response.id"]: s for s in spans if s.kind is Kind.LLM}
    assert answers["msg_a"].parent_span_id == calls["toolu_a"].span_id
    assert answers["msg_b"].parent_span_id == calls["toolu_b"].span_id


def test_transcript_sidechain_without_prompt_match_goes_to_the_waiting_task_call() -> None:
    spans = read(
        jsonl(
            transcript(
                assistant("msg_1", tool_use("toolu_a", "Agent", {"prompt": "x"})), 1, "u1", None
            ),
            transcript(assistant("msg_a", text("working")), 2, "s1", None, sidechain=True),
        )
    )
    assert spans[3].parent_span_id == spans[2].span_id


def test_subagent_transcript_hangs_under_a_subagent_span_alone_and_under_its_task_with_its_session(
    tmp_path: Path,
) -> None:
    main = jsonl(
        transcript(user("Explore."), 1, "u1", None),
        transcript(
            assistant("msg_1", tool_use("toolu_t", "Task", {"prompt": "Explore."})), 2, "u2", "u1"
        ),
        transcript(user(tool_result("toolu_t", "done")), 9, "u3", "u2"),
    )
    agent = jsonl(
        transcript(user("Explore.", agentId="a1b2"), 3, "s1", None, sidechain=True),
        transcript(
            assistant("msg_s", tool_use("toolu_g", "Glob", {"pattern": "*"}), agentId="a1b2"),
            4,
            "s2",
            "s1",
            sidechain=True,
        ),
        transcript(
            user(tool_result("toolu_g", "a.py"), agentId="a1b2"), 5, "s3", "s2", sidechain=True
        ),
    )
    alone = read(agent)
    assert [(s.kind, s.name) for s in alone] == [
        (Kind.AGENT, "subagent a1b2"),
        (Kind.LLM, "chat claude-sonnet-4-5-20250929"),
        (Kind.TOOL, "Glob"),
    ]
    assert (alone[0].start_ns, alone[0].end_ns) == (NS + 3 * 10**9, NS + 5 * 10**9)
    (tmp_path / f"{SESSION}.jsonl").write_bytes(main)
    (tmp_path / SESSION / "subagents").mkdir(parents=True)
    (tmp_path / SESSION / "subagents" / "agent-a1b2.jsonl").write_bytes(agent)
    # Read with its session, the sub-agent hangs under the Task call that started it.
    (trace,) = read_traces(tmp_path)
    (root,) = trace.roots
    assert root.name == "session"
    spans = by_name(list(trace.spans))
    assert "subagent a1b2" not in spans
    (sub_call,) = [s for s in trace.spans if s.attributes.get("gen_ai.response.id") == "msg_s"]
    assert sub_call.parent_span_id == spans["Task"].span_id
    assert spans["Glob"].parent_span_id == sub_call.span_id


# --- the root: offered tools, run record, times -----------------------------------------------


def test_init_tools_become_the_roots_offered_tools_and_init_details_claude_attributes() -> None:
    root = read(REFUND)[0]
    offered = root.offered_tools
    assert offered is not None
    assert offered.names == ("Task", "Bash", "Read")
    assert root.attributes["claude.init.model"] == "claude-sonnet-4-5-20250929"
    assert "gen_ai.request.model" not in root.attributes
    assert root.attributes["claude.cwd"] == "/home/dev/refund-desk"
    assert root.attributes["claude.permission_mode"] == "default"
    assert root.attributes["claude.mcp_servers"] == [{"name": "orders", "status": "connected"}]
    assert root.kind is Kind.AGENT


@pytest.mark.parametrize(
    ("records", "status"),
    [
        ((result("success"),), "completed"),
        ((result("success", is_error=True),), "failed"),
        ((result("error_max_turns", is_error=True),), "failed"),
        ((result("error_during_execution"),), "failed"),
        ((), "running"),
        ((result("error_max_turns", is_error=True), result("success")), "completed"),
    ],
)
def test_result_record_sets_the_run_status(
    records: tuple[dict[str, Any], ...], status: str
) -> None:
    (trace,) = read_traces(jsonl(init(), assistant("msg_1", text("hi")), *records))
    run = trace.run_record
    assert run is not None
    assert run.status == status


def test_result_details_land_on_the_root_and_no_time_is_invented() -> None:
    root = read(REFUND)[0]
    assert root.attributes["claude.duration_ms"] == 48213
    assert root.attributes["claude.total_cost_usd"] == 0.056
    assert root.attributes["claude.num_turns"] == 3
    assert (root.start_ns, root.end_ns, root.status) == (None, None, "ok")
    assert all(s.start_ns is None and s.end_ns is None for s in read(REFUND))


def test_failed_result_marks_the_root_in_error() -> None:
    root = read(jsonl(init(), result("error_max_turns", is_error=True)))[0]
    assert (root.status, root.status_message) == ("error", "result is_error")


def test_transcript_timestamps_give_start_and_end_in_nanoseconds() -> None:
    spans = read(
        jsonl(
            {
                "type": "file-history-snapshot",
                "messageId": "u1",
                "isSnapshotUpdate": False,
                "snapshot": {"messageId": "u1", "trackedFileBackups": {}, "timestamp": "x"},
            },
            transcript(user("Read it."), 1, "u1", None, millis=118),
            transcript(assistant("msg_1", text("Reading.")), 6, "u2", "u1", millis=402),
            transcript(
                assistant("msg_1", tool_use("toolu_r", "Read", {})), 6, "u3", "u2", millis=951
            ),
            transcript(user(tool_result("toolu_r", "ok")), 7, "u4", "u3", millis=20),
            {"type": "summary", "summary": "Refund check", "leafUuid": "u4"},
        )
    )
    root, llm, call = spans
    assert (root.start_ns, root.end_ns) == (NS + 1_118_000_000, NS + 7_020_000_000)
    assert (llm.start_ns, llm.end_ns) == (NS + 6_402_000_000, NS + 6_951_000_000)
    assert (call.start_ns, call.end_ns) == (NS + 6_951_000_000, NS + 7_020_000_000)
    assert root.run_record.status == "running"
    assert root.attributes["claude.version"] == "2.0.14"


# --- sessions, ids, determinism ---------------------------------------------------------------


def test_each_session_id_is_its_own_trace_with_derived_ids() -> None:
    other = {**init(), "session_id": "not-a-uuid"}
    traces = read_traces(
        jsonl(init(), other, {**assistant("msg_9", text("hi")), "session_id": "not-a-uuid"})
    )
    assert [t.trace_id for t in traces] == [
        SESSION.replace("-", ""),
        hashlib.sha256(b"not-a-uuid").hexdigest()[:32],
    ]
    assert [len(t.spans) for t in traces] == [1, 2]
    assert all(len(s.span_id or "") == 16 for t in traces for s in t.spans)


def test_reading_twice_gives_equal_spans() -> None:
    first, second = read(REFUND), read(REFUND)
    assert first == second
    assert [dict(s.attributes) for s in first] == [dict(s.attributes) for s in second]
    assert len({s.span_id for s in first}) == len(first)


def test_unknown_record_types_are_skipped() -> None:
    spans = read(
        jsonl(
            {
                "type": "queue-operation",
                "operation": "dequeue",
                "sessionId": SESSION,
                "timestamp": "2025-10-14T09:12:00.000Z",
            },
            {"type": "stream_event", "event": {"type": "message_start"}, "session_id": SESSION},
            {"type": "progress", "data": {"type": "agent_progress"}, "parentToolUseID": "t"},
            {"type": "system", "subtype": "hook_response", "session_id": SESSION},
            {"no": "type"},
            init(),
        )
    )
    assert [s.name for s in spans] == ["session"]


# --- sniffing and errors ----------------------------------------------------------------------


def test_read_traces_sniffs_a_stream_as_claude_stream(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(REFUND)
    assert detect_format(path) == "claude-stream"
    (trace,) = read_traces(path)
    assert len(trace.spans) == 10


def test_read_traces_sniffs_a_transcript_opening_with_a_user_record() -> None:
    data = jsonl(
        transcript(user("Hi."), 1, "u1", None),
        transcript(assistant("m", text("Hi!")), 2, "u2", "u1"),
    )
    assert detect_format(data) == "claude-stream"


def test_read_traces_sniffs_a_transcript_opening_with_a_file_history_snapshot() -> None:
    snapshot = {
        "type": "file-history-snapshot",
        "messageId": "u1",
        "isSnapshotUpdate": False,
        "snapshot": {"messageId": "u1", "trackedFileBackups": {}},
    }
    assert detect_format(jsonl(snapshot, transcript(user("Hi."), 1, "u1", None))) == "claude-stream"


def test_malformed_json_line_is_located() -> None:
    data = jsonl(init()) + b'{"type": "assistant", "message": \n'
    with pytest.raises(TraceReadError) as caught:
        read(data)
    assert caught.value.where == "line 2, column 34"
    assert str(caught.value) == "<test>: line 2, column 34: malformed JSON: unexpected end of data"


def test_line_that_is_not_an_object_is_located() -> None:
    with pytest.raises(TraceReadError) as caught:
        read(jsonl(init(), [1, 2]))
    assert str(caught.value) == "<test>: line 2: is a list, not a JSON object"


@pytest.mark.parametrize(
    ("record", "where", "reason"),
    [
        (
            {**user("x"), "message": {"content": 7}},
            "line 1: message.content",
            "is an integer, not a list or a string",
        ),
        (assistant("m", "not a block"), "line 1: message.content[0]", "is a string, not an object"),
        (
            assistant("m", tokens={"output_tokens": "12"}),
            "line 1: message.usage.output_tokens",
            "is a string, not a number",
        ),
        ({**init(), "tools": ["Read", 3]}, "line 1: tools[1]", "is an integer, not a string"),
        ({**init(), "session_id": 12}, "line 1: session_id", "is an integer, not a string"),
        (
            {**user(tool_result("t", "x")), "timestamp": "yesterday"},
            "line 1: timestamp",
            "a string of 9 character(s) is not an ISO-8601 time",
        ),
        (
            user({**tool_result("t", "x"), "is_error": "yes"}),
            "line 1: message.content[0].is_error",
            "is a string, not a boolean",
        ),
        (
            user(tool_result("t", [text("a"), 5])),
            "line 1: message.content[0].content[1]",
            "is an integer, not an object",
        ),
        ({**result(), "duration_ms": "48 s"}, "line 1: duration_ms", "is a string, not a number"),
        ({**user("x"), "isSidechain": "no"}, "line 1: isSidechain", "is a string, not a boolean"),
    ],
)
def test_field_of_the_wrong_type_is_located(
    record: dict[str, Any], where: str, reason: str
) -> None:
    with pytest.raises(TraceReadError) as caught:
        read(jsonl(record))
    assert (caught.value.where, caught.value.reason) == (where, reason)


# --- property: any records either read or raise TraceReadError --------------------------------

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
Wrap = Callable[[st.SearchStrategy[Any]], st.SearchStrategy[Any]]


def clean(plausible: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return plausible


def dirty(plausible: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return plausible | JSON


def records(wrap: Wrap) -> st.SearchStrategy[dict[str, Any]]:
    """Records shaped like Claude Code's; `dirty` lets any field hold any JSON value."""
    ids = wrap(st.sampled_from(["toolu_1", "toolu_2", "msg_1", "u1", "u2"]))
    text_blocks = st.lists(
        st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=3)}), max_size=2
    )
    block = st.fixed_dictionaries(
        {"type": wrap(st.sampled_from(["text", "tool_use", "tool_result", "thinking"]))},
        optional={
            "id": ids,
            "name": wrap(st.sampled_from(["Task", "Agent", "Read"])),
            "input": wrap(st.fixed_dictionaries({"prompt": st.sampled_from(["p", "q"])})),
            "tool_use_id": ids,
            "content": wrap(st.sampled_from(["p", "q"]) | text_blocks),
            "is_error": wrap(st.booleans()),
            "text": wrap(st.sampled_from(["p", "q"])),
        },
    )
    counts = {
        k: wrap(st.integers(0, 99))
        for k in ("input_tokens", "output_tokens", "cache_read_input_tokens")
    }
    message = st.fixed_dictionaries(
        {},
        optional={
            "id": ids,
            "model": wrap(st.sampled_from(["claude-x", "claude-y", "<synthetic>"])),
            "content": wrap(st.lists(block, max_size=3) | st.sampled_from(["p", "q"])),
            "usage": wrap(st.fixed_dictionaries({}, optional=counts)),
            "stop_reason": wrap(st.sampled_from(["end_turn", "tool_use"])),
        },
    )
    sessions = wrap(st.sampled_from([SESSION, "s2"]))
    return st.fixed_dictionaries(
        {
            "type": wrap(
                st.sampled_from(["system", "assistant", "assistant", "user", "result", "summary"])
            )
        },
        optional={
            "session_id": sessions,
            "sessionId": sessions,
            "subtype": wrap(st.sampled_from(["init", "success", "error_max_turns"])),
            "message": wrap(message),
            "parent_tool_use_id": ids,
            "isSidechain": wrap(st.booleans()),
            "uuid": ids,
            "parentUuid": ids,
            "agentId": wrap(st.just("a1")),
            "timestamp": wrap(
                st.sampled_from(["2025-10-14T09:12:00Z", "2025-10-14T09:11:00.5+01:00"])
            ),
            "tools": wrap(st.lists(st.sampled_from(["Read", "Task"]), max_size=2)),
            "mcp_servers": wrap(
                st.lists(st.fixed_dictionaries({"name": st.just("m")}), max_size=1)
            ),
            "is_error": wrap(st.booleans()),
            "duration_ms": wrap(st.integers(0, 10**6)),
            "cwd": wrap(st.just("/w")),
        },
    )


def encoded(values: st.SearchStrategy[Any]) -> st.SearchStrategy[bytes]:
    return values.map(lambda value: json.dumps(value).encode())


CLEAN, DIRTY = encoded(records(clean)), encoded(records(dirty))
LINE = st.one_of(CLEAN, CLEAN, CLEAN, CLEAN, CLEAN, DIRTY, encoded(JSON), st.binary(max_size=12))


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=8))
def test_any_records_either_read_or_raise_trace_read_error(lines: list[bytes]) -> None:
    data = b"\n".join(lines)
    try:
        first = read(data)
    except TraceReadError:
        return
    assert read(data) == first
    for trace_id in {s.trace_id for s in first}:
        ids = [s.span_id for s in first if s.trace_id == trace_id]
        assert len(ids) == len(set(ids))
