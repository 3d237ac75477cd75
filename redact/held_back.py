"""Why a span was held back by the share-safety gate, described once for every path that holds
spans back (the exporter hook, the proxy, the shipper, the receiver's gate).

A reason is what made the verdict fail, never a value: a finding's category and detector (and
its places, for a receiver that names the row already), or that part of the span could not be
read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from redact.model import ShareVerdict
from redact.spans import DroppedSpan

__all__ = [
    "held_back_kind",
    "held_back_message",
    "held_back_summary",
    "reason_places",
    "reasons",
    "status_counts",
    "verdict_kind",
]


def _failing(verdict: ShareVerdict) -> set[str]:
    return {f"{f.category}/{f.detector}" for f in verdict.findings if f.severity == "error"}


def reasons(verdicts: Iterable[ShareVerdict]) -> list[str]:
    """`category/detector` of each failing finding, and `unreadable`, sorted and once each."""
    found: set[str] = set()
    for verdict in verdicts:
        found |= _failing(verdict)
        if verdict.unreadable:
            found.add("unreadable")
    return sorted(found)


def verdict_kind(verdict: ShareVerdict) -> str:
    """`UNSAFE (credential/github-token, unreadable)`: the verdict and its reasons."""
    found = sorted(_failing(verdict)) + (["unreadable"] if verdict.unreadable else [])
    return f"{verdict.status.value} ({', '.join(found) or 'no detail'})"


def held_back_kind(dropped: DroppedSpan) -> str:
    """The kind of a span held back: its verdict's (`verdict_kind`)."""
    return verdict_kind(dropped.verdict)


def status_counts(dropped: Sequence[DroppedSpan]) -> str:
    """`UNKNOWN ×1, UNSAFE ×2`: how many spans were held back with each verdict."""
    counts: dict[str, int] = {}
    for item in dropped:
        counts[item.verdict.status.value] = counts.get(item.verdict.status.value, 0) + 1
    return ", ".join(f"{status} ×{n}" for status, n in sorted(counts.items()))


def held_back_message(dropped: Sequence[DroppedSpan]) -> str:
    """How many spans were held back and why, grouped by kind."""
    kinds: dict[str, int] = {}
    for span in dropped:
        kind = held_back_kind(span)
        kinds[kind] = kinds.get(kind, 0) + 1
    return held_back_summary(kinds, ("span", "spans"))


def held_back_summary(kinds: Mapping[str, int], nouns: tuple[str, str]) -> str:
    """`3 spans are still not share-safe …: UNSAFE (…) ×2; UNKNOWN (…) ×1` from the count of
    each kind; `nouns` names one and many of what was held back (log records, data points)."""
    total = sum(kinds.values())
    detail = "; ".join(f"{kind} ×{count}" for kind, count in kinds.items())
    noun = f"{nouns[0]} is" if total == 1 else f"{nouns[1]} are"
    return f"{total} {noun} still not share-safe after redaction and not forwarded: {detail}"


def reason_places(verdict: ShareVerdict) -> list[str]:
    """`category (detector) at /pointer, …` of each failing finding, then `unreadable /pointer`:
    places inside one span, which the caller has named already."""
    out = [
        f"{f.category} ({f.detector}) at {', '.join(_pointer(p) for p in f.paths)}"
        for f in verdict.findings
        if f.severity == "error"
    ]
    out += [f"unreadable {_pointer(entry)}" for entry in verdict.unreadable]
    return out


def _pointer(path: str) -> str:
    """`span:<id>/attributes/x` → `/attributes/x`: the span is the row already named."""
    if path.startswith("span:"):
        slash = path.find("/")
        return path[slash:] if slash >= 0 else "/"
    return path
