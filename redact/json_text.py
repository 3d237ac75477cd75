"""JSON written inside a string, redacted as the JSON it holds.

Agent records hold JSON as text: a tool's input rendered as JSON, a tool result that is a JSON
document, a file's content. Read as one string, a key only gives its class to the whole text
(`{"password": "…"}` is caught by the `json-secret` shape, `{"user_id": "u-42"}` not at all).
Parsed, every key is classified and every value redacted where it stands, and the document is
written back in the layout it had (indent, separators, escaping); then the string pipeline
runs over that text as over any other, so what the gate finds in text is gone too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from redact.inspector import Inspector
from redact.walk import Assessor, Redactor

__all__ = [
    "JsonTextAssessor",
    "JsonTextInspector",
    "JsonTextRedactor",
    "encode_like",
    "json_container",
]

# JSON texts nested as strings inside JSON texts followed this deep; deeper ones are text.
_MAX_NESTING = 4
_INDENT = re.compile(r"[\[{]\r?\n([ \t]+)\S")


def json_container(text: str) -> Any:
    """The object or array `text` holds as a whole JSON document (spaces around allowed), or
    None when it holds none (most strings: only those opening with a bracket are parsed)."""
    start = text.lstrip()[:1]
    end = text.rstrip()[-1:]
    if not ((start == "{" and end == "}") or (start == "[" and end == "]")):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None


def encode_like(value: Any, original: str) -> str:
    """`value` as JSON text laid out as `original` was: its indent, its separators, ASCII
    escapes when it used them, and the spaces around it."""
    indent_match = _INDENT.search(original)
    indent: str | None = indent_match[1] if indent_match else None
    if indent is None and "\n" in original.strip():
        indent = "  "
    item = "," if indent is not None or ", " not in original else ", "
    key = ": " if '": ' in original else ":"
    ascii_only = original.isascii() and "\\u" in original
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent, separators=(item, key))
    stripped = original.strip()
    head = original[: len(original) - len(original.lstrip())]
    tail = original[len(head) + len(stripped) :]
    return head + text + tail


class JsonTextInspector(Inspector):
    """An inspector for which a string that holds a JSON document always needs a look, so
    that no walk passes it by as clean text."""

    def prescan(self, strings: list[str], scalars: Iterable[Any] = ()) -> None:
        super().prescan(strings, scalars)
        self.clean = {text for text in self.clean if not _bracketed(text)}

    def needs_look(self, text: str) -> bool:
        return super().needs_look(text) or json_container(text) is not None


class JsonTextRedactor(Redactor):
    """A redactor that redacts JSON held in a string as JSON (its keys classified, its values
    redacted in place), then runs the string pipeline over the text written back."""

    def __init__(self, inspector: Inspector, cap: int, pseudonym_key: bytes | None = None) -> None:
        super().__init__(inspector, cap, pseudonym_key)
        self._nesting = 0

    def string(self, text: str, path: str) -> str:
        if not text or self.inspector.is_placeholder(text) or self._nesting >= _MAX_NESTING:
            return super().string(text, path)
        document = json_container(text)
        if document is None:
            return super().string(text, path)
        self._nesting += 1
        try:
            redacted = self.value(document, path, 0)
        finally:
            self._nesting -= 1
        if not _same(redacted, document):
            text = encode_like(redacted, text)
        return super().string(text, path)


class JsonTextAssessor(Assessor):
    """An assessor that judges JSON held in a string as the JSON it holds too (its keys
    classified, as `JsonTextRedactor` redacts it), besides its text."""

    def __init__(self, inspector: Inspector) -> None:
        super().__init__(inspector)
        self._nesting = 0

    def string(self, text: str, path: str) -> None:
        super().string(text, path)
        if not text or self._nesting >= _MAX_NESTING or self.inspector.is_placeholder(text):
            return
        document = json_container(text)
        if document is None:
            return
        self._nesting += 1
        try:
            self.value(document, path, 0)
        finally:
            self._nesting -= 1


def _bracketed(text: str) -> bool:
    return text[:1] in ("{", "[", " ", "\n", "\t") and json_container(text) is not None


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same JSON types (`1 == True` and `1 == 1.0` in Python)."""
    if a.__class__ is not b.__class__:
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
