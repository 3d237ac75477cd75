"""A contract draft from an MCP server's `tools/list` answer.

The listed tools are `tools.allowed`. The tools' annotations (MCP's ToolAnnotations, hints a
server gives about itself) sort them for the retry rule, with MCP's defaults where a hint is
not written (`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false):

- `readOnlyHint: true` is a read;
- a tool that is idempotent and not destructive is a read too: a repeat with equal arguments
  has no additional effect, which is what the retry rule asks of a read;
- any other tool (destructive, or not idempotent) is a write that needs an idempotency key:
  the parameter named like one (`idempotency_key`, `request_id`, ...) when the input schema
  has it, else left for the reviewer.

Each tool's required parameters become argument checks (`type` where the parameter's schema
gives one JSON type, `exists` otherwise). No value from the answer is copied but names.
"""

from __future__ import annotations

from typing import Any

from tracecheck.init.draft import Draft
from tracecheck.init.mcp_tools import McpTool, ToolList, ToolListError, read_tool_list
from tracecheck.init.names import idempotency_key
from tracecheck.init.render import flow_list
from tracecheck.init.yaml_writer import Item, Map, Seq
from tracecheck.rules.pointers import pointer_of

__all__ = ["ToolListError", "draft_from_mcp"]

_SCHEMA_TYPES = {"integer": "number"}  # JSON Schema's integer is a JSON number
_JSON_TYPES = ("string", "number", "boolean", "object", "array", "null")


def draft_from_mcp(answer: Any, *, name: str = "draft") -> Draft:
    """A contract draft from a `tools/list` answer (parsed JSON: the result, the whole
    JSON-RPC response or the list of tools). Raises `ToolListError` naming every problem."""
    if not name.strip():
        raise ValueError("a contract's name must not be blank")
    listed = read_tool_list(answer)
    header = [
        "A contract draft written by `tracecheck init --from-mcp` from an MCP tools/list answer",
        f"listing {_count(listed)}. Annotations are hints a server gives about itself (the MCP",
        "specification: never trust them from an untrusted server). Review every rule, above all",
        'the lines marked "review:".',
    ]
    notes: list[str] = []
    if listed.next_cursor:
        notes.append(
            "review: the answer has a nextCursor: the server lists more tools on further pages, "
            "which this draft does not name (tools.allowed fails their calls)."
        )
    tools = listed.tools
    items = [
        Item(name, key="name"),
        Item(
            "Drafted by tracecheck init from an MCP tools/list answer; review before use",
            key="description",
        ),
        Item(Map(tuple(_tools_section(tools))), key="tools"),
        Item(Map(tuple(_retries(tools))), key="retries", notes=_RETRIES_NOTES),
    ]
    return Draft(Map(tuple(items)), tuple(header + notes), tuple(notes))


def _count(listed: ToolList) -> str:
    count = len(listed.tools)
    return "1 tool" if count == 1 else f"{count} tools"


def _tools_section(tools: tuple[McpTool, ...]) -> list[Item]:
    allowed_notes = (
        "The tools the server lists: a call of any other tool fails.",
        "review: add the agent's other tools; a harness may name these differently (Claude Code",
        "calls them mcp__<server>__<tool>).",
    )
    items = [Item(flow_list([tool.name for tool in tools]), key="allowed", notes=allowed_notes)]
    checks = [
        Item(_argument(tool.name, name, dict(tool.properties).get(name)))
        for tool in tools
        for name in tool.required
    ]
    if checks:
        notes = (
            "The required parameters of each tool's inputSchema: their JSON type where the",
            "schema gives one, `exists` otherwise.",
            "review: an argument check fails a run that never calls its tool (there is no",
            "evidence to check). Keep the checks of the tools every run calls, list those tools",
            "in tools.required, and delete the others. `schema: offered` checks a call's whole",
            "arguments against the schema the model was offered, where the trace records it.",
        )
        items.append(Item(Seq(tuple(checks)), key="arguments", notes=notes))
    return items


def _argument(tool: str, name: str, schema: Any) -> Map:
    kind = _json_type(schema)
    check = Item(kind, key="type") if kind else Item(True, key="exists")
    return Map((Item(tool, key="tool"), Item(_pointer(name), key="pointer"), check), flow=True)


def _json_type(schema: Any) -> str | None:
    """The one JSON type a parameter's schema allows, if it names exactly one."""
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if isinstance(kind, list) and len(kind) == 1:
        kind = kind[0]
    if not isinstance(kind, str):
        return None
    kind = _SCHEMA_TYPES.get(kind, kind)
    return kind if kind in _JSON_TYPES else None


def _pointer(name: str) -> str:
    return pointer_of((name,))


_RETRIES_NOTES = (
    "From the tools' annotations, MCP's defaults where a hint is not written (readOnlyHint",
    "false, destructiveHint true, idempotentHint false). A read may repeat; a write repeated",
    "with equal arguments, or failed, needs an idempotency key.",
)


def _retries(tools: tuple[McpTool, ...]) -> list[Item]:
    reads: list[Item] = []
    writes: list[Item] = []
    for tool in tools:
        if tool.hint("readOnlyHint") is True:
            reads.append(Item(tool.name, notes=("readOnlyHint: true",)))
            continue
        destructive = tool.hint("destructiveHint") is not False
        idempotent = tool.hint("idempotentHint") is True
        if idempotent and not destructive:
            why = (
                "idempotentHint: true, destructiveHint: false: a repeat with equal arguments "
                "has no additional effect, so the retry rule lets it repeat as it lets a read"
            )
            reads.append(Item(tool.name, notes=(why,)))
            continue
        writes.append(_write(tool, destructive, idempotent))
    items = []
    if reads:
        items.append(Item(Seq(tuple(reads)), key="reads"))
    if writes:
        items.append(Item(Seq(tuple(writes)), key="writes"))
    return items


def _write(tool: McpTool, destructive: bool, idempotent: bool) -> Item:
    given = ", ".join(f"{hint}: {str(value).lower()}" for hint, value in tool.hints)
    hints = f"its annotations say {given}" if given else "it has no annotations: MCP's defaults"
    what = "destructive" if destructive else "not idempotent"
    if destructive and idempotent:
        what += ", though idempotent: if a repeat is truly harmless, it may be a read"
    key = idempotency_key(name for name, _ in tool.properties)
    entries = [Item(tool.name, key="tool")]
    if key is None:
        why = (
            f"review: a write ({what}); {hints}. Its inputSchema has no parameter named like an "
            "idempotency key: add idempotencyKey: /<parameter> if it takes one, or a repeat with "
            "equal arguments, or a failed call, fails this rule."
        )
    else:
        entries.append(Item(_pointer(key), key="idempotencyKey"))
        optional = ""
        if key not in tool.required:
            optional = " (optional in its schema: a call without it has no key)"
        why = (
            f"review: a write ({what}); {hints}. Its parameter {key} is taken for its "
            f"idempotency key{optional}."
        )
    return Item(Map(tuple(entries), flow=True), notes=(why,))
