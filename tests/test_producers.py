"""Real producers' recordings (fixtures/producers/) read true through their conventions.

Every producer ran the same scripted refund-desk agent against a fake model server (see each
folder's README): the tool calls, their arguments, the model calls and their token counts are
known, and every reading must give exactly those, with the cache counted once, through the
producer's own convention and with no span left unmapped. The verdict tests are the false
PASSes this reading closes: a forbidden tool that was called must fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tracecheck import Kind, Span, Trace, check, compile_contract, read_traces
from tracecheck.reading import read_subject
from tracecheck.rules.subject import Subject

PRODUCERS = Path(__file__).resolve().parent.parent / "fixtures" / "producers"
LOOKUP = {"order_id": "A-1001"}
REFUND = {"order_id": "A-1001", "amount": 42.5, "idempotency_key": "refund-A-1001-01"}
OFFERED = {"lookup_order", "issue_refund", "run_shell"}

# The scripts every recording played: tool calls in order ("!" marks a call in error) and the
# total tokens of each model call as the fake server served them (cache counted once).
TOOLS = {
    "clean": ["lookup_order", "issue_refund"],
    "forbidden": ["lookup_order", "run_shell", "issue_refund"],
    "tool-error": ["lookup_order", "issue_refund!"],
    "cache": ["lookup_order"],
}
TOTALS = {
    "clean": [430, 530, 590],
    "forbidden": [430, 513, 588, 648],
    "tool-error": [430, 530, 608],
    "cache": [1630, 1716],  # OpenAI's script; Anthropic-served runs set their own
}
RUNS = tuple(TOTALS)


@dataclass(frozen=True)
class Recording:
    """One folder of recordings, and how its producer's run differs from the plain script."""

    folder: str
    conventions: frozenset[str]
    suffix: str = "otlp.jsonl"  # the file each run is read from (its twin must read the same)
    twin: str | None = "otlp.pb"
    extra_tools: tuple[str, ...] = ()  # the producer's own closing tool call
    first_call: int | None = None  # the total of a model call the producer's script adds first
    stops_at_tool_error: bool = False  # the failed tool ends the run: two model calls
    cache_totals: tuple[int, int] = (1630, 1716)  # the `cache` run's calls (the script's own)
    records_cache: bool = True  # whether the producer keeps the cached count at all
    offers_tools: bool = True
    records_tool_errors: bool = True  # whether a failed tool's span is in error
    runs: tuple[str, ...] = RUNS

    def path(self, run: str, suffix: str | None = None) -> Path:
        return PRODUCERS / self.folder / f"{run}.{suffix or self.suffix}"

    def tools(self, run: str) -> list[str]:
        calls = [*TOOLS[run], *self.extra_tools]
        return calls if self.records_tool_errors else [call.rstrip("!") for call in calls]

    def totals(self, run: str) -> list[int]:
        totals = TOTALS[run]
        if run == "cache":
            totals = list(self.cache_totals)
        elif run == "tool-error" and self.stops_at_tool_error:
            totals = totals[:2]
        return totals if self.first_call is None else [self.first_call, *totals]


