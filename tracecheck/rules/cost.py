"""`llm.maxCostUsd`: what the model calls cost, priced by a table the user gives, at most a limit.

Every call must be priced: a call whose model has no price, whose tokens are not all recorded,
or whose cache tokens have no price makes the rule could not be evaluated, naming the spans,
unless the calls that could be priced already cost more than the limit (a cost only grows).
Where a producer records a run's totals on an agent span instead of each call's counts, those
totals stand for the calls below it, as they do for the token budget (`rules/run_totals.py`).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple

from tracecheck.rules.base import SHOWN_NAMES, named
from tracecheck.rules.predicates import Predicate, RuleError
from tracecheck.rules.pricing import (
    ModelPrice,
    Prices,
    TokenCounts,
    Unpriced,
    added,
    call_cost,
    check_cache_prices,
    token_counts,
    total_cost,
    usd,
)
from tracecheck.rules.run_totals import coverage
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span
from tracecheck.verdict import Violation

__all__ = ["NO_PRICES", "Bill", "MaxCost", "RunCost", "run_cost"]

NO_PRICES = (
    "no price table is given, so no call can be priced: add prices to the contract, or pass "
    "a table (--prices FILE; prices= in Python)"
)
MOST_EXPENSIVE = 3  # the calls a failure names
TOTALS = "records the run totals of"
LLM_CALLS = Predicate(kind="LLM")


class Bill(NamedTuple):
    """What one call costs, or one span's run totals standing for the calls below it."""

    span: Span
    calls: int  # how many calls it stands for
    counts: TokenCounts
    price: ModelPrice
    totals: bool = False  # a span's run totals, not a call's own counts

    def cost(self) -> Decimal:
        return call_cost(self.counts, self.price)


@dataclass(frozen=True)
class MaxCost:
    label: str
    max: Decimal
    prices: Prices | None = None  # set once the table is known (`contract.prices.priced`)
    p: Predicate = LLM_CALLS
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        if self.prices is None:
            raise RuleError(NO_PRICES)
        cost = run_cost(subject, self.prices, self.p)
        if cost.total <= self.max:
            if cost.unpriced:
                raise RuleError(self._unknown(subject, cost))
            return []
        return [Violation(None, self._over(subject, cost))]

    def describe(self) -> str:
        said = f"model calls (spans matching {self.p.describe()}) cost at most "
        said += f"{usd(self.max, exact=True)} in total"
        if self.prices is None:
            return said + ", priced by a table given at check time (--prices FILE)"
        count = len(self.prices.models)
        return (
            said
            + f", priced by {self.prices.described} ({count} {'model' if count == 1 else 'models'} priced)"
        )

    def _over(self, subject: Subject, cost: RunCost) -> str:
        assert self.prices is not None
        limit = usd(self.max, exact=True)
        shown = usd(cost.total, exact=usd(cost.total) == limit)
        least = "at least " if cost.unpriced else ""
        said = (
            f"model calls cost {least}{shown} in total, over the limit of {limit} "
            f"({cost.calls} call(s) priced by {self.prices.described}"
        )
        if cost.unpriced:
            said += f"; {len(cost.unpriced)} more could not be priced"
        costly = heapq.nlargest(MOST_EXPENSIVE, cost.bills, key=Bill.cost)
        shown_bills = ", ".join(f"{_what(subject, bill)} {usd(bill.cost())}" for bill in costly)
        return f"{said}); the most expensive: {shown_bills}"

    def _unknown(self, subject: Subject, cost: RunCost) -> str:
        reasons = [f"{named(subject, span)} {why}" for span, why in cost.unpriced[:SHOWN_NAMES]]
        more = len(cost.unpriced) - SHOWN_NAMES
        if more > 0:
            reasons.append(f"and {more} more")
        items = len(cost.bills) + len(cost.unpriced)
        what = "model call(s)"
        if any(bill.totals for bill in cost.bills) or any(
            why.startswith(TOTALS) for _, why in cost.unpriced
        ):
            what = "model call(s) and run totals"
        said = (
            f"the cost of the model calls is unknown: {len(cost.unpriced)} of {items} {what} "
            f"cannot be priced: {'; '.join(reasons)}"
        )
        if cost.bills:
            said += (
                f". The {cost.calls} call(s) priced cost {usd(cost.total)}, within the limit of "
                f"{usd(self.max, exact=True)}"
            )
        return said


