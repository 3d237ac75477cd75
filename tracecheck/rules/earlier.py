"""Earlier calls: whether some call of a tool finished before another call started, for the
rules that need a call or a value to have come first (`tools.requires`, `sameAs`).

A group of calls is summarised once as an `ordering.Guard` and judged by `ordering.witness` in
finish-before-start mode, as `neverUnless` judges it: by the recorded times only (end ≤ start),
a call never witnessing itself, a call without an end time proving nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

from tracecheck.rules.ordering import Guard, witness
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span

__all__ = ["Calls", "by_key"]

K = TypeVar("K", bound=Hashable)


class Calls:
    """Some calls of a subject, summarised for witnessing."""

    __slots__ = ("guard", "members")

    def __init__(self, subject: Subject, calls: Iterable[Span]) -> None:
        positions = [subject.position(call) for call in calls]
        self.guard = Guard(subject.spans, positions)
        self.members = frozenset(positions)

    def before(self, subject: Subject, call: Span) -> str | None:
        """None when one of these calls other than `call` finished at or before `call` started;
        else why not, in `witness`'s words."""
        index = subject.position(call)
        return witness(
            subject.spans,
            index,
            self.guard,
            index in self.members,
            "finish-before-start",
            subject.ref,
        )

    def finished_before(self, subject: Subject, call: Span) -> bool:
        return self.before(subject, call) is None

    def unended(self, subject: Subject, call: Span) -> Span | None:
        """One of these calls other than `call` that records no end time, if any: its order
        cannot be proven either way."""
        index = subject.position(call)
        for other in self.guard.no_end:
            if other != index:
                return subject.spans[other]
        return None


def by_key(
    subject: Subject, calls: Iterable[Span], key: Callable[[Span], K | None]
) -> dict[K, Calls]:
    """The calls grouped by `key` (None leaves a call out), each group summarised."""
    groups: dict[K, list[Span]] = {}
    for call in calls:
        found = key(call)
        if found is not None:
            groups.setdefault(found, []).append(call)
    return {found: Calls(subject, members) for found, members in groups.items()}
