"""Rules about order: precedes and neverUnless (§4.2–4.4); witnessing lives in `ordering`."""

from __future__ import annotations

from dataclasses import dataclass

from tracecheck.rules.base import (
    at,
)
from tracecheck.rules.ordering import Guard, OrderMode, witness
from tracecheck.rules.predicates import Predicate
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span
from tracecheck.verdict import Violation

__all__ = ["NeverUnless", "Precedes"]


def _unwitnessed(
    subject: Subject, guard: Predicate, guarded: Predicate, order: OrderMode
) -> tuple[int, int, list[tuple[Span, str]]]:
    """(guard matches, guarded matches, [(guarded span, reason)] for each one not witnessed)."""
    spans = subject.spans
    guard_indices = [subject.position(span) for span in subject.matching(guard)]
    guarded_indices = [subject.position(span) for span in subject.matching(guarded)]
    is_guard = set(guard_indices)
    summary = Guard(spans, guard_indices)
    failures: list[tuple[Span, str]] = []
    for index in guarded_indices:
        reason = witness(spans, index, summary, index in is_guard, order, subject.ref)
        if reason is not None:
            failures.append((spans[index], reason))
    return summary.count, len(guarded_indices), failures


@dataclass(frozen=True)
class Precedes:
    label: str
    a: Predicate
    b: Predicate
    order: OrderMode = "start-order"
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        a_count, b_count, failures = _unwitnessed(subject, self.a, self.b, self.order)
        shown_a, shown_b = self.a.describe(), self.b.describe()
        if a_count == 0 or b_count == 0:
            violations = []
            if a_count == 0:
                violations.append(Violation(None, f"required predecessor {shown_a} never occurred"))
            if b_count == 0:
                violations.append(Violation(None, f"required successor {shown_b} never occurred"))
            return violations
        return [
            at(span, f"{shown_b} is not preceded by {shown_a}: {reason}")
            for span, reason in failures
        ]

    def describe(self) -> str:
        return (
            f"{self.a.describe()} and {self.b.describe()} both occur, "
            f"and the first comes before the second ({self.order})"
        )


@dataclass(frozen=True)
class NeverUnless:
    label: str
    p: Predicate
    prior: Predicate
    order: OrderMode = "start-order"
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        _, _, failures = _unwitnessed(subject, self.prior, self.p, self.order)
        if not failures:
            return []
        shown_p, shown_prior = self.p.describe(), self.prior.describe()
        return [
            at(span, f"{shown_p} without an earlier {shown_prior}: {reason}")
            for span, reason in failures
        ]

    def describe(self) -> str:
        return f"every {self.p.describe()} has an earlier {self.prior.describe()} ({self.order})"
