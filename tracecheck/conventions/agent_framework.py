"""Microsoft Agent Framework's own spans: OpenTelemetry GenAI with each provider's input count."""

from __future__ import annotations

from tracecheck.conventions.model import Convention, ScopeMatch, TokenFields, fields

__all__ = ["AGENT_FRAMEWORK"]

AGENT_FRAMEWORK = Convention(
    name="agent-framework",
    title="Microsoft Agent Framework's own spans",
    versions="agent-framework-core 1.x (recorded: 1.26.0 with agent-framework-anthropic "
    "1.0.0b261022)",
    scopes=(ScopeMatch("agent_framework"),),
    tokens=(
        # The chat clients pass each provider's own input count through: the Anthropic clients'
        # (`anthropic`, and Claude on `aws.bedrock`, `azure.ai.foundry`, `google.vertex.ai`)
        # leave the cache out and record it under the dotted names beside; OpenAI's holds it.
        # The agent span sums its calls' counts and names only the request model.
        TokenFields(
            input=fields("gen_ai.usage.input_tokens"),
            output=fields("gen_ai.usage.output_tokens"),
            cache_read=fields("gen_ai.usage.cache_read.input_tokens"),
            cache_write=fields("gen_ai.usage.cache_creation.input_tokens"),
            cache="included",
            separate_when=(
                ("gen_ai.provider.name", r"^(?:anthropic|aws\.bedrock)$"),
                ("gen_ai.request.model", r"^claude-"),
            ),
        ),
    ),
    notes="Spans follow the OpenTelemetry GenAI conventions (`invoke_agent <name>`, "
    "`chat <model>`, `execute_tool <tool>` with `gen_ai.tool.call.arguments` under "
    "`ENABLE_SENSITIVE_DATA`, MCP client spans `tools/call <tool>` with `gen_ai.tool.name` and "
    "no arguments), but a chat span's input count is the provider's own: Anthropic's leaves "
    "the cache out, so the cache counts are added to it for Anthropic and Claude models.",
)
