"""Characters that can hide a credential from a pattern: invisible ones and look-alikes (issue 12).

Zero-width spaces and joiners, a soft hyphen, NUL or a byte-order mark inside `sk-…` leave it
unreadable to a pattern and invisible to a reader; fullwidth forms (`ｓｋ－…`), mathematical
letters and other compatibility characters look like the ASCII they stand for, and NFKC
normalisation maps them back to it. The decoded views (`redact.decoded`) drop the first and fold
the second, character by character, so a detector sees the credential the reader sees.

Both tables are generated from `unicodedata` (Unicode 14.0.0, Python 3.11's) with what later
versions add to the same definitions (Unicode 15.0's Egyptian hieroglyph format controls,
U+13439..1343F: a renderer of that version shows nothing for them, so they are seen through on
every Python), and checked by `tests/test_redact_decoded.py`; computing them at import would
cost a tenth of a second on the export path of a live agent.

- INVISIBLE: format characters (Cf), control characters (Cc) other than tab, line feed, vertical
  tab, form feed and carriage return, the combining grapheme joiner, variation selectors, Hangul
  fillers and Mongolian free variation selectors; and U+FFFD, which stands where bytes that were
  not UTF-8 were (a proxy repairs such text before scrubbing it): a reader skips it.
- LOOKALIKE: every other character whose NFKC form is ASCII, differs from it, is not white space,
  and is letters and digits only or one single character (`＠`, `．`, `－`, `ｓ`, `𝐬`, `ⓢ`, `™`).
  An ellipsis (`...`) or `½` (`1⁄2`) is not one: it hides no character a credential is made of.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from collections.abc import Sequence

__all__ = [
    "INVISIBLE",
    "LOOKALIKE",
    "UNICODE_VERSION",
    "fold",
    "python_class",
    "re2_class",
]

UNICODE_VERSION = "14.0.0"

INVISIBLE: tuple[tuple[int, int], ...] = (
    (0x0000, 0x0008),
    (0x000E, 0x001F),
    (0x007F, 0x009F),
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),
    (0x180B, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF9, 0xFFFB),
    (0xFFFD, 0xFFFD),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
    (0xE0100, 0xE01EF),
)

LOOKALIKE: tuple[tuple[int, int], ...] = (
    (0x00AA, 0x00AA),
    (0x00B2, 0x00B3),
    (0x00B9, 0x00BA),
    (0x0132, 0x0133),
    (0x017F, 0x017F),
    (0x01C7, 0x01CC),
    (0x01F1, 0x01F3),
    (0x02B0, 0x02B0),
    (0x02B2, 0x02B3),
    (0x02B7, 0x02B8),
    (0x02E1, 0x02E3),
    (0x037E, 0x037E),
    (0x1D2C, 0x1D2C),
    (0x1D2E, 0x1D2E),
    (0x1D30, 0x1D31),
    (0x1D33, 0x1D3A),
    (0x1D3C, 0x1D3C),
    (0x1D3E, 0x1D43),
    (0x1D47, 0x1D49),
    (0x1D4D, 0x1D4D),
    (0x1D4F, 0x1D50),
    (0x1D52, 0x1D52),
    (0x1D56, 0x1D58),
    (0x1D5B, 0x1D5B),
    (0x1D62, 0x1D65),
    (0x1D9C, 0x1D9C),
    (0x1DA0, 0x1DA0),
    (0x1DBB, 0x1DBB),
    (0x1FEF, 0x1FEF),
    (0x2024, 0x2024),
    (0x2070, 0x2071),
    (0x2074, 0x207A),
    (0x207C, 0x208A),
    (0x208C, 0x208E),
    (0x2090, 0x2093),
    (0x2095, 0x209C),
    (0x20A8, 0x20A8),
    (0x2102, 0x2102),
    (0x210A, 0x210E),
    (0x2110, 0x2113),
    (0x2115, 0x2116),
    (0x2119, 0x211D),
    (0x2120, 0x2122),
    (0x2124, 0x2124),
    (0x2128, 0x2128),
    (0x212A, 0x212A),
    (0x212C, 0x212D),
    (0x212F, 0x2131),
    (0x2133, 0x2134),
    (0x2139, 0x2139),
    (0x213B, 0x213B),
    (0x2145, 0x2149),
    (0x2160, 0x217F),
    (0x2460, 0x2473),
    (0x24B6, 0x24EA),
    (0x2C7C, 0x2C7D),
    (0x3250, 0x325F),
    (0x32B1, 0x32BF),
    (0x32CC, 0x32CF),
    (0x3371, 0x337A),
    (0x3380, 0x3381),
    (0x3383, 0x338B),
    (0x338E, 0x3394),
    (0x3396, 0x339A),
    (0x339C, 0x33A6),
    (0x33A9, 0x33AD),
    (0x33B0, 0x33B1),
    (0x33B3, 0x33B5),
    (0x33B7, 0x33BB),
    (0x33BD, 0x33BF),
    (0x33C3, 0x33C5),
    (0x33C8, 0x33D7),
    (0x33D9, 0x33DD),
    (0x33FF, 0x33FF),
    (0xA7F2, 0xA7F4),
    (0xFB00, 0xFB06),
    (0xFB29, 0xFB29),
    (0xFE10, 0xFE10),
    (0xFE13, 0xFE16),
    (0xFE33, 0xFE38),
    (0xFE47, 0xFE48),
    (0xFE4D, 0xFE50),
    (0xFE52, 0xFE52),
    (0xFE54, 0xFE57),
    (0xFE59, 0xFE5C),
    (0xFE5F, 0xFE66),
    (0xFE68, 0xFE6B),
    (0xFF01, 0xFF5E),
    (0x107A5, 0x107A5),
    (0x1D400, 0x1D454),
    (0x1D456, 0x1D49C),
    (0x1D49E, 0x1D49F),
    (0x1D4A2, 0x1D4A2),
    (0x1D4A5, 0x1D4A6),
    (0x1D4A9, 0x1D4AC),
    (0x1D4AE, 0x1D4B9),
    (0x1D4BB, 0x1D4BB),
    (0x1D4BD, 0x1D4C3),
    (0x1D4C5, 0x1D505),
    (0x1D507, 0x1D50A),
    (0x1D50D, 0x1D514),
    (0x1D516, 0x1D51C),
    (0x1D51E, 0x1D539),
    (0x1D53B, 0x1D53E),
    (0x1D540, 0x1D544),
    (0x1D546, 0x1D546),
    (0x1D54A, 0x1D550),
    (0x1D552, 0x1D6A3),
    (0x1D7CE, 0x1D7FF),
    (0x1F12B, 0x1F12E),
    (0x1F130, 0x1F14F),
    (0x1F16A, 0x1F16C),
    (0x1F190, 0x1F190),
    (0x1FBF0, 0x1FBF9),
)


def _starts(ranges: Sequence[tuple[int, int]]) -> list[int]:
    return [start for start, _ in ranges]


_INVISIBLE_STARTS = _starts(INVISIBLE)
_LOOKALIKE_STARTS = _starts(LOOKALIKE)


def _within(code: int, ranges: Sequence[tuple[int, int]], starts: list[int]) -> bool:
    index = bisect_right(starts, code) - 1
    return index >= 0 and code <= ranges[index][1]


def _fold(char: str) -> str:
    code = ord(char)
    if _within(code, INVISIBLE, _INVISIBLE_STARTS):
        return ""
    if _within(code, LOOKALIKE, _LOOKALIKE_STARTS):
        return unicodedata.normalize("NFKC", char)
    return char


# Folding is asked of the same few characters again and again.
_FOLDED: dict[str, str] = {}


def fold(char: str) -> str:
    """The character as a detector should read it: "" for an invisible one, the ASCII it stands
    for for a look-alike, else itself."""
    folded = _FOLDED.get(char)
    if folded is None:
        folded = _fold(char)
        if len(_FOLDED) < 65_536:
            _FOLDED[char] = folded
    return folded


def python_class(ranges: Sequence[tuple[int, int]]) -> str:
    """The body of a `re` character class holding these ranges."""
    return "".join(
        f"\\U{start:08x}" if start == end else f"\\U{start:08x}-\\U{end:08x}"
        for start, end in ranges
    )


def re2_class(ranges: Sequence[tuple[int, int]]) -> str:
    """The body of an RE2 character class holding these ranges (RE2 reads its pattern as UTF-8)."""
    return "".join(
        f"\\x{{{start:x}}}" if start == end else f"\\x{{{start:x}}}-\\x{{{end:x}}}"
        for start, end in ranges
    )
