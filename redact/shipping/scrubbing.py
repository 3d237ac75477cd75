"""One request body scrubbed, whole: parsed, redacted, gated, encoded and compressed again.

`Scrubber` is that step with what it needs (profile, known secrets, pseudonym key). Its answer,
`Scrubbed`, holds no span: counts, what the proxy says and logs about the spans it held back
(their verdicts' kinds and one span id per kind, never content), and the bytes to forward. So
the step can run in another process and only bytes cross (`redact.shipping.pool`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal

from redact.held_back import held_back_kind, held_back_message, held_back_summary
from redact.isolated import Scrub, ScrubFailed, scrub_batch
from redact.known import KnownSecrets
from redact.profiles import Profile
from redact.shipping.bodies import compressed
from redact.shipping.otlp import ENCODERS, Encoding, encodable, parse_spans, skipped_span
from redact.shipping.signals import scrub_logs, scrub_metrics
from redact.shipping.utf8 import repair_utf8
from redact.spans import DroppedSpan, scrub_spans
from tracecheck.errors import TraceReadError
from tracecheck.spans import Span

__all__ = ["UNITS", "Coding", "Scrubbed", "Scrubber", "Signal"]

# What `bodies.CODINGS` maps a Content-Encoding to, handed back to `bodies.compressed`.
Coding = str | None
# The OTLP signal of a request, and what one and many of its units are called.
Signal = Literal["traces", "logs", "metrics"]
UNITS: Final[dict[Signal, tuple[str, str]]] = {
    "traces": ("span", "spans"),
    "logs": ("log record", "log records"),
    "metrics": ("data point", "data points"),
}


@dataclass(frozen=True, slots=True)
class Scrubbed:
    """A batch scrubbed. `dropped` spans were held back; `message` says how many and why (empty
    when none were); `kinds` names each kind of drop once, with the id of its first span;
    `payload` is the batch to forward, in the request's encoding and coding (None when nothing
    is left to forward); `process` is the id of the process that scrubbed it."""

    received: int
    kept: int
    dropped: int
    message: str
    kinds: tuple[tuple[str, str | None], ...]
    payload: bytes | None
    process: int


@dataclass(frozen=True, slots=True)
class Scrubber:
    """Scrubs request bodies with one profile, one set of known secrets and one pseudonym key.
    `scrub` redacts and gates a batch (`scrub_spans`' signature).

    Calling it raises `TraceReadError` for a body that cannot be read and `ScrubFailed` when no
    span of the batch could be redacted; a span that cannot be read, redacted or encoded is
    dropped alone (UNKNOWN), never its batch."""

    profile: Profile
    known_secrets: KnownSecrets
    pseudonym_key: bytes
    scrub: Scrub = scrub_spans

    def __call__(
        self, body: bytes, encoding: Encoding, coding: Coding, signal: Signal = "traces"
    ) -> Scrubbed:
        try:
            return self._scrubbed(body, encoding, coding, signal)
        except TraceReadError:
            if encoding != "proto":
                raise
            repaired = repair_utf8(body, signal)
            if repaired is None:
                raise
        # One string of one unit not UTF-8 made protobuf refuse the whole request: read again
        # with the invalid bytes replaced (U+FFFD), the repaired text scrubbed like any other.
        fixed, units = repaired
        out = self._scrubbed(fixed, encoding, coding, signal)
        one, many = UNITS[signal]
        note = (
            f"{units} {one if units == 1 else many} held text that is not valid UTF-8; "
            "the invalid bytes were replaced with U+FFFD"
        )
        return replace(out, message=f"{note}; {out.message}" if out.message else note)

    def _scrubbed(
        self, body: bytes, encoding: Encoding, coding: Coding, signal: Signal
    ) -> Scrubbed:
        if signal != "traces":
            return self._records(body, encoding, coding, signal)
        profile = self.profile
        spans, skipped = parse_spans(body, encoding)
        isolated = scrub_batch(
            spans,
            profile=profile,
            known_secrets=self.known_secrets,
            pseudonym_key=self.pseudonym_key,
            scrub=self.scrub,
        )
        if isolated.failed and len(isolated.failed) == len(spans):
            raise ScrubFailed(isolated.failed[0].error)  # nothing could be scrubbed: a 500
        scrubbed = isolated.scrubbed
        dropped = [skipped_span(item, profile) for item in skipped]
        dropped += isolated.dropped()
        payload = None
        kept: list[Span] = []
        if scrubbed.kept:
            data, kept, refused = encodable(scrubbed.kept, ENCODERS[encoding], profile)
            dropped += refused
            payload = compressed(data, coding) if kept else None
        message = held_back_message(dropped) if dropped else ""
        return Scrubbed(
            len(spans) + len(skipped),
            len(kept),
            len(dropped),
            message,
            _first_of_each_kind(dropped),
            payload,
            os.getpid(),
        )

    def _records(self, body: bytes, encoding: Encoding, coding: Coding, signal: Signal) -> Scrubbed:
        """A logs or metrics request: log records or data points held back one by one."""
        scrub = scrub_logs if signal == "logs" else scrub_metrics
        out = scrub(
            body,
            encoding,
            profile=self.profile,
            known_secrets=self.known_secrets,
            pseudonym_key=self.pseudonym_key,
        )
        kinds = out.reason_counts()
        message = held_back_summary(kinds, UNITS[signal]) if out.dropped else ""
        payload = compressed(out.payload, coding) if out.payload is not None else None
        return Scrubbed(
            out.received,
            out.kept,
            out.dropped,
            message,
            tuple((kind, None) for kind in kinds),
            payload,
            os.getpid(),
        )


def _first_of_each_kind(dropped: Sequence[DroppedSpan]) -> tuple[tuple[str, str | None], ...]:
    kinds: dict[str, str | None] = {}
    for span in dropped:
        kinds.setdefault(held_back_kind(span), span.span_id)
    return tuple(kinds.items())
