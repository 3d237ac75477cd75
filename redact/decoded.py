"""What a string reads as once its encodings are undone: the decoded views detectors also read
(issue 12).

A credential, a known secret or an e-mail address can travel encoded inside span text:
percent-encoded in a URL (`jane%40example.com`, or every byte: `%73%6B%2D…`), JSON- or
JS-escaped (`\\u0073k-…`), as an HTML character reference, as base64 or hex of any of these, or
with invisible characters (zero-width space, soft hyphen, NUL, byte-order mark) and look-alikes
(fullwidth `ｓｋ－`) inserted. The raw text hides all of them from a pattern. A *view* is the
string with one layer undone, with a map from each of its characters back to the stretch of the
original it came from: a match in a view is cut from the original whole, escapes and invisible
characters included, so no piece of it is left behind.

Three layers, each one pass over its input:

- characters: `%XX` (consecutive escapes read as UTF-8), `\\uXXXX` (surrogate pairs joined),
  `\\u{…}`, `\\xXX`, `&#…;`, `\\/` and `\\\\` are decoded; invisible characters are dropped and
  look-alikes folded to the ASCII they stand for (`redact.lookalikes`);
- base64: a run of base64 characters where a payload starts (after a character that cannot be
  part of one, or a `/`), whose first twelve characters decode to nine ASCII bytes, is decoded
  whole (the following lines of a wrapped payload with it); so is a run that starts as gzip or
  zlib data does (`H4sI`, `eJw`…), which is then inflated (a gzipped `.env` pasted as base64);
- hex: likewise a run of hex digits (optionally after `0x`) whose first six bytes are printable
  ASCII.

Views nest up to `MAX_DEPTH` layers (base64 of a percent-encoded secret is two), a view that
reads like one already made is dropped, and all views together are held to `BUDGET` times the
string's length and what its payloads inflated to, so the work stays linear in them. Inflating
has a budget of its own, so no decompression bomb goes off: a payload may inflate to
`INFLATE_RATIO` times its compressed size and all of a string's payloads to `MAX_INFLATED`
bytes. Past any budget the string cannot be read whole, and `PayloadTooLarge` or
`ViewsTooLarge` is raised (a `DetectorTimeout`: the redactor removes the string, the assessor
calls it unreadable, as for a detector that could not finish). Compressed data that turns
corrupt is read as far as it inflates. Only strings holding a `TRIGGER` get views at all: the
pattern is one more branch of the redactor's combined RE2 prescan, and most span text holds
none.

Not decoded: payloads glued to the letters before them (`tokenZGF0YQ…`), base64 or hex whose first
bytes are not ASCII (UTF-8 `jörg@…` encoded as it is; its percent- or JSON-escaped form is
ASCII), look-alikes NFKC leaves alone (Cyrillic `а` for Latin `a`), and nesting deeper than
`MAX_DEPTH`.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from bisect import bisect_right
from collections.abc import Iterator

from redact.detectors.base import DetectorTimeout
from redact.lookalikes import INVISIBLE, LOOKALIKE, fold, python_class, re2_class

__all__ = [
    "BUDGET",
    "INFLATE_RATIO",
    "MAX_DEPTH",
    "MAX_INFLATED",
    "TRIGGER",
    "PayloadTooLarge",
    "View",
    "ViewsTooLarge",
    "views",
]

MAX_DEPTH = 3
# All views of a string together hold at most this many characters per character of it, or of
# what its compressed payloads inflate to (which has a budget of its own).
BUDGET = 16
# A compressed payload inflates to at most this many times its size (as files do, see
# `tracecheck.readers.layers`), and all of one string's payloads to at most this many bytes.
INFLATE_RATIO = 100
MAX_INFLATED = 4 << 20


class PayloadTooLarge(DetectorTimeout):
    """A compressed payload in a string inflates past its budget: the string cannot be read whole."""

    def __init__(self) -> None:
        super().__init__("compressed-payload")


class ViewsTooLarge(DetectorTimeout):
    """A string's views together outgrow their budget: the string cannot be read whole."""

    def __init__(self) -> None:
        super().__init__("decoded-views")


