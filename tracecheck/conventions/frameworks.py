"""Agent frameworks whose spans follow a shared convention with a twist of their own."""

from __future__ import annotations

from tracecheck.conventions.model import Convention, KindRule, ScopeMatch, TokenFields, fields

__all__ = ["AGNO", "BEEAI", "LLAMA_INDEX", "PYDANTIC_AI", "SMOLAGENTS", "STRANDS"]

SMOLAGENTS = Convention(
    name="smolagents",
    title="smolagents under OpenInference",
    versions="openinference-instrumentation-smolagents 0.1.x",
    scopes=(ScopeMatch("openinference.instrumentation.smolagents"),),
    arguments_as_call=True,
    notes='A tool\'s `input.value` is the call `{"args": [], "sanitize_inputs_outputs": …, '
    '"kwargs": {…}}`: the keyword arguments are read.',
)

# LlamaIndex methods on a model object that wrap or prepare a model call rather than make one:
# OpenInference gives every span of a model object the kind LLM, so `_prepare_chat_with_tools`
# (no tokens, no response) would count as a call beside the `achat` it prepares, and
# `predict_and_call` as a call around the one it makes.
_LLAMA_INDEX_NOT_CALLS = (
    r"\.(?:_prepare_chat_with_tools(?:_compat)?|_validate_chat_with_tools_response"
    r"|get_tool_calls_from_response|a?predict_and_call|a?(?:stream_)?structured_predict"
    r"|a?(?:stream_)?chat_with_tools|a?predict|a?stream)$"
)

LLAMA_INDEX = Convention(
    name="llama-index",
    title="LlamaIndex under OpenInference",
    versions="openinference-instrumentation-llama-index 2.x–4.x (LlamaIndex's dispatcher spans)",
    scopes=(ScopeMatch("openinference.instrumentation.llama_index"),),
    kinds=(KindRule("CHAIN", name=_LLAMA_INDEX_NOT_CALLS),),
    arguments_as_call=True,
    result=fields("output.value#/raw_output"),
    result_error=fields("output.value#/is_error"),
    notes="Spans are named `<class>.<method>`, and every method of a model object is an LLM "
    "span: only the methods that call the model (`chat`, `achat`, `astream_chat`, `complete`, …) "
    'are read as model calls. A tool\'s `input.value` is the call `{"kwargs": {…}}`. '
    "`llm.model_name` is the request model (the response model is not recorded); streamed "
    "calls record no token counts unless the model object asks for usage.",
)

# Strands passes each model provider's own input count through: OpenAI's, LiteLLM's and
# Gemini's hold the cache, Anthropic's and Bedrock's do not. Chat spans name only the request
# model: Anthropic's API models (`claude-…`) and Bedrock's model ids (`<vendor>.<model>`, with a
# cross-region prefix, or an ARN) are the ones whose counts are beside the input.
_BESIDE_INPUT_MODELS = (
    r"^(?:claude-|arn:aws:bedrock:|(?:(?:us|eu|apac|au|ca|jp|us-gov|global)\.)?"
    r"(?:anthropic|amazon|meta|mistral|cohere|ai21|deepseek|writer|qwen|openai|twelvelabs"
    r"|stability|luma|minimax|moonshot|google|nvidia)\.)"
)

AGNO = Convention(
    name="agno",
    title="Agno under OpenInference",
    versions="openinference-instrumentation-agno 1.x (recorded: 1.0.15 on agno 3.1.10)",
    scopes=(ScopeMatch("openinference.instrumentation.agno"),),
    tokens=(
        # Agno's metrics keep each provider's own input count: Claude's (direct, on Bedrock,
        # Azure Foundry, Vertex AI) and Bedrock's leave the cache out, OpenAI's and Gemini's
        # hold it. `llm.provider` is Agno's provider name.
        TokenFields(
            input=fields("llm.token_count.prompt"),
            output=fields("llm.token_count.completion"),
            cache_read=fields("llm.token_count.prompt_details.cache_read"),
            cache_write=fields("llm.token_count.prompt_details.cache_write"),
            cache="included",
            separate_when=(("llm.provider", r"^(?:anthropic|awsbedrock|azurefoundry|vertexai)$"),),
            total=fields("llm.token_count.total"),
        ),
    ),
    notes="`llm.token_count.prompt` is the provider's own input count (Agno's metrics): for "
    "Anthropic's and Bedrock's models the cache counts are beside it, told by `llm.provider`; "
    "their `llm.token_count.total` leaves the cache out too.",
)

