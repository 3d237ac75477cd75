"""The regular-expression engine of the redactor's prescan: RE2 when it is installed, else `regex`.

`google-re2` is a dependency, but it has no wheel for every platform (none for musl libc, as on
Alpine), and where it cannot install, redaction must still work and give the same results, only
slower. Every use of RE2 goes through this module: `from redact.engine import re2` is the
`google-re2` module itself when it imports, and otherwise `fallback`, the few parts of its API
the redactor uses (`compile` with `search`, `match` and `finditer`, `escape`, `Options`,
`Set.SearchSet`) carried out by the `regex` module.

The patterns are RE2 syntax matched on UTF-8 bytes, and the fallback keeps their meaning: it
matches the decoded text, gives offsets in bytes, and translates what reads differently in
Python's dialect: `\\x{HHHH}`, the ASCII-only `\\w`, `\\d`, `\\s` and `\\b` of RE2, and `$`,
which in RE2 (without `(?m)`) matches only at the very end. What it cannot translate (POSIX
classes, `(?m)`, `(?U)`, `\\C`, `\\Q…\\E`, negated classes like `\\W` inside brackets) raises
`ValueError` when compiled, so a new pattern that needs more is found by the tests, not by a user.
RE2 runs in linear time and `regex` may backtrack; the prefilters are simple enough for that not
to matter at span sizes, and the precise patterns run on `regex` in either case.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import regex

__all__ = ["ENGINE", "fallback", "re2", "translate"]

_WORD = "0-9A-Za-z_"
_SPACE = "\\t\\n\\f\\r "  # RE2's \s: no \v
_DIGIT = "0-9"
_BOUNDARY = f"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))"
_NOT_BOUNDARY = f"(?:(?<=[{_WORD}])(?=[{_WORD}])|(?<![{_WORD}])(?![{_WORD}]))"
# Outside brackets: each escape as a Python expression of the same meaning.
_OUTSIDE = {
    "w": f"[{_WORD}]",
    "W": f"[^{_WORD}]",
    "d": f"[{_DIGIT}]",
    "D": f"[^{_DIGIT}]",
    "s": f"[{_SPACE}]",
    "S": f"[^{_SPACE}]",
    "b": _BOUNDARY,
    "B": _NOT_BOUNDARY,
    "z": "\\Z",
}
# Inside brackets: the members each stands for.
_INSIDE = {"w": _WORD, "d": _DIGIT, "s": _SPACE}
_UNSUPPORTED = frozenset("CQEWDSBbz")
_POSIX = regex.compile(r"\[:\^?[a-z]+:\]")


def translate(pattern: str) -> str:
    """An RE2 pattern rewritten with the same meaning in `regex`'s (and Python's) dialect.

    Raises ValueError for syntax it does not translate."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    in_class = False
    while i < n:
        char = pattern[i]
        if char == "\\":
            if i + 1 >= n:
                raise ValueError("pattern ends with a backslash")
            escaped = pattern[i + 1]
            if escaped == "x" and pattern.startswith("{", i + 2):
                close = pattern.find("}", i + 3)
                if close < 0:
                    raise ValueError(f"unterminated \\x{{ at {i}")
                out.append(f"\\U{int(pattern[i + 3 : close], 16):08x}")
                i = close + 1
                continue
            if in_class and escaped in _INSIDE:
                out.append(_INSIDE[escaped])
            elif in_class and escaped in _UNSUPPORTED:
                raise ValueError(f"\\{escaped} inside brackets at {i} is not translated")
            elif not in_class and escaped in _OUTSIDE:
                out.append(_OUTSIDE[escaped])
            elif escaped in ("C", "Q", "E"):
                raise ValueError(f"\\{escaped} at {i} is not translated")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if char == "[" and _POSIX.match(pattern, i):
                raise ValueError(f"POSIX class at {i} is not translated")
            if char == "[":
                out.append("\\[")  # literal in RE2's brackets; escaped so no dialect nests it
            else:
                out.append(char)
                if char == "]":
                    in_class = False
            i += 1
            continue
        if char == "[":
            in_class = True
            out.append(char)
            i += 1
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            if pattern.startswith("]", i):  # a leading ] is a member
                out.append("\\]")
                i += 1
            continue
        if char == "(" and pattern.startswith("(?", i):
            flags = regex.match(r"\(\?([a-zA-Z-]*)[:)]", pattern[i:])
            if flags and ("m" in flags.group(1) or "U" in flags.group(1)):
                raise ValueError(f"flags (?{flags.group(1)}) at {i} are not translated")
        if char == "$":
            out.append("\\Z")
        else:
            out.append(char)
        i += 1
    if in_class:
        raise ValueError("unterminated [")
    return "".join(out)


