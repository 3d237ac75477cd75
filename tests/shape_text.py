"""Random text of a given shape, for building fake secrets at run time.

A shape is written as a small regular expression — literals, escapes, character classes with
ranges, groups with alternatives, and the quantifiers `?`, `*`, `+`, `{n}`, `{n,m}`, `{n,}` — the
way scanners publish the shapes of the tokens they look for. `ShapeText(seed).make(shape)` draws
one string that the shape matches. Nothing here is a secret: every value is drawn from a seeded
generator when the tests run, so no token stands in the source for a scanner to trip on.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from typing import Any, cast

__all__ = ["ShapeText"]

_CLASS_ESCAPES = {
    "d": string.digits,
    "w": string.ascii_letters + string.digits + "_",
    "s": " ",
}
# An open-ended repeat draws at most this many more characters than its minimum.
_OPEN_EXTRA = 8


@dataclass(frozen=True, slots=True)
class _Repeat:
    node: object
    low: int
    high: int


class _Parser:
    def __init__(self, shape: str) -> None:
        self.text = shape
        self.at = 0

    def parse(self) -> object:
        node = self._alternatives()
        if self.at != len(self.text):
            raise ValueError(f"unexpected {self.text[self.at]!r} at {self.at} in shape")
        return node

    def _peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def _alternatives(self) -> object:
        options = [self._sequence()]
        while self._peek() == "|":
            self.at += 1
            options.append(self._sequence())
        return ("alt", options) if len(options) > 1 else options[0]

    def _sequence(self) -> object:
        items: list[object] = []
        while self._peek() not in ("", "|", ")"):
            atom = self._atom()
            if atom is not None:
                items.append(self._quantified(atom))
        return ("seq", items)

    def _atom(self) -> object | None:
        char = self.text[self.at]
        self.at += 1
        if char == "(":
            if self.text.startswith("?:", self.at):
                self.at += 2
            elif self.text.startswith("?i)", self.at) or self.text.startswith("?-i)", self.at):
                self.at = self.text.index(")", self.at) + 1
                return None
            elif self._peek() == "?":
                # (?i:…) and (?-i:…): flags do not change what a draw may be.
                self.at = self.text.index(":", self.at) + 1
            node = self._alternatives()
            self.at += 1  # the closing parenthesis
            return node
        if char == "[":
            return ("set", self._set())
        if char == "\\":
            escaped = self.text[self.at]
            self.at += 1
            if escaped in _CLASS_ESCAPES:
                return ("set", _CLASS_ESCAPES[escaped])
            return ("lit", {"n": "\n", "r": "\r", "t": "\t"}.get(escaped, escaped))
        if char == ".":
            return ("set", string.ascii_letters + string.digits)
        return ("lit", char)

    def _set(self) -> str:
        chars: list[str] = []
        negate = self._peek() == "^"
        if negate:
            self.at += 1
        first = True
        while first or self._peek() != "]":
            first = False
            char = self.text[self.at]
            self.at += 1
            if char == "\\":
                escaped = self.text[self.at]
                self.at += 1
                if escaped in _CLASS_ESCAPES:
                    chars.extend(_CLASS_ESCAPES[escaped])
                    continue
                char = escaped
            if self._peek() == "-" and self.text[self.at + 1 : self.at + 2] not in ("]", ""):
                end = self.text[self.at + 1]
                if end == "\\":
                    end = self.text[self.at + 2]
                    self.at += 1
                self.at += 2
                chars.extend(chr(c) for c in range(ord(char), ord(end) + 1))
            else:
                chars.append(char)
        self.at += 1
        if negate:
            excluded = set(chars)
            return "".join(c for c in string.ascii_letters + string.digits if c not in excluded)
        return "".join(dict.fromkeys(chars))

    def _quantified(self, atom: object) -> object:
        char = self._peek()
        if char == "?":
            self.at += 1
            return _Repeat(atom, 0, 1)
        if char and char in "*+":
            self.at += 1
            low = 0 if char == "*" else 1
            return _Repeat(atom, low, low + _OPEN_EXTRA)
        if char == "{" and self.text[self.at + 1 : self.at + 2].isdigit():
            end = self.text.index("}", self.at)
            body = self.text[self.at + 1 : end]
            self.at = end + 1
            low_text, _, high_text = body.partition(",")
            low = int(low_text)
            if "," not in body:
                high = low
            elif high_text:
                high = int(high_text)
            else:
                high = low + _OPEN_EXTRA
            return _Repeat(atom, low, high)
        return atom


class ShapeText:
    """Draws strings of a shape from one seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def make(self, shape: str) -> str:
        node = _Parser(shape).parse()
        drawn = self._draw(node)
        # A long run of one character is what placeholders look like and what a real generator
        # practically never draws; draw again (a shape with such a run of literals keeps it).
        for _ in range(20):
            if max(map(len, _runs(drawn)), default=0) < 6:
                break
            drawn = self._draw(node)
        return drawn

    def _draw(self, node: object) -> str:
        if isinstance(node, _Repeat):
            count = self.rng.randint(node.low, node.high)
            return "".join(self._draw(node.node) for _ in range(count))
        kind, body = cast(tuple[str, Any], node)
        if kind == "lit":
            return str(body)
        if kind == "set":
            return self.rng.choice(str(body))
        if kind == "alt":
            return self._draw(self.rng.choice(body))
        return "".join(self._draw(item) for item in body)


def _runs(text: str) -> list[str]:
    runs: list[str] = []
    for char in text:
        if runs and runs[-1][-1] == char:
            runs[-1] += char
        else:
            runs.append(char)
    return runs
