"""The run rule: completion, allowed statuses and duration (§4.7)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tracecheck.naming import number_text
from tracecheck.rules.predicates import NS_PER_MS, RuleError, exact
from tracecheck.rules.subject import Subject
from tracecheck.verdict import Violation

if TYPE_CHECKING:
    from fractions import Fraction

__all__ = ["RunCheck"]


@dataclass(frozen=True)
class RunCheck:
    """The `run` rule: completion, allowed statuses, duration (§4.7)."""

    label: str
    require_completed: bool | None = None
    allowed_statuses: tuple[str, ...] | None = None
    max_duration_ms: float | None = None
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        run = subject.run
        if run is None:
            reason = subject.run_unknown or "no run record was found or passed"
            return [Violation(None, f"run record unavailable: {reason}")]
        violations = []
        status = run.status or "unknown"
        if self.require_completed:
            if run.status != "completed":
                violations.append(Violation(None, f"run status is {status}, not completed"))
            elif not run.ended:
                violations.append(
                    Violation(None, "run status is completed but no end time was recorded")
                )
        if self.allowed_statuses is not None and run.status not in self.allowed_statuses:
            violations.append(
                Violation(
                    None, f"run status {status} is not one of {', '.join(self.allowed_statuses)}"
                )
            )
        if self.max_duration_ms is not None:
            duration_ns = run.duration_ns
            if duration_ns is None:
                violations.append(
                    Violation(None, "run duration is unknown: start or end time is missing")
                )
            else:
                from fractions import Fraction  # only a duration ceiling needs it (1-2 ms)

                limit = _limit(self.max_duration_ms)
                took = Fraction(duration_ns, NS_PER_MS)
                if took > limit:
                    violations.append(
                        Violation(
                            None, f"run took {number_text(took)} ms, over {number_text(limit)} ms"
                        )
                    )
        return violations

    def describe(self) -> str:
        checks = []
        if self.require_completed:
            checks.append("the run completed with an end time recorded")
        elif self.require_completed is False:
            checks.append("the run need not complete")
        if self.allowed_statuses is not None:
            checks.append(f"run status is one of {', '.join(self.allowed_statuses)}")
        if self.max_duration_ms is not None:
            checks.append(f"the run takes at most {number_text(self.max_duration_ms)} ms")
        return "; ".join(checks) or "the run record is checked for nothing"


def _limit(number: float | int) -> Fraction:
    if isinstance(number, float) and not math.isfinite(number):
        raise RuleError(f"maxDurationMs {number!r} is not a finite number")
    return exact(number)
