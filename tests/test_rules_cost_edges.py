"""`llm.maxCostUsd` at its edges: run totals beside calls of their own, run totals that cannot
be priced and why, six unpriced calls listed and the seventh counted, a limit finer than six
places shown whole, and a rule whose predicate picks the calls.

Tables are built inside the tests: one built at import is built before any test runs."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from test_rules_support import TRACE, llm, subject

from tracecheck.contract import Prices, load_prices
from tracecheck.rules import Exact, Predicate, RuleError
from tracecheck.rules.cost import MaxCost
from tracecheck.spans import Scope, Span

# Logfire's Claude Agent SDK: `invoke_agent` records the run's totals, each chat span only the
# input of a start-of-message snapshot (its output is unknown).
SDK = Scope("logfire.claude_agent_sdk")


def agent(span_id: str, model: str, input_tokens: int, output_tokens: int) -> Span:
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.request.model": model,
        "gen_ai.usage.input_tokens": input_tokens,
        "gen_ai.usage.output_tokens": output_tokens,
    }
    return Span(TRACE, span_id, None, "invoke_agent", attributes=attributes, scope=SDK)


def chat(span_id: str, parent: str, model: str | None, input_tokens: int) -> Span:
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.usage.partial.input_tokens": input_tokens,
    }
    if model is not None:
        attributes["gen_ai.request.model"] = model
    return Span(TRACE, span_id, parent, f"chat {model}", attributes=attributes, scope=SDK)


def table() -> Prices:
    return load_prices(
        {"m": {"input": 1, "output": 2}, "gpt-4.1-mini*": {"input": 0.4, "output": 1.6}}
    )


def outcome(rule: MaxCost, *spans: Span) -> list[str]:
    """The violations' details, or the error as `error: ...`."""
    try:
        return [v.detail for v in rule.evaluate(subject(*spans))]
    except RuleError as exc:
        return [f"error: {exc}"]


def limit(amount: str, p: Predicate | None = None) -> MaxCost:
    if p is None:
        return MaxCost("llm.maxCostUsd", Decimal(amount), table())
    return MaxCost("llm.maxCostUsd", Decimal(amount), table(), p)


# --- run totals -------------------------------------------------------------------------------


def test_calls_after_one_under_run_totals_are_priced_too() -> None:
    """r's totals (100 in, 10 out at $1 and $2) stand for c1; c3, after c1, is its own bill."""
    spans = (agent("r", "m", 100, 10), chat("c1", "r", "m", 40), llm("c3", "m", 1000, 0))
    assert outcome(limit("0.0001"), *spans) == [
        "model calls cost $0.00112 in total, over the limit of $0.0001 (2 call(s) priced by the "
        'prices given); the most expensive: span c3 ("chat m") $0.001, the run totals of 1 '
        'call(s) on span r ("invoke_agent") $0.00012'
    ]


@pytest.mark.parametrize(
    ("model", "below", "why"),
    [
        ("m", None, "a call among them names no model"),
        ("o3", "o3", 'calls model "o3", which has no price in the prices given'),
        ("m", "o3", 'calls model "o3", which has no price in the prices given'),
    ],
    ids=["a call names no model", "no price for the run", "no price for a call below"],
)
def test_run_totals_that_cannot_be_priced_say_why(model: str, below: str | None, why: str) -> None:
    spans = (agent("r", model, 100, 10), chat("c1", "r", below, 40))
    assert outcome(limit("1"), *spans) == [
        "error: the cost of the model calls is unknown: 1 of 1 model call(s) and run totals "
        f'cannot be priced: span r ("invoke_agent") records the run totals of 1 call(s): {why}'
    ]


# --- unpriced calls ---------------------------------------------------------------------------


@pytest.mark.parametrize(("unpriced", "tail"), [(6, ""), (7, "; and 1 more")])
def test_six_unpriced_calls_are_listed_and_the_rest_counted(unpriced: int, tail: str) -> None:
    calls = [llm(f"c{i}", "o3", 1, 1) for i in range(unpriced)]
    listed = "; ".join(
        f'span c{i} ("chat o3") calls model "o3", which has no price in the prices given'
        for i in range(6)
    )
    assert outcome(limit("1"), *calls) == [
        f"error: the cost of the model calls is unknown: {unpriced} of {unpriced} model call(s) "
        f"cannot be priced: {listed}{tail}"
    ]


# --- a limit finer than six places ------------------------------------------------------------


def test_a_limit_finer_than_six_places_is_shown_whole() -> None:
    fine = limit("0.0000015")
    assert fine.describe() == (
        "model calls (spans matching kind=LLM) cost at most $0.0000015 in total, priced by the "
        "prices given (2 models priced)"
    )
    over = llm("c1", "gpt-4.1-mini", 2, 1)  # 0.8 + 1.6 per million: $0.0000024
    assert outcome(fine, over) == [
        "model calls cost $0.000002 in total, over the limit of $0.0000015 (1 call(s) priced by "
        'the prices given); the most expensive: span c1 ("chat gpt-4.1-mini") $0.000002'
    ]
    within = llm("c1", "gpt-4.1-mini", 1, 0)  # $0.0000004
    assert outcome(fine, within, llm("c2", "o3", 1, 1)) == [
        "error: the cost of the model calls is unknown: 1 of 2 model call(s) cannot be priced: "
        'span c2 ("chat o3") calls model "o3", which has no price in the prices given. The 1 '
        "call(s) priced cost $0, within the limit of $0.0000015"
    ]


# --- the calls the rule prices ----------------------------------------------------------------


def test_only_the_calls_the_predicate_matches_are_priced() -> None:
    calls = (llm("c1", "m", 1000, 0), llm("c2", "gpt-4.1-mini", 1000, 0), llm("c3", "o3", 1, 1))
    assert outcome(limit("0.001", Predicate(kind="LLM", model=Exact("m"))), *calls) == []
    assert outcome(limit("0.0001", Predicate(kind="LLM", model=Exact("m"))), *calls) == [
        "model calls cost $0.001 in total, over the limit of $0.0001 (1 call(s) priced by the "
        'prices given); the most expensive: span c1 ("chat m") $0.001'
    ]