OTEL = frozenset({"otel-genai"})
RECORDINGS = (
    Recording(
        "openllmetry-anthropic-0.4x",
        frozenset({"openllmetry", "otel-genai"}),
        cache_totals=(1630, 1396),
    ),
    Recording(
        "openllmetry-anthropic-current",
        frozenset({"openllmetry", "otel-genai"}),
        cache_totals=(1630, 1396),
    ),
    *(
        Recording(
            f"logfire-anthropic/logfire-{release}",
            frozenset({convention, "otel-genai"}),
            cache_totals=(1630, 1396),
        )
        for release, convention in (
            ("4.30.0", "logfire-llm-clients-before-4.31"),
            ("4.41.0", "logfire-llm-clients"),
            ("5.4.0", "logfire-llm-clients"),
        )
    ),
    Recording("traceloop-sdk", frozenset({"openllmetry", "traceloop-sdk"})),
    Recording("langgraph-openllmetry/v0.52", frozenset({"openllmetry-langchain"})),
    Recording("langgraph-openllmetry/v0.62", frozenset({"openllmetry-langchain"})),
    Recording(
        "agno-openinference", frozenset({"agno", "openinference"}), cache_totals=(1630, 1396)
    ),
    Recording("llama-index/openinference", frozenset({"llama-index"})),
    *(
        Recording(
            f"llama-index/{folder}",
            frozenset({"openllmetry-llamaindex", "openllmetry"}),
            records_tool_errors=False,  # the error is only inside the call's result
        )
        for folder in ("openllmetry", "openllmetry-0.50")
    ),
    Recording("langsmith-otel", frozenset({"langsmith"}), first_call=1381),
    # Inputs and outputs as the bytes of their JSON (OTLP bytesValue).
    Recording("langsmith-otel/langsmith-0.4", frozenset({"langsmith"}), first_call=1381),
    Recording("langfuse-v3", frozenset({"langfuse"}), first_call=1381),
    Recording("langfuse-v3/v4", frozenset({"langfuse"}), first_call=1381),
    Recording("mlflow/default", frozenset({"mlflow"})),
    Recording("mlflow/genai-semconv", frozenset({"mlflow"}), records_cache=False),
    Recording("mlflow/mlflow-2.22", frozenset({"mlflow"}), suffix="otlp.pb", twin=None),
    Recording("crewai/event-listener", frozenset({"openinference"})),
    Recording("google-adk/schema-v1", frozenset({"google-adk"}), stops_at_tool_error=True),
    Recording("google-adk/schema-v2", frozenset({"google-adk"}), stops_at_tool_error=True),
    Recording(
        "google-adk/adk-1.39",
        frozenset({"google-adk"}),
        suffix="otlp.pb",
        twin=None,
        stops_at_tool_error=True,  # its cached count is only inside the LLM response
    ),
    Recording(
        "google-adk/openinference-v1",
        frozenset({"google-adk", "openinference", "otel-genai"}),
        stops_at_tool_error=True,
    ),
    Recording(
        "beeai-openinference/tool-calling", frozenset({"beeai"}), extra_tools=("final_answer",)
    ),
    Recording(
        "beeai-openinference/requirement", frozenset({"beeai"}), extra_tools=("final_answer",)
    ),
    Recording("logfire-openai-agents", frozenset({"logfire-openai-agents"})),
    # Before 5.x, with openai-agents 0.2.11 (which keeps no cache count on Chat spans) and 0.24.0.
    Recording(
        "logfire-openai-agents/logfire-3.25.0",
        frozenset({"logfire-openai-agents"}),
        records_cache=False,
    ),
    Recording("logfire-openai-agents/logfire-4.41.0", frozenset({"logfire-openai-agents"})),
    *(
        Recording(
            f"logfire-openai/logfire-{release}", frozenset({"logfire-llm-clients", "otel-genai"})
        )
        for release in ("4.41.0", "5.4.0")
    ),
    *(
        Recording(
            f"logfire-pydantic-ai/{release}",
            frozenset({"pydantic-ai"}),
            suffix="otlp.pb",
            twin=None,
            stops_at_tool_error=True,  # the raised error ends the run
            records_cache=cache,  # cache counts from pydantic-ai 1.78 on
        )
        for release, cache in (
            ("0.8.1-v1", False),
            ("0.8.1-v2", False),
            ("1.0.18-v2", False),
            ("1.0.18-v3", False),
            ("1.107.10-v2", True),
            ("2.68.0-v2", True),
            ("2.68.0-v5", True),
        )
    ),
    # AI SDK 5's generateText records no cache counts (its streamText does: see below).
    # AI SDK 4 ends a run when a tool throws.
    Recording(
        "vercel-ai-v4", frozenset({"vercel-ai"}), suffix="otlp.json", stops_at_tool_error=True
    ),
    Recording("vercel-ai-v5", frozenset({"vercel-ai"}), suffix="otlp.json", records_cache=False),
    Recording("vercel-ai-v6", frozenset({"vercel-ai"}), suffix="otlp.json"),
    Recording("vercel-ai-v7", OTEL, suffix="otlp.json"),
    Recording("mastra/core-0.24.9", frozenset({"mastra"}), suffix="otlp.json", offers_tools=False),
    Recording("mastra/core-1.71.0", frozenset({"mastra"}), suffix="otlp.json"),
)
CASES = [
    pytest.param(recording, run, id=f"{recording.folder}-{run}")
    for recording in RECORDINGS
    for run in recording.runs
]


