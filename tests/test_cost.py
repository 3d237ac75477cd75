"""llm.maxCostUsd on recorded runs: each call priced by its cache-aware token counts, checked
against the costs the producers computed themselves where they record one (Claude Code's
`total_cost_usd`, Logfire's and pydantic-ai's `operation.cost`, LiteLLM's `llm.cost.total`),
and by hand where they do not; runs whose tokens or models cannot be priced are could not be
evaluated."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

import tracecheck
from tracecheck.contract import load_prices
from tracecheck.readers.duplicates import merge_duplicate_calls
from tracecheck.rules.cost import run_cost
from tracecheck.rules.pricing import call_cost, token_counts
from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind, Span, Trace

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PRODUCERS = FIXTURES / "producers"

# The providers' list prices (USD per million tokens) the producers priced these runs by.
PRICES = load_prices(
    {
        "gpt-4.1-mini*": {"input": 0.40, "output": 1.60, "cacheRead": 0.10},
        "claude-sonnet-4-5*": {"input": 3, "output": 15, "cacheRead": 0.30, "cacheWrite": 3.75},
        "claude-haiku-4-5*": {"input": 1, "output": 5, "cacheRead": 0.10, "cacheWrite": 1.25},
    }
)
TWELVE_PLACES = Decimal("1e-12")


def spans_of(trace: Trace) -> tuple[Span, ...]:
    """The spans as `check` reads them: one call recorded twice is one call."""
    return merge_duplicate_calls(tuple(trace.spans)).spans


def the_run(path: Path) -> Trace:
    """The trace of the run in a recording (the others hold one MCP message each)."""
    return max(tracecheck.read_traces(path), key=len)


def cost_of(trace: Trace) -> Decimal:
    cost = run_cost(Subject(spans_of(trace)), PRICES)
    assert cost.unpriced == ()
    return cost.total


def recorded(value: float) -> Decimal:
    """A cost a producer recorded as a float, to the places a float holds it."""
    return Decimal(repr(value)).quantize(TWELVE_PLACES)


# --- against the producers' own costs ---------------------------------------------------------

# Claude Code 2.0.77 and 2.1.30 ran Sonnet 4.5 (and 2.0.77 a Haiku side call); 2.1.332's
# recordings name a model with no public price.
CLAUDE_STREAMS = sorted(
    path
    for version in ("2.0.77", "2.1.30")
    for path in (FIXTURES / "claude" / "recorded" / version).glob("*.stream.jsonl")
)


@pytest.mark.parametrize("path", CLAUDE_STREAMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_claude_code_run_costs_what_the_cli_reported(path: Path) -> None:
    """Anthropic counts, the cache beside input: the CLI's `total_cost_usd` (list prices,
    its own side calls to Haiku included) is the sum of every call's tokens at their prices."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    (reported,) = {r["total_cost_usd"] for r in records if r.get("type") == "result"}
    assert cost_of(the_run(path)).quantize(TWELVE_PLACES) == recorded(reported)


LOGFIRE_SDK = sorted((PRODUCERS / "logfire-claude-agent-sdk").glob("*.otlp.jsonl"))


@pytest.mark.parametrize("path", LOGFIRE_SDK, ids=lambda p: p.name)
def test_run_totals_stand_for_calls_with_no_output_count(path: Path) -> None:
    """Logfire's Claude Agent SDK spans: each chat span's output is a snapshot (unknown), the
    run's true totals are on `invoke_agent`, the cache included in input; priced once, they
    cost what the CLI reported there (`operation.cost`)."""
    trace = the_run(path)
    spans = spans_of(trace)
    (root,) = [span for span in spans if "operation.cost" in span.attributes]
    cost = run_cost(Subject(spans), PRICES)
    (bill,) = cost.bills
    assert bill.span is root and bill.totals
    assert bill.calls == sum(span.kind is Kind.LLM for span in spans)
    assert cost.total.quantize(TWELVE_PLACES) == recorded(root.attributes["operation.cost"])


PER_CALL_COSTS = [
    ("frameworks/pydantic-ai/cache.otlp.jsonl", "operation.cost"),
    ("frameworks/pydantic-ai/clean.otlp.jsonl", "operation.cost"),
    ("producers/logfire-pydantic-ai/2.68.0-v5/cache.otlp.jsonl", "operation.cost"),
    ("producers/pydantic-ai-mcp/cache.otlp.jsonl", "operation.cost"),
    ("producers/pydantic-ai-mcp/clean.otlp.jsonl", "operation.cost"),
    ("producers/beeai-openinference/requirement/cache.otlp.jsonl", "llm.cost.total"),
    ("producers/beeai-openinference/tool-calling/cache.otlp.jsonl", "llm.cost.total"),
]


