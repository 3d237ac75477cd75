"""Langfuse's exports (its public API's traces and observations, its UI's downloads), as the
`langfuse-export` reader makes spans of them: one span per observation.

The observation type decides the kind (Langfuse's own, written in capitals); a tool's name is
the observation's name (or, for spans Langfuse took in from other instrumentations, the tool
name it kept in `metadata.attributes`); token counts are the reader's sums of `usageDetails`,
which Langfuse's ingestion normalises with the cache counted beside a reduced `input`.
"""

from __future__ import annotations

from dataclasses import replace

from tracecheck.conventions.model import Convention, KindRule, TokenFields, fields

__all__ = ["LANGFUSE_EXPORT", "LANGFUSE_EXPORT_UNTYPED"]

_TYPE = "langfuse.observation.type"
_ATTRIBUTES = "langfuse.observation.metadata#/attributes"

LANGFUSE_EXPORT = Convention(
    name="langfuse-export",
    title="Langfuse exports: traces and observations from its API and UI",
    versions="Langfuse public API v1 (traces, observations) and v2 (observations); UI downloads",
    markers=("langfuse.export.layout",),
    kinds=(
        KindRule(
            attribute=_TYPE,
            values={
                "GENERATION": "LLM",
                "AGENT": "AGENT",
                "TOOL": "TOOL",
                "CHAIN": "CHAIN",
                "RETRIEVER": "RETRIEVER",
                "EMBEDDING": "EMBEDDING",
                "EVALUATOR": "EVALUATOR",
                "GUARDRAIL": "GUARDRAIL",
                "SPAN": "CHAIN",
                "EVENT": "UNKNOWN",
            },
        ),
    ),
    tool=fields(f"{_ATTRIBUTES}/gen_ai.tool.name", f"{_ATTRIBUTES}/tool.name"),
    arguments=fields("langfuse.observation.input"),
    result=fields("langfuse.observation.output"),
    arguments_as_call=True,
    model=fields("langfuse.observation.model.name"),
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
    offered=fields("langfuse.observation.input#/tools"),
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
    kinds=(KindRule(attribute=_TYPE, values={"GENERATION": "LLM", "EVENT": "UNKNOWN"}),),
    evidence=("langfuse.observation.input",),
    notes="An observation of type SPAN may be a tool call or a step (SDKs before 3.5 and the "
    "ingestion API name every step so): it is read as UNKNOWN and named in a note.",
)