@dataclass(frozen=True)
class RunCost:
    """What the model calls of a subject cost: the total of those that could be priced, each
    bill, and the calls (or run totals) that could not be priced with the reason."""

    total: Decimal
    bills: tuple[Bill, ...]
    unpriced: tuple[tuple[Span, str], ...]

    @property
    def calls(self) -> int:
        """How many calls the bills price."""
        return sum(bill.calls for bill in self.bills)


def run_cost(subject: Subject, prices: Prices, p: Predicate = LLM_CALLS) -> RunCost:
    """The cost of the spans matching `p` (the model calls), priced by `prices`."""
    bills, unpriced = _bills(subject, subject.matching(p), prices)
    return RunCost(_total(bills), tuple(bills), tuple(unpriced))


def _bills(
    subject: Subject, calls: Sequence[Span], prices: Prices
) -> tuple[list[Bill], list[tuple[Span, str]]]:
    """Each call's bill, or the run totals standing for it; and what cannot be priced, why."""
    counted = coverage(subject, calls)
    under = counted.under
    bills: list[Bill] = []
    unpriced: list[tuple[Span, str]] = []
    for cover in counted.covers:
        below = counted.below(cover, calls)
        try:
            bills.append(_cover_bill(cover, below, prices))
        except Unpriced as exc:
            unpriced.append((cover, f"{TOTALS} {len(below)} call(s): {exc}"))
    for call in calls:
        if id(call) in under:
            continue
        try:
            bills.append(Bill(call, 1, *_priced(call, prices)))
        except Unpriced as exc:
            unpriced.append((call, str(exc)))
    return bills, unpriced


def _priced(span: Span, prices: Prices) -> tuple[TokenCounts, ModelPrice]:
    model = span.model
    if model is None:
        raise Unpriced("names no model")
    price = prices.price_of(model)
    if price is None:
        raise Unpriced(prices.missing(model))
    counts = token_counts(span.tokens)
    check_cache_prices(counts, price)
    return counts, price


def _cover_bill(cover: Span, below: list[Span], prices: Prices) -> Bill:
    """The run totals priced at the one price every call below them has."""
    if any(call.model is None for call in below):
        raise Unpriced("a call among them names no model")
    models = dict.fromkeys(m for m in (cover.model, *(call.model for call in below)) if m)
    found: dict[int, ModelPrice] = {}
    for model in models:
        price = prices.price_of(model)
        if price is None:
            raise Unpriced(prices.missing(model))
        found[id(price)] = price
    if len(found) != 1:
        raise Unpriced(f"they are of models priced differently ({', '.join(models)})")
    (price,) = found.values()
    counts = token_counts(cover.tokens)
    check_cache_prices(counts, price)
    return Bill(cover, len(below), counts, price, totals=True)


def _total(bills: list[Bill]) -> Decimal:
    """The sum of every bill: tokens added per price first, then each price applied once."""
    by_price: dict[int, tuple[ModelPrice, TokenCounts]] = {}
    for bill in bills:
        key = id(bill.price)
        held = by_price.get(key)
        by_price[key] = (bill.price, bill.counts if held is None else added(held[1], bill.counts))
    return total_cost(call_cost(counts, price) for price, counts in by_price.values())


def _what(subject: Subject, bill: Bill) -> str:
    if bill.totals:
        return f"the run totals of {bill.calls} call(s) on {named(subject, bill.span)}"
    return named(subject, bill.span)
