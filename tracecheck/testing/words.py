"""How a broken rule reads in a test failure: in the contract's words, with what was seen.

A rule's violations are written by the rule operators for every report, in the rules' own
notation (`span 4b1b… ("execute_tool run_shell") matches never(kind=TOOL,tool=run_shell)`).
A test failure speaks the contract's language instead: the tool the contract names rather than
the predicate it compiles to (`run_shell was called (span 4b1b… "execute_tool run_shell")`),
what the trace held instead (`tool calls seen: lookup_order`), and one line per repeated call
rather than one per span of it. A violation this module has no better words for is shown as the
operator wrote it, with the predicate notation around it removed: nothing is ever left out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from tracecheck.report.safe import printable
from tracecheck.rules.argument import Argument
from tracecheck.rules.base import Rule
from tracecheck.rules.order import NeverUnless, Precedes
from tracecheck.rules.predicates import Exact, OneOf, Predicate
from tracecheck.rules.presence import Always, AtMost, Eventually, Never, TokensAtMost
from tracecheck.rules.retry import RetrySafe
from tracecheck.spans import Kind, Span
from tracecheck.verdict import Violation

__all__ = ["SHOWN", "phrases"]

SHOWN = 6  # span ids and tool names listed before "and <k> more"

_OVER_SPANS = re.compile(r" over (\d+) span\(s\)$")
_AT_MOST = re.compile(r"^(\d+) span\(s\) match .*, over the limit of (\d+)$")
_TOKENS = re.compile(r"^(\S+) tokens across (\d+) span\(s\) matching .*, over the limit of (\d+)$")
_NO_KEY = re.compile(
    r"^write (?P<tool>.+) was called (?P<times>\d+ times with the same arguments "
    r"\(spans [^)]*\)); span \S+ has no idempotency key at (?P<pointer>\S*), "
    r"so it may have applied more than once$"
)


def phrases(rule: Rule | None, violations: Sequence[Violation], spans: Sequence[Span]) -> list[str]:
    """One phrase per violation of `rule` (repeats of one call folded into one), worded from
    the contract; `spans` are the spans checked, for what was seen."""
    by_id = {span.span_id: span for span in spans if span.span_id}
    if isinstance(rule, Never):
        return _never(rule, violations, by_id)
    if isinstance(rule, Eventually):
        return [_eventually(rule, violation, spans) for violation in violations]
    if isinstance(rule, AtMost):
        return [_at_most(rule, violation) for violation in violations]
    if isinstance(rule, TokensAtMost):
        return [_tokens(rule, violation) for violation in violations]
    if isinstance(rule, RetrySafe):
        return _retries(violations)
    if isinstance(rule, Always):
        words = {f"fails always({rule.p.describe()})": f"does not match {_name(rule.p)}"}
        return [_replaced(v.detail, words) for v in violations]
    if isinstance(rule, Precedes):
        return [_ordered(v.detail, rule.a, rule.b) for v in violations]
    if isinstance(rule, NeverUnless):
        return [_ordered(v.detail, rule.prior, rule.p) for v in violations]
    if isinstance(rule, Argument):
        return [_argument(rule, violation) for violation in violations]
    return [violation.detail for violation in violations]


def _tool(predicate: Predicate) -> str | None:
    """The tool a predicate names, when it is exactly "a call of this tool"."""
    if predicate == Predicate(kind=Kind.TOOL.value, tool=predicate.tool) and isinstance(
        predicate.tool, Exact
    ):
        return predicate.tool.value
    return None


def _name(predicate: Predicate) -> str:
    """How a phrase names what a predicate matches: the tool's name, else the predicate."""
    tool = _tool(predicate)
    if tool is not None:
        return tool
    if predicate == Predicate(kind=Kind.LLM.value):
        return "a model call"
    if predicate == Predicate(kind=Kind.TOOL.value):
        return "a tool call"
    return f"a span matching {predicate.describe()}"


def _replaced(detail: str, words: Mapping[str, str]) -> str:
    for notation, plain in words.items():
        detail = detail.replace(notation, plain)
    return detail


def _span(span_id: str | None, by_id: Mapping[str, Span]) -> str:
    span = by_id.get(span_id or "")
    if span is None:
        return f"span {span_id}" if span_id else "a span with no id"
    return f'span {span_id} "{printable(span.name)}"'


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:SHOWN])
    rest = len(items) - SHOWN
    return f"{shown} and {rest} more" if rest > 0 else shown


def _located(violations: Sequence[Violation], by_id: Mapping[str, Span]) -> str:
    """`(span 4b1b… "execute_tool run_shell")`, or `(spans a, b, c and 2 more)`."""
    if len(violations) == 1:
        return f"({_span(violations[0].span_id, by_id)})"
    return f"(spans {_listed([v.span_id or '?' for v in violations])})"


def _times(count: int) -> str:
    return "" if count == 1 else f" {count} times"


