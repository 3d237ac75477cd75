"""How each producer family records what contracts read, as data (see `model.Convention`).

`select(scope, attributes)` names the convention that reads a span; `read` applies it.
"""

from __future__ import annotations

from tracecheck.conventions.model import (
    Convention,
    Field,
    KindRule,
    ScopeMatch,
    SpanFacts,
    TokenFields,
    fields,
)
from tracecheck.conventions.registry import CONVENTIONS, GENERIC, select

__all__ = [
    "CONVENTIONS",
    "GENERIC",
    "Convention",
    "Field",
    "KindRule",
    "ScopeMatch",
    "SpanFacts",
    "TokenFields",
    "fields",
    "select",
]