# One base64 group of four characters that decodes to three ASCII bytes: the first character's
# value is below 32, the second's bit 3 and the third's bit 1 are clear.
_GROUP_FIRST = "[A-Za-f]"
_GROUP_REST = "[A-HQ-Xg-nw-z0-3][ABEFIJMNQRUVYZcdghklopstwx014589][A-Za-z0-9+/_-]"
_GROUP = _GROUP_FIRST + _GROUP_REST
# How base64 of gzip (1f 8b 08) and of zlib (78 01, 78 5e, 78 9c, 78 da) starts.
_COMPRESSED_HEAD = "(?:H4sI|eJ[w-z]|eN[o-r]|eA[E-H]|eF[4-7])"
_HEX_BYTE = "[2-7][0-9a-fA-F]"  # two hex digits of a printable ASCII byte
_HEX_ASCII = f"(?:{_HEX_BYTE}){{6}}"

# RE2 syntax, matched on UTF-8 bytes as part of the combined prescan. The base64 and hex branches
# are anchored where a payload starts: an unanchored window slows the whole scan's DFA tenfold.
TRIGGER = "|".join(
    [
        r"%[0-9A-Fa-f]{2}",
        r"\\u[0-9A-Fa-f]{4}",
        r"\\u\{[0-9A-Fa-f]{1,6}\}",
        r"\\x[0-9A-Fa-f]{2}",
        r"&#[0-9]{1,7};",
        r"&#[xX][0-9A-Fa-f]{1,6};",
        r":\\/\\/",
        f"[{re2_class(INVISIBLE)}{re2_class(LOOKALIKE)}]",
        f"(?:^|[^A-Za-z0-9+_-])(?:{_GROUP}){{3}}",
        f"(?:^|[^A-Za-z0-9+_-]){_COMPRESSED_HEAD}[A-Za-z0-9+/_-]{{4}}",
        f"(?:^|[^0-9A-Za-z]|0[xX]){_HEX_ASCII}",
    ]
)

_ODD_CHARACTERS = python_class(INVISIBLE) + python_class(LOOKALIKE)  # inside a class
_ODD = f"[{_ODD_CHARACTERS}]"
_CHARACTERS = re.compile(
    r"(?P<pct>(?:%[0-9A-Fa-f]{2})+)"
    r"|(?P<u>(?:\\u[0-9A-Fa-f]{4})+)"
    r"|\\u\{(?P<ub>[0-9A-Fa-f]{1,6})\}"
    r"|\\x(?P<x>[0-9A-Fa-f]{2})"
    r"|&#(?:(?P<dec>[0-9]{1,7})|[xX](?P<hex>[0-9A-Fa-f]{1,6}));"
    r"|(?P<slash>\\/)"
    r"|(?P<backslash>\\\\)"
    f"|(?P<odd>{_ODD}+)"
)
_ODD_RUN = re.compile(f"{_ODD}+")
# The characters a match of `_CHARACTERS` can begin with: its escapes' first characters and the
# odd ones. `re` scans for one character class many times faster than it tries the eight
# branches at every position, and faster again for a class of ASCII characters alone, which
# is all an ASCII text can hold (0.6 s → 0.025 s over 4.5 MB of tool results).
_STARTS = re.compile(f"[%\\\\&{_ODD_CHARACTERS}]")
_ASCII_STARTS = re.compile(
    "[" + "".join(f"\\x{code:02x}" for code in range(128) if _STARTS.match(chr(code))) + "]"
)
# A payload's start: not inside a word, then three groups. Written with the first character
# before the look-behind, so that `re` scans for that character class instead of trying the
# look-behind at every position (1.6x faster here, 5.5x for hex below; the same matches:
# tests/test_redact_decoded.py).
_BASE64_START = re.compile(f"{_GROUP_FIRST}(?<![A-Za-z0-9+_-].){_GROUP_REST}(?:{_GROUP}){{2}}")
_COMPRESSED_START = re.compile(f"(?<![A-Za-z0-9+_-]){_COMPRESSED_HEAD}[A-Za-z0-9+/_-]{{4}}")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]*")
_BASE64_NEXT_LINE = re.compile(r"\r?\n([A-Za-z0-9+/_-]+)(?==*(?:\r?\n|\Z))")
_PADDING = re.compile(r"={0,2}")
_HEX_START = re.compile(f"[2-7](?:(?<![0-9A-Za-z].)|(?<=0[xX].))[0-9a-fA-F](?:{_HEX_BYTE}){{5}}")
_HEX_RUN = re.compile(r"[0-9A-Fa-f]*")
_LINE_BREAKS = str.maketrans("", "", "\r\n")
_URLSAFE = str.maketrans("-_", "+/")


