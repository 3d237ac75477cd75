"""Rules that count matching spans: always, never, eventually (§4.1), atMost and
tokensAtMost (§4.5–4.6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from tracecheck.rules.base import (
    at,
    named,
    number_text,
)
from tracecheck.rules.predicates import Predicate
from tracecheck.rules.run_totals import tokens_used
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span
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
        return [at(span, f"{named(subject, span)} fails always({shown})") for span in failing]

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
        return [at(span, f"{named(subject, span)} matches never({shown})") for span in found]

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
        used, counted = tokens_used(subject, matched)
        if used is None:
            unknown = cast(Span, counted.unknown)
            return [
                at(
                    unknown,
                    f"span {subject.ref(unknown)} has no recorded input and output token "
                    "counts, so the total is unknown",
                )
            ]
        if used <= self.max:
            return []
        runs = ""
        if counted.covers:
            refs = ", ".join(subject.ref(cover) for cover in counted.covers)
            inside = sum(id(span) in counted.under for span in matched)
            runs = f" ({inside} of them counted in the run totals recorded on span {refs})"
        return [
            Violation(
                None,
                f"{number_text(used)} tokens across {len(matched)} span(s) matching "
                f"{self.p.describe()}{runs}, over the limit of {self.max}",
            )
        ]

    def describe(self) -> str:
        return f"spans matching {self.p.describe()} use at most {self.max} tokens in total"
