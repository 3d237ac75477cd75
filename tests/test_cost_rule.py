"""The cost rule on spans built here: which entry prices a call, every reason a call cannot be
priced, the messages, exact money; and properties of the arithmetic (a cost is additive over
calls and grows with every count, the cache counted inside or beside input costs the same)."""

from __future__ import annotations

import pickle
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_rules_support import llm, subject

import tracecheck
from tracecheck.contract import ModelPrice, Prices, load_prices
from tracecheck.contract.prices import priced
from tracecheck.rules import RuleError
from tracecheck.rules.capture import MODELS, reads_calls
from tracecheck.rules.cost import NO_PRICES, MaxCost, run_cost
from tracecheck.rules.pricing import TokenCounts, added, call_cost, token_counts, usd
from tracecheck.spans import Span, TokenUsage

MINI = {"input": 0.40, "output": 1.60, "cacheRead": 0.10}
PRICES = load_prices({"gpt-4.1-mini*": MINI, "gpt-4.1*": {"input": 2, "output": 8}})
READ = "gen_ai.usage.cache_read.input_tokens"  # inside input (OpenTelemetry GenAI)
WRITE = "gen_ai.usage.cache_creation.input_tokens"
READ_BESIDE = "gen_ai.usage.cache_read_input_tokens"  # beside input (Anthropic's own)
WRITE_BESIDE = "gen_ai.usage.cache_creation_input_tokens"


def rule(limit: str, prices: Prices | None = PRICES) -> MaxCost:
    return MaxCost("llm.maxCostUsd", Decimal(limit), prices)


def outcome(limit: str, *spans: Span, prices: Prices | None = PRICES) -> list[str]:
    """The violations' details, or the error as `error: ...`."""
    try:
        return [v.detail for v in rule(limit, prices).evaluate(subject(*spans))]
    except RuleError as exc:
        return [f"error: {exc}"]


# --- which entry prices a call ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4.1-mini", "gpt-4.1-mini*"),
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini*"),  # the longest prefix wins
        ("gpt-4.1-2025-04-14", "gpt-4.1*"),
        ("gpt-4.1", "gpt-4.1*"),
        ("gpt-4", None),
        ("GPT-4.1-mini", None),  # names are compared as written
        ("openai/gpt-4.1-mini", None),
    ],
)
def test_an_exact_name_else_the_longest_prefix_prices_a_model(
    model: str, expected: str | None
) -> None:
    found = PRICES.price_of(model)
    assert (found.model if found else None) == expected


def test_an_exact_entry_goes_before_any_prefix() -> None:
    prices = load_prices({"m*": {"input": 1, "output": 1}, "m-1": {"input": 2, "output": 2}})
    assert prices.price_of("m-1") == ModelPrice("m-1", Decimal(2), Decimal(2))
    assert prices.price_of("m-12") == ModelPrice("m*", Decimal(1), Decimal(1))


def test_a_model_priced_only_by_its_undated_name_is_not_guessed() -> None:
    prices = load_prices({"gpt-4.1-mini": MINI})
    assert outcome("1", llm("c1", "gpt-4.1-mini-2025-04-14", 10, 10), prices=prices) == [
        "error: the cost of the model calls is unknown: 1 of 1 model call(s) cannot be priced: "
        'span c1 ("chat gpt-4.1-mini-2025-04-14") calls model "gpt-4.1-mini-2025-04-14", which '
        'has no price in the prices given ("gpt-4.1-mini" prices that exact name only; '
        '"gpt-4.1-mini*" would price every model whose name starts with it)'
    ]


# --- the arithmetic ---------------------------------------------------------------------------


def test_the_cache_inside_input_is_taken_out_of_it() -> None:
    span = llm("c1", "gpt-4.1-mini", 1689, 27, **{READ: 1536})
    assert token_counts(span.tokens) == (153, 1536, 0, 27)
    assert run_cost(subject(span), PRICES).total == Decimal("0.000258")


