"""Compiled rules and the predicates they test (contracts.md §3–4), one module per idea.

A rule's `evaluate(subject)` returns the violations (empty: the rule passes) or raises
`RuleError` when the rule cannot be evaluated. `describe()` is the rule's line in `explain`
(§7.3). `needs_tool_capture` marks the rules compiled from tool keys and `retries`, which report
an error when the subject records neither a tool call nor an offered tool set (§4.11).

A violation located at a span carries that span's id (None when the span has none); its detail
always names the span as `Subject.ref` does (`#<index>` for a span without an id).

The names are imported on first use: importing one rule kind's module (`tracecheck.rules.order`)
runs this package first, and must not load every other kind with it (`tracecheck check` loads
only the kinds its contracts name).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracecheck.lazy import lazy_names

if TYPE_CHECKING:
    from tracecheck.rules.argument import Argument, ArgumentCheck
    from tracecheck.rules.base import Rule
    from tracecheck.rules.offered import ToolsOffered
    from tracecheck.rules.order import NeverUnless, Precedes
    from tracecheck.rules.ordering import OrderMode
    from tracecheck.rules.predicates import Exact, Matcher, OneOf, Pattern, Predicate, RuleError
    from tracecheck.rules.presence import Always, AtMost, Eventually, Never, TokensAtMost
    from tracecheck.rules.retry import RetrySafe, WriteTool
    from tracecheck.rules.run import RunCheck
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

# The module each public name is imported from.
_HOMES = {
    **dict.fromkeys(("Argument", "ArgumentCheck"), "tracecheck.rules.argument"),
    "Rule": "tracecheck.rules.base",
    "ToolsOffered": "tracecheck.rules.offered",
    **dict.fromkeys(("NeverUnless", "Precedes"), "tracecheck.rules.order"),
    "OrderMode": "tracecheck.rules.ordering",
    **dict.fromkeys(
        ("Exact", "Matcher", "OneOf", "Pattern", "Predicate", "RuleError"),
        "tracecheck.rules.predicates",
    ),
    **dict.fromkeys(
        ("Always", "AtMost", "Eventually", "Never", "TokensAtMost"), "tracecheck.rules.presence"
    ),
    **dict.fromkeys(("RetrySafe", "WriteTool"), "tracecheck.rules.retry"),
    "RunCheck": "tracecheck.rules.run",
    "Subject": "tracecheck.rules.subject",
}

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