def only_trace(path: Path) -> Trace:
    (trace,) = read_traces(path)
    return trace


def by_start(trace: Trace, kind: Kind) -> list[Span]:
    spans = [span for span in trace.spans if span.kind == kind]
    return sorted(spans, key=lambda span: (span.start_ns or 0, span.span_id or ""))


def tool_calls(trace: Trace) -> list[str]:
    return [f"{s.tool_name}{'!' if s.is_error else ''}" for s in by_start(trace, Kind.TOOL)]


@pytest.mark.parametrize(("recording", "run"), CASES)
def test_every_span_is_read_by_the_producers_convention(recording: Recording, run: str) -> None:
    trace = only_trace(recording.path(run))
    assert {span.convention.name for span in trace.spans} <= recording.conventions
    assert read_subject(Subject(trace.spans)).notes == ()  # nothing unmapped, no total in dispute


@pytest.mark.parametrize(("recording", "run"), CASES)
def test_tool_calls_in_order_with_their_arguments(recording: Recording, run: str) -> None:
    trace = only_trace(recording.path(run))
    assert tool_calls(trace) == recording.tools(run)
    arguments = {s.tool_name: s.arguments for s in by_start(trace, Kind.TOOL)}
    assert arguments["lookup_order"].value == LOOKUP
    if "issue_refund" in arguments:
        assert arguments["issue_refund"].value == REFUND
    if "run_shell" in arguments:
        assert set(arguments["run_shell"].value) == {"command"}


@pytest.mark.parametrize(("recording", "run"), CASES)
def test_model_calls_count_every_token_once(recording: Recording, run: str) -> None:
    trace = only_trace(recording.path(run))
    calls = by_start(trace, Kind.LLM)
    assert [span.tokens.total for span in calls] == recording.totals(run)
    assert all(span.model for span in calls)
    for span in calls:  # the producer's own total, where it records one, agrees
        recorded = span.tokens.recorded_total
        assert recorded is None or recorded == span.tokens.counted_total


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda r: r.folder)
def test_the_cached_call_reports_its_cache(recording: Recording) -> None:
    trace = only_trace(recording.path("cache"))
    second = by_start(trace, Kind.LLM)[-1]
    assert second.tokens.cache_read == (
        (1200 if recording.cache_totals[1] == 1396 else 1536) if recording.records_cache else None
    )


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda r: r.folder)
def test_offered_tools(recording: Recording) -> None:
    trace = only_trace(recording.path("clean"))
    offered = {
        name for span in trace.spans if span.offered_tools for name in span.offered_tools.names
    }
    if recording.offers_tools:
        assert offered >= OFFERED
    else:
        assert offered == set()


@pytest.mark.parametrize("recording", [r for r in RECORDINGS if r.twin], ids=lambda r: r.folder)
@pytest.mark.parametrize("run", RUNS)
def test_both_exports_of_a_run_read_alike(recording: Recording, run: str) -> None:
    one = only_trace(recording.path(run))
    other = only_trace(recording.path(run, recording.twin))

    def facts(trace: Trace) -> list[tuple[object, ...]]:
        return sorted(
            (s.span_id, s.kind, s.tool_name, s.model, s.tokens, s.arguments, s.convention.name)
            for s in trace.spans
        )

    assert facts(one) == facts(other)


NO_SHELL = compile_contract(
    {
        "name": "no-shell",
        "tools": {"forbidden": ["run_shell"], "required": ["lookup_order"]},
        "llm": {"maxCalls": 6},
    }
)


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda r: r.folder)
def test_the_forbidden_tool_fails_and_the_clean_run_passes(recording: Recording) -> None:
    forbidden = check(only_trace(recording.path("forbidden")), NO_SHELL)
    assert [(r.label, r.status) for r in forbidden.rules] == [
        ("tools.required[lookup_order]", "pass"),
        ("tools.forbidden[run_shell]", "fail"),
        ("llm.maxCalls", "pass"),
    ]
    clean = check(only_trace(recording.path("clean")), NO_SHELL)
    assert clean.status == "pass", [(r.label, r.error, r.violations) for r in clean.rules]


