"""Which rules read tool or model calls, and so depend on every call having been recognised."""

from __future__ import annotations

from tracecheck.rules.argument import Argument
from tracecheck.rules.base import Rule
from tracecheck.rules.offered import ToolsOffered
from tracecheck.rules.predicates import Predicate
from tracecheck.rules.retry import RetrySafe

__all__ = ["reads_calls"]

_PREDICATE_FIELDS = ("p", "a", "b", "prior")


def reads_calls(rule: Rule) -> bool:
    """True when the rule's outcome depends on which spans are tool or model calls: it names a
    kind, a tool or a model, or it is about tools as such (arguments, offered tools, retries)."""
    if rule.needs_tool_capture or isinstance(rule, (Argument, ToolsOffered, RetrySafe)):
        return True
    return any(_names_calls(getattr(rule, field, None)) for field in _PREDICATE_FIELDS)


def _names_calls(predicate: Predicate | None) -> bool:
    if predicate is None:
        return False
    if predicate.kind is not None or predicate.tool is not None or predicate.model is not None:
        return True
    return _names_calls(predicate.not_)
