"""Claude Code output: `claude -p --output-format stream-json --verbose`, the Agent SDK's
stdout, and saved session transcripts (inputs.md, "Claude Code streams").

All are JSON Lines. What is read (record shapes as Claude Code 2.0.x and 2.1.x write them; the
fixtures in `fixtures/claude/recorded/` are real recordings):

- `system`/`init`: `session_id`, `tools` (offered tools), `model`, `cwd`, `permissionMode`,
  `mcp_servers`, `claude_code_version` → root span attributes. Other `system` subtypes
  (hooks, status, compact boundaries, task progress, ...) make no span.
- `assistant`: `message` is an Anthropic API message, written as one record per content block
  with the same `message.id`: one LLM span per message id; `tool_use`, `server_tool_use` and
  `mcp_tool_use` blocks make TOOL spans (server tools end at their `*_tool_result` block).
  Usage: see `usage.py`. Claude Code's `<synthetic>` messages (no model ran) make no span.
- `user`: prompts, and `tool_result` blocks ending TOOL spans (`is_error` → error status). A
  Task/Agent result's `toolUseResult` (`tool_use_result` in stream-json) links the sub-agent
  id to its call and gives the sub-agent's last message's final usage.
- `result`: `subtype` and `is_error` set `run.status` (`completed` only for a `success` that is
  not an error; the last result wins); `duration_ms` of every result (one per turn) sum to
  `run.duration_ms`; the run is recorded as ended (`run.ended`); `usage`/`modelUsage` settle
  token counts; `permission_denials` mark their tool spans `claude.permission_denied`.
- `stream_event` (`--include-partial-messages`): `message_delta` usage is the message's final
  usage (`api_message_id`, else the message the thread's last `message_start` opened).
- `progress` with `data.type: agent_progress` (interactive CLI 2.1 transcripts): `data.message`
  is a sub-agent's user or assistant message, read as such under the Task/Agent call named by
  `parentToolUseID`. Other progress records make no span.
- Sub-agents: stream-json names their Task/Agent call (`parent_tool_use_id`); transcripts
  mark their records `isSidechain` with an `agentId`, inline (older versions), in
  `agent-<id>.jsonl` beside the session (2.0.x) or in `<session>/subagents/` (2.1.x). A
  sub-agent hangs under its call when something links them (`agent_progress`, the call's
  result naming the `agentId`, the sub-agent's prompt), else under an AGENT span
  `subagent <id>` below the session root. Span ids are derived from the session and message
  or tool-use ids, so the same message read from two files is one span.
- Records that make no span: `file-history-snapshot`, `summary`, `queue-operation`,
  `custom-title`, `last-prompt`, `attachment`, `rate_limit_event`, `control_request`,
  `control_response`, ... (a transcript's `cost-state` gives running token totals). A record
  type not known here is noted, never silently dropped.

Transcripts carry ISO-8601 `timestamp`s; stream-json has none, and none are invented. The
trace id is the session UUID's hex (else the first 32 hex digits of the SHA-256 of the session
id).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import IO, Any

import orjson

from tracecheck.readers.claude import fields, usage
from tracecheck.readers.claude.fields import Invalid
from tracecheck.readers.claude.model import (
    Call,
    ResultRecord,
    Session,
    span_id,
    spans,
    trace_id,
    widen,
)
from tracecheck.readers.common import ReadContext
from tracecheck.spans import Span

__all__ = ["read_claude_session", "read_claude_stream", "read_record"]

_SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
_TOOL_USE_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
_SYNTHETIC_MODEL = "<synthetic>"
_SPAN_RECORDS = frozenset({"system", "assistant", "user", "result", "stream_event", "progress"})
# Records Claude Code writes that make no span (their contents are not what contracts check).
_QUIET_RECORDS = frozenset(
    {
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "custom-title",
        "last-prompt",
        "attachment",
        "atis-latch",
        "api-request",
        "api-request-shape",
        "api-request-blob",
        "tools-used",
        "rate_limit_event",
        "control_request",
        "control_response",
        "control_cancel_request",
        "keep_alive",
        "tag",
        "agent-name",
        "pr-link",
    }
)
_INIT_TEXTS = (
    ("cwd", "claude.cwd"),
    ("permissionMode", "claude.permission_mode"),
    ("model", "claude.init.model"),
    ("claude_code_version", "claude.version"),
)
_RESULT_COUNTS = (
    ("duration_ms", "claude.duration_ms"),
    ("duration_api_ms", "claude.duration_api_ms"),
    ("total_cost_usd", "claude.total_cost_usd"),
    ("num_turns", "claude.num_turns"),
)


def read_claude_stream(lines: IO[bytes], ctx: ReadContext) -> Iterator[Span]:
    """Spans of one Claude Code stream or transcript: one trace per session id.

    Records are read line by line; a session's spans are yielded when the input ends, since its
    root spans every event and tool calls end at results that come later.
    """
    yield from read_claude_session([(lines, ctx)])


def read_claude_session(parts: Iterable[tuple[IO[bytes], ReadContext]]) -> Iterator[Span]:
    """Spans of several files read as one input: a session transcript first, then its
    sub-agents' transcripts, so that a sub-agent hangs under the call that started it."""
    reader = _Reader()
    last = None
    for lines, ctx in parts:
        last = ctx
        reader.ctx = ctx
        reader.unknown = {}
        for number, line in enumerate(lines, 1):
            if not line.isspace():
                reader.add(read_record(line, number, ctx), f"line {number}")
        for kind, where in reader.unknown.items():
            ctx.note(
                where,
                f"record type {kind!r} is not one Claude Code is known to write; it is not read",
            )
    if last is None:
        return
    for session in reader.sessions.values():
        usage.settle(session, session.root.ctx or last)
        _mark_denials(session)
        yield from spans(session, last)


