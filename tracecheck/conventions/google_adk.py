"""Google's Agent Development Kit (ADK), its own telemetry (scope `gcp.vertex.agent`).

Schema 1 (every 1.x and 2.x up to 2.12) traces each model call twice from 1.25 on: ADK's
`call_llm` span and, below it, a native `generate_content` span with the same counts; only
`call_llm` is the call. Parallel tool calls add an `execute_tool (merged)` span beside the
individual `execute_tool <tool>` spans; it is no call either. Schema 2 (the 2.13 default) is
plain OpenTelemetry GenAI.
"""

from __future__ import annotations

from tracecheck.conventions.model import Convention, KindRule, ScopeMatch, TokenFields, fields

__all__ = ["GOOGLE_ADK"]

_REQUEST = "gcp.vertex.agent.llm_request"
_RESPONSE = "gcp.vertex.agent.llm_response"
_MERGED = "(merged tools)"

GOOGLE_ADK = Convention(
    name="google-adk",
    title="Google ADK telemetry",
    versions="google-adk 1.0–2.13 (schema 1 and 2)",
    scopes=(ScopeMatch("gcp.vertex.agent"),),
    markers=("gcp.vertex.agent.*",),
    kinds=(
        KindRule("UNKNOWN", attribute="gen_ai.tool.name", values={_MERGED: "UNKNOWN"}),
        KindRule("UNKNOWN", name=r"^execute_tool \(merged\)$"),
        # ADK's own operation names decide before `gen_ai.system`, which ADK up to mid-2025
        # (1.4 and before) writes as `gcp.vertex.agent` on its tool spans too.
        KindRule(
            attribute="gen_ai.operation.name",
            values={"execute_tool": "TOOL", "invoke_agent": "AGENT"},
        ),
        # Schema 1's native duplicate of its `call_llm` parent.
        KindRule(attribute="gen_ai.system", values={"gemini": "UNKNOWN"}),
        KindRule(attribute="gen_ai.system", values={"gcp.vertex.agent": "LLM"}),
        KindRule("LLM", name=r"^call_llm$"),
        KindRule("TOOL", name=r"^tool_call \["),  # 1.0
        KindRule("UNKNOWN", name=r"^tool_response \["),
        KindRule("AGENT", name=r"^agent_run \["),
        # Schema 2's agent span, whatever is written on it: OpenInference's ADK
        # instrumentation (1.0.x) records every model call of the agent onto this one span,
        # each over the one before, so it holds only the last call's counts.
        KindRule("AGENT", name=r"^invoke_agent "),
        KindRule("CHAIN", name=r"^invocation$"),
    ),
    tool=fields("gen_ai.tool.name"),
    arguments=fields("gen_ai.tool.call.arguments", "gcp.vertex.agent.tool_call_args"),
    # ADK hands the model a tool's return value that is not an object as `{"result": value}`.
    result=fields("gen_ai.tool.call.result", "gcp.vertex.agent.tool_response"),
    result_wrapper="result",
    model=fields(f"{_RESPONSE}#/model_version", "gen_ai.response.model", "gen_ai.request.model"),
    tokens=(
        # Gemini's prompt count holds the cached content; ADK 1.30–2.4 puts thoughts beside
        # the output count, so the response's own total is the one to agree with.
        TokenFields(
            input=fields("gen_ai.usage.input_tokens"),
            output=fields("gen_ai.usage.output_tokens"),
            cache_read=fields(
                "gen_ai.usage.cache_read.input_tokens",
                f"{_RESPONSE}#/usage_metadata/cached_content_token_count",
            ),
            cache_write=fields("gen_ai.usage.cache_creation.input_tokens"),
            cache="included",
            total=fields(f"{_RESPONSE}#/usage_metadata/total_token_count"),
        ),
        # ADK 1.0: the counts are only inside the response.
        TokenFields(
            input=fields(f"{_RESPONSE}#/usage_metadata/prompt_token_count"),
            output=fields(f"{_RESPONSE}#/usage_metadata/candidates_token_count"),
            cache_read=fields(f"{_RESPONSE}#/usage_metadata/cached_content_token_count"),
            cache="included",
            total=fields(f"{_RESPONSE}#/usage_metadata/total_token_count"),
        ),
    ),
    offered=fields("gen_ai.tool.definitions", f"{_REQUEST}#/config/tools/*/function_declarations"),
    not_tool_names=frozenset({_MERGED}),
    notes="The response model is recorded only inside `gcp.vertex.agent.llm_response` "
    "(`/model_version`); schema 2 records the request model alone. Tool arguments: "
    "`gcp.vertex.agent.tool_call_args` (schema 1), `gen_ai.tool.call.arguments` (schema 2, "
    "with content capture on). Under OpenInference's ADK instrumentation (1.0.x) schema 2 "
    "records no model call of its own: each is written over the agent's `invoke_agent` span, "
    "which is read as the agent (a note says the model calls are missing).",
)