class View:
    """The text of one view and the way back from each of its characters to the original.

    Segment k covers `text[starts[k]:starts[k+1]]` and came from `source[origins[k]:ends[k]]`
    (the text one layer up). With a stride, character j of the segment came from `stride`
    characters of its own; without one (stride 0), every character came from the whole
    stretch (a decoded payload)."""

    __slots__ = ("_ends", "_origins", "_starts", "_strides", "inflated", "parent", "text")

    def __init__(
        self,
        text: str,
        parent: View | None,
        starts: list[int],
        origins: list[int],
        ends: list[int],
        strides: list[int],
        inflated: int = 0,
    ) -> None:
        self.text = text
        self.inflated = inflated  # characters of the text that inflating a payload gave
        self.parent = parent
        self._starts = starts
        self._origins = origins
        self._ends = ends
        self._strides = strides

    def __repr__(self) -> str:
        # Never the text: a view holds what redaction removes.
        return f"View({len(self.text)} characters, {len(self._starts)} segments)"

    def _source(self, index: int) -> tuple[int, int]:
        k = bisect_right(self._starts, index) - 1
        stride = self._strides[k]
        if stride:
            start = self._origins[k] + (index - self._starts[k]) * stride
            return start, start + stride
        return self._origins[k], self._ends[k]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The stretch of the original string that `text[start:end]` came from."""
        low = self._source(start)[0]
        high = self._source(max(end, start + 1) - 1)[1]
        return (low, high) if self.parent is None else self.parent.span(low, high)


class _Builder:
    def __init__(self, source: str) -> None:
        self.source = source
        self.pieces: list[str] = []
        self.starts: list[int] = []
        self.origins: list[int] = []
        self.ends: list[int] = []
        self.strides: list[int] = []
        self.length = 0
        self.changed = False
        self.inflated = 0  # characters of the view that inflating a payload gave

    def _add(self, text: str, start: int, end: int, stride: int) -> None:
        self.pieces.append(text)
        self.starts.append(self.length)
        self.origins.append(start)
        self.ends.append(end)
        self.strides.append(stride)
        self.length += len(text)

    def copy(self, start: int, end: int) -> None:
        """Source characters that read as they are."""
        if end > start:
            self._add(self.source[start:end], start, end, 1)

    def put(self, text: str, start: int, end: int, stride: int = 0) -> None:
        """Decoded text standing for `source[start:end]` (nothing: the source stretch vanishes)."""
        self.changed = True
        if text:
            self._add(text, start, end, stride)

    def view(self, parent: View | None) -> View | None:
        if not self.changed:
            return None
        return View(
            "".join(self.pieces),
            parent,
            self.starts,
            self.origins,
            self.ends,
            self.strides,
            self.inflated,
        )


def _folded(text: str) -> str:
    """Decoded text as a detector should read it (invisible characters out, look-alikes in
    ASCII): it all maps to one stretch, so no map is needed inside it."""
    if text.isascii() and text.isprintable():
        return text
    return _ODD_RUN.sub(lambda match: "".join(map(fold, match.group())), text)


def _utf8_length(lead: int) -> int:
    if lead < 0x80:
        return 1
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    if 0xF0 <= lead <= 0xF4:
        return 4
    return 0


def _percent(out: _Builder, start: int, escapes: str) -> None:
    data = bytes.fromhex(escapes.replace("%", ""))
    if data.isascii():
        text = data.decode("ascii")
        if text.isprintable():
            out.put(text, start, start + len(escapes), 3)
            return
    index = 0
    while index < len(data):
        size = _utf8_length(data[index])
        here = start + 3 * index
        try:
            char = data[index : index + size].decode("utf-8") if size else None
        except UnicodeDecodeError:
            char = None
        if char is None:
            out.copy(here, here + 3)  # not UTF-8: the escape is read as written
            index += 1
            continue
        out.put(fold(char), here, here + 3 * size)
        index += size


def _unicode_escapes(out: _Builder, start: int, escapes: str) -> None:
    codes = [int(escapes[i + 2 : i + 6], 16) for i in range(0, len(escapes), 6)]
    if all(0x20 <= code < 0x7F for code in codes):
        out.put("".join(map(chr, codes)), start, start + len(escapes), 6)
        return
    index = 0
    while index < len(codes):
        code = codes[index]
        here = start + 6 * index
        if (
            0xD800 <= code < 0xDC00
            and index + 1 < len(codes)
            and 0xDC00 <= codes[index + 1] < 0xE000
        ):
            joined = 0x10000 + ((code - 0xD800) << 10) + (codes[index + 1] - 0xDC00)
            out.put(fold(chr(joined)), here, here + 12)
            index += 2
        elif 0xD800 <= code < 0xE000:
            out.copy(here, here + 6)  # a lone surrogate is read as written
            index += 1
        else:
            out.put(fold(chr(code)), here, here + 6)
            index += 1


def _code_point(out: _Builder, start: int, end: int, code: int) -> None:
    if code > 0x10FFFF or 0xD800 <= code < 0xE000:
        out.copy(start, end)
    else:
        out.put(fold(chr(code)), start, end)


def _escapes(source: str) -> Iterator[re.Match[str]]:
    """What `_CHARACTERS.finditer(source)` gives, found by looking only where a match can begin."""
    starts = _ASCII_STARTS if source.isascii() else _STARTS
    position = 0
    while (candidate := starts.search(source, position)) is not None:
        match = _CHARACTERS.match(source, candidate.start())
        if match is None:
            position = candidate.start() + 1
        else:
            yield match
            position = match.end()  # every branch takes at least one character


def _characters(source: str, parent: View | None) -> View | None:
    out = _Builder(source)
    done = 0
    for match in _escapes(source):
        start, end = match.span()
        out.copy(done, start)
        done = end
        kind = match.lastgroup
        if kind == "pct":
            _percent(out, start, match.group())
        elif kind == "u":
            _unicode_escapes(out, start, match.group())
        elif kind == "odd":
            for index in range(start, end):
                out.put(fold(source[index]), index, index + 1)
        elif kind == "slash":
            out.put("/", start, end)
        elif kind == "backslash":
            out.put("\\", start, end)  # JSON inside JSON: `\\u0073` is `\u0073` one layer down
        else:
            digits = match.group(kind or "")
            _code_point(out, start, end, int(digits, 10 if kind == "dec" else 16))
    out.copy(done, len(source))
    return out.view(parent)


def _base64_bytes(payload: str) -> bytes:
    body = payload.translate(_LINE_BREAKS).rstrip("=").translate(_URLSAFE)
    if len(body) % 4 == 1:
        body = body[:-1]
    try:
        return base64.b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return b""


def _base64_decode(payload: str) -> str:
    return _folded(_base64_bytes(payload).decode("utf-8", "replace"))


def _inflated(data: bytes, allowance: int) -> bytes | None:
    """What gzip (members one after another) or zlib data inflates to, or None when it is
    neither; a stream cut short or corrupt gives what it held up to there. Raises
    `PayloadTooLarge` past `INFLATE_RATIO` times the data's size or `allowance` bytes."""
    limit = min(INFLATE_RATIO * len(data), allowance)
    out = bytearray()
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 32)  # a gzip or a zlib header
    pending = data
    while pending and len(out) <= limit:
        piece, corrupt = _until_error(inflater, pending, limit + 1 - len(out))
        out += piece
        if corrupt:
            break  # not compressed after all, or corrupt: what came out so far is all there is
        pending = inflater.unconsumed_tail
        if inflater.eof:
            pending = inflater.unused_data
            if pending[:2] != b"\x1f\x8b":
                break
            inflater = zlib.decompressobj(zlib.MAX_WBITS | 32)
    if len(out) > limit:
        raise PayloadTooLarge
    return bytes(out) if out else None


