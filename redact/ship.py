"""Ship spans to a hosted-ingest store: the client half of the traces stream of wire
`2026-07-24.v1` (spec `shipping.md` §3).

```python
from redact.ship import ship_spans

result = ship_spans(spans, url="https://store.example", api_key=key, tenant_id="acme")
result.accepted, result.rejected            # what the store took, and what it refused and why
```

Every call scrubs first: the batch is redacted with `redact.scrub_spans` and each redacted span
is gated on its own share-safety verdict. When any span fails the gate, the default
(`on_unsafe="refuse"`) is to send nothing at all and raise `ShipRefused`, which names the spans
and why (never their content); `on_unsafe="drop"` sends the spans that pass and lists the others
in `ShipResult.dropped_unsafe`, as the exporter hook and the proxy do.

The safe spans become `TraceSpanEvent` rows (`tracecheck.writers.to_trace_span_events`) and go out
in batches: `POST <base>/v1/ingest/traces` with `{wireVersion, spans}`. Each batch carries an
`Idempotency-Key` derived from its bytes and the tenant, so every retry of it reuses the key
(pass a `pseudonym_key` for the key, and the stored spans, to stay the same across processes:
without one, each call draws a random key and pseudonyms differ between calls).

Network errors, 408, 429 and 5xx are retried: the wait is exactly `Retry-After` when the store
sends one (capped at `max_retry_after`, with a warning), else exponential backoff with full jitter.
After `max_attempts` the call raises `ShipGaveUp`. Any other status raises `ShipRequestRefused`
at once. A 2xx body must be `{accepted: int, rejected: [{index: int, reason: str}]}` and account
for every span of the batch, or the call raises `ShipResponseError`.

Send failures carry the result of the batches sent before them (`ShipError.result`). The API key
appears in no message, repr or log line; span values are never logged.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Literal, TypeGuard

import httpx
import orjson

from redact.core import KnownSecretsArg
from redact.isolated import scrub_batch
from redact.model import RedactionReport
from redact.profiles import Profile
from redact.spans import DroppedSpan
from tracecheck.naming import a_json_type, json_type
from tracecheck.spans import Span
from tracecheck.writers import to_trace_span_events

__all__ = [
    "API_KEY_ENV",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_MAX_ATTEMPTS",
    "DEFAULT_MAX_RETRY_AFTER",
    "DEFAULT_TIMEOUT",
    "INGEST_PATH",
    "TENANT_ENV",
    "URL_ENV",
    "WIRE_VERSION",
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
    "parse_retry_after",
    "prepare_shipment",
    "refusal_message",
    "resolve_config",
    "ship_spans",
]

WIRE_VERSION = "2026-07-24.v1"
INGEST_PATH = "/v1/ingest/traces"
URL_ENV = "TANGLE_INGEST_URL"
API_KEY_ENV = "TANGLE_INGEST_API_KEY"
TENANT_ENV = "TANGLE_TENANT_ID"

DEFAULT_BATCH_SIZE = 512  # what an OpenTelemetry BatchSpanProcessor sends at most
DEFAULT_MAX_ATTEMPTS = 5
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RETRY_AFTER = 120.0
_BACKOFF_BASE = 0.5
_BACKOFF_CAP = 30.0
_RETRIED = frozenset({408, 429})
_MAX_KEY_CHARS = 256
_MAX_ERROR_CHARS = 300
# Pivots the seed's TraceSpanEvent declares as top-level fields; the writer leaves them in
# `attributes`, so they are copied up (and kept in `attributes`) when their type fits.

_log = logging.getLogger("redact.ship")
_jitter = random.Random()


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
    counts: dict[str, int] = {}
    for item in dropped:
        counts[item.verdict.status.value] = counts.get(item.verdict.status.value, 0) + 1
    detail = ", ".join(f"{status} ×{n}" for status, n in sorted(counts.items()))
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
    assert len(key) <= _MAX_KEY_CHARS
    return key


# --- shipping ---------------------------------------------------------------------------------


def ship_spans(
    spans: Iterable[Span],
    *,
    url: str | None = None,
    api_key: str | None = None,
    tenant_id: str | None = None,
    profile: str | Profile = "share",
    known_secrets: KnownSecretsArg = (),
    pseudonym_key: bytes | str | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    timeout: float = DEFAULT_TIMEOUT,
    max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
    on_unsafe: Literal["refuse", "drop"] = "refuse",
    client: httpx.Client | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> ShipResult:
    """Scrub `spans`, then send the share-safe ones to the store in batches (see the module).

    Configuration comes from the arguments, else the environment (`ShipConfigError` names what
    is missing). Raises `ShipRefused` (nothing sent), `ShipGaveUp`, `ShipRequestRefused` or
    `ShipResponseError`; the last three carry the result of the batches sent before."""
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    config = resolve_config(url, api_key, tenant_id)
    shipment = prepare_shipment(
        spans,
        profile=profile,
        known_secrets=known_secrets,
        pseudonym_key=pseudonym_key,
        batch_size=batch_size,
        on_unsafe=on_unsafe,
    )
    sender = _Sender(config, client, timeout, max_attempts, max_retry_after, sleep)
    try:
        return sender.ship(shipment)
    finally:
        sender.close()


@dataclass
class _Progress:
    shipment: Shipment
    batches: int = 0
    sent: int = 0
    accepted: int = 0
    rejected: list[RejectedSpan] = field(default_factory=list)

    def result(self) -> ShipResult:
        return ShipResult(
            batches=self.batches,
            sent=self.sent,
            accepted=self.accepted,
            rejected=tuple(self.rejected),
            dropped_unsafe=self.shipment.dropped_unsafe,
            report=self.shipment.report,
        )

    def partial(self) -> ShipResult | None:
        return self.result() if self.batches else None


class _Sender:
    def __init__(
        self,
        config: ShipConfig,
        client: httpx.Client | None,
        timeout: float,
        max_attempts: int,
        max_retry_after: float,
        sleep: Callable[[float], None],
    ) -> None:
        self.config = config
        self.own_client = client is None
        self.client = client if client is not None else _new_client(timeout)
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.max_retry_after = max_retry_after
        self.sleep = sleep

    def close(self) -> None:
        if self.own_client:
            self.client.close()

    def ship(self, shipment: Shipment) -> ShipResult:
        progress = _Progress(shipment)
        total = len(shipment.batches)
        for batch in shipment.batches:
            accepted, rejected = self._send(batch, total, progress)
            progress.batches += 1
            progress.sent += len(batch)
            progress.accepted += accepted
            for index, reason in rejected:
                trace_id, span_id = batch.span_ids[index]
                progress.rejected.append(
                    RejectedSpan(batch.first + index, trace_id, span_id, reason)
                )
        return progress.result()

    def _headers(self, batch: Batch) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {self.config.api_key}",
            "X-Tangle-Tenant-Id": self.config.tenant_id,
            "X-Tangle-Wire-Version": WIRE_VERSION,
            "Content-Type": "application/json",
            "Idempotency-Key": idempotency_key(self.config.tenant_id, batch.body),
        }

    def _send(
        self, batch: Batch, total: int, progress: _Progress
    ) -> tuple[int, list[tuple[int, str]]]:
        """One batch, retried as the wire says; the validated (accepted, rejected)."""
        headers = self._headers(batch)
        where = f"batch {batch.number} of {total}"
        last = ""
        for attempt in range(1, self.max_attempts + 1):
            wait: float | None = None
            response: httpx.Response | None = None
            try:
                response = self.client.post(
                    self.config.endpoint, content=batch.body, headers=headers, timeout=self.timeout
                )
            except httpx.TransportError as exc:
                # Described outside the handler: httpx's exception holds the request headers.
                last = _describe_network_error(exc)
            if response is not None:
                status = response.status_code
                if 200 <= status < 300:
                    return _validated(response, len(batch), where, progress)
                if status not in _RETRIED and not 500 <= status < 600:
                    error = _error_text(response)
                    raise ShipRequestRefused(
                        _refused_message(where, status, error),
                        status=status,
                        error=error,
                        result=progress.partial(),
                    )
                last = f"HTTP {status}"
                wait = self._retry_after(response, where)
            if attempt == self.max_attempts:
                break
            if wait is None:
                wait = _jitter.uniform(0.0, min(_BACKOFF_CAP, _BACKOFF_BASE * 2 ** (attempt - 1)))
            _log.info(
                "%s: %s; retrying in %.1f s (attempt %d of %d)",
                where,
                last,
                wait,
                attempt + 1,
                self.max_attempts,
            )
            self.sleep(wait)
        noun = "attempt" if self.max_attempts == 1 else "attempts"
        raise ShipGaveUp(
            f"{where}: gave up after {self.max_attempts} {noun}; the last failed with {last}",
            attempts=self.max_attempts,
            last=last,
            result=progress.partial(),
        )

    def _retry_after(self, response: httpx.Response, where: str) -> float | None:
        raw = response.headers.get("Retry-After")
        if raw is None:
            return None
        wait = parse_retry_after(raw)
        if wait is None:
            _log.warning("%s: ignoring a Retry-After that is neither seconds nor a date", where)
            return None
        if wait > self.max_retry_after:
            _log.warning(
                "%s: Retry-After asks for %.0f s; waiting the %.0f s cap instead",
                where,
                wait,
                self.max_retry_after,
            )
            return self.max_retry_after
        return wait


def _new_client(timeout: float) -> httpx.Client:
    """The client of a call that was given none (tests replace this to reach the command)."""
    return httpx.Client(timeout=timeout)


def parse_retry_after(value: str, *, now: datetime | None = None) -> float | None:
    """Seconds to wait for a `Retry-After` value: delay-seconds or an HTTP date (a date in the
    past means now); None when it is neither."""
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(int(value))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = (when - (now or datetime.now(UTC))).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _describe_network_error(exc: httpx.TransportError) -> str:
    detail = str(exc).strip()
    name = type(exc).__name__
    return f"{name}: {detail[:_MAX_ERROR_CHARS]}" if detail else name


def _error_text(response: httpx.Response) -> str | None:
    """The store's `{error}` (and `message`) text, shortened; None when the body has none."""
    try:
        document = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(document, dict):
        return None
    parts = [document.get(key) for key in ("error", "message")]
    text = ": ".join(part for part in parts if isinstance(part, str) and part)
    if not text:
        return None
    text = " ".join(text.split())
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 1] + "…"


