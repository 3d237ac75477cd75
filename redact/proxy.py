"""The OTLP/HTTP scrubbing proxy (shipping spec §2): an ASGI application that receives
`POST /v1/traces`, redacts every span, and forwards what is share-safe to an upstream OTLP/HTTP
endpoint (a Collector, a vendor).

Delivery is synchronous. The exporter's request waits while the proxy parses, scrubs and
forwards; the proxy answers `200` only once the upstream has accepted the batch, so no span is
ever held only in the proxy's memory (a crash or restart loses nothing an exporter was told is
delivered), and backpressure reaches the exporters, whose own queues and retries already exist.
The proxy retries the upstream only when the upstream certainly did not take the batch: the
connection could not be made or the request not written, or it answered 429, 502, 503 or 504.
A request's whole stay fits in one budget (`upstream_timeout`, from its arrival: waiting for the
scrubbing thread, scrubbing, and every upstream attempt), kept below the exporters' own timeout
(10 s in the OpenTelemetry SDKs), so an exporter never gives up and resends a batch the proxy
is still delivering; a batch whose scrubbing ends past the budget is not sent at all. When the
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
bounded by the wire limit, is read and thrown away so that the client reads the `413`).

Nothing a span holds is ever logged or put in an answer: dropped spans are counted in the
metrics and logged once per kind (verdict and detectors), by the `redact.proxy` logger. A `400`
names the place and the type of what is wrong, never a value (the readers' errors), and a `415`
does not repeat the header it refuses. A span the proxy cannot hold (nested past protobuf's or
the readers' depth limit), cannot redact or cannot encode is dropped as UNKNOWN and counted like
an unsafe one: the rest of its batch is forwarded.
"""

from __future__ import annotations

import asyncio
import gzip
import logging
import math
import random
import secrets
import time
import zlib
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Final, Literal

import httpx
import orjson
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from redact.inspector import known_secrets_of
from redact.isolated import scrub_batch, unreadable_span
from redact.known import KnownSecrets
from redact.model import FindingTally, verdict_of
from redact.profiles import Profile, resolve_profile
from redact.spans import DroppedSpan, scrub_spans
from tracecheck.errors import TraceReadError
from tracecheck.readers.common import ReadContext, Skipped
from tracecheck.readers.otlp_json import read_otlp_json
from tracecheck.readers.otlp_proto import read_request
from tracecheck.spans import Span
from tracecheck.writers import to_otlp_json, to_otlp_proto

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_QUEUE_SIZE",
    "DEFAULT_UPSTREAM_TIMEOUT",
    "ProxyApp",
    "ProxyMetrics",
    "ProxySettings",
    "create_app",
]

DEFAULT_MAX_BODY_BYTES: Final = 4 * 1024 * 1024
DEFAULT_QUEUE_SIZE: Final = 16
DEFAULT_UPSTREAM_TIMEOUT: Final = 8.0
TRACES_PATH: Final = "/v1/traces"
RETRYABLE_STATUSES: Final = frozenset({429, 502, 503, 504})

log = logging.getLogger("redact.proxy")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Encoding = Literal["proto", "json"]

_CONTENT_TYPES: Final[dict[str, Encoding]] = {
    "application/x-protobuf": "proto",
    "application/json": "json",
}
_MEDIA_TYPES: Final[dict[Encoding, str]] = {
    "proto": "application/x-protobuf",
    "json": "application/json",
}
# Content-Encoding → zlib window bits (31: gzip wrapper; 15: zlib wrapper, HTTP's "deflate").
_CODINGS: Final[dict[str, int | None]] = {
    "identity": None,
    "gzip": 31,
    "x-gzip": 31,
    "deflate": 15,
}
# google.rpc.Code values for the Status body of a failed request.
_RPC_CODES: Final[dict[int, int]] = {
    400: 3,  # INVALID_ARGUMENT
    404: 5,  # NOT_FOUND
    405: 12,  # UNIMPLEMENTED
    413: 3,
    415: 3,
    429: 8,  # RESOURCE_EXHAUSTED
    500: 13,  # INTERNAL
    503: 14,  # UNAVAILABLE
}
_OUTCOMES: Final = (
    "forwarded",
    "nothing_to_forward",
    "bad_request",
    "too_large",
    "unsupported_media_type",
    "queue_full",
    "upstream_unavailable",
    "upstream_rejected",
    "upstream_unconfirmed",
    "scrub_failed",
)
_FAILED_REASONS: Final = ("upstream_unavailable", "upstream_rejected", "upstream_unconfirmed")
_SERIES: Final[dict[str, tuple[tuple[tuple[str, str], ...], ...]]] = {
    "tracecheck_proxy_requests_total": tuple((("outcome", o),) for o in _OUTCOMES),
    "tracecheck_proxy_spans_failed_total": tuple((("reason", r),) for r in _FAILED_REASONS),
    "tracecheck_proxy_upstream_failures_total": tuple(
        (("reason", r),)
        for r in ("network", "unconfirmed", "http_429", "http_502", "http_503", "http_504")
    ),
}
_MAX_LOGGED_KINDS: Final = 1024