# --- what each producer does its own way -----------------------------------------------------


def test_anthropic_counts_beside_the_input_in_ai_sdk_5_are_added_once() -> None:
    trace = only_trace(PRODUCERS / "vercel-ai-v5" / "stream-cache-anthropic.otlp.json")
    calls = by_start(trace, Kind.LLM)
    assert [(s.tokens.input, s.tokens.cache_read, s.tokens.cache_write) for s in calls] == [
        (76, 0, 1536),
        (153, 1536, 0),
    ]
    assert [s.tokens.total for s in calls] == [1630, 1716]
    # AI SDK 5's own total leaves the cache out: the note says so, the larger count is used.
    (first, second) = read_subject(Subject(trace.spans)).notes
    assert "records a total of 94 tokens, but its counts add up to 1630" in first
    assert "records a total of 180 tokens, but its counts add up to 1716" in second


@pytest.mark.parametrize("run", ["cache-anthropic", "stream-cache-anthropic"])
def test_anthropic_counts_beside_the_input_in_ai_sdk_4_are_added_once(run: str) -> None:
    trace = only_trace(PRODUCERS / "vercel-ai-v4" / f"{run}.otlp.json")
    calls = by_start(trace, Kind.LLM)
    assert [(s.tokens.input, s.tokens.cache_read, s.tokens.cache_write) for s in calls] == [
        (76, 0, 1536),
        (153, 1536, 0),
    ]
    assert [s.tokens.total for s in calls] == [1630, 1716]
    assert read_subject(Subject(trace.spans)).notes == ()


def test_ai_sdk_roots_and_embeddings_are_no_model_calls() -> None:
    embed = only_trace(PRODUCERS / "vercel-ai-v6" / "embed.otlp.json")
    assert sorted(s.kind.value for s in embed.spans) == ["CHAIN", "EMBEDDING"]
    run = only_trace(PRODUCERS / "vercel-ai-v6" / "clean.otlp.json")
    (root,) = run.roots
    assert root.kind == Kind.AGENT and root.name == "ai.generateText"


def test_adk_parallel_calls_count_once_and_the_merged_span_is_no_tool() -> None:
    contract = compile_contract(
        {
            "name": "parallel",
            "tools": {"allowed": ["lookup_order", "issue_refund"], "maxCalls": 3},
            "llm": {"maxCalls": 3},
        }
    )
    for schema in ("schema-v1", "schema-v2"):
        trace = only_trace(PRODUCERS / "google-adk" / schema / "parallel.otlp.jsonl")
        merged = [s for s in trace.spans if s.name == "execute_tool (merged)"]
        assert merged and all(s.kind == Kind.UNKNOWN and s.tool_name is None for s in merged)
        verdict = check(trace, contract)
        assert [(r.label, r.status) for r in verdict.rules] == [
            ("tools.allowed", "fail"),  # run_shell, and nothing else
            ("tools.maxCalls", "pass"),
            ("llm.maxCalls", "pass"),
        ]
        (violation,) = verdict.rules[0].violations
        assert "run_shell" in trace_span(trace, violation.span_id).tool_name


def trace_span(trace: Trace, span_id: str | None) -> Span:
    (span,) = [s for s in trace.spans if s.span_id == span_id]
    return span


def test_langsmith_prompt_and_retriever_runs_are_no_model_calls() -> None:
    trace = only_trace(PRODUCERS / "langsmith-otel" / "clean.otlp.jsonl")
    kinds = {s.name: s.kind for s in trace.spans}
    assert kinds["build_prompt"] == Kind.PROMPT
    assert kinds["search_policies"] == Kind.RETRIEVER
    assert kinds["refund-desk"] == Kind.CHAIN


def test_a_streamed_mastra_0x_call_has_no_counts_and_a_budget_cannot_pass() -> None:
    trace = only_trace(PRODUCERS / "mastra" / "core-0.24.9" / "stream.otlp.json")
    calls = by_start(trace, Kind.LLM)
    assert len(calls) == 3 and all(s.tokens.total is None for s in calls)
    budget = compile_contract({"name": "budget", "llm": {"maxTotalTokens": 100000}})
    assert check(trace, budget).status == "fail"


