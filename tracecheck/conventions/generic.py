"""The common reading of a span (contracts.md §1.1–1.7): OpenTelemetry GenAI, OpenInference
and flat spans' own fields.

Every convention falls back on it for the facts it does not describe. Functions take plain
values and return plain values, so that the span model and the readers know no attribute names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tracecheck.conventions.values import number, parse_json_text

__all__ = [
    "CONTRACT_KINDS",
    "RECORDED_TOTALS",
    "RUN_STATUSES",
    "Definitions",
    "Offered",
    "call_id",
    "collect_definitions",
    "is_template",
    "json_or_text",
    "kind",
    "model",
    "offered",
    "offered_tools",
    "recorded_tool_name",
    "recorded_total",
    "run_status",
    "tokens",
    "tool_arguments",
    "tool_name",
    "tool_result",
    "tool_result_value",
]

CONTRACT_KINDS = frozenset(
    {
        "AGENT",
        "CHAIN",
        "LLM",
        "TOOL",
        "EVALUATOR",
        "RETRIEVER",
        "EMBEDDING",
        "RERANKER",
        "GUARDRAIL",
        "PROMPT",
        "UNKNOWN",
    }
)
_KIND_ALIASES = {"JUDGE": "EVALUATOR", "RETRIEVAL": "RETRIEVER"}
_KIND_ATTRIBUTES = ("openinference.span.kind", "inference.observation_kind")
_TOOL_NAME_KIND_ATTRIBUTES = ("gen_ai.tool.name", "tool.name", "inference.tool.name")
_TOOL_NAME_ATTRIBUTES = (*_TOOL_NAME_KIND_ATTRIBUTES, "toolName")
_OPERATION_KINDS = {
    "chat": "LLM",
    "generate_content": "LLM",
    "text_completion": "LLM",
    "execute_tool": "TOOL",
    "invoke_agent": "AGENT",
    "create_agent": "AGENT",
    "plan": "AGENT",
    "handle_conversation_turn": "AGENT",
    "invoke_workflow": "CHAIN",
    "gen_ai.invocation.internal": "CHAIN",
    "retrieval": "RETRIEVER",
    "embeddings": "EMBEDDING",
}
_TEMPLATE_FIELD = re.compile(r"\{[A-Za-z_][\w.]*(?:![rsa])?(?::[^{}]*)?\}")
_TOOLISH_NAME = re.compile(r"^(?:function|tool)[.:/]", re.IGNORECASE)
_LLMISH_NAME = re.compile(r"chat[._]completion|(?:^|[\W_])llm(?:[\W_]|$)", re.IGNORECASE)
_MODEL_ATTRIBUTES = (
    "gen_ai.response.model",
    "gen_ai.request.model",
    "llm.model_name",
    "llm.response.model_name",
    "llm.request.model_name",
    "inference.llm.model_name",
    "llm.model",
    "model",
)
_INPUT_TOKENS = (
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.prompt_tokens",
    "llm.token_count.prompt",
    "inference.llm.input_tokens",
    "llm.input_tokens",
    "input_tokens",
)
_OUTPUT_TOKENS = (
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "llm.token_count.completion",
    "inference.llm.output_tokens",
    "llm.output_tokens",
    "output_tokens",
)
# (attribute, "read" | "write"): counts the convention says are already part of input.
_CACHE_INCLUDED = (
    ("gen_ai.usage.cache_read.input_tokens", "read"),
    ("gen_ai.usage.cache_write.input_tokens", "write"),
    ("gen_ai.usage.cache_creation.input_tokens", "write"),
    ("llm.token_count.prompt_details.cache_read", "read"),
    ("llm.token_count.prompt_details.cache_write", "write"),
    ("gen_ai.usage.input_tokens_details.cached_tokens", "read"),
    ("gen_ai.usage.prompt_tokens_details.cached_tokens", "read"),
)
# Anthropic-style raw counts, reported beside input rather than inside it.
_CACHE_SEPARATE = (
    ("gen_ai.usage.cache_read_input_tokens", "read"),
    ("gen_ai.usage.cache_creation_input_tokens", "write"),
    ("cache_read_input_tokens", "read"),
    ("cache_creation_input_tokens", "write"),
    ("llm.token_count.prompt_cache_hit", "read"),
    ("llm.token_count.prompt_cache_write", "write"),
)
RECORDED_TOTALS = ("gen_ai.usage.total_tokens", "llm.usage.total_tokens", "llm.token_count.total")
_CACHE_ATTRIBUTES = frozenset(key for key, _ in _CACHE_INCLUDED + _CACHE_SEPARATE)
_TOKEN_ATTRIBUTES = frozenset((*_INPUT_TOKENS, *_OUTPUT_TOKENS, *_CACHE_ATTRIBUTES))
_ARGUMENT_ATTRIBUTES = ("gen_ai.tool.call.arguments", "tool.arguments", "input.value", "tool.input")
RUN_STATUSES = ("running", "completed", "failed", "aborted")
_CALL_IDS = {
    "TOOL": ("gen_ai.tool.call.id", "tool_call.id", "ai.toolCall.id"),
    "LLM": ("gen_ai.response.id", "ai.response.id"),
}
_OPENINFERENCE_TOOL_SCHEMA = re.compile(r"^llm\.tools\.(\d+)\.tool\.json_schema$")

# A tool call's result: the GenAI conventions' attribute, then OpenInference's output.
_RESULT_ATTRIBUTES = ("gen_ai.tool.call.result", "output.value")
_BLOCK_KEYS = frozenset({"type", "text"})

NOT_CAPTURED = "arguments were not captured"
NO_RESULT = "the span carries no result evidence"
NO_EVIDENCE = "the span carries no argument evidence"


def kind(declared: str | None, attributes: Mapping[str, Any], name: str) -> str:
    """The contract kind: declared, then OpenInference's attribute, then inference (§1.1)."""
    if declared:
        upper = declared.upper()
        upper = _KIND_ALIASES.get(upper, upper)
        if upper in CONTRACT_KINDS:
            return upper
    for key in _KIND_ATTRIBUTES:
        value = attributes.get(key)
        if isinstance(value, str) and value.upper() in CONTRACT_KINDS:
            return value.upper()
    # A tool name recorded on a span makes it a tool call whatever else is written over it
    # (LiteLLM writes `chat` over the span that is current when it is called): read as a model
    # call, a forbidden tool would pass unseen.
    if _first_string(attributes, _TOOL_NAME_KIND_ATTRIBUTES):
        return "TOOL"
    # Then the operation the GenAI conventions record a span's kind by decides, before any
    # inference from the name or a model attribute.
    operation = attributes.get("gen_ai.operation.name")
    known = _OPERATION_KINDS.get(operation) if isinstance(operation, str) else None
    if known is not None:
        return known
    if name[:1] in ("f", "F", "t", "T") and _TOOLISH_NAME.match(name):
        return "TOOL"
    # The GenAI conventions name a tool span `execute_tool {gen_ai.tool.name}`: a span so named
    # is one even when its attributes were not recorded (ADK 1.4's span of a tool that raised).
    if name.startswith("execute_tool ") and operation is None:
        return "TOOL"
    if operation is not None:
        return "UNKNOWN"
    if model(attributes) or _LLMISH_NAME.search(name):
        return "LLM"
    return "UNKNOWN"


