"""`tools.requires`: a tool may run only after another tool succeeded, optionally on the same
values (`{tool: issue_refund, after: lookup_order, same: [/order_id]}`).

A call of `tool` is preceded when a call of `after` that did not fail (status ok or unset: the
OpenTelemetry instrumentations leave a success unset) finished at or before it started, by the
recorded times. With `same`, one such call must also have, at every listed pointer of its
arguments, a value equal (as JSON) to the later call's argument at that pointer. A failed call
never satisfies it, nor does a call without an end time, nor the call itself. Violations are at
the offending call's span and name the pointer, never the value.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracecheck.rules.base import at
from tracecheck.rules.canonical import canonical_json
from tracecheck.rules.matchers import failed
from tracecheck.rules.pointers import ABSENT, resolve
from tracecheck.rules.predicates import Exact, Predicate
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span
from tracecheck.verdict import Violation

__all__ = ["Requires"]

# (end time, call id): the two earliest, so that a call is never its own earlier call.
_Stamps = list[tuple[int, int]]


@dataclass(frozen=True)
class _Earlier:
    """The calls of `after` summarised once: successful ones by end, failed ones by end, and
    with `same`, successful ones by their values (all pointers, and each pointer alone)."""

    succeeded: _Stamps
    failed: _Stamps
    by_values: dict[tuple[str | None, ...], _Stamps]
    by_pointer: tuple[dict[str, _Stamps], ...]


@dataclass(frozen=True)
class Requires:
    """Every call of `tool` comes after a successful call of `after` (on the same values)."""

    label: str
    tool: str
    after: str
    same: tuple[str, ...] = ()
    needs_tool_capture: bool = True

    def evaluate(self, subject: Subject) -> list[Violation]:
        calls = subject.matching(Predicate(kind="TOOL", tool=Exact(self.tool)))
        if not calls:
            return []
        earlier = self._earlier(subject)
        violations = []
        for call in calls:
            found = self._problem(call, earlier)
            if found is not None:
                problem, pointer = found
                violations.append(
                    at(subject, call, f"span {subject.ref(call)}: {problem}", pointer)
                )
        return violations

    def _earlier(self, subject: Subject) -> _Earlier:
        earlier = _Earlier([], [], {}, tuple({} for _ in self.same))
        for call in subject.matching(Predicate(kind="TOOL", tool=Exact(self.after))):
            if call.end_ns is None:
                continue
            stamp = (call.end_ns, id(call))
            if failed(call):
                _keep(earlier.failed, stamp)
                continue
            _keep(earlier.succeeded, stamp)
            keys = self._keys(call)
            if keys is None:
                continue
            _keep(earlier.by_values.setdefault(tuple(keys), []), stamp)
            for index, key in zip(earlier.by_pointer, keys, strict=True):
                if key is not None:
                    _keep(index.setdefault(key, []), stamp)
        return earlier

    def _keys(self, call: Span) -> list[str | None] | None:
        """The canonical JSON of the call's argument at each `same` pointer (None where
        absent), or None when there is no `same` or the arguments are unknown."""
        if not self.same or not call.arguments.known:
            return None
        keys: list[str | None] = []
        for pointer in self.same:
            value = resolve(call.arguments.value, pointer)
            keys.append(None if value is ABSENT else canonical_json(value))
        return keys

    def _problem(self, call: Span, earlier: _Earlier) -> tuple[str, str | None] | None:
        start = call.start_ns
        if start is None:
            return "it has no start time, so what ran before it is unknown", None
        if not _before(earlier.succeeded, start, call):
            if _before(earlier.failed, start, call):
                return (
                    f"{self.tool} runs after {self.after} failed, with no successful "
                    f"{self.after} call finished before it",
                    None,
                )
            return f"{self.tool} runs before any successful {self.after} call finished", None
        if not self.same:
            return None
        arguments = call.arguments
        if not arguments.known:
            reason = arguments.reason or "the span carries no argument evidence"
            return f"{reason}, so the same {', '.join(self.same)} cannot be checked", None
        keys: list[str] = []
        for pointer in self.same:
            value = resolve(arguments.value, pointer)
            if value is ABSENT:
                return f"argument {_shown(pointer)} is absent", pointer
            keys.append(canonical_json(value))
        together: tuple[str | None, ...] = tuple(keys)
        found = earlier.by_values.get(together, [])
        if _before(found, start, call):
            return None
        for pointer, key, index in zip(self.same, keys, earlier.by_pointer, strict=True):
            if not _before(index.get(key, []), start, call):
                return (
                    f"argument {_shown(pointer)} equals the argument {_shown(pointer)} of no "
                    f"successful {self.after} call that finished before it",
                    pointer,
                )
        return (
            f"no single successful {self.after} call that finished before it has the same "
            f"{', '.join(_shown(p) for p in self.same)}",
            self.same[0],
        )

    def describe(self) -> str:
        text = f"every call of {self.tool} starts after a successful call of {self.after} ended"
        if self.same:
            text += f", one with the same arguments at {', '.join(_shown(p) for p in self.same)}"
        return text


def _keep(best: _Stamps, stamp: tuple[int, int]) -> None:
    best.append(stamp)
    best.sort()
    del best[2:]


def _before(best: _Stamps, start: int, call: Span) -> bool:
    return any(end <= start and owner != id(call) for end, owner in best)


def _shown(pointer: str) -> str:
    return pointer if pointer else "(whole value)"