def read_record(line: bytes, number: int, ctx: ReadContext) -> dict[str, Any]:
    """The record a line holds (its line ending aside); raises the reader's error, naming the
    line, when it is not a JSON object."""
    try:  # without its newline, so that a truncated line's error points into the line
        record = orjson.loads(line.rstrip(b"\r\n"))
    except orjson.JSONDecodeError as exc:
        raise ctx.malformed_json(exc, number) from None
    if not isinstance(record, dict):
        raise ctx.error(f"line {number}", f"is {fields.describe(record)}, not a JSON object")
    return record


class _Reader:
    """The sessions read so far, each holding only what its spans will carry."""

    def __init__(self) -> None:
        self.ctx = ReadContext("<claude>")
        self.sessions: dict[str, Session] = {}
        self.current: str | None = None
        self.unknown: dict[str, str] = {}  # record type not known here → where first seen

    def add(self, record: dict[str, Any], where: str) -> None:
        try:
            kind = fields.text(record, "type")
            if kind is None or kind in _QUIET_RECORDS:
                self._quiet(record)
                return
            if kind == "cost-state":
                self._cost_state(record, where)
                return
            if kind not in _SPAN_RECORDS:
                self.unknown.setdefault(kind, where)
                return
            session = self._session(record, where)
            time_ns = fields.time_ns(record)
            widen(session.root, time_ns)
            _remember_context(session.root.attributes, record)
            if kind == "progress":
                self._progress(session, record, where, time_ns)
                return
            if not fields.flag(record, "isSidechain") and kind != "stream_event":
                session.has_main = True
            if kind == "system":
                _system(session, record)
            elif kind == "result":
                _result(session, record)
            elif kind == "stream_event":
                _stream_event(session, record)
            else:
                self._message(kind, session, record, where, time_ns)
        except Invalid as exc:
            raise self.ctx.error(f"{where}: {exc.field}", str(exc)) from None

    def _quiet(self, record: dict[str, Any]) -> None:
        """A record that makes no span still dates its session (a transcript's first one)."""
        key = record.get("session_id") or record.get("sessionId")
        session = self.sessions.get(key) if isinstance(key, str) else None
        if session is not None:
            widen(session.root, fields.time_ns(record))

    def _cost_state(self, record: dict[str, Any], where: str) -> None:
        session = self._session(record, where)
        raw = fields.obj(record, "modelUsage")
        if raw is not None:
            session.cost_state = ResultRecord(None, usage.model_counts(raw, "modelUsage"))

    def _session(self, record: dict[str, Any], where: str) -> Session:
        key = (
            fields.text(record, "session_id")
            or fields.text(record, "sessionId")
            or self.current
            or ""
        )
        self.current = key
        session = self.sessions.get(key)
        if session is None:
            attributes: dict[str, Any] = {"gen_ai.system": "anthropic"}
            if key:
                attributes["session.id"] = key
            root = Call(
                "AGENT", span_id("session", key, ""), None, where, "session", attributes, self.ctx
            )
            session = self.sessions[key] = Session(key, trace_id(key) if key else None, root)
        return session

    def _progress(
        self, session: Session, record: dict[str, Any], where: str, time_ns: int | None
    ) -> None:
        """An `agent_progress` record carries one message of a sub-agent: read it as one."""
        data = fields.obj(record, "data")
        if data is None or data.get("type") != "agent_progress":
            return
        inner = fields.obj(data, "message", "data.message")
        call_id = fields.text(record, "parentToolUseID")
        agent_id = fields.text(data, "agentId", "data.agentId")
        if agent_id and call_id:
            session.agents.setdefault(agent_id, call_id)
        if inner is None or inner.get("type") not in ("user", "assistant"):
            return
        message = {
            **inner,
            "isSidechain": True,
            "parent_tool_use_id": call_id,
            "agentId": agent_id,
        }
        inner_time = fields.time_ns(inner, "data.message.timestamp")
        self._message(str(inner["type"]), session, message, where, inner_time or time_ns)

    def _message(
        self, kind: str, session: Session, record: dict[str, Any], where: str, time_ns: int | None
    ) -> None:
        """An assistant message (an LLM call and its tool uses) or a user message (results)."""
        message = fields.obj(record, "message")
        if message is None:
            return
        content = fields.content(message)
        # Every record places its thread, even when it makes no span (sidechain tracking).
        parent_id = self._parent_of(session, record, content, where, time_ns)
        if kind == "user":
            for block_field, block in fields.blocks(content):
                if block.get("type") == "tool_result":
                    self._tool_result(session, block, block_field, where, time_ns)
            self._tool_use_result(session, record)
            return
        model = fields.text(message, "model", "message.model")
        if model == _SYNTHETIC_MODEL:
            return
        call = self._message_call(session, record, message, model, parent_id, where)
        widen(call, time_ns)
        _take_usage(call, message)
        for block_field, block in fields.blocks(content):
            block_type = block.get("type")
            if block_type in _TOOL_USE_BLOCKS:
                self._tool_use(session, call, block, block_field, where, time_ns)
            elif isinstance(block_type, str) and block_type.endswith("_tool_result"):
                self._tool_result(session, block, block_field, where, time_ns)

    def _parent_of(
        self,
        session: Session,
        record: dict[str, Any],
        content: list[Any] | str | None,
        where: str,
        time_ns: int | None,
    ) -> str:
        """The span a record's LLM call hangs under: root, Task/Agent call or sub-agent."""
        tool_id = fields.text(record, "parent_tool_use_id")
        if tool_id is not None:  # stream-json names the call; a missing one stays missing
            return span_id("tool", session.key, tool_id)
        if not fields.flag(record, "isSidechain"):
            return session.root.span_id
        agent_id = fields.text(record, "agentId")
        if agent_id and agent_id in session.agents:
            return span_id("tool", session.key, session.agents[agent_id])
        parent_uuid = fields.text(record, "parentUuid")
        owner = session.threads.get(parent_uuid) if parent_uuid else None
        if owner is None:
            owner = self._thread_owner(session, record, content, where)
        record_uuid = fields.text(record, "uuid")
        if record_uuid:
            session.threads[record_uuid] = owner
        if owner.kind == "AGENT":
            widen(owner, time_ns)
        return owner.span_id

    def _thread_owner(
        self,
        session: Session,
        record: dict[str, Any],
        content: list[Any] | str | None,
        where: str,
    ) -> Call:
        """Who a new sidechain belongs to: the Task/Agent call given its prompt, else the latest
        one still waiting for its result, else its transcript's sub-agent, else the session."""
        prompt = fields.prompt_text(content) if record.get("type") == "user" else None
        waiting = None
        for call in reversed(session.calls.values()):
            if call.kind != "TOOL" or call.name not in _SUBAGENT_TOOLS:
                continue
            arguments = call.attributes.get("gen_ai.tool.call.arguments")
            if (
                prompt is not None
                and isinstance(arguments, dict)
                and arguments.get("prompt") == prompt
            ):
                return call
            if waiting is None and call.status is None:
                waiting = call
        if waiting is not None:
            return waiting
        agent_id = fields.text(record, "agentId")
        if agent_id:
            return self._agent(session, agent_id, where)
        return session.root

    def _agent(self, session: Session, agent_id: str, where: str) -> Call:
        key = f"a:{agent_id}"
        call = session.calls.get(key)
        if call is None:
            attributes: dict[str, Any] = {
                "gen_ai.system": "anthropic",
                "claude.agent_id": agent_id,
            }
            if session.key:
                attributes["session.id"] = session.key
            call = Call(
                "AGENT",
                span_id("agent", session.key, agent_id),
                session.root.span_id,
                where,
                f"subagent {agent_id}",
                attributes,
                self.ctx,
            )
            session.calls[key] = call
        return call

    def _message_call(
        self,
        session: Session,
        record: dict[str, Any],
        message: dict[str, Any],
        model: str | None,
        parent_id: str,
        where: str,
    ) -> Call:
        """The LLM call of a message id, created by its first record and merged with the rest."""
        message_id = fields.text(message, "id", "message.id")
        key = message_id or fields.text(record, "uuid") or f"{self.ctx.source}:{where}"
        call = session.calls.get(f"m:{key}")
        if call is None:
            attributes: dict[str, Any] = {
                "gen_ai.operation.name": "chat",
                "gen_ai.system": "anthropic",
            }
            if model:
                attributes["gen_ai.response.model"] = model
            if message_id:
                attributes["gen_ai.response.id"] = message_id
            name = f"chat {model}" if model else "chat"
            call = Call(
                "LLM",
                span_id("message", session.key, key),
                parent_id,
                where,
                name,
                attributes,
                self.ctx,
            )
            session.calls[f"m:{key}"] = call
        return call

    def _tool_use(
        self,
        session: Session,
        message: Call,
        block: dict[str, Any],
        block_field: str,
        where: str,
        time_ns: int | None,
    ) -> None:
        call_id = fields.text(block, "id", f"{block_field}.id")
        name = fields.text(block, "name", f"{block_field}.name") or ""
        key = f"t:{call_id}" if call_id else f"t:{message.span_id}:{block_field}"
        if key in session.calls:  # a repeated copy of a block already read
            return
        attributes: dict[str, Any] = {"gen_ai.operation.name": "execute_tool"}
        if name:
            attributes["gen_ai.tool.name"] = name
        if call_id:
            attributes["gen_ai.tool.call.id"] = call_id
        arguments = block.get("input")
        if arguments is not None:
            attributes["gen_ai.tool.call.arguments"] = arguments
        if block.get("type") != "tool_use":
            attributes["claude.tool.block_type"] = block["type"]
        server = fields.text(block, "server_name", f"{block_field}.server_name")
        if server:
            attributes["claude.mcp_server"] = server
        call = Call(
            "TOOL",
            span_id("tool", session.key, call_id or key),
            message.span_id,
            where,
            name,
            attributes,
            self.ctx,
            start_ns=time_ns,
        )
        session.calls[key] = call

    def _tool_result(
        self,
        session: Session,
        block: dict[str, Any],
        block_field: str,
        where: str,
        time_ns: int | None,
    ) -> None:
        call_id = fields.text(block, "tool_use_id", f"{block_field}.tool_use_id")
        failed = fields.flag(block, "is_error", f"{block_field}.is_error")
        value = block.get("content")
        if isinstance(value, dict):  # a server tool's result object
            failed = failed or str(value.get("type", "")).endswith("_error")
            text = None
        else:
            text = fields.result_text(value, f"{block_field}.content")
        call = session.calls.get(f"t:{call_id}") if call_id else None
        if call is None:
            self.ctx.note(where, f"{block_field} answers no tool_use read before it")
            return
        if call.status is not None:  # a repeated copy of a result already read
            return
        call.end_ns = time_ns
        call.status = "error" if failed else "ok"
        call.status_message = "tool result is_error" if failed else None
        if text is not None:
            call.attributes["gen_ai.tool.call.result"] = text

    def _tool_use_result(self, session: Session, record: dict[str, Any]) -> None:
        """A Task/Agent call's result: which sub-agent ran it, and its last message's usage."""
        raw = record.get("toolUseResult", record.get("tool_use_result"))
        if not isinstance(raw, dict):
            return
        agent_id = raw.get("agentId")
        message = fields.obj(record, "message") or {}
        call_ids = [
            b.get("tool_use_id")
            for _, b in fields.blocks(fields.content(message))
            if b.get("type") == "tool_result"
        ]
        if not isinstance(agent_id, str) or len(call_ids) != 1 or not isinstance(call_ids[0], str):
            return
        session.agents.setdefault(agent_id, call_ids[0])
        last_usage = raw.get("usage")
        if isinstance(last_usage, dict):  # settled once every file is read
            session.task_usage[call_ids[0]] = usage.counts(last_usage, "toolUseResult.usage")