def tool_name(attributes: Mapping[str, Any], name: str, span_kind: str) -> str | None:
    """The tool a span called: an attribute, else the name of a TOOL span (§1.2).

    A name holding `{…}` placeholders is a message template (one name for every call), never
    a tool name.
    """
    found = _first_string(attributes, _TOOL_NAME_ATTRIBUTES)
    if found or span_kind != "TOOL" or not name:
        return found
    if name.startswith("execute_tool"):
        rest = name[len("execute_tool") :]
        if not rest:
            return None
        if rest[0] == " ":
            name = rest.strip()
            if not name:
                return None
    return None if is_template(name) else name


def recorded_tool_name(attributes: Mapping[str, Any]) -> str | None:
    """The tool name an attribute records (not the span name), if any."""
    return _first_string(attributes, _TOOL_NAME_ATTRIBUTES)


def is_template(name: str) -> bool:
    """True for a name with `{field}` placeholders: a logging template, not a rendered name."""
    return "{" in name and _TEMPLATE_FIELD.search(name) is not None


def model(attributes: Mapping[str, Any]) -> str | None:
    """The model that ran: response model first (§1.3)."""
    return _first_string(attributes, _MODEL_ATTRIBUTES)


Count = int | float


def tokens(
    attributes: Mapping[str, Any],
) -> tuple[Count | None, Count | None, Count | None, Count | None, Count]:
    """(input, output, cache read, cache write, cache counts outside input) (§1.4)."""
    present = _TOKEN_ATTRIBUTES.intersection(attributes.keys())
    if not present:  # most spans record no tokens: one pass over their keys settles it
        return None, None, None, None, 0
    input_tokens = _first_number(attributes, _INPUT_TOKENS, present)
    output_tokens = _first_number(attributes, _OUTPUT_TOKENS, present)
    if present.isdisjoint(_CACHE_ATTRIBUTES):  # most model calls record no cache count
        return input_tokens, output_tokens, None, None, 0
    cache: dict[str, Count | None] = {"read": None, "write": None}
    outside: Count = 0
    for key, which in _CACHE_SEPARATE:
        if key not in present:
            continue
        count = number(attributes.get(key))
        if count is not None and cache[which] is None:
            cache[which] = count
            outside += count
    for key, which in _CACHE_INCLUDED:
        if key not in present:
            continue
        count = number(attributes.get(key))
        if count is not None and cache[which] is None:
            cache[which] = count
            # A count larger than the whole input cannot be inside it: the producer left it out.
            if input_tokens is not None and count > input_tokens:
                outside += count
    return input_tokens, output_tokens, cache["read"], cache["write"], outside