@dataclass(frozen=True, slots=True)
class ProxySettings:
    """What the proxy needs: where to forward, how to redact, and its limits.

    `upstream` is the base URL (`http://collector:4318`); batches go to `upstream + /v1/traces`.
    Without a `pseudonym_key` the proxy draws one when it starts, so pseudonyms agree across the
    batches of one process. `upstream_timeout` bounds a request's stay, from its arrival to
    its answer: scrubbing, every upstream attempt and the waits between them."""

    upstream: str
    profile: str | Profile = "share"
    known_secrets: Iterable[str] | KnownSecrets = ()
    pseudonym_key: bytes | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    queue_size: int = DEFAULT_QUEUE_SIZE
    upstream_timeout: float = DEFAULT_UPSTREAM_TIMEOUT
    first_backoff: float = 0.1
    max_backoff: float = 2.0
    scrub_workers: int = 1

    def __post_init__(self) -> None:
        if self.max_body_bytes < 1:
            raise ValueError("max_body_bytes must be at least 1")
        if self.queue_size < 1:
            raise ValueError("queue_size must be at least 1")
        if not self.upstream_timeout > 0:
            raise ValueError("upstream_timeout must be positive")

    @property
    def upstream_url(self) -> str:
        return self.upstream.rstrip("/") + TRACES_PATH


# ---------------------------------------------------------------------------------------------
# Metrics


_HELP: Final = {
    "tracecheck_proxy_requests_total": "Requests to POST /v1/traces, by outcome.",
    "tracecheck_proxy_spans_received_total": "Spans received in parsed requests.",
    "tracecheck_proxy_spans_forwarded_total": "Spans the upstream accepted.",
    "tracecheck_proxy_spans_dropped_unsafe_total": (
        "Spans held back because they were still not share-safe after redaction."
    ),
    "tracecheck_proxy_spans_failed_total": (
        "Share-safe spans not delivered, answered to the exporter with an error, by reason."
    ),
    "tracecheck_proxy_upstream_retries_total": "Upstream requests sent again after a failure.",
    "tracecheck_proxy_upstream_failures_total": "Failed upstream attempts, by reason.",
    "tracecheck_proxy_bytes_received_total": "Request body bytes read, as sent on the wire.",
    "tracecheck_proxy_bytes_forwarded_total": "Body bytes the upstream accepted, on the wire.",
}


@dataclass
class ProxyMetrics:
    """Counters for `GET /metrics`, rendered in the Prometheus text exposition format."""

    counters: dict[tuple[str, tuple[tuple[str, str], ...]], float] = field(default_factory=dict)
    queue_depth: int = 0
    queue_capacity: int = 0

    def __post_init__(self) -> None:
        # Every series an operator may alert on exists from the start, at 0.
        for name in _HELP:
            for labels in _SERIES.get(name, ((),)):
                self.counters.setdefault((name, labels), 0)

    def add(self, name: str, amount: float = 1, **labels: str) -> None:
        key = (name, tuple(sorted(labels.items())))
        self.counters[key] = self.counters.get(key, 0) + amount

    def value(self, name: str, **labels: str) -> float:
        return self.counters.get((name, tuple(sorted(labels.items()))), 0)

    def render(self) -> str:
        lines: list[str] = []
        names = sorted({name for name, _ in self.counters})
        for name in names:
            lines.append(f"# HELP {name} {_HELP.get(name, name)}")
            lines.append(f"# TYPE {name} counter")
            samples = sorted((labels, v) for (n, labels), v in self.counters.items() if n == name)
            for labels, v in samples:
                lines.append(f"{name}{_labels(labels)} {_number(v)}")
        for name, help_text, v in (
            ("tracecheck_proxy_queue_depth", "Requests in flight (the queue).", self.queue_depth),
            (
                "tracecheck_proxy_queue_capacity",
                "Most requests in flight at once.",
                self.queue_capacity,
            ),
        ):
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge", f"{name} {v}"]
        return "\n".join(lines) + "\n"


