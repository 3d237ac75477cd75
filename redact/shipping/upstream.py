"""Delivery to the upstream: POST a scrubbed batch, retrying only while the upstream certainly
did not take it (the connection could not be made or the request not written, or it answered
429, 502, 503 or 504), within the request's budget.

A `Retry-After` pauses every batch, not only the one it answered: the upstream asked for a
pause. The pause is capped (`max_retry_after`, 30 s by default, logged when it applies): one
`Retry-After: 86400` must not refuse every exporter for a day after the upstream recovers. And
the pause may end early: once `min(pause, probe_after)` has passed, one batch at a time is sent
as a probe; when the upstream takes it, the pause ends for every batch. Only a batch with at
least `probe_time` seconds of its budget left at the probe's time probes: a batch that would
wake at its own deadline would see its one attempt time out, and every batch would then wait
`probe_after` more for the next probe.

The upstream's state, for `GET /readyz`: the last attempt's outcome (a delivery, a probe or a
`check`), and the pause. A refusal of one batch (4xx) says nothing about the upstream being
there; a network error, 429 or 5xx does.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
from collections.abc import Mapping
from typing import Final

import httpx

from redact.shipping.bodies import CODINGS
from redact.shipping.http import capped_retry_after
from redact.shipping.metrics import ProxyMetrics
from redact.shipping.otlp import MEDIA_TYPES, Encoding, upstream_message
from redact.shipping.refusal import Refusal

__all__ = ["DEFAULT_PROBE_AFTER", "DEFAULT_PROBE_TIME", "RETRYABLE_STATUSES", "Upstream"]

RETRYABLE_STATUSES: Final = frozenset({429, 502, 503, 504})
# After this long (or the pause, when shorter) one batch may probe a paused upstream.
DEFAULT_PROBE_AFTER: Final = 5.0
# What a probe needs of its batch's budget, at least, once its time comes (half the budget when
# that is less).
DEFAULT_PROBE_TIME: Final = 1.0
# An empty export request: what `check` sends to see whether the upstream is there.
_EMPTY_EXPORT: Final = b""

# The logger's name predates the shipping package; operators' logging configuration names it.
log = logging.getLogger("redact.proxy")


class Upstream:
    """Where scrubbed batches go: `url`, through `client`, under one shared pause."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        url: str,
        metrics: ProxyMetrics,
        *,
        first_backoff: float,
        max_backoff: float,
        max_retry_after: float,
        headers: Mapping[str, str] | None = None,
        probe_after: float = DEFAULT_PROBE_AFTER,
        probe_time: float = DEFAULT_PROBE_TIME,
    ) -> None:
        self.client = client
        self.url = url
        self.metrics = metrics
        self.first_backoff = first_backoff
        self.max_backoff = max_backoff
        self.max_retry_after = max_retry_after
        self.headers = dict(headers or {})  # configured: sent with `check` too
        self.probe_after = probe_after
        self.probe_time = probe_time
        self._hold_until = 0.0  # the upstream asked to wait until then (event-loop time)
        self._hold_throttles = False  # that pause came with a 429
        self._next_probe = 0.0  # while paused, one batch may probe from then on
        self._probing = False
        # The last attempt's outcome: when (event-loop time), and why it failed ("" if not).
        self.last_seen: float | None = None
        self.last_failure = ""

    def hold_left(self) -> float:
        """Seconds left of the pause the upstream asked for (0 when none)."""
        return max(self._hold_until - asyncio.get_running_loop().time(), 0.0)

    def _pause(self, seconds: float, throttles: bool, fresh: bool = False) -> None:
        """Pause every batch for `seconds` (the capped Retry-After); a `fresh` answer (a
        probe's) replaces the pause, any other only lengthens it."""
        now = asyncio.get_running_loop().time()
        if now + seconds > self._hold_until or fresh:
            # Every batch waits: the upstream asked for a pause, not one batch.
            self._hold_until = now + seconds
            self._hold_throttles = throttles
            self._next_probe = now + min(seconds, self.probe_after)

    def _seen(self, failure: str = "") -> None:
        self.last_seen = asyncio.get_running_loop().time()
        self.last_failure = failure
        if not failure and self._hold_until:
            if self.hold_left() > 0:
                log.warning("the upstream takes batches again; its pause ends early")
            self._hold_until = 0.0

    def readiness(self) -> tuple[bool, str]:
        """Whether batches can go upstream now, and if not why (no header values, no URL)."""
        hold = self.hold_left()
        if hold > 0:
            return False, f"the upstream asked to pause for {math.ceil(hold)} s more (Retry-After)"
        if self.last_failure:
            return False, f"the upstream is unavailable ({self.last_failure})"
        if self.last_seen is None:
            return False, "the upstream has not been reached yet"
        return True, "ready"

    async def check(self, timeout: float) -> None:
        """Send an empty export request (no spans) to see whether the upstream is there: any
        answer but a 429 or a 5xx counts (it may want the exporters' credentials, which the
        check does not have)."""
        try:
            response = await self.client.post(
                self.url,
                content=_EMPTY_EXPORT,
                headers={**self.headers, "content-type": "application/x-protobuf"},
                timeout=httpx.Timeout(timeout),
            )
        except httpx.TransportError as exc:
            self._seen(type(exc).__name__)
            return
        status = response.status_code
        if status == 429 or status >= 500:
            self._seen(f"{status} {response.reason_phrase}".strip())
            hint = self._retry_after(response.headers.get("retry-after"))
            if hint is not None and status in RETRYABLE_STATUSES:
                self._pause(hint, status == 429, fresh=True)
        else:
            self._seen()

    def _retry_after(self, value: str | None) -> float | None:
        asked, wait = capped_retry_after(value, self.max_retry_after)
        if asked is not None and asked > self.max_retry_after:
            log.warning(
                "the upstream asks to wait %.0f s (Retry-After); waiting the %.0f s cap instead",
                asked,
                self.max_retry_after,
            )
        return wait

    async def deliver(
        self,
        payload: bytes,
        encoding: Encoding,
        coding: str,
        deadline: float,
        headers: Mapping[str, str] | None = None,
        url: str | None = None,
    ) -> bytes:
        """POST the batch to `url` (the traces URL by default) with `headers` (the exporter's,
        already filtered, and the configured ones; the configured ones alone when None),
        retrying while the upstream certainly did not take it."""
        sent = {**(self.headers if headers is None else headers)}
        sent["content-type"] = MEDIA_TYPES[encoding]
        name = CODINGS.get(coding)
        if name is not None:
            sent["content-encoding"] = name
        loop = asyncio.get_running_loop()
        attempt = 0
        backoff = 0.0
        last = ""
        last_status = 0
        probing = False
        # A probe needs time for its attempt: `probe_time`, or half the budget when shorter.
        needs = min(self.probe_time, (deadline - loop.time()) / 2)
        try:
            while True:
                now = loop.time()
                hold = self._hold_until - now
                if hold > 0 and not self._probing and self._next_probe + needs <= deadline:
                    # The upstream may be back before its pause ends: this batch goes to see,
                    # with time left for its attempt.
                    self._probing = probing = True
                if probing and hold > 0:
                    hold = self._next_probe - now
                    if self._next_probe + needs > deadline:
                        # Its next turn (after a failed probe) leaves it too little time: it
                        # stops probing here, for a batch with time to take the next turn.
                        hold = max(hold, deadline - now)
                wait = max(backoff, hold, 0.0)
                if now + wait >= deadline and (attempt or hold > 0):
                    if attempt:
                        plural = "s" if attempt != 1 else ""
                        why = (
                            f"the upstream is unavailable ({last}) after {attempt} attempt{plural}"
                        )
                    else:
                        why = f"the upstream asked to wait {hold:.1f} s (Retry-After)"
                    throttled = self._hold_throttles and self.hold_left() > 0
                    raise Refusal(
                        429 if last_status == 429 or throttled else 503,
                        "upstream_unavailable",
                        f"{why}; retry later",
                        retry_after=max(wait, 1.0),
                    )
                if wait > 0:
                    await asyncio.sleep(wait)
                if attempt:
                    self.metrics.add("tracecheck_proxy_upstream_retries_total")
                attempt += 1
                result = await self._attempt(url or self.url, payload, sent, deadline, probing)
                if isinstance(result, bytes):
                    return result
                last, last_status = result
                if probing and self.hold_left() > 0:
                    # The probe failed: the next one waits its turn.
                    self._next_probe = max(
                        self._next_probe, loop.time() + min(self.hold_left(), self.probe_after)
                    )
                backoff = min(self.max_backoff, self.first_backoff * 2 ** (attempt - 1))
                backoff *= random.uniform(0.8, 1.2)
        finally:
            if probing:
                self._probing = False

    async def _attempt(
        self, url: str, payload: bytes, headers: Mapping[str, str], deadline: float, probing: bool
    ) -> bytes | tuple[str, int]:
        """One POST: the upstream's answer body when it took the batch; `(why, status)` when it
        certainly did not (status 0 for a network error); Refusal otherwise."""
        remaining = max(deadline - asyncio.get_running_loop().time(), 0.001)
        try:
            response = await self.client.post(
                url,
                content=payload,
                headers=headers,
                timeout=httpx.Timeout(remaining),
            )
        except (
            httpx.ConnectError,
            httpx.ConnectTimeout,
            httpx.PoolTimeout,
            httpx.WriteError,
            httpx.WriteTimeout,
        ) as exc:
            # The upstream cannot have the whole request: safe to send it again.
            self.metrics.add("tracecheck_proxy_upstream_failures_total", reason="network")
            self._seen(type(exc).__name__)
            return (f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__), 0
        except httpx.TransportError as exc:
            self.metrics.add("tracecheck_proxy_upstream_failures_total", reason="unconfirmed")
            self._seen(type(exc).__name__)
            log.warning(
                "the upstream did not answer a sent batch (%s); not sent again",
                type(exc).__name__,
            )
            raise Refusal(
                500,
                "upstream_unconfirmed",
                f"the upstream did not answer after the batch was sent "
                f"({type(exc).__name__}); it may hold the batch, so the proxy does not "
                f"send it again and the exporter should not either",
            ) from None
        status = response.status_code
        if 200 <= status < 300:
            self._seen()
            return response.content
        self.metrics.add("tracecheck_proxy_upstream_failures_total", reason=f"http_{status}")
        last = f"{status} {response.reason_phrase}".strip()
        if status >= 500 or status == 429:
            self._seen(last)
        if status not in RETRYABLE_STATUSES:
            detail = upstream_message(response.content)
            reason = response.reason_phrase or "error"
            kind = "redirects" if 300 <= status < 400 else "refuses the batch"
            log.warning("the upstream %s: %d %s", kind, status, reason)
            raise Refusal(
                500 if status < 400 else status,
                "upstream_rejected",
                f"the upstream {kind}: {status} {reason}" + (f": {detail}" if detail else ""),
            )
        hint = self._retry_after(response.headers.get("retry-after"))
        if hint is not None:
            self._pause(hint, status == 429, probing)
        return last, status
