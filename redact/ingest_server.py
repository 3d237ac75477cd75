"""The reference hosted-ingest receiver for trace spans (wire `2026-07-24.v1`), as an ASGI app.

`create_app(store, tenants, require_safe=None)` returns a plain ASGI callable; `tracecheck
ingest-server` runs it under uvicorn on a `SqliteSpanStore`.

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
  Only `200` answers are recorded: a request refused whole may be corrected and retried.
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

A row (`TraceSpanEvent`) is valid when
--------------------------------------
- `traceId` is 32 and `spanId` 16 hex digits, not all zero; `parentSpanId`, when present, 16 hex
  digits (an empty string reads as absent). Upper-case hex is accepted and stored lower-case.
- `name` is a string; `startTimeUnixNano`, `endTimeUnixNano` and each event's `timeUnixNano` are
  canonical unsigned 64-bit base-10 strings (`0` or no leading zero, at most 2^64-1), and the end
  is not before the start (an end of `0`, OTLP's "not recorded", is accepted).
- `attributes` is an object whose values are strings, finite numbers or booleans (nested values
  must be flattened to JSON strings by the client); keys are non-empty.
- `events`, when present, is a list of `{timeUnixNano, name, attributes?}`; `status`, when
  present, `{code: "OK" | "ERROR" | "UNSET", message?: string}`.
- Optional pivots: `tangle.runId`, `tangle.cellId`, `tangle.scenarioId` (strings),
  `tangle.generation` (a number).
- No other field, at any level: a field outside the spec is refused rather than dropped.

Reasons, and every error, name places (a field the wire defines, an entry's position) and types,
never a value, an attribute key, an unknown field's name or a header's value: any of them may
hold a secret, and the answer may end up in a log. The share-safety gate (`require_safe`)
reads each row as a `tracecheck` span (`tracecheck.readers.flat`) and assesses it alone; an
`UNSAFE` or `UNKNOWN` row is refused with the categories, detectors and pointers of its findings.

Tenants are `tenant id → sha256 of the key` (`sha256:<64 hex>`): keys are never held in clear,
and a presented key is hashed and compared in constant time with every tenant's hash. Nothing
logged names a key or a span value.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import math
import os
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import yaml

from redact.ingest_store import RecordedResponse, SpanRow, SpanStore, StoreUnavailable
from redact.model import ShareVerdict, share_allowed
from redact.profiles import Profile
from redact.spans import assess_spans
from tracecheck.errors import ContractError, TraceReadError
from tracecheck.naming import a_json_type
from tracecheck.readers import deep_json
from tracecheck.readers.common import ReadContext
from tracecheck.readers.flat import spans_from_rows
from tracecheck.yaml12 import load_yaml

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "INGEST_PATH",
    "MAX_IDEMPOTENCY_KEY_CHARS",
    "TRACES_PATH",
    "WIRE_VERSION",
    "IngestApp",
    "TenantError",
    "Tenants",
    "create_app",
    "key_hash",
    "validate_span",
]

WIRE_VERSION = "2026-07-24.v1"
INGEST_PATH = "/v1/ingest/traces"
TRACES_PATH = "/v1/traces/"
DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024
MAX_IDEMPOTENCY_KEY_CHARS = 256

log = logging.getLogger("redact.ingest_server")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_U64_MAX = 2**64 - 1
_CANONICAL_U64 = re.compile(r"0|[1-9][0-9]{0,19}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_STATUS_CODES = ("OK", "ERROR", "UNSET")
_PIVOTS_STR = ("tangle.runId", "tangle.cellId", "tangle.scenarioId")
_SPAN_FIELDS = frozenset(
    {
        "traceId",
        "spanId",
        "parentSpanId",
        "name",
        "startTimeUnixNano",
        "endTimeUnixNano",
        "attributes",
        "events",
        "status",
        "tangle.generation",
        *_PIVOTS_STR,
    }
)
_EVENT_FIELDS = frozenset({"timeUnixNano", "name", "attributes"})
_STATUS_FIELDS = frozenset({"code", "message"})
_ENVELOPE_FIELDS = frozenset({"wireVersion", "spans"})
_HASH_PREFIX = "sha256:"


# --------------------------------------------------------------------------- tenants


class TenantError(ValueError):
    """The tenants file or environment is wrong; the message says where and how."""


def key_hash(key: str) -> str:
    """The form a tenants file holds for a key: `sha256:<hex>`."""
    return _HASH_PREFIX + hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class Tenants:
    """Tenant id → SHA-256 digest of its key."""

    digests: Mapping[str, bytes] = field(default_factory=dict)

    @classmethod
    def single(cls, tenant_id: str, key: str) -> Tenants:
        if not tenant_id or not key:
            raise TenantError("a tenant needs a non-empty id and key")
        return cls({tenant_id: hashlib.sha256(key.encode()).digest()})

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Tenants:
        """One tenant from `TENANT_ID` and `TENANT_KEY`."""
        env = os.environ if environ is None else environ
        tenant_id, key = env.get("TENANT_ID", ""), env.get("TENANT_KEY", "")
        if not tenant_id or not key:
            missing = [name for name in ("TENANT_ID", "TENANT_KEY") if not env.get(name)]
            raise TenantError(
                f"no tenants: pass --tenants FILE or set TENANT_ID and TENANT_KEY "
                f"({' and '.join(missing)} unset or empty)"
            )
        return cls.single(tenant_id, key)

    @classmethod
    def from_file(cls, path: str | Path) -> Tenants:
        """A YAML or JSON mapping `tenant id: "sha256:<64 hex>"`."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise TenantError(f"{path}: cannot read: {reason}") from None
        try:
            document = load_yaml(text)
        except ContractError as exc:  # a tenant written twice
            raise TenantError(f"{path}: {exc.problems[0]}") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            raise TenantError(f"{path}: not YAML or JSON{where}") from None
        return cls.from_mapping(document, str(path))

    @classmethod
    def from_mapping(cls, document: Any, source: str = "tenants") -> Tenants:
        if not isinstance(document, dict) or not document:
            raise TenantError(f"{source}: is not a mapping of tenant id to key hash")
        digests: dict[str, bytes] = {}
        problems: list[str] = []
        for tenant_id, value in document.items():
            if not isinstance(tenant_id, str) or not tenant_id:
                problems.append(f"a tenant id is {a_json_type(tenant_id)}, not a non-empty string")
                continue
            digest = _digest_of(value)
            if digest is None:
                problems.append(
                    f'tenant "{tenant_id}": the key hash is not "sha256:" and 64 hex digits'
                )
                continue
            digests[tenant_id] = digest
        if problems:
            raise TenantError(f"{source}: " + "; ".join(problems))
        return cls(digests)

    def __len__(self) -> int:
        return len(self.digests)

    def authenticate(self, key: str | bytes | None, tenant_id: str | None) -> tuple[int, str] | str:
        """The tenant id, or `(status, message)` refusing the request. A `str` key is hashed as
        UTF-8, `bytes` (a header value as it came) as they are."""
        if not key:
            return 401, "Authorization: Bearer <key> is required"
        presented = hashlib.sha256(key.encode() if isinstance(key, str) else key).digest()
        owners = [t for t, digest in self.digests.items() if hmac.compare_digest(digest, presented)]
        if not owners:
            return 401, "the bearer token is not a valid key"
        if not tenant_id:
            return 404, "X-Tangle-Tenant-Id is required"
        if tenant_id not in self.digests:
            return 404, "X-Tangle-Tenant-Id names no known tenant"
        if tenant_id not in owners:
            return 401, "the bearer token is not the key of the tenant X-Tangle-Tenant-Id names"
        return tenant_id


