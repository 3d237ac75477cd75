"""Argument matchers: what a JSON Pointer into one tool call's arguments is checked against.

`argument_problem` says why a call fails a check, never echoing a value (messages name
pointers and JSON types), or None when it holds; it raises `RuleError` when the check cannot be
evaluated. The checks that look beyond the call itself (`sameAs`, `schema: offered`) read the
run through the `Subject`, each building its index once per check (`Subject.memo`).

What only some checks need (JSON Schema, the matching of `partial` arrays, the earlier calls of
`sameAs`) is imported by the check that needs it: a contract of type and equality checks, as
most are, does not load it when `tracecheck check` starts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, Literal

from tracecheck.naming import a_json_type, json_type, with_article
from tracecheck.rules.base import number_text
from tracecheck.rules.canonical import canonical_json
from tracecheck.rules.pointers import ABSENT, pointer_of, pointer_text, resolve
from tracecheck.rules.predicates import Exact, Pattern, Predicate, RuleError, json_equal
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span

if TYPE_CHECKING:
    from tracecheck.rules.earlier import Calls
    from tracecheck.rules.schemas import Schema

__all__ = [
    "ArgumentCheck",
    "ArgumentOp",
    "Range",
    "SameAs",
    "argument_problem",
    "describe_check",
    "failed",
    "partial_mismatch",
    "pointer_text",
]

ArgumentOp = Literal[
    "exists",
    "equals",
    "oneOf",
    "type",
    "regex",
    "range",
    "contains",
    "partial",
    "schema",
    "sameAs",
]


@dataclass(frozen=True)
class Range:
    """`{min, max, minExclusive, maxExclusive}`: numbers only; a bound left out is open."""

    min: int | float | None = None
    max: int | float | None = None
    min_exclusive: bool = False
    max_exclusive: bool = False

    def holds(self, number: int | float) -> bool:
        if self.min is not None and (
            number <= self.min if self.min_exclusive else number < self.min
        ):
            return False
        return self.max is None or not (
            number >= self.max if self.max_exclusive else number > self.max
        )

    @property
    def empty(self) -> bool:
        """True when no number is in the range (lint's contradiction)."""
        if self.min is None or self.max is None:
            return False
        if self.min == self.max:
            return self.min_exclusive or self.max_exclusive
        return self.min > self.max

    def describe(self) -> str:
        """Interval notation: `[0, 500)`, `(0, ∞)`."""
        low = "-∞" if self.min is None else number_text(self.min)
        high = "∞" if self.max is None else number_text(self.max)
        left = "(" if self.min is None or self.min_exclusive else "["
        right = ")" if self.max is None or self.max_exclusive else "]"
        return f"{left}{low}, {high}{right}"


@dataclass(frozen=True)
class SameAs:
    """`{tool, pointer}` into the arguments, or `{tool, result}` into the result, of an earlier
    successful call of `tool`."""

    tool: str
    pointer: str
    source: Literal["arguments", "result"] = "arguments"

    def describe(self) -> str:
        where = "argument" if self.source == "arguments" else "result"
        return f"the {where} {pointer_text(self.pointer)} of an earlier successful {self.tool} call"


@dataclass(frozen=True)
class ArgumentCheck:
    """One check of the value at a pointer: `op` says which, and its field holds the operand
    (`value` for equals, contains and partial)."""

    op: ArgumentOp
    value: Any = None
    values: tuple[Any, ...] = ()
    type: str | None = None
    pattern: Pattern | None = None
    range: Range | None = None
    ignore: tuple[str, ...] = ()
    schema: Schema | None = None
    same_as: SameAs | None = None


def argument_problem(
    span: Span, pointer: str, check: ArgumentCheck, subject: Subject
) -> str | None:
    """Why a call's argument at `pointer` fails `check` (never echoing the value), or None when
    it holds; `RuleError` when it cannot be evaluated."""
    arguments = span.arguments
    if not arguments.known:
        return arguments.reason or "the span carries no argument evidence"
    value = resolve(arguments.value, pointer)
    shown = pointer_text(pointer)
    if value is ABSENT:
        return f"argument {shown} is absent"
    if check.op == "exists":
        return None
    actual = json_type(value)
    if actual is None:
        raise RuleError(f"argument {shown} holds a {type(value).__name__} value, which is not JSON")
    judge = _JUDGES.get(check.op)
    if judge is None:
        raise RuleError(f"unknown argument check {check.op!r}")
    return judge(_Judged(span, pointer, shown, value, actual, check, subject))


@dataclass(frozen=True)
class _Judged:
    span: Span
    pointer: str
    shown: str
    value: Any
    actual: str
    check: ArgumentCheck
    subject: Subject


def _equals(j: _Judged) -> str | None:
    if json_equal(j.value, j.check.value):
        return None
    return f"argument {j.shown} ({with_article(j.actual)}) does not equal the expected value"


def _one_of(j: _Judged) -> str | None:
    if any(json_equal(j.value, expected) for expected in j.check.values):
        return None
    return f"argument {j.shown} ({with_article(j.actual)}) is not one of the expected values"


def _type(j: _Judged) -> str | None:
    if j.actual == j.check.type:
        return None
    return f"argument {j.shown} is {with_article(j.actual)}, not {with_article(j.check.type or '')}"


def _regex(j: _Judged) -> str | None:
    if j.actual != "string":
        return f"argument {j.shown} is {with_article(j.actual)}, not a string"
    assert j.check.pattern is not None
    if j.check.pattern.matches(j.value):
        return None
    # The pattern is not repeated: a contract may describe a secret's shape.
    return f"argument {j.shown} (a string) does not match the pattern"


def _range(j: _Judged) -> str | None:
    if j.actual != "number":
        return f"argument {j.shown} is {with_article(j.actual)}, not a number"
    if isinstance(j.value, float) and not math.isfinite(j.value):
        return f"argument {j.shown} is not a finite number"
    assert j.check.range is not None
    if j.check.range.holds(j.value):
        return None
    return f"argument {j.shown} (a number) is outside {j.check.range.describe()}"


def _contains(j: _Judged) -> str | None:
    expected = j.check.value
    if j.actual == "string":
        if not isinstance(expected, str):
            return f"argument {j.shown} is a string, which can contain only a string"
        if expected in j.value:
            return None
        return f"argument {j.shown} (a string) does not contain the expected text"
    if j.actual == "array":
        if any(json_equal(item, expected) for item in j.value):
            return None
        return f"argument {j.shown} (an array) has no member equal to the expected value"
    return f"argument {j.shown} is {with_article(j.actual)}, not a string or an array"


def _partial(j: _Judged) -> str | None:
    mismatch = partial_mismatch(j.check.value, j.value, j.check.ignore)
    if mismatch is None:
        return None
    return f"argument {j.shown} does not include the expected value: {mismatch}"


def _schema(j: _Judged) -> str | None:
    from tracecheck.rules.schemas import offered_schema, schema_problem

    schema = j.check.schema
    assert schema is not None
    if schema.offered:
        found = offered_schema(j.span, j.subject)
        if isinstance(found, str):
            return found  # the tool was not offered
        return schema_problem(found, j.value, j.pointer, "the offered parameters schema")
    return schema_problem(schema, j.value, j.pointer, "the schema")


def _same_as(j: _Judged) -> str | None:
    same_as = j.check.same_as
    assert same_as is not None
    if j.span.start_ns is None:
        return (
            f"argument {j.shown} cannot be traced to an earlier {same_as.tool} call: "
            "this call has no start time"
        )
    index = _earlier_values(j.subject, same_as)
    if not index.recorded.finished_before(j.subject, j.span):
        return (
            f"argument {j.shown} cannot come from {same_as.tool}: no successful {same_as.tool} "
            "call recording it finished before this call started"
        )
    equal = index.values.get(canonical_json(j.value))
    if equal is not None and equal.finished_before(j.subject, j.span):
        return None
    where = "argument" if same_as.source == "arguments" else "result"
    return (
        f"argument {j.shown} ({with_article(j.actual)}) equals the {where} "
        f"{pointer_text(same_as.pointer)} of no successful {same_as.tool} call that finished "
        "before it"
    )


_JUDGES = {
    "equals": _equals,
    "oneOf": _one_of,
    "type": _type,
    "regex": _regex,
    "range": _range,
    "contains": _contains,
    "partial": _partial,
    "schema": _schema,
    "sameAs": _same_as,
}


# --- partial -------------------------------------------------------------------------------


def partial_mismatch(
    expected: Any, actual: Any, ignore: Sequence[str] = (), where: str = ""
) -> str | None:
    """Where `actual` fails to include `expected`, as a pointer and what is wrong there (never a
    value), or None. An object includes another when it has each of its keys, each value
    including the expected one; keys whose name matches an `ignore` glob, at any depth, are not
    compared. An array includes another when each expected element is included by a distinct
    element (order ignored, extra elements allowed). Other values compare as JSON."""
    shown = pointer_text(where)
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return f"{shown} is {a_json_type(actual)}, not an object"
        for key, item in expected.items():
            if any(fnmatchcase(key, glob) for glob in ignore):
                continue
            at = where + pointer_of((key,))
            if key not in actual:
                return f"{at} is absent"
            found = partial_mismatch(item, actual[key], ignore, at)
            if found is not None:
                return found
        return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)):
            return f"{shown} is {a_json_type(actual)}, not an array"
        if not _all_matched(expected, actual, ignore):
            return f"{shown} has no distinct element including each expected element"
        return None
    if json_equal(expected, actual):
        return None
    return f"{shown} ({a_json_type(actual)}) differs from the expected value"


