"""Price tables given when checking (`--prices FILE`), and what lint says about prices.

`load_prices` reads a table from a file (JSON or YAML, read as strictly as a contract: load.py,
duplicate keys refused, YAML 1.2) or from a mapping; the table is checked as a contract's
`prices` is (price_spec.py, which says how a table is written).

A table given when checking replaces the contract's own, whole: the file is what the user
says prices are today, and mixing two tables entry by entry would price a run by neither.
`priced` puts a table into a compiled contract's cost rules; the contract stays as compiled.

Every check and every lint passes through here, most with no table and no cost limit: the
price and cost rule modules (and `decimal`) are imported only once a table is read or given.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from tracecheck.contract.checker import Checker
from tracecheck.contract.load import load_document
from tracecheck.contract.model import Contract
from tracecheck.errors import ContractError
from tracecheck.naming import quote

if TYPE_CHECKING:
    from decimal import Decimal

    from tracecheck.contract.spec import ContractSpec
    from tracecheck.rules.base import Rule
    from tracecheck.rules.pricing import Prices

__all__ = ["PricesSource", "cost_findings", "load_prices", "priced"]

# A string: annotations only name it, and `Prices` is not imported until a table is.
PricesSource: TypeAlias = "Prices | str | os.PathLike[str] | Mapping[str, Any]"


def load_prices(source: PricesSource) -> Prices:
    """A price table from a file (JSON or YAML, by its suffix or its first character) or from
    a mapping; `ContractError` lists every problem, naming the file. A `Prices` is returned
    as it is."""
    from tracecheck.contract.price_spec import price_table
    from tracecheck.rules.pricing import Prices

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
    from tracecheck.rules.cost import MaxCost
    from tracecheck.rules.pricing import Prices

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
