"""Rules that count matching spans: always, never, eventually (§4.1), atMost and
tokensAtMost (§4.5–4.6)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tracecheck.rules.base import (
    at,
    named,
    number_text,
)
from tracecheck.rules.predicates import Predicate
from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind, Span
from tracecheck.verdict import Violation

__all__ = ["Always", "AtMost", "Eventually", "Never", "TokensAtMost"]


@dataclass(frozen=True)
class Always:
    label: str
    p: Predicate
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        matches = self.p.matches
        failing = [span for span in subject.spans if not matches(span)]
        if not failing:
            return []
        shown = self.p.describe()
        return [
            at(subject, span, f"{named(subject, span)} fails always({shown})") for span in failing
        ]

    def describe(self) -> str:
        return f"every span matches {self.p.describe()}"


@dataclass(frozen=True)
class Never:
    label: str
    p: Predicate
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        found = subject.matching(self.p)
        if not found:
            return []
        shown = self.p.describe()
        return [
            at(subject, span, f"{named(subject, span)} matches never({shown})") for span in found
        ]

    def describe(self) -> str:
        return f"no span matches {self.p.describe()}"


@dataclass(frozen=True)
class Eventually:
    label: str
    p: Predicate
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        if subject.matching(self.p):
            return []
        return [
            Violation(
                None,
                f"no span matches eventually({self.p.describe()}) "
                f"over {len(subject.spans)} span(s)",
            )
        ]

    def describe(self) -> str:
        return f"some span matches {self.p.describe()}"


@dataclass(frozen=True)
class AtMost:
    label: str
    p: Predicate
    max: int
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        found = subject.matching(self.p)
        if len(found) <= self.max:
            return []
        return [
            at(
                subject,
                found[self.max],
                f"{len(found)} span(s) match {self.p.describe()}, over the limit of {self.max}",
            )
        ]

    def describe(self) -> str:
        return f"at most {self.max} span(s) match {self.p.describe()}"


@dataclass(frozen=True)
class TokensAtMost:
    label: str
    p: Predicate
    max: int
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        matched = subject.matching(self.p)
        unknown = next((span for span in matched if span.tokens.total is None), None)
        covers: list[Span] = []
        if unknown is not None:
            covers = run_totals(subject, matched)
            if not covers:
                return [
                    at(
                        subject,
                        unknown,
                        f"span {subject.ref(unknown)} has no recorded input and output token "
                        "counts, so the total is unknown",
                    )
                ]
        covered = {id(span) for cover in covers for span in below(subject, cover, matched)}
        # Every call left has a total: those with none are below a cover.
        totals = [
            total
            for span in (*covers, *matched)
            if id(span) not in covered and (total := span.tokens.total) is not None
        ]
        # Integers sum exactly; a float anywhere sums correctly rounded, so order cannot matter.
        if all(isinstance(total, int) for total in totals):
            used: int | float = sum(totals)
        else:
            used = math.fsum(totals)
        if used <= self.max:
            return []
        runs = ""
        if covers:
            refs = ", ".join(subject.ref(cover) for cover in covers)
            runs = f" ({len(covered)} of them counted in the run totals recorded on span {refs})"
        return [
            Violation(
                None,
                f"{number_text(used)} tokens across {len(matched)} span(s) matching "
                f"{self.p.describe()}{runs}, over the limit of {self.max}",
            )
        ]

    def describe(self) -> str:
        return f"spans matching {self.p.describe()} use at most {self.max} tokens in total"


def run_totals(subject: Subject, matched: Sequence[Span]) -> list[Span]:
    """The spans whose recorded run totals stand for the matched calls with no total of their
    own: for each such call, its nearest ancestor whose convention records the totals of the
    model calls below it, with a known total that is no smaller than the calls' known inputs.
    Empty when some call has no such ancestor: the budget cannot be judged."""
    covers: dict[int, Span] = {}
    for span in matched:
        if span.tokens.total is not None:
            continue
        cover = next(
            (a for a in subject.ancestors(span) if a.kind.value in a.convention.run_totals),
            None,
        )
        if cover is None or cover.tokens.total is None:
            return []
        covers[id(cover)] = cover
    for cover in covers.values():
        inputs = [s.tokens.input for s in below(subject, cover, subject.of_kind(Kind.LLM))]
        if cover.tokens.input is None or cover.tokens.input < sum(i or 0 for i in inputs):
            return []  # the run's input is less than its calls': not their total
    return list(covers.values())


def below(subject: Subject, cover: Span, spans: Sequence[Span]) -> list[Span]:
    """The spans with `cover` among their ancestors."""
    return [span for span in spans if any(a is cover for a in subject.ancestors(span))]