def _text(data: bytes | str) -> str:
    if isinstance(data, str):
        return data
    return data.decode("utf-8", "surrogatepass")


class _Match:
    """A match with RE2's offsets: in bytes when the text was bytes."""

    __slots__ = ("_end", "_group", "_start")

    def __init__(self, start: int, end: int, group: bytes | str) -> None:
        self._start = start
        self._end = end
        self._group = group

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def span(self) -> tuple[int, int]:
        return self._start, self._end

    def group(self, index: int = 0) -> bytes | str:
        if index != 0:
            raise IndexError("only the whole match is kept")
        return self._group


class _Pattern:
    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: bytes | str) -> None:
        self.pattern = pattern
        self._compiled = regex.compile(translate(_text(pattern)), regex.V0)

    def search(self, data: bytes | str, pos: int = 0, endpos: int | None = None) -> _Match | None:
        for match in self.finditer(data, pos, endpos):
            return match
        return None

    def match(self, data: bytes | str, pos: int = 0, endpos: int | None = None) -> _Match | None:
        """A match that starts at `pos` (RE2's anchored `match`)."""
        found = self.search(data, pos, endpos)
        return found if found is not None and found.start() == pos else None

    def finditer(
        self, data: bytes | str, pos: int = 0, endpos: int | None = None
    ) -> Iterator[_Match]:
        if isinstance(data, str) or data.isascii():
            text = data if isinstance(data, str) else data.decode("ascii")
            end = len(text) if endpos is None else endpos
            for found in self._compiled.finditer(text, pos, end):
                start, stop = found.span()
                yield _Match(start, stop, data[start:stop])
            return
        # UTF-8 bytes: the text is searched, and its offsets in characters are turned into
        # offsets in bytes, counted forward (a match starts where the one before it ended, or
        # later).
        text = _text(data)
        char_at = _characters(data, pos)
        end = len(text) if endpos is None else _characters(data, endpos)
        byte_at = pos
        for found in self._compiled.finditer(text, char_at, end):
            start, stop = found.span()
            byte_at += len(text[char_at:start].encode("utf-8", "surrogatepass"))
            byte_start = byte_at
            byte_at += len(text[start:stop].encode("utf-8", "surrogatepass"))
            char_at = stop
            yield _Match(byte_start, byte_at, data[byte_start:byte_at])


def _characters(data: bytes, offset: int) -> int:
    """How many characters the first `offset` bytes of UTF-8 `data` hold."""
    return len(data[:offset].decode("utf-8", "surrogatepass"))


class _Options:
    """RE2's options; the fallback has no memory budget or encoding to set, so they are kept
    and ignored."""

    def __init__(self) -> None:
        self.max_mem = 8 << 20


class _SearchSet:
    """RE2's set of unanchored patterns: which of them match somewhere in a text."""

    def __init__(self) -> None:
        self._patterns: list[_Pattern] = []

    def Add(self, pattern: bytes | str) -> int:
        self._patterns.append(_Pattern(pattern))
        return len(self._patterns) - 1

    def Compile(self) -> None:
        pass

    def Match(self, data: bytes | str) -> list[int] | None:
        text = _text(data)
        found = [i for i, p in enumerate(self._patterns) if p._compiled.search(text)]
        return found or None


class _Set:
    @staticmethod
    def SearchSet(options: Any = None) -> _SearchSet:
        return _SearchSet()


def _compile(pattern: bytes | str, options: Any = None) -> _Pattern:
    return _Pattern(pattern)


def _escape(text: str) -> str:
    return regex.escape(text, special_only=True, literal_spaces=True)


# The fallback, as a namespace shaped like the `re2` module (tests use it whichever is installed).
fallback: Any = SimpleNamespace(
    compile=_compile, escape=_escape, Options=_Options, Set=_Set, __name__="redact.engine.fallback"
)


def _load() -> tuple[Any, str]:
    try:
        import re2 as google_re2
    except ImportError:  # no wheel for this platform (musl libc): same results, slower
        return fallback, "regex"
    return google_re2, "re2"


re2, ENGINE = _load()
