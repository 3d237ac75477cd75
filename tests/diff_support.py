"""Agent runs built in code for the diff tests: a root agent span, a model call before each
step, the step's tool calls (one, or a parallel group that starts together), a last model
call; GenAI semantic-convention attributes, as the OpenTelemetry GenAI instrumentations write
them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tracecheck.spans import Span

TRACE = "e" * 32
MS = 1_000_000
EPOCH = 1_733_130_000_000 * MS  # a run starts here (an OTLP time of 0 means none)


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    failed: bool = False
    inside: tuple[str, ...] = ()  # tool calls it runs inside, outermost first (nested spans)


Step = Sequence[Call]


def span_id(name: str) -> str:
    """The span id (16 hex digits, as OTLP writes them) of the span `agent_run` names so."""
    return hashlib.sha256(name.encode()).hexdigest()[:16]


def agent_run(
    steps: Sequence[Step],
    *,
    model: str = "gpt-4.1-mini",
    tokens: tuple[int | None, int | None] = (100, 10),
    step_ms: int = 10,
    trace_id: str = TRACE,
    prefix: str = "s",
) -> list[Span]:
    """The spans of a run that takes `steps` in order. Each span's id is `span_id` of its name:
    `<prefix>root`, `<prefix>m<step>` for the model calls, `<prefix><step>-<member>` for the
    tool calls and `<prefix><step>-<member>-w<depth>` for the tools a call runs inside."""
    end = EPOCH + (len(steps) + 1) * step_ms * MS
    root = f"{prefix}root"
    spans = [_span(trace_id, root, None, "invoke_agent refund", EPOCH, end, False, {})]
    spans[0] = spans[0].replace(attributes={"gen_ai.operation.name": "invoke_agent"})
    for number, step in enumerate([*steps, ()]):
        start = EPOCH + number * step_ms * MS
        spans.append(_chat(trace_id, f"{prefix}m{number}", root, start, model, tokens))
        for member, call in enumerate(step):
            name = f"{prefix}{number}-{member}"
            spans.extend(_calls(trace_id, name, root, start + 2 * MS, call))
    return spans


def _chat(
    trace_id: str,
    name: str,
    parent: str,
    start: int,
    model: str,
    tokens: tuple[int | None, int | None],
) -> Span:
    attributes: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.request.model": model}
    if tokens[0] is not None:
        attributes["gen_ai.usage.input_tokens"] = tokens[0]
    if tokens[1] is not None:
        attributes["gen_ai.usage.output_tokens"] = tokens[1]
    return _span(trace_id, name, parent, f"chat {model}", start, start + MS, False, attributes)


def _calls(trace_id: str, name: str, parent: str, start: int, call: Call) -> list[Span]:
    spans = []
    for depth, outer in enumerate(call.inside):
        outer_name = f"{name}-w{depth}"
        spans.append(_tool(trace_id, outer_name, parent, start, start + 5 * MS, Call(outer)))
        parent = outer_name
    spans.append(_tool(trace_id, name, parent, start + len(call.inside), start + 4 * MS, call))
    return spans


def _tool(trace_id: str, name: str, parent: str, start: int, end: int, call: Call) -> Span:
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.tool,
        "gen_ai.tool.call.arguments": json.dumps(call.arguments),
    }
    title = f"execute_tool {call.tool}"
    return _span(trace_id, name, parent, title, start, end, call.failed, attributes)


def _span(
    trace_id: str,
    name: str,
    parent: str | None,
    title: str,
    start: int,
    end: int,
    failed: bool,
    attributes: dict[str, Any],
) -> Span:
    return Span(
        trace_id,
        span_id(name),
        span_id(parent) if parent is not None else None,
        title,
        start,
        end,
        "error" if failed else "ok",
        attributes=attributes,
    )


def calls(*tools: str) -> list[Step]:
    """One step per tool, each called with no arguments."""
    return [[Call(tool)] for tool in tools]
