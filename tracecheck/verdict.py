"""What checking a trace against a contract concludes (contracts.md §6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["RuleResult", "RuleStatus", "Verdict", "VerdictStatus", "Violation", "worst"]

RuleStatus = Literal["pass", "fail", "error", "skipped"]
VerdictStatus = Literal["pass", "fail", "error"]
_SEVERITY = {"pass": 0, "fail": 1, "error": 2}


@dataclass(frozen=True, slots=True)
class Violation:
    """One way a trace broke a rule, located at a span when there is one: `detail` in words,
    and as data the span's id, the tool it called (a tool call) and, for a rule on a call's
    arguments, the JSON Pointer it reads (`""`: the whole arguments). Never a value."""

    span_id: str | None
    detail: str
    tool: str | None = None
    pointer: str | None = None


@dataclass(frozen=True, slots=True)
class RuleResult:
    """One compiled rule's outcome.

    An alternative's rule is reported as `<id>/<label>` (§2.1); `alternative` holds the id.
    `kind` names the rule's operator (`never`, `eventually`, `atMost`, `argument`, `precedes`,
    `run`, ...), None when the outcome is not a rule's (a check that broke).
    """

    label: str
    alternative: str | None
    status: RuleStatus
    violations: tuple[Violation, ...] = ()
    error: str | None = None
    kind: str | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    contract: str
    trace_id: str | None
    status: VerdictStatus
    rules: tuple[RuleResult, ...]
    score: float
    notes: str
    # What the reading of the spans leaves uncertain, in words (spans no convention mapped,
    # totals that disagree with the producer's own): reported beside the rules.
    reading_notes: tuple[str, ...] = ()
    # How many of the checked spans each producer convention read, by convention name.
    conventions: tuple[tuple[str, int], ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == "pass"


def worst(statuses: list[VerdictStatus]) -> VerdictStatus:
    """The overall status of several verdicts: error > fail > pass."""
    return max(statuses, key=_SEVERITY.__getitem__, default="pass")