@pytest.mark.parametrize(("name", "key"), PER_CALL_COSTS, ids=[n for n, _ in PER_CALL_COSTS])
def test_each_call_costs_what_its_producer_recorded(name: str, key: str) -> None:
    """pydantic-ai's (genai-prices) and LiteLLM's per-call costs, the cache inside input:
    OpenAI's cached reads and Anthropic's cache reads and writes taken out of the input."""
    trace = the_run(FIXTURES / name)
    priced = [span for span in spans_of(trace) if span.kind is Kind.LLM and key in span.attributes]
    assert priced
    for span in priced:
        model = span.model
        assert model is not None
        price = PRICES.price_of(model)
        assert price is not None
        ours = call_cost(token_counts(span.tokens), price)
        assert ours.quantize(TWELVE_PLACES) == recorded(span.attributes[key]), span.name


# --- the same call, recorded by many producers ------------------------------------------------

OPENAI_CACHED = [
    "frameworks/langgraph-openinference/cache.otlp.jsonl",
    "frameworks/openai-traceloop/cache.otlp.jsonl",
    "frameworks/strands/cache.otlp.jsonl",
    "openinference/cache-responses.otlp.jsonl",
    "langfuse-export/cache.trace.json",
    "producers/crewai/openllmetry/cache.otlp.jsonl",
    "producers/langgraph-openllmetry/v0.62/cache.otlp.jsonl",
    "producers/langsmith-otel/cache.otlp.jsonl",
    "producers/llama-index/openinference/cache.otlp.jsonl",
    "producers/logfire-openai/logfire-5.4.0/cache-stream-responses.otlp.jsonl",
    "producers/logfire-openai-agents/cache-responses.otlp.jsonl",
    "producers/mlflow/default/cache.otlp.jsonl",
    "producers/traceloop-sdk/cache.otlp.jsonl",
    "producers/vercel-ai-v6/cache.otlp.json",
    "producers/vercel-ai-v7/cache.otlp.json",
]


@pytest.mark.parametrize("name", OPENAI_CACHED)
def test_an_openai_call_with_cached_input_costs_the_same_whoever_recorded_it(name: str) -> None:
    """The served call: 1689 prompt tokens of which 1536 cached, 27 out. 153 × $0.40 +
    1536 × $0.10 + 27 × $1.60 per million = $0.000258 (pydantic-ai's genai-prices agrees)."""
    calls = [s for s in spans_of(the_run(FIXTURES / name)) if s.kind is Kind.LLM]
    cached = [s for s in calls if s.tokens.cache_read == 1536]
    assert cached, name
    for span in cached:
        counts = token_counts(span.tokens)
        assert tuple(counts) == (153, 1536, 0, 27)
        price = PRICES.price_of(span.model or "")
        assert price is not None
        assert call_cost(counts, price) == Decimal("0.000258")


ANTHROPIC_CACHED = [
    # The cache beside input (Anthropic's own counts) ...
    "producers/agent-framework-anthropic/cache.otlp.jsonl",
    "producers/agno-openinference/cache.otlp.jsonl",
    "producers/logfire-anthropic/logfire-4.30.0/cache.otlp.jsonl",
    # ... and inside it (the OpenTelemetry GenAI definition).
    "producers/logfire-anthropic/logfire-5.4.0/cache.otlp.jsonl",
    "producers/openinference-anthropic-sdk-otel/cache.otlp.jsonl",
    "producers/openllmetry-anthropic-current/cache.otlp.jsonl",
    "producers/pydantic-ai-mcp/cache.otlp.jsonl",
]


@pytest.mark.parametrize("name", ANTHROPIC_CACHED)
def test_an_anthropic_call_costs_the_same_with_the_cache_beside_or_inside_input(
    name: str,
) -> None:
    """The served call: 100 uncached input tokens, 1200 read from the cache, 69 written to
    it, 27 out. At Sonnet 4.5's prices: 300 + 360 + 258.75 + 405 per million = $0.00132375
    (pydantic-ai's `operation.cost` for the same call)."""
    calls = [s for s in spans_of(the_run(PRODUCERS.parent / name)) if s.kind is Kind.LLM]
    cached = [s for s in calls if s.tokens.cache_read == 1200 and s.tokens.output == 27]
    assert cached, name
    for span in cached:
        counts = token_counts(span.tokens)
        assert tuple(counts) == (100, 1200, 69, 27)
        price = PRICES.price_of(span.model or "")
        assert price is not None
        assert call_cost(counts, price) == Decimal("0.00132375")


