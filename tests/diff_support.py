"""Agent runs built in code for the diff tests: a root agent span, a model call before each
step, the step's tool calls (one, or a parallel group that starts together), a last model
call; GenAI semantic-convention attributes, as the OpenTelemetry GenAI instrumentations write
them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tracecheck.spans import Span

TRACE = "e" * 32
MS = 1_000_000


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    failed: bool = False
    inside: tuple[str, ...] = ()  # tool calls it runs inside, outermost first (nested spans)


Step = Sequence[Call]


def agent_run(
    steps: Sequence[Step],
    *,
    model: str = "gpt-4.1-mini",
    tokens: tuple[int | None, int | None] = (100, 10),
    step_ms: int = 10,
    trace_id: str = TRACE,
    prefix: str = "s",
) -> list[Span]:
    """The spans of a run that takes `steps` in order; each call's span id is
    `<prefix><step>-<member>` (and `…-w<depth>` for the tools it runs inside)."""
    spans: list[Span] = []
    end = (len(steps) + 1) * step_ms * MS
    root = f"{prefix}root"
    spans.append(
        Span(
            trace_id,
            root,
            None,
            "invoke_agent refund",
            0,
            end,
            "ok",
            attributes={"gen_ai.operation.name": "invoke_agent"},
        )
    )
    for number, step in enumerate([*steps, ()]):
        start = number * step_ms * MS
        spans.append(_chat(trace_id, f"{prefix}m{number}", root, start, model, tokens))
        for member, call in enumerate(step):
            spans.extend(_calls(trace_id, f"{prefix}{number}-{member}", root, start + 2 * MS, call))
    return spans


def _chat(
    trace_id: str,
    span_id: str,
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
    return Span(
        trace_id, span_id, parent, f"chat {model}", start, start + MS, "ok", attributes=attributes
    )


def _calls(trace_id: str, span_id: str, parent: str, start: int, call: Call) -> list[Span]:
    spans = []
    for depth, outer in enumerate(call.inside):
        outer_id = f"{span_id}-w{depth}"
        spans.append(_tool(trace_id, outer_id, parent, start, start + 5 * MS, outer, {}, False))
        parent = outer_id
    inner = len(call.inside)
    spans.append(
        _tool(
            trace_id,
            span_id,
            parent,
            start + inner,
            start + 4 * MS,
            call.tool,
            call.arguments,
            call.failed,
        )
    )
    return spans


def _tool(
    trace_id: str,
    span_id: str,
    parent: str,
    start: int,
    end: int,
    tool: str,
    arguments: dict[str, Any],
    failed: bool,
) -> Span:
    return Span(
        trace_id,
        span_id,
        parent,
        f"execute_tool {tool}",
        start,
        end,
        "error" if failed else "ok",
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.arguments": json.dumps(arguments),
        },
    )


def calls(*tools: str) -> list[Step]:
    """One step per tool, each called with no arguments."""
    return [[Call(tool)] for tool in tools]