def test_the_cache_beside_input_is_added_to_it() -> None:
    prices = load_prices({"c": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}})
    beside = llm("c1", "c", 100, 27, **{READ_BESIDE: 1200, WRITE_BESIDE: 69})
    inside = llm("c2", "c", 1369, 27, **{READ: 1200, WRITE: 69})
    for span in (beside, inside):
        assert token_counts(span.tokens) == (100, 1200, 69, 27)
        assert run_cost(subject(span), prices).total == Decimal("0.00132375")


def test_prices_are_the_decimals_written() -> None:
    """0.1 + 0.2 is 0.3 here: ten calls of 100,000 tokens at $0.1 and $0.2 per million."""
    prices = load_prices({"m": {"input": 0.1, "output": 0.2}})
    calls = [llm(f"c{i}", "m", 100_000, 100_000) for i in range(10)]
    assert run_cost(subject(*calls), prices).total == Decimal("0.3")


def test_a_fractional_count_is_priced_as_the_decimal_it_prints_as() -> None:
    span = llm("c1", "gpt-4.1-mini", 2.5, 1000.0)
    assert token_counts(span.tokens) == (Decimal("2.5"), 0, 0, 1000)
    assert run_cost(subject(span), PRICES).total == Decimal("0.001601")  # 1 + 1600 per million


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        ("0.000258", "$0.000258"),
        ("0.0013237500", "$0.001324"),  # half up
        ("0.5", "$0.5"),
        ("12", "$12"),
        ("0", "$0"),
        ("0.0000004", "$0"),
    ],
)
def test_money_is_shown_to_six_places(amount: str, shown: str) -> None:
    assert usd(Decimal(amount)) == shown


# --- verdicts ---------------------------------------------------------------------------------


def test_no_model_calls_cost_nothing_and_pass() -> None:
    assert outcome("0") == []


def test_no_price_table_cannot_be_evaluated() -> None:
    assert outcome("1", llm("c1", "gpt-4.1-mini", 1, 1), prices=None) == [f"error: {NO_PRICES}"]


def test_over_the_limit_names_the_total_and_the_three_most_expensive_calls() -> None:
    calls = [llm(f"c{n}", "gpt-4.1-mini", n * 1000, 0) for n in (1, 4, 2, 3)]
    assert outcome("0.001", *calls) == [
        "model calls cost $0.004 in total, over the limit of $0.001 (4 call(s) priced by the "
        'prices given); the most expensive: span c4 ("chat gpt-4.1-mini") $0.0016, span c3 '
        '("chat gpt-4.1-mini") $0.0012, span c2 ("chat gpt-4.1-mini") $0.0008'
    ]


def test_a_total_that_rounds_to_the_limit_is_shown_whole() -> None:
    over = llm("c1", "gpt-4.1-mini", 2, 1)  # 0.8 + 1.6 per million: $0.0000024
    assert outcome("0.000002", over) == [
        "model calls cost $0.0000024 in total, over the limit of $0.000002 (1 call(s) priced "
        'by the prices given); the most expensive: span c1 ("chat gpt-4.1-mini") $0.000002'
    ]


def test_the_limit_itself_passes() -> None:
    assert outcome("0.0016", llm("c1", "gpt-4.1-mini", 4000, 0)) == []


@pytest.mark.parametrize(
    ("span", "why"),
    [
        (llm("c1", None, 10, 10), "names no model"),
        (llm("c1", "o3", 10, 10), 'calls model "o3", which has no price in the prices given'),
        (llm("c1", "gpt-4.1-mini", None, 10), "records no input token count"),
        (llm("c1", "gpt-4.1-mini", 10, None), "records no output token count"),
        (
            llm("c1", "gpt-4.1-mini", 10, 10, **{WRITE: 5}),
            'writes 5 cache tokens, and the price of "gpt-4.1-mini*" gives no cacheWrite',
        ),
        (
            llm("c1", "gpt-4.1-mini", 1000, 10, **{READ: 700, WRITE: 600}),
            "records 1300 cache tokens inside an input of 1000",
        ),
        (
            llm("c1", "gpt-4.1-mini", 10, 10, **{"gen_ai.usage.total_tokens": 25}),
            "records a total of 25 tokens, 5 more than its input, output and cache counts: "
            "tokens of no known kind, which no price covers",
        ),
    ],
)
def test_a_call_that_cannot_be_priced_makes_the_rule_could_not_be_evaluated(
    span: Span, why: str
) -> None:
    name = f"chat {span.model}"
    priced = llm("c2", "gpt-4.1-mini", 1000, 0)
    assert outcome("1", span, priced) == [
        "error: the cost of the model calls is unknown: 1 of 2 model call(s) cannot be priced: "
        f'span c1 ("{name}") {why}. The 1 call(s) priced cost $0.0004, within the limit of $1'
    ]


