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

import heapq
from collections.abc import Iterable, Iterator
from types import SimpleNamespace
from typing import Any

import regex

__all__ = ["ENGINE", "alternatives", "fallback", "re2", "translate"]

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


def _structure(pattern: str) -> Iterator[tuple[int, str, int]]:
    """Each `(`, `)` and `|` of an RE2 pattern outside escapes and character classes (where a
    `|` or `(` is a member), with its index and the group depth after it."""
    depth = 0
    i = 0
    n = len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":  # to the end of the class
            i += 1
            if pattern.startswith("^", i):
                i += 1
            if pattern.startswith("]", i):
                i += 1
            while i < n and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
        elif char in "()|":
            depth += (char == "(") - (char == ")")
            yield i, char, depth
        i += 1


def alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of an RE2 pattern (`a|(b|c)|[|]` -> `a`, `(b|c)`, `[|]`)."""
    parts: list[str] = []
    first = 0
    for i, char, depth in _structure(pattern):
        if char == "|" and depth == 0:
            parts.append(pattern[first:i])
            first = i + 1
    parts.append(pattern[first:])
    if len(parts) == 1:
        return parts
    # A whole alternative that is one group without a quantifier, `(?:x|y)` or `(?i:x|y)`, is its
    # own alternatives in the same order: `(?:x|y)|z` is `x|y|z`.
    flat: list[str] = []
    for part in parts:
        opener = _GROUP_OPENER.match(part)
        if opener and part.endswith(")") and _closes_at_end(part):
            inner = alternatives(part[opener.end() : -1])
            if len(inner) > 1:
                flat.extend(f"{opener.group()}{each})" for each in inner)
                continue
        flat.append(part)
    return flat


_GROUP_OPENER = regex.compile(r"\(\?[a-zA-Z-]*:")


def _closes_at_end(part: str) -> bool:
    """Whether the group that opens `part` closes at its last character."""
    for i, char, depth in _structure(part):
        if char == ")" and depth == 0:
            return i == len(part) - 1
    return False


# Text at least this long is searched alternative by alternative (below, one pass is cheaper).
_LONG = 4096


class _Pattern:
    """One RE2 pattern on `regex`. In a long text, an alternation of many patterns (the prescan
    joins every detector's) is searched alternative by alternative, each compiled alone, and the
    matches merged as the alternation would find them: the leftmost, and at one place the first
    alternative. `regex` tries every alternative at every offset of the text, which for two
    hundred of them runs at a fraction of a megabyte a second; alone, most have a literal prefix
    that it finds fast."""

    __slots__ = ("_alternatives", "_parts_compiled", "_whole", "pattern")

    def __init__(self, pattern: bytes | str) -> None:
        self.pattern = pattern
        text = _text(pattern)
        self._whole = regex.compile(translate(text), regex.V0)
        self._alternatives = alternatives(text)
        self._parts_compiled: list[regex.Pattern[str]] | None = None

    @property
    def _parts(self) -> list[regex.Pattern[str]]:
        """The alternatives compiled, on first use (only long texts need them)."""
        if self._parts_compiled is None:
            self._parts_compiled = [
                regex.compile(translate(part), regex.V0) for part in self._alternatives
            ]
        return self._parts_compiled

    def matches(self, text: str) -> bool:
        """Whether the pattern matches anywhere in `text`."""
        if len(text) < _LONG or len(self._alternatives) == 1:
            return self._whole.search(text) is not None
        return any(part.search(text) for part in self._parts)

    def search(self, data: bytes | str, pos: int = 0, endpos: int | None = None) -> _Match | None:
        for match in self.finditer(data, pos, endpos):
            return match
        return None

    def match(self, data: bytes | str, pos: int = 0, endpos: int | None = None) -> _Match | None:
        """A match that starts at `pos` (RE2's anchored `match`)."""
        if isinstance(data, bytes) and _boundary(data, pos) != pos:
            return None  # no character starts inside another
        text, pos, char_pos, end = self._subject(data, pos, endpos)
        found = self._whole.match(text, char_pos, end)
        if found is None:
            return None
        return self._matches(data, text, pos, char_pos, [found.span()])[0]

    def finditer(
        self, data: bytes | str, pos: int = 0, endpos: int | None = None
    ) -> Iterator[_Match]:
        text, pos, char_pos, end = self._subject(data, pos, endpos)
        spans = self._spans(text, char_pos, end)
        if isinstance(data, str) or data.isascii():
            for start, stop in spans:
                yield _Match(start, stop, data[start:stop])
            return
        yield from self._matches(data, text, pos, char_pos, spans)

    @staticmethod
    def _subject(data: bytes | str, pos: int, endpos: int | None) -> tuple[str, int, int, int]:
        """The text to search; `pos` (moved past a character it falls inside, whose remaining
        bytes RE2 cannot match either); and `pos` and `endpos` in the text's characters."""
        if isinstance(data, str) or data.isascii():
            text = data if isinstance(data, str) else data.decode("ascii")
            return text, pos, pos, len(text) if endpos is None else endpos
        text = _text(data)
        pos = _boundary(data, pos)
        end = len(text) if endpos is None else _characters(data, _boundary(data, endpos))
        return text, pos, _characters(data, pos), end

    @staticmethod
    def _matches(
        data: bytes | str, text: str, pos: int, char_pos: int, spans: Iterable[tuple[int, int]]
    ) -> list[_Match]:
        """Matches at spans in characters of `text`, with offsets in bytes when `data` is UTF-8
        bytes: counted forward, as a match starts where the one before it ended, or later."""
        if isinstance(data, str) or data.isascii():
            return [_Match(start, stop, data[start:stop]) for start, stop in spans]
        found: list[_Match] = []
        char_at, byte_at = char_pos, pos
        for start, stop in spans:
            byte_at += len(text[char_at:start].encode("utf-8", "surrogatepass"))
            byte_start = byte_at
            byte_at += len(text[start:stop].encode("utf-8", "surrogatepass"))
            char_at = stop
            found.append(_Match(byte_start, byte_at, data[byte_start:byte_at]))
        return found

    def _spans(self, text: str, pos: int, end: int) -> Iterator[tuple[int, int]]:
        """The matches' spans, in characters, as the alternation's `finditer` gives them."""
        if len(self._alternatives) == 1 or end - pos < _LONG:
            for each in self._whole.finditer(text, pos, end):
                yield each.span()
            return
        # The next match of each alternative, by where it starts, then by the alternative's
        # place in the pattern; one that starts inside a match taken is searched for again.
        heap: list[tuple[int, int, int]] = []
        found: regex.Match[str] | None
        for index, part in enumerate(self._parts):
            found = part.search(text, pos, end)
            if found is not None:
                heap.append((found.start(), index, found.end()))
        heapq.heapify(heap)
        while heap:
            start, index, stop = heap[0]
            yield start, stop
            after = stop if stop > start else stop + 1
            while heap and heap[0][0] < after:
                _, index, _ = heapq.heappop(heap)
                found = self._parts[index].search(text, after, end) if after <= end else None
                if found is not None:
                    heapq.heappush(heap, (found.start(), index, found.end()))


def _characters(data: bytes, offset: int) -> int:
    """How many characters the first `offset` bytes of UTF-8 `data` hold (`offset` is where
    one starts)."""
    return len(data[:offset].decode("utf-8", "surrogatepass"))


def _boundary(data: bytes, offset: int) -> int:
    """The first offset at or after `offset` where a character of UTF-8 `data` starts."""
    offset = max(0, min(offset, len(data)))
    while offset < len(data) and data[offset] & 0xC0 == 0x80:
        offset += 1
    return offset


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
        found = [i for i, p in enumerate(self._patterns) if p.matches(text)]
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
