"""What a detector is: a stable id, one line of description, a precise pattern and a prefilter.

A detector only finds; what happens to a match (a whole-string marker for a credential, an
in-place marker for personal data, a finding in a verdict) is decided by the redactor. Two
engines work together so that hostile span text can never hang an exporter:

- `prefilter` is an RE2 pattern (linear time, matched on UTF-8 bytes) that matches whenever the
  precise pattern could. The redactor joins every detector's prefilter (and the known-secret
  forms) into one scan over many strings at once and runs precise patterns only on the strings
  that scan flags. It may over-approximate; it must never miss.
- `pattern` is the precise `regex` pattern with ASCII `\\b`/`\\w`/`\\d`, written without nested
  quantifiers, and run with a timeout as a last line of defence. It is compiled from `source`
  and `flags` on first use: a file's strings call on a handful of the detectors, and compiling
  all of them took 0.15 s of every `redact` and `verify-safe` start.
- `starts`, when given, is an RE2 pattern that matches at every place a precise match can begin
  (a case-insensitive key word, say). The precise pattern is then tried only there, anchored,
  with the same results as scanning every offset: `regex` is slow to look for a case-insensitive
  alternation, RE2 is not. `accept` is an optional
  validator (Luhn, issuer prefixes, guards) that rejects a match after it is found; scanning
  then resumes after the rejected match, as the reference does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import regex

from redact.engine import re2

__all__ = ["PATTERN_TIMEOUT", "Category", "Detector", "DetectorTimeout"]

Category = Literal["credential", "personal-data"]

# Seconds one precise pattern may spend on one string. Patterns are linear; this only bounds a
# mistake, and the redactor fails closed when it fires.
PATTERN_TIMEOUT = 0.5


class DetectorTimeout(Exception):
    """A detector's pattern ran out of time on a string; the redactor treats the string as unsafe."""

    def __init__(self, detector_id: str) -> None:
        super().__init__(f"detector {detector_id} timed out")
        self.detector_id = detector_id


@dataclass(frozen=True, slots=True)
class Detector:
    id: str
    description: str
    category: Category
    source: str
    prefilter: str
    accept: Callable[[regex.Match[str]], bool] | None = None
    starts: str | None = None
    flags: int = regex.ASCII | regex.VERSION0
    _pattern: regex.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)
    _starts: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def pattern(self) -> regex.Pattern[str]:
        """The precise pattern, compiled once."""
        compiled = self._pattern
        if compiled is None:
            compiled = regex.compile(self.source, self.flags)
            object.__setattr__(self, "_pattern", compiled)
        return compiled

    def find(self, text: str) -> Iterator[tuple[int, int]]:
        """The (start, end) of every accepted match, left to right, non-overlapping."""
        return (match.span() for match in self._accepted(text))

    def secret_spans(self, text: str) -> Iterator[tuple[int, int]]:
        """Where the secret itself lies in every accepted match: the group named `v` when the
        pattern has one and it took part (`--password <v>`), else the whole match."""
        for match in self._accepted(text):
            if "v" in match.re.groupindex and match.group("v") is not None:
                yield match.span("v")
            else:
                yield match.span()

    def _accepted(self, text: str) -> Iterator[regex.Match[str]]:
        try:
            matches = self._anchored(text) if self.starts else self._scanned(text)
            for match in matches:
                if self.accept is None or self.accept(match):
                    yield match
        except TimeoutError as exc:
            raise DetectorTimeout(self.id) from exc

    def _scanned(self, text: str) -> Iterator[regex.Match[str]]:
        return self.pattern.finditer(text, timeout=PATTERN_TIMEOUT)

    def _anchored(self, text: str) -> Iterator[regex.Match[str]]:
        """What `_scanned` finds, trying the precise pattern only where `starts` matches."""
        # RE2 searches UTF-8 bytes (lone surrogates pass); an ASCII text's byte offsets are
        # its character offsets, anything else is translated at each candidate.
        ascii = text.isascii()
        data = text.encode("ascii") if ascii else text.encode("utf-8", "surrogatepass")
        starts = self._starts
        if starts is None:
            assert self.starts is not None
            starts = re2.compile(self.starts.encode())
            object.__setattr__(self, "_starts", starts)
        position = 0  # in bytes
        while (candidate := starts.search(data, position)) is not None:
            at = candidate.start()
            start = at if ascii else len(data[:at].decode("utf-8", "surrogatepass"))
            match = self.pattern.match(text, start, timeout=PATTERN_TIMEOUT)
            if match is None:
                position = at + 1
                continue
            yield match
            end = match.end()
            if end <= start:
                position = at + 1
            else:
                position = (
                    end if ascii else at + len(text[start:end].encode("utf-8", "surrogatepass"))
                )

    def search(self, text: str) -> bool:
        """Whether the text holds at least one accepted match."""
        return next(self.find(text), None) is not None