def _all_matched(expected: Sequence[Any], actual: Sequence[Any], ignore: Sequence[str]) -> bool:
    """Whether each expected element can be given its own actual element that includes it:
    a maximum bipartite matching (`alignment.assign`), as greedy choice can fail."""
    if len(expected) > len(actual):
        return False
    from tracecheck.rules.alignment import assign

    fits = assign(
        expected, actual, lambda e, a: partial_mismatch(e, a, ignore) is None, key=json_type
    )
    return not fits.missing


# --- sameAs: the values earlier successful calls recorded ------------------------------------


def failed(call: Span) -> bool:
    """A call failed when its span is in error or its result records a failure; a status left
    unset is a success (the OpenTelemetry instrumentations leave successes unset). The one
    notion every rule reads: `Span.failed`."""
    return call.failed


@dataclass(frozen=True)
class _Earlier:
    """The successful calls of one tool that recorded a value at one pointer: grouped by the
    value (its canonical JSON), and all of them."""

    values: dict[str, Calls]
    recorded: Calls


def _earlier_values(subject: Subject, same_as: SameAs) -> _Earlier:
    from tracecheck.rules.earlier import Calls, by_key

    key = ("sameAs", same_as)
    found = subject.memo.get(key)
    if isinstance(found, _Earlier):
        return found
    calls = subject.matching(Predicate(kind="TOOL", tool=Exact(same_as.tool)))
    values: dict[int, str] = {}
    for call in calls:
        recorded = call.arguments if same_as.source == "arguments" else call.result
        if call.failed or not recorded.known:
            continue
        value = resolve(recorded.value, same_as.pointer)
        if value is not ABSENT:
            values[id(call)] = canonical_json(value)
    index = _Earlier(
        by_key(subject, calls, lambda call: values.get(id(call))),
        Calls(subject, (call for call in calls if id(call) in values)),
    )
    subject.memo[key] = index
    return index