def test_a_cache_count_of_zero_needs_no_cache_price() -> None:
    assert outcome("1", llm("c1", "gpt-4.1-mini", 10, 10, **{WRITE: 0})) == []


def test_calls_priced_over_the_limit_fail_whatever_the_others_cost() -> None:
    assert outcome("0.0001", llm("c1", "o3", 1, 1), llm("c2", "gpt-4.1-mini", 1000, 0)) == [
        "model calls cost at least $0.0004 in total, over the limit of $0.0001 (1 call(s) priced "
        'by the prices given; 1 more could not be priced); the most expensive: span c2 ("chat '
        'gpt-4.1-mini") $0.0004'
    ]


def test_many_unpriced_calls_are_listed_six_then_counted() -> None:
    calls = [llm(f"c{i}", "o3", 1, 1) for i in range(8)]
    (error,) = outcome("1", *calls)
    assert error.count('calls model "o3"') == 6
    assert error.endswith("; and 2 more")


def test_the_rule_reads_model_calls_so_doubt_about_them_stops_it() -> None:
    assert reads_calls(rule("1")) == frozenset({MODELS})


def test_describe_names_the_table() -> None:
    assert rule("0.5").describe() == (
        "model calls (spans matching kind=LLM) cost at most $0.5 in total, priced by the "
        "prices given (2 models priced)"
    )
    assert rule("0.5", None).describe() == (
        "model calls (spans matching kind=LLM) cost at most $0.5 in total, priced by a table "
        "given at check time (--prices FILE)"
    )


# --- run totals -------------------------------------------------------------------------------

PRODUCERS = Path(__file__).resolve().parent.parent / "fixtures" / "producers"
LOGFIRE_SDK = PRODUCERS / "logfire-claude-agent-sdk" / "clean.otlp.jsonl"
SONNET = load_prices(
    {"claude-sonnet-4-5*": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}
)


def _run() -> list[Span]:
    return list(max(tracecheck.read_traces(LOGFIRE_SDK), key=len).spans)


def test_run_totals_priced_once_stand_for_the_calls_below_them() -> None:
    cost = run_cost(subject(*_run()), SONNET)
    (bill,) = cost.bills
    assert (bill.span.name, bill.calls, bill.totals) == ("invoke_agent", 3, True)
    assert cost.total == Decimal("0.005706")  # 1462 × $3 + 88 × $15 per million


def test_run_totals_over_calls_of_models_priced_differently_cannot_be_priced() -> None:
    spans = _run()
    chat = next(s for s in spans if s.name.startswith("chat"))
    other = dict(chat.attributes, **{"gen_ai.response.model": "claude-haiku-4-5"})
    spans[spans.index(chat)] = chat.replace(attributes=other)
    prices = load_prices(
        {
            "claude-sonnet-4-5*": {"input": 3, "output": 15},
            "claude-haiku-4-5*": {"input": 1, "output": 5},
        }
    )
    cost = run_cost(subject(*spans), prices)
    ((span, why),) = cost.unpriced
    assert span.name == "invoke_agent"
    assert why == (
        "records the run totals of 3 call(s): they are of models priced differently "
        "(claude-sonnet-4-5-20250929, claude-haiku-4-5)"
    )


# --- the table the check prices by ------------------------------------------------------------


