"""Ship spans to a hosted-ingest store: the client half of the traces stream of wire
`2026-07-24.v1` (spec `shipping.md` §3).

```python
from redact.shipping.shipper import ship_spans

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

With a `checkpoint` (`redact.shipping.checkpoint.ShipCheckpoint`), a call is resumable: without
a `pseudonym_key`, the key is the checkpoint's (drawn and written to it before anything is
sent), and each batch's answer is written to it as it comes, so a later call with the same
spans skips the batches already answered and counts their kept answers in its result.

Network errors, 408, 429 and 5xx are retried: the wait is exactly `Retry-After` when the store
sends one (capped at `max_retry_after`, with a warning), else exponential backoff with full jitter.
After `max_attempts` the call raises `ShipGaveUp`. Any other status raises `ShipRequestRefused`
at once. A 2xx body must be `{accepted: int, rejected: [{index: int, reason: str}]}` and account
for every span of the batch, or the call raises `ShipResponseError`.

Send failures carry the result of the batches sent before them (`ShipError.result`). The API key
appears in no message, repr or log line; span values are never logged.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard

import httpx
import orjson

from redact.core import KnownSecretsArg
from redact.profiles import Profile
from redact.shipping.checkpoint import ShipCheckpoint
from redact.shipping.http import capped_retry_after
from redact.shipping.shipment import (
    DEFAULT_BATCH_SIZE,
    Batch,
    RejectedSpan,
    ShipConfig,
    ShipGaveUp,
    Shipment,
    ShipRequestRefused,
    ShipResponseError,
    ShipResult,
    idempotency_key,
    prepare_shipment,
    resolve_config,
)
from redact.shipping.wire import WIRE_VERSION
from tracecheck.naming import a_json_type, json_type
from tracecheck.spans import Span

__all__ = [
    "DEFAULT_MAX_ATTEMPTS",
    "DEFAULT_MAX_RETRY_AFTER",
    "DEFAULT_TIMEOUT",
    "ship_spans",
]

DEFAULT_MAX_ATTEMPTS = 5
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RETRY_AFTER = 120.0
_BACKOFF_BASE = 0.5
_BACKOFF_CAP = 30.0
_RETRIED = frozenset({408, 429})
_MAX_ERROR_CHARS = 300

# The logger's name predates the shipping package; operators' logging configuration names it.
_log = logging.getLogger("redact.ship")
_jitter = random.Random()


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
    checkpoint: ShipCheckpoint | None = None,
) -> ShipResult:
    """Scrub `spans`, then send the share-safe ones to the store in batches (see the module).

    Configuration comes from the arguments, else the environment (`ShipConfigError` names what
    is missing). Raises `ShipRefused` (nothing sent), `ShipGaveUp`, `ShipRequestRefused` or
    `ShipResponseError`; the last three carry the result of the batches sent before."""
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    config = resolve_config(url, api_key, tenant_id)
    if checkpoint is not None and pseudonym_key is None:
        pseudonym_key = checkpoint.ensure_key()
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
        return sender.ship(shipment, checkpoint)
    finally:
        sender.close()


@dataclass
class _Progress:
    shipment: Shipment
    batches: int = 0
    sent: int = 0
    accepted: int = 0
    rejected: list[RejectedSpan] = field(default_factory=list)
    resumed_batches: int = 0
    resumed_spans: int = 0

    def result(self) -> ShipResult:
        return ShipResult(
            batches=self.batches,
            sent=self.sent,
            accepted=self.accepted,
            rejected=tuple(self.rejected),
            dropped_unsafe=self.shipment.dropped_unsafe,
            report=self.shipment.report,
            resumed_batches=self.resumed_batches,
            resumed_spans=self.resumed_spans,
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
        self.client = client if client is not None else httpx.Client(timeout=timeout)
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.max_retry_after = max_retry_after
        self.sleep = sleep

    def close(self) -> None:
        if self.own_client:
            self.client.close()

    def ship(self, shipment: Shipment, checkpoint: ShipCheckpoint | None = None) -> ShipResult:
        progress = _Progress(shipment)
        total = len(shipment.batches)
        for batch in shipment.batches:
            key = idempotency_key(self.config.tenant_id, batch.body)
            kept = checkpoint.answer(key) if checkpoint is not None else None
            if kept is not None and _fits(kept, len(batch)):
                accepted, rejected = kept
                progress.resumed_batches += 1
                progress.resumed_spans += len(batch)
            else:
                accepted, rejected = self._send(batch, total, progress)
                if checkpoint is not None:
                    checkpoint.record(key, accepted, rejected)
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
        asked, wait = capped_retry_after(raw, self.max_retry_after)
        if raw is not None and asked is None:
            _log.warning("%s: ignoring a Retry-After that is neither seconds nor a date", where)
        elif asked is not None and asked > self.max_retry_after:
            _log.warning(
                "%s: Retry-After asks for %.0f s; waiting the %.0f s cap instead",
                where,
                asked,
                self.max_retry_after,
            )
        return wait


def _fits(answer: tuple[int, list[tuple[int, str]]], size: int) -> bool:
    """A kept answer accounts for each span of the batch once (else the batch is sent again)."""
    accepted, rejected = answer
    indexes = {index for index, _ in rejected}
    return (
        accepted + len(rejected) == size
        and len(indexes) == len(rejected)
        and all(0 <= index < size for index in indexes)
    )


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