def _until_error(inflater: zlib._Decompress, data: bytes, most: int) -> tuple[bytes, bool]:
    """What `inflater` gives for `data` (at most `most` bytes), and whether the data turned
    corrupt. A call that meets corrupt data (a checksum that does not match, a line of the
    payload lost) keeps nothing it inflated, so the output up to there is found again from a
    copy of the inflater: the longest prefix of `data` that inflates, by halving."""
    saved = inflater.copy()
    try:
        return inflater.decompress(data, most), False
    except zlib.error:
        pass
    good, bad, out = 0, len(data), b""  # a prefix of `good` bytes inflates, one of `bad` not
    while bad - good > 1:
        middle = (good + bad) // 2
        try:
            out, good = saved.copy().decompress(data[:middle], most), middle
        except zlib.error:
            bad = middle
    return out, True


class _Payloads:
    """Where base64 payloads start in one text, left to right: plain ones (`_BASE64_START`) and
    compressed ones (`_COMPRESSED_START`). Each pattern's next match is kept until the scan
    passes it, so each reads the text once (searching both afresh at every payload would read
    the rest of the text once per payload)."""

    __slots__ = ("_from", "_next", "_source")

    def __init__(self, source: str) -> None:
        self._source = source
        # Per pattern: its next match, found by a search from `_from` (None: none after that).
        self._next: list[re.Match[str] | None] = [None, None]
        self._from = [-1, -1]

    def _at(self, index: int, pattern: re.Pattern[str], position: int) -> re.Match[str] | None:
        kept = self._next[index]
        searched = self._from[index] >= 0 and self._from[index] <= position
        if searched and (kept is None or kept.start() >= position):
            return kept
        found = pattern.search(self._source, position)
        self._next[index], self._from[index] = found, position
        return found

    def next(self, position: int) -> tuple[int, bool] | None:
        """Where the next payload at or after `position` starts, and whether it is compressed."""
        plain = self._at(0, _BASE64_START, position)
        packed = self._at(1, _COMPRESSED_START, position)
        if packed is not None and (plain is None or packed.start() <= plain.start()):
            return packed.start(), True
        return (plain.start(), False) if plain is not None else None


