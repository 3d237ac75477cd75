"""An MCP `tools/list` answer read strictly: the tools, their annotations and the required
parameters of their input schemas.

Accepted: the JSON-RPC result (`{"tools": [...]}`), the whole response (`{"jsonrpc": "2.0",
"id": 1, "result": {"tools": [...]}}`), or the list of tools alone. Every problem is named at
its place (`result.tools[2].annotations.readOnlyHint`); a value from the answer is never
repeated in a message, only its JSON type.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tracecheck.naming import json_type, quote, with_article

__all__ = ["HINTS", "McpTool", "ToolList", "ToolListError", "read_tool_list"]

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


class ToolListError(ValueError):
    """A `tools/list` answer that cannot be read; `problems` are (place, what is wrong)."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = tuple(problems)
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(f"{where}: {what}" if where else what for where, what in self.problems)


@dataclass(frozen=True, slots=True)
class McpTool:
    """One listed tool: its name, the hints it gives (only those written), its input schema's
    properties (name → schema) and required property names."""

    name: str
    hints: tuple[tuple[str, bool], ...] = ()
    properties: tuple[tuple[str, Any], ...] = ()
    required: tuple[str, ...] = ()
    has_schema: bool = True

    def hint(self, name: str) -> bool | None:
        return dict(self.hints).get(name)


@dataclass(frozen=True, slots=True)
class ToolList:
    tools: tuple[McpTool, ...]
    next_cursor: bool = False  # the answer is one page, and more tools exist


def read_tool_list(answer: Any) -> ToolList:
    """The tools of a `tools/list` answer, or `ToolListError` with every problem found."""
    problems: list[tuple[str, str]] = []
    items, where, cursor = _tools_member(answer, problems)
    tools: list[McpTool] = []
    seen: dict[str, str] = {}
    for index, item in enumerate(items or ()):
        at = f"{where}[{index}]"
        tool = _tool(item, at, problems)
        if tool is None:
            continue
        if tool.name in seen:
            problems.append(
                (f"{at}.name", f"duplicate tool {quote(tool.name)}, also at {seen[tool.name]}")
            )
            continue
        seen[tool.name] = f"{at}.name"
        tools.append(tool)
    if items is not None and not items and not problems:
        problems.append((where, "lists no tools, so there is nothing to draft"))
    if problems:
        raise ToolListError(problems)
    return ToolList(tuple(tools), cursor)


def _tools_member(
    answer: Any, problems: list[tuple[str, str]]
) -> tuple[list[Any] | None, str, bool]:
    """The list of tools, where it is, and whether the answer says more pages follow."""
    if isinstance(answer, list):
        return answer, "", False
    if not isinstance(answer, Mapping):
        problems.append(("", f"a tools/list answer is an object, not {_a(answer)}"))
        return None, "", False
    where = ""
    if "tools" not in answer and ("result" in answer or "error" in answer or "jsonrpc" in answer):
        if "error" in answer:
            problems.append(("error", "the answer is a JSON-RPC error, not a tools/list result"))
            return None, "", False
        result = answer.get("result")
        if not isinstance(result, Mapping):
            problems.append(("result", f"must be an object holding tools, not {_a(result)}"))
            return None, "", False
        answer, where = result, "result"
    tools_at = f"{where}.tools" if where else "tools"
    tools = answer.get("tools")
    if not isinstance(tools, list):
        problems.append((tools_at, f"must be a list of tools, not {_a(tools)}"))
        return None, tools_at, False
    return tools, tools_at, answer.get("nextCursor") is not None


def _tool(item: Any, at: str, problems: list[tuple[str, str]]) -> McpTool | None:
    if not isinstance(item, Mapping):
        problems.append((at, f"a tool is an object, not {_a(item)}"))
        return None
    name = item.get("name")
    if not isinstance(name, str) or not name:
        what = "must not be empty" if name == "" else f"must be a string, not {_a(name)}"
        problems.append((f"{at}.name", what))
        return None
    hints = _hints(item.get("annotations"), f"{at}.annotations", problems)
    schema = item.get("inputSchema")
    if schema is None:
        return McpTool(name, hints, has_schema=False)
    if not isinstance(schema, Mapping):
        problems.append((f"{at}.inputSchema", f"must be an object, not {_a(schema)}"))
        return None
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        problems.append(
            (f"{at}.inputSchema.properties", f"must be an object, not {_a(properties)}")
        )
        return None
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        problems.append((f"{at}.inputSchema.required", "must be a list of property names"))
        return None
    return McpTool(name, hints, tuple(properties.items()), tuple(dict.fromkeys(required)))


def _hints(value: Any, at: str, problems: list[tuple[str, str]]) -> tuple[tuple[str, bool], ...]:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        problems.append((at, f"must be an object, not {_a(value)}"))
        return ()
    hints = []
    for hint in HINTS:
        if hint not in value or value[hint] is None:
            continue
        if not isinstance(value[hint], bool):
            problems.append((f"{at}.{hint}", f"must be a boolean, not {_a(value[hint])}"))
            continue
        hints.append((hint, value[hint]))
    return tuple(hints)


def _a(value: Any) -> str:
    """A value named by its JSON type (`a string`, `null`), never shown."""
    kind = json_type(value)
    return with_article(kind) if kind else f"a {type(value).__name__}"
