"""Langfuse SDK v3 and later: OpenTelemetry spans with `langfuse.observation.*` attributes.

The observation type is the only kind evidence, a tool's name is the span name, and
`usage_details` is a free-form JSON map whose key names tell how the cache was counted.
"""

from __future__ import annotations

from dataclasses import replace

from tracecheck.conventions.model import Convention, KindRule, ScopeMatch, TokenFields, fields

__all__ = ["LANGFUSE", "LANGFUSE_BEFORE_3_5"]

_USAGE = "langfuse.observation.usage_details"

LANGFUSE = Convention(
    name="langfuse",
    title="Langfuse SDK (OpenTelemetry based)",
    versions="langfuse 3.0–5.x (observation types beyond span/generation/event from 3.5)",
    scopes=(ScopeMatch("langfuse-sdk"),),
    markers=("langfuse.observation.type",),
    kinds=(
        KindRule(
            attribute="langfuse.observation.type",
            values={
                "generation": "LLM",
                "agent": "AGENT",
                "tool": "TOOL",
                "chain": "CHAIN",
                "retriever": "RETRIEVER",
                "embedding": "EMBEDDING",
                "evaluator": "EVALUATOR",
                "guardrail": "GUARDRAIL",
                "span": "CHAIN",
                "event": "UNKNOWN",
            },
        ),
    ),
    arguments=fields("langfuse.observation.input"),
    result=fields("langfuse.observation.output"),
    arguments_as_call=True,
    model=fields("langfuse.observation.model.name"),
    tokens=(
        # The OpenAI integration stores OpenAI's usage object as it came.
        TokenFields(
            input=fields(f"{_USAGE}#/prompt_tokens"),
            output=fields(f"{_USAGE}#/completion_tokens"),
            cache_read=fields(f"{_USAGE}#/prompt_tokens_details/cached_tokens"),
            cache="included",
            total=fields(f"{_USAGE}#/total_tokens"),
        ),
        # Langfuse's own keys: OpenAI-style cache keys count inside input, Anthropic's beside.
        TokenFields(
            input=fields(f"{_USAGE}#/input"),
            output=fields(f"{_USAGE}#/output"),
            cache_read=fields(f"{_USAGE}#/input_cached_tokens", f"{_USAGE}#/cache_read"),
            cache_write=fields(f"{_USAGE}#/cache_creation"),
            cache_read_beside=fields(f"{_USAGE}#/cache_read_input_tokens"),
            cache_write_beside=fields(f"{_USAGE}#/cache_creation_input_tokens"),
            cache="included",
            total=fields(f"{_USAGE}#/total"),
        ),
    ),
    offered=fields("langfuse.observation.input#/tools"),
    notes='`@observe` records a call\'s arguments as `{"args": [...], "kwargs": {...}}`; '
    "offered tools are only inside a generation's input (`/tools`). Before 3.5 every "
    "observation but generations and events is of type `span`.",
)

# Before 3.5 every observation but model calls and events is of type `span`: a tool call cannot
# be told from a step, so such spans stay unmapped and are noted.
LANGFUSE_BEFORE_3_5 = replace(
    LANGFUSE,
    name="langfuse-before-3.5",
    title="Langfuse SDK before 3.5 (observation types span, generation, event)",
    versions="langfuse 3.0–3.4",
    scopes=(ScopeMatch("langfuse-sdk", below_version="3.5"),),
    markers=(),
    kinds=(
        KindRule(
            attribute="langfuse.observation.type",
            values={"generation": "LLM", "event": "UNKNOWN"},
        ),
    ),
    evidence=("langfuse.observation.input",),
    notes="An observation of type `span` may be a tool call or a step: it is read as UNKNOWN "
    "and named in a note, and the rules about tools and models are could not be evaluated.",
)
