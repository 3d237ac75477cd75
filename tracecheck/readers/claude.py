"""Claude Code `stream-json` output and session transcripts (inputs.md, "Claude Code streams").

Both are JSON Lines. The record shapes read here are the ones Claude Code writes (the Agent SDK
message types for stream-json; transcripts have no published schema, so their shape is the one
recorded sessions show):

- `system`/`init` (stream-json): `session_id`, `tools` (names), `model`, `cwd`,
  `permissionMode`, `mcp_servers` (`{name, status}`), `claude_code_version`.
- `assistant`: `message` is an Anthropic API message (`id`, `model`, `content` blocks, `usage`,
  `stop_reason`). Claude Code writes one record per content block, all with the same
  `message.id`, and repeats `usage` on each; `output_tokens` grows as the reply streams, so a
  message's usage is that of its record with the most output tokens (the last record, unless
  a stale copy follows it).
- `user`: a prompt, or `tool_result` blocks (`tool_use_id`, `content`, `is_error`).
- `result` (stream-json): `subtype` (`success`, `error_max_turns`, `error_during_execution`,
  …), `is_error`, `duration_ms`, `duration_api_ms`, `num_turns`, `total_cost_usd`.
- Sub-agents: stream-json gives their records a `parent_tool_use_id` (the Task/Agent call).
  Transcripts mark them `isSidechain: true`, chained by `parentUuid`: older versions keep them
  inline, each sidechain opening with the Task prompt as a user message; newer ones write them to
  `<session>/subagents/agent-<agentId>.jsonl`, where, with no Task call to hang under, they go
  under an AGENT span `subagent <agentId>` below the session root (defined by the main file).
- Transcripts carry `sessionId`, `uuid`, `parentUuid` and an ISO-8601 `timestamp`; stream-json
  has no times, and none are invented.

Other records (`summary`, `file-history-snapshot`, `queue-operation`, `progress`,
`stream_event`, …) and Claude Code's own `<synthetic>` messages (API errors, placeholders; no
model ran) make no spans. Ids are derived, so reading twice gives the same spans: the trace id
is the session UUID's hex (else the first 32 hex digits of the SHA-256 of the session id), span
ids the first 16 hex digits of a SHA-256 over the session id and the message, tool-use or
agent id.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import orjson

from tracecheck.readers.common import ReadContext, checked, parse_iso8601
from tracecheck.spans import Span, SpanStatus

__all__ = ["read_claude_stream"]

_SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
_SYNTHETIC_MODEL = "<synthetic>"
_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
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
_JSON_TYPES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
}


class _Invalid(ValueError):
    """A field that does not hold what Claude Code writes there; `field` is its path."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field


@dataclass
class _Call:
    """What one span is built from: the session, a sub-agent, an LLM message or a tool call."""

    kind: str
    span_id: str
    parent_id: str | None
    where: str
    name: str
    attributes: dict[str, Any]
    start_ns: int | None = None
    end_ns: int | None = None
    status: SpanStatus | None = None
    status_message: str | None = None
    output_tokens: float = -1  # output count of the usage kept so far (LLM calls)


@dataclass
class _Session:
    key: str  # the session id, "" when the records carry none
    trace_id: str | None
    root: _Call
    has_main: bool = False  # a record outside any sidechain was read
    calls: dict[str, _Call] = field(default_factory=dict)  # "m:", "t:", "a:" keys, read order
    threads: dict[str, _Call] = field(default_factory=dict)  # sidechain record uuid → owner


def read_claude_stream(lines: IO[bytes], ctx: ReadContext) -> Iterator[Span]:
    """Spans of a Claude Code stream or transcript: one trace per session id.

    Records are read line by line; a session's spans are yielded when the input ends, since its
    root spans every event and tool calls end at results that come later.
    """
    reader = _Reader(ctx)
    for number, line in enumerate(lines, 1):
        if not line.isspace():
            reader.add(_record(line, number, ctx), f"line {number}")
    for session in reader.sessions.values():
        yield from _spans(session, ctx)


def _record(line: bytes, number: int, ctx: ReadContext) -> dict[str, Any]:
    try:  # without its newline, so that a truncated line's error points into the line
        record = orjson.loads(line.rstrip(b"\r\n"))
    except orjson.JSONDecodeError as exc:
        raise ctx.malformed_json(exc, number) from None
    if not isinstance(record, dict):
        raise ctx.error(f"line {number}", f"is {_describe(record)}, not a JSON object")
    return record


