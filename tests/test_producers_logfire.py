"""Logfire's instrumentations read true across releases (fixtures/producers/logfire-*/).

The refund-desk script's tool calls and per-call token counts are known (see
tests/test_producers.py, which reads every plain run of these folders too); these tests hold
what differs between Logfire releases: where the cache count is kept, how a streamed call is
recorded, and what the OpenAI Agents SDK's template-named spans say without their scope.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tracecheck import Kind, Span, Trace, check, compile_contract, read_traces
from tracecheck.reading import read_subject
from tracecheck.rules.subject import Subject

PRODUCERS = Path(__file__).resolve().parent.parent / "fixtures" / "producers"
AGENTS = PRODUCERS / "logfire-openai-agents"
AGENTS_RELEASES = {"5.4.0": AGENTS, "4.41.0": AGENTS / "logfire-4.41.0"}
AGENTS_RELEASES["3.25.0"] = AGENTS / "logfire-3.25.0"
OPENAI = PRODUCERS / "logfire-openai"
NO_SHELL = compile_contract(
    {"name": "no-shell", "tools": {"forbidden": ["run_shell"], "required": ["lookup_order"]}}
)
REFUND = {"order_id": "A-1001", "amount": 42.5, "idempotency_key": "refund-A-1001-01"}


def only_trace(path: Path) -> Trace:
    (trace,) = read_traces(path)
    return trace


def by_start(trace: Trace, kind: Kind) -> list[Span]:
    spans = [span for span in trace.spans if span.kind == kind]
    return sorted(spans, key=lambda span: (span.start_ns or 0, span.span_id or ""))


def without_scope(trace: Trace) -> Trace:
    """The same spans as a pipeline that drops instrumentation scopes would deliver them."""
    return Trace(trace.trace_id, tuple(span.replace(scope=None) for span in trace.spans))


# --- the OpenAI Agents SDK (instrument_openai_agents) ---------------------------------------


@pytest.mark.parametrize("release", sorted(AGENTS_RELEASES))
def test_every_release_names_its_scope_alike_and_a_forbidden_call_fails(release: str) -> None:
    trace = only_trace(AGENTS_RELEASES[release] / "forbidden.otlp.jsonl")
    assert {(s.scope.name, s.scope.version) for s in trace.spans if s.scope} == {
        ("logfire.openai_agents", release)
    }
    tools = by_start(trace, Kind.TOOL)
    assert [(s.name, s.tool_name) for s in tools] == [
        ("Function: {name}", "lookup_order"),
        ("Function: {name}", "run_shell"),
        ("Function: {name}", "issue_refund"),
    ]
    assert tools[-1].arguments.value == REFUND
    verdict = check(trace, NO_SHELL)
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.required[lookup_order]", "pass"),
        ("tools.forbidden[run_shell]", "fail"),
    ]


@pytest.mark.parametrize("release", sorted(AGENTS_RELEASES))
@pytest.mark.parametrize("run", ["clean", "forbidden", "tool-error", "handoff"])
def test_spans_that_lost_their_scope_read_as_with_it(release: str, run: str) -> None:
    scoped = only_trace(AGENTS_RELEASES[release] / f"{run}.otlp.jsonl")
    bare = without_scope(scoped)

    def facts(trace: Trace) -> list[tuple[object, ...]]:
        return sorted(
            (s.span_id, s.kind, s.tool_name, s.model, s.tokens, s.arguments) for s in trace.spans
        )

    assert facts(bare) == facts(scoped)
    assert {s.convention.name for s in bare.spans} == {
        "logfire-openai-agents-unscoped",
        "logfire-openai-agents-unscoped-tools",  # the `Function: {name}` spans
    }
    assert read_subject(Subject(bare.spans)).notes == ()
    if run == "forbidden":
        assert {r.label: r.status for r in check(bare, NO_SHELL).rules}[
            "tools.forbidden[run_shell]"
        ] == "fail"


def test_an_unscoped_logfire_span_of_another_kind_keeps_the_common_reading() -> None:
    # A user's own `logfire.span("Function: {fn}", fn=...)` is not the Agents SDK's template,
    # though Logfire renders it `Function: x` as it renders the SDK's.
    attributes = {
        "logfire.msg_template": "Function: {fn}",
        "logfire.msg": "Function: x",
        "fn": "x",
        "name": "x",
    }
    span = Span("a" * 32, "1" * 16, None, "Function: {fn}", attributes=attributes)
    assert span.convention.name == "logfire-openai-agents-unscoped"
    assert span.kind == Kind.TOOL and span.tool_name is None  # a template names no tool
    assert span.replace(name="Function: {name}").tool_name is None  # nor another template's
    # The SDK's template names its tool by `name` only where the rendered message agrees.
    template = {"logfire.msg_template": "Function: {name}", "name": "x"}
    named = span.replace(
        name="Function: {name}", attributes={**template, "logfire.msg": "Function: x"}
    )
    assert named.tool_name == "x"
    for message in ("Function: y", "Function: x y", None):
        disagrees = named.replace(attributes={**template, "logfire.msg": message})
        assert (disagrees.kind, disagrees.tool_name) == (Kind.TOOL, None)


def test_before_5_a_responses_call_keeps_its_cache_only_in_the_recorded_response() -> None:
    for release in ("3.25.0", "4.41.0"):
        trace = only_trace(AGENTS_RELEASES[release] / "cache-responses.otlp.jsonl")
        second = by_start(trace, Kind.LLM)[-1]
        assert "gen_ai.usage.cache_read.input_tokens" not in second.attributes
        assert (second.tokens.input, second.tokens.cache_read, second.tokens.total) == (
            1689,
            1536,
            1716,
        )
    # openai-agents 0.2 records no cache count on a Chat Completions call: unknown, not zero.
    chat = by_start(only_trace(AGENTS_RELEASES["3.25.0"] / "cache.otlp.jsonl"), Kind.LLM)
    assert [s.tokens.cache_read for s in chat] == [None, None]


# --- the OpenAI and Anthropic clients (instrument_openai, instrument_anthropic) -------------


@pytest.mark.parametrize("release", ["4.41.0", "5.4.0"])
@pytest.mark.parametrize(
    "run", ["cache", "cache-responses", "cache-stream", "cache-stream-responses"]
)
@pytest.mark.parametrize("suffix", ["otlp.jsonl", "otlp.pb"])
def test_an_openai_call_counts_once_with_its_cache(release: str, run: str, suffix: str) -> None:
    trace = only_trace(OPENAI / f"logfire-{release}" / f"{run}.{suffix}")
    calls = by_start(trace, Kind.LLM)
    assert [(s.tokens.total, s.tokens.cache_read) for s in calls] == [(1630, 0), (1716, 1536)]
    assert all(s.tokens.recorded_total == s.tokens.total for s in calls)
    streamed = run.startswith("cache-stream")
    assert all(s.name.startswith("streaming response from ") == streamed for s in calls)
    if streamed:  # the request spans (Chat Completion …, Responses API …) are their steps
        requests = [s for s in trace.spans if " with {" in s.name]
        assert len(requests) == 2 and {s.kind for s in requests} == {Kind.CHAIN}
    assert read_subject(Subject(trace.spans)).notes == ()
    budget = compile_contract({"name": "budget", "llm": {"maxCalls": 2, "maxTotalTokens": 3346}})
    assert check(trace, budget).status == "pass"
    over = compile_contract({"name": "over", "llm": {"maxCalls": 1, "maxTotalTokens": 3345}})
    assert [r.status for r in check(trace, over).rules] == ["fail", "fail"]


def test_from_4_31_to_5_an_openai_cache_count_is_only_in_the_raw_usage() -> None:
    for run, details in (
        ("cache", "prompt_tokens_details"),
        ("cache-responses", "input_tokens_details"),
    ):
        second = by_start(only_trace(OPENAI / "logfire-4.41.0" / f"{run}.otlp.jsonl"), Kind.LLM)[-1]
        assert "gen_ai.usage.cache_read.input_tokens" not in second.attributes
        assert f'"{details}":{{' in second.attributes["gen_ai.usage.raw"]
        assert second.tokens.cache_read == 1536


@pytest.mark.parametrize("run", ["cache", "cache-stream"])
def test_from_4_33_anthropics_raw_usage_gives_the_cache_inside_logfires_input(run: str) -> None:
    trace = only_trace(PRODUCERS / "logfire-anthropic" / "logfire-4.41.0" / f"{run}.otlp.jsonl")
    calls = by_start(trace, Kind.LLM)
    # Anthropic's own input in the raw usage (343, 100) leaves the cache out; Logfire's
    # `gen_ai.usage.input_tokens` (1612, 1369) holds it, so the cache is not added again.
    assert [(s.tokens.input, s.tokens.cache_read, s.tokens.cache_write) for s in calls] == [
        (1612, 0, 1269),
        (1369, 1200, 69),
    ]
    assert [s.tokens.total for s in calls] == [1630, 1396]
    assert all("gen_ai.usage.cache_read.input_tokens" not in s.attributes for s in calls)


# --- the Claude Agent SDK (instrument_claude_agent_sdk) -------------------------------------


@pytest.mark.parametrize(
    ("run", "calls"),
    [
        ("clean", [430, 530, 590]),
        ("forbidden", [430, 513, 588, 648]),
        ("tool-error", [430, 530, 608]),
    ],
)
def test_claude_agent_sdk_budgets_are_judged_on_the_runs_totals_not_the_snapshots(
    run: str, calls: list[int]
) -> None:
    (trace,) = [
        t
        for t in read_traces(PRODUCERS / "logfire-claude-agent-sdk" / f"{run}.otlp.jsonl")
        if len(t.spans) > 1
    ]
    chats = by_start(trace, Kind.LLM)
    # Each chat span holds the start-of-message snapshot: its output (1) is not the call's.
    assert [s.attributes["gen_ai.usage.partial.output_tokens"] for s in chats] == [1] * len(calls)
    assert [s.tokens.output for s in chats] == [None] * len(calls)
    assert [s.tokens.total for s in chats] == [None] * len(calls)
    # The run's true totals are on the `invoke_agent` root, from the CLI's result message.
    (root,) = trace.roots
    assert root.kind == Kind.AGENT and root.tokens.total == sum(calls)
    assert root.tokens.input == sum(s.tokens.input for s in chats)
    # A ceiling over model calls is judged on the run's totals, which stand for the calls'.
    exact = compile_contract({"name": "budget", "llm": {"maxTotalTokens": sum(calls)}})
    assert check(trace, exact).status == "pass"
    under = compile_contract({"name": "budget", "llm": {"maxTotalTokens": sum(calls) - 1}})
    (rule,) = check(trace, under).rules
    (violation,) = rule.violations
    assert violation.detail == (
        f"{sum(calls)} tokens across {len(calls)} span(s) matching kind=LLM ({len(calls)} of them "
        f"counted in the run totals recorded on span {root.span_id}), over the limit of "
        f"{sum(calls) - 1}"
    )
    # A run total that is less than its calls' own inputs is no total of theirs.
    short = Trace(
        trace.trace_id,
        [
            s.replace(attributes={**s.attributes, "gen_ai.usage.input_tokens": 1})
            if s is root
            else s
            for s in trace.spans
        ],
    )
    (rule,) = check(short, exact).rules
    assert rule.status == "fail"
    assert "has no recorded input and output token counts" in rule.violations[0].detail
