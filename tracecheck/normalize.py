"""Normalisation of recorded attributes into the checker's view (contracts.md §1.1–1.7).

This is the only place that knows attribute names of the OpenTelemetry GenAI, OpenInference
and other conventions. Functions take plain values and return plain values so that the span
model and the readers stay free of convention knowledge.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

__all__ = [
    "CONTRACT_KINDS",
    "RUN_STATUSES",
    "kind",
    "model",
    "offered_tools",
    "parse_json_text",
    "run_status",
    "tokens",
    "tool_arguments",
    "tool_name",
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
_TOKEN_ATTRIBUTES = frozenset(
    (*_INPUT_TOKENS, *_OUTPUT_TOKENS, *(key for key, _ in _CACHE_INCLUDED + _CACHE_SEPARATE))
)
_ARGUMENT_ATTRIBUTES = ("gen_ai.tool.call.arguments", "tool.arguments", "input.value", "tool.input")
RUN_STATUSES = ("running", "completed", "failed", "aborted")
_OPENINFERENCE_TOOL_SCHEMA = re.compile(r"^llm\.tools\.(\d+)\.tool\.json_schema$")

NOT_CAPTURED = "arguments were not captured"
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
    if _first_string(attributes, _TOOL_NAME_KIND_ATTRIBUTES):
        return "TOOL"
    if name[:1] in ("f", "F", "t", "T") and _TOOLISH_NAME.match(name):
        return "TOOL"
    operation = attributes.get("gen_ai.operation.name")
    if operation is not None:
        return (
            _OPERATION_KINDS.get(operation, "UNKNOWN") if isinstance(operation, str) else "UNKNOWN"
        )
    if model(attributes) or _LLMISH_NAME.search(name):
        return "LLM"
    return "UNKNOWN"


def tool_name(attributes: Mapping[str, Any], name: str, span_kind: str) -> str | None:
    """The tool a span called: an attribute, else the name of a TOOL span (§1.2)."""
    found = _first_string(attributes, _TOOL_NAME_ATTRIBUTES)
    if found or span_kind != "TOOL" or not name:
        return found
    if name.startswith("execute_tool"):
        rest = name[len("execute_tool") :]
        if not rest:
            return None
        if rest[0] == " ":
            return rest.strip() or None
    return name


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
    input_tokens = _first_number(attributes, _INPUT_TOKENS)
    output_tokens = _first_number(attributes, _OUTPUT_TOKENS)
    cache: dict[str, Count | None] = {"read": None, "write": None}
    outside: Count = 0
    for key, which in _CACHE_SEPARATE:
        if key not in present:
            continue
        count = _number(attributes.get(key))
        if count is not None and cache[which] is None:
            cache[which] = count
            outside += count
    for key, which in _CACHE_INCLUDED:
        if key not in present:
            continue
        count = _number(attributes.get(key))
        if count is not None and cache[which] is None:
            cache[which] = count
            # A count larger than the whole input cannot be inside it: the producer left it out.
            if input_tokens is not None and count > input_tokens:
                outside += count
    return input_tokens, output_tokens, cache["read"], cache["write"], outside


def tool_arguments(attributes: Mapping[str, Any]) -> tuple[bool, Any, str | None]:
    """(known, value, reason): a tool call's arguments, JSON-decoded when they parse (§1.5)."""
    captured = attributes.get("tool.args_captured")
    if captured is False or (isinstance(captured, str) and captured.lower() == "false"):
        return False, None, NOT_CAPTURED
    for key in _ARGUMENT_ATTRIBUTES:
        value = attributes.get(key)
        if value is not None:
            if isinstance(value, str):
                return True, parse_json_text(value, default=value), None
            return True, value, None
    return False, None, NO_EVIDENCE


def offered_tools(attributes: Mapping[str, Any]) -> tuple[tuple[str, ...], str | None] | None:
    """(names, problem) of the tools offered to the model, or None when not recorded (§1.6)."""
    names: list[str] = []
    problem: str | None = None
    recorded = False
    definitions = attributes.get("gen_ai.tool.definitions")
    if definitions is not None:
        recorded = True
        if isinstance(definitions, str):
            definitions = parse_json_text(definitions, default=definitions)
        if not isinstance(definitions, list):
            problem = "gen_ai.tool.definitions is not a list"
        else:
            problem = _collect_names(definitions, names, "gen_ai.tool.definitions")
    schemas = sorted(
        (int(match.group(1)), key)
        for key in attributes
        if key.startswith("llm.tools.") and (match := _OPENINFERENCE_TOOL_SCHEMA.match(key))
    )
    if schemas:
        recorded = True
        # Each is a JSON object; unlike a tool definition, a bare string is no tool name.
        entries = [_parse_if_text(attributes[key]) for _, key in schemas]
        objects = [entry if isinstance(entry, dict) else None for entry in entries]
        found = _collect_names(objects, names, "llm.tools")
        problem = problem or found
    if not recorded:
        return None
    return tuple(dict.fromkeys(names)), problem


def run_status(attributes: Mapping[str, Any], span_status: str | None) -> str | None:
    """The run status a span records: `run.status`, else failed on error, else unknown (§1.7)."""
    status = attributes.get("run.status")
    if isinstance(status, str) and status in RUN_STATUSES:
        return status
    if span_status == "error":
        return "failed"
    return None


def parse_json_text(text: str, *, default: Any) -> Any:
    """The JSON value a string holds, or `default` when it holds none."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return default


def _parse_if_text(value: Any) -> Any:
    return parse_json_text(value, default=value) if isinstance(value, str) else value


def _collect_names(entries: Iterable[Any], names: list[str], label: str) -> str | None:
    problem = None
    for entry in entries:
        name = _definition_name(entry)
        if name is None:
            problem = f"{label} has an entry without a tool name"
        else:
            names.append(name)
    return problem


def _definition_name(entry: Any) -> str | None:
    if isinstance(entry, str):
        return entry or None
    if not isinstance(entry, dict):
        return None
    name = entry.get("name")
    if isinstance(name, str) and name:
        return name
    function = entry.get("function")
    if isinstance(function, dict):
        name = function.get("name")
        if isinstance(name, str) and name:
            return name
    return None


def _first_string(attributes: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _first_number(attributes: Mapping[str, Any], keys: tuple[str, ...]) -> int | float | None:
    for key in keys:
        count = _number(attributes.get(key))
        if count is not None:
            return count
    return None


def _number(value: Any) -> int | float | None:
    """A finite count from a number or a numeric string; booleans are not numbers."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return _integral(value) if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            pass
        try:
            number = float(text)
        except ValueError:
            return None
        return _integral(number) if math.isfinite(number) else None
    return None


def _integral(value: float) -> int | float:
    return int(value) if value.is_integer() else value
