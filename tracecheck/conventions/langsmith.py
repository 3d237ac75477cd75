"""LangSmith's OpenTelemetry export (`LANGSMITH_OTEL_ENABLED`): `langsmith.span.kind` is the
run type, and `gen_ai.operation.name` maps `prompt` to `chat` and `retriever` to `embeddings`,
so the run type decides."""

from __future__ import annotations

from tracecheck.conventions.model import Convention, KindRule, TokenFields, fields

__all__ = ["LANGSMITH"]

_USAGE = "langsmith.metadata.usage_metadata"

LANGSMITH = Convention(
    name="langsmith",
    title="LangSmith OpenTelemetry export",
    versions="langsmith 0.3.45–0.15",
    markers=("langsmith.span.kind",),
    kinds=(
        KindRule(
            attribute="langsmith.span.kind",
            values={
                "llm": "LLM",
                "tool": "TOOL",
                "chain": "CHAIN",
                "retriever": "RETRIEVER",
                "embedding": "EMBEDDING",
                "prompt": "PROMPT",
                "parser": "CHAIN",
            },
        ),
    ),
    arguments=fields("gen_ai.prompt"),
    tokens=(
        TokenFields(
            input=fields("gen_ai.usage.input_tokens", f"{_USAGE}#/input_tokens"),
            output=fields("gen_ai.usage.output_tokens", f"{_USAGE}#/output_tokens"),
            cache_read=fields(f"{_USAGE}#/input_token_details/cache_read"),
            cache_write=fields(f"{_USAGE}#/input_token_details/cache_creation"),
            cache="included",
            total=fields("gen_ai.usage.total_tokens", f"{_USAGE}#/total_tokens"),
        ),
    ),
    offered=fields("gen_ai.prompt#/tools"),
    notes="A tool's arguments are the run's inputs, `gen_ai.prompt` (JSON by parameter name; "
    "0.4.x records it, and `gen_ai.completion`, as the bytes of that JSON). "
    "Cache counts are read from `langsmith.metadata.usage_metadata` (JSON); "
    "`gen_ai.usage.input_token_details` holds the same as a Python repr.",
)