def test_openllmetrys_crewai_records_no_tool_call_and_tool_rules_are_never_passed() -> None:
    folder = PRODUCERS / "crewai" / "openllmetry"
    forbidden = check(only_trace(folder / "forbidden.otlp.jsonl"), NO_SHELL)
    assert [(r.label, r.status) for r in forbidden.rules] == [
        ("tools.required[lookup_order]", "fail"),
        ("tools.forbidden[run_shell]", "error"),  # it passed before: the tools were offered
        ("llm.maxCalls", "pass"),
    ]
    (note,) = forbidden.reading_notes
    assert note.startswith("model calls asked for lookup_order, run_shell, issue_refund but")
    calls = by_start(only_trace(folder / "cache.otlp.jsonl"), Kind.LLM)
    assert [(s.tokens.total, s.tokens.cache_read) for s in calls] == [(1630, 0), (1716, 1536)]


def test_openinference_on_adk_schema_2_leaves_no_model_call_and_no_budget_passes_strictly() -> None:
    # OpenInference's ADK instrumentation writes each model call over the agent's span: the
    # span ends with the last call's counts (648 of the run's 2179 tokens).
    trace = only_trace(PRODUCERS / "google-adk" / "openinference" / "forbidden.otlp.jsonl")
    (agent,) = [s for s in trace.spans if s.name == "invoke_agent refund_desk"]
    assert agent.kind == Kind.AGENT and agent.tokens.total == 648
    assert by_start(trace, Kind.LLM) == []
    assert tool_calls(trace) == TOOLS["forbidden"]
    budget = compile_contract({"name": "budget", "llm": {"maxTotalTokens": 2000, "maxCalls": 6}})
    verdict = check(trace, budget)
    assert [r.status for r in verdict.rules] == ["error", "error"]
    assert verdict.reading_notes == (
        "3 tool calls are recorded but no model call: the producer may not record them, so "
        "rules about models see none",
    )


@pytest.mark.parametrize("capture", ["content", "no-content"])
@pytest.mark.parametrize("run", RUNS)
def test_google_genai_automatic_function_calling_is_one_span_and_no_model_rule_passes(
    capture: str, run: str
) -> None:
    # The instrumentation wraps the SDK's public call: the loop of model calls and the tools
    # run in between are one `generate_content` span holding the last call's counts.
    trace = only_trace(PRODUCERS / "google-genai" / capture / f"{run}.otlp.jsonl")
    assert tool_calls(trace) == TOOLS[run]
    (call,) = by_start(trace, Kind.LLM)
    assert call.tokens.total == TOTALS[run][-1]
    verdict = check(trace, NO_SHELL)
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.required[lookup_order]", "pass"),
        ("tools.forbidden[run_shell]", "fail" if run == "forbidden" else "pass"),
        ("llm.maxCalls", "error"),  # it passed before: one call seen of several
    ]
    (note,) = verdict.reading_notes
    assert note.startswith("1 model call span runs tool calls that its recorded output did not")


def test_openinference_around_autogens_own_spans_is_one_call_per_tool_call() -> None:
    path = PRODUCERS / "autogen" / "openinference-team" / "forbidden.otlp.jsonl"
    (run,) = [trace for trace in read_traces(path) if len(trace.spans) > 1]
    calls = by_start(run, Kind.TOOL)
    # OpenInference's `refund_desk.<tool>` (with the arguments) around AutoGen's own
    # `execute_tool <tool>` (without): one call, two spans.
    assert [s.tool_name for s in calls] == [name for name in TOOLS["forbidden"] for _ in "ab"]
    once = compile_contract(
        {
            "name": "once",
            "tools": {
                "maxCallsPerTool": {name: 1 for name in TOOLS["forbidden"]},
                "arguments": [
                    {"tool": "issue_refund", "pointer": "/idempotency_key", "exists": True}
                ],
            },
            "llm": {"maxCalls": len(TOTALS["forbidden"])},
        }
    )
    verdict = check(run, once)
    assert [r.status for r in verdict.rules] == ["pass"] * len(verdict.rules)
    (note,) = verdict.reading_notes
    assert note.startswith(
        "3 calls are recorded by more than one instrumentation and counted once: "
        '8e22513ecc0d45fd ("refund_desk.lookup_order") with 24c2d4354cd1f7c0 '
        '("execute_tool lookup_order") (nested)'
    )
    assert [(r.label, r.status) for r in check(run, NO_SHELL).rules][1] == (
        "tools.forbidden[run_shell]",
        "fail",
    )


