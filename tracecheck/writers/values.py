"""Attribute values as the JSON writers write them, and when two values are the same value."""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping
from typing import Any

import orjson

__all__ = ["json_value", "same_value", "typed_json", "value_key"]


def json_value(value: Any) -> Any:
    """JSON for a value of any attribute: bytes as base64, read-only mappings as objects,
    NaN and the infinities as text."""
    if isinstance(value, Mapping):
        return {str(key): json_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(item) for item in value]
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def same_value(left: Any, right: Any) -> bool:
    """Whether two attribute values are one value: 1, 1.0 and True are three, at any depth."""
    if left is right:
        return True
    if type(left) is not type(right):
        return False
    if left.__class__ in (str, int, bool):
        return bool(left == right)
    return value_key(left) == value_key(right)


def value_key(value: Any) -> bytes:
    """A value as bytes that differ whenever the values do (types included), for hashing."""
    return orjson.dumps(typed_json(value), option=orjson.OPT_SORT_KEYS)


def typed_json(value: Any) -> Any:
    """JSON for a value that keeps what JSON would lose: bytes and non-finite floats tagged."""
    if isinstance(value, Mapping):
        return {key: typed_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [typed_json(item) for item in value]
    if isinstance(value, bytes | bytearray):
        return {"$bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, float) and not math.isfinite(value):
        return {"$float": repr(value)}
    return value
