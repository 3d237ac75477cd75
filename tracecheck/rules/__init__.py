"""Compiled rules and the predicates they test (contracts.md §3–4)."""

from __future__ import annotations

from tracecheck.rules.operators import (
    Always,
    Argument,
    ArgumentCheck,
    AtMost,
    Eventually,
    Never,
    NeverUnless,
    OrderMode,
    Precedes,
    RetrySafe,
    Rule,
    RunCheck,
    TokensAtMost,
    ToolsOffered,
    WriteTool,
)
from tracecheck.rules.predicates import Exact, Matcher, OneOf, Pattern, Predicate, RuleError
from tracecheck.rules.subject import Subject

__all__ = [
    "Always",
    "Argument",
    "ArgumentCheck",
    "AtMost",
    "Eventually",
    "Exact",
    "Matcher",
    "Never",
    "NeverUnless",
    "OneOf",
    "OrderMode",
    "Pattern",
    "Precedes",
    "Predicate",
    "RetrySafe",
    "Rule",
    "RuleError",
    "RunCheck",
    "Subject",
    "TokensAtMost",
    "ToolsOffered",
    "WriteTool",
]