def test_cache_writes_count_though_langfuse_left_them_out() -> None:
    """Langfuse v3 records the Haiku call's cost without its 69 cache-written tokens (its
    `cost_details` has input, output and cache reads only); priced from the counts, the call
    costs 100 × $1 + 1200 × $0.10 + 69 × $1.25 + 12 × $5 per million."""
    trace = the_run(PRODUCERS / "langfuse-v3" / "cache.otlp.jsonl")
    (haiku,) = [s for s in spans_of(trace) if (s.model or "").startswith("claude-haiku")]
    price = PRICES.price_of(haiku.model or "")
    assert price is not None
    ours = call_cost(token_counts(haiku.tokens), price)
    assert ours == Decimal("0.00036625")
    theirs = json.loads(haiku.attributes["langfuse.observation.cost_details"])
    assert sum(map(Decimal, map(repr, theirs.values()))) == ours - 69 * Decimal("1.25") / 10**6


# --- verdicts on recorded runs ----------------------------------------------------------------


def verdict(path: Path, limit: float) -> tracecheck.RuleResult:
    contract = tracecheck.compile_contract({"name": "cost", "llm": {"maxCostUsd": limit}})
    (rule,) = tracecheck.check(the_run(path), contract, prices=PRICES).rules
    return rule


CLAUDE_REFUND = FIXTURES / "claude" / "recorded" / "2.1.30" / "refund.stream.jsonl"


def test_a_run_within_its_budget_passes() -> None:
    assert verdict(CLAUDE_REFUND, 0.05).status == "pass"


def test_a_run_over_its_budget_fails_with_the_total_and_the_most_expensive_calls() -> None:
    rule = verdict(CLAUDE_REFUND, 0.04)
    assert rule.status == "fail"
    (violation,) = rule.violations
    assert violation.span_id is None
    assert violation.detail == (
        "model calls cost $0.049852 in total, over the limit of $0.04 (4 call(s) priced by the "
        'prices given); the most expensive: span b50d73d9466c76f0 ("chat '
        'claude-sonnet-4-5-20250929") $0.024932, span dfbc8eb363649830 ("chat '
        'claude-sonnet-4-5-20250929") $0.008456, span 8517a5bd16e8b8d2 ("chat '
        'claude-sonnet-4-5-20250929") $0.008236'
    )


def test_calls_with_no_output_count_and_no_run_totals_cannot_be_priced() -> None:
    """A Claude Code transcript records each message's input and cache, not its output."""
    (path,) = (CLAUDE_REFUND.parent / "refund.transcript").glob("*.jsonl")
    rule = verdict(path, 1)
    assert rule.status == "error"
    assert rule.error is not None
    assert rule.error.startswith(
        "the cost of the model calls is unknown: 4 of 4 model call(s) cannot be priced: span "
    )
    assert rule.error.count("records no output token count") == 4


def test_a_model_with_no_price_cannot_be_priced() -> None:
    path = FIXTURES / "claude" / "recorded" / "2.1.332" / "refund.stream.jsonl"
    rule = verdict(path, 1)
    assert rule.status == "error"
    assert rule.error is not None
    assert 'calls model "claude-opus-5-5", which has no price in the prices given' in rule.error


def test_tokens_a_producer_counted_in_no_count_cannot_be_priced() -> None:
    """ADK 1.39 records Gemini's thoughts (64) only in its total (513 = 412 + 37 + 64): the
    call cannot be priced until its output is known."""
    path = PRODUCERS / "google-adk" / "adk-1.39" / "parallel.otlp.pb"
    prices = load_prices({"gemini-2.5-flash*": {"input": 0.30, "output": 2.50}})
    contract = tracecheck.compile_contract({"name": "cost", "llm": {"maxCostUsd": 1}})
    (rule,) = tracecheck.check(the_run(path), contract, prices=prices).rules
    assert rule.status == "error"
    assert rule.error is not None
    assert (
        "records a total of 513 tokens, 64 more than its input, output and cache counts: "
        "tokens of no known kind, which no price covers" in rule.error
    )
    assert rule.error.endswith("The 2 call(s) priced cost $0.000515, within the limit of $1")
