"""Price tables: read from a file or a mapping as strictly as a contract, every problem at its
place; the contract's own `prices`, lint's findings about them, explain and the builder."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tracecheck
from tracecheck.contract import ModelPrice, contract_builder, explain_contract, load_prices
from tracecheck.errors import ContractError


def problems(source: Any) -> list[str]:
    with pytest.raises(ContractError) as caught:
        load_prices(source)
    return str(caught.value).splitlines()


def test_a_yaml_file_is_read_with_its_comments_and_prefixes(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text(
        "# USD per million tokens, 2025-10-01\n"
        "gpt-4.1-mini*: {input: 0.40, output: 1.60, cacheRead: 0.10}\n"
        "claude-sonnet-4-5: {input: 3, output: 15, cacheRead: 0.30, cacheWrite: 3.75}\n"
    )
    prices = load_prices(path)
    assert prices.models == (
        ModelPrice("gpt-4.1-mini*", Decimal("0.4"), Decimal("1.6"), Decimal("0.1")),
        ModelPrice("claude-sonnet-4-5", Decimal(3), Decimal(15), Decimal("0.3"), Decimal("3.75")),
    )
    assert prices.source == str(path)
    assert prices.described == f"the prices in {path}"


def test_a_json_file_is_read_strictly(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"m": {"input": 1, "output": 2}, "m": {"input": 3, "output": 4}}')
    assert problems(path) == [f'{path}: duplicate key "m"']
    path.write_text('{"m": {"input": 1, "output": 2},}')
    (problem,) = problems(path)
    assert problem.startswith(f"{path}: line 1, column ") and "malformed JSON" in problem


def test_every_problem_is_named_at_its_place_with_the_file(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text(
        "gpt-4.1-mini:\n  inptu: 0.4\n  output: '1.6'\n"
        "gpt-*-mini: {input: 1, output: 1}\n"
        "o3: {input: -2, output: .inf, cacheRead: true}\n"
        "o4: 3\n"
    )
    assert [p.removeprefix(f"{path}: ") for p in problems(path)] == [
        '["gpt-4.1-mini"]: unknown key "inptu" — did you mean "input"? (allowed: input, output, '
        "cacheRead, cacheWrite)",
        '["gpt-4.1-mini"]: missing required key "input"',
        '["gpt-4.1-mini"].output: must be a number ≥ 0 (USD per million tokens), not a string',
        '["gpt-*-mini"]: a model name may hold one *, at its end (a prefix of names)',
        '["o3"].input: must be a number ≥ 0 (USD per million tokens), not -2',
        '["o3"].output: must be a finite number ≥ 0 (USD per million tokens), not Infinity',
        '["o3"].cacheRead: must be a number ≥ 0 (USD per million tokens), not true',
        '["o4"]: must be an object, not 3',
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "must be an object of model name → prices, not null"),
        ("[]", "must be an object of model name → prices, not an array"),
        ("{}", "must name at least one model: an empty table prices nothing"),
        (
            "prices:\n  m: {input: 1, output: 1}\n",
            "prices: a prices file is the table itself: write the models at its top",
        ),
    ],
)
def test_a_file_that_is_no_table_says_why(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    assert problems(path) == [f"{path}: {expected}"]


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "none.yaml"
    assert problems(path) == [f"{path}: cannot be read: No such file or directory"]


def test_a_mapping_is_a_table_given() -> None:
    prices = load_prices({"m": {"input": 1, "output": 2}})
    assert (prices.source, prices.described) == (None, "the prices given")
    assert load_prices(prices) is prices


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
        max_leaves=12,
    )
)
def test_any_document_is_a_table_or_a_contract_error(doc: Any) -> None:
    """The parser's property: it never raises anything but ContractError."""
    source = doc if isinstance(doc, dict) else {"m": doc}
    try:
        prices = load_prices(source)
    except ContractError as exc:
        assert exc.problems
    else:
        assert all(price.input >= 0 and price.output >= 0 for price in prices.models)


# --- in the contract --------------------------------------------------------------------------


def test_a_contracts_prices_price_every_path() -> None:
    contract = tracecheck.compile_contract(
        {
            "name": "c",
            "llm": {"maxCostUsd": 1},
            "alternatives": {"anyOf": [{"id": "a", "llm": {"maxCostUsd": 0.5}}]},
            "prices": {"m": {"input": 1, "output": 2}},
        }
    )
    assert contract.prices is not None
    (base,) = contract.rules
    (alternative,) = contract.alternatives[0].rules
    assert base.prices is alternative.prices is contract.prices  # type: ignore[attr-defined]


def test_explain_says_which_table_prices_the_rule() -> None:
    with_prices = {
        "name": "c",
        "llm": {"maxCostUsd": 0.25},
        "prices": {"m": {"input": 1, "output": 2}},
    }
    assert explain_contract(with_prices).splitlines()[-1] == (
        "  - llm.maxCostUsd: model calls (spans matching kind=LLM) cost at most $0.25 in total, "
        "priced by the contract's prices (1 model priced)"
    )


def test_the_builder_writes_prices_and_the_ceiling() -> None:
    built = (
        contract_builder("c")
        .llm(max_cost_usd=0.5)
        .prices({"m*": {"input": 1, "output": 2, "cache_read": 0.1}})
        .build()
    )
    assert built.prices is not None
    assert built.prices.models == (ModelPrice("m*", Decimal(1), Decimal(2), Decimal("0.1")),)


def test_lint_warns_of_a_ceiling_no_table_prices_and_of_zero_calls_beside_it() -> None:
    findings = tracecheck.lint_contract({"name": "c", "llm": {"maxCalls": 0, "maxCostUsd": 1}})
    assert [(f.code, f.path) for f in findings] == [
        ("llm.max-calls-zero-with-limits", "llm.maxCalls"),
        ("llm.cost-without-prices", "llm.maxCostUsd"),
    ]
    assert findings[0].message == (
        "is 0, so no model may be called, yet llm.maxCostUsd limits model calls"
    )
