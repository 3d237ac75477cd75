"""The rule operators (contracts.md §4): each a frozen value that evaluates over a subject.

`evaluate(subject)` returns the violations (empty: the rule passes) or raises `RuleError`
when the rule cannot be evaluated. `describe()` is the rule's line in `explain` (§7.3).
`needs_tool_capture` marks the rules compiled from tool keys and `retries`, which report an
error when the subject records neither a tool call nor an offered tool set (§4.11).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from tracecheck.rules.predicates import Predicate
from tracecheck.rules.subject import Subject
from tracecheck.verdict import Violation

__all__ = [
    "Always",
    "Argument",
    "ArgumentCheck",
    "AtMost",
    "Eventually",
    "Never",
    "NeverUnless",
    "OrderMode",
    "Precedes",
    "RetrySafe",
    "Rule",
    "RunCheck",
    "TokensAtMost",
    "ToolsOffered",
    "WriteTool",
]

OrderMode = Literal["start-order", "finish-before-start", "all-occurrences"]
Occurrence = Literal["first", "last", "any", "all"]


class Rule(Protocol):
    label: str
    needs_tool_capture: bool

    def evaluate(self, subject: Subject) -> list[Violation]: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class Always:
    label: str
    p: Predicate
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Never:
    label: str
    p: Predicate
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Eventually:
    label: str
    p: Predicate
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Precedes:
    label: str
    a: Predicate
    b: Predicate
    order: OrderMode = "start-order"
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class NeverUnless:
    label: str
    p: Predicate
    prior: Predicate
    order: OrderMode = "start-order"
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class AtMost:
    label: str
    p: Predicate
    max: int
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class TokensAtMost:
    label: str
    p: Predicate
    max: int
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class RunCheck:
    """The `run` rule: completion, allowed statuses, duration (§4.7)."""

    label: str
    require_completed: bool | None = None
    allowed_statuses: tuple[str, ...] | None = None
    max_duration_ms: float | None = None
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class ArgumentCheck:
    """`{op: exists}`, `{op: equals, value}`, `{op: oneOf, values}` or `{op: type, type}`."""

    op: Literal["exists", "equals", "oneOf", "type"]
    value: Any = None
    values: tuple[Any, ...] = ()
    type: str | None = None


@dataclass(frozen=True)
class Argument:
    """A JSON Pointer check on the arguments of the calls matching `p` (§4.8)."""

    label: str
    p: Predicate
    pointer: str
    check: ArgumentCheck
    occurrence: Occurrence = "all"
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class ToolsOffered:
    """`tools.enforced`: every call names an offered tool, within `declared` if given (§4.9)."""

    label: str
    declared: tuple[str, ...] | None = None
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class WriteTool:
    tool: str
    idempotency_key: str | None = None  # a JSON Pointer into the call's arguments


@dataclass(frozen=True)
class RetrySafe:
    """`retries`: a repeated call is proven safe, or reported (§4.10)."""

    label: str
    reads: tuple[str, ...] = ()
    writes: tuple[WriteTool, ...] = ()
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError
