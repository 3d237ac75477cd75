"""Scrubbing a batch so that a span that cannot be scrubbed costs only itself.

Every path that ships spans (the exporter hook, the proxy, the shipper) scrubs a batch at once
(`scrub_spans`). A span whose values nest deeper than readers hold (`MAX_VALUE_DEPTH` levels,
what protobuf carries and every writer writes back) is dropped as UNKNOWN before redaction; a
span that makes redaction raise is found by scrubbing the batch again span by span, and dropped
alone. Either is named by its ids, never by its content, and the rest of its batch is scrubbed
and forwarded as usual.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from redact.core import KnownSecretsArg
from redact.model import FindingTally, RedactionReport, verdict_of
from redact.profiles import Profile, resolve_profile
from redact.spans import DroppedSpan, ScrubbedSpans, scrub_spans
from tracecheck.readers.common import MAX_VALUE_DEPTH, too_deep
from tracecheck.spans import Span

__all__ = [
    "DEEP",
    "Failed",
    "Isolated",
    "ScrubFailed",
    "holds_too_deep",
    "scrub_batch",
    "unreadable_span",
]

DEEP = f"holds a value nested deeper than {MAX_VALUE_DEPTH} levels"
Scrub = Callable[..., ScrubbedSpans]


@dataclass(frozen=True, slots=True)
class Failed:
    """A span whose redaction raised: its ids and the error's type (never its message, which
    may quote the span)."""

    trace_id: str | None
    span_id: str | None
    error: str


class ScrubFailed(Exception):
    """Redaction raised for every span of a batch; `error` names the type it raised."""

    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


@dataclass(frozen=True, slots=True)
class Isolated:
    """The batch scrubbed: spans nested too deep are among `scrubbed.dropped` (UNKNOWN), and
    spans whose redaction raised are in `failed`; neither is in `scrubbed.kept`."""

    scrubbed: ScrubbedSpans
    failed: tuple[Failed, ...]
    profile: Profile

    def dropped(self) -> tuple[DroppedSpan, ...]:
        """Every span held back, those whose redaction raised as UNKNOWN ones."""
        failed = tuple(
            _unknown(item.trace_id, item.span_id, self.profile, _failure(item.error))
            for item in self.failed
        )
        return (*self.scrubbed.dropped, *failed)


def scrub_batch(
    spans: Iterable[Span],
    *,
    profile: str | Profile = "share",
    known_secrets: KnownSecretsArg = (),
    pseudonym_key: bytes | str | None = None,
    max_string_bytes: float | None = None,
    scrub: Scrub = scrub_spans,
) -> Isolated:
    """`scrub(spans)` (by default `scrub_spans`), except that a span nested too deep, or one
    whose redaction raises, is held back alone instead of costing the batch. Pseudonyms agree
    across the batch even when it is scrubbed span by span (one key is drawn for all when none
    is given)."""
    resolved = resolve_profile(profile)
    held: list[Span] = []
    deep: list[DroppedSpan] = []
    for span in spans:
        if _nested_too_deep(span):
            deep.append(unreadable_span(span, resolved, DEEP))
        else:
            held.append(span)
    key = pseudonym_key if pseudonym_key is not None else secrets.token_bytes(32)
    options: dict[str, Any] = {
        "profile": resolved,
        "known_secrets": known_secrets,
        "pseudonym_key": key,
    }
    if max_string_bytes is not None:
        options["max_string_bytes"] = max_string_bytes
    try:
        whole = scrub(held, **options)
    except Exception:  # one span's content broke redaction: find it, keep the others
        return _span_by_span(held, deep, resolved, scrub, options)
    return Isolated(ScrubbedSpans(whole.kept, (*deep, *whole.dropped), whole.report), (), resolved)


def unreadable_span(span: Span, profile: Profile, reason: str) -> DroppedSpan:
    """The drop of a span that could not be judged: UNKNOWN, with where and why."""
    return _unknown(span.trace_id, span.span_id, profile, reason)


def _unknown(
    trace_id: str | None, span_id: str | None, profile: Profile, reason: str
) -> DroppedSpan:
    entry = f"span:{span_id or '(no id)'}/: {reason}"
    return DroppedSpan(trace_id, span_id, verdict_of(profile.name, FindingTally(), [entry]))


def _failure(error: str) -> str:
    return f"could not be redacted ({error})"


def _span_by_span(
    held: list[Span],
    dropped: list[DroppedSpan],
    profile: Profile,
    scrub: Scrub,
    options: dict[str, Any],
) -> Isolated:
    kept: list[Span] = []
    failed: list[Failed] = []
    report = RedactionReport(profile.name)
    for span in held:
        try:
            alone = scrub([span], **options)
        except Exception as exc:
            failed.append(Failed(span.trace_id, span.span_id, type(exc).__name__))
            continue
        kept.extend(alone.kept)
        dropped.extend(alone.dropped)
        report += alone.report
    return Isolated(ScrubbedSpans(tuple(kept), tuple(dropped), report), tuple(failed), profile)


def _nested_too_deep(span: Span) -> bool:
    maps: list[Mapping[str, Any]] = [span.attributes, span.resource]
    if span.scope is not None:
        maps.append(span.scope.attributes)
    maps += [event.attributes for event in span.events]
    maps += [link.attributes for link in span.links]
    return any(holds_too_deep(values.values()) for values in maps)


def holds_too_deep(values: Iterable[Any]) -> bool:
    """Whether any of these values nests deeper than readers hold (`MAX_VALUE_DEPTH`)."""
    return any(
        value.__class__ not in _FLAT and isinstance(value, _NESTED) and too_deep(value)
        for value in values
    )


_NESTED = (Mapping, list, tuple)
# Most values: checked by class first, since isinstance against Mapping (an ABC) is slow.
_FLAT = frozenset({str, int, float, bool, type(None)})