def _labels(labels: tuple[tuple[str, str], ...]) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in labels) + "}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


# ---------------------------------------------------------------------------------------------
# Request failures, each one answer


class _Refusal(Exception):
    """A request answered with an error status; `message` never holds span content."""

    def __init__(
        self,
        status: int,
        outcome: str,
        message: str,
        *,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.outcome = outcome
        self.message = message
        self.retry_after = retry_after


class _ClientGone(Exception):
    """The client disconnected before its body was read."""


class _ScrubFailed(Exception):
    """Redaction raised for every span of a batch; `error` names the type it raised."""

    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


# ---------------------------------------------------------------------------------------------
# Bodies: bounded reading and inflation


class _Inflater:
    """Inflates a gzip or zlib body chunk by chunk, never past `limit` bytes of output."""

    def __init__(self, wbits: int, limit: int) -> None:
        self._wbits = wbits
        self._limit = limit
        self._inflater = zlib.decompressobj(wbits)
        self._parts: list[bytes] = []
        self.size = 0

    def feed(self, data: bytes) -> None:
        while data:
            if self._inflater.eof:
                # A gzip body may hold several members one after the other.
                self._inflater = zlib.decompressobj(self._wbits)
            try:
                out = self._inflater.decompress(data, self._limit - self.size + 1)
            except zlib.error as exc:
                raise _Refusal(
                    400, "bad_request", f"the body is not valid {self._name}: {exc}"
                ) from None
            self.size += len(out)
            if self.size > self._limit:
                raise _Refusal(
                    413,
                    "too_large",
                    f"the body inflates past the limit of {self._limit} bytes",
                )
            if out:
                self._parts.append(out)
            data = self._inflater.unconsumed_tail or (
                self._inflater.unused_data if self._inflater.eof else b""
            )

    def finish(self) -> bytes:
        if not self._inflater.eof:
            raise _Refusal(400, "bad_request", f"the {self._name} body ends early")
        return b"".join(self._parts)

    @property
    def _name(self) -> str:
        return "gzip" if self._wbits == 31 else "deflate (zlib)"


async def _read_body(
    receive: Receive, limit: int, wbits: int | None, declared: int | None, metrics: ProxyMetrics
) -> bytes:
    """The request body, inflated; refused with 413 once either size passes `limit`."""
    if declared is not None and declared > limit:
        raise _Refusal(
            413, "too_large", f"the body is {declared} bytes, over the limit of {limit} bytes"
        )
    inflater = _Inflater(wbits, limit) if wbits is not None else None
    parts: list[bytes] = []
    wire = 0
    refusal: _Refusal | None = None
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _ClientGone
        chunk: bytes = message.get("body", b"")
        wire += len(chunk)
        metrics.add("tracecheck_proxy_bytes_received_total", len(chunk))
        if wire > limit:
            raise _Refusal(413, "too_large", f"the body is over the limit of {limit} bytes")
        if refusal is None:
            try:
                if inflater is not None:
                    inflater.feed(chunk)
                elif chunk:
                    parts.append(chunk)
            except _Refusal as exc:
                # Inflation stops here; the rest of the body (at most `limit` bytes on the
                # wire) is read and discarded so that the client can read the answer.
                refusal = exc
        if not message.get("more_body", False):
            break
    if refusal is not None:
        raise refusal
    return inflater.finish() if inflater is not None else b"".join(parts)


# ---------------------------------------------------------------------------------------------
# Parsing, scrubbing, encoding (run on a worker thread)


@dataclass(frozen=True, slots=True)
class _Batch:
    received: int
    kept: int
    dropped: tuple[DroppedSpan, ...]
    payload: bytes | None  # None when nothing is left to forward


def _parse(body: bytes, encoding: Encoding) -> tuple[list[Span], list[Skipped]]:
    """The request's spans, and those the reader left out (nested past the depth it holds)."""
    ctx = ReadContext("request body")
    if encoding == "json":
        spans = list(read_otlp_json(body, ctx))
    else:
        spans = list(read_request(body, ctx, None, ""))
    return spans, ctx.skipped


def _skipped(item: Skipped, profile: Profile) -> DroppedSpan:
    entry = f"span:{item.span_id or '(no id)'}/: {item.reason}"
    verdict = verdict_of(profile.name, FindingTally(), [entry])
    return DroppedSpan(item.trace_id, item.span_id, verdict)


def _encodable(
    spans: Sequence[Span], encoding: Encoding, profile: Profile
) -> tuple[bytes, list[Span], list[DroppedSpan]]:
    """The batch encoded, with the spans the encoder refuses dropped (UNKNOWN): one span that
    cannot be written (a value past the JSON encoder's depth) never costs its batch."""
    encode = to_otlp_json if encoding == "json" else to_otlp_proto
    try:
        return encode(spans), list(spans), []
    except Exception:
        pass
    kept: list[Span] = []
    dropped: list[DroppedSpan] = []
    for span in spans:
        try:
            encode([span])
        except Exception as exc:
            reason = f"could not be encoded ({type(exc).__name__})"
            dropped.append(unreadable_span(span, profile, reason))
        else:
            kept.append(span)
    return (encode(kept) if kept else b""), kept, dropped


def _compressed(data: bytes, wbits: int | None) -> bytes:
    if wbits == 31:
        return gzip.compress(data, compresslevel=6, mtime=0)
    if wbits == 15:
        return zlib.compress(data, 6)
    return data


# ---------------------------------------------------------------------------------------------
# Answers


def _status_body(encoding: Encoding | None, status: int, message: str) -> tuple[bytes, str]:
    """A `google.rpc.Status` in the request's encoding (plain text when it is not known)."""
    code = _RPC_CODES.get(status, 2)
    if encoding is None:
        return (message + "\n").encode("utf-8"), "text/plain; charset=utf-8"
    if encoding == "json":
        return orjson.dumps({"code": code, "message": message}), _MEDIA_TYPES["json"]
    text = message.encode("utf-8")
    body = b"\x08" + _varint(code) + b"\x12" + _varint(len(text)) + text
    return body, _MEDIA_TYPES["proto"]


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _export_response(encoding: Encoding, rejected: int, message: str) -> bytes:
    if encoding == "json":
        if not rejected and not message:
            return b"{}"
        partial: dict[str, Any] = {"rejectedSpans": str(rejected)}
        if message:
            partial["errorMessage"] = message
        return orjson.dumps({"partialSuccess": partial})
    response = ExportTraceServiceResponse()
    if rejected or message:
        response.partial_success.rejected_spans = rejected
        response.partial_success.error_message = message
    return bytes(response.SerializeToString())


def _upstream_partial(encoding: Encoding, body: bytes) -> tuple[int, str]:
    """The upstream's own `partial_success`, when its answer says one; (0, "") otherwise."""
    if not body:
        return 0, ""
    try:
        if encoding == "json":
            partial = orjson.loads(body).get("partialSuccess") or {}
            return int(partial.get("rejectedSpans", 0)), str(partial.get("errorMessage", ""))
        response = ExportTraceServiceResponse()
        response.ParseFromString(body)
        return response.partial_success.rejected_spans, response.partial_success.error_message
    except (DecodeError, orjson.JSONDecodeError, AttributeError, TypeError, ValueError):
        return 0, ""


def _upstream_message(body: bytes) -> str:
    """The message of the upstream's `Status` answer (protobuf or JSON), if it has one."""
    try:
        document = orjson.loads(body)
        if isinstance(document, dict) and isinstance(document.get("message"), str):
            return str(document["message"])[:300]
    except orjson.JSONDecodeError:
        pass
    # protobuf Status: field 2 (message) is length-delimited, after an optional code varint.
    view = body
    if view[:1] == b"\x08":
        i = 1
        while i < len(view) and view[i] & 0x80:
            i += 1
        view = view[i + 1 :]
    if view[:1] == b"\x12" and len(view) > 2 and view[1] < 0x80:
        return view[2 : 2 + view[1]].decode("utf-8", "replace")[:300]
    return ""


def _retry_after(headers: httpx.Headers) -> float | None:
    value = headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(when.timestamp() - time.time(), 0.0)
    return max(seconds, 0.0) if math.isfinite(seconds) else None


def _drop_kind(dropped: DroppedSpan) -> str:
    verdict = dropped.verdict
    detectors = sorted(
        {f"{f.category}/{f.detector}" for f in verdict.findings if f.severity == "error"}
    )
    if verdict.unreadable:
        detectors.append("unreadable")
    return f"{verdict.status.value} ({', '.join(detectors) or 'no detail'})"


def _drop_message(dropped: Sequence[DroppedSpan]) -> str:
    kinds: dict[str, int] = {}
    for span in dropped:
        kind = _drop_kind(span)
        kinds[kind] = kinds.get(kind, 0) + 1
    detail = "; ".join(f"{kind} ×{count}" for kind, count in kinds.items())
    noun = "span is" if len(dropped) == 1 else "spans are"
    return f"{len(dropped)} {noun} still not share-safe after redaction and not forwarded: {detail}"


# ---------------------------------------------------------------------------------------------
# Delivery


@dataclass(frozen=True, slots=True)
class _Delivered:
    body: bytes


class ProxyApp:
    """The ASGI application. Use it under uvicorn with `lifespan="on"` (the upstream client and
    the scrubbing thread are made at startup and closed at shutdown)."""

    def __init__(
        self,
        settings: ProxySettings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = ProxyMetrics(queue_capacity=settings.queue_size)
        self._profile = resolve_profile(settings.profile)
        self._known = known_secrets_of(settings.known_secrets)
        self._key = settings.pseudonym_key or secrets.token_bytes(32)
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._in_flight = 0
        self._hold_until = 0.0  # the upstream asked to wait until then (event-loop time)
        self._hold_throttles = False  # that pause came with a 429
        self._logged_kinds: set[str] = set()

    # -- lifecycle -----------------------------------------------------------------------------

    async def startup(self) -> None:
        if self._client is None:
            size = self.settings.queue_size
            self._client = httpx.AsyncClient(
                transport=self._transport,
                limits=httpx.Limits(
                    max_connections=size, max_keepalive_connections=size, keepalive_expiry=2.0
                ),
                timeout=httpx.Timeout(self.settings.upstream_timeout),
                follow_redirects=False,
            )
        if self._executor is None:
            self._executor = ThreadPoolExecutor(
                max_workers=self.settings.scrub_workers, thread_name_prefix="tracecheck-proxy"
            )

    async def shutdown(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    # -- ASGI ------------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path = scope["path"]
        method = scope["method"]
        if path == TRACES_PATH:
            if method != "POST":
                await _plain(send, 405, "use POST\n", {"allow": "POST"})
                return
            await self._traces(scope, receive, send)
        elif path == "/healthz" and method in ("GET", "HEAD"):
            await _plain(send, 200, "ok\n")
        elif path == "/metrics" and method in ("GET", "HEAD"):
            self.metrics.queue_depth = self._in_flight
            body = self.metrics.render().encode()
            await _answer(send, 200, body, "text/plain; version=0.0.4; charset=utf-8")
        else:
            await _plain(send, 404, f"no such path; traces go to POST {TRACES_PATH}\n")

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.startup()
                except Exception as exc:  # pragma: no cover - reported to the server
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _traces(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = _headers(scope)
        encoding = _CONTENT_TYPES.get(headers.get("content-type", "").split(";")[0].strip().lower())
        try:
            # The refused header is not repeated: a header holds whatever a client put there.
            if encoding is None:
                given = "is missing" if "content-type" not in headers else "is not supported"
                raise _Refusal(
                    415,
                    "unsupported_media_type",
                    f"the Content-Type {given}: send application/x-protobuf or application/json",
                )
            coding = headers.get("content-encoding", "identity").strip().lower() or "identity"
            if coding not in _CODINGS:
                raise _Refusal(
                    415,
                    "unsupported_media_type",
                    "the Content-Encoding is not supported (use gzip, deflate or identity)",
                )
            if self._in_flight >= self.settings.queue_size:
                raise _Refusal(
                    503,
                    "queue_full",
                    f"the proxy already holds {self.settings.queue_size} requests; retry later",
                    retry_after=max(1.0, self._hold_until - asyncio.get_running_loop().time()),
                )
            self._in_flight += 1
            try:
                status, body = await self._export(receive, headers, encoding, coding)
            finally:
                self._in_flight -= 1
        except _Refusal as refusal:
            self.metrics.add("tracecheck_proxy_requests_total", outcome=refusal.outcome)
            extra = {}
            if refusal.retry_after is not None:
                extra["retry-after"] = str(max(1, math.ceil(refusal.retry_after)))
            payload, media = _status_body(encoding, refusal.status, refusal.message)
            await _answer(send, refusal.status, payload, media, extra)
            return
        except _ClientGone:
            return
        await _answer(send, status, body, _MEDIA_TYPES[encoding])

    async def _export(
        self, receive: Receive, headers: Mapping[str, str], encoding: Encoding, coding: str
    ) -> tuple[int, bytes]:
        settings = self.settings
        loop = asyncio.get_running_loop()
        deadline = loop.time() + settings.upstream_timeout
        wbits = _CODINGS[coding]
        declared = _content_length(headers)
        body = await _read_body(receive, settings.max_body_bytes, wbits, declared, self.metrics)
        assert self._executor is not None, "the proxy was not started (lifespan)"
        try:
            batch = await loop.run_in_executor(self._executor, self._scrub, body, encoding, wbits)
        except TraceReadError as exc:
            raise _Refusal(400, "bad_request", str(exc)) from None
        except Exception as exc:
            # Fail closed: nothing of a batch that could not be scrubbed leaves. The message
            # names the error's type only; its text could quote span content.
            error = exc.error if isinstance(exc, _ScrubFailed) else type(exc).__name__
            log.error("a batch could not be scrubbed (%s); nothing was forwarded", error)
            raise _Refusal(
                500,
                "scrub_failed",
                f"the proxy could not scrub the batch ({error}); nothing was forwarded",
            ) from None
        del body
        self.metrics.add("tracecheck_proxy_spans_received_total", batch.received)
        message = ""
        if batch.dropped:
            self._note_drops(batch.dropped)
            message = _drop_message(batch.dropped)
        rejected = len(batch.dropped)
        if batch.payload is None:
            self.metrics.add("tracecheck_proxy_requests_total", outcome="nothing_to_forward")
            return 200, _export_response(encoding, rejected, message)
        try:
            if loop.time() >= deadline:
                raise _Refusal(
                    503,
                    "upstream_unavailable",
                    f"the proxy is busy: scrubbing the batch took past the "
                    f"{settings.upstream_timeout:g} s budget, so it was not sent; retry later",
                    retry_after=1.0,
                )
            delivered = await self._deliver(batch.payload, encoding, coding, deadline)
        except _Refusal as refusal:
            self.metrics.add(
                "tracecheck_proxy_spans_failed_total", batch.kept, reason=refusal.outcome
            )
            if message:
                refusal.message += f" ({message})"
            raise
        self.metrics.add("tracecheck_proxy_requests_total", outcome="forwarded")
        self.metrics.add("tracecheck_proxy_spans_forwarded_total", batch.kept)
        self.metrics.add("tracecheck_proxy_bytes_forwarded_total", len(batch.payload))
        upstream_rejected, upstream_message = _upstream_partial(encoding, delivered.body)
        if upstream_rejected or upstream_message:
            rejected += upstream_rejected
            note = f"the upstream rejected {upstream_rejected}: {upstream_message}".rstrip(": ")
            message = f"{message}; {note}" if message else note
        return 200, _export_response(encoding, rejected, message)

    def _scrub(self, body: bytes, encoding: Encoding, wbits: int | None) -> _Batch:
        spans, skipped = _parse(body, encoding)
        # A span that cannot be read, redacted or encoded is dropped alone, never its batch.
        isolated = scrub_batch(
            spans,
            profile=self._profile,
            known_secrets=self._known,
            pseudonym_key=self._key,
            scrub=scrub_spans,
        )
        if isolated.failed and len(isolated.failed) == len(spans):
            raise _ScrubFailed(isolated.failed[0].error)  # nothing could be scrubbed: a 500
        scrubbed = isolated.scrubbed
        dropped = [_skipped(item, self._profile) for item in skipped]
        dropped += isolated.dropped()
        payload = None
        kept: list[Span] = []
        if scrubbed.kept:
            data, kept, refused = _encodable(scrubbed.kept, encoding, self._profile)
            dropped += refused
            payload = _compressed(data, wbits) if kept else None
        return _Batch(len(spans) + len(skipped), len(kept), tuple(dropped), payload)

    def _note_drops(self, dropped: Sequence[DroppedSpan]) -> None:
        self.metrics.add("tracecheck_proxy_spans_dropped_unsafe_total", len(dropped))
        for span in dropped:
            kind = _drop_kind(span)
            if kind in self._logged_kinds or len(self._logged_kinds) >= _MAX_LOGGED_KINDS:
                continue
            self._logged_kinds.add(kind)
            log.warning(
                "span %s dropped: %s after redaction; further drops of this kind are counted "
                "in tracecheck_proxy_spans_dropped_unsafe_total, not logged",
                span.span_id or "(no id)",
                kind,
            )

    async def _deliver(
        self, payload: bytes, encoding: Encoding, coding: str, deadline: float
    ) -> _Delivered:
        """POST the batch upstream, retrying while the upstream certainly did not take it."""
        settings = self.settings
        client = self._client
        assert client is not None, "the proxy was not started (lifespan)"
        headers = {"content-type": _MEDIA_TYPES[encoding]}
        if coding != "identity":
            headers["content-encoding"] = "gzip" if _CODINGS[coding] == 31 else "deflate"
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
                raise _Refusal(
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
                    settings.upstream_url,
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
                raise _Refusal(
                    500,
                    "upstream_unconfirmed",
                    f"the upstream did not answer after the batch was sent "
                    f"({type(exc).__name__}); it may hold the batch, so the proxy does not "
                    f"send it again and the exporter should not either",
                ) from None
            else:
                status = response.status_code
                if 200 <= status < 300:
                    return _Delivered(response.content)
                self.metrics.add(
                    "tracecheck_proxy_upstream_failures_total", reason=f"http_{status}"
                )
                if status not in RETRYABLE_STATUSES:
                    detail = _upstream_message(response.content)
                    reason = response.reason_phrase or "error"
                    kind = "redirects" if 300 <= status < 400 else "refuses the batch"
                    log.warning("the upstream %s: %d %s", kind, status, reason)
                    raise _Refusal(
                        500 if status < 400 else status,
                        "upstream_rejected",
                        f"the upstream {kind}: {status} {reason}"
                        + (f": {detail}" if detail else ""),
                    )
                last = f"{status} {response.reason_phrase}".strip()
                last_status = status
                hint = _retry_after(response.headers)
                if hint is not None and loop.time() + hint > self._hold_until:
                    # Every batch waits: the upstream asked for a pause, not one batch.
                    self._hold_until = loop.time() + hint
                    self._hold_throttles = status == 429
            backoff = min(settings.max_backoff, settings.first_backoff * 2 ** (attempt - 1))
            backoff *= random.uniform(0.8, 1.2)


def create_app(settings: ProxySettings, **kwargs: Any) -> ProxyApp:
    """The proxy's ASGI application for `settings`."""
    return ProxyApp(settings, **kwargs)


def _headers(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in scope.get("headers", ()):
        out[name.decode("latin-1").lower()] = value.decode("latin-1")
    return out


def _content_length(headers: Mapping[str, str]) -> int | None:
    value = headers.get("content-length")
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise _Refusal(400, "bad_request", "Content-Length is not a number") from None


async def _answer(
    send: Send,
    status: int,
    body: bytes,
    media_type: str,
    extra: Mapping[str, str] | None = None,
) -> None:
    headers = [
        (b"content-type", media_type.encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _plain(
    send: Send, status: int, text: str, extra: Mapping[str, str] | None = None
) -> None:
    await _answer(send, status, text.encode(), "text/plain; charset=utf-8", extra)
