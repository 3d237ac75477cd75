"""One linear-time scan that tells which strings could hold anything worth a closer look (A9).

Every detector's RE2 prefilter and every known-secret form are joined into one RE2 pattern. Most
span text is clean prose, so the expensive precise detectors run only on the strings this scan
flags. Many strings are scanned at once, joined by newlines, because the per-call cost of a
regular-expression engine dominates short strings; a match that crosses a join flags every string
it touches, so joining can only over-approximate.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import accumulate

import re2

from redact.detectors import Detector
from redact.known import KnownSecrets

__all__ = ["Prefilter", "prefilter_for"]

# A whole line of base64 may hide a known secret at any offset; the decode path looks at it.
# (Eight characters with padding counted, so six before it at least.)
_BASE64_LINE = r"(?m:^[A-Za-z0-9+/_-]{6,}={0,2}$)"


class Prefilter:
    def __init__(self, detectors: Sequence[Detector], known: KnownSecrets) -> None:
        parts = [f"(?:{d.prefilter})" for d in detectors]
        parts.extend(re2.escape(needle) for needle in known.needles)
        if known:
            parts.append(_BASE64_LINE)
        self._pattern = re2.compile("|".join(parts).encode())

    def may_hold(self, text: str) -> bool:
        """Whether a precise detector or a known secret could match somewhere in this string."""
        return self._pattern.search(text.encode("utf-8", "surrogatepass")) is not None

    def flag(self, strings: Sequence[str]) -> set[str]:
        """The strings, among many, that a precise detector or a known secret could match."""
        if not strings:
            return set()
        joined = "\n".join(strings)
        if joined.isascii():
            data = joined.encode("ascii")
            lengths: Iterable[int] = map(len, strings)
        else:
            encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
            data = b"\n".join(encoded)
            lengths = map(len, encoded)
        # starts[i] is the byte offset where strings[i] begins in the joined buffer.
        starts = [0, *accumulate(length + 1 for length in lengths)][:-1]
        flagged: set[str] = set()
        for match in self._pattern.finditer(data):
            first = bisect_right(starts, match.start()) - 1
            last = bisect_right(starts, max(match.end() - 1, match.start())) - 1
            flagged.update(strings[first : last + 1])
        return flagged


@lru_cache(maxsize=32)
def prefilter_for(detectors: tuple[Detector, ...], known: KnownSecrets) -> Prefilter:
    return Prefilter(detectors, known)
