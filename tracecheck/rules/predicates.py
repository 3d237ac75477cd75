"""Span predicates and the matchers inside them (contracts.md §3.1)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import orjson

from tracecheck.naming import number_text
from tracecheck.spans import Span

if TYPE_CHECKING:  # `fractions` waits for a contract with a duration bound (1-2 ms to import)
    from fractions import Fraction

__all__ = [
    "NS_PER_MS",
    "REGEX_TIMEOUT_SECONDS",
    "STATUSES",
    "DurationRange",
    "Exact",
    "Matcher",
    "OneOf",
    "Pattern",
    "Predicate",
    "RuleError",
    "exact",
    "json_equal",
    "status_word",
]

# A pattern that takes longer than this on one value is an evaluation error, never a hang.
REGEX_TIMEOUT_SECONDS = 0.25
# Each flag's name in `regex`, imported when a contract has a pattern to compile.
_FLAGS = {"i": "IGNORECASE", "m": "MULTILINE", "s": "DOTALL", "x": "VERBOSE"}
_IGNORED_FLAGS = frozenset("uygd")  # `u` is always on; `g`, `y`, `d` mean nothing for a test
# A span's status as a predicate names it (`status_word`): OTLP's UNSET (no status recorded)
# is `unset`.
STATUSES = ("ok", "error", "unset")
NS_PER_MS = 1_000_000


class RuleError(Exception):
    """A rule could not be evaluated (a pattern that timed out, a value beyond comparison)."""


@dataclass(frozen=True, slots=True)
class Exact:
    value: str

    def matches(self, actual: Any) -> bool:
        return isinstance(actual, str) and actual == self.value

    def describe(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class OneOf:
    values: tuple[str, ...]

    def matches(self, actual: Any) -> bool:
        return isinstance(actual, str) and actual in self.values

    def describe(self) -> str:
        return f"oneOf({'|'.join(self.values)})"


@dataclass(frozen=True, eq=False)
class Pattern:
    """`{"$regex": source, "flags": flags}`: a search anywhere in the value, time-limited."""

    source: str
    flags: str = ""

    def __post_init__(self) -> None:
        unknown = sorted(set(self.flags) - set(_FLAGS) - _IGNORED_FLAGS)
        if unknown:
            raise ValueError(f"unknown regex flag(s) {''.join(unknown)} (known: imsxugyd)")
        import regex

        compiled_flags = 0
        for flag in self.flags:
            if flag in _FLAGS:
                compiled_flags |= getattr(regex, _FLAGS[flag])
        # Compile errors surface here, at contract compile time, as ValueError.
        try:
            object.__setattr__(self, "_compiled", regex.compile(self.source, compiled_flags))
        except regex.error as exc:
            # The source is not repeated: a contract may match a secret it forbids.
            raise ValueError(f"is not a valid regular expression: {exc}") from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pattern) and (self.source, self.flags) == (
            other.source,
            other.flags,
        )

    def __hash__(self) -> int:
        return hash((self.source, self.flags))

    def matches(self, actual: Any) -> bool:
        if not isinstance(actual, str):
            return False
        compiled: Any = self._compiled  # type: ignore[attr-defined]
        try:
            return compiled.search(actual, timeout=REGEX_TIMEOUT_SECONDS) is not None
        except TimeoutError:
            raise RuleError(
                f"pattern {self.describe()} took longer than {REGEX_TIMEOUT_SECONDS} s "
                f"on a value of {len(actual)} characters"
            ) from None

    def describe(self) -> str:
        return f"/{self.source}/{self.flags}"


Matcher = Exact | OneOf | Pattern


def status_word(span: Span) -> str:
    """The span's status as a predicate names it, one of `STATUSES`: `error` when it failed
    (`Span.failed`: in error, or a tool call whose result records a failure), else `ok` when
    its status is ok, else `unset`. So a failed call is never `ok` nor `unset`."""
    if span.failed:
        return "error"
    return "ok" if span.status == "ok" else "unset"


@dataclass(frozen=True, slots=True)
class DurationRange:
    """`durationMs: {min, max}`: end minus start in milliseconds, both bounds inclusive.

    The bounds are kept as whole nanoseconds (the smallest at or above `min`, the largest at
    or below `max`), so that comparing an integer duration is exact for any decimal bound.
    `unknown_matches` decides a span with no duration: False as contracts read it (it never
    matches); True only to ask whether a verdict would change if it did (`Predicate.decided`).
    """

    min_ms: int | float | None = None
    max_ms: int | float | None = None
    unknown_matches: bool = False
    min_ns: int | None = field(init=False, compare=False, repr=False)
    max_ns: int | None = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        low = None if self.min_ms is None else -((-exact(self.min_ms) * NS_PER_MS) // 1)
        high = None if self.max_ms is None else (exact(self.max_ms) * NS_PER_MS) // 1
        object.__setattr__(self, "min_ns", None if low is None else int(low))
        object.__setattr__(self, "max_ns", None if high is None else int(high))

    def contains(self, span: Span) -> bool:
        took = span.duration_ns
        if took is None:
            return self.unknown_matches
        return (self.min_ns is None or took >= self.min_ns) and (
            self.max_ns is None or took <= self.max_ns
        )

    def describe(self) -> str:
        low = None if self.min_ms is None else number_text(self.min_ms)
        high = None if self.max_ms is None else number_text(self.max_ms)
        if low is not None and high is not None:
            return f"durationMs={low}..{high}"
        return f"durationMs>={low}" if low is not None else f"durationMs<={high}"


@dataclass(frozen=True)
class Predicate:
    """Every present field must match; `not_` must not. Attribute values compare as JSON."""

    kind: str | None = None
    name: Matcher | None = None
    tool: Matcher | None = None
    model: Matcher | None = None
    attr: tuple[tuple[str, Any], ...] = ()  # (key, expected value or Pattern)
    status: str | None = None  # ok, error or unset
    duration: DurationRange | None = None
    not_: Predicate | None = None

    def matches(self, span: Span) -> bool:
        if self.kind is not None and span.kind != self.kind:
            return False
        if self.name is not None and not self.name.matches(span.name):
            return False
        if self.tool is not None and not self.tool.matches(span.tool_name):
            return False
        if self.model is not None and not self.model.matches(span.model):
            return False
        for key, expected in self.attr:
            if not _attribute_matches(span.attributes, key, expected):
                return False
        if self.status is not None and status_word(span) != self.status:
            return False
        if self.duration is not None and not self.duration.contains(span):
            return False
        return self.not_ is None or not self.not_.matches(span)

    @cached_property
    def reads_duration(self) -> bool:
        """Whether a span's duration takes part in matching (here or in `not`)."""
        return self.duration is not None or (self.not_ is not None and self.not_.reads_duration)

    def decided(self, span: Span) -> bool:
        """Whether the span's match is known: False when it turns on a duration the span does
        not record (it would match for some durations and not for others)."""
        if not self.reads_duration or span.duration_ns is not None:
            return True
        most, least = self._corners
        return most.matches(span) == least.matches(span)

    def assuming_unknown_durations(self, matching: bool) -> Predicate:
        """The predicate that matches the most spans (`matching`) or the fewest of those whose
        duration is unknown: each `durationMs` taken as in range or not, flipped under `not`,
        so that whatever the durations were, the match lies between the two. Built once per
        predicate."""
        if not self.reads_duration:
            return self
        return self._corners[0 if matching else 1]

    @cached_property
    def _corners(self) -> tuple[Predicate, Predicate]:
        """(matching the most, matching the fewest) of the spans with no duration."""
        return self._assuming(True), self._assuming(False)

    def _assuming(self, matching: bool) -> Predicate:
        duration = self.duration
        if duration is not None:
            duration = DurationRange(duration.min_ms, duration.max_ms, unknown_matches=matching)
        not_ = None
        if self.not_ is not None:
            not_ = self.not_.assuming_unknown_durations(not matching)
        return replace(self, duration=duration, not_=not_)

    def describe(self) -> str:
        parts = []
        if self.kind is not None:
            parts.append(f"kind={self.kind}")
        for label, matcher in (("name", self.name), ("tool", self.tool), ("model", self.model)):
            if matcher is not None:
                parts.append(f"{label}={matcher.describe()}")
        for key, expected in self.attr:
            shown = expected.describe() if isinstance(expected, Pattern) else _json(expected)
            parts.append(f"attr.{key}={shown}")
        if self.status is not None:
            parts.append(f"status={self.status}")
        if self.duration is not None:
            parts.append(self.duration.describe())
        if self.not_ is not None:
            parts.append(f"not({self.not_.describe()})")
        return ",".join(parts)


def _attribute_matches(attributes: Mapping[str, Any], key: str, expected: Any) -> bool:
    if key not in attributes:
        return False
    actual = attributes[key]
    if isinstance(expected, Pattern):
        return expected.matches(actual)
    return json_equal(actual, expected)


def json_equal(left: Any, right: Any) -> bool:
    """JSON equality with types: booleans are not numbers, `1` equals `1.0`, key order is free."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        if isinstance(left, float) and not math.isfinite(left):
            return False
        if isinstance(right, float) and not math.isfinite(right):
            return False
        return left == right
    if isinstance(left, str) or isinstance(right, str):
        return isinstance(left, str) and isinstance(right, str) and left == right
    if left is None or right is None:
        return left is None and right is None
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(
            json_equal(a, b) for a, b in zip(left, right, strict=True)
        )
    return False


def exact(number: int | float) -> Fraction:
    """A bound as written: 0.1 is a tenth, not the double nearest to it."""
    from fractions import Fraction

    return Fraction(repr(number)) if isinstance(number, float) else Fraction(number)


def _json(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return repr(value)
