"""MLflow tracing exported as OTLP: `mlflow.*` attributes, every value JSON-encoded.

With `MLFLOW_ENABLE_OTEL_GENAI_SEMCONV` MLflow translates spans to OpenTelemetry GenAI, but
passes span types it cannot translate through as `gen_ai.operation.name` (`CHAIN`, ...).
"""

from __future__ import annotations

from tracecheck.conventions.model import Convention, KindRule, ScopeMatch, TokenFields, fields

__all__ = ["MLFLOW"]

_SPAN_TYPES = {
    "AGENT": "AGENT",
    "TOOL": "TOOL",
    "CHAT_MODEL": "LLM",
    "LLM": "LLM",
    "EMBEDDING": "EMBEDDING",
    "RETRIEVER": "RETRIEVER",
    "RERANKER": "RERANKER",
    "CHAIN": "CHAIN",
    "PARSER": "CHAIN",
    "MEMORY": "CHAIN",
    "GUARDRAIL": "GUARDRAIL",
    "EVALUATOR": "EVALUATOR",
    "UNKNOWN": "UNKNOWN",
}
_USAGE = "mlflow.chat.tokenUsage"
_OUTPUTS = "mlflow.spanOutputs"

MLFLOW = Convention(
    name="mlflow",
    title="MLflow tracing (OTLP export)",
    versions="mlflow 2.18–3.17 (OTLP export from 2.18; token usage attribute from 3.1)",
    scopes=(ScopeMatch("mlflow.tracing.provider"),),
    markers=("mlflow.spanType",),
    kinds=(
        KindRule(attribute="mlflow.spanType", values=_SPAN_TYPES, decode_json=True),
        # The GenAI translation passes untranslatable span types through, upper case.
        KindRule(
            attribute="gen_ai.operation.name",
            values={k: v for k, v in _SPAN_TYPES.items() if k.isupper() and k != "LLM"},
        ),
    ),
    tool=fields("mlflow.spanFunctionName#"),
    arguments=fields("mlflow.spanInputs"),
    result=fields("mlflow.spanOutputs"),
    model=fields("gen_ai.response.model", "mlflow.llm.model#", f"{_OUTPUTS}#/model", "model#"),
    tokens=(
        TokenFields(
            input=fields(f"{_USAGE}#/input_tokens"),
            output=fields(f"{_USAGE}#/output_tokens"),
            cache_read=fields(f"{_USAGE}#/cache_read_input_tokens"),
            cache_write=fields(f"{_USAGE}#/cache_creation_input_tokens"),
            cache="included",
            # Its Anthropic autolog keeps Anthropic's own input count, which excludes the cache.
            separate_when=(
                ("mlflow.message.format", r"^anthropic"),
                ("mlflow.llm.provider", r"^anthropic"),
            ),
            total=fields(f"{_USAGE}#/total_tokens"),
        ),
        # Before 3.1 the provider's response holds the only counts (OpenAI's shape).
        TokenFields(
            input=fields(f"{_OUTPUTS}#/usage/prompt_tokens"),
            output=fields(f"{_OUTPUTS}#/usage/completion_tokens"),
            cache_read=fields(f"{_OUTPUTS}#/usage/prompt_tokens_details/cached_tokens"),
            cache="included",
            total=fields(f"{_OUTPUTS}#/usage/total_tokens"),
        ),
    ),
    offered=fields("mlflow.chat.tools", "tools"),
    notes="`mlflow.spanType` decides the kind; a tool's name is the span name "
    "(`mlflow.spanFunctionName` otherwise). The raw request keywords (`model`, `tools`) are "
    "copied as JSON-encoded attributes of the same name.",
)
