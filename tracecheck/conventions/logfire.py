"""Logfire's instrumentations of agent SDKs: the OpenAI Agents SDK, whose spans are named by
message template, and the Claude Agent SDK.

A Logfire span's name is its template (`Function: {name}`), the rendered text is in
`logfire.msg`, and the template's fields are attributes: the tool is `name`, its arguments
`input`. A template is never a tool name.
"""

from __future__ import annotations

from tracecheck.conventions.model import Convention, KindRule, ScopeMatch, TokenFields, fields

__all__ = ["LOGFIRE_CLAUDE_AGENT_SDK", "LOGFIRE_OPENAI_AGENTS"]

LOGFIRE_OPENAI_AGENTS = Convention(
    name="logfire-openai-agents",
    title="Logfire: OpenAI Agents SDK (logfire.instrument_openai_agents)",
    versions="logfire 3.x–5.x",
    scopes=(ScopeMatch("logfire.openai_agents"),),
    kinds=(
        KindRule("TOOL", name=r"^Function: "),
        KindRule("AGENT", name=r"^Agent run: "),
        KindRule("LLM", name=r"^(?:Chat completion|Responses API) with "),
        KindRule("GUARDRAIL", name=r"^Guardrail "),
        KindRule("CHAIN", name=r"^(?:Handoff: |Turn |Task: |OpenAI Agents trace: )"),
        KindRule("UNKNOWN", name=r"^(?:MCP: |Speech|Transcription)"),
    ),
    tool=fields("name"),
    arguments=fields("input"),
    tokens=(
        TokenFields(
            input=fields("gen_ai.usage.input_tokens", "usage#/input_tokens"),
            output=fields("gen_ai.usage.output_tokens", "usage#/output_tokens"),
            cache_read=fields(
                "gen_ai.usage.cache_read.input_tokens",
                "usage#/input_tokens_details/cached_tokens",
            ),
            cache_write=fields("usage#/input_tokens_details/cache_write_tokens"),
            cache="included",
            total=fields("usage#/total_tokens"),
        ),
    ),
    offered=fields("tools"),
    notes="`Agent run: {name!r}` lists the agent's tools in `tools`; model calls carry the "
    "OpenAI usage as JSON in `usage` (cache inside `input_tokens`).",
)

LOGFIRE_CLAUDE_AGENT_SDK = Convention(
    name="logfire-claude-agent-sdk",
    title="Logfire: Claude Agent SDK (logfire.instrument_claude_agent_sdk)",
    versions="logfire 4.31–5.x",
    scopes=(ScopeMatch("logfire.claude_agent_sdk"),),
    tokens=(
        # A chat span's counts are the start-of-message snapshot (`partial`): the input is
        # right, the output is the stream's first count, not the message's. Output is left
        # unknown, so a token budget is never met on a snapshot.
        TokenFields(
            input=fields("gen_ai.usage.partial.input_tokens"),
            cache_read=fields("gen_ai.usage.partial.cache_read.input_tokens"),
            cache_write=fields("gen_ai.usage.partial.cache_creation.input_tokens"),
            cache="included",
            requires=("gen_ai.usage.partial.input_tokens",),
        ),
    ),
    notes="Model calls record only a start-of-message snapshot under `gen_ai.usage.partial.*`: "
    "their output is unknown (the run's totals are on the `invoke_agent` root). Tool names "
    "are Claude Code's (`mcp__<server>__<tool>` for MCP tools). The MCP server's own "
    "`tools/call` spans (scope `mcp-python-sdk`) are separate traces.",
)
