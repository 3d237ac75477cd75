"""Spans that look like a tool or model call which no convention read as one.

A producer the conventions do not know (or a version that renamed its attributes) reads as
spans of kind UNKNOWN: a rule about tools or models would then pass without having seen the
call. Such spans are named in a note, and the rules about tools and models are then not judged
(unless capture is lenient). A tool call whose tool is unknown is doubted the same way.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from tracecheck.conventions.generic import is_template, json_or_text, recorded_tool_name
from tracecheck.conventions.model import Field
from tracecheck.conventions.values import first_string

__all__ = [
    "asked_for_no_tool",
    "has_recorded_output",
    "requested_tools",
    "tool_name_doubt",
    "unmapped_evidence",
]


# Compiled on first use: only spans read as UNKNOWN are judged, and the three patterns cost
# over a millisecond of every `check`'s start-up.
@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Attribute keys that record a tool, a model or token counts, and span names of tool and
    model calls, in any producer's spelling; and the words by which a template names a call
    (`Function: {name}`, `Chat with {model}`; an application's own templates, `processing
    {item}`, are no evidence)."""
    evidence_key = re.compile(
        r"(?:^|[._])(?:tool|function)(?:[._]?(?:name|call|calls|input|args|arguments|id))?(?:$|[._])"
        r"|(?:^|[._])tool[A-Z]|toolCall|(?:^|[._])model(?:[._]?(?:name|id))?(?:$|[._])|modelId"
        r"|(?:^|[._])(?:input|output|prompt|completion|total)[._]?tokens?(?:$|[._])"
        r"|(?:^|[._])token[._]?count|(?:^|[._])usage(?:$|[._])",
        re.IGNORECASE,
    )
    evidence_name = re.compile(
        r"^(?:function|tool)\b|\.tool$|execute_tool|\btool[ _.:-]?call|call_llm|\bchat\b|completions?\b"
        r"|\bllm\b|\bgenerate(?:_content|Text|Object)?\b|\bembed|\b(?:gpt|claude|gemini|o[134])-",
        re.IGNORECASE,
    )
    call_word = re.compile(
        r"function|tool|chat|completion|llm|model|agent|generat|embed|call|invoke|run",
        re.IGNORECASE,
    )
    return evidence_key, evidence_name, call_word


# Keys every span may carry that say nothing of a call (resource and scope attributes).
_IGNORED_PREFIXES = (
    "service.",
    "telemetry.",
    "process.",
    "host.",
    "os.",
    "deployment.",
    "code.",
)


def unmapped_evidence(
    name: str, attributes: Mapping[str, Any], hints: tuple[str, ...] = ()
) -> str | None:
    """Why a span read as UNKNOWN looks like a call that its reading missed, or None when it
    does not. `hints` are the keys that its convention says may stand for a call it cannot tell
    apart."""
    evidence_key, evidence_name, call_word = _patterns()
    if is_template(name) and call_word.search(name):
        return "a message-template name"
    hinted = [key for key in hints if key in attributes]
    if hinted:
        return (
            f"attribute {hinted[0]}, which this producer version records on calls and steps alike"
        )
    keys = sorted(
        key
        for key in attributes
        if evidence_key.search(key) and not key.startswith(_IGNORED_PREFIXES)
    )
    if keys:
        more = f" and {len(keys) - 2} more" if len(keys) > 2 else ""
        return f"attributes {', '.join(keys[:2])}{more}"
    if evidence_name.search(name):
        return "a tool- or model-like name"
    return None


# What a model API accepts as a tool name (OpenAI's and Anthropic's `[A-Za-z0-9_-]`, Gemini's
# and MCP's dots, colons and slashes), and a Python method's name, which no tool has.
_TOOL_NAME = re.compile(r"[\w.:/@-]{1,128}", re.ASCII)
_METHOD = re.compile(r"(?:^|\.)__\w+__$")


