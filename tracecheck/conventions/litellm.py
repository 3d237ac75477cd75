"""LiteLLM's own OpenTelemetry callback (`litellm.callbacks = ["otel"]`, tracer `litellm`).

Each model call is a `litellm_request` span in OpenTelemetry GenAI attributes, with the tools
offered to the model flattened OpenLLMetry-style into `llm.request.functions.<i>.name`. With
message content captured, a `raw_gen_ai_request` child holds the provider's raw request and
response (`llm.<provider>.*`, Python reprs): the same call again, not a second one.
"""

from __future__ import annotations

from tracecheck.conventions.model import Convention, KindRule, ScopeMatch

__all__ = ["LITELLM"]

LITELLM = Convention(
    name="litellm",
    title='LiteLLM\'s OpenTelemetry callback (litellm.callbacks = ["otel"])',
    versions="litellm 1.x (recorded: 1.110.2)",
    scopes=(ScopeMatch("litellm"),),
    # LiteLLM writes a call onto the current span when one is open (see the notes).
    markers=("litellm.call_id",),
    kinds=(KindRule("UNKNOWN", name=r"^raw_gen_ai_request$"),),
    offered_indexed=("llm.request.functions.{}.name",),
    notes="`litellm_request` is the call: `gen_ai.operation.name` `chat`, request and response "
    "model, `gen_ai.usage.input_tokens` (the provider's prompt count, the cache inside for "
    "OpenAI), `output_tokens`, `total_tokens`. The cached count is recorded only inside "
    "`metadata.usage_object` and the raw span's `llm.<provider>.usage`, both Python reprs, so "
    "the cache reads as unknown. When a span is current and `USE_OTEL_LITELLM_REQUEST_SPAN` is "
    "not set, LiteLLM makes no span for the call: it writes the call's attributes onto the "
    "current span (each call over the one before) and hangs `raw_gen_ai_request` below it; "
    "that span is read through this convention (`litellm.call_id`) and stands for several "
    "calls, which a note says.",
)