@pytest.mark.parametrize("run", ["clean", "tool-error", "cache"])
def test_strands_1_40_counts_an_openai_cache_once_under_its_underscore_names(run: str) -> None:
    trace = only_trace(PRODUCERS / "strands" / "v1.40" / f"{run}.otlp.jsonl")
    calls = by_start(trace, Kind.LLM)
    assert [s.tokens.total for s in calls] == (
        [1630, 1716] if run == "cache" else [430, 530, 608 if run == "tool-error" else 590]
    )
    assert [s.tokens.recorded_total for s in calls] == [s.tokens.total for s in calls]
    assert read_subject(Subject(trace.spans)).notes == ()  # it was 3252 against the own 1716
    assert tool_calls(trace) == TOOLS[run]
    # 1.40 writes a tool's arguments only into span events.
    assert all(not s.arguments.known for s in by_start(trace, Kind.TOOL))


@pytest.mark.parametrize(
    ("model", "beside"),
    [
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", True),  # Bedrock's counts
        ("amazon.nova-pro-v1:0", True),
        ("claude-sonnet-4-5", True),  # Anthropic's API
        ("gpt-4.1-mini", False),  # OpenAI's input holds the cache
        ("gemini-2.5-flash", False),
    ],
)
def test_strands_counts_the_cache_beside_the_input_for_anthropic_and_bedrock_models(
    model: str, beside: bool
) -> None:
    from tracecheck.spans import Scope

    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": model,
        "gen_ai.usage.input_tokens": 76,
        "gen_ai.usage.output_tokens": 18,
        "gen_ai.usage.cache_write_input_tokens": 10,
        "gen_ai.usage.cache_creation.input_tokens": 10,
    }
    chat = Span(
        "a" * 32,
        "1" * 16,
        None,
        "chat",
        attributes=attributes,
        scope=Scope("strands.telemetry.tracer"),
    )
    assert chat.convention.name == "strands"
    assert chat.tokens.total == (104 if beside else 94)


@pytest.mark.parametrize("release", ["4.30.0", "5.4.0"])
def test_a_logfire_streamed_call_is_its_response_log_and_counts_once(release: str) -> None:
    trace = only_trace(
        PRODUCERS / "logfire-anthropic" / f"logfire-{release}" / "cache-stream.otlp.jsonl"
    )
    calls = by_start(trace, Kind.LLM)
    assert [s.name.startswith("streaming response from") for s in calls] == [True, True]
    # 5.4 puts the usage on the log; 4.30 records none for a stream.
    expected = [1630, 1396] if release == "5.4.0" else [None, None]
    assert [s.tokens.total for s in calls] == expected


def test_bedrock_under_openinference_counts_the_cache_beside_bedrocks_input() -> None:
    # Hand-made from openinference-instrumentation-bedrock 0.1.45's source
    # (`_converse_attributes.py`): prompt = Converse `usage.inputTokens`, which leaves the cache
    # out; cacheRead/WriteInputTokens as `prompt_details`; total = `usage.totalTokens`.
    from tracecheck.spans import Scope

    attributes = {
        "openinference.span.kind": "LLM",
        "llm.model_name": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "llm.token_count.prompt": 100,
        "llm.token_count.completion": 27,
        "llm.token_count.prompt_details.cache_read": 1200,
        "llm.token_count.prompt_details.cache_write": 69,
        "llm.token_count.total": 1396,
    }
    scope = Scope("openinference.instrumentation.bedrock", "0.1.45")
    call = Span("a" * 32, "1" * 16, None, "bedrock.converse", attributes=attributes, scope=scope)
    assert call.convention.name == "openinference-bedrock"
    assert call.tokens.total == call.tokens.recorded_total == 1396  # the common reading: 1327