class _Reader:
    """The sessions read so far, each holding only what its spans will carry."""

    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.sessions: dict[str, _Session] = {}
        self.current: str | None = None

    def add(self, record: dict[str, Any], where: str) -> None:
        try:
            kind = _text(record, "type")
            if kind not in ("system", "assistant", "user", "result"):
                return
            session = self._session(record, where)
            time_ns = _time(record)
            _widen(session.root, time_ns)
            _remember_context(session.root.attributes, record)
            if not _flag(record, "isSidechain"):
                session.has_main = True
            if kind == "system":
                _system(session, record)
            elif kind == "result":
                _result(session, record)
            else:
                self._message(kind, session, record, where, time_ns)
        except _Invalid as exc:
            raise self.ctx.error(f"{where}: {exc.field}", str(exc)) from None

    def _session(self, record: dict[str, Any], where: str) -> _Session:
        key = _text(record, "session_id") or _text(record, "sessionId") or self.current or ""
        self.current = key
        session = self.sessions.get(key)
        if session is None:
            attributes: dict[str, Any] = {"gen_ai.system": "anthropic"}
            if key:
                attributes["session.id"] = key
            root = _Call("AGENT", _span_id("session", key, ""), None, where, "session", attributes)
            session = self.sessions[key] = _Session(key, _trace_id(key) if key else None, root)
        return session

    def _message(
        self, kind: str, session: _Session, record: dict[str, Any], where: str, time_ns: int | None
    ) -> None:
        """An assistant message (an LLM call and its tool uses) or a user message (results)."""
        message = _object(record, "message")
        if message is None:
            return
        content = _content(message)
        # Every record places its thread, even when it makes no span (sidechain tracking).
        parent_id = self._parent_of(session, record, content, where, time_ns)
        if kind == "user":
            for block_field, block in _blocks(content):
                if block.get("type") == "tool_result":
                    self._tool_result(session, block, block_field, where, time_ns)
            return
        model = _text(message, "model", "message.model")
        if model == _SYNTHETIC_MODEL:
            return
        call = _message_call(session, record, message, model, parent_id, where)
        _widen(call, time_ns)
        _take_usage(call, message)
        for block_field, block in _blocks(content):
            if block.get("type") == "tool_use":
                _tool_use(session, call, block, block_field, where, time_ns)

    def _parent_of(
        self,
        session: _Session,
        record: dict[str, Any],
        content: list[Any] | str | None,
        where: str,
        time_ns: int | None,
    ) -> str:
        """The span a record's LLM call hangs under: root, Task/Agent call or sub-agent."""
        tool_id = _text(record, "parent_tool_use_id")
        if tool_id is not None:  # stream-json names the call; a missing one stays missing
            return _span_id("tool", session.key, tool_id)
        if not _flag(record, "isSidechain"):
            return session.root.span_id
        parent_uuid = _text(record, "parentUuid")
        owner = session.threads.get(parent_uuid) if parent_uuid else None
        if owner is None:
            owner = _thread_owner(session, record, content, where)
        record_uuid = _text(record, "uuid")
        if record_uuid:
            session.threads[record_uuid] = owner
        if owner.kind == "AGENT":
            _widen(owner, time_ns)
        return owner.span_id

    def _tool_result(
        self,
        session: _Session,
        block: dict[str, Any],
        block_field: str,
        where: str,
        time_ns: int | None,
    ) -> None:
        call_id = _text(block, "tool_use_id", f"{block_field}.tool_use_id")
        failed = _flag(block, "is_error", f"{block_field}.is_error")
        text = _result_text(block.get("content"), f"{block_field}.content")
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


def _system(session: _Session, record: dict[str, Any]) -> None:
    if record.get("subtype") != "init":
        return
    attributes = session.root.attributes
    for key, name in _INIT_TEXTS:
        value = _text(record, key)
        if value is not None:
            attributes[name] = value
    tools = _list(record, "tools")
    if tools is not None:
        attributes["gen_ai.tool.definitions"] = [
            _item_text(tools, i, "tools") for i in range(len(tools))
        ]
    servers = _list(record, "mcp_servers")
    if servers is not None:
        attributes["claude.mcp_servers"] = [
            _mcp_server(s, f"mcp_servers[{i}]") for i, s in enumerate(servers)
        ]


def _mcp_server(raw: Any, where: str) -> dict[str, str | None]:
    if not isinstance(raw, dict):
        raise _Invalid(where, f"is {_describe(raw)}, not an object")
    return {
        "name": _text(raw, "name", f"{where}.name"),
        "status": _text(raw, "status", f"{where}.status"),
    }


