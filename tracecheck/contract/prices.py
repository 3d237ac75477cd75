"""Price tables: `prices` in a contract, or a file given when checking (`--prices FILE`).

A table maps a model name to its prices in USD per million tokens:

```yaml
gpt-4.1-mini*: {input: 0.40, output: 1.60, cacheRead: 0.10}
claude-sonnet-4-5: {input: 3, output: 15, cacheRead: 0.30, cacheWrite: 3.75}
```

A name ending in `*` prices every model whose name starts with the rest (dated variants). A file
holds the table alone, in JSON or YAML, read as strictly as a contract (load.py: duplicate keys
refused, YAML 1.2). Every problem is reported at its place: unknown keys with the closest
allowed one, a missing input or output price, a price that is negative or not a number.

A table given when checking replaces the contract's own, whole: the file is what the user
says prices are today, and mixing two tables entry by entry would price a run by neither.
`priced` puts a table into a compiled contract's cost rules; the contract stays as compiled.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracecheck.contract.checker import Checker
from tracecheck.contract.load import load_document
from tracecheck.contract.model import Contract
from tracecheck.contract.words import describe, map_path
from tracecheck.errors import ContractError
from tracecheck.naming import quote
from tracecheck.rules.cost import MaxCost
from tracecheck.rules.operators import Rule
from tracecheck.rules.pricing import PREFIX, ModelPrice, Prices

if TYPE_CHECKING:
    from tracecheck.contract.spec import ContractSpec

__all__ = [
    "PRICE_KEYS",
    "PricesSource",
    "cost_findings",
    "load_prices",
    "price_table",
    "priced",
    "usd_amount",
]

PRICE_KEYS = ("input", "output", "cacheRead", "cacheWrite")
PRICE_REQUIRED = ("input", "output")
CONTRACT_PRICES = "the contract's prices"

PricesSource = Prices | str | os.PathLike[str] | Mapping[str, Any]


def usd_amount(checker: Checker, value: Any, where: str, what: str = "USD") -> Decimal | None:
    """A finite number ≥ 0 as the exact decimal written (a float by its shortest repr)."""
    if isinstance(value, Decimal) and value.is_finite() and value >= 0:
        return value  # given in Python
    if isinstance(value, int | float) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            checker.add(where, f"must be a finite number ≥ 0 ({what}), not {describe(value)}")
            return None
        if value >= 0:
            return Decimal(value) if isinstance(value, int) else Decimal(repr(value))
    checker.add(where, f"must be a number ≥ 0 ({what}), not {describe(value)}")
    return None


def price_table(
    checker: Checker,
    value: Any,
    where: str,
    *,
    source: str | None = None,
    described: str = CONTRACT_PRICES,
) -> Prices | None:
    """The table at `where`, or None with every problem added to `checker`."""
    if not isinstance(value, Mapping):
        checker.add(where, f"must be an object of model name → prices, not {describe(value)}")
        return None
    if not value:
        checker.add(where, "must name at least one model: an empty table prices nothing")
        return None
    found: list[ModelPrice] = []
    ok = True
    for model, entry in value.items():
        price = _model_price(checker, model, entry, where)
        ok = ok and price is not None
        if price is not None:
            found.append(price)
    return Prices(tuple(found), source, described) if ok else None


def _model_price(checker: Checker, model: Any, entry: Any, where: str) -> ModelPrice | None:
    if not isinstance(model, str) or not model:
        checker.add(where, f"a model name must be a non-empty string, not {describe(model)}")
        return None
    at = map_path(where, model)
    name_ok = PREFIX not in model[:-1]
    if not name_ok:
        checker.add(at, f"a model name may hold one {PREFIX}, at its end (a prefix of names)")
    fields = checker.obj(entry, at, PRICE_KEYS, required=PRICE_REQUIRED)
    if fields is None:
        return None
    amounts = {
        key: usd_amount(checker, fields[key], f"{at}.{key}", "USD per million tokens")
        for key in PRICE_KEYS
        if key in fields
    }
    if not name_ok or any(key not in amounts or amounts[key] is None for key in PRICE_REQUIRED):
        return None
    if any(amount is None for amount in amounts.values()):
        return None
    input_price, output_price = amounts["input"], amounts["output"]
    assert input_price is not None and output_price is not None
    return ModelPrice(
        model, input_price, output_price, amounts.get("cacheRead"), amounts.get("cacheWrite")
    )


def load_prices(source: PricesSource) -> Prices:
    """A price table from a file (JSON or YAML, by its suffix or its first character) or from
    a mapping; `ContractError` lists every problem, naming the file. A `Prices` is returned
    as it is."""
    if isinstance(source, Prices):
        return source
    if isinstance(source, Mapping):
        doc: Any = source
        origin = None
        described = "the prices given"
    else:
        doc, origin = load_document(Path(os.fspath(source)))
        described = f"the prices in {origin}"
    checker = Checker()
    if isinstance(doc, Mapping) and list(doc) == ["prices"] and isinstance(doc["prices"], Mapping):
        checker.add("prices", "a prices file is the table itself: write the models at its top")
        raise ContractError(checker.problems, source=origin)
    prices = price_table(checker, doc, "", source=origin, described=described)
    if checker.problems or prices is None:
        raise ContractError(checker.problems, source=origin)
    return prices


def priced(contract: Contract, prices: Prices | None) -> Contract:
    """The contract with its cost rules priced by `prices` (None: the contract as it is)."""
    if prices is None:
        return contract
    if not isinstance(prices, Prices):
        raise TypeError(f"prices must be a Prices (load_prices), not {type(prices).__name__}")

    def swap(rules: tuple[Rule, ...]) -> tuple[Rule, ...]:
        return tuple(
            replace(rule, prices=prices) if isinstance(rule, MaxCost) else rule for rule in rules
        )

    alternatives = tuple(replace(a, rules=swap(a.rules)) for a in contract.alternatives)
    return replace(contract, rules=swap(contract.rules), alternatives=alternatives, prices=prices)


def cost_findings(spec: ContractSpec) -> list[tuple[str, str, str]]:
    """Lint's (code, path, message) about prices: a cost limit with no table to price it,
    a table nothing uses, an allowed model the table does not price."""
    findings: list[tuple[str, str, str]] = []
    limited = [
        path for path in (spec.base, *(spec.alternatives or ())) if _cost_limit(path) is not None
    ]
    if spec.prices is not None and not limited:
        findings.append(
            ("prices.unused", "prices", "prices are given, but no llm.maxCostUsd uses them")
        )
    for path in limited:
        if spec.prices is None:
            findings.append(
                (
                    "llm.cost-without-prices",
                    path.at("llm.maxCostUsd"),
                    "has no prices to use: the contract gives none, so the rule could not be "
                    "evaluated unless the check is given a table (--prices FILE)",
                )
            )
            continue
        for i, model in enumerate(path.llm.allowed_models if path.llm else ()):
            if spec.prices.price_of(model) is None:
                findings.append(
                    (
                        "llm.allowed-model-unpriced",
                        path.at(f"llm.allowedModels[{i}]"),
                        f"{quote(model)} is allowed but has no price in prices: a run that "
                        "calls it makes llm.maxCostUsd could not be evaluated",
                    )
                )
    return findings


def _cost_limit(path: Any) -> Decimal | None:
    llm = path.llm
    return None if llm is None else llm.max_cost_usd
