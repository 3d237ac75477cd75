"""How a contract problem names what it refuses: JSON types, values as written, paths."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["describe", "json_type", "map_path"]


def json_type(value: Any) -> str:
    """The JSON type name of a value (a boolean is never an integer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def describe(value: Any) -> str:
    """How a message names a value it refuses: numbers and literals as written, the rest by
    type (a string may be long or secret)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    if isinstance(value, str):
        return "an empty string" if value == "" else "a string"
    kind = json_type(value)
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def map_path(where: str, key: str) -> str:
    """A path into a map whose keys are free text (`attr["gen_ai.tool.name"]`)."""
    return f"{where}[{json.dumps(key, ensure_ascii=False)}]"