def test_logfire_templates_are_never_tool_names() -> None:
    trace = only_trace(PRODUCERS / "logfire-openai-agents" / "handoff.otlp.jsonl")
    kinds = {s.name: s.kind for s in trace.spans}
    assert kinds["Function: {name}"] == Kind.TOOL
    assert kinds["Agent run: {name!r}"] == Kind.AGENT
    assert kinds["Guardrail {name!r} {triggered=}"] == Kind.GUARDRAIL
    assert kinds["Handoff: {from_agent} → {to_agent}"] == Kind.CHAIN
    assert all("{" not in (s.tool_name or "") for s in trace.spans)


def test_tool_calls_with_no_model_call_recorded_leave_model_rules_unjudged() -> None:
    """CrewAI's default wrappers and AutoGen record the tools their agent called but none of
    its model calls: a model budget must not pass on that."""
    budget = compile_contract(
        {"name": "budget", "tools": {"forbidden": ["run_shell"]}, "llm": {"maxCalls": 1}}
    )
    for folder in ("crewai/wrappers", "autogen/assistant"):
        traces = read_traces(PRODUCERS / folder / "forbidden.otlp.jsonl")
        (trace,) = [t for t in traces if by_start(t, Kind.TOOL)]
        assert tool_calls(trace) == TOOLS["forbidden"]
        assert not by_start(trace, Kind.LLM)
        verdict = check(trace, budget)
        assert [(r.label, r.status) for r in verdict.rules] == [
            ("tools.forbidden[run_shell]", "fail"),
            ("llm.maxCalls", "error"),
        ]
        assert "no model call" in verdict.reading_notes[-1]


def test_logfire_claude_agent_sdk_snapshots_leave_each_calls_output_unknown_and_the_run_counts() -> (
    None
):
    # The MCP server's own spans of the calls are traces of their own (no context crossed).
    (trace,) = [
        t
        for t in read_traces(PRODUCERS / "logfire-claude-agent-sdk" / "forbidden.otlp.jsonl")
        if len(t.spans) > 1
    ]
    assert {span.convention.name for span in trace.spans} == {"logfire-claude-agent-sdk"}
    assert tool_calls(trace) == [f"mcp__refund__{name}" for name in TOOLS["forbidden"]]
    calls = by_start(trace, Kind.LLM)
    assert [(s.tokens.input, s.tokens.output, s.tokens.total) for s in calls] == [
        (412, None, None),
        (489, None, None),
        (547, None, None),
        (619, None, None),
    ]
    # The calls' budget is judged on the run's totals on the `invoke_agent` span.
    (root,) = trace.roots
    total = root.tokens.total
    assert total is not None and root.tokens.input == sum(s.tokens.input or 0 for s in calls)
    budget = compile_contract({"name": "budget", "llm": {"maxTotalTokens": total}})
    assert check(trace, budget).status == "pass"
    tight = compile_contract({"name": "budget", "llm": {"maxTotalTokens": total - 1}})
    assert check(trace, tight).status == "fail"


def test_a_langfuse_span_before_3_5_may_be_a_tool_call_and_is_never_passed_over() -> None:
    """Langfuse before 3.5 records tool calls as observations of type `span`, like any step."""
    from tracecheck.spans import Scope

    old = Scope("langfuse-sdk", "3.3.0")
    spans = (
        Span(
            "a" * 32,
            "1" * 16,
            name="run",
            scope=old,
            attributes={"langfuse.observation.type": "span", "langfuse.observation.input": "{}"},
        ),
        Span(
            "a" * 32,
            "2" * 16,
            "1" * 16,
            name="run_shell",
            scope=old,
            attributes={
                "langfuse.observation.type": "span",
                "langfuse.observation.input": '{"command": "ls"}',
            },
        ),
        Span(
            "a" * 32,
            "3" * 16,
            "1" * 16,
            name="chat",
            scope=old,
            attributes={
                "langfuse.observation.type": "generation",
                "langfuse.observation.model.name": "gpt",
            },
        ),
    )
    assert [s.convention.name for s in spans] == ["langfuse-before-3.5"] * 3
    assert [s.kind for s in spans] == [Kind.UNKNOWN, Kind.UNKNOWN, Kind.LLM]
    verdict = check(Trace("a" * 32, spans), NO_SHELL)
    assert {r.label: r.status for r in verdict.rules}["tools.forbidden[run_shell]"] == "error"
    assert "2 spans look like a tool or model call" in verdict.reading_notes[0]
