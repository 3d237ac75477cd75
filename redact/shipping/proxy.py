"""The OTLP/HTTP scrubbing proxy (shipping spec §2): an ASGI application that receives
`POST /v1/traces`, `/v1/logs` and `/v1/metrics`, redacts every span and log record and every
metric attribute, and forwards what is share-safe to the same path of an upstream OTLP/HTTP
endpoint (a Collector, a vendor). Spans and log records that stay unsafe are held back one by
one; metrics pass with their attributes scrubbed (`redact.shipping.signals`).

Delivery is synchronous. The exporter's request waits while the proxy parses, scrubs and
forwards; the proxy answers `200` only once the upstream has accepted the batch, so no span is
ever held only in the proxy's memory (a crash or restart loses nothing an exporter was told is
delivered), and backpressure reaches the exporters, whose own queues and retries already exist.
The proxy retries the upstream only when the upstream certainly did not take the batch: the
connection could not be made or the request not written, or it answered 429, 502, 503 or 504.
A request's whole stay fits in one budget (`upstream_timeout`, from its arrival: waiting for the
scrubbing thread, scrubbing, and every upstream attempt), kept below the exporters' own timeout
(10 s in the OpenTelemetry SDKs), so an exporter never gives up and resends a batch the proxy
is still delivering; a batch whose scrubbing ends past the budget is not sent at all, and a
batch the budget cannot cover is not scrubbed either (`redact.shipping.admission`). When the
budget runs out the exporter gets `503` (`429` when the upstream was throttling) with
`Retry-After`. When the request was sent but no answer came back (the upstream
may hold the batch), the exporter gets `500`, which OTLP exporters do not retry, so the batch is
never delivered twice; such spans are counted as `upstream_unconfirmed`. Other upstream answers
(4xx but 429, 500, 501; a redirect becomes 500) are passed to the exporter: the data or the setup is wrong, and sending
it again will not help.

The queue is the set of requests in flight: at most `queue_size` at once; one more is refused
with `503` and `Retry-After` before its body is read. Memory is bounded by
`queue_size × max_body_bytes` (and what the parsed spans take). The body limit holds for the
bytes on the wire and for the inflated bytes of a gzip or deflate body: inflation stops as soon
as it passes the limit, so a compression bomb never grows in memory (the rest of such a body,
bounded by the wire limit, is read and thrown away so that the client reads the `413`). zstd
bodies are inflated under the same limit (`redact.shipping.bodies`).

The exporter's request headers go upstream but for the hop-by-hop ones, under the configured
`upstream_headers` (`redact.shipping.headers`); `GET /readyz` says whether the upstream can take
batches now (`redact.shipping.upstream`), `GET /healthz` only that the proxy runs.

Nothing a span holds is ever logged or put in an answer: dropped spans are counted in the
metrics and logged once per kind (verdict and detectors), by the `redact.proxy` logger. A `400`
names the place and the type of what is wrong, never a value (the readers' errors), and a `415`
does not repeat the header it refuses. A span the proxy cannot hold (nested past protobuf's or
the readers' depth limit), cannot redact or cannot encode is dropped as UNKNOWN and counted like
an unsafe one: the rest of its batch is forwarded.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import ssl
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from functools import partial
from typing import Any, Final

import httpx

from redact.inspector import known_secrets_of
from redact.isolated import ScrubFailed
from redact.profiles import resolve_profile
from redact.shipping.admission import ScrubQueue
from redact.shipping.bodies import CODINGS, read_body
from redact.shipping.headers import forwarded_headers
from redact.shipping.http import (
    ClientGone,
    Receive,
    Scope,
    Send,
    content_length,
    request_headers,
    send_answer,
    serve_lifespan,
)
from redact.shipping.metrics import ProxyMetrics
from redact.shipping.otlp import (
    CONTENT_TYPES,
    MEDIA_TYPES,
    Encoding,
    export_response,
    status_body,
    upstream_partial,
)
from redact.shipping.pool import scrubbing_for
from redact.shipping.refusal import Refusal
from redact.shipping.scrubbing import UNITS, Signal
from redact.shipping.settings import SIGNAL_PATHS, ProxySettings
from redact.shipping.tls import UpstreamTLS
from redact.shipping.upstream import Upstream
from redact.spans import ScrubbedSpans, scrub_spans
from tracecheck.errors import TraceReadError

__all__ = ["ProxyApp", "Scrub", "create_app"]

_MAX_LOGGED_KINDS: Final = 1024
_CODING_NAMES: Final = ", ".join(c for c in CODINGS if c not in ("x-gzip", "identity")) + (
    " or identity"
)
# /readyz answers from the last upstream attempt while it is this recent, else checks first.
READY_FRESH: Final = 30.0
_READY_CHECK_TIMEOUT: Final = 2.0

# The logger's name predates the shipping package; operators' logging configuration names it.
log = logging.getLogger("redact.proxy")

# `scrub_spans`' signature: the proxy takes another (a test's, a pool's) in its place.
Scrub = Callable[..., ScrubbedSpans]


class ProxyApp:
    """The ASGI application. Use it under uvicorn with `lifespan="on"` (the upstream client and
    the scrubbing thread are made at startup and closed at shutdown).

    Collaborators, for tests and deployments that need others: `transport` carries the upstream
    requests (httpx's), `scrub` redacts and gates a batch (`scrub_spans`' signature; a
    module-level function when `scrub_processes` is above 1), `executor` runs scrubbing off the
    event loop (a thread by default; only with `scrub_processes` 1)."""

    def __init__(
        self,
        settings: ProxySettings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        scrub: Scrub = scrub_spans,
        executor: Executor | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = ProxyMetrics(queue_capacity=settings.queue_size)
        self._profile = resolve_profile(settings.profile)
        self._known = known_secrets_of(settings.known_secrets)
        # One key for every scrubbing process, so that one id gets one pseudonym in all.
        self._key = settings.pseudonym_key or secrets.token_bytes(32)
        self._transport = transport
        self._upstream: Upstream | None = None
        self._scrubbing = scrubbing_for(
            settings.scrub_processes,
            self._profile,
            self._known,
            self._key,
            scrub=scrub,
            threads=settings.scrub_workers,
            executor=executor,
        )
        self._in_flight = 0
        self._logged_kinds: set[tuple[Signal, str]] = set()
        slots = settings.scrub_processes if settings.scrub_processes > 1 else settings.scrub_workers
        self._queue = ScrubQueue(slots, _loop_time)  # the clock of `deadline` below

    # -- lifecycle -----------------------------------------------------------------------------

    async def startup(self) -> None:
        settings = self.settings
        if self._upstream is None:
            size = settings.queue_size
            client = httpx.AsyncClient(
                transport=self._transport,
                limits=httpx.Limits(
                    max_connections=size, max_keepalive_connections=size, keepalive_expiry=2.0
                ),
                timeout=httpx.Timeout(settings.upstream_timeout),
                follow_redirects=False,
                verify=_verify(settings.upstream_tls),
            )
            self._upstream = Upstream(
                client,
                settings.upstream_url,
                self.metrics,
                first_backoff=settings.first_backoff,
                max_backoff=settings.max_backoff,
                max_retry_after=settings.max_retry_after,
                headers=dict(settings.upstream_headers),
            )
        await self._scrubbing.start()

    async def shutdown(self) -> None:
        if self._upstream is not None:
            await self._upstream.client.aclose()
            self._upstream = None
        self._scrubbing.close()

    def _upstream_of(self) -> Upstream:
        assert self._upstream is not None, "the proxy was not started (lifespan)"
        return self._upstream

    def _hold_left(self) -> float:
        return self._upstream.hold_left() if self._upstream is not None else 0.0

    async def _readiness(self) -> tuple[bool, str]:
        """Ready when the upstream took a batch or answered a check within `READY_FRESH`
        seconds and asks for no pause; checked now (an empty export request) when that is
        older."""
        upstream = self._upstream_of()
        seen = upstream.last_seen
        now = asyncio.get_running_loop().time()
        if upstream.hold_left() <= 0 and (seen is None or now - seen > READY_FRESH):
            await upstream.check(min(_READY_CHECK_TIMEOUT, self.settings.upstream_timeout))
        return upstream.readiness()

    # -- ASGI ------------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await serve_lifespan(receive, send, self.startup, self.shutdown)
            return
        if scope["type"] != "http":
            return
        path = scope["path"]
        method = scope["method"]
        signal = SIGNAL_PATHS.get(path)
        if signal is not None:
            if method != "POST":
                await _plain(send, 405, "use POST\n", (("allow", "POST"),))
                return
            await self._receive(scope, receive, send, signal)
        elif path == "/healthz" and method in ("GET", "HEAD"):
            await _plain(send, 200, "ok\n")
        elif path == "/readyz" and method in ("GET", "HEAD"):
            ready, why = await self._readiness()
            await _plain(send, 200 if ready else 503, f"{why}\n")
        elif path == "/metrics" and method in ("GET", "HEAD"):
            self.metrics.queue_depth = self._in_flight
            body = self.metrics.render().encode()
            await send_answer(send, 200, body, "text/plain; version=0.0.4; charset=utf-8")
        else:
            paths = ", ".join(SIGNAL_PATHS)
            await _plain(send, 404, f"no such path; traces, logs and metrics go to POST {paths}\n")

    async def _receive(self, scope: Scope, receive: Receive, send: Send, signal: Signal) -> None:
        headers = request_headers(scope)
        encoding = CONTENT_TYPES.get(headers.get("content-type", "").split(";")[0].strip().lower())
        try:
            # The refused header is not repeated: a header holds whatever a client put there.
            if encoding is None:
                given = "is missing" if "content-type" not in headers else "is not supported"
                raise Refusal(
                    415,
                    "unsupported_media_type",
                    f"the Content-Type {given}: send application/x-protobuf or application/json",
                )
            coding = headers.get("content-encoding", "identity").strip().lower() or "identity"
            if coding not in CODINGS:
                raise Refusal(
                    415,
                    "unsupported_media_type",
                    f"the Content-Encoding is not supported (use {_CODING_NAMES})",
                )
            if self._in_flight >= self.settings.queue_size:
                raise Refusal(
                    503,
                    "queue_full",
                    f"the proxy already holds {self.settings.queue_size} requests; retry later",
                    retry_after=max(1.0, self._hold_left()),
                )
            self._in_flight += 1
            try:
                status, body = await self._export(receive, headers, encoding, coding, signal)
            finally:
                self._in_flight -= 1
        except Refusal as refusal:
            self.metrics.add("tracecheck_proxy_requests_total", outcome=refusal.outcome)
            extra = []
            if refusal.retry_after is not None:
                extra.append(("retry-after", str(max(1, math.ceil(refusal.retry_after)))))
            payload, media = status_body(encoding, refusal.status, refusal.message)
            await send_answer(send, refusal.status, payload, media, extra)
            return
        except ClientGone:
            return
        await send_answer(send, status, body, MEDIA_TYPES[encoding])

    async def _export(
        self,
        receive: Receive,
        headers: Mapping[str, str],
        encoding: Encoding,
        coding: str,
        signal: Signal,
    ) -> tuple[int, bytes]:
        settings = self.settings
        loop = asyncio.get_running_loop()
        deadline = loop.time() + settings.upstream_timeout
        wbits = CODINGS[coding]
        try:
            declared = content_length(headers)
        except ValueError as exc:
            raise Refusal(400, "bad_request", str(exc)) from None
        # Refused before its body is read when the work queued ahead leaves it no time.
        hint = min(declared or 0, settings.max_body_bytes) if coding == "identity" else 0
        self._queue.check(hint, deadline)
        body = await read_body(
            receive, settings.max_body_bytes, wbits, declared, self.metrics, settings.body_timeout
        )
        try:
            batch = await self._queue.run(
                len(body),
                deadline,
                partial(self._scrubbing.scrub, body, encoding, wbits, signal),
            )
        except TraceReadError as exc:
            raise Refusal(400, "bad_request", str(exc)) from None
        except Refusal:
            raise
        except Exception as exc:
            # Fail closed: nothing of a batch that could not be scrubbed leaves. The message
            # names the error's type only; its text could quote span content.
            error = exc.error if isinstance(exc, ScrubFailed) else type(exc).__name__
            log.error("a batch could not be scrubbed (%s); nothing was forwarded", error)
            raise Refusal(
                500,
                "scrub_failed",
                f"the proxy could not scrub the batch ({error}); nothing was forwarded",
            ) from None
        del body
        self._count(signal, "received", batch.received)
        message = batch.message
        if batch.dropped:
            self._note_drops(batch.dropped, batch.kinds, signal)
        rejected = batch.dropped
        if batch.payload is None:
            self.metrics.add("tracecheck_proxy_requests_total", outcome="nothing_to_forward")
            return 200, export_response(encoding, rejected, message, signal)
        try:
            if loop.time() >= deadline:
                raise Refusal(
                    503,
                    "upstream_unavailable",
                    f"the proxy is busy: scrubbing the batch took past the "
                    f"{settings.upstream_timeout:g} s budget, so it was not sent; retry later",
                    retry_after=1.0,
                )
            forwarded = forwarded_headers(headers, settings.upstream_headers)
            sending = loop.time()
            delivered = await self._upstream_of().deliver(
                batch.payload,
                encoding,
                coding,
                deadline,
                forwarded,
                url=settings.upstream_url_for(signal),
            )
        except Refusal as refusal:
            if signal == "traces":
                self.metrics.add(
                    "tracecheck_proxy_spans_failed_total", batch.kept, reason=refusal.outcome
                )
            if message:
                refusal.message += f" ({message})"
            raise
        self._queue.costs.forwarded(loop.time() - sending)
        self.metrics.add("tracecheck_proxy_requests_total", outcome="forwarded")
        self._count(signal, "forwarded", batch.kept)
        self.metrics.add("tracecheck_proxy_bytes_forwarded_total", len(batch.payload))
        upstream_rejected, upstream_message = upstream_partial(encoding, delivered, signal)
        if upstream_rejected or upstream_message:
            rejected += upstream_rejected
            note = f"the upstream rejected {upstream_rejected}: {upstream_message}".rstrip(": ")
            message = f"{message}; {note}" if message else note
        return 200, export_response(encoding, rejected, message, signal)

    def _count(self, signal: Signal, fate: str, amount: int) -> None:
        """Spans in the span counters; log records and data points in the records' ones."""
        if signal == "traces":
            self.metrics.add(f"tracecheck_proxy_spans_{fate}_total", amount)
        else:
            self.metrics.add(f"tracecheck_proxy_records_{fate}_total", amount, signal=signal)

    def _note_drops(
        self, dropped: int, kinds: Sequence[tuple[str, str | None]], signal: Signal
    ) -> None:
        self._count(signal, "dropped_unsafe", dropped)
        for kind, span_id in kinds:
            logged = (signal, kind)
            if logged in self._logged_kinds or len(self._logged_kinds) >= _MAX_LOGGED_KINDS:
                continue
            self._logged_kinds.add(logged)
            if signal == "traces":
                log.warning(
                    "span %s dropped: %s after redaction; further drops of this kind are "
                    "counted in tracecheck_proxy_spans_dropped_unsafe_total, not logged",
                    span_id or "(no id)",
                    kind,
                )
            else:
                log.warning(
                    "a %s dropped: %s after redaction; further drops of this kind are counted "
                    'in tracecheck_proxy_records_dropped_unsafe_total{signal="%s"}, not logged',
                    UNITS[signal][0],
                    kind,
                    signal,
                )


def create_app(settings: ProxySettings, **kwargs: Any) -> ProxyApp:
    """The proxy's ASGI application for `settings`."""
    return ProxyApp(settings, **kwargs)


def _loop_time() -> float:
    return asyncio.get_running_loop().time()


def _verify(tls: UpstreamTLS | None) -> ssl.SSLContext | bool:
    """httpx's `verify=`: the configured context, else its default (the system's CAs)."""
    return tls.context() if tls is not None and tls.configured else True


async def _plain(
    send: Send, status: int, text: str, headers: Iterable[tuple[str, str]] = ()
) -> None:
    await send_answer(send, status, text.encode(), "text/plain; charset=utf-8", headers)