def _take_usage(call: Call, message: dict[str, Any]) -> None:
    stop = fields.text(message, "stop_reason", "message.stop_reason")
    if stop:
        call.attributes["gen_ai.response.finish_reasons"] = [stop]
    raw = fields.obj(message, "usage", "message.usage")
    if raw is not None:
        usage.take(call, usage.counts(raw, "message.usage"), final=stop is not None)


def _system(session: Session, record: dict[str, Any]) -> None:
    if record.get("subtype") != "init":
        return
    attributes = session.root.attributes
    for key, name in _INIT_TEXTS:
        value = fields.text(record, key)
        if value is not None:
            attributes[name] = value
    tools = fields.items(record, "tools")
    if tools is not None:
        attributes["gen_ai.tool.definitions"] = [
            fields.item_text(tools, i, "tools") for i in range(len(tools))
        ]
    servers = fields.items(record, "mcp_servers")
    if servers is not None:
        attributes["claude.mcp_servers"] = [
            _mcp_server(s, f"mcp_servers[{i}]") for i, s in enumerate(servers)
        ]


def _mcp_server(raw: Any, where: str) -> dict[str, str | None]:
    if not isinstance(raw, dict):
        raise Invalid(where, f"is {fields.describe(raw)}, not an object")
    return {
        "name": fields.text(raw, "name", f"{where}.name"),
        "status": fields.text(raw, "status", f"{where}.status"),
    }


