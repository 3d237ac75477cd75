"""OpenLLMetry (Traceloop): its model instrumentations and the traceloop-sdk decorators.

Its model instrumentations count the cache **inside** the prompt count in every version, but
until 0.54 they named the cache counts `gen_ai.usage.cache_read_input_tokens` /
`cache_creation_input_tokens`: the names the common reading takes for Anthropic-style counts
reported beside the input, which counted the cache twice. Bedrock is the exception: its input
excludes the cache, whatever the names say.
"""

from __future__ import annotations

from tracecheck.conventions.model import (
    CacheCounting,
    Convention,
    KindRule,
    ScopeMatch,
    TokenFields,
    fields,
)

__all__ = [
    "OPENLLMETRY",
    "OPENLLMETRY_BEDROCK",
    "OPENLLMETRY_LANGCHAIN",
    "OPENLLMETRY_LLAMAINDEX",
    "TRACELOOP_DECORATORS",
]

_INPUT = fields("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
_OUTPUT = fields("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
_CACHE_READ = fields("gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens")
_CACHE_WRITE = fields(
    "gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_creation_input_tokens"
)
_TOTAL = fields("gen_ai.usage.total_tokens", "llm.usage.total_tokens")
# Before 0.54 offered tools were flattened: `llm.request.functions.<i>.name`.
_OFFERED = fields("gen_ai.tool.definitions")


def _counts(cache: CacheCounting) -> tuple[TokenFields, ...]:
    return (
        TokenFields(
            input=_INPUT,
            output=_OUTPUT,
            cache_read=_CACHE_READ,
            cache_write=_CACHE_WRITE,
            cache=cache,
            total=_TOTAL,
        ),
    )


# What traceloop-sdk's `traceloop.span.kind` says a span is.
_SPAN_KIND = KindRule(
    attribute="traceloop.span.kind",
    values={"workflow": "CHAIN", "task": "CHAIN", "agent": "AGENT", "tool": "TOOL"},
)


def _scopes(*names: str) -> tuple[ScopeMatch, ...]:
    scopes = []
    for name in names:
        scope = f"opentelemetry.instrumentation.{name}"
        scopes += [ScopeMatch(scope), ScopeMatch(f"{scope}.*")]
    return tuple(scopes)


OPENLLMETRY = Convention(
    name="openllmetry",
    title="OpenLLMetry model instrumentations (Traceloop)",
    versions="opentelemetry-instrumentation-anthropic, -openai, -vertexai 0.33–0.62",
    scopes=_scopes("anthropic", "openai", "vertexai"),
    tokens=_counts("included"),
    offered_indexed=("llm.request.functions.{}.name",),
    notes="Input counts hold the cache in every version (0.33.4–0.47 as "
    "`gen_ai.usage.prompt_tokens`, with underscore cache names); the own total is "
    "`llm.usage.total_tokens` before 0.54, `gen_ai.usage.total_tokens` after. Streamed "
    "Anthropic spans before 0.61 record no tokens unless `enrich_token_usage` was on, and every "
    "version adds `message_start`'s output count to the final one (a small over-count).",
)

# The LangChain callback handler's kinds: before 0.53 only `traceloop.span.kind` says what a
# span is (`<tool>.tool`, `<node>.task`, `<graph>.workflow`); from 0.53 on the GenAI operation
# name says it too (`execute_tool <tool>`, `execute_task <node>`, `invoke_agent`).
_LANGCHAIN_KINDS = (
    KindRule(
        attribute="gen_ai.operation.name",
        values={"invoke_agent": "AGENT", "execute_tool": "TOOL", "execute_task": "CHAIN"},
    ),
    _SPAN_KIND,
)

OPENLLMETRY_LANGCHAIN = Convention(
    name="openllmetry-langchain",
    title="OpenLLMetry LangChain / LangGraph instrumentation (Traceloop)",
    versions="opentelemetry-instrumentation-langchain 0.33–0.62",
    scopes=_scopes("langchain"),
    kinds=_LANGCHAIN_KINDS,
    tool=fields("gen_ai.tool.name", "traceloop.entity.name"),
    # The callback's whole input: `{"input_str", "tags", "metadata", "inputs", "kwargs"}`, whose
    # `inputs` are the tool's arguments by name; `input_str` is only their Python repr.
    arguments=fields(
        "gen_ai.tool.call.arguments#/inputs",
        "traceloop.entity.input#/inputs",
        "gen_ai.tool.call.arguments#/input_str",
        "traceloop.entity.input#/input_str",
    ),
    # The callback's output: LangChain's ToolMessage, whose content is what the tool returned.
    result=fields(
        "gen_ai.tool.call.result#/output/kwargs/content",
        "traceloop.entity.output#/output/kwargs/content",
    ),
    result_error=fields(
        "gen_ai.tool.call.result#/output/kwargs/status",
        "traceloop.entity.output#/output/kwargs/status",
    ),
    tokens=_counts("included"),
    offered_indexed=("llm.request.functions.{}.name",),
    notes="Before 0.53 a tool call is a span named `<tool>.tool` that only "
    "`traceloop.span.kind` and `traceloop.entity.name` mark; from 0.53 on it is "
    "`execute_tool <tool>` with `gen_ai.tool.name`. Either way the arguments are the `inputs` "
    "of the callback's recorded input (`traceloop.entity.input`, and from 0.53 the same JSON in "
    "`gen_ai.tool.call.arguments`). Model calls count the cache inside input as the other "
    "OpenLLMetry instrumentations do.",
)

OPENLLMETRY_LLAMAINDEX = Convention(
    name="openllmetry-llamaindex",
    title="OpenLLMetry LlamaIndex instrumentation (Traceloop)",
    versions="opentelemetry-instrumentation-llamaindex 0.28–0.62 (LlamaIndex's dispatcher spans)",
    scopes=_scopes("llamaindex"),
    kinds=(
        # Every step is `<class>.task`; only what a step recorded tells a tool call apart. A
        # workflow agent's `call_tool` step records the `ToolCallResult`: it is the call only
        # when the tool failed, since a failed tool object's own span is never exported; else
        # the call is its child, the tool object's span, whose output is the `ToolOutput`
        # (`raw_input`) in workflow and legacy agents alike.
        KindRule(
            attribute="traceloop.entity.output#/tool_output/is_error",
            values={"true": "TOOL"},
            otherwise="CHAIN",
        ),
        KindRule("TOOL", attribute="traceloop.entity.output#/raw_input"),
        _SPAN_KIND,
    ),
    tool=fields("traceloop.entity.output#/tool_name", "tool.name"),
    arguments=fields(
        "traceloop.entity.input",
        "traceloop.entity.output#/raw_input",
        "traceloop.entity.output#/tool_kwargs",
        "tool.arguments",
    ),
    arguments_as_call=True,
    result=fields(
        "traceloop.entity.output#/raw_output", "traceloop.entity.output#/tool_output/raw_output"
    ),
    result_error=fields(
        "traceloop.entity.output#/is_error", "traceloop.entity.output#/tool_output/is_error"
    ),
    tokens=_counts("included"),
    offered_indexed=("llm.request.functions.{}.name",),
    notes="Every LlamaIndex step is a span named `<class>.task` (`<class>.workflow` at the "
    "root), told apart only by what it records: a tool call is the tool object's span, whose "
    "output is the `ToolOutput` (`tool_name`, `raw_input`); a failed tool's span is never "
    "exported, so then the call is the agent's `call_tool` step, whose `ToolCallResult` says "
    "`is_error` (no span is in error). Before 0.51 these outputs are JSON text encoded twice. "
    "Model calls are left to the OpenAI instrumentation (`openai.chat`), as `Traceloop.init` "
    "installs it.",
)

OPENLLMETRY_BEDROCK = Convention(
    name="openllmetry-bedrock",
    title="OpenLLMetry Bedrock instrumentation (Traceloop)",
    versions="opentelemetry-instrumentation-bedrock 0.33–0.62",
    scopes=_scopes("bedrock"),
    tokens=_counts("separate"),
    offered_indexed=("llm.request.functions.{}.name",),
    notes="Bedrock's input count excludes the cache; 0.62 records the cache under the dotted "
    "names that elsewhere mean 'included'. Before 0.62 cache counts are not on the span.",
)

TRACELOOP_DECORATORS = Convention(
    name="traceloop-sdk",
    title="traceloop-sdk decorators (@workflow, @agent, @task, @tool)",
    versions="traceloop-sdk 0.40–0.62",
    scopes=(ScopeMatch("traceloop.tracer"),),
    markers=("traceloop.span.kind",),
    kinds=(
        # Spans of OpenLLMetry instrumentations no convention of their own describes come here
        # by their `traceloop.span.kind`: one that names a tool call is one, whatever its kind.
        KindRule(attribute="gen_ai.operation.name", values={"execute_tool": "TOOL"}),
        KindRule("TOOL", attribute="gen_ai.tool.name"),
        _SPAN_KIND,
    ),
    tool=fields("gen_ai.tool.name", "traceloop.entity.name"),
    arguments=fields("traceloop.entity.input"),
    result=fields("traceloop.entity.output"),
    arguments_as_call=True,
    notes='`traceloop.entity.input` is the Python call as `{"args": [...], "kwargs": {...}}`: '
    "keyword arguments are read by name, positional ones stay under `/args`. "
    "`gen_ai.tool.name` on tool spans since 0.56.1.",
)