def recorded_total(attributes: Mapping[str, Any]) -> Count | None:
    """The total a producer recorded itself, which the normalised total must agree with."""
    return _first_number(attributes, RECORDED_TOTALS)


def tool_arguments(attributes: Mapping[str, Any]) -> tuple[bool, Any, str | None]:
    """(known, value, reason): a tool call's arguments, JSON-decoded when they parse (§1.5)."""
    captured = attributes.get("tool.args_captured")
    if captured is False or (isinstance(captured, str) and captured.lower() == "false"):
        return False, None, NOT_CAPTURED
    for key in _ARGUMENT_ATTRIBUTES:
        value = attributes.get(key)
        if value is not None:
            return True, json_or_text(value), None
    return False, None, NO_EVIDENCE


def tool_result(attributes: Mapping[str, Any]) -> tuple[bool, Any, str | None]:
    """(known, value, reason): a tool call's result as `tool_result_value` reads it."""
    for key in _RESULT_ATTRIBUTES:
        value = attributes.get(key)
        if value is not None:
            return True, tool_result_value(value), None
    return False, None, NO_RESULT


def tool_result_value(value: Any) -> Any:
    """A recorded result as JSON: the recording's JSON text decoded, a list of one text content
    block (MCP's, Anthropic's or Bedrock's `[{"type": "text", "text": …}]`) read as its text,
    and a text that is itself JSON (tools commonly return JSON as text) decoded too."""
    value = json_or_text(value)
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], Mapping):
        block = value[0]
        text = block.get("text")
        if (
            isinstance(text, str)
            and block.get("type", "text") == "text"
            and block.keys() <= _BLOCK_KEYS
        ):
            value = text
    if isinstance(value, str):
        value = json_or_text(value)
    return value


def call_id(attributes: Mapping[str, Any], span_kind: str) -> str | None:
    """The id that names one call whoever records it: a tool call's id (given by the model),
    or a model call's response id (given by the provider); None for other kinds."""
    keys = _CALL_IDS.get(span_kind)
    return _first_string(attributes, keys) if keys else None


def json_or_text(value: Any) -> Any:
    """A string's JSON value when it holds one, else the value as recorded.

    Bytes that are UTF-8 JSON text count as that text: LangSmith before 0.5 records its runs'
    inputs and outputs as the bytes of their JSON (an OTLP `bytesValue`).
    """
    if isinstance(value, str):
        return parse_json_text(value, default=value)
    if isinstance(value, bytes) and value[:1] in (b"{", b"["):
        return parse_json_text(value, default=value)
    return value


Definitions = tuple[tuple[str, Any], ...]  # (tool name, parameters schema or None) each
Offered = tuple[tuple[str, ...], str | None, Definitions]  # (names, problem, definitions)


