"""Span builders shared by the rule tests (no tests here)."""

from __future__ import annotations

import json
from typing import Any

from tracecheck.rules import Exact, Predicate, Subject
from tracecheck.spans import RunRecord, Span

TRACE = "a" * 32
MS = 1_000_000


def span(
    span_id: str | None,
    name: str = "step",
    start: float | None = None,
    end: float | None = None,
    *,
    status: str | None = None,
    extra: dict[str, Any] | None = None,
    **attributes: Any,
) -> Span:
    """A span with start/end given in milliseconds; `extra` holds attributes with dotted keys."""
    attributes.update(extra or {})
    return Span(
        TRACE,
        span_id,
        None,
        name,
        None if start is None else int(start * MS),
        None if end is None else int(end * MS),
        status,  # type: ignore[arg-type]
        None,
        attributes=dict(attributes),
    )


def tool(
    span_id: str | None,
    tool_name: str | None,
    start: float | None = None,
    end: float | None = None,
    *,
    args: Any = None,
    raw_args: Any = None,
    status: str | None = None,
    extra: dict[str, Any] | None = None,
    **attributes: Any,
) -> Span:
    """An OTel GenAI `execute_tool` span; `args` is JSON-encoded, `raw_args` stored as given."""
    attrs: dict[str, Any] = {"gen_ai.operation.name": "execute_tool"}
    if tool_name is not None:
        attrs["gen_ai.tool.name"] = tool_name
    if args is not None:
        attrs["gen_ai.tool.call.arguments"] = json.dumps(args)
    if raw_args is not None:
        attrs["gen_ai.tool.call.arguments"] = raw_args
    attrs.update(attributes)
    attrs.update(extra or {})
    name = f"execute_tool {tool_name}" if tool_name else "execute_tool"
    return span(span_id, name, start, end, status=status, **attrs)


def llm(
    span_id: str | None,
    model: str | None = "m",
    input_tokens: Any = None,
    output_tokens: Any = None,
    **attributes: Any,
) -> Span:
    attrs: dict[str, Any] = {"gen_ai.operation.name": "chat"}
    if model is not None:
        attrs["gen_ai.request.model"] = model
    if input_tokens is not None:
        attrs["gen_ai.usage.input_tokens"] = input_tokens
    if output_tokens is not None:
        attrs["gen_ai.usage.output_tokens"] = output_tokens
    attrs.update(attributes)
    return span(span_id, f"chat {model}", **attrs)


def subject(*spans: Span, run: RunRecord | None = None, run_unknown: str | None = None) -> Subject:
    return Subject(spans, run, run_unknown)


def tool_p(name: str) -> Predicate:
    return Predicate(kind="TOOL", tool=Exact(name))


TOOL_P = Predicate(kind="TOOL")
LLM_P = Predicate(kind="LLM")


def pairs(violations: list[Any]) -> list[tuple[str | None, str]]:
    return [(v.span_id, v.detail) for v in violations]
