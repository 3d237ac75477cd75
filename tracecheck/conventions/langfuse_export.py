"""Langfuse's exports (its public API's traces and observations, its UI's downloads), as the
`langfuse-export` reader makes spans of them: one span per observation.

The fields are the SDK's own attribute names (`langfuse.py`), so the SDK's reading applies: the
observation type decides the kind (written in capitals; the lookup ignores case). A span that
Langfuse took in from another instrumentation keeps that one's attributes in
`metadata.attributes`: a tool name or the `execute_tool` operation there makes it a tool call
whatever type Langfuse gave it, and names the tool (else the observation's name does). Token
counts are the reader's sums of `usageDetails`, which Langfuse's ingestion normalises with the
cache counted beside a reduced `input`.
"""

from __future__ import annotations

from dataclasses import replace

from tracecheck.conventions.langfuse import LANGFUSE, LANGFUSE_BEFORE_3_5
from tracecheck.conventions.model import KindRule, TokenFields, fields

__all__ = ["LANGFUSE_EXPORT", "LANGFUSE_EXPORT_UNTYPED"]

_ATTRIBUTES = "langfuse.observation.metadata#/attributes"
# Another instrumentation's tool call, kept by Langfuse as a SPAN (or any type): read as a call
# before the type decides, else a forbidden tool recorded so would pass unseen.
_RECORDED_TOOL = (
    KindRule("TOOL", attribute=f"{_ATTRIBUTES}/gen_ai.tool.name"),
    KindRule("TOOL", attribute=f"{_ATTRIBUTES}/tool.name"),
    KindRule(attribute=f"{_ATTRIBUTES}/gen_ai.operation.name", values={"execute_tool": "TOOL"}),
)

LANGFUSE_EXPORT = replace(
    LANGFUSE,
    name="langfuse-export",
    title="Langfuse exports: traces and observations from its API and UI",
    versions="Langfuse public API v1 (traces, observations) and v2 (observations); UI downloads",
    scopes=(),
    markers=("langfuse.export.layout",),
    kinds=(*_RECORDED_TOOL, *LANGFUSE.kinds),
    tool=fields(f"{_ATTRIBUTES}/gen_ai.tool.name", f"{_ATTRIBUTES}/tool.name"),
    tokens=(
        TokenFields(
            input=fields("gen_ai.usage.input_tokens"),
            output=fields("gen_ai.usage.output_tokens"),
            cache_read=fields("gen_ai.usage.cache_read.input_tokens"),
            cache_write=fields("gen_ai.usage.cache_creation.input_tokens"),
            cache="included",
            total=fields("langfuse.observation.usage_details#/total"),
        ),
    ),
    notes="Input and output tokens are Langfuse's own sums of `usageDetails` keys naming "
    "`input` / `output` (cache counts included); the UI's trace download holds no "
    "observation input, so tool arguments and offered tools are unknown there.",
)

# A trace with none of the types Langfuse added with SDK 3.5, not recorded by such an SDK: a
# SPAN may be a tool call or a step, so it stays unmapped and is named in a note.
LANGFUSE_EXPORT_UNTYPED = replace(
    LANGFUSE_EXPORT,
    name="langfuse-export-untyped",
    title="Langfuse exports of traces with the types SPAN, GENERATION and EVENT only",
    markers=("langfuse.export.untyped",),
    kinds=(*_RECORDED_TOOL, *LANGFUSE_BEFORE_3_5.kinds),
    evidence=LANGFUSE_BEFORE_3_5.evidence,
    notes="An observation of type SPAN may be a tool call or a step (SDKs before 3.5 and the "
    "ingestion API name every step so): it is read as UNKNOWN and named in a note.",
)
