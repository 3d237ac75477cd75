"""One linear-time scan that tells which strings could hold anything worth a closer look (A9).

Every detector's RE2 prefilter, every known-secret form and the trigger of the decoded views
(text that may hide something behind an encoding) are joined into one RE2 pattern. Most
span text is clean prose, so the expensive precise detectors run only on the strings this scan
flags, and on those only the detectors whose own prefilter matched (an RE2 set answers that in
one more pass over the string). Many strings are scanned at once, joined by newlines, because
the per-call cost of a regular-expression engine dominates short strings; a match that crosses
a join flags every string it touches, so joining can only over-approximate.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import Any

from redact.decoded import TRIGGER
from redact.detectors import Detector
from redact.engine import re2
from redact.known import KnownSecrets

__all__ = ["Flagged", "Prefilter", "prefilter_for"]

# RE2 falls back from its DFA to a far slower NFA when the DFA outgrows its budget, and
# starts its cache afresh whenever it fills: the combined pattern of every detector needs more
# than the 8 MB default to stay on the DFA, and a batch of 100k spans' text (196 MB) refills
# a 64 MiB cache so often that the scan runs at 130 MB/s instead of 330 (bench/README.md).
_MAX_MEM = 64 << 20
_DETECTORS_MAX_MEM = 128 << 20
_CHUNK = 1 << 20
_SET_GROUP = 64  # detectors per RE2 set of `Prefilter.look_all`


def _options(max_mem: int = _MAX_MEM) -> re2.Options:
    options = re2.Options()
    options.max_mem = max_mem
    return options


class Prefilter:
    """The prescan of a set of detectors and known secrets. `extra`, when given, is one more RE2
    pattern whose strings need a look though no detector may match them (the JSON documents
    whose keys a profile acts on, `redact.json_text`): it joins the one scan, and `look_all`
    says whether it matched. The patterns are compiled on first use (a walk that brings a
    prefilter of its own never compiles its parent's)."""

    def __init__(
        self, detectors: Sequence[Detector], known: KnownSecrets, extra: str | None = None
    ) -> None:
        self.detectors = tuple(detectors)
        self.extra = extra
        self._known = known
        self._patterns: tuple[Any, ...] | None = None
        self._set: Any = None

    @property
    def patterns(self) -> tuple[Any, ...]:
        """The combined pattern of the detectors (and `extra`), and the known secrets' own."""
        if self._patterns is None:
            self._compile()
        assert self._patterns is not None
        return self._patterns

    def _compile(self) -> None:
        parts = [f"(?:{d.prefilter})" for d in self.detectors]
        # Text that may read differently once decoded (escapes, invisible characters,
        # look-alikes, base64 or hex payloads) needs the decoded views (`redact.decoded`).
        parts.append(f"(?:{TRIGGER})")
        if self.extra is not None:
            parts.append(f"(?:{self.extra})")
        patterns = [re2.compile("|".join(parts).encode(), options=_options(_DETECTORS_MAX_MEM))]
        if self._known:
            # Whole-string base64 that may hide a secret is tested apart (`hides_in_base64`):
            # ids and hashes look like base64, and flagging them all would cost more than the
            # direct test. The needles are a pattern of their own: joined with the detectors',
            # the DFA outgrows its budget and RE2 falls back to its slow NFA, pass after pass.
            needles = "|".join(re2.escape(needle) for needle in self._known.needles)
            patterns.append(re2.compile(needles.encode(), options=_options()))
        # The RE2 sets that name the matching patterns, each with the index of its first: the
        # detectors in groups, the decoded views' trigger and `extra` each on their own. One
        # set of them all gives the same answer, but its DFA, built state by state as text
        # arrives, costs far more to build than the groups' together (a set's states are
        # the combinations of its patterns' states): in a fresh process, naming the detectors
        # of the dense workload's 2,663 flagged strings took 0.47 s CPU with one set and
        # 0.16 s with these; with every DFA built, 0.04 s and 0.07 s (bench/README.md).
        sources = [detector.prefilter for detector in self.detectors]
        groups = [
            (first, sources[first : first + _SET_GROUP])
            for first in range(0, len(sources), _SET_GROUP)
        ]
        groups.append((len(sources), [TRIGGER]))
        if self.extra is not None:
            groups.append((len(sources) + 1, [self.extra]))
        sets = []
        for first, group in groups:
            search_set = re2.Set.SearchSet(options=_options())
            for source in group:
                search_set.Add(source.encode())
            search_set.Compile()
            sets.append((first, search_set))
        self._set = tuple(sets)
        self._patterns = tuple(patterns)

    def may_hold(self, text: str) -> bool:
        """Whether a precise detector or a known secret could match somewhere in this string
        (or `extra` does)."""
        data = text.encode("utf-8", "surrogatepass")
        return any(pattern.search(data) is not None for pattern in self.patterns)

    def look(self, text: str) -> tuple[tuple[Detector, ...], bool]:
        """The detectors whose prefilter matches this string, in order, and whether the string
        may read differently decoded (one RE2 set pass answers both)."""
        found, decodes, _ = self.look_all(text)
        return found, decodes

    def look_all(self, text: str) -> tuple[tuple[Detector, ...], bool, bool]:
        """`look`, and whether `extra` matches the string."""
        if self._set is None:
            self._compile()
        data = text.encode("utf-8", "surrogatepass")
        matched: list[int] = []
        for first, search_set in self._set:
            found = search_set.Match(data)
            if found:
                matched.extend([first + index for index in found])
        if not matched:
            return (), False, False
        detectors = self.detectors
        count = len(detectors)
        found = tuple(detectors[i] for i in sorted(matched) if i < count)
        return found, count in matched, count + 1 in matched

    def flag(self, strings: Sequence[str]) -> Flagged:
        """The strings, among many, that a precise detector or a known secret could match."""
        flagged = Flagged(set(), set())
        # Chunks of about a megabyte keep the joined text in cache and memory flat.
        before = list(accumulate(map(len, strings), initial=0))  # characters before each
        start = 0
        while start < len(strings):
            end = max(start + 1, bisect_left(before, before[start] + _CHUNK))
            self._flag_chunk(strings[start:end], flagged)
            start = end
        flagged.any.update(flagged.known)
        return flagged

    def _flag_chunk(self, strings: Sequence[str], flagged: Flagged) -> None:
        joined = "\n".join(strings)
        if joined.isascii():
            data = joined.encode("ascii")
            lengths: Iterable[int] = map(len, strings)
        else:
            encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
            data = b"\n".join(encoded)
            lengths = map(len, encoded)
        # starts[i] is the byte offset where strings[i] begins in the joined buffer (each string
        # is followed by one newline).
        starts = list(accumulate(map((1).__add__, lengths), initial=0))
        for pattern, into in zip(self.patterns, (flagged.any, flagged.known), strict=False):
            for match in pattern.finditer(data):
                first = bisect_right(starts, match.start()) - 1
                last = bisect_right(starts, max(match.end() - 1, match.start())) - 1
                into.update(strings[first : last + 1])


@dataclass(frozen=True)
class Flagged:
    """What one scan of many strings found: `any` may hold something (a detector's match, a
    known secret, text to decode); `known` may hold a known secret as written."""

    any: set[str]
    known: set[str]


@lru_cache(maxsize=32)
def prefilter_for(
    detectors: tuple[Detector, ...], known: KnownSecrets, extra: str | None = None
) -> Prefilter:
    return Prefilter(detectors, known, extra)
