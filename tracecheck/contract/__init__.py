"""Contracts: read, validate strictly, compile, lint and explain (contracts.md §2, §3, §7)."""

from __future__ import annotations

from tracecheck.contract.builder import ContractBuilder, contract_builder
from tracecheck.contract.compile import compile_contract
from tracecheck.contract.explain import explain_contract
from tracecheck.contract.lint import LintFinding, lint_contract
from tracecheck.contract.load import load_document
from tracecheck.contract.model import Alternative, Contract

__all__ = [
    "Alternative",
    "Contract",
    "ContractBuilder",
    "LintFinding",
    "compile_contract",
    "contract_builder",
    "explain_contract",
    "lint_contract",
    "load_document",
]
