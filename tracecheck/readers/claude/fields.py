"""Typed access to the fields of a Claude Code record: a wrong type is an error naming its path."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tracecheck.readers.common import parse_iso8601

_JSON_TYPES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
}


class Invalid(ValueError):
    """A field that does not hold what Claude Code writes there; `field` is its path."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field


def text(raw: dict[str, Any], key: str, where: str | None = None) -> str | None:
    value = raw.get(key)
    if value is None or isinstance(value, str):
        return value
    raise Invalid(where or key, f"is {describe(value)}, not a string")


def item_text(items: list[Any], index: int, where: str) -> str:
    value = items[index]
    if isinstance(value, str):
        return value
    raise Invalid(f"{where}[{index}]", f"is {describe(value)}, not a string")


def flag(raw: dict[str, Any], key: str, where: str | None = None) -> bool:
    value = raw.get(key)
    if value is None or isinstance(value, bool):
        return bool(value)
    raise Invalid(where or key, f"is {describe(value)}, not a boolean")


def number(raw: dict[str, Any], key: str, where: str | None = None) -> int | float | None:
    value = raw.get(key)
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return value
    raise Invalid(where or key, f"is {describe(value)}, not a number")


def obj(raw: dict[str, Any], key: str, where: str | None = None) -> dict[str, Any] | None:
    value = raw.get(key)
    if value is None or isinstance(value, dict):
        return value
    raise Invalid(where or key, f"is {describe(value)}, not an object")


def items(raw: dict[str, Any], key: str, where: str | None = None) -> list[Any] | None:
    value = raw.get(key)
    if value is None or isinstance(value, list):
        return value
    raise Invalid(where or key, f"is {describe(value)}, not a list")


def time_ns(record: dict[str, Any], where: str = "timestamp") -> int | None:
    value = text(record, "timestamp", where)
    if value is None:
        return None
    try:
        return parse_iso8601(value)
    except (ValueError, OverflowError) as exc:
        raise Invalid(where, str(exc)) from None


def content(message: dict[str, Any], where: str = "message") -> list[Any] | str | None:
    value = message.get("content")
    if value is None or isinstance(value, (list, str)):
        return value
    raise Invalid(f"{where}.content", f"is {describe(value)}, not a list or a string")


def blocks(
    value: list[Any] | str | None, where: str = "message"
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(field path, block) of each content block; a string content has none."""
    if not isinstance(value, list):
        return
    for index, block in enumerate(value):
        block_field = f"{where}.content[{index}]"
        if not isinstance(block, dict):
            raise Invalid(block_field, f"is {describe(block)}, not an object")
        yield block_field, block


def prompt_text(value: list[Any] | str | None) -> str | None:
    if isinstance(value, str):
        return value
    texts = [b.get("text") for _, b in blocks(value) if b.get("type") == "text"]
    return "\n".join(t for t in texts if isinstance(t, str)) if texts else None


def result_text(value: Any, where: str) -> str | None:
    """A tool result's text: the string, or the text blocks of a list joined by newlines."""
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise Invalid(where, f"is {describe(value)}, not a string or a list")
    texts = []
    for index, block in enumerate(value):
        if not isinstance(block, dict):
            raise Invalid(f"{where}[{index}]", f"is {describe(block)}, not an object")
        block_text = text(block, "text", f"{where}[{index}].text")
        if block.get("type") == "text" and block_text is not None:
            texts.append(block_text)
    return "\n".join(texts)


def describe(value: Any) -> str:
    return _JSON_TYPES.get(type(value), "null" if value is None else type(value).__name__)
