"""Which rules read tool or model calls, and so depend on every call having been recognised."""

from __future__ import annotations

from typing import Literal

from tracecheck.rules.argument import Argument
from tracecheck.rules.base import Rule, rule_predicates
from tracecheck.rules.offered import ToolsOffered
from tracecheck.rules.predicates import Predicate
from tracecheck.rules.retry import RetrySafe

__all__ = ["CAPTURES", "MODELS", "TOOLS", "CaptureMode", "reads_calls"]

# How doubt about tool and model capture weighs on the rules it concerns: `strict` (the
# default) reports them as could not be evaluated, `lenient` judges them with a note only.
CaptureMode = Literal["strict", "lenient"]
CAPTURES: tuple[CaptureMode, ...] = ("strict", "lenient")

TOOLS = "tools"
MODELS = "models"
_MODEL_KINDS = frozenset({"LLM", "EMBEDDING"})


def reads_calls(rule: Rule) -> frozenset[str]:
    """Which calls a rule's outcome depends on having been recognised: `tools` when it names
    TOOL spans or a tool or is about tools as such (arguments, offered tools, retries), `models`
    when it names LLM spans or a model, both when it names another kind; none otherwise."""
    if rule.needs_tool_capture or isinstance(rule, (Argument, ToolsOffered, RetrySafe)):
        return frozenset({TOOLS})
    found: set[str] = set()
    for _, predicate in rule_predicates(rule):
        found |= _calls_named(predicate)
    return frozenset(found)


def _calls_named(predicate: Predicate | None) -> set[str]:
    if predicate is None:
        return set()
    found = _calls_named(predicate.not_)
    if predicate.tool is not None or predicate.kind == "TOOL":
        found.add(TOOLS)
    if predicate.model is not None or predicate.kind in _MODEL_KINDS:
        found.add(MODELS)
    if predicate.kind is not None and predicate.kind not in _MODEL_KINDS | {"TOOL"}:
        found |= {TOOLS, MODELS}
    return found
