"""Argument checks: a JSON Pointer into the arguments of matching tool calls (§4.8)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tracecheck.naming import json_type, with_article
from tracecheck.rules.base import (
    Occurrence,
    at,
)
from tracecheck.rules.canonical import canonical_json
from tracecheck.rules.pointers import ABSENT, resolve
from tracecheck.rules.predicates import Predicate, RuleError, json_equal
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span
from tracecheck.verdict import Violation

__all__ = ["Argument", "ArgumentCheck", "argument_problem", "describe_check"]


@dataclass(frozen=True)
class ArgumentCheck:
    """`{op: exists}`, `{op: equals, value}`, `{op: oneOf, values}` or `{op: type, type}`."""

    op: Literal["exists", "equals", "oneOf", "type"]
    value: Any = None
    values: tuple[Any, ...] = ()
    type: str | None = None


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
        return f"argument {shown} ({with_article(actual)}) does not equal the expected value"
    if check.op == "oneOf":
        if any(json_equal(value, expected) for expected in check.values):
            return None
        return f"argument {shown} ({with_article(actual)}) is not one of the expected values"
    if check.op == "type":
        if actual == check.type:
            return None
        return (
            f"argument {shown} is {with_article(actual)}, not {with_article(check.type or 'value')}"
        )
    raise RuleError(f"unknown argument check {check.op!r}")


def argument_problem(
    span: Span, pointer: str, check: ArgumentCheck, subject: Subject
) -> str | None:
    """Why a call's argument at `pointer` fails `check` (never echoing the value), or None when
    it holds; `subject` is the run the call is part of (for checks that look at other calls)."""
    del subject  # no check of these looks beyond the call itself
    return _argument_problem(span, pointer, check)


def describe_check(pointer: str, check: ArgumentCheck) -> str:
    """The check in words: `has argument /order_id of type string`."""
    shown = _pointer_text(pointer)
    if check.op == "exists":
        return f"has argument {shown}"
    if check.op == "equals":
        return f"has argument {shown} equal to {_json_text(check.value)}"
    if check.op == "oneOf":
        return f"has argument {shown} equal to one of {_json_list(check.values)}"
    return f"has argument {shown} of type {check.type}"


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
                detail = f"span {subject.ref(span)}: {problem}"
                failing.append(at(subject, span, detail, self.pointer))
        return failing

    def describe(self) -> str:
        what = describe_check(self.pointer, self.check)
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