def _digest_of(value: Any) -> bytes | None:
    if not isinstance(value, str) or not value.startswith(_HASH_PREFIX):
        return None
    hex_digest = value[len(_HASH_PREFIX) :]
    if len(hex_digest) != 64 or not _HEX.fullmatch(hex_digest):
        return None
    return bytes.fromhex(hex_digest)


# --------------------------------------------------------------------------- validation


class _Invalid(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason


def validate_span(row: Any) -> dict[str, Any]:
    """The row as it is stored (ids lower-case, an empty `parentSpanId` dropped), or
    ValueError with the reason it is not a `TraceSpanEvent`."""
    try:
        return _span(row)
    except _Invalid as exc:
        raise ValueError(exc.reason) from None


def _span(row: Any) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise _Invalid(f"the span is {a_json_type(row)}, not an object")
    _only(row, _SPAN_FIELDS, "")
    out = dict(row)
    out["traceId"] = _hex_id(row, "traceId", 16)
    out["spanId"] = _hex_id(row, "spanId", 8)
    if row.get("parentSpanId") == "":
        del out["parentSpanId"]
    elif "parentSpanId" in row:
        out["parentSpanId"] = _hex_id(row, "parentSpanId", 8)
    _string(row, "name", "name")
    start = _u64(row, "startTimeUnixNano", "startTimeUnixNano")
    end = _u64(row, "endTimeUnixNano", "endTimeUnixNano")
    if 0 < end < start:  # 0 is OTLP's "not recorded"
        raise _Invalid("endTimeUnixNano is before startTimeUnixNano")
    if "attributes" not in row:
        raise _Invalid("attributes is missing")
    _attributes(row["attributes"], "attributes")
    if "events" in row:
        _events(row["events"])
    if "status" in row:
        _status(row["status"])
    for pivot in _PIVOTS_STR:
        if pivot in row:
            _string(row, pivot, pivot)
    if "tangle.generation" in row and not _is_number(row["tangle.generation"]):
        raise _Invalid(
            f"tangle.generation is {a_json_type(row['tangle.generation'])}, not a number"
        )
    return out


def _only(obj: dict[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sum(1 for name in obj if name not in allowed)
    if unknown:
        place = f"{where} has" if where else "the span has"
        raise _Invalid(f"{place} {_fields(unknown)} the wire does not define")


def _fields(count: int) -> str:
    """`a field`, `3 fields`: unknown fields are counted, never named (a name is input)."""
    return "a field" if count == 1 else f"{count} fields"


def _hex_id(row: dict[str, Any], name: str, size: int) -> str:
    if name not in row:
        raise _Invalid(f"{name} is missing")
    raw = row[name]
    if not isinstance(raw, str):
        raise _Invalid(f"{name} is {a_json_type(raw)}, not a string")
    if len(raw) != 2 * size or not _HEX.fullmatch(raw):
        raise _Invalid(f"{name} is not {2 * size} hex digits")
    if not raw.strip("0"):
        raise _Invalid(f"{name} is all zeros")
    return raw.lower()


def _string(obj: dict[str, Any], name: str, where: str) -> str:
    if name not in obj:
        raise _Invalid(f"{where} is missing")
    value = obj[name]
    if not isinstance(value, str):
        raise _Invalid(f"{where} is {a_json_type(value)}, not a string")
    return value


def _u64(obj: dict[str, Any], name: str, where: str) -> int:
    if name not in obj:
        raise _Invalid(f"{where} is missing")
    value = obj[name]
    if not isinstance(value, str):
        raise _Invalid(f"{where} is {a_json_type(value)}, not a base-10 string")
    if not _CANONICAL_U64.fullmatch(value) or int(value) > _U64_MAX:
        raise _Invalid(f"{where} is not a canonical unsigned 64-bit base-10 string")
    return int(value)


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def _attributes(raw: Any, where: str) -> None:
    if not isinstance(raw, dict):
        raise _Invalid(f"{where} is {a_json_type(raw)}, not an object")
    for number, (key, value) in enumerate(raw.items(), 1):
        if not key:
            raise _Invalid(f"{where} has an empty key")
        if not (isinstance(value, str | bool) or _is_number(value)):
            # By position: an attribute key may hold a secret (the gate renames such keys).
            raise _Invalid(
                f"{where}: the value of entry {number} is {a_json_type(value)}, "
                "not a string, number or boolean"
            )


def _events(raw: Any) -> None:
    if not isinstance(raw, list):
        raise _Invalid(f"events is {a_json_type(raw)}, not a list")
    for index, event in enumerate(raw):
        where = f"events[{index}]"
        if not isinstance(event, dict):
            raise _Invalid(f"{where} is {a_json_type(event)}, not an object")
        _only(event, _EVENT_FIELDS, where)
        _u64(event, "timeUnixNano", f"{where}.timeUnixNano")
        _string(event, "name", f"{where}.name")
        if "attributes" in event:
            _attributes(event["attributes"], f"{where}.attributes")


def _status(raw: Any) -> None:
    if not isinstance(raw, dict):
        raise _Invalid(f"status is {a_json_type(raw)}, not an object")
    _only(raw, _STATUS_FIELDS, "status")
    code = raw.get("code")
    if code not in _STATUS_CODES:
        shown = "missing" if "code" not in raw else f"not one of {', '.join(_STATUS_CODES)}"
        raise _Invalid(f"status.code is {shown}")
    if "message" in raw:
        _string(raw, "message", "status.message")


# --------------------------------------------------------------------------- the gate


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
        _findings(verdict)
    )


def _findings(verdict: ShareVerdict) -> Iterable[str]:
    for finding in verdict.findings:
        if finding.severity != "error":
            continue
        paths = ", ".join(_pointer(path) for path in finding.paths)
        yield f"{finding.category} ({finding.detector}) at {paths}"
    for entry in verdict.unreadable:
        yield f"unreadable {_pointer(entry)}"


def _pointer(path: str) -> str:
    """`span:<id>/attributes/x` → `/attributes/x`: the span is the row already named."""
    if path.startswith("span:"):
        slash = path.find("/")
        return path[slash:] if slash >= 0 else "/"
    return path


# --------------------------------------------------------------------------- the app


@dataclass(frozen=True, slots=True)
class _Response:
    status: int
    body: bytes
    headers: tuple[tuple[bytes, bytes], ...] = ()


def _json(status: int, document: Any, *headers: tuple[bytes, bytes]) -> _Response:
    return _Response(status, orjson.dumps(document), headers)


def _error(status: int, message: str, *headers: tuple[bytes, bytes]) -> _Response:
    return _json(status, {"error": message}, *headers)


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
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.tenants = tenants
        self.require_safe = require_safe
        self.max_body_bytes = max_body_bytes
        self.clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        try:
            response = await self._route(scope, receive)
        except Exception as exc:  # never a traceback with request data to the client
            log.error("request failed: %s", type(exc).__name__)
            response = _error(500, "the server failed to handle the request")
        await _send(send, response)

    async def _route(self, scope: Scope, receive: Receive) -> _Response:
        method, path = scope["method"], scope["path"]
        # Paths and methods are named by the route, never as sent (a path may hold anything).
        if path == "/healthz":
            if method not in ("GET", "HEAD"):
                return _error(405, "use GET on /healthz", (b"allow", b"GET"))
            return _json(200, {"status": "ok"})
        if path == INGEST_PATH:
            if method != "POST":
                return _error(405, f"use POST on {INGEST_PATH}", (b"allow", b"POST"))
            return await self._ingest(scope, receive)
        if path.startswith(TRACES_PATH) and "/" not in path[len(TRACES_PATH) :]:
            if method not in ("GET", "HEAD"):
                return _error(405, f"use GET on {TRACES_PATH}<traceId>", (b"allow", b"GET"))
            return await self._get_trace(scope, path[len(TRACES_PATH) :])
        return _error(
            404, f"no such route: POST {INGEST_PATH}, GET {TRACES_PATH}<traceId>, GET /healthz"
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
        extra = ((b"www-authenticate", b"Bearer"),) if status == 401 else ()
        return _error(status, message, *extra)

    async def _ingest(self, scope: Scope, receive: Receive) -> _Response:
        headers = _headers(scope)
        tenant = self._tenant(headers)
        if isinstance(tenant, _Response):
            return tenant
        version = headers.get("x-tangle-wire-version")
        if version != WIRE_VERSION:
            return _error(400, _version_message("X-Tangle-Wire-Version", version))
        key = headers.get("idempotency-key")
        if not key or len(key) > MAX_IDEMPOTENCY_KEY_CHARS:
            state = "missing" if key is None else "empty" if not key else "too long"
            return _error(
                400,
                f"Idempotency-Key is {state}: send 1 to {MAX_IDEMPOTENCY_KEY_CHARS} characters, "
                "the same on every retry",
            )
        recorded = await asyncio.to_thread(self.store.recorded_response, tenant, key, self.clock())
        if recorded is not None:
            log.info("tenant %s: replayed the response recorded for its key", tenant)
            return _Response(recorded.status, recorded.body, ((b"idempotent-replayed", b"true"),))
        refused = _content_refusal(headers)
        if refused is not None:
            return refused
        body = await _read_body(scope, receive, headers, self.max_body_bytes)
        if body is None:
            return _error(413, f"the body is over the limit of {self.max_body_bytes} bytes")
        spans = _envelope(body)
        if isinstance(spans, _Response):
            return spans
        try:
            response = await asyncio.to_thread(self._store, tenant, spans)
        except StoreUnavailable as exc:
            log.error("tenant %s: the store is unavailable: %s", tenant, exc)
            return _error(
                503,
                "the store is unavailable; nothing of this batch is stored: retry",
                (b"retry-after", b"1"),
            )
        except Exception as exc:
            log.error("tenant %s: the store failed: %s", tenant, type(exc).__name__)
            return _error(500, "the store failed; nothing of this batch is stored")
        recorded = RecordedResponse(response.status, response.body)
        try:
            await asyncio.to_thread(
                self.store.remember_response, tenant, key, recorded, self.clock()
            )
        except Exception as exc:  # the batch is stored: answer; a retry finds duplicates
            log.warning("tenant %s: the response was not recorded: %s", tenant, type(exc).__name__)
        return response

    def _store(self, tenant: str, spans: Sequence[Any]) -> _Response:
        rejected: list[tuple[int, str]] = []
        valid: list[tuple[int, SpanRow]] = []
        for index, row in enumerate(spans):
            try:
                event = _span(row)
            except _Invalid as exc:
                rejected.append((index, exc.reason))
                continue
            if self.require_safe is not None:
                reason = _gate_reason(event, self.require_safe)
                if reason is not None:
                    rejected.append((index, reason))
                    continue
            valid.append((index, SpanRow.of(event)))
        outcomes = self.store.store_batch(tenant, [row for _, row in valid])
        accepted = 0
        for (index, _), outcome in zip(valid, outcomes, strict=True):
            if outcome.accepted:
                accepted += 1
            else:
                rejected.append((index, outcome.reason or "refused by the store"))
        rejected.sort()
        log.info(
            "tenant %s: %d spans, %d accepted, %d rejected",
            tenant,
            len(spans),
            accepted,
            len(rejected),
        )
        document = {
            "accepted": accepted,
            "rejected": [{"index": index, "reason": reason} for index, reason in rejected],
        }
        return _json(200, document)

    async def _get_trace(self, scope: Scope, trace_id: str) -> _Response:
        headers = _headers(scope)
        tenant = self._tenant(headers)
        if isinstance(tenant, _Response):
            return tenant
        version = headers.get("x-tangle-wire-version")
        if version is not None and version != WIRE_VERSION:
            return _error(400, _version_message("X-Tangle-Wire-Version", version))
        if len(trace_id) != 32 or not _HEX.fullmatch(trace_id):
            return _error(400, "the trace id is not 32 hex digits")
        trace_id = trace_id.lower()
        payloads = await asyncio.to_thread(self.store.spans_of_trace, tenant, trace_id)
        if not payloads:
            return _error(404, f"trace {trace_id} is not stored")
        spans = b",".join(payload.encode() for payload in payloads)
        return _Response(200, b'{"traceId":"' + trace_id.encode() + b'","spans":[' + spans + b"]}")


def create_app(
    store: SpanStore,
    tenants: Tenants,
    *,
    require_safe: Profile | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    clock: Callable[[], float] = time.time,
) -> IngestApp:
    """The receiver over `store` for `tenants`; `require_safe` turns on the share-safety gate."""
    return IngestApp(
        store, tenants, require_safe=require_safe, max_body_bytes=max_body_bytes, clock=clock
    )


def _version_message(where: str, got: Any) -> str:
    if got is None:
        return f"{where} is missing: this server accepts {WIRE_VERSION} only"
    if not isinstance(got, str):
        return f"{where} is {a_json_type(got)}: this server accepts {WIRE_VERSION} only"
    return f"{where} is not accepted: this server accepts {WIRE_VERSION} only"


def _headers(scope: Scope) -> dict[str, str]:
    """Lower-case names to values (latin-1, as HTTP carries them); the first of a repeated one."""
    out: dict[str, str] = {}
    for name, value in scope.get("headers", ()):
        out.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return out


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


async def _read_body(
    scope: Scope, receive: Receive, headers: Mapping[str, str], limit: int
) -> bytes | None:
    """The body, or None as soon as it is known to be over `limit` bytes."""
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _envelope(body: bytes) -> list[Any] | _Response:
    """The request's spans, or the 400 refusing the request whole."""
    try:
        # A row nested past the parser's depth is cut there and refused alone, not the batch.
        document = deep_json.loads(body)
    except orjson.JSONDecodeError as exc:
        return _error(
            400,
            f"the body is not JSON: {exc.msg.rstrip('.')} at line {exc.lineno}, column {exc.colno}",
        )
    if not isinstance(document, dict):
        return _error(400, f"the body is {a_json_type(document)}, not an object")
    unknown = sum(1 for name in document if name not in _ENVELOPE_FIELDS)
    if unknown:
        return _error(400, f"the body has {_fields(unknown)} the wire does not define")
    if document.get("wireVersion") != WIRE_VERSION:
        return _error(400, _version_message("wireVersion", document.get("wireVersion")))
    if "spans" not in document:
        return _error(400, "spans is missing")
    spans = document["spans"]
    if not isinstance(spans, list):
        return _error(400, f"spans is {a_json_type(spans)}, not a list")
    return spans


async def _send(send: Send, response: _Response) -> None:
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(response.body)).encode()),
        *response.headers,
    ]
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