def tool_name_doubt(
    name: str,
    attributes: Mapping[str, Any],
    tool_name: str | None,
    tool_fields: tuple[Field, ...] = (),
) -> str | None:
    """Why a TOOL span's tool is unknown, or None when it is known: none recorded, or the span
    name taken for one when the name is no tool name (`run_shell.__call__`, `Call tool`). A name
    an attribute records, or a convention reads from a documented shape, is never doubted."""
    if not tool_name:
        return "no tool name"
    if tool_name != name and f"execute_tool {tool_name}" != name:
        return None
    # A name shaped as a tool's is not doubted (asked first: a trace has few tool names, and
    # every call of one is read here).
    if _is_tool_name(tool_name):
        return None
    if recorded_tool_name(attributes) or (tool_fields and first_string(attributes, tool_fields)):
        return None
    return "its span name is taken for its tool name, and is no tool name"


@functools.lru_cache(maxsize=1024)
def _is_tool_name(name: str) -> bool:
    return _TOOL_NAME.fullmatch(name) is not None and not _METHOD.search(name)


# A model call's recorded output, as each family writes the tool calls the model asked for:
# flattened (OpenLLMetry before the GenAI messages, OpenInference) or as one JSON attribute.
@functools.cache
def _requested_flat() -> re.Pattern[str]:
    return re.compile(
        r"^(?:gen_ai\.completion\.\d+\.tool_calls\.\d+\.name"
        r"|llm\.output_messages\.\d+\.message\.tool_calls\.\d+\.tool_call\.function\.name)$"
    )


_REQUESTED_JSON = (
    ("gen_ai.output.messages", "parts", "name"),
    ("ai.response.toolCalls", "", "toolName"),
)


def requested_tools(attributes: Mapping[str, Any]) -> tuple[str, ...]:
    """The tools a model call's recorded output asked for, in the order recorded.

    Read only where a trace records no tool call: a producer that instruments model calls alone
    still records what the model asked for, which shows that tools ran unrecorded.
    """
    names: list[str] = []
    for key, value in attributes.items():
        if (
            key[:1] in ("g", "l")
            and isinstance(value, str)
            and value
            and _requested_flat().match(key)
        ):
            names.append(value)
    for key, inner, name_key in _REQUESTED_JSON:
        recorded = json_or_text(attributes.get(key))
        if not isinstance(recorded, list):
            continue
        for entry in recorded:
            if not isinstance(entry, dict):
                continue
            calls = entry.get(inner) if inner else [entry]
            for call in calls if isinstance(calls, list) else ():
                if not isinstance(call, dict) or (inner and call.get("type") != "tool_call"):
                    continue
                name = call.get(name_key)
                if isinstance(name, str) and name:
                    names.append(name)
    return tuple(names)


def has_recorded_output(attributes: Mapping[str, Any]) -> bool:
    """Whether a model call's output is recorded where `requested_tools` reads it."""
    if any(key in attributes for key, _, _ in _REQUESTED_JSON):
        return True
    return any(key.startswith(("gen_ai.completion.", "llm.output_messages.")) for key in attributes)


_FINISH_REASONS = (
    "gen_ai.response.finish_reasons",
    "ai.response.finishReason",
    "llm.finish_reason",
)


@functools.cache
def _tool_finish() -> re.Pattern[str]:
    return re.compile(r"tool|function", re.IGNORECASE)


def asked_for_no_tool(attributes: Mapping[str, Any]) -> bool:
    """Whether a model call's recorded finish reasons say it ended without asking for a tool
    (`stop`, `end_turn`, `length`); False when none is recorded. Finish reasons are recorded
    with content capture off too."""
    for key in _FINISH_REASONS:
        recorded = json_or_text(attributes.get(key))
        reasons = [recorded] if isinstance(recorded, str) else recorded
        if isinstance(reasons, (list, tuple)) and reasons:
            return not any(isinstance(r, str) and _tool_finish().search(r) for r in reasons)
    return False
