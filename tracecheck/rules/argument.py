"""Argument checks: a JSON Pointer into the arguments of matching tool calls (§4.8); the checks
themselves are the matchers of `rules/matchers.py`."""

from __future__ import annotations

from dataclasses import dataclass

from tracecheck.rules.base import (
    Occurrence,
    at,
)
from tracecheck.rules.matchers import ArgumentCheck, argument_problem, describe_check
from tracecheck.rules.predicates import Predicate
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span
from tracecheck.verdict import Violation

__all__ = ["Argument", "ArgumentCheck"]


_OCCURRENCE_SUBJECT = {
    "all": "every call matching",
    "any": "some call matching",
    "first": "the first call matching",
    "last": "the last call matching",
}


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
        found = subject.matching(self.p)
        if not found:
            return [
                Violation(
                    None,
                    f"no span matches {self.p.describe()}, "
                    "so there is no argument evidence to check",
                )
            ]
        selected = found
        if self.occurrence in ("first", "last") and len(found) > 1:
            untimed = [span for span in found if span.start_ns is None]
            if untimed:
                return [
                    at(
                        span,
                        f"span {subject.ref(span)} has no start time, "
                        f"so the {self.occurrence} call cannot be chosen",
                    )
                    for span in untimed
                ]
            # A stable sort keeps array order among equal start times.
            ordered = sorted(found, key=_start)
            selected = [ordered[0] if self.occurrence == "first" else ordered[-1]]
        failing = []
        for span in selected:
            problem = argument_problem(span, self.pointer, self.check, subject)
            if problem is None:
                if self.occurrence == "any":
                    return []
            else:
                detail = f"span {subject.ref(span)}: {problem}"
                failing.append(at(span, detail, self.pointer))
        return failing

    def describe(self) -> str:
        what = describe_check(self.pointer, self.check)
        return f"{_OCCURRENCE_SUBJECT[self.occurrence]} {self.p.describe()} {what}"


def _start(span: Span) -> int:
    return span.start_ns or 0
