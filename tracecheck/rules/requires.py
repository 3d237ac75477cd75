"""`tools.requires`: a tool may run only after another tool succeeded, optionally on the same
values (`{tool: issue_refund, after: lookup_order, same: [/order_id]}`).

A call of `tool` is preceded when a call of `after` that did not fail (status ok or unset: the
OpenTelemetry instrumentations leave a success unset) finished at or before it started, by the
recorded times. With `same`, one such call must also have, at every listed pointer of its
arguments, a value equal (as JSON) to the later call's argument at that pointer. A failed call
never satisfies it, nor does the call itself; a call without an end time proves no order, and
when it is the only candidate the violation says so. Order is judged as `neverUnless` judges it
(`rules/earlier.py`). When no earlier call has the same values but one whose arguments were
not recorded finished before, the rule cannot be evaluated (unless another call fails it).
Violations are at the offending call's span and name the pointer, never the value.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracecheck.rules.base import at
from tracecheck.rules.canonical import canonical_json
from tracecheck.rules.earlier import Calls, by_key
from tracecheck.rules.pointers import ABSENT, pointer_text, resolve
from tracecheck.rules.predicates import Exact, Predicate, RuleError
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span
from tracecheck.verdict import Violation

__all__ = ["Requires"]


@dataclass(frozen=True)
class _Earlier:
    """The calls of `after` summarised once: the successful ones, the failed ones, and with
    `same`, the successful ones by their values (all pointers, and each pointer alone) and
    those whose arguments were not recorded."""

    succeeded: Calls
    failed: Calls
    by_values: dict[tuple[str | None, ...], Calls]
    by_pointer: tuple[dict[str, Calls], ...]
    unrecorded: Calls


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
        doubts = []
        for call in calls:
            try:
                found = self._problem(subject, call, earlier)
            except RuleError as exc:
                doubts.append(str(exc))
                continue
            if found is not None:
                problem, pointer = found
                violations.append(at(call, f"span {subject.ref(call)}: {problem}", pointer))
        if violations or not doubts:
            return violations  # a call that fails fails the rule, whatever others leave open
        more = f" (and {len(doubts) - 1} more call(s))" if len(doubts) > 1 else ""
        raise RuleError(doubts[0] + more)

    def _earlier(self, subject: Subject) -> _Earlier:
        calls = subject.matching(Predicate(kind="TOOL", tool=Exact(self.after)))
        succeeded = [call for call in calls if not call.failed]
        keys = {id(call): self._keys(call) for call in succeeded} if self.same else {}

        def together(call: Span) -> tuple[str | None, ...] | None:
            found = keys.get(id(call))
            return None if found is None else tuple(found)

        def alone(place: int) -> dict[str, Calls]:
            def key(call: Span) -> str | None:
                found = keys.get(id(call))
                return None if found is None else found[place]

            return by_key(subject, succeeded, key)

        return _Earlier(
            Calls(subject, succeeded),
            Calls(subject, (call for call in calls if call.failed)),
            by_key(subject, succeeded, together),
            tuple(alone(place) for place in range(len(self.same))),
            Calls(subject, (call for call in succeeded if not call.arguments.known)),
        )

    def _keys(self, call: Span) -> list[str | None] | None:
        """The canonical JSON of the call's argument at each `same` pointer (None where
        absent), or None when the arguments are unknown."""
        if not call.arguments.known:
            return None
        keys: list[str | None] = []
        for pointer in self.same:
            value = resolve(call.arguments.value, pointer)
            keys.append(None if value is ABSENT else canonical_json(value))
        return keys

    def _problem(
        self, subject: Subject, call: Span, earlier: _Earlier
    ) -> tuple[str, str | None] | None:
        """What is wrong with one call (and the pointer it concerns), or None; `RuleError` when
        it turns on the arguments of an earlier call that were not recorded."""
        if call.start_ns is None:
            return "it has no start time, so what ran before it is unknown", None
        if not earlier.succeeded.finished_before(subject, call):
            unended = earlier.succeeded.unended(subject, call)
            if unended is not None:
                return self._unproven(subject, unended), None
            if earlier.failed.finished_before(subject, call):
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
            return (
                f"{reason}, so the same {', '.join(pointer_text(p) for p in self.same)} cannot be checked",
                None,
            )
        keys: list[str] = []
        for pointer in self.same:
            value = resolve(arguments.value, pointer)
            if value is ABSENT:
                return f"argument {pointer_text(pointer)} is absent", pointer
            keys.append(canonical_json(value))
        equal = earlier.by_values.get(tuple(keys))
        if equal is not None and equal.finished_before(subject, call):
            return None
        if earlier.unrecorded.finished_before(subject, call):
            raise RuleError(
                f"span {subject.ref(call)}: the arguments of an earlier successful {self.after} "
                "call were not recorded, so whether one has the same "
                f"{', '.join(pointer_text(p) for p in self.same)} is unknown"
            )
        unended = None if equal is None else equal.unended(subject, call)
        if unended is not None:
            return self._unproven(subject, unended), None
        for pointer, key, index in zip(self.same, keys, earlier.by_pointer, strict=True):
            alone = index.get(key)
            if alone is None or not alone.finished_before(subject, call):
                return (
                    f"argument {pointer_text(pointer)} equals the argument "
                    f"{pointer_text(pointer)} of no successful {self.after} call that finished "
                    "before it",
                    pointer,
                )
        return (
            f"no single successful {self.after} call that finished before it has the same "
            f"{', '.join(pointer_text(p) for p in self.same)}",
            self.same[0],
        )

    def _unproven(self, subject: Subject, unended: Span) -> str:
        return (
            f"no successful {self.after} call is known to have finished before it: span "
            f"{subject.ref(unended)} has no end time, so its order cannot be proven"
        )

    def describe(self) -> str:
        text = f"every call of {self.tool} starts after a successful call of {self.after} ended"
        if self.same:
            shown = ", ".join(pointer_text(p) for p in self.same)
            text += f", one with the same arguments at {shown}"
        return text