STRANDS = Convention(
    name="strands",
    title="Strands Agents' own tracer",
    versions="strands-agents 1.x (recorded: 1.40.0, 1.62.0)",
    scopes=(ScopeMatch("strands.telemetry.tracer"),),
    kinds=(
        KindRule(
            attribute="gen_ai.operation.name",
            values={"execute_event_loop_cycle": "CHAIN", "execute_node": "CHAIN"},
        ),
    ),
    offered=fields("gen_ai.agent.tools"),
    tokens=(
        TokenFields(
            input=fields("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
            output=fields("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"),
            cache_read=fields(
                "gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens"
            ),
            cache_write=fields(
                "gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_write_input_tokens"
            ),
            cache="included",
            separate_when=(("gen_ai.request.model", _BESIDE_INPUT_MODELS),),
            total=fields("gen_ai.usage.total_tokens"),
        ),
    ),
    notes="The agent span lists its tools in `gen_ai.agent.tools`; model spans record only the "
    "request model. Input counts are the model provider's own: they hold the cache for OpenAI, "
    "LiteLLM and Gemini models, not for Anthropic's and Bedrock's (told by the model id). Cache "
    "counts are `gen_ai.usage.cache_read_input_tokens` / `cache_write_input_tokens` before the "
    "dotted OpenTelemetry names (both are written, unless the latest conventions are opted "
    "into). Before the `gen_ai.tool.call.arguments` attribute, a tool's arguments are only in "
    "span events, which are not read: argument rules find no evidence.",
)

BEEAI = Convention(
    name="beeai",
    title="BeeAI Framework under OpenInference",
    versions="openinference-instrumentation-beeai 0.1.0–0.1.30 (scope version: beeai-framework's; "
    "recorded: 0.1.6 on 0.1.31, 0.1.9 on 0.1.36, 0.1.30 on 0.1.85)",
    scopes=(ScopeMatch("openinference.instrumentation.beeai"),),
    kinds=(
        # Emitter events written as spans: `start-1`, `success-2` (0.1.7–0.1.9) and the
        # `error`/`retry` children of a failed call (0.1.10 on). The call is their parent.
        KindRule(
            "UNKNOWN", name=r"^(?:start|success|finish|error|retry|update|newToken)(?:-\d+)?$"
        ),
        # 0.1.0–0.1.6 write every emitter event as a span named `<event path>-<n>`, side by
        # side: a tool call is its `tool.<namespace>.<tool>.start` event (with the arguments), a
        # model call its `backend.<provider>.chat.success` event (with the counts; `error` when
        # it failed); an agent's events (ReAct's `update`, which names the tool it chose,
        # among them) are steps, and the other events no calls.
        KindRule("TOOL", name=r"^tool\..+\.start-\d+$"),
        KindRule("LLM", name=r"^backend\.[^.]+\.chat\.(?:success|error)-\d+$"),
        KindRule("CHAIN", name=r"^agent\..+-\d+$"),
        KindRule("UNKNOWN", name=r"^(?:tool|backend)\..+-\d+$"),
        KindRule("TOOL", attribute="tool.name"),
    ),
    # 0.1.0–0.1.6: the tool is the last namespace segment of its `start` event's span name.
    tool_from_name=r"tool\.(?:.+\.)?([^.]+)\.start-\d+",
    arguments=fields("input.value#/input", "tool.parameters"),
    tokens=(
        TokenFields(
            input=fields("llm.token_count.prompt"),
            output=fields("llm.token_count.completion"),
            cache_read=fields("metadata.usage.cached_prompt_tokens"),
            cache_write=fields("metadata.usage.cached_creation_tokens"),
            cache="included",
            total=fields("llm.token_count.total"),
        ),
    ),
    notes='A tool\'s `input.value` wraps its arguments as `{"input": {...}, "options": ...}`; '
    "cache counts are only in `metadata.usage.*`. `final_answer` is BeeAI's own tool. "
    "0.1.0–0.1.6 build the spans from BeeAI's emitter events, one span per event named "
    "`<event path>-<n>` under a `beeai-framework-main` root: a tool call is read from its "
    "`tool.<namespace>.<tool>.start` span (the tool is the namespace's last segment, which for "
    "BeeAI's own tools is the emitter's name, e.g. `wikipedia`; arguments in "
    "`tool.parameters`), a model call from its `backend.<provider>.chat.success` span; a "
    "failed tool is only an `error` event span, so no tool call reads as failed, and no cache "
    "count is recorded.",
)

PYDANTIC_AI = Convention(
    name="pydantic-ai",
    title="Pydantic AI's own instrumentation (also under Logfire)",
    versions="pydantic-ai 0.x–2.x, instrumentation formats 1–6",
    scopes=(ScopeMatch("pydantic-ai"),),
    kinds=(
        # Formats 1–2 name the agent span `agent run` (`<agent> run`) with no operation name,
        # and wrap a turn's tool calls in a `running tools` span.
        KindRule("AGENT", name=r"^(?:agent run|invoke_agent .+|.+ run)$"),
        KindRule("CHAIN", name=r"^running tools$"),
    ),
    arguments=fields("gen_ai.tool.call.arguments", "tool_arguments"),
    result=fields("gen_ai.tool.call.result", "tool_response"),
    offered=fields("model_request_parameters#/function_tools"),
    notes="Before format 5 a tool's arguments are `tool_arguments` and the tools offered to the "
    "model are `model_request_parameters` (`/function_tools`); from 5 on they are "
    "`gen_ai.tool.call.arguments` and `gen_ai.tool.definitions`.",
)
