"""The rule operators (contracts.md §4): each a frozen value that evaluates over a subject.

`evaluate(subject)` returns the violations (empty: the rule passes) or raises `RuleError`
when the rule cannot be evaluated. `describe()` is the rule's line in `explain` (§7.3).
`needs_tool_capture` marks the rules compiled from tool keys and `retries`, which report an
error when the subject records neither a tool call nor an offered tool set (§4.11).

A violation located at a span carries that span's id (None when the span has none); its detail
always names the span as `Subject.ref` does (`#<index>` for a span without an id).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal, Protocol

from tracecheck.rules.canonical import canonical_json, canonical_number
from tracecheck.rules.ordering import Guard, OrderMode, witness
from tracecheck.rules.pointers import ABSENT, json_type, resolve, without_member
from tracecheck.rules.predicates import Predicate, RuleError, json_equal
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span
from tracecheck.verdict import Violation

__all__ = [
    "Always",
    "Argument",
    "ArgumentCheck",
    "AtMost",
    "Eventually",
    "Never",
    "NeverUnless",
    "Occurrence",
    "OrderMode",
    "Precedes",
    "RetrySafe",
    "Rule",
    "RunCheck",
    "TokensAtMost",
    "ToolsOffered",
    "WriteTool",
]

Occurrence = Literal["first", "last", "any", "all"]

_SHOWN_NAMES = 6  # offered tool names and span refs listed before "and <k> more"


class Rule(Protocol):
    """What the checker needs of a compiled rule; every operator below is one."""

    @property
    def label(self) -> str: ...

    @property
    def needs_tool_capture(self) -> bool: ...

    def evaluate(self, subject: Subject) -> list[Violation]: ...

    def describe(self) -> str: ...


def _at(subject: Subject, span: Span, detail: str) -> Violation:
    return Violation(span.span_id or None, detail)


def _named(subject: Subject, span: Span) -> str:
    return f'span {subject.ref(span)} ("{span.name}")'


def _listed(items: Sequence[str]) -> str:
    """Up to six items joined by `, `, then ` and <k> more`."""
    shown = ", ".join(items[:_SHOWN_NAMES])
    rest = len(items) - _SHOWN_NAMES
    return f"{shown} and {rest} more" if rest > 0 else shown


def _number_text(number: int | float | Fraction | Decimal) -> str:
    """A number as a reader expects it: integral values without a fraction, no exponent."""
    if isinstance(number, float) and not math.isfinite(number):
        return repr(number)
    if isinstance(number, Fraction):
        exact = _fraction_decimal(number)
    elif isinstance(number, float):
        exact = Decimal(repr(number))
    else:
        exact = Decimal(number)
    if exact == exact.to_integral_value():
        return str(int(exact))
    return format(exact.normalize(), "f")


def _fraction_decimal(number: Fraction) -> Decimal:
    return Decimal(number.numerator) / Decimal(number.denominator)


# --------------------------------------------------------------------------------------------
# §4.1 always / never / eventually


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
            _at(subject, span, f"{_named(subject, span)} fails always({shown})") for span in failing
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
            _at(subject, span, f"{_named(subject, span)} matches never({shown})") for span in found
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


# --------------------------------------------------------------------------------------------
# §4.2–4.4 precedes / neverUnless


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
    if summary.count and guarded_indices:
        ref = subject.ref
        for index in guarded_indices:
            reason = witness(spans, index, summary, index in is_guard, order, ref)
            if reason is not None:
                failures.append((spans[index], reason))
    elif guarded_indices:
        for index in guarded_indices:
            reason = witness(spans, index, summary, False, order, subject.ref)
            failures.append((spans[index], reason or ""))
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
            _at(subject, span, f"{shown_b} is not preceded by {shown_a}: {reason}")
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
            _at(subject, span, f"{shown_p} without an earlier {shown_prior}: {reason}")
            for span, reason in failures
        ]

    def describe(self) -> str:
        return f"every {self.p.describe()} has an earlier {self.prior.describe()} ({self.order})"


# --------------------------------------------------------------------------------------------
# §4.5–4.6 atMost / tokensAtMost


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
            _at(
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
        totals: list[int | float] = []
        for span in subject.matching(self.p):
            total = span.tokens.total
            if total is None:
                return [
                    _at(
                        subject,
                        span,
                        f"span {subject.ref(span)} has no recorded input and output token "
                        "counts, so the total is unknown",
                    )
                ]
            totals.append(total)
        # Integers sum exactly; a float anywhere sums correctly rounded, so order cannot matter.
        if all(isinstance(total, int) for total in totals):
            used: int | float = sum(totals)
        else:
            used = math.fsum(totals)
        if used <= self.max:
            return []
        return [
            Violation(
                None,
                f"{_number_text(used)} tokens across {len(totals)} span(s) matching "
                f"{self.p.describe()}, over the limit of {self.max}",
            )
        ]

    def describe(self) -> str:
        return f"spans matching {self.p.describe()} use at most {self.max} tokens in total"


# --------------------------------------------------------------------------------------------
# §4.7 run


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
            elif run.end_ns is None:
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
                limit = _exact(self.max_duration_ms)
                took = Fraction(duration_ns, 1_000_000)
                if took > limit:
                    violations.append(
                        Violation(
                            None, f"run took {_number_text(took)} ms, over {_number_text(limit)} ms"
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
            checks.append(f"the run takes at most {_number_text(self.max_duration_ms)} ms")
        return "; ".join(checks) or "the run record is checked for nothing"


def _exact(number: float | int) -> Fraction:
    if isinstance(number, float) and not math.isfinite(number):
        raise RuleError(f"maxDurationMs {number!r} is not a finite number")
    return Fraction(repr(number)) if isinstance(number, float) else Fraction(number)


# --------------------------------------------------------------------------------------------
# §4.8 argument


@dataclass(frozen=True)
class ArgumentCheck:
    """`{op: exists}`, `{op: equals, value}`, `{op: oneOf, values}` or `{op: type, type}`."""

    op: Literal["exists", "equals", "oneOf", "type"]
    value: Any = None
    values: tuple[Any, ...] = ()
    type: str | None = None


_ARTICLES = {
    "string": "a string",
    "number": "a number",
    "boolean": "a boolean",
    "object": "an object",
    "array": "an array",
    "null": "null",
}


def _a(type_name: str) -> str:
    return _ARTICLES.get(type_name, f"a {type_name}")


def _pointer_text(pointer: str) -> str:
    return pointer if pointer else "(whole value)"


def _argument_problem(span: Span, pointer: str, check: ArgumentCheck) -> str | None:
    """Why the call's argument fails the check (never echoing the value), or None."""
    arguments = span.arguments
    if not arguments.known:
        return arguments.reason or "the span carries no argument evidence"
    value = resolve(arguments.value, pointer)
    shown = _pointer_text(pointer)
    if value is ABSENT:
        return f"argument {shown} is absent"
    if check.op == "exists":
        return None
    actual = json_type(value)
    if actual is None:
        raise RuleError(f"argument {shown} holds a {type(value).__name__} value, which is not JSON")
    if check.op == "equals":
        if json_equal(value, check.value):
            return None
        return f"argument {shown} ({_a(actual)}) does not equal the expected value"
    if check.op == "oneOf":
        if any(json_equal(value, expected) for expected in check.values):
            return None
        return f"argument {shown} ({_a(actual)}) is not one of the expected values"
    if check.op == "type":
        if actual == check.type:
            return None
        return f"argument {shown} is {_a(actual)}, not {_a(check.type or 'value')}"
    raise RuleError(f"unknown argument check {check.op!r}")


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
                    _at(
                        subject,
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
            problem = _argument_problem(span, self.pointer, self.check)
            if problem is None:
                if self.occurrence == "any":
                    return []
            else:
                failing.append(_at(subject, span, f"span {subject.ref(span)}: {problem}"))
        return failing

    def describe(self) -> str:
        shown = _pointer_text(self.pointer)
        check = self.check
        if check.op == "exists":
            what = f"has argument {shown}"
        elif check.op == "equals":
            what = f"has argument {shown} equal to {_json_text(check.value)}"
        elif check.op == "oneOf":
            what = f"has argument {shown} equal to one of {_json_list(check.values)}"
        else:
            what = f"has argument {shown} of type {check.type}"
        return f"{_OCCURRENCE_SUBJECT[self.occurrence]} {self.p.describe()} {what}"


def _start(span: Span) -> int:
    return span.start_ns or 0


def _json_text(value: Any) -> str:
    try:
        return canonical_json(value)
    except RuleError:
        return repr(value)


def _json_list(values: Sequence[Any]) -> str:
    return ", ".join(_json_text(value) for value in values)


# --------------------------------------------------------------------------------------------
# §4.9 toolsOffered


_NO_OFFERED_RECORD = (
    "no span records the tools offered to the model (gen_ai.tool.definitions), "
    "so what the harness enforced is unknown"
)


@dataclass(frozen=True)
class ToolsOffered:
    """`tools.enforced`: every call names an offered tool, within `declared` if given (§4.9)."""

    label: str
    declared: tuple[str, ...] | None = None
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        violations: list[Violation] = []
        offered: set[str] = set()
        recorded = False
        declared = None if self.declared is None else frozenset(self.declared)
        for span in subject.spans:
            record = span.offered_tools
            if record is None:
                continue
            recorded = True
            ref = subject.ref(span)
            if record.problem is not None:
                violations.append(_at(subject, span, f"span {ref}: {record.problem}"))
            offered.update(record.names)
            if declared is not None:
                undeclared = [name for name in record.names if name not in declared]
                if undeclared:
                    violations.append(
                        _at(
                            subject,
                            span,
                            f"span {ref} offered the model {len(undeclared)} undeclared "
                            f"tool(s): {_listed(undeclared)}",
                        )
                    )
        if not recorded:
            return [Violation(None, _NO_OFFERED_RECORD)]
        for span in subject.tool_spans:
            name = span.tool_name
            if not name:
                violations.append(
                    _at(
                        subject,
                        span,
                        f"span {subject.ref(span)} has no tool name, "
                        "so it cannot be matched to an offered tool",
                    )
                )
            elif name not in offered:
                violations.append(
                    _at(
                        subject,
                        span,
                        f"span {subject.ref(span)} called {name}, which was never offered: "
                        "the harness did not enforce its tool set",
                    )
                )
        return violations

    def describe(self) -> str:
        text = "every tool call names a tool offered to the model"
        if self.declared is not None:
            text += f", within: {', '.join(self.declared)}"
        return text


# --------------------------------------------------------------------------------------------
# §4.10 retrySafe


@dataclass(frozen=True)
class WriteTool:
    tool: str
    idempotency_key: str | None = None  # a JSON Pointer into the call's arguments


def _idempotency_key(span: Span, pointer: str) -> str | None:
    """The call's key as a string (`42` and `"42"` are one key), or None when it has none."""
    arguments = span.arguments
    if not arguments.known:
        return None
    key = resolve(arguments.value, pointer)
    if isinstance(key, str):
        return key or None
    if isinstance(key, bool) or not isinstance(key, (int, float)):
        return None
    if isinstance(key, float) and not math.isfinite(key):
        return None
    return canonical_number(key)


@dataclass(frozen=True)
class RetrySafe:
    """`retries`: a repeated call is proven safe, or reported (§4.10)."""

    label: str
    reads: tuple[str, ...] = ()
    writes: tuple[WriteTool, ...] = ()
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        reads = frozenset(self.reads)
        writes = {write.tool: write for write in self.writes}
        violations: list[Violation] = []
        flagged: set[int] = set()  # id() of spans that already carry a violation
        calls: dict[str, int] = {}
        unseen: dict[str, list[Span]] = {}
        groups: dict[tuple[str, str], list[Span]] = {}
        for span in subject.tool_spans:
            name = span.tool_name
            if not name:
                violations.append(
                    _at(
                        subject,
                        span,
                        f"span {subject.ref(span)} has no tool name, "
                        "so whether it repeats a call is unknown",
                    )
                )
                flagged.add(id(span))
                continue
            if name in reads:
                continue
            calls[name] = calls.get(name, 0) + 1
            arguments = span.arguments
            if not arguments.known:
                unseen.setdefault(name, []).append(span)
                continue
            identity = arguments.value
            write = writes.get(name)
            if write is not None and write.idempotency_key is not None:
                identity = without_member(identity, write.idempotency_key)
            groups.setdefault((name, canonical_json(identity)), []).append(span)

        for name, spans in unseen.items():
            if calls[name] > 1:
                first = spans[0]
                violations.append(
                    _at(
                        subject,
                        first,
                        f"{name} was called {calls[name]} times and span {subject.ref(first)} "
                        "has no captured arguments, so whether a call repeats another is unknown",
                    )
                )
                flagged.add(id(first))

        for (name, _), spans in groups.items():
            if len(spans) < 2:
                continue
            refs = _listed([subject.ref(span) for span in spans])
            times = f"{len(spans)} times with the same arguments (spans {refs})"
            second = spans[1]
            write = writes.get(name)
            if write is None:
                violations.append(
                    _at(
                        subject,
                        second,
                        f"{name} was called {times} and its side effect is not declared, "
                        "so the repeat is not proven safe",
                    )
                )
                flagged.add(id(second))
                continue
            pointer = write.idempotency_key
            if pointer is None:
                violations.append(
                    _at(
                        subject,
                        second,
                        f"write {name} was called {times} and declares no idempotency key, "
                        "so it may have applied more than once",
                    )
                )
                flagged.add(id(second))
                continue
            keys: list[str] = []
            for span in spans:
                key = _idempotency_key(span, pointer)
                if key is None:
                    violations.append(
                        _at(
                            subject,
                            span,
                            f"write {name} was called {times}; span {subject.ref(span)} has no "
                            f"idempotency key at {pointer}, so it may have applied more than once",
                        )
                    )
                    flagged.add(id(span))
                elif key not in keys:
                    keys.append(key)
            if len(keys) > 1:
                violations.append(
                    _at(
                        subject,
                        second,
                        f"write {name} was called {times} under {len(keys)} different "
                        "idempotency keys, so the target cannot tell they are one operation",
                    )
                )
                flagged.add(id(second))

        for span in subject.tool_spans:
            if not span.is_error or id(span) in flagged:
                continue
            name = span.tool_name
            write = writes.get(name) if name else None
            if write is None:
                continue
            if write.idempotency_key is None:
                why = "declares no idempotency key"
            elif _idempotency_key(span, write.idempotency_key) is None:
                why = f"has no idempotency key at {write.idempotency_key}"
            else:
                continue
            violations.append(
                _at(
                    subject,
                    span,
                    f"write {name} (span {subject.ref(span)}) errored and {why}; "
                    "its outcome is unknown, so a retry cannot be proven safe",
                )
            )
        return violations

    def describe(self) -> str:
        parts = []
        if self.reads:
            parts.append(f"reads {', '.join(self.reads)}")
        if self.writes:
            shown = [
                write.tool
                if write.idempotency_key is None
                else f"{write.tool} keyed by {write.idempotency_key}"
                for write in self.writes
            ]
            parts.append(f"writes {', '.join(shown)}")
        return f"repeated calls are proven safe: {'; '.join(parts)}"