# --- in words ------------------------------------------------------------------------------


def describe_check(pointer: str, check: ArgumentCheck) -> str:
    """The check in words: `has argument /order_id of type string`."""
    shown = pointer_text(pointer)
    op = check.op
    if op == "exists":
        return f"has argument {shown}"
    if op == "equals":
        return f"has argument {shown} equal to {_json_text(check.value)}"
    if op == "oneOf":
        return f"has argument {shown} equal to one of {_json_list(check.values)}"
    if op == "type":
        return f"has argument {shown} of type {check.type}"
    if op == "regex":
        assert check.pattern is not None
        return f"has argument {shown} matching {check.pattern.describe()}"
    if op == "range":
        assert check.range is not None
        return f"has argument {shown}, a number in {check.range.describe()}"
    if op == "contains":
        return f"has argument {shown} containing {_json_text(check.value)}"
    if op == "partial":
        text = f"has argument {shown} including {_json_text(check.value)}"
        if check.ignore:
            text += f" (keys matching {', '.join(check.ignore)} not compared)"
        return text
    if op == "schema":
        assert check.schema is not None
        if check.schema.offered:
            return (
                f"has argument {shown} valid against the parameters schema of its tool as "
                "offered to the model"
            )
        return (
            f"has argument {shown} valid against the JSON Schema {_json_text(check.schema.value)}"
        )
    assert check.same_as is not None
    return f"has argument {shown} equal to {check.same_as.describe()}"


def _json_text(value: Any) -> str:
    try:
        return canonical_json(value)
    except RuleError:
        return repr(value)


def _json_list(values: Sequence[Any]) -> str:
    return ", ".join(_json_text(value) for value in values)
