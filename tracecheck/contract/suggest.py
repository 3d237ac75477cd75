"""Did-you-mean: the closest allowed word to an unknown one, and the message that offers it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracecheck.contract.words import quote

__all__ = ["did_you_mean", "unknown_message"]


def _edit_distance(left: str, right: str) -> int:
    previous = list(range(len(right) + 1))
    for i, a in enumerate(left, 1):
        current = [i]
        for j, b in enumerate(right, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1]


def did_you_mean(word: Any, candidates: Sequence[str]) -> str | None:
    """The closest candidate within edit distance 2, case-insensitive; ties go to the first."""
    if not isinstance(word, str):
        return None
    best: str | None = None
    best_distance = 3
    lowered = word.lower()
    for candidate in candidates:
        distance = _edit_distance(lowered, candidate.lower())
        if distance < best_distance:
            best, best_distance = candidate, distance
    return best


def unknown_message(what: str, word: Any, candidates: Sequence[str]) -> str:
    suggestion = did_you_mean(word, candidates)
    hint = f' — did you mean "{suggestion}"?' if suggestion is not None else ""
    return f"unknown {what} {quote(word)}{hint} (allowed: {', '.join(candidates)})"
