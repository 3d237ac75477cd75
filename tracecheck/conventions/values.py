"""Reading recorded values: attributes, JSON pointers into them, names and counts."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import orjson

from tracecheck.conventions.model import Field

__all__ = [
    "MISSING",
    "first_number",
    "first_string",
    "first_value",
    "number",
    "parse_json_text",
    "value_at",
]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def parse_json_text(text: str | bytes, *, default: Any) -> Any:
    """The JSON value a string (or its UTF-8 bytes) holds, or `default` when it holds none."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return default


@lru_cache(maxsize=64)
def _decoded(text: str) -> Any:
    # Several facts point into one JSON attribute (a response's usage, say): decode it once.
    return parse_json_text(text, default=MISSING)


def value_at(attributes: Mapping[str, Any], place: Field) -> Any:
    """The value recorded at `place`, or `MISSING`; JSON text is decoded to follow a pointer.

    A pointer token `*` stands for every item of a list: the result is the list of what the rest
    of the pointer finds in each item, lists among them flattened (`/tools/*/declarations`).
    """
    value = attributes.get(place.key, MISSING)
    if place.decoded and isinstance(value, bytes) and value[:1] in (b"{", b"["):
        value = parse_json_text(value, default=value)  # JSON recorded as its bytes
        if isinstance(value, bytes):
            return MISSING if place.pointer else value
        return _follow(value, place.pointer)
    if place.decoded and isinstance(value, str):
        decoded = _decoded(value)
        if decoded is not MISSING or place.pointer:
            value = decoded
    return _follow(value, place.pointer)


def _follow(value: Any, pointer: tuple[str, ...]) -> Any:
    for position, token in enumerate(pointer):
        if token == "*" and isinstance(value, list):
            found: list[Any] = []
            for item in value:
                inner = _follow(item, pointer[position + 1 :])
                if isinstance(inner, list):
                    found.extend(inner)
                elif inner is not MISSING:
                    found.append(inner)
            return found
        while isinstance(value, str) and value[:1] in ('"', "{", "["):
            # JSON text inside JSON text: some producers encode a value twice, or more (a JSON
            # string of JSON text); each decoding is shorter, so this ends.
            value = _decoded(value)
        if isinstance(value, dict):
            value = value.get(token, MISSING)
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return MISSING
    return value


def first_value(attributes: Mapping[str, Any], places: tuple[Field, ...]) -> Any:
    """The first recorded value that is not null, or `MISSING`."""
    for place in places:
        value = value_at(attributes, place)
        if value is not MISSING and value is not None:
            return value
    return MISSING


def first_string(attributes: Mapping[str, Any], places: tuple[Field, ...]) -> str | None:
    """The first non-empty string recorded at `places`."""
    for place in places:
        value = value_at(attributes, place) if place.decoded else attributes.get(place.key)
        if isinstance(value, str) and value:
            return value
    return None


def first_number(attributes: Mapping[str, Any], places: tuple[Field, ...]) -> int | float | None:
    """The first finite count recorded at `places` (numeric strings accepted)."""
    for place in places:
        value = value_at(attributes, place) if place.decoded else attributes.get(place.key)
        if value is None:  # (what `number` makes of it, without the call)
            continue
        count = number(value)
        if count is not None:
            return count
    return None


def number(value: Any) -> int | float | None:
    """A count: a finite number ≥ 0, or a string holding one in JSON's notation.

    Booleans are not counts; neither is a negative number (it would lower a sum that a budget
    is checked against), nor text Python alone reads as a number (`1_000`, `inf`, `0x10`).
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        if _JSON_NUMBER.fullmatch(value.strip()) is None:
            return None
        value = float(value) if any(c in value for c in ".eE") else int(value)
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and math.isfinite(value) and value >= 0:
        return _integral(value)
    return None


def _integral(value: float) -> int | float:
    return int(value) if value.is_integer() else value