_STATUS_HINTS = {
    400: "the store refused the request",
    401: "the API key was refused",
    403: "the API key may not write to this tenant",
    404: "unknown tenant, or no ingest endpoint at this URL",
    413: "the batch is too large; ship smaller batches",
}


def _refused_message(where: str, status: int, error: str | None) -> str:
    if 300 <= status < 400:
        hint = "the store redirects; use the URL it redirects to"
    else:
        hint = _STATUS_HINTS.get(status, "the store refused the request")
    return f"{where}: HTTP {status}: {hint}" + (f" ({error})" if error else "")


def _validated(
    response: httpx.Response, size: int, where: str, progress: _Progress
) -> tuple[int, list[tuple[int, str]]]:
    try:
        document = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        problems = ["the body is not JSON"]
    else:
        problems = _response_problems(document, size)
    if problems:
        raise ShipResponseError(
            f"{where}: invalid response from the store (HTTP {response.status_code}): "
            + "; ".join(problems),
            result=progress.partial(),
        )
    rejected = [(int(item["index"]), str(item["reason"])) for item in document["rejected"]]
    return int(document["accepted"]), rejected


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _response_problems(document: Any, size: int) -> list[str]:
    """Every way the body differs from `{accepted: int, rejected: [{index, reason}]}` for a
    batch of `size` spans; empty when it is valid."""
    if not isinstance(document, dict):
        return [f"the body is a JSON {json_type(document)}, not an object"]
    problems: list[str] = []
    accepted = document.get("accepted")
    if "accepted" not in document:
        problems.append("accepted: missing")
    elif not _is_int(accepted):
        problems.append(f"accepted: {a_json_type(accepted)}, not an integer")
    elif not 0 <= accepted <= size:
        problems.append(f"accepted: {accepted}, outside 0..{size}")
    rejected = document.get("rejected")
    if "rejected" not in document:
        problems.append("rejected: missing")
    elif not isinstance(rejected, list):
        problems.append(f"rejected: {a_json_type(rejected)}, not an array")
    else:
        seen: set[int] = set()
        for i, item in enumerate(rejected):
            if not isinstance(item, dict):
                problems.append(f"rejected/{i}: {a_json_type(item)}, not an object")
                continue
            index = item.get("index")
            if not _is_int(index):
                problems.append(f"rejected/{i}/index: {_kind_of(item, 'index')}, not an integer")
            elif not 0 <= index < size:
                problems.append(f"rejected/{i}/index: {index}, outside 0..{size - 1}")
            elif index in seen:
                problems.append(f"rejected/{i}/index: {index} is listed twice")
            else:
                seen.add(index)
            if not isinstance(item.get("reason"), str):
                problems.append(f"rejected/{i}/reason: {_kind_of(item, 'reason')}, not a string")
        if not problems and _is_int(accepted) and accepted + len(rejected) != size:
            problems.append(
                f"accepted ({accepted}) and rejected ({len(rejected)}) do not add up to the "
                f"{size} spans sent"
            )
    return problems


def _kind_of(item: Mapping[str, Any], key: str) -> str:
    return "missing" if key not in item else a_json_type(item[key])