def _result(session: Session, record: dict[str, Any]) -> None:
    """A turn's end: `completed` on a successful result, else `failed` (the last one wins)."""
    subtype = fields.text(record, "subtype")
    failed = fields.flag(record, "is_error")
    root = session.root
    for key, name in _RESULT_COUNTS:
        value = fields.number(record, key)
        if value is not None:
            root.attributes[name] = value
    duration = fields.number(record, "duration_ms")
    if duration is not None:
        session.durations_ms.append(duration)
        root.attributes["run.duration_ms"] = sum(session.durations_ms)
    if subtype is not None:
        root.attributes["claude.result.subtype"] = subtype
    completed = subtype == "success" and not failed
    root.attributes["run.status"] = "completed" if completed else "failed"
    root.attributes["run.ended"] = True
    root.status = "ok" if completed else "error"
    root.status_message = (
        None if completed else ("result is_error" if failed else f"result {subtype}")
    )
    raw_usage = fields.obj(record, "usage")
    raw_models = fields.obj(record, "modelUsage")
    session.results.append(
        ResultRecord(
            usage.counts(raw_usage, "usage") if raw_usage is not None else None,
            usage.model_counts(raw_models, "modelUsage") if raw_models is not None else None,
        )
    )
    for index, denial in enumerate(fields.items(record, "permission_denials") or []):
        if not isinstance(denial, dict):
            raise Invalid(f"permission_denials[{index}]", "is not an object")
        call_id = fields.text(denial, "tool_use_id", f"permission_denials[{index}].tool_use_id")
        if call_id:
            session.denied.add(call_id)