def test_a_table_given_to_check_replaces_the_contracts_whole() -> None:
    contract = tracecheck.compile_contract(
        {"name": "c", "llm": {"maxCostUsd": 1}, "prices": {"m": {"input": 1, "output": 1}}}
    )
    run = [llm("c1", "m", 10, 10)]
    assert tracecheck.check(run, contract, capture="lenient").status == "pass"
    given = load_prices({"n": {"input": 1, "output": 1}})
    (result,) = tracecheck.check(run, contract, capture="lenient", prices=given).rules
    assert result.status == "error"
    assert 'calls model "m", which has no price in the prices given' in (result.error or "")


def test_check_takes_a_prices_table_not_a_mapping() -> None:
    contract = tracecheck.compile_contract({"name": "c", "llm": {"maxCostUsd": 1}})
    with pytest.raises(TypeError, match=r"prices must be a Prices \(load_prices\), not dict"):
        tracecheck.check([llm("c1", "m", 1, 1)], contract, prices=MINI)  # type: ignore[arg-type]


def test_a_priced_contract_pickles_for_worker_processes() -> None:
    contract = tracecheck.compile_contract({"name": "c", "llm": {"maxCostUsd": 1}})
    table = priced(contract, PRICES)
    again = pickle.loads(pickle.dumps(table))
    assert again == table
    assert again.prices is not None and again.prices.price_of("gpt-4.1-mini-x") is not None


# --- properties -------------------------------------------------------------------------------

COUNTS = st.integers(min_value=0, max_value=10**9)
PRICE = st.decimals(min_value=0, max_value=1000, places=4, allow_nan=False, allow_infinity=False)
TOKENS = st.builds(TokenCounts, COUNTS, COUNTS, COUNTS, COUNTS)
ENTRY = st.builds(ModelPrice, st.just("m"), PRICE, PRICE, PRICE, PRICE)


@given(TOKENS, TOKENS, ENTRY)
def test_cost_is_additive_over_calls(a: TokenCounts, b: TokenCounts, price: ModelPrice) -> None:
    assert call_cost(added(a, b), price) == call_cost(a, price) + call_cost(b, price)


@given(TOKENS, st.integers(0, 3), COUNTS, ENTRY)
def test_cost_never_falls_when_a_count_grows(
    counts: TokenCounts, which: int, more: int, price: ModelPrice
) -> None:
    grown = TokenCounts(*(c + more if i == which else c for i, c in enumerate(counts)))
    assert call_cost(grown, price) >= call_cost(counts, price)


@given(TOKENS)
def test_the_cache_inside_or_beside_input_is_one_reading(counts: TokenCounts) -> None:
    fresh, read, write, output = counts
    inside = TokenUsage(fresh + read + write, output, read, write, 0)
    beside = TokenUsage(fresh, output, read, write, read + write)
    assert token_counts(inside) == token_counts(beside) == counts


@given(st.lists(st.tuples(COUNTS, COUNTS, st.integers(0, 10**6)), max_size=12), st.randoms())
def test_a_run_costs_the_sum_of_its_calls_in_any_order(
    calls: list[tuple[int, int, int]], random: Any
) -> None:
    spans = [
        llm(f"c{i}", "gpt-4.1-mini", i_ + r, o, **{READ: r}) for i, (i_, o, r) in enumerate(calls)
    ]
    total = run_cost(subject(*spans), PRICES).total
    price = PRICES.price_of("gpt-4.1-mini")
    assert price is not None
    assert total == sum((call_cost(token_counts(s.tokens), price) for s in spans), Decimal(0))
    random.shuffle(spans)
    assert run_cost(subject(*spans), PRICES).total == total


@given(st.lists(st.tuples(COUNTS, COUNTS), min_size=1, max_size=6), PRICE)
def test_the_verdict_is_the_total_against_the_limit(
    calls: list[tuple[int, int]], limit: Decimal
) -> None:
    spans = [llm(f"c{i}", "gpt-4.1-mini", a, b) for i, (a, b) in enumerate(calls)]
    total = run_cost(subject(*spans), PRICES).total
    assert (outcome(str(limit), *spans) == []) == (total <= limit)
