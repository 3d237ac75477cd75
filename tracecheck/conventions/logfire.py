"""Logfire's instrumentations of agent SDKs: the OpenAI Agents SDK, whose spans are named by
message template, and the Claude Agent SDK.

A Logfire span's name is its template (`Function: {name}`), the rendered text is in
`logfire.msg`, and the template's fields are attributes: the tool is `name`, its arguments
`input`. A template is never a tool name.
"""

from __future__ import annotations

from tracecheck.conventions.model import Convention, KindRule, ScopeMatch, TokenFields, fields

__all__ = [
    "LOGFIRE_CLAUDE_AGENT_SDK",
    "LOGFIRE_LLM_CLIENTS",
    "LOGFIRE_LLM_CLIENTS_BEFORE_4_31",
    "LOGFIRE_OPENAI_AGENTS",
    "LOGFIRE_OPENAI_AGENTS_UNSCOPED",
    "LOGFIRE_OPENAI_AGENTS_UNSCOPED_TOOLS",
]

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
    result=fields("output"),
    tokens=(
        TokenFields(
            input=fields("gen_ai.usage.input_tokens", "usage#/input_tokens"),
            output=fields("gen_ai.usage.output_tokens", "usage#/output_tokens"),
            cache_read=fields(
                "gen_ai.usage.cache_read.input_tokens",
                "usage#/input_tokens_details/cached_tokens",
                "response#/usage/input_tokens_details/cached_tokens",
            ),
            cache_write=fields(
                "gen_ai.usage.cache_creation.input_tokens",
                "usage#/input_tokens_details/cache_write_tokens",
                "response#/usage/input_tokens_details/cache_write_tokens",
            ),
            cache="included",
            total=fields("usage#/total_tokens", "response#/usage/total_tokens"),
        ),
    ),
    offered=fields("tools"),
    notes="`Agent run: {name!r}` lists the agent's tools in `tools`; model calls carry the "
    "OpenAI usage as JSON in `usage` (cache inside `input_tokens`; with openai-agents before "
    "0.3 only the input and output counts), a Responses API call also the whole response in "
    "`response` (its usage with the cache, the only place of the cache before logfire 5). "
    "Every release from 3.8 writes the same templates and attributes under this scope.",
)

# The same spans when their instrumentation scope did not survive (flat span rows, a pipeline
# that drops scopes): Logfire's own spans carry their template in `logfire.msg_template`, and
# the Agents SDK's templates are exact. Chosen after every convention that a scope selects.
_AGENTS_TEMPLATES = (
    KindRule("TOOL", name=r"^Function: \{name\}$"),
    KindRule("AGENT", name=r"^Agent run: \{name!r\}$"),
    KindRule("LLM", name=r"^(?:Chat completion|Responses API) with \{gen_ai\.request\.model!r\}$"),
    KindRule("GUARDRAIL", name=r"^Guardrail \{name!r\} \{triggered=\}$"),
    KindRule(
        "CHAIN",
        name=r"^(?:Handoff: \{from_agent\} → \{to_agent\}|OpenAI Agents trace: \{name\}"
        r"|Task: .|Turn \{turn\} for agent .)",
    ),
)

# A tool call's span is told from any Logfire span named alike by `mcp_data`, a key of the
# SDK's function span data (JSON null unless the tool is an MCP server's): there `name` names
# the tool. Without it (`LOGFIRE_OPENAI_AGENTS_UNSCOPED`), `name` names the tool only where
# `logfire.msg` is the template rendered with it.
LOGFIRE_OPENAI_AGENTS_UNSCOPED_TOOLS = Convention(
    name="logfire-openai-agents-unscoped-tools",
    title="Logfire: OpenAI Agents SDK tool calls without their instrumentation scope",
    versions="logfire 3.8–5.x with openai-agents 0.2–0.24",
    markers=("mcp_data",),
    kinds=(KindRule("TOOL", name=r"^Function: \{name\}$"),),
    tool=fields("name"),
    arguments=fields("input"),
    result=fields("output"),
    notes="`Function: {name}` with `mcp_data`: the tool is `name`, its arguments `input`.",
)

