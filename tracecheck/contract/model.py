"""A compiled contract (§2, §5), and the two ways to make one: `compile_contract` from a
document, and `Contract.builder` in Python.

They share a module because they call one another round: `Contract.builder` starts a builder,
whose `build` compiles the document it wrote, and compiling makes a `Contract`. In three modules
they would import one another in a circle. The parts below them stay apart: writing the
document (builder.py), reading it (load.py), validating it and building its rules (compile.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tracecheck.contract.builder import DocumentBuilder
from tracecheck.contract.compile import compile_spec, path_rules
from tracecheck.contract.load import ContractSource, load_document
from tracecheck.contract.spec import ContractSpec, PathSpec
from tracecheck.rules.base import Rule
from tracecheck.rules.capture import CaptureMode
from tracecheck.rules.predicates import Predicate

if TYPE_CHECKING:
    from tracecheck.rules.pricing import Prices

__all__ = ["Alternative", "Contract", "ContractBuilder", "compile_contract", "contract_builder"]


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
        return contract_builder(name)


class ContractBuilder(DocumentBuilder):
    """A contract written in Python (builder.py writes its document), compiled by `build`."""

    def build(self) -> Contract:
        """Compile the document; raises `ContractError` like `compile_contract`."""
        return compile_contract(self.to_spec())


def contract_builder(name: str) -> ContractBuilder:
    """Start a contract named `name`."""
    return ContractBuilder(name)


def compile_contract(source: ContractSource) -> Contract:
    """Compile a contract from a path, JSON or YAML text, or a parsed document.

    Raises `ContractError` listing every problem (with the file, for a file).
    """
    doc, origin = load_document(source)
    spec, problems = compile_spec(doc)
    if problems or spec is None:
        from tracecheck.contract.places import refusal  # on this path only

        raise refusal(problems, origin)
    if _names_golden_run(spec):
        # Reads traces: imported only for a contract that names a golden run.
        from tracecheck.contract.golden import with_goldens

        spec, problems = with_goldens(spec, origin)
        if problems:
            from tracecheck.contract.places import refusal

            raise refusal(problems, origin)
    return _contract(spec, origin)


def _names_golden_run(spec: ContractSpec) -> bool:
    paths = (spec.base, *(spec.alternatives or ()))
    return any(p.trajectory is not None and p.trajectory.golden is not None for p in paths)


def _contract(spec: ContractSpec, origin: str | None) -> Contract:
    def rules(path: PathSpec) -> tuple[Rule, ...]:
        # Cost rules priced by the contract's own table (a table given when checking: `priced`).
        return tuple(c.rule for c in path_rules(path, spec.prices))

    return Contract(
        name=spec.name,
        rules=rules(spec.base),
        alternatives=tuple(Alternative(a.id or "", rules(a)) for a in spec.alternatives or ()),
        scope=spec.scope,
        description=spec.description,
        source=origin,
        capture=spec.capture,
        prices=spec.prices,
    )
