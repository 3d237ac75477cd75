"""Contracts: read, validate strictly, compile, lint and explain (contracts.md §2, §3, §7).

The names are imported on first use, so that `tracecheck check` loads the compiler and lint
it runs, and not the explainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracecheck.lazy import lazy_names

if TYPE_CHECKING:
    from tracecheck.contract.explain import explain_contract
    from tracecheck.contract.lint import LintFinding, lint_contract
    from tracecheck.contract.load import load_document
    from tracecheck.contract.model import (
        Alternative,
        Contract,
        ContractBuilder,
        compile_contract,
        contract_builder,
    )
    from tracecheck.contract.prices import load_prices
    from tracecheck.rules.pricing import ModelPrice, Prices

__all__ = [
    "Alternative",
    "Contract",
    "ContractBuilder",
    "LintFinding",
    "ModelPrice",
    "Prices",
    "compile_contract",
    "contract_builder",
    "explain_contract",
    "lint_contract",
    "load_document",
    "load_prices",
]

# The module each public name is imported from.
_HOMES = {
    "Alternative": "tracecheck.contract.model",
    "Contract": "tracecheck.contract.model",
    "ContractBuilder": "tracecheck.contract.model",
    "contract_builder": "tracecheck.contract.model",
    "compile_contract": "tracecheck.contract.model",
    "explain_contract": "tracecheck.contract.explain",
    "LintFinding": "tracecheck.contract.lint",
    "lint_contract": "tracecheck.contract.lint",
    "load_document": "tracecheck.contract.load",
    "load_prices": "tracecheck.contract.prices",
    "ModelPrice": "tracecheck.rules.pricing",
    "Prices": "tracecheck.rules.pricing",
}


__getattr__, __dir__ = lazy_names(__name__, _HOMES)