LOGFIRE_OPENAI_AGENTS_UNSCOPED = Convention(
    name="logfire-openai-agents-unscoped",
    title="Logfire: OpenAI Agents SDK spans without their instrumentation scope",
    versions="logfire 3.8–5.x",
    markers=("logfire.msg_template",),
    kinds=_AGENTS_TEMPLATES,
    # The template's own rendering names the tool: a span of template `Function: {name}` whose
    # `logfire.msg` is `Function: <name>` is read as the call of that function, whoever wrote
    # it. Another template, or a message that disagrees with `name`, names no tool (in doubt).
    tool_from_message=("logfire.msg_template", "Function: {name}", "logfire.msg"),
    arguments=LOGFIRE_OPENAI_AGENTS.arguments,
    result=LOGFIRE_OPENAI_AGENTS.result,
    tokens=LOGFIRE_OPENAI_AGENTS.tokens,
    offered=LOGFIRE_OPENAI_AGENTS.offered,
    notes="Any span carrying Logfire's `logfire.msg_template` that no scope claimed. Only the "
    "Agents SDK's exact templates decide a kind; any other Logfire span keeps the common "
    "reading. A `Function: {name}` span names its tool by `name` only where its rendered "
    "message agrees (`logfire.msg`: `Function: random_number`); the SDK's own tool calls, told "
    "by `mcp_data`, are `logfire-openai-agents-unscoped-tools`.",
)


LOGFIRE_CLAUDE_AGENT_SDK = Convention(
    name="logfire-claude-agent-sdk",
    title="Logfire: Claude Agent SDK (logfire.instrument_claude_agent_sdk)",
    # The `invoke_agent` span records the run's usage from the CLI's result message: the
    # totals of its model calls, whose own spans record only a start-of-message snapshot.
    run_totals=frozenset({"AGENT"}),
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
    "its input and cache counts are final, its output is the stream's first count, and no "
    "span, event or log records a call's final usage (the SDK's stream events are not "
    "recorded), so each call's output is unknown. The run's true totals are on the "
    "`invoke_agent` root (from the CLI's result message). Tool names are Claude Code's "
    "(`mcp__<server>__<tool>` for MCP tools). The MCP server's own `tools/call` spans (scope "
    "`mcp-python-sdk`) are separate traces.",
)


# `logfire.instrument_openai()` / `instrument_anthropic()`: one span per request, named by its
# template (`Chat Completion with {request_data[model]!r}`, `Message with …`, `Responses API
# with {gen_ai.request.model!r}`, whose template names the model differently); a streamed
# request's response is a log emitted when the stream ends (`streaming response from …`), so the
# request span itself then records no response. The log is the call; a request span that
# recorded no response is its step (or a call that failed before answering).
_CLIENT_KINDS = (
    KindRule(attribute="gen_ai.operation.name", values={"embeddings": "EMBEDDING"}),
    KindRule("LLM", name=r"^streaming response from "),
    KindRule("LLM", attribute="gen_ai.usage.input_tokens"),
    KindRule("LLM", attribute="gen_ai.response.id"),
    KindRule("LLM", attribute="response_data#/usage"),
    KindRule(
        "CHAIN",
        name=r"(?: with \{request_data\[model\]!r\}|^Responses API with \{gen_ai\.request\.model!r\})$",
    ),
)
_CLIENT_SCOPES = ("logfire.openai", "logfire.anthropic")
_USAGE = "response_data#/usage"