def _never(rule: Never, violations: Sequence[Violation], by_id: Mapping[str, Span]) -> list[str]:
    """A forbidden tool (all its calls in one phrase), a tool or model outside the allowed
    ones (one phrase per tool or model), or any other span that matches."""
    tool = _tool(rule.p)
    if tool is not None:
        return [f"{tool} was called{_times(len(violations))} {_located(violations, by_id)}"]
    outside = _outside(rule.p)
    if outside is not None:
        field, what = outside
        groups: dict[str, list[Violation]] = {}
        for violation in violations:
            span = by_id.get(violation.span_id or "")
            value = getattr(span, field, None) if span is not None else None
            groups.setdefault(printable(value) if value else "(unnamed)", []).append(violation)
        return [
            f"{value} was {'called' if field == 'tool_name' else 'used'}{_times(len(group))}, "
            f"outside the allowed {what} {_located(group, by_id)}"
            for value, group in groups.items()
        ]
    shown = rule.p.describe()
    return [
        _replaced(v.detail, {f"matches never({shown})": f"matches {shown}"}) for v in violations
    ]


def _outside(predicate: Predicate) -> tuple[str, str] | None:
    """(span field, plural noun) for `tools.allowed` and `llm.allowedModels` predicates."""
    inner = predicate.not_
    if inner is None:
        return None
    if predicate == Predicate(kind=Kind.TOOL.value, not_=inner) and inner == Predicate(
        tool=inner.tool
    ):
        return ("tool_name", "tools") if isinstance(inner.tool, OneOf) else None
    if predicate == Predicate(kind=Kind.LLM.value, not_=inner) and inner == Predicate(
        model=inner.model
    ):
        return ("model", "models") if isinstance(inner.model, OneOf) else None
    return None


def _eventually(rule: Eventually, violation: Violation, spans: Sequence[Span]) -> str:
    over = _OVER_SPANS.search(violation.detail)
    count = int(over.group(1)) if over else len(spans)
    tool = _tool(rule.p)
    if tool is None:
        return f"no span matches {rule.p.describe()} among {count} span(s)"
    called = list(dict.fromkeys(printable(s.tool_name or "") for s in spans if s.kind == Kind.TOOL))
    seen = (
        f"tool calls seen: {_listed([c or '(unnamed)' for c in called])}"
        if called
        else f"no tool call among {count} span(s)"
    )
    return f"{tool} was never called; {seen}"


def _at_most(rule: AtMost, violation: Violation) -> str:
    found = _AT_MOST.match(violation.detail)
    if found is None:
        return violation.detail
    count, limit = found.groups()
    tool = _tool(rule.p)
    if tool is not None:
        return f"{tool} was called {count} times, over the limit of {limit}"
    if rule.p == Predicate(kind=Kind.TOOL.value):
        return f"{count} tool calls, over the limit of {limit}"
    if rule.p == Predicate(kind=Kind.LLM.value):
        return f"{count} model calls, over the limit of {limit}"
    return f"{count} spans match {rule.p.describe()}, over the limit of {limit}"


def _tokens(rule: TokensAtMost, violation: Violation) -> str:
    found = _TOKENS.match(violation.detail)
    if found is None or rule.p != Predicate(kind=Kind.LLM.value):
        return violation.detail
    used, calls, limit = found.groups()
    return f"{used} tokens across {calls} model calls, over the limit of {limit}"


def _retries(violations: Sequence[Violation]) -> list[str]:
    """One phrase per repeated call: the operator reports each of its spans that lacks a key."""
    out: list[str] = []
    for violation in violations:
        found = _NO_KEY.match(violation.detail)
        if found is None:
            out.append(_unwritten(violation.detail))
            continue
        phrase = (
            f"{found['tool']} was called {found['times']} without an idempotency key at "
            f"{found['pointer'] or '(whole value)'}, so it may have applied more than once"
        )
        if phrase not in out:
            out.append(phrase)
    return out


def _unwritten(detail: str) -> str:
    return detail.removeprefix("write ")


def _ordered(detail: str, first: Predicate, then: Predicate) -> str:
    words = {}
    for predicate in (first, then):
        words[f"required predecessor {predicate.describe()} never occurred"] = (
            f"{_name(predicate)} was never called"
            if _tool(predicate)
            else f"no span matches {predicate.describe()}"
        )
        words[f"required successor {predicate.describe()} never occurred"] = words[
            f"required predecessor {predicate.describe()} never occurred"
        ]
    tools = {p.describe(): name for p in (first, then) if (name := _tool(p)) is not None}
    detail = _replaced(detail, words)
    return _replaced(detail, tools)


def _argument(rule: Argument, violation: Violation) -> str:
    tool = _tool(rule.p)
    if tool is None:
        return violation.detail
    words: dict[str, str] = {
        f"no span matches {rule.p.describe()}, so there is no argument evidence to check": (
            f"{tool} was never called, so there is no argument to check"
        )
    }
    detail = _replaced(violation.detail, words)
    if detail.startswith("span ") and ": " in detail:
        where, problem = detail.split(": ", 1)
        return f"{tool} call ({where}): {problem}"
    return detail
