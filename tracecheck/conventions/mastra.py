"""Mastra's AI tracing exported by `@mastra/otel-exporter` (Mastra 0.21 on).

`mastra.span.type` names what a span is. Before exporter 1.4 the `chat` span is the whole model
loop (`model_generation`, usage summed over its steps) and each model call is a step span, whose
own counts are only in the provider's raw response (`body`); from 1.4 each call is a `chat`
span of type `model_inference`, and the step is no call.
"""

from __future__ import annotations

from tracecheck.conventions.model import Convention, KindRule, ScopeMatch, TokenFields, fields

__all__ = ["MASTRA", "MASTRA_TELEMETRY"]


def _body(*pointers: str) -> tuple[str, ...]:
    return tuple(
        f"{key}#{pointer}" for key in ("body", "mastra.metadata.body") for pointer in pointers
    )


MASTRA = Convention(
    name="mastra",
    title="Mastra AI tracing (@mastra/otel-exporter)",
    versions="@mastra/otel-exporter 0.3.3 (Mastra 0.21–0.24), 1.0–1.4 (Mastra 1.x)",
    scopes=(ScopeMatch("@mastra/otel"), ScopeMatch("@mastra/otel-exporter")),
    markers=("mastra.span.type",),
    kinds=(
        KindRule(
            attribute="gen_ai.operation.name",
            values={"model.step": "LLM", "model_step": "LLM", "agent_step": "CHAIN"},
        ),
        KindRule(
            attribute="mastra.span.type",
            values={
                "agent_run": "AGENT",
                "model_generation": "CHAIN",
                "model_inference": "LLM",
                "model_step": "LLM",
                "model_chunk": "UNKNOWN",
                "tool_call": "TOOL",
                "mcp_tool_call": "TOOL",
                "workflow_run": "CHAIN",
                "workflow_step": "CHAIN",
                "rag_embedding": "EMBEDDING",
                "generic": "CHAIN",
            },
        ),
    ),
    arguments=fields("gen_ai.tool.input", "gen_ai.tool.call.arguments"),
    result=fields("gen_ai.tool.output"),
    model=fields("modelId", *_body("/model"), "gen_ai.response.model", "gen_ai.request.model"),
    tokens=(
        # A model_inference `chat` span (exporter 1.4): AI SDK 6 providers' counts, cache inside.
        TokenFields(
            input=fields("gen_ai.usage.input_tokens"),
            output=fields("gen_ai.usage.output_tokens"),
            cache_read=fields(
                "gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cached_input_tokens"
            ),
            cache_write=fields(
                "gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_write_tokens"
            ),
            cache="included",
            total=fields("gen_ai.usage.total_tokens"),
        ),
        # A step: the provider's raw response, whose key names tell how the cache was counted
        # (OpenAI's inside its prompt count, Anthropic's beside its input).
        TokenFields(
            input=fields(*_body("/usage/prompt_tokens", "/usage/input_tokens")),
            output=fields(*_body("/usage/completion_tokens", "/usage/output_tokens")),
            cache_read=fields(
                *_body(
                    "/usage/prompt_tokens_details/cached_tokens",
                    "/usage/input_tokens_details/cached_tokens",
                )
            ),
            cache_read_beside=fields(*_body("/usage/cache_read_input_tokens")),
            cache_write_beside=fields(*_body("/usage/cache_creation_input_tokens")),
            cache="included",
            total=fields(*_body("/usage/total_tokens")),
        ),
    ),
    offered=fields("agent.available_tools"),
    notes="Before exporter 1.4 a model call's counts are in its step's raw provider response "
    "(`body`), which streamed runs do not record: their calls have no counts. Mastra's "
    "deprecated `telemetry` (Mastra ≤ 0.24) is not read: it records only the first model call.",
)

MASTRA_TELEMETRY = Convention(
    name="mastra-telemetry",
    title="Mastra's deprecated telemetry (OtelConfig, Mastra ≤ 0.24)",
    versions="@mastra/core 0.x with `telemetry` enabled",
    # `componentName` is on every span it writes, the traced methods of its classes included.
    markers=("stream.toolCall.toolName", "aisdk.model.id", "componentName"),
    kinds=(
        KindRule("TOOL", name=r"^mastra\.stream\.toolCall$"),
        # The model calls: only the first of a run gets a span, so none is read as one.
        KindRule("UNKNOWN", name=r"^mastra\.stream(?:\.aisdk\.doStream)?$"),
        KindRule("AGENT", name=r"^agent\.(?:generate|stream)(?:VNext)?$"),
        KindRule("CHAIN", name=r"^workflow\."),
        KindRule("UNKNOWN", name=r"^(?:agent|mastra)\."),
    ),
    tool=fields("stream.toolCall.toolName"),
    arguments=fields("stream.toolCall.args"),
    result=fields("stream.toolCall.result"),
    notes="Every span carries `componentName`; the traced methods of its classes are spans of "
    "their own (`agent.getAssignedTools`, `workflow.<name>.step.<step>`), read as steps. Tool "
    "calls are read; model calls are not, since only the first of a run gets a span "
    "(`mastra.stream.aisdk.doStream`): with tool calls and no model call recorded, rules about "
    "models are could not be evaluated. A failed tool keeps status UNSET (the error is inside "
    "its result).",
)
