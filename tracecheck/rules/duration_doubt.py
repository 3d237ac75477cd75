"""The duration doubt of a span predicate: its `durationMs` on a span that records no duration
(issue 28, item 4).

Apart from the timing rules (timing.py) because every check asks it of every rule that passes,
and a contract with no timing rule need not load those.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import product
from typing import TYPE_CHECKING, Any

from tracecheck.rules.base import Rule, at, named, rule_predicates

if TYPE_CHECKING:
    from tracecheck.rules.predicates import Predicate
    from tracecheck.rules.subject import Subject
    from tracecheck.spans import Span
    from tracecheck.verdict import Violation

__all__ = ["unknown_durations"]


def unknown_durations(rule: Rule, subject: Subject) -> list[Violation]:
    """Why a rule that found nothing wrong cannot pass: some span's match of one of its
    predicates turns on a duration the span does not record, and the rule would fail if that
    span had some duration. Empty when the pass holds whatever those durations were.

    A rule that tests every span (or counts, or orders them) passes whatever the durations were
    when it passes with each predicate matching the most and the fewest spans it could; for
    another (an argument check of the first or last call) any span in doubt fails it.
    """
    timed = _duration_fields(rule)
    if not timed:
        return []
    doubtful: dict[int, tuple[Span, Predicate]] = {}
    for _name, predicate in timed:
        for span in subject.spans:
            if id(span) not in doubtful and not predicate.decided(span):
                doubtful[id(span)] = (span, predicate)
    if not doubtful or _passes_at_every_corner(rule, timed, subject):
        return []
    return [
        at(
            span,
            f"{named(subject, span)} has no start or end time (or ends before it starts), so "
            f"whether it matches {predicate.describe()} is unknown",
        )
        for span, predicate in doubtful.values()
    ]


def _duration_fields(rule: Rule) -> list[tuple[str, Predicate]]:
    return [(name, p) for name, p in rule_predicates(rule) if p.reads_duration]


def _passes_at_every_corner(
    rule: Rule, timed: list[tuple[str, Predicate]], subject: Subject
) -> bool:
    """Whether the rule passes with each predicate matching the most and the fewest spans in
    doubt, in every combination: for rules whose outcome moves one way as a predicate matches
    more spans (or fails only for matching none), that bounds every other reading."""
    if not _monotone(rule):
        return False
    dataclass_rule: Any = rule  # every monotone rule is a frozen dataclass
    for corner in product((True, False), repeat=len(timed)):
        changes = {
            name: predicate.assuming_unknown_durations(matching)
            for (name, predicate), matching in zip(timed, corner, strict=True)
        }
        if replace(dataclass_rule, **changes).evaluate(subject):
            return False
    return True


def _monotone(rule: Rule) -> bool:
    from tracecheck.rules.argument import Argument
    from tracecheck.rules.order import NeverUnless, Precedes
    from tracecheck.rules.presence import Always, AtMost, Eventually, Never, TokensAtMost

    if isinstance(rule, Argument):
        return rule.occurrence in ("all", "any")
    return isinstance(
        rule, (Always, AtMost, Eventually, Never, NeverUnless, Precedes, TokensAtMost)
    )
