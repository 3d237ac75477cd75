"""How messages name what they refuse: a word as written, a value's JSON type, and the closest
allowed word to an unknown one.

Shared by the contract compiler, the redaction profiles and the shipping wing, so it imports
nothing of either."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # `decimal` and `fractions` wait for a number to print
    from decimal import Decimal
    from fractions import Fraction

__all__ = [
    "a_json_type",
    "did_you_mean",
    "json_type",
    "key_path",
    "number_text",
    "quote",
    "unknown_message",
    "with_article",
]


def quote(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else repr(value)


def key_path(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def json_type(value: Any) -> str | None:
    """The JSON type name of a value, or None when it is not a JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return None


_ARTICLES = {
    "string": "a string",
    "number": "a number",
    "boolean": "a boolean",
    "object": "an object",
    "array": "an array",
    "null": "null",
}


def with_article(type_name: str) -> str:
    """`an object`, `a string`, `null`: a type named in a sentence."""
    return _ARTICLES.get(type_name, f"a {type_name}")


def a_json_type(value: Any) -> str:
    """The JSON type of a value with its article: how a message names a value it may not show."""
    return with_article(json_type(value) or type(value).__name__)


def number_text(number: int | float | Fraction | Decimal) -> str:
    """A number as a reader expects it: integral values without a fraction, no exponent."""
    from decimal import Decimal

    if isinstance(number, float) and not math.isfinite(number):
        return repr(number)
    if isinstance(number, float):
        exact = Decimal(repr(number))
    elif isinstance(number, int | Decimal):
        exact = Decimal(number)
    else:  # a Fraction
        exact = Decimal(number.numerator) / Decimal(number.denominator)
    if exact == exact.to_integral_value():
        return str(int(exact))
    return format(exact.normalize(), "f")


def _edit_distance(left: str, right: str) -> int:
    previous = list(range(len(right) + 1))
    for i, a in enumerate(left, 1):
        current = [i]
        for j, b in enumerate(right, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1]


def did_you_mean(word: Any, candidates: Sequence[str]) -> str | None:
    """The closest candidate within edit distance 2, case-insensitive; ties go to the first."""
    if not isinstance(word, str):
        return None
    best: str | None = None
    best_distance = 3
    lowered = word.lower()
    for candidate in candidates:
        distance = _edit_distance(lowered, candidate.lower())
        if distance < best_distance:
            best, best_distance = candidate, distance
    return best


def unknown_message(what: str, word: Any, candidates: Sequence[str]) -> str:
    suggestion = did_you_mean(word, candidates)
    hint = f' — did you mean "{suggestion}"?' if suggestion is not None else ""
    return f"unknown {what} {quote(word)}{hint} (allowed: {', '.join(candidates)})"
