"""The reference hosted-ingest receiver for trace spans (wire `2026-07-24.v1`), as an ASGI app.

`create_app(store, tenants, require_safe=None)` returns a plain ASGI callable; `tracecheck
ingest-server` runs it under uvicorn on a `SqliteSpanStore` (`redact.shipping.store`). What a
valid row is, and the envelope, are the wire's (`redact.shipping.wire`); tenants and their keys
are `redact.shipping.tenants`.

Routes
------
`POST /v1/ingest/traces`
    Headers: `Authorization: Bearer <key>`, `X-Tangle-Tenant-Id`, `X-Tangle-Wire-Version:
    2026-07-24.v1`, `Idempotency-Key` (required, 1–256 characters). Body:
    `{"wireVersion": "2026-07-24.v1", "spans": [TraceSpanEvent, ...]}`, `Content-Type`
    `application/json` or absent; no `Content-Encoding`.
    `200 {"accepted": int, "rejected": [{"index": int, "reason": str}]}`, rejected sorted by index.
`GET /v1/traces/<traceId>`
    Same auth headers (`X-Tangle-Wire-Version` optional, checked when present).
    `200 {"traceId": str, "spans": [TraceSpanEvent, ...]}` ordered by start time, or `404` when the
    tenant holds no span of that trace (another tenant's spans read as absent).
`GET /healthz`
    `200 {"status": "ok"}`, no auth.

Every error is `{"error": "<message>"}`.

Status codes (in the order they are checked)
--------------------------------------------
- `401` (with `WWW-Authenticate: Bearer`): no `Authorization: Bearer <key>`, a key that is no
  tenant's key, or the key of another tenant than `X-Tangle-Tenant-Id`. A caller without a valid
  key always gets 401, so unknown callers cannot probe which tenants exist.
- `404`: a valid key with a missing or unknown `X-Tangle-Tenant-Id`.
- `400`: `X-Tangle-Wire-Version` missing or not `2026-07-24.v1` (the message names the accepted
  version); `Idempotency-Key` missing, empty or over 256 characters.
- A request whose `Idempotency-Key` this tenant used in the last 24 hours gets the recorded
  response (status and body) at once, with `Idempotent-Replayed: true`; the body is not read.
  Only `200` answers are recorded: a request refused whole may be corrected and retried. A
  request whose key is in flight in this process waits for the first one's answer; across
  processes, the store looks the key up in the transaction that stores the batch, so one key
  stores its batch once however many requests carry it at the same time.
- `415`: a `Content-Type` other than JSON, or any `Content-Encoding`.
- `413`: a body over `max_body_bytes` (by `Content-Length`, or while reading).
- `400` for the request as a whole: the body is not JSON, not an object, has a field other than
  `wireVersion` and `spans`, a `wireVersion` other than `2026-07-24.v1`, or `spans` is not a list.
- `200` with per-row rejections `{index, reason}` for everything about one span: a row that is
  not a valid `TraceSpanEvent`, a row the share-safety gate refuses, a row whose identity is
  already stored with a different payload. The other rows are stored. An exact duplicate (the
  same canonical payload) counts as accepted.
- `503` (with `Retry-After: 1`) when the store is busy or unavailable, `500` for any other store
  failure: in both cases nothing of the batch is stored and nothing is recorded for its key.
- `404` for another path, `405` (with `Allow`) for another method.

Every reason and error names places and types, never a value, an attribute key, an unknown
field's name or a header's value: any of them may hold a secret, and the answer may end up in a
log. The share-safety gate (`require_safe`) reads each row as a `tracecheck` span
(`tracecheck.readers.flat`) and assesses it alone; an `UNSAFE` or `UNKNOWN` row is refused with
the categories, detectors and pointers of its findings (`redact.held_back`). Nothing logged
names a key or a span value.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from redact.held_back import reason_places
from redact.model import share_allowed
from redact.profiles import Profile
from redact.shipping.http import (
    BodyTimeout,
    ClientGone,
    Receive,
    Scope,
    Send,
    content_length,
    next_chunk,
    request_headers,
    send_answer,
    serve_lifespan,
)
from redact.shipping.store import RecordedResponse, RowOutcome, SpanRow, SpanStore, StoreUnavailable
from redact.shipping.tenants import Tenants
from redact.shipping.wire import (
    INGEST_PATH,
    MAX_IDEMPOTENCY_KEY_CHARS,
    READ_PATH,
    WIRE_VERSION,
    InvalidRequest,
    envelope_spans,
    is_hex,
    validate_span,
    version_message,
)
from redact.spans import assess_spans
from tracecheck.errors import TraceReadError
from tracecheck.readers.common import ReadContext
from tracecheck.readers.flat import spans_from_rows

__all__ = ["DEFAULT_BODY_TIMEOUT", "DEFAULT_MAX_BODY_BYTES", "IngestApp", "create_app"]

DEFAULT_MAX_BODY_BYTES: Final = 10 * 1024 * 1024
DEFAULT_BODY_TIMEOUT: Final = 30.0  # seconds for a whole body, however it trickles in

# The logger's name predates the shipping package; operators' logging configuration names it.
log = logging.getLogger("redact.ingest_server")


def _gate_reason(row: dict[str, Any], profile: Profile) -> str | None:
    """Why the share-safety gate refuses a row, or None when it passes."""
    try:
        spans = list(spans_from_rows([row], ReadContext("request"), "spans"))
    except TraceReadError as exc:
        return f"share-safety gate: the span cannot be read: {exc.reason}"
    verdict = assess_spans(spans, profile=profile)
    if share_allowed(verdict):
        return None
    return f"share-safety gate: {verdict.status.value} under profile {profile.name}: " + "; ".join(
        reason_places(verdict)
    )


@dataclass(frozen=True, slots=True)
class _Response:
    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


def _json(status: int, document: Any, *headers: tuple[str, str]) -> _Response:
    return _Response(status, orjson.dumps(document), headers)


def _error(status: int, message: str, *headers: tuple[str, str]) -> _Response:
    return _json(status, {"error": message}, *headers)


_REPLAYED = ("idempotent-replayed", "true")


class IngestApp:
    """The ASGI application. Store calls and the gate run in worker threads, so the event loop
    stays free (and `/healthz` answers) while a batch is assessed and committed."""

    def __init__(
        self,
        store: SpanStore,
        tenants: Tenants,
        *,
        require_safe: Profile | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        body_timeout: float = DEFAULT_BODY_TIMEOUT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.tenants = tenants
        self.require_safe = require_safe
        self.max_body_bytes = max_body_bytes
        self.body_timeout = body_timeout
        self.clock = clock
        # (tenant, key) → done when the request carrying it has been answered.
        self._in_flight: dict[tuple[str, str], asyncio.Event] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await serve_lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        try:
            response = await self._route(scope, receive)
        except ClientGone:
            return
        except Exception as exc:  # never a traceback with request data to the client
            log.error("request failed: %s", type(exc).__name__)
            response = _error(500, "the server failed to handle the request")
        await send_answer(
            send, response.status, response.body, "application/json", response.headers
        )

    async def _route(self, scope: Scope, receive: Receive) -> _Response:
        method, path = scope["method"], scope["path"]
        # Paths and methods are named by the route, never as sent (a path may hold anything).
        if path == "/healthz":
            if method not in ("GET", "HEAD"):
                return _error(405, "use GET on /healthz", ("allow", "GET"))
            return _json(200, {"status": "ok"})
        if path == INGEST_PATH:
            if method != "POST":
                return _error(405, f"use POST on {INGEST_PATH}", ("allow", "POST"))
            return await self._ingest(scope, receive)
        if path.startswith(READ_PATH) and "/" not in path[len(READ_PATH) :]:
            if method not in ("GET", "HEAD"):
                return _error(405, f"use GET on {READ_PATH}<traceId>", ("allow", "GET"))
            return await self._get_trace(scope, path[len(READ_PATH) :])
        return _error(
            404, f"no such route: POST {INGEST_PATH}, GET {READ_PATH}<traceId>, GET /healthz"
        )

    def _tenant(self, headers: Mapping[str, str]) -> str | _Response:
        auth = headers.get("authorization", "")
        scheme, _, token = auth.partition(" ")
        # Header values were decoded as latin-1: encoding back gives the bytes that were sent.
        key = token.strip().encode("latin-1") if scheme.lower() == "bearer" else None
        outcome = self.tenants.authenticate(key, headers.get("x-tangle-tenant-id"))
        if isinstance(outcome, str):
            return outcome
        status, message = outcome
        extra = (("www-authenticate", "Bearer"),) if status == 401 else ()
        return _error(status, message, *extra)

    async def _ingest(self, scope: Scope, receive: Receive) -> _Response:
        headers = request_headers(scope)
        tenant = self._tenant(headers)
        if isinstance(tenant, _Response):
            return tenant
        version = headers.get("x-tangle-wire-version")
        if version != WIRE_VERSION:
            return _error(400, version_message("X-Tangle-Wire-Version", version))
        key = headers.get("idempotency-key")
        if not key or len(key) > MAX_IDEMPOTENCY_KEY_CHARS:
            state = "missing" if key is None else "empty" if not key else "too long"
            return _error(
                400,
                f"Idempotency-Key is {state}: send 1 to {MAX_IDEMPOTENCY_KEY_CHARS} characters, "
                "the same on every retry",
            )
        # One request per key at a time in this process: a duplicate sent while the first is
        # in flight waits, then finds its recorded answer (the store settles other processes).
        slot = (tenant, key)
        while True:
            pending = self._in_flight.get(slot)
            if pending is not None:
                await pending.wait()
                continue
            recorded = await asyncio.to_thread(
                self.store.recorded_response, tenant, key, self.clock()
            )
            if recorded is not None:
                log.info("tenant %s: replayed the response recorded for its key", tenant)
                return _Response(recorded.status, recorded.body, (_REPLAYED,))
            if slot not in self._in_flight:  # no other waiter took the key meanwhile
                break
        done = self._in_flight[slot] = asyncio.Event()
        try:
            return await self._ingest_body(scope, receive, headers, tenant, key)
        finally:
            del self._in_flight[slot]
            done.set()

    async def _ingest_body(
        self, scope: Scope, receive: Receive, headers: Mapping[str, str], tenant: str, key: str
    ) -> _Response:
        refused = _content_refusal(headers)
        if refused is not None:
            return refused
        try:
            body = await self._read_body(receive, headers)
        except BodyTimeout:
            return _error(408, f"the body did not arrive within {self.body_timeout:g} s")
        if body is None:
            return _error(413, f"the body is over the limit of {self.max_body_bytes} bytes")
        try:
            spans = envelope_spans(body)
        except InvalidRequest as exc:
            return _error(400, str(exc))
        try:
            response, replayed = await asyncio.to_thread(self._store, tenant, key, spans)
        except StoreUnavailable as exc:
            log.error("tenant %s: the store is unavailable: %s", tenant, exc)
            return _error(
                503,
                "the store is unavailable; nothing of this batch is stored: retry",
                ("retry-after", "1"),
            )
        except Exception as exc:
            log.error("tenant %s: the store failed: %s", tenant, type(exc).__name__)
            return _error(500, "the store failed; nothing of this batch is stored")
        if replayed:
            log.info("tenant %s: replayed the response recorded for its key", tenant)
            return _Response(response.status, response.body, (_REPLAYED,))
        return _Response(response.status, response.body)

    async def _read_body(self, receive: Receive, headers: Mapping[str, str]) -> bytes | None:
        """The body, or None as soon as it is known to be over the limit."""
        limit = self.max_body_bytes
        try:
            declared = content_length(headers)
        except ValueError:
            declared = None
        if declared is not None and declared > limit:
            return None
        deadline = time.monotonic() + self.body_timeout
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            chunk, more = await next_chunk(receive, max(deadline - time.monotonic(), 0.0))
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
        return b"".join(chunks)

    def _store(self, tenant: str, key: str, spans: Sequence[Any]) -> tuple[RecordedResponse, bool]:
        rejected: list[tuple[int, str]] = []
        valid: list[tuple[int, SpanRow]] = []
        for index, row in enumerate(spans):
            try:
                event = validate_span(row)
            except ValueError as exc:
                rejected.append((index, str(exc)))
                continue
            if self.require_safe is not None:
                reason = _gate_reason(event, self.require_safe)
                if reason is not None:
                    rejected.append((index, reason))
                    continue
            valid.append((index, SpanRow.of(event)))

        def answer(outcomes: list[RowOutcome]) -> RecordedResponse:
            accepted = 0
            refused = list(rejected)
            for (index, _), outcome in zip(valid, outcomes, strict=True):
                if outcome.accepted:
                    accepted += 1
                else:
                    refused.append((index, outcome.reason or "refused by the store"))
            refused.sort()
            log.info(
                "tenant %s: %d spans, %d accepted, %d rejected",
                tenant,
                len(spans),
                accepted,
                len(refused),
            )
            document = {
                "accepted": accepted,
                "rejected": [{"index": index, "reason": reason} for index, reason in refused],
            }
            return RecordedResponse(200, orjson.dumps(document))

        rows = [row for _, row in valid]
        return self.store.store_batch_once(tenant, rows, key, self.clock(), answer)

    async def _get_trace(self, scope: Scope, trace_id: str) -> _Response:
        headers = request_headers(scope)
        tenant = self._tenant(headers)
        if isinstance(tenant, _Response):
            return tenant
        version = headers.get("x-tangle-wire-version")
        if version is not None and version != WIRE_VERSION:
            return _error(400, version_message("X-Tangle-Wire-Version", version))
        if not is_hex(trace_id, 32):
            return _error(400, "the trace id is not 32 hex digits")
        trace_id = trace_id.lower()
        payloads = await asyncio.to_thread(self.store.spans_of_trace, tenant, trace_id)
        if not payloads:
            return _error(404, f"trace {trace_id} is not stored")
        spans = b",".join(payload.encode() for payload in payloads)
        return _Response(200, b'{"traceId":"' + trace_id.encode() + b'","spans":[' + spans + b"]}")


def create_app(store: SpanStore, tenants: Tenants, **options: Any) -> IngestApp:
    """The receiver over `store` for `tenants` (options as `IngestApp` takes them;
    `require_safe` turns on the share-safety gate)."""
    return IngestApp(store, tenants, **options)


def _content_refusal(headers: Mapping[str, str]) -> _Response | None:
    content_type = headers.get("content-type")
    if content_type is not None:
        media = content_type.split(";", 1)[0].strip().lower()
        if media != "application/json" and not media.endswith("+json"):
            return _error(415, "the Content-Type is not accepted: send JSON")
    encoding = headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        return _error(415, "the Content-Encoding is not accepted: send the body uncompressed")
    return None
