"""Spans that look like a tool or model call which no convention read as one.

A producer the conventions do not know (or a version that renamed its attributes) reads as
spans of kind UNKNOWN: a rule about tools or models would then pass without having seen the
call. Such spans are named in a note, and `check --strict-capture` refuses to pass those rules.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from tracecheck.conventions.generic import is_template

__all__ = ["unmapped_evidence"]


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
        r"^(?:function|tool)\b|execute_tool|\btool[ _.:-]?call|call_llm|\bchat\b|completions?\b"
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
    name: str,
    attributes: Mapping[str, Any],
    kind: str,
    tool_name: str | None,
    hints: tuple[str, ...] = (),
) -> str | None:
    """Why a span looks like a call that its reading missed, or None when it does not.

    Only spans read as UNKNOWN are judged (plus TOOL spans with no tool name): a span read as
    any other kind was mapped by a convention. `hints` are the keys that its convention says may
    stand for a call it cannot tell apart.
    """
    if kind == "TOOL":
        return None if tool_name else "a tool call with no tool name"
    if kind != "UNKNOWN":
        return None
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