def offered_tools(attributes: Mapping[str, Any]) -> Offered | None:
    """(names, problem, definitions) of the tools offered to the model in the common places,
    or None when not recorded (§1.6)."""
    found: list[tuple[str, Any]] = []
    problems: list[str | None] = []
    recorded = False
    definitions = attributes.get("gen_ai.tool.definitions")
    if definitions is not None:
        recorded = True
        problems.append(collect_definitions(definitions, found, "gen_ai.tool.definitions"))
    schemas = sorted(
        (int(match.group(1)), key)
        for key in attributes
        if key.startswith("llm.tools.") and (match := _OPENINFERENCE_TOOL_SCHEMA.match(key))
    )
    if schemas:
        recorded = True
        # Each is a JSON object; unlike a tool definition, a bare string is no tool name.
        entries = [json_or_text(attributes[key]) for _, key in schemas]
        objects = [entry if isinstance(entry, dict) else None for entry in entries]
        problems.append(collect_definitions(objects, found, "llm.tools"))
    # OpenInference's other form: one attribute listing the tools (a list, or its JSON text).
    listed = json_or_text(attributes.get("llm.tools"))
    if isinstance(listed, list):
        recorded = True
        problems.append(collect_definitions(listed, found, "llm.tools"))
    return offered(found, next(filter(None, problems), None)) if recorded else None


def offered(definitions: list[tuple[str, Any]], problem: str | None) -> Offered:
    """(names, problem, definitions) of definitions read: each name once, in order."""
    return tuple(dict.fromkeys(name for name, _ in definitions)), problem, tuple(definitions)


# Where a tool definition holds its parameters' JSON Schema: OpenAI's and the GenAI
# conventions' `parameters` (also under `function`), Anthropic's `input_schema`, MCP's
# `inputSchema`, Gemini's `parameters_json_schema`.
_SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema", "parameters_json_schema")


def collect_definitions(definitions: Any, found: list[tuple[str, Any]], label: str) -> str | None:
    """Append (tool name, parameters schema or None) of each entry of a list of definitions (or
    its JSON text) that names its tool; the problem, if any.

    An entry names its tool as a string, an object's `name`, or its `function.name`; an entry
    that is the JSON text of such an object is read as that object. Its schema is None where it
    records none (a bare name, `parameters: null`).
    """
    definitions = json_or_text(definitions)
    if not isinstance(definitions, list):
        return f"{label} is not a list"
    problem = None
    for entry in definitions:
        if isinstance(entry, str) and entry[:1] == "{":
            entry = parse_json_text(entry, default=entry)
        name = _definition_name(entry)
        if name is None:
            problem = f"{label} has an entry without a tool name"
        else:
            found.append((name, _parameter_schema(entry)))
    return problem


def _parameter_schema(entry: Any) -> Any:
    if not isinstance(entry, dict):
        return None
    for holder in (entry, entry.get("function")):
        if isinstance(holder, dict):
            for key in _SCHEMA_KEYS:
                schema = json_or_text(holder.get(key))
                if isinstance(schema, (dict, bool)):
                    return schema
    return None


def run_status(attributes: Mapping[str, Any], span_status: str | None) -> str | None:
    """The run status a span records: `run.status`, else failed on error, else unknown (§1.7)."""
    status = attributes.get("run.status")
    if isinstance(status, str) and status in RUN_STATUSES:
        return status
    if span_status == "error":
        return "failed"
    return None


def _definition_name(entry: Any) -> str | None:
    if isinstance(entry, str):
        return entry or None
    if not isinstance(entry, dict):
        return None
    # A definition's name, or OpenInference's flattened `tool.name` (BeeAI's instrumentation
    # before 0.1.9 lists its tools as `{"tool.name": …, "tool.description": …}`).
    function = entry.get("function")
    return _first_string(entry, ("name", "tool.name")) or (
        _first_string(function, ("name",)) if isinstance(function, dict) else None
    )


def _first_string(attributes: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _first_number(
    attributes: Mapping[str, Any], keys: tuple[str, ...], present: frozenset[str] | None = None
) -> Count | None:
    """The first count recorded under `keys`; `present`, when given, holds every one of those
    keys the attributes have (the others are not looked up)."""
    for key in keys:
        if present is not None and key not in present:
            continue
        value = attributes.get(key)
        if value is None:  # (what `number` makes of it, without the call)
            continue
        count = number(value)
        if count is not None:
            return count
    return None
