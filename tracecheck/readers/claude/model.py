"""What a Claude Code session's spans are built from, and how their ids are derived."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tracecheck.readers.common import ReadContext, checked
from tracecheck.spans import Span, SpanStatus

__all__ = ["Call", "ResultRecord", "Session", "span_id", "spans", "trace_id", "widen"]

USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


@dataclass
class Call:
    """What one span is built from: the session, a sub-agent, an LLM message or a tool call."""

    kind: str
    span_id: str
    parent_id: str | None
    where: str
    name: str
    attributes: dict[str, Any]
    ctx: ReadContext | None = None  # the file it was first read from (for its notes)
    start_ns: int | None = None
    end_ns: int | None = None
    status: SpanStatus | None = None
    status_message: str | None = None
    # LLM calls: the usage kept so far, and whether it is the message's final usage (its
    # stop_reason was set, a message_delta or a Task result gave it).
    usage: dict[str, int | float] | None = None
    final: bool = False


@dataclass(frozen=True)
class ResultRecord:
    """The totals one `result` (or transcript `cost-state`) record gives."""

    usage: dict[str, int | float] | None
    model_usage: dict[str, dict[str, int | float]] | None


@dataclass
class Session:
    key: str  # the session id, "" when the records carry none
    trace_id: str | None
    root: Call
    has_main: bool = False  # a record outside any sidechain was read
    calls: dict[str, Call] = field(default_factory=dict)  # "m:", "t:", "a:" keys, read order
    threads: dict[str, Call] = field(default_factory=dict)  # sidechain record uuid → owner
    agents: dict[str, str] = field(default_factory=dict)  # sub-agent id → Task/Agent call id
    results: list[ResultRecord] = field(default_factory=list)
    cost_state: ResultRecord | None = None  # a transcript's running totals (CLI 2.1.3xx)
    final_usage: dict[str, dict[str, int | float]] = field(default_factory=dict)
    streaming: dict[str, str] = field(default_factory=dict)  # thread → message id streaming
    durations_ms: list[int | float] = field(default_factory=list)
    denied: set[str] = field(default_factory=set)  # tool_use ids in permission_denials
    # Task/Agent call id → the final usage of its sub-agent's last message (its result's).
    task_usage: dict[str, dict[str, int | float]] = field(default_factory=dict)


def widen(call: Call, time_ns: int | None) -> None:
    if time_ns is None:
        return
    if call.start_ns is None or time_ns < call.start_ns:
        call.start_ns = time_ns
    if call.end_ns is None or time_ns > call.end_ns:
        call.end_ns = time_ns


def trace_id(session_id: str) -> str:
    import hashlib  # imported when a Claude Code record is read, not for other formats

    try:
        value = uuid.UUID(session_id)
    except ValueError:
        value = None
    if value is not None and value.int:
        return value.hex
    return hashlib.sha256(session_id.encode()).hexdigest()[:32]


def span_id(kind: str, session_id: str, key: str) -> str:
    import hashlib

    text = f"{kind}\x1f{session_id}\x1f{key}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def spans(session: Session, ctx: ReadContext) -> Iterator[Span]:
    """The session's spans, root first. A sub-agent transcript read on its own has no events
    outside its sub-agent, so it yields no root: the main transcript defines that one."""
    root = session.root
    root.attributes.setdefault("run.status", "running")
    calls = list(session.calls.values())
    if session.has_main or any(c.parent_id == root.span_id and c.kind != "AGENT" for c in calls):
        yield _span(session, root, root.ctx or ctx)
    for call in calls:
        yield _span(session, call, call.ctx or ctx)


def _span(session: Session, call: Call, ctx: ReadContext) -> Span:
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
