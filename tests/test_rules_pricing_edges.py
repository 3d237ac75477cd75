"""Pricing at its edges: which prefix prices a model, a cache price of zero or none, every count
`token_counts` is given (whole, fractional, Decimal, not a number, negative, not finite, far past
28 digits), the counts' text in messages, and money shown to six places.

Tables are built inside the tests: one built at import is built before any test runs."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from typing import Any

import pytest

from tracecheck.contract import ModelPrice, load_prices
from tracecheck.rules.pricing import TokenCounts, Unpriced, call_cost, token_counts, usd
from tracecheck.spans import TokenUsage

MILLION = 1_000_000


def unpriced_reason(tokens: TokenUsage) -> str:
    with pytest.raises(Unpriced) as caught:
        token_counts(tokens)
    return str(caught.value)


# --- which entry prices a model ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini*"),  # the longer prefix, whatever the order
        ("gpt-4.1-nano", "gpt-4.1*"),
        ("gpt-4.1", "gpt-4.1*"),
        ("gpt-4.2", None),  # every character before the `*` must match, the last one too
        ("gpt-4.", None),
    ],
)
def test_a_prefix_prices_the_models_that_start_with_all_of_it_the_longest_first(
    model: str, expected: str | None
) -> None:
    for table in (
        {"gpt-4.1*": {"input": 2, "output": 8}, "gpt-4.1-mini*": {"input": 1, "output": 4}},
        {"gpt-4.1-mini*": {"input": 1, "output": 4}, "gpt-4.1*": {"input": 2, "output": 8}},
    ):
        found = load_prices(table).price_of(model)
        assert (found.model if found else None) == expected


# --- cache prices -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "counts",
    [TokenCounts(MILLION, MILLION, 0, 0), TokenCounts(MILLION, 0, MILLION, 0)],
    ids=["cache read", "cache write"],
)
def test_a_cache_price_of_zero_makes_the_cache_free(counts: TokenCounts) -> None:
    price = ModelPrice("m", Decimal(3), Decimal(15), Decimal(0), Decimal(0))
    assert call_cost(counts, price) == price.input  # the million fresh tokens only


@pytest.mark.parametrize(
    ("counts", "why"),
    [
        (TokenCounts(0, 5, 0, 0), 'reads 5 cache tokens, and the price of "m*" gives no cacheRead'),
        (
            TokenCounts(0, Decimal("2.5"), 0, 0),
            'reads 2.5 cache tokens, and the price of "m*" gives no cacheRead',
        ),
        (
            TokenCounts(0, 0, 7, 0),
            'writes 7 cache tokens, and the price of "m*" gives no cacheWrite',
        ),
    ],
)
def test_cache_tokens_with_no_cache_price_cannot_be_priced(counts: TokenCounts, why: str) -> None:
    with pytest.raises(Unpriced) as caught:
        call_cost(counts, ModelPrice("m*", Decimal(1), Decimal(1)))
    assert str(caught.value) == why


# --- the counts -------------------------------------------------------------------------------


def test_a_total_one_token_above_the_counts_cannot_be_priced() -> None:
    assert unpriced_reason(TokenUsage(input=10, output=10, recorded_total=21)) == (
        "records a total of 21 tokens, 1 more than its input, output and cache counts: tokens "
        "of no known kind, which no price covers"
    )
    assert token_counts(TokenUsage(input=10, output=10, recorded_total=20)) == (10, 0, 0, 10)


@pytest.mark.parametrize(
    "tokens",
    [
        TokenUsage(input=1689, output=27, cache_read=1536),
        TokenUsage(input=100, output=27, cache_read=1200, cache_write=69, cache_outside_input=1269),
        TokenUsage(input=1000.0, output=0.0, cache_write=250.0),
        TokenUsage(input=Decimal(1000), output=Decimal("0.0"), cache_read=Decimal("250.00")),
    ],
    ids=["ints inside input", "ints beside input", "whole floats", "whole decimals"],
)
def test_whole_counts_are_ints(tokens: TokenUsage) -> None:
    """A count is an int, or the exact decimal of a fractional count (`Amount`)."""
    counts = token_counts(tokens)
    assert [type(count) for count in counts] == [int] * 4
    assert counts.fresh + counts.cache_read + counts.cache_write == tokens.input + (
        tokens.cache_outside_input
    )


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        (TokenUsage(input=0.5, output=0.25), (Decimal("0.5"), 0, 0, Decimal("0.25"))),
        (
            TokenUsage(input=10, output=1, cache_read=2.5),
            (Decimal("7.5"), Decimal("2.5"), 0, 1),
        ),
        (
            TokenUsage(input=Decimal("2.5"), output=Decimal(3), cache_write=Decimal("0.5")),
            (Decimal(2), 0, Decimal("0.5"), 3),
        ),
    ],
    ids=["below one", "a fractional cache count", "decimals"],
)
def test_fractional_counts_are_priced_as_the_decimals_they_are(
    tokens: TokenUsage, expected: tuple[Any, ...]
) -> None:
    assert token_counts(tokens) == expected


@pytest.mark.parametrize("count", [True, "12", [3]], ids=repr)
def test_a_count_that_is_not_a_number_cannot_be_priced(count: Any) -> None:
    tokens = TokenUsage(input=10, output=10, recorded_total=count)
    assert unpriced_reason(tokens) == "records a token count that is not a number"


@pytest.mark.parametrize(
    "count", [-1, -1.5, Decimal("-0.5"), math.inf, -math.inf, math.nan, Decimal("NaN")], ids=repr
)
def test_a_count_that_is_not_a_finite_number_at_least_zero_cannot_be_priced(count: Any) -> None:
    assert unpriced_reason(TokenUsage(input=10, output=count)) == (
        "records a token count that is not a finite number ≥ 0"
    )


@pytest.mark.parametrize(
    ("read", "write"), [(10**30, 0.5), (0.5, 10**30)], ids=["int read", "int write"]
)
def test_counts_far_past_28_digits_are_split_exactly(read: int | float, write: int | float) -> None:
    """Python's own decimal arithmetic would round at 28 digits; the split never rounds."""
    entered = 2 * 10**30
    counts = token_counts(TokenUsage(input=entered, output=0, cache_read=read, cache_write=write))
    with localcontext(prec=100):
        assert counts.fresh + counts.cache_read + counts.cache_write == entered
        assert counts.fresh == Decimal(10**30) - Decimal("0.5")


@pytest.mark.parametrize(
    ("entered", "shown"),
    [(1e-07, "0.0000001"), (Decimal("2.50"), "2.5")],
    ids=["small", "trailing zero"],
)
def test_a_fractional_count_reads_in_plain_digits_in_a_message(entered: Any, shown: str) -> None:
    tokens = TokenUsage(input=entered, output=0, cache_read=3)
    assert unpriced_reason(tokens) == f"records 3 cache tokens inside an input of {shown}"


# --- money ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "exact", "shown"),
    [
        ("0.0000025", False, "$0.000003"),  # half up, not half even
        ("0.0000035", False, "$0.000004"),
        ("100", False, "$100"),  # plain digits, never 1E+2
        ("100.000000", True, "$100"),
        ("0.00000015", True, "$0.00000015"),  # never 1.5E-7
    ],
)
def test_money_reads_in_plain_digits_rounded_half_up(amount: str, exact: bool, shown: str) -> None:
    assert usd(Decimal(amount), exact=exact) == shown
