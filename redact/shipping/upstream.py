"""Delivery to the upstream: POST a scrubbed batch, retrying only while the upstream certainly
did not take it (the connection could not be made or the request not written, or it answered
429, 502, 503 or 504), within the request's budget.

A `Retry-After` pauses every batch, not only the one it answered: the upstream asked for a
pause. The pause is capped (`max_retry_after`, 30 s by default, logged when it applies): one
`Retry-After: 86400` must not refuse every exporter for a day after the upstream recovers.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Final

import httpx

from redact.shipping.bodies import CODINGS
from redact.shipping.http import capped_retry_after
from redact.shipping.metrics import ProxyMetrics
from redact.shipping.otlp import MEDIA_TYPES, Encoding, upstream_message
from redact.shipping.refusal import Refusal

__all__ = ["RETRYABLE_STATUSES", "Upstream"]

RETRYABLE_STATUSES: Final = frozenset({429, 502, 503, 504})

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
    ) -> None:
        self.client = client
        self.url = url
        self.metrics = metrics
        self.first_backoff = first_backoff
        self.max_backoff = max_backoff
        self.max_retry_after = max_retry_after
        self._hold_until = 0.0  # the upstream asked to wait until then (event-loop time)
        self._hold_throttles = False  # that pause came with a 429

    def hold_left(self) -> float:
        """Seconds left of the pause the upstream asked for (0 when none)."""
        return max(self._hold_until - asyncio.get_running_loop().time(), 0.0)

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
        self, payload: bytes, encoding: Encoding, coding: str, deadline: float
    ) -> bytes:
        """POST the batch upstream, retrying while the upstream certainly did not take it."""
        client = self.client
        headers = {"content-type": MEDIA_TYPES[encoding]}
        if coding != "identity":
            headers["content-encoding"] = "gzip" if CODINGS[coding] == 31 else "deflate"
        loop = asyncio.get_running_loop()
        attempt = 0
        backoff = 0.0
        last = ""
        last_status = 0
        while True:
            hold = self._hold_until - loop.time()
            wait = max(backoff, hold, 0.0)
            if loop.time() + wait >= deadline and (attempt or hold > 0):
                if attempt:
                    plural = "s" if attempt != 1 else ""
                    why = f"the upstream is unavailable ({last}) after {attempt} attempt{plural}"
                else:
                    why = f"the upstream asked to wait {hold:.1f} s (Retry-After)"
                raise Refusal(
                    429 if last_status == 429 or (self._hold_throttles and hold > 0) else 503,
                    "upstream_unavailable",
                    f"{why}; retry later",
                    retry_after=max(wait, 1.0),
                )
            if wait > 0:
                await asyncio.sleep(wait)
            if attempt:
                self.metrics.add("tracecheck_proxy_upstream_retries_total")
            attempt += 1
            remaining = max(deadline - loop.time(), 0.001)
            try:
                response = await client.post(
                    self.url,
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
                last = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                self.metrics.add("tracecheck_proxy_upstream_failures_total", reason="network")
                last_status = 0
            except httpx.TransportError as exc:
                self.metrics.add("tracecheck_proxy_upstream_failures_total", reason="unconfirmed")
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
            else:
                status = response.status_code
                if 200 <= status < 300:
                    return response.content
                self.metrics.add(
                    "tracecheck_proxy_upstream_failures_total", reason=f"http_{status}"
                )
                if status not in RETRYABLE_STATUSES:
                    detail = upstream_message(response.content)
                    reason = response.reason_phrase or "error"
                    kind = "redirects" if 300 <= status < 400 else "refuses the batch"
                    log.warning("the upstream %s: %d %s", kind, status, reason)
                    raise Refusal(
                        500 if status < 400 else status,
                        "upstream_rejected",
                        f"the upstream {kind}: {status} {reason}"
                        + (f": {detail}" if detail else ""),
                    )
                last = f"{status} {response.reason_phrase}".strip()
                last_status = status
                hint = self._retry_after(response.headers.get("retry-after"))
                if hint is not None and loop.time() + hint > self._hold_until:
                    # Every batch waits: the upstream asked for a pause, not one batch.
                    self._hold_until = loop.time() + hint
                    self._hold_throttles = status == 429
            backoff = min(self.max_backoff, self.first_backoff * 2 ** (attempt - 1))
            backoff *= random.uniform(0.8, 1.2)