def _result(session: _Session, record: dict[str, Any]) -> None:
    """The run's end: `completed` on a successful result, else `failed` (the last one wins)."""
    subtype = _text(record, "subtype")
    failed = _flag(record, "is_error")
    root = session.root
    for key, name in _RESULT_COUNTS:
        value = _number(record, key)
        if value is not None:
            root.attributes[name] = value
    if subtype is not None:
        root.attributes["claude.result.subtype"] = subtype
    completed = subtype == "success" and not failed
    root.attributes["run.status"] = "completed" if completed else "failed"
    root.status = "ok" if completed else "error"
    root.status_message = (
        None if completed else ("result is_error" if failed else f"result {subtype}")
    )


def _remember_context(attributes: dict[str, Any], record: dict[str, Any]) -> None:
    """Transcript records repeat the working directory and Claude Code version; keep the first."""
    for key, name in (("cwd", "claude.cwd"), ("version", "claude.version")):
        value = _text(record, key)
        if value:
            attributes.setdefault(name, value)


def _thread_owner(
    session: _Session, record: dict[str, Any], content: list[Any] | str | None, where: str
) -> _Call:
    """Who a new sidechain belongs to: the Task/Agent call given its prompt, else the latest
    one still waiting for its result, else its transcript's sub-agent, else the session."""
    prompt = _prompt_text(content) if record.get("type") == "user" else None
    waiting = None
    for call in reversed(session.calls.values()):
        if call.kind != "TOOL" or call.name not in _SUBAGENT_TOOLS:
            continue
        arguments = call.attributes.get("gen_ai.tool.call.arguments")
        if prompt is not None and isinstance(arguments, dict) and arguments.get("prompt") == prompt:
            return call
        if waiting is None and call.status is None:
            waiting = call
    if waiting is not None:
        return waiting
    agent_id = _text(record, "agentId")
    if agent_id:
        return _agent(session, agent_id, where)
    return session.root


def _agent(session: _Session, agent_id: str, where: str) -> _Call:
    key = f"a:{agent_id}"
    call = session.calls.get(key)
    if call is None:
        attributes: dict[str, Any] = {"gen_ai.system": "anthropic", "claude.agent_id": agent_id}
        if session.key:
            attributes["session.id"] = session.key
        span_id = _span_id("agent", session.key, agent_id)
        call = _Call(
            "AGENT", span_id, session.root.span_id, where, f"subagent {agent_id}", attributes
        )
        session.calls[key] = call
    return call


def _message_call(
    session: _Session,
    record: dict[str, Any],
    message: dict[str, Any],
    model: str | None,
    parent_id: str,
    where: str,
) -> _Call:
    """The LLM call of a message id, created by its first record and merged with the rest."""
    message_id = _text(message, "id", "message.id")
    key = message_id or _text(record, "uuid") or where
    call = session.calls.get(f"m:{key}")
    if call is None:
        attributes: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.system": "anthropic"}
        if model:
            attributes["gen_ai.response.model"] = model
        if message_id:
            attributes["gen_ai.response.id"] = message_id
        name = f"chat {model}" if model else "chat"
        span_id = _span_id("message", session.key, key)
        call = session.calls[f"m:{key}"] = _Call("LLM", span_id, parent_id, where, name, attributes)
    return call


def _take_usage(call: _Call, message: dict[str, Any]) -> None:
    """Keep the usage snapshot with the most output tokens; later records win ties."""
    stop = _text(message, "stop_reason", "message.stop_reason")
    if stop:
        call.attributes["gen_ai.response.finish_reasons"] = [stop]
    usage = _object(message, "usage", "message.usage")
    if usage is None:
        return
    counts = {key: _number(usage, key, f"message.usage.{key}") for key in _USAGE_KEYS}
    output = counts["output_tokens"]
    rank = -1 if output is None else output
    if rank < call.output_tokens:
        return
    call.output_tokens = rank
    for key, value in counts.items():
        if value is None:
            call.attributes.pop(f"gen_ai.usage.{key}", None)
        else:
            call.attributes[f"gen_ai.usage.{key}"] = value


def _tool_use(
    session: _Session,
    message: _Call,
    block: dict[str, Any],
    block_field: str,
    where: str,
    time_ns: int | None,
) -> None:
    call_id = _text(block, "id", f"{block_field}.id")
    name = _text(block, "name", f"{block_field}.name") or ""
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
    span_id = _span_id("tool", session.key, call_id or key)
    call = _Call("TOOL", span_id, message.span_id, where, name, attributes, start_ns=time_ns)
    session.calls[key] = call


