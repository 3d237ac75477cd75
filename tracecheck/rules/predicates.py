"""Span predicates and the matchers inside them (contracts.md §3.1)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from tracecheck.spans import Span

__all__ = [
    "REGEX_TIMEOUT_SECONDS",
    "Exact",
    "Matcher",
    "OneOf",
    "Pattern",
    "Predicate",
    "RuleError",
    "json_equal",
]

# A pattern that takes longer than this on one value is an evaluation error, never a hang.
REGEX_TIMEOUT_SECONDS = 0.25
# Each flag's name in `regex`, imported when a contract has a pattern to compile.
_FLAGS = {"i": "IGNORECASE", "m": "MULTILINE", "s": "DOTALL", "x": "VERBOSE"}
_IGNORED_FLAGS = frozenset("uygd")  # `u` is always on; `g`, `y`, `d` mean nothing for a test


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


@dataclass(frozen=True)
class Predicate:
    """Every present field must match; `not_` must not. Attribute values compare as JSON."""

    kind: str | None = None
    name: Matcher | None = None
    tool: Matcher | None = None
    model: Matcher | None = None
    attr: tuple[tuple[str, Any], ...] = ()  # (key, expected value or Pattern)
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
        return self.not_ is None or not self.not_.matches(span)

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


def _json(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return repr(value)