class _Inflating:
    """What the base64 layer may still inflate for one string (`MAX_INFLATED` in all)."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_INFLATED


def _base64(source: str, parent: View | None, inflating: _Inflating | None = None) -> View | None:
    out = _Builder(source)
    done = 0
    position = 0
    payloads = _Payloads(source)
    while (found := payloads.next(position)) is not None:
        start, packed = found
        end = _BASE64_RUN.match(source, start).end()  # type: ignore[union-attr]
        # A payload wrapped in lines (MIME, PEM bodies) goes on after every full line.
        line_length = end - start
        while line_length % 4 == 0 and (line := _BASE64_NEXT_LINE.match(source, end)):
            end = line.end()
            line_length = len(line.group(1))
        end = _PADDING.match(source, end).end()  # type: ignore[union-attr]
        decoded = ""
        if packed:
            data = _base64_bytes(source[start:end])
            inflated = _inflated(data, (inflating or _Inflating()).left)
            if inflated is not None:
                if inflating is not None:
                    inflating.left -= len(inflated)
                decoded = _folded(inflated.decode("utf-8", "replace"))
                out.inflated += len(decoded)
            elif _BASE64_START.match(source, start):
                decoded = _folded(data.decode("utf-8", "replace"))
        else:
            decoded = _base64_decode(source[start:end])
        if decoded:
            out.copy(done, start)
            out.put(decoded, start, end)
            done = end
        position = max(end, start + 1)
    out.copy(done, len(source))
    return out.view(parent)


def _hex(source: str, parent: View | None) -> View | None:
    out = _Builder(source)
    done = 0
    position = 0
    while (match := _HEX_START.search(source, position)) is not None:
        start = match.start()
        end = _HEX_RUN.match(source, start).end()  # type: ignore[union-attr]
        digits = source[start : end - (end - start) % 2]
        decoded = _folded(bytes.fromhex(digits).decode("utf-8", "replace"))
        if decoded:
            out.copy(done, start)
            out.put(decoded, start, end)
            done = end
        position = end
    out.copy(done, len(source))
    return out.view(parent)


_LAYERS = (_characters, _base64, _hex)


def views(text: str) -> tuple[View, ...]:
    """Every view of the string, up to `MAX_DEPTH` layers deep; none when nothing decodes.
    Raises `PayloadTooLarge` when a compressed payload inflates past its budget."""
    found: list[View] = []
    seen = {text}
    budget = BUDGET * len(text)
    inflating = _Inflating()
    frontier: list[View | None] = [None]
    for _ in range(MAX_DEPTH):
        deeper: list[View | None] = []
        for parent in frontier:
            source = text if parent is None else parent.text
            for layer in _LAYERS:
                if layer is _base64:
                    view = _base64(source, parent, inflating)
                else:
                    view = layer(source, parent)
                if view is None or view.text in seen:
                    continue
                # What inflating gave is not charged, and earns views of its own as the
                # string's characters do (a secret percent-encoded in a gzipped file).
                budget += (BUDGET + 1) * view.inflated - len(view.text)
                if budget < 0:
                    raise ViewsTooLarge
                seen.add(view.text)
                found.append(view)
                deeper.append(view)
        if not deeper:
            break
        frontier = deeper
    return tuple(found)
