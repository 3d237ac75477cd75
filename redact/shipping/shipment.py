"""What the shipper sends, before any network: the configuration, the scrubbed spans cut into
request bodies (`prepare_shipment`), each body's idempotency key, and the errors and results a
shipping call reports (`redact.shipping.shipper` sends them)."""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
import orjson

from redact.core import KnownSecretsArg
from redact.held_back import status_counts
from redact.isolated import scrub_batch
from redact.model import RedactionReport
from redact.profiles import Profile
from redact.shipping.wire import (
    API_KEY_ENV,
    INGEST_PATH,
    MAX_IDEMPOTENCY_KEY_CHARS,
    TENANT_ENV,
    URL_ENV,
    WIRE_VERSION,
)
from redact.spans import DroppedSpan
from tracecheck.spans import Span
from tracecheck.writers.span_events import to_trace_span_events

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "Batch",
    "RejectedSpan",
    "ShipConfig",
    "ShipConfigError",
    "ShipError",
    "ShipGaveUp",
    "ShipRefused",
    "ShipRequestRefused",
    "ShipResponseError",
    "ShipResult",
    "Shipment",
    "idempotency_key",
    "prepare_shipment",
    "refusal_message",
    "resolve_config",
]

DEFAULT_BATCH_SIZE = 512  # what an OpenTelemetry BatchSpanProcessor sends at most

# The logger's name predates the shipping package; operators' logging configuration names it.
_log = logging.getLogger("redact.ship")


# --- errors -----------------------------------------------------------------------------------


class ShipError(Exception):
    """Shipping stopped. `result` holds what the batches before the failure achieved (None when
    nothing was sent). Messages name statuses and span ids, never the API key or a span value."""

    def __init__(self, message: str, *, result: ShipResult | None = None) -> None:
        super().__init__(message)
        self.result = result


