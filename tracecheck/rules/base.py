"""What every rule operator shares: the protocol the checker relies on, and how messages
name spans, list names and print numbers (`naming.number_text`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from tracecheck.naming import number_text
from tracecheck.rules.predicates import Predicate
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span
from tracecheck.verdict import Violation

__all__ = [
    "SHOWN_NAMES",
    "Occurrence",
    "Rule",
    "at",
    "listed",
    "named",
    "number_text",
    "rule_predicates",
]

Occurrence = Literal["first", "last", "any", "all"]

SHOWN_NAMES = 6  # offered tool names and span refs listed before "and <k> more"


class Rule(Protocol):
    """What the checker needs of a compiled rule; every operator below is one."""

    @property
    def label(self) -> str: ...

    @property
    def needs_tool_capture(self) -> bool: ...

    def evaluate(self, subject: Subject) -> list[Violation]: ...

    def describe(self) -> str: ...


def rule_predicates(rule: Rule) -> list[tuple[str, Predicate]]:
    """The span predicates a rule holds, by field name, whatever the field is called (`p`,
    `a`, `b`, `prior`, ...): what capture doubt and duration doubt read."""
    found = []
    for name in getattr(rule, "__dataclass_fields__", ()):  # every rule is a dataclass
        value = getattr(rule, name)
        if isinstance(value, Predicate):
            found.append((name, value))
    return found


def at(span: Span, detail: str, pointer: str | None = None) -> Violation:
    """A violation at `span`: its id, and the tool it called when it is a tool call."""
    return Violation(span.span_id or None, detail, span.tool_name, pointer)


def named(subject: Subject, span: Span) -> str:
    return f'span {subject.ref(span)} ("{span.name}")'


def listed(items: Sequence[str]) -> str:
    """Up to six items joined by `, `, then ` and <k> more`."""
    shown = ", ".join(items[:SHOWN_NAMES])
    rest = len(items) - SHOWN_NAMES
    return f"{shown} and {rest} more" if rest > 0 else shown
