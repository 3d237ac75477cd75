"""The conventions most producers share: OpenTelemetry GenAI, OpenInference, flat spans.

They add nothing to the common reading (`generic.py`, contracts.md §1); they exist so that every
span is reported with the convention that read it.
"""

from __future__ import annotations

from tracecheck.conventions.model import Convention

__all__ = ["GENERIC", "OPENINFERENCE", "OTEL_GENAI"]

OTEL_GENAI = Convention(
    name="otel-genai",
    title="OpenTelemetry GenAI semantic conventions",
    versions="semantic conventions 1.26–1.38 and development: old and new attribute names alike",
    markers=("gen_ai.*",),
    notes="`gen_ai.operation.name`, `gen_ai.tool.*`, `gen_ai.request/response.model`, "
    "`gen_ai.usage.*` (input counts hold cache reads and writes), `gen_ai.tool.definitions`.",
)

OPENINFERENCE = Convention(
    name="openinference",
    title="OpenInference semantic conventions",
    versions="openinference-semantic-conventions 0.1.x (Python), @arizeai/openinference-semantic-conventions 1.x/2.x (JS)",
    markers=("openinference.span.kind", "llm.*", "input.value", "tool.name"),
    notes="`openinference.span.kind`, `tool.name`, `input.value`, `llm.model_name`, "
    "`llm.token_count.*`, `llm.tools.<i>.tool.json_schema`.",
)

GENERIC = Convention(
    name="generic",
    title="Flat spans and unrecognised producers",
    versions="any",
    notes="A declared kind and `toolName` of flat span rows; otherwise the common reading.",
)
