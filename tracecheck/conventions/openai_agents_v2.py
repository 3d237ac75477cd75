"""The OpenTelemetry contrib instrumentation of the OpenAI Agents SDK
(`opentelemetry-instrumentation-openai-agents-v2`).

It writes the GenAI conventions, which the common reading understands, plus operation names of
its own that the conventions do not define: `guardrail_check` (a guardrail function's verdict,
`gen_ai.guardrail.name` and `gen_ai.guardrail.triggered`), `agent_handoff`, and `unknown` for
the SDK span types it has no name for (task, turn, custom, speech group, MCP tool listing: none
of them a tool or model call).

Traceloop's `opentelemetry-instrumentation-openai-agents` writes the same scope name; its spans
carry `traceloop.span.kind`, whose convention comes first in the registry and claims them.
"""

from __future__ import annotations

from tracecheck.conventions.model import Convention, KindRule, ScopeMatch

__all__ = ["OTEL_OPENAI_AGENTS"]

OTEL_OPENAI_AGENTS = Convention(
    name="otel-openai-agents",
    title="OpenTelemetry contrib: OpenAI Agents SDK (opentelemetry-instrumentation-openai-agents-v2)",
    versions="opentelemetry-instrumentation-openai-agents-v2 0.1.x (scope without a version)",
    scopes=(ScopeMatch("opentelemetry.instrumentation.openai_agents"),),
    kinds=(
        KindRule(
            attribute="gen_ai.operation.name",
            values={"guardrail_check": "GUARDRAIL", "agent_handoff": "CHAIN", "unknown": "UNKNOWN"},
        ),
    ),
    notes="A guardrail is `guardrail_check` with `gen_ai.guardrail.name` and "
    "`gen_ai.guardrail.triggered` (a tripped guardrail's span is not in error: the turn span "
    "above it is); `unknown` names the SDK's task, turn, custom and MCP-listing spans. "
    "Everything else is the common GenAI reading.",
)