LOGFIRE_LLM_CLIENTS_BEFORE_4_31 = Convention(
    name="logfire-llm-clients-before-4.31",
    title="Logfire: OpenAI and Anthropic clients before 4.31",
    versions="logfire 3.x–4.30",
    scopes=tuple(ScopeMatch(scope, below_version="4.31") for scope in _CLIENT_SCOPES),
    kinds=_CLIENT_KINDS,
    tokens=(
        TokenFields(
            input=fields(
                "gen_ai.usage.input_tokens", f"{_USAGE}/input_tokens", f"{_USAGE}/prompt_tokens"
            ),
            output=fields(
                "gen_ai.usage.output_tokens",
                f"{_USAGE}/output_tokens",
                f"{_USAGE}/completion_tokens",
            ),
            cache_read=fields(
                "gen_ai.usage.raw#/prompt_tokens_details/cached_tokens",
                f"{_USAGE}/prompt_tokens_details/cached_tokens",
            ),
            cache="included",
            # Anthropic's own counts, beside its input (which logfire recorded as it came).
            cache_read_beside=fields(f"{_USAGE}/cache_read_input_tokens"),
            cache_write_beside=fields(f"{_USAGE}/cache_creation_input_tokens"),
            total=fields("gen_ai.usage.raw#/total_tokens", f"{_USAGE}/total_tokens"),
        ),
    ),
    notes="Anthropic's `gen_ai.usage.input_tokens` is its own count, without the cache, which is "
    "only in `response_data` (`/usage/cache_read_input_tokens`, `/cache_creation_input_tokens`): "
    "read beside the input. A streamed call is the `streaming response from …` log, which "
    "records no usage in these versions.",
)

# From 4.31 the input count holds the cache for both providers; the cache counts have their own
# attributes only from 5.0. Before, they are in the provider's usage object as Logfire recorded
# it: `gen_ai.usage.raw` (OpenAI from 4.31, Anthropic from 4.33), and in `response_data` (the
# default message format) on Chat Completions and Anthropic spans.
_RAW = "gen_ai.usage.raw#"

LOGFIRE_LLM_CLIENTS = Convention(
    name="logfire-llm-clients",
    title="Logfire: OpenAI and Anthropic clients (instrument_openai, instrument_anthropic)",
    versions="logfire 4.31–5.x",
    scopes=tuple(ScopeMatch(scope) for scope in _CLIENT_SCOPES),
    kinds=_CLIENT_KINDS,
    tokens=(
        TokenFields(
            input=fields("gen_ai.usage.input_tokens"),
            output=fields("gen_ai.usage.output_tokens"),
            cache_read=fields(
                "gen_ai.usage.cache_read.input_tokens",
                f"{_RAW}/prompt_tokens_details/cached_tokens",  # OpenAI Chat Completions
                f"{_RAW}/input_tokens_details/cached_tokens",  # OpenAI Responses API
                f"{_RAW}/cache_read_input_tokens",  # Anthropic
                f"{_USAGE}/prompt_tokens_details/cached_tokens",
                f"{_USAGE}/cache_read_input_tokens",
            ),
            cache_write=fields(
                "gen_ai.usage.cache_creation.input_tokens",
                f"{_RAW}/prompt_tokens_details/cache_write_tokens",
                f"{_RAW}/input_tokens_details/cache_write_tokens",
                f"{_RAW}/cache_creation_input_tokens",
                f"{_USAGE}/prompt_tokens_details/cache_write_tokens",
                f"{_USAGE}/cache_creation_input_tokens",
            ),
            cache="included",
            total=fields(f"{_RAW}/total_tokens", f"{_USAGE}/total_tokens"),
        ),
    ),
    notes="From 4.31 `gen_ai.usage.input_tokens` holds the cache for Anthropic too. The cache "
    "counts have attributes of their own (`gen_ai.usage.cache_read.input_tokens`, "
    "`cache_creation.input_tokens`) only from 5.0, set only when not zero; before, they are "
    "only in the provider's usage as recorded, `gen_ai.usage.raw` (OpenAI from 4.31, "
    "Anthropic from 4.33; Anthropic's own `input_tokens` there leaves the cache out, so only "
    "its cache counts are read from it) or `response_data`. A streamed call's usage is on its "
    "`streaming response from …` log; the request span of a stream (the Responses API's "
    "`Responses API with {gen_ai.request.model!r}` too) is its step.",
)
