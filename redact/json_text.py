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
from redact.json_pairs import pairs_hook
from redact.walk import Assessor, Redactor

__all__ = ["JsonTextAssessor", "JsonTextInspector", "JsonTextRedactor", "json_container"]

# JSON texts nested as strings inside JSON texts followed this deep; a deeper one that still
# holds JSON is cut whole (UNKNOWN to the assessor), as a value past the walk's depth is.
_MAX_NESTING = 4
_INDENT = re.compile(r"[\[{]\r?\n([ \t]+)\S")
_TOO_DEEP: Any = object()


def bracketed(text: str) -> bool:
    """Whether `text` is shaped as a JSON object or array (spaces around allowed): the cheap
    test before a parse; only such strings may hold a JSON document."""
    start = text.lstrip()[:1]
    end = text.rstrip()[-1:]
    return (start == "{" and end == "}") or (start == "[" and end == "]")


def json_container(text: str) -> Any:
    """The object or array `text` holds as a whole JSON document (spaces around allowed), or
    None when it holds none (most strings: only those opening with a bracket are parsed)."""
    document = _document(text)
    return None if document is _TOO_DEEP else document


def _document(text: str) -> Any:
    """`json_container(text)`, or `_TOO_DEEP` when the text nests deeper than the parser
    follows (then it cannot be read as the JSON it may hold)."""
    if not bracketed(text):
        return None
    try:
        # Every member of an object that writes a key twice is kept (`RepeatedKeys`), so that
        # no value it holds goes unjudged.
        value = json.loads(text, object_pairs_hook=pairs_hook)
    except ValueError:
        return None
    except RecursionError:
        return _TOO_DEEP
    return value if isinstance(value, dict | list) else None


def encode_like(value: Any, original: str) -> str:
    """`value` as JSON text laid out as `original` was: its indent, its separators, ASCII
    escapes when it used them (or when the text holds what UTF-8 cannot: half a surrogate
    pair, which JSON may escape), and the spaces around it."""
    indent_match = _INDENT.search(original)
    indent: str | None = indent_match[1] if indent_match else None
    if indent is None and "\n" in original.strip():
        indent = "  "
    item = "," if indent is not None or ", " not in original else ", "
    key = ": " if '": ' in original else ":"
    ascii_only = original.isascii() and "\\u" in original
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent, separators=(item, key))
    if not ascii_only and not _encodable(text):
        text = json.dumps(value, ensure_ascii=True, indent=indent, separators=(item, key))
    stripped = original.strip()
    head = original[: len(original) - len(original.lstrip())]
    tail = original[len(head) + len(stripped) :]
    return head + text + tail


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class JsonTextInspector(Inspector):
    """An inspector for which a string shaped as a JSON document always needs a look, so that
    no walk passes it by as clean text (the walk parses it, once)."""

    def prescan(self, strings: list[str], scalars: Iterable[Any] = ()) -> None:
        super().prescan(strings, scalars)
        self.clean = {text for text in self.clean if not bracketed(text)}

    def needs_look(self, text: str) -> bool:
        return super().needs_look(text) or bracketed(text)


class JsonTextRedactor(Redactor):
    """A redactor that redacts JSON held in a string as JSON (its keys classified, its values
    redacted in place), then runs the string pipeline over the text written back. The walk's
    depth runs on through the documents held in strings, so `MAX_DEPTH` bounds the whole."""

    def __init__(self, inspector: Inspector, cap: int, pseudonym_key: bytes | None = None) -> None:
        super().__init__(inspector, cap, pseudonym_key)
        self._nesting = 0
        self._depth = 0  # of the innermost string whose document is being walked

    def value(self, value: Any, path: str, depth: int) -> Any:
        if isinstance(value, str):
            return self._text(value, path, depth)
        return super().value(value, path, depth)

    def string(self, text: str, path: str) -> str:
        return self._text(text, path, self._depth)

    def _text(self, text: str, path: str, depth: int) -> str:
        if not text or self.inspector.is_placeholder(text):
            return super().string(text, path)
        document = _document(text)
        if document is None:
            return super().string(text, path)
        if document is _TOO_DEEP or self._nesting >= _MAX_NESTING:
            self._record(path, "raw-content", "depth-limit", "truncated")
            return "[REDACTED:depth-limit]"
        self._nesting += 1
        outer, self._depth = self._depth, depth + 1
        try:
            redacted = super().value(document, path, depth + 1)
        finally:
            self._nesting -= 1
            self._depth = outer
        if isinstance(redacted, str):
            return redacted  # the document cut whole (past the walk's depth): its marker
        if not _same(redacted, document):
            text = encode_like(redacted, text)
        return super().string(text, path)


class JsonTextAssessor(Assessor):
    """An assessor that judges JSON held in a string as the JSON it holds too (its keys
    classified, as `JsonTextRedactor` redacts it), besides its text; the depth runs on
    through the documents as the redactor's does."""

    def __init__(self, inspector: Inspector) -> None:
        super().__init__(inspector)
        self._nesting = 0
        self._depth = 0

    def value(self, value: Any, path: str, depth: int) -> None:
        if isinstance(value, str):
            self._text(value, path, depth)
        else:
            super().value(value, path, depth)

    def string(self, text: str, path: str, depth: int = 0) -> None:
        self._text(text, path, max(depth, self._depth))

    def _text(self, text: str, path: str, depth: int) -> None:
        super().string(text, path, depth)
        if not text or self.inspector.is_placeholder(text):
            return
        document = _document(text)
        if document is None:
            return
        if document is _TOO_DEEP:
            self._unreadable(path, "JSON held in a string nests deeper than it can be read")
            return
        if self._nesting >= _MAX_NESTING:
            self._unreadable(path, f"JSON held in strings nested deeper than {_MAX_NESTING} levels")
            return
        self._nesting += 1
        outer, self._depth = self._depth, depth + 1
        try:
            super().value(document, path, depth + 1)
        finally:
            self._nesting -= 1
            self._depth = outer


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same JSON types (`1 == True` and `1 == 1.0` in Python)."""
    if a.__class__ is not b.__class__:
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
