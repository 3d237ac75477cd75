"""Vercel AI SDK telemetry: `experimental_telemetry` (AI SDK 3–6) and AI SDK 7's
`LegacyOpenTelemetry` integration, which write the same `ai.*` spans.

AI SDK 7's `OpenTelemetry` integration writes OpenTelemetry GenAI spans (`invoke_agent`, `chat`,
`execute_tool`, scope `gen_ai`) and is read by that convention.
"""

from __future__ import annotations

from tracecheck.conventions.model import Convention, KindRule, ScopeMatch, TokenFields, fields

__all__ = ["VERCEL_AI"]

_METADATA = "ai.response.providerMetadata"

VERCEL_AI = Convention(
    name="vercel-ai",
    title="Vercel AI SDK telemetry (ai.* spans)",
    versions="ai 3.x–6.x (experimental_telemetry), ai 7.x (LegacyOpenTelemetry)",
    scopes=(ScopeMatch("ai"),),
    markers=("ai.operationId",),
    kinds=(
        KindRule(
            attribute="ai.operationId",
            values={
                "ai.generateText": "AGENT",
                "ai.streamText": "AGENT",
                "ai.generateObject": "CHAIN",
                "ai.streamObject": "CHAIN",
                "ai.generateText.doGenerate": "LLM",
                "ai.streamText.doStream": "LLM",
                "ai.generateObject.doGenerate": "LLM",
                "ai.streamObject.doStream": "LLM",
                "ai.toolCall": "TOOL",
                "ai.embed": "CHAIN",
                "ai.embedMany": "CHAIN",
                "ai.embed.doEmbed": "EMBEDDING",
                "ai.embedMany.doEmbed": "EMBEDDING",
                "ai.rerank": "CHAIN",
                "ai.rerank.doRerank": "RERANKER",
            },
        ),
    ),
    tool=fields("ai.toolCall.name"),
    arguments=fields("ai.toolCall.args"),
    result=fields("ai.toolCall.result"),
    model=fields("ai.response.model", "gen_ai.response.model", "ai.model.id"),
    tokens=(
        # AI SDK 6.0.119 on (and 7): input counts hold the cache, whichever the provider.
        TokenFields(
            input=fields("ai.usage.inputTokens"),
            output=fields("ai.usage.outputTokens"),
            cache_read=fields("ai.usage.inputTokenDetails.cacheReadTokens"),
            cache_write=fields("ai.usage.inputTokenDetails.cacheWriteTokens"),
            cache="included",
            total=fields("ai.usage.totalTokens"),
            requires=("ai.usage.inputTokenDetails.noCacheTokens",),
        ),
        # Before: the provider package's own count. OpenAI's holds the cache; Anthropic's
        # (@ai-sdk/anthropic 2.x) does not, and its cache writes are only in the provider
        # metadata. Anthropic counts are taken as beside the input: where a later provider
        # package already included them, the total errs high, never low.
        TokenFields(
            input=fields("ai.usage.inputTokens", "ai.usage.promptTokens"),
            output=fields("ai.usage.outputTokens", "ai.usage.completionTokens"),
            cache_read=fields(
                "ai.usage.cachedInputTokens",
                f"{_METADATA}#/openai/cachedPromptTokens",
                f"{_METADATA}#/anthropic/cacheReadInputTokens",
                f"{_METADATA}#/anthropic/usage/cache_read_input_tokens",
            ),
            cache_write=fields(
                f"{_METADATA}#/anthropic/cacheCreationInputTokens",
                f"{_METADATA}#/anthropic/usage/cache_creation_input_tokens",
            ),
            cache="included",
            separate_when=(("ai.model.provider", r"^anthropic"),),
            total=fields("ai.usage.totalTokens"),
        ),
    ),
    offered=fields("ai.prompt.tools"),
    notes="`ai.generateText`/`ai.streamText` wrap a run's steps (their `ai.usage.*` are sums) "
    "and are read as AGENT; `.doGenerate`/`.doStream` are the model calls. Tool arguments are "
    "`ai.toolCall.args`, recorded only with `recordOutputs` on.",
)