def _spans(session: _Session, ctx: ReadContext) -> Iterator[Span]:
    """The session's spans, root first. A sub-agent transcript read on its own has no events
    outside its sub-agent, so it yields no root: the main transcript defines that one."""
    root = session.root
    root.attributes.setdefault("run.status", "running")
    calls = list(session.calls.values())
    if session.has_main or any(c.parent_id == root.span_id and c.kind != "AGENT" for c in calls):
        yield _span(session, root, ctx)
    for call in calls:
        yield _span(session, call, ctx)


def _span(session: _Session, call: _Call, ctx: ReadContext) -> Span:
    return checked(
        Span(
            trace_id=session.trace_id,
            span_id=call.span_id,
            parent_span_id=call.parent_id,
            name=call.name,
            start_ns=call.start_ns,
            end_ns=call.end_ns,
            status=call.status,
            status_message=call.status_message,
            attributes=call.attributes,
            declared_kind=call.kind,
        ),
        ctx,
        call.where,
    )


def _widen(call: _Call, time_ns: int | None) -> None:
    if time_ns is None:
        return
    if call.start_ns is None or time_ns < call.start_ns:
        call.start_ns = time_ns
    if call.end_ns is None or time_ns > call.end_ns:
        call.end_ns = time_ns


def _trace_id(session_id: str) -> str:
    try:
        value = uuid.UUID(session_id)
    except ValueError:
        value = None
    if value is not None and value.int:
        return value.hex
    return hashlib.sha256(session_id.encode()).hexdigest()[:32]


def _span_id(kind: str, session_id: str, key: str) -> str:
    text = f"{kind}\x1f{session_id}\x1f{key}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _time(record: dict[str, Any]) -> int | None:
    text = _text(record, "timestamp")
    if text is None:
        return None
    try:
        return parse_iso8601(text)
    except (ValueError, OverflowError) as exc:
        raise _Invalid("timestamp", str(exc)) from None


def _content(message: dict[str, Any]) -> list[Any] | str | None:
    value = message.get("content")
    if value is None or isinstance(value, (list, str)):
        return value
    raise _Invalid("message.content", f"is {_describe(value)}, not a list or a string")


def _blocks(content: list[Any] | str | None) -> Iterator[tuple[str, dict[str, Any]]]:
    """(field path, block) of each content block; a string content has none."""
    if not isinstance(content, list):
        return
    for index, block in enumerate(content):
        block_field = f"message.content[{index}]"
        if not isinstance(block, dict):
            raise _Invalid(block_field, f"is {_describe(block)}, not an object")
        yield block_field, block


def _prompt_text(content: list[Any] | str | None) -> str | None:
    if isinstance(content, str):
        return content
    texts = [b.get("text") for _, b in _blocks(content) if b.get("type") == "text"]
    return "\n".join(t for t in texts if isinstance(t, str)) if texts else None


def _result_text(content: Any, where: str) -> str | None:
    """A tool result's text: the string, or the text blocks of a list joined by newlines."""
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise _Invalid(where, f"is {_describe(content)}, not a string or a list")
    texts = []
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            raise _Invalid(f"{where}[{index}]", f"is {_describe(block)}, not an object")
        text = _text(block, "text", f"{where}[{index}].text")
        if block.get("type") == "text" and text is not None:
            texts.append(text)
    return "\n".join(texts)


def _text(raw: dict[str, Any], key: str, where: str | None = None) -> str | None:
    value = raw.get(key)
    if value is None or isinstance(value, str):
        return value
    raise _Invalid(where or key, f"is {_describe(value)}, not a string")


def _item_text(items: list[Any], index: int, where: str) -> str:
    value = items[index]
    if isinstance(value, str):
        return value
    raise _Invalid(f"{where}[{index}]", f"is {_describe(value)}, not a string")


def _flag(raw: dict[str, Any], key: str, where: str | None = None) -> bool:
    value = raw.get(key)
    if value is None or isinstance(value, bool):
        return bool(value)
    raise _Invalid(where or key, f"is {_describe(value)}, not a boolean")


def _number(raw: dict[str, Any], key: str, where: str | None = None) -> int | float | None:
    value = raw.get(key)
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return value
    raise _Invalid(where or key, f"is {_describe(value)}, not a number")


def _object(raw: dict[str, Any], key: str, where: str | None = None) -> dict[str, Any] | None:
    value = raw.get(key)
    if value is None or isinstance(value, dict):
        return value
    raise _Invalid(where or key, f"is {_describe(value)}, not an object")


def _list(raw: dict[str, Any], key: str, where: str | None = None) -> list[Any] | None:
    value = raw.get(key)
    if value is None or isinstance(value, list):
        return value
    raise _Invalid(where or key, f"is {_describe(value)}, not a list")


def _describe(value: Any) -> str:
    return _JSON_TYPES.get(type(value), "null" if value is None else type(value).__name__)