def _stream_event(session: Session, record: dict[str, Any]) -> None:
    """Partial-message events: only a message's final usage is taken from them."""
    event = fields.obj(record, "event")
    if event is None:
        return
    thread = fields.text(record, "parent_tool_use_id") or ""
    kind = event.get("type")
    if kind == "message_start":
        message = fields.obj(event, "message", "event.message") or {}
        message_id = fields.text(message, "id", "event.message.id")
        if message_id:
            session.streaming[thread] = message_id
    elif kind == "message_delta":
        message_id = fields.text(record, "api_message_id") or session.streaming.get(thread)
        raw = fields.obj(event, "usage", "event.usage")
        if message_id and raw is not None:
            found = usage.counts(raw, "event.usage")
            session.final_usage[message_id] = {**session.final_usage.get(message_id, {}), **found}


def _mark_denials(session: Session) -> None:
    for call_id in session.denied:
        call = session.calls.get(f"t:{call_id}")
        if call is not None:
            call.attributes["claude.permission_denied"] = True


def _remember_context(attributes: dict[str, Any], record: dict[str, Any]) -> None:
    """Transcript records repeat the working directory and Claude Code version; keep the first."""
    for key, name in (("cwd", "claude.cwd"), ("version", "claude.version")):
        value = fields.text(record, key)
        if value:
            attributes.setdefault(name, value)
