"""OpenInference's instrumentations of model providers whose counts differ from the family's.

OpenInference's `llm.token_count.prompt` holds the cache (`prompt_details`) everywhere but
where an instrumentation passes the provider's own input count through: Amazon Bedrock's
`inputTokens` leaves the cache out, for every model it serves.
"""

from __future__ import annotations

from tracecheck.conventions.model import Convention, ScopeMatch, TokenFields, fields

__all__ = ["OPENINFERENCE_BEDROCK"]

OPENINFERENCE_BEDROCK = Convention(
    name="openinference-bedrock",
    title="Amazon Bedrock under OpenInference",
    versions="openinference-instrumentation-bedrock 0.1.x (cache counts read from 0.1.45's source)",
    scopes=(ScopeMatch("openinference.instrumentation.bedrock"),),
    tokens=(
        TokenFields(
            input=fields("llm.token_count.prompt"),
            output=fields("llm.token_count.completion"),
            cache_read=fields("llm.token_count.prompt_details.cache_read"),
            cache_write=fields("llm.token_count.prompt_details.cache_write"),
            cache="separate",
            total=fields("llm.token_count.total"),
        ),
    ),
    notes="`llm.token_count.prompt` is Bedrock's `inputTokens` (Converse, ConverseStream, Nova "
    "and Anthropic InvokeModel bodies), which leaves the cache out: `prompt_details.cache_read` "
    "/ `cache_write` (`cacheReadInputTokens[Count]`, `cacheWriteInputTokens[Count]`) are counted "
    "beside it.",
)