class ShipConfigError(ShipError, ValueError):
    """The URL, tenant id or API key is missing or unusable. `missing` lists the environment
    variables that would have supplied the missing settings."""

    def __init__(self, message: str, *, missing: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.missing = missing


class ShipRefused(ShipError):
    """Spans are not share-safe after redaction, so nothing was sent. `dropped` names each one
    (ids and verdict, never content) and `report` says what redaction changed."""

    def __init__(
        self, message: str, *, dropped: tuple[DroppedSpan, ...], report: RedactionReport
    ) -> None:
        super().__init__(message)
        self.dropped = dropped
        self.report = report


class ShipGaveUp(ShipError):
    """A batch failed with a retryable error on every attempt."""

    def __init__(
        self, message: str, *, attempts: int, last: str, result: ShipResult | None
    ) -> None:
        super().__init__(message, result=result)
        self.attempts = attempts
        self.last = last


class ShipRequestRefused(ShipError):
    """The store answered a status that is not retried (4xx other than 408/429, or a redirect).
    `error` is the store's `{error}` text when it sent one."""

    def __init__(
        self, message: str, *, status: int, error: str | None, result: ShipResult | None
    ) -> None:
        super().__init__(message, result=result)
        self.status = status
        self.error = error


class ShipResponseError(ShipError):
    """A 2xx answer whose body is not a valid `{accepted, rejected}` for the batch sent."""


# --- values -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShipConfig:
    """Where and as whom to ship. The key is left out of the repr."""

    url: str
    tenant_id: str
    api_key: str = field(repr=False)

    @property
    def endpoint(self) -> str:
        """`<base>/v1/ingest/traces`; a base that already ends in `/v1` is not doubled."""
        base = self.url.rstrip("/")
        if base.endswith("/v1"):
            return base + INGEST_PATH[len("/v1") :]
        return base + INGEST_PATH


@dataclass(frozen=True, slots=True)
class Batch:
    """One request body: `first` is the index of its first span among all spans sent."""

    number: int
    first: int
    body: bytes
    span_ids: tuple[tuple[str | None, str | None], ...]

    def __len__(self) -> int:
        return len(self.span_ids)


@dataclass(frozen=True, slots=True)
class Shipment:
    """What would be sent: the batches, the spans held back by the gate, the redaction report."""

    batches: tuple[Batch, ...]
    dropped_unsafe: tuple[DroppedSpan, ...]
    report: RedactionReport

    @property
    def spans(self) -> int:
        return sum(len(batch) for batch in self.batches)


@dataclass(frozen=True, slots=True)
class RejectedSpan:
    """A span the store refused: `index` counts among all spans sent (input order, without the
    spans dropped by the gate), with the store's reason."""

    index: int
    trace_id: str | None
    span_id: str | None
    reason: str


@dataclass(frozen=True)
class ShipResult:
    batches: int
    sent: int
    accepted: int
    rejected: tuple[RejectedSpan, ...]
    dropped_unsafe: tuple[DroppedSpan, ...]
    report: RedactionReport
    # Batches (and their spans) whose answer an earlier run kept in the checkpoint: counted
    # in `batches`, `sent`, `accepted` and `rejected`, not sent again.
    resumed_batches: int = 0
    resumed_spans: int = 0

    @property
    def ok(self) -> bool:
        """Every span was sent and accepted."""
        return not self.rejected and not self.dropped_unsafe and self.accepted == self.sent


# --- configuration ----------------------------------------------------------------------------


def resolve_config(
    url: str | None = None, api_key: str | None = None, tenant_id: str | None = None
) -> ShipConfig:
    """The configuration from the arguments, else from `TANGLE_INGEST_URL`,
    `TANGLE_INGEST_API_KEY` and `TANGLE_TENANT_ID`; every missing setting is named at once."""
    url = url or os.environ.get(URL_ENV) or None
    api_key = api_key or os.environ.get(API_KEY_ENV) or None
    tenant_id = tenant_id or os.environ.get(TENANT_ENV) or None
    missing = [
        (env, what)
        for value, env, what in (
            (url, URL_ENV, "the ingest URL"),
            (tenant_id, TENANT_ENV, "the tenant id"),
            (api_key, API_KEY_ENV, "the API key"),
        )
        if not value
    ]
    if missing:
        listed = ", ".join(f"{what} (${env})" for env, what in missing)
        raise ShipConfigError(
            f"missing ingest configuration: {listed}", missing=tuple(env for env, _ in missing)
        )
    assert url is not None and api_key is not None and tenant_id is not None
    url = url.strip()
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        raise ShipConfigError("the ingest URL is not a valid URL") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ShipConfigError(
            f"the ingest URL must be http:// or https:// with a host, not {parsed.scheme or '…'}://"
        )
    if parsed.query or parsed.fragment:
        raise ShipConfigError("the ingest URL is a base URL: no query or fragment")
    if not _header_safe(tenant_id):
        raise ShipConfigError("the tenant id must be printable ASCII without spaces")
    if not _header_safe(api_key):
        raise ShipConfigError("the API key must be printable ASCII without spaces")
    if parsed.scheme == "http" and parsed.host not in ("127.0.0.1", "localhost", "::1"):
        _log.warning("the API key goes to %s over plain http", parsed.host)
    return ShipConfig(url, tenant_id, api_key)


def _header_safe(value: str) -> bool:
    return bool(value) and all(33 <= ord(char) <= 126 for char in value)


# --- preparing batches ------------------------------------------------------------------------


def prepare_shipment(
    spans: Iterable[Span],
    *,
    profile: str | Profile = "share",
    known_secrets: KnownSecretsArg = (),
    pseudonym_key: bytes | str | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    on_unsafe: Literal["refuse", "drop"] = "refuse",
) -> Shipment:
    """Scrub the spans and cut the safe ones into request bodies, without any network.

    One scrub covers all spans, so pseudonyms agree across batches; a span nested deeper than
    readers hold, or whose redaction fails, fails the gate alone (UNKNOWN, `redact.isolated`).
    Raises `ShipRefused` when a span fails the gate and `on_unsafe` is `"refuse"`."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    if on_unsafe not in ("refuse", "drop"):
        raise ValueError('on_unsafe must be "refuse" or "drop"')
    isolated = scrub_batch(
        spans, profile=profile, known_secrets=known_secrets, pseudonym_key=pseudonym_key
    )
    scrubbed, dropped = isolated.scrubbed, isolated.dropped()
    if dropped and on_unsafe == "refuse":
        raise ShipRefused(
            refusal_message(dropped, len(scrubbed.kept) + len(dropped)),
            dropped=dropped,
            report=scrubbed.report,
        )
    kept = scrubbed.kept
    batches: list[Batch] = []
    for number, first in enumerate(range(0, len(kept), batch_size), start=1):
        members = kept[first : first + batch_size]
        events = to_trace_span_events(members)
        batches.append(
            Batch(
                number=number,
                first=first,
                body=_body(events, first),
                span_ids=tuple((span.trace_id, span.span_id) for span in members),
            )
        )
    return Shipment(tuple(batches), dropped, scrubbed.report)


def refusal_message(dropped: Sequence[DroppedSpan], total: int) -> str:
    """`2 of 11 spans are not safe to share after redaction (UNKNOWN ×1, UNSAFE ×1); nothing sent`."""
    detail = status_counts(dropped)
    noun = "span is" if total == 1 else "spans are"
    return (
        f"{len(dropped)} of {total} {noun} not safe to share after redaction ({detail}); "
        "nothing sent"
    )


def _body(events: list[dict[str, Any]], first: int) -> bytes:
    """The canonical request body: keys sorted, no whitespace, so its hash names its content."""
    try:
        return orjson.dumps(
            {"wireVersion": WIRE_VERSION, "spans": events}, option=orjson.OPT_SORT_KEYS
        )
    except orjson.JSONEncodeError as exc:
        for offset, event in enumerate(events):
            try:
                orjson.dumps(event)
            except orjson.JSONEncodeError:
                span = event.get("spanId") or "?"
                raise ShipError(
                    f"span {span} (index {first + offset}) cannot be encoded as JSON: {exc}"
                ) from None
        raise ShipError(f"a batch cannot be encoded as JSON: {exc}") from None


def idempotency_key(tenant_id: str, body: bytes) -> str:
    """`tracecheck-<sha256 hex>` of the tenant and the exact body: the same batch always gets
    the same key, so every retry reuses it."""
    digest = hashlib.sha256(tenant_id.encode("utf-8") + b"\x00" + body).hexdigest()
    key = f"tracecheck-{digest}"
    assert len(key) <= MAX_IDEMPOTENCY_KEY_CHARS
    return key
