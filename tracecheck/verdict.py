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

    def __reduce__(self) -> tuple[type[Violation], tuple[object, ...]]:
        # Pickled by its fields in order: the state methods of a slots dataclass call
        # `fields()` for every object, most of what sending verdicts between processes cost.
        return (Violation, (self.span_id, self.detail, self.tool, self.pointer))


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

    def __reduce__(self) -> tuple[type[RuleResult], tuple[object, ...]]:
        fields = (self.label, self.alternative, self.status, self.violations, self.error)
        return (RuleResult, (*fields, self.kind))


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

    def __reduce__(self) -> tuple[type[Verdict], tuple[object, ...]]:
        judged = (self.contract, self.trace_id, self.status, self.rules, self.score, self.notes)
        return (Verdict, (*judged, self.reading_notes, self.conventions))

    @property
    def ok(self) -> bool:
        return self.status == "pass"


def worst(statuses: list[VerdictStatus]) -> VerdictStatus:
    """The overall status of several verdicts: error > fail > pass."""
    return max(statuses, key=_SEVERITY.__getitem__, default="pass")
