"""A compiled contract: the rules of its base path, its alternatives and its scope (§2, §5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tracecheck.rules.capture import CaptureMode
from tracecheck.rules.operators import Rule
from tracecheck.rules.predicates import Predicate

if TYPE_CHECKING:
    from tracecheck.contract.builder import ContractBuilder
    from tracecheck.rules.pricing import Prices

__all__ = ["Alternative", "Contract"]


@dataclass(frozen=True)
class Alternative:
    id: str
    rules: tuple[Rule, ...]


@dataclass(frozen=True)
class Contract:
    """What `compile_contract` returns; rules are in compile order (§2.1)."""

    name: str
    rules: tuple[Rule, ...]
    alternatives: tuple[Alternative, ...] = ()
    scope: Predicate | None = None
    description: str | None = None
    source: str | None = None  # the file it was read from
    capture: CaptureMode | None = None  # as the document says; None (not said) is strict
    prices: Prices | None = None  # the table its cost rules price calls by (contract/prices.py)

    @staticmethod
    def builder(name: str) -> ContractBuilder:
        """A contract written in Python: `Contract.builder("x").never(tool="Bash").build()`."""
        from tracecheck.contract.builder import contract_builder

        return contract_builder(name)
