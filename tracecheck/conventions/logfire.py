"""Logfire's instrumentation of the OpenAI Agents SDK: spans named by message template.

A Logfire span's name is its template (`Function: {name}`), the rendered text is in
`logfire.msg`, and the template's fields are attributes: the tool is `name`, its arguments
`input`. A template is never a tool name.
"""

from __future__ import annotations

from tracecheck.conventions.model import Convention, KindRule, ScopeMatch, TokenFields, fields

__all__ = ["LOGFIRE_OPENAI_AGENTS"]

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
