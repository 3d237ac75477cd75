"""The reference hosted-ingest receiver (`tracecheck ingest-server`, spec shipping.md §3)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from redact.profiles import resolve_profile
from redact.shipping import (
    INGEST_PATH,
    WIRE_VERSION,
    IngestApp,
    RecordedResponse,
    SpanRow,
    SqliteSpanStore,
    TenantError,
    Tenants,
    key_hash,
    validate_span,
)
from redact.shipping.ingest import create_app
from redact.shipping.store import IDEMPOTENCY_WINDOW_SECONDS, RowOutcome
from tracecheck.cli import main

# Fake keys, assembled at run time.
KEY_ACME = "acme-" + "dev-token-" + "0001"
KEY_GLOBEX = "globex-" + "dev-token-" + "0002"
FAKE_PROVIDER_KEY = "sk-" + "proj-" + "FAKEfake0123456789" + "FAKEfake0123"
TENANTS = Tenants.from_mapping({"acme": key_hash(KEY_ACME), "globex": key_hash(KEY_GLOBEX)})
KEYS = {"acme": KEY_ACME, "globex": KEY_GLOBEX}
TRACE = "0af7651916cd43dd8448eb211c80319c"
OTHER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
UNSET = object()


def span(span_id: str = "b7ad6b7169203331", /, **fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "traceId": TRACE,
        "spanId": span_id,
        "name": "execute_tool Bash",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000500000000",
        "attributes": {"gen_ai.tool.name": "Bash", "retries": 0, "ok": True},
    }
    row.update(fields)
    return row


class Clock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteSpanStore]:
    opened = SqliteSpanStore(tmp_path / "spans.db")
    yield opened
    opened.close()


@pytest.fixture
def app(store: SqliteSpanStore) -> IngestApp:
    return create_app(store, TENANTS)


_counter = iter(range(1_000_000))


def request(
    app: IngestApp,
    method: str,
    path: str,
    *,
    tenant: str | None = "acme",
    key: Any = UNSET,
    version: str | None = WIRE_VERSION,
    idempotency_key: Any = UNSET,
    json: Any = UNSET,
    content: Any = None,
    headers: dict[str, str | bytes] | None = None,
) -> httpx.Response:
    sent: dict[str, str | bytes] = {}
    key = KEYS.get(tenant or "acme", KEY_ACME) if key is UNSET else key
    if key is not None:
        sent["Authorization"] = f"Bearer {key}"
    if tenant is not None:
        sent["X-Tangle-Tenant-Id"] = tenant
    if version is not None:
        sent["X-Tangle-Wire-Version"] = version
    if method == "POST":
        if idempotency_key is UNSET:
            idempotency_key = f"request-{next(_counter)}"
        if idempotency_key is not None:
            sent["Idempotency-Key"] = idempotency_key
    sent.update(headers or {})
    raw = [(name.encode(), v if isinstance(v, bytes) else v.encode()) for name, v in sent.items()]

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://ingest.test") as client:
            if json is not UNSET:
                return await client.request(method, path, headers=raw, json=json)
            return await client.request(method, path, headers=raw, content=content)

    return asyncio.run(go())


def post(app: IngestApp, spans: Sequence[Any], **options: Any) -> httpx.Response:
    return request(
        app, "POST", INGEST_PATH, json={"wireVersion": WIRE_VERSION, "spans": spans}, **options
    )


def get_trace(app: IngestApp, trace_id: str = TRACE, **options: Any) -> httpx.Response:
    return request(app, "GET", f"/v1/traces/{trace_id}", **options)


def stored_ids(app: IngestApp, tenant: str = "acme", trace_id: str = TRACE) -> list[str]:
    response = get_trace(app, trace_id, tenant=tenant)
    if response.status_code == 404:
        return []
    assert response.status_code == 200, response.text
    return [row["spanId"] for row in response.json()["spans"]]


# --------------------------------------------------------------------------- routes


def test_healthz_needs_no_auth(app: IngestApp) -> None:
    response = request(app, "GET", "/healthz", tenant=None, key=None)
    assert (response.status_code, response.json()) == (200, {"status": "ok"})


def test_unknown_route_and_method(app: IngestApp) -> None:
    assert request(app, "GET", "/v1/nothing").json() == {
        "error": "no such route: POST /v1/ingest/traces, GET /v1/traces/<traceId>, GET /healthz"
    }
    response = request(app, "GET", INGEST_PATH)
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"


def test_accepts_a_batch(app: IngestApp) -> None:
    response = post(app, [span("b7ad6b7169203331"), span("b7ad6b7169203332")])
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"accepted": 2, "rejected": []}
    assert stored_ids(app) == ["b7ad6b7169203331", "b7ad6b7169203332"]


# --------------------------------------------------------------------------- auth


def test_no_authorization_is_401(app: IngestApp) -> None:
    response = post(app, [span()], key=None)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json() == {"error": "Authorization: Bearer <key> is required"}


def test_not_bearer_is_401(app: IngestApp) -> None:
    response = post(app, [span()], key=None, headers={"Authorization": f"Basic {KEY_ACME}"})
    assert response.status_code == 401


def test_wrong_key_is_401(app: IngestApp) -> None:
    response = post(app, [span()], key="not-" + "a-key")
    assert response.status_code == 401
    assert response.json() == {"error": "the bearer token is not a valid key"}


def test_unknown_tenant_is_404(app: IngestApp) -> None:
    response = post(app, [span()], tenant="initech", key=KEY_ACME)
    assert response.status_code == 404
    assert response.json() == {"error": "X-Tangle-Tenant-Id names no known tenant"}
    response = post(app, [span()], tenant=None, key=KEY_ACME)
    assert response.status_code == 404
    assert response.json() == {"error": "X-Tangle-Tenant-Id is required"}


def test_unknown_tenant_without_a_valid_key_is_401(app: IngestApp) -> None:
    # A caller without a valid key cannot probe which tenants exist.
    assert post(app, [span()], tenant="initech", key="guess").status_code == 401


def test_another_tenants_key_is_401(app: IngestApp) -> None:
    response = post(app, [span()], tenant="acme", key=KEY_GLOBEX)
    assert response.status_code == 401
    assert response.json() == {
        "error": "the bearer token is not the key of the tenant X-Tangle-Tenant-Id names"
    }
    assert stored_ids(app) == []


def test_reads_need_auth(app: IngestApp) -> None:
    post(app, [span()])
    assert get_trace(app, key=None).status_code == 401
    assert get_trace(app, key="wrong").status_code == 401
    assert get_trace(app, tenant="initech", key=KEY_ACME).status_code == 404


# --------------------------------------------------------------------------- wire version


def test_wrong_wire_version_header_is_400_naming_the_accepted_one(app: IngestApp) -> None:
    response = post(app, [span()], version="2025-01-01.v1")
    assert response.status_code == 400
    assert response.json() == {
        "error": "X-Tangle-Wire-Version is not accepted: this server accepts 2026-07-24.v1 only"
    }
    response = post(app, [span()], version=None)
    assert response.json() == {
        "error": "X-Tangle-Wire-Version is missing: this server accepts 2026-07-24.v1 only"
    }


def test_wrong_body_wire_version_is_400(app: IngestApp) -> None:
    response = request(
        app, "POST", INGEST_PATH, json={"wireVersion": "2026-07-24.v2", "spans": [span()]}
    )
    assert response.status_code == 400
    assert response.json() == {
        "error": "wireVersion is not accepted: this server accepts 2026-07-24.v1 only"
    }
    response = request(app, "POST", INGEST_PATH, json={"spans": [span()]})
    assert response.json() == {
        "error": "wireVersion is missing: this server accepts 2026-07-24.v1 only"
    }
    assert stored_ids(app) == []


def test_get_with_a_wrong_wire_version_is_400(app: IngestApp) -> None:
    assert get_trace(app, version="1").status_code == 400


# --------------------------------------------------------------------------- the request whole


def test_malformed_json_is_400(app: IngestApp) -> None:
    response = request(app, "POST", INGEST_PATH, content=b'{"wireVersion": "2026-07-24.v1", ')
    assert response.status_code == 400
    assert response.json()["error"].startswith("the body is not JSON: ")
    assert "line 1, column" in response.json()["error"]


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ([span()], "the body is an array, not an object"),
        ({"wireVersion": WIRE_VERSION}, "spans is missing"),
        ({"wireVersion": WIRE_VERSION, "spans": {}}, "spans is an object, not a list"),
        (
            {"wireVersion": WIRE_VERSION, "spans": [], "events": []},
            "the body has a field the wire does not define",
        ),
    ],
)
def test_a_malformed_request_is_400(app: IngestApp, body: Any, error: str) -> None:
    response = request(app, "POST", INGEST_PATH, json=body)
    assert (response.status_code, response.json()) == (400, {"error": error})


def test_an_empty_batch_is_accepted(app: IngestApp) -> None:
    assert post(app, []).json() == {"accepted": 0, "rejected": []}


@pytest.mark.parametrize(
    ("key", "state"), [(None, "missing"), ("", "empty"), ("k" * 257, "too long")]
)
def test_idempotency_key_is_required(app: IngestApp, key: str | None, state: str) -> None:
    response = post(app, [span()], idempotency_key=key)
    assert response.status_code == 400
    assert response.json() == {
        "error": f"Idempotency-Key is {state}: send 1 to 256 characters, the same on every retry"
    }
    assert post(app, [span()], idempotency_key="k" * 256).status_code == 200


def test_body_over_the_limit_is_413(store: SqliteSpanStore) -> None:
    small = create_app(store, TENANTS, max_body_bytes=2000)
    rows = [span(f"{index + 1:016x}") for index in range(20)]
    response = post(small, rows)
    assert response.status_code == 413
    assert response.json() == {"error": "the body is over the limit of 2000 bytes"}
    assert stored_ids(small) == []
    assert post(small, rows[:2]).status_code == 200


def test_body_over_the_limit_without_content_length_is_413(store: SqliteSpanStore) -> None:
    small = create_app(store, TENANTS, max_body_bytes=2000)
    body = orjson.dumps({"wireVersion": WIRE_VERSION, "spans": [span()] * 20})

    async def chunks() -> Any:  # streamed: no Content-Length, the limit holds while reading
        for start in range(0, len(body), 500):
            yield body[start : start + 500]

    response = request(small, "POST", INGEST_PATH, content=chunks())
    assert response.status_code == 413


def test_other_content_types_are_415(app: IngestApp) -> None:
    body = orjson.dumps({"wireVersion": WIRE_VERSION, "spans": [span()]})
    response = request(
        app, "POST", INGEST_PATH, content=body, headers={"Content-Type": "application/x-protobuf"}
    )
    assert response.status_code == 415
    response = request(
        app,
        "POST",
        INGEST_PATH,
        content=body,
        headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
    )
    assert response.status_code == 415
    assert request(app, "POST", INGEST_PATH, content=body).status_code == 200  # no Content-Type


# --------------------------------------------------------------------------- rows


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        (7, "the span is a number, not an object"),
        (span(traceId="0af765"), "traceId is not 32 hex digits"),
        (span(traceId="0" * 32), "traceId is all zeros"),
        (span(spanId=12), "spanId is a number, not a string"),
        (span(spanId="zzzzzzzzzzzzzzzz"), "spanId is not 16 hex digits"),
        (span(parentSpanId=None), "parentSpanId is null, not a string"),
        ({k: v for k, v in span().items() if k != "name"}, "name is missing"),
        (
            span(startTimeUnixNano=1700000000000000000),
            "startTimeUnixNano is a number, not a base-10 string",
        ),
        (
            span(startTimeUnixNano="017"),
            "startTimeUnixNano is not a canonical unsigned 64-bit base-10 string",
        ),
        (
            span(endTimeUnixNano="18446744073709551616"),
            "endTimeUnixNano is not a canonical unsigned 64-bit base-10 string",
        ),
        (
            span(endTimeUnixNano="-1"),
            "endTimeUnixNano is not a canonical unsigned 64-bit base-10 string",
        ),
        (span(endTimeUnixNano="1"), "endTimeUnixNano is before startTimeUnixNano"),
        ({k: v for k, v in span().items() if k != "attributes"}, "attributes is missing"),
        (span(attributes=[]), "attributes is an array, not an object"),
        (
            span(attributes={"llm.input": {"role": "user"}}),
            "attributes: the value of entry 1 is an object, not a string, number or boolean",
        ),
        (
            span(attributes={"x": None}),
            "attributes: the value of entry 1 is null, not a string, number or boolean",
        ),
        (span(events={}), "events is an object, not a list"),
        (
            span(events=[{"name": "retry"}]),
            "events[0].timeUnixNano is missing",
        ),
        (
            span(events=[{"name": "retry", "timeUnixNano": "1", "attributes": {"a": [1]}}]),
            "events[0].attributes: the value of entry 1 is an array, "
            "not a string, number or boolean",
        ),
        (
            span(events=[{"name": "retry", "timeUnixNano": "1", "level": "x"}]),
            "events[0] has a field the wire does not define",
        ),
        (span(status={"code": "FAILED"}), "status.code is not one of OK, ERROR, UNSET"),
        (span(status={"message": "boom"}), "status.code is missing"),
        (span(status={"code": "ERROR", "message": 5}), "status.message is a number, not a string"),
        (span(kind=3), "the span has a field the wire does not define"),
        (span(**{"tangle.runId": 5}), "tangle.runId is a number, not a string"),
        (span(**{"tangle.generation": "2"}), "tangle.generation is a string, not a number"),
    ],
)
def test_an_invalid_row_is_rejected_with_its_reason(app: IngestApp, row: Any, reason: str) -> None:
    response = post(app, [span("b7ad6b7169203331"), row, span("b7ad6b7169203333")])
    assert response.status_code == 200
    assert response.json() == {"accepted": 2, "rejected": [{"index": 1, "reason": reason}]}
    assert stored_ids(app) == ["b7ad6b7169203331", "b7ad6b7169203333"]


def test_a_full_row_is_stored_and_read_back(app: IngestApp) -> None:
    row = span(
        traceId=TRACE.upper(),
        parentSpanId="00f067aa0ba902b7",
        status={"code": "ERROR", "message": "exit 1"},
        events=[{"timeUnixNano": "1700000000100000000", "name": "retry", "attributes": {"n": 1}}],
        **{
            "tangle.runId": "run-1",
            "tangle.generation": 2,
            "tangle.cellId": "c",
            "tangle.scenarioId": "s",
        },
    )
    assert post(app, [row, span("b7ad6b7169203332", parentSpanId="")]).json()["accepted"] == 2
    spans = get_trace(app).json()["spans"]
    assert spans[0] == {**row, "traceId": TRACE}  # ids are stored lower-case
    assert "parentSpanId" not in spans[1]  # an empty parent reads as absent


def test_an_unfinished_span_is_accepted(app: IngestApp) -> None:
    assert post(app, [span(endTimeUnixNano="0")]).json() == {"accepted": 1, "rejected": []}


# --------------------------------------------------------------------------- identity


def test_an_exact_duplicate_is_accepted_and_a_conflict_rejected(app: IngestApp) -> None:
    first = span(attributes={"a": 1, "b": "x"})
    assert post(app, [first]).json() == {"accepted": 1, "rejected": []}
    reordered = dict(reversed(list(first.items())))  # same payload, other key order
    assert post(app, [reordered]).json() == {"accepted": 1, "rejected": []}
    changed = span(name="other", attributes={"a": 2, "b": "x"})
    assert post(app, [changed]).json() == {
        "accepted": 0,
        "rejected": [
            {
                "index": 0,
                "reason": "span b7ad6b7169203331 of trace 0af7651916cd43dd8448eb211c80319c is "
                "already stored with a different payload (differs in attributes (1 key), name)",
            }
        ],
    }
    assert get_trace(app).json()["spans"] == [first]


def test_a_conflict_names_no_attribute_key(app: IngestApp) -> None:
    key = FAKE_PROVIDER_KEY  # a credential written as a key, as some instrumentations do
    assert post(app, [span(attributes={key: 1})]).json()["accepted"] == 1
    answer = post(app, [span(attributes={key: 2})])
    (rejected,) = answer.json()["rejected"]
    assert rejected["reason"].endswith("(differs in attributes (1 key))")
    assert key not in answer.text


def test_duplicates_and_conflicts_within_one_batch(app: IngestApp) -> None:
    response = post(app, [span(), span(), span(name="other")])
    assert response.json()["accepted"] == 2
    assert [item["index"] for item in response.json()["rejected"]] == [2]


# --------------------------------------------------------------------------- tenants


def test_tenant_isolation(app: IngestApp) -> None:
    assert post(app, [span()], tenant="acme").json()["accepted"] == 1
    # globex reads acme's trace as absent: the same answer as a trace nobody stored
    theirs = get_trace(app, tenant="globex")
    nobody = get_trace(app, OTHER_TRACE, tenant="globex")
    assert theirs.status_code == nobody.status_code == 404
    assert theirs.json() == {"error": f"trace {TRACE} is not stored"}
    # the same identity in another tenant is not a conflict; each tenant reads its own
    assert post(app, [span(name="globex's")], tenant="globex").json()["accepted"] == 1
    assert get_trace(app, tenant="acme").json()["spans"][0]["name"] == "execute_tool Bash"
    assert get_trace(app, tenant="globex").json()["spans"][0]["name"] == "globex's"


def test_idempotency_keys_are_per_tenant(app: IngestApp) -> None:
    post(app, [span()], tenant="acme", idempotency_key="shared")
    response = post(app, [span()], tenant="globex", idempotency_key="shared")
    assert "idempotent-replayed" not in response.headers
    assert stored_ids(app, "globex") == ["b7ad6b7169203331"]


# --------------------------------------------------------------------------- idempotency


def test_idempotency_replay_within_24_hours_and_not_after(store: SqliteSpanStore) -> None:
    clock = Clock()
    app = create_app(store, TENANTS, clock=clock)
    first = post(app, [span("b7ad6b7169203331")], idempotency_key="batch-1")
    assert first.json() == {"accepted": 1, "rejected": []}

    clock.now += IDEMPOTENCY_WINDOW_SECONDS - 1
    # Another body under the same key: the recorded response, the body not processed.
    replay = post(app, [span("b7ad6b7169203332"), 5], idempotency_key="batch-1")
    assert replay.status_code == 200
    assert replay.content == first.content
    assert replay.headers["idempotent-replayed"] == "true"
    assert stored_ids(app) == ["b7ad6b7169203331"]
    # Not even a malformed body is read.
    replay = request(app, "POST", INGEST_PATH, content=b"{", idempotency_key="batch-1")
    assert replay.content == first.content

    clock.now += 1  # 24 hours after the first request: the key is free again
    fresh = post(app, [span("b7ad6b7169203332"), 5], idempotency_key="batch-1")
    assert "idempotent-replayed" not in fresh.headers
    assert fresh.json()["accepted"] == 1
    assert stored_ids(app) == ["b7ad6b7169203331", "b7ad6b7169203332"]


def test_a_refused_request_is_not_recorded(app: IngestApp) -> None:
    bad = request(app, "POST", INGEST_PATH, content=b"{", idempotency_key="k")
    assert bad.status_code == 400
    assert post(app, [span()], idempotency_key="k").json()["accepted"] == 1


def _answer(body: bytes, status: int = 200) -> Callable[[list[RowOutcome]], RecordedResponse]:
    return lambda outcomes: RecordedResponse(status, body)


def test_store_keeps_the_first_response_under_a_key(store: SqliteSpanStore) -> None:
    row = SpanRow.of(validate_span(span()))
    once = store.store_batch_once
    assert once("acme", [row], "k", 100.0, _answer(b"first")) == (
        RecordedResponse(200, b"first"),
        False,
    )
    assert once("acme", [row], "k", 200.0, _answer(b"second")) == (
        RecordedResponse(200, b"first"),
        True,
    )
    assert store.recorded_response("acme", "k", now=300.0) == RecordedResponse(200, b"first")
    assert store.recorded_response("globex", "k", now=300.0) is None
    late = 100.0 + IDEMPOTENCY_WINDOW_SECONDS
    assert store.recorded_response("acme", "k", now=late) is None
    assert once("acme", [row], "k", late, _answer(b"third")) == (
        RecordedResponse(200, b"third"),
        False,
    )
    assert store.recorded_response("acme", "k", now=late) == RecordedResponse(200, b"third")


def test_a_response_other_than_200_is_not_recorded(store: SqliteSpanStore) -> None:
    row = SpanRow.of(validate_span(span()))
    store.store_batch_once("acme", [row], "k", 100.0, _answer(b"no", status=400))
    assert store.recorded_response("acme", "k", now=100.0) is None


def test_one_key_stores_its_batch_once_across_connections(tmp_path: Path) -> None:
    """Eight connections to one file (as eight processes would hold), each sending its own
    batch under one key at the same moment: one batch is stored, every answer is its answer."""
    path = tmp_path / "spans.db"
    stores = [SqliteSpanStore(path) for _ in range(8)]
    start = threading.Barrier(len(stores))

    def send(number: int) -> tuple[RecordedResponse, bool]:
        row = SpanRow.of(validate_span(span(f"{number + 1:016x}")))
        start.wait()
        return stores[number].store_batch_once(
            "acme", [row], "same-key", 100.0, _answer(f"batch {number}".encode())
        )

    try:
        with ThreadPoolExecutor(len(stores)) as pool:
            answers = list(pool.map(send, range(len(stores))))
        assert len({response for response, _ in answers}) == 1
        assert sum(not replayed for _, replayed in answers) == 1
        assert len(stores[0].spans_of_trace("acme", TRACE)) == 1
    finally:
        for opened in stores:
            opened.close()


def test_concurrent_posts_with_one_key_store_one_batch(store: SqliteSpanStore) -> None:
    app = create_app(store, TENANTS)
    sent = {"Authorization": f"Bearer {KEY_ACME}", "X-Tangle-Tenant-Id": "acme"}
    sent |= {"X-Tangle-Wire-Version": WIRE_VERSION, "Idempotency-Key": "one-key"}

    async def go() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://ingest.test") as client:
            posts = [
                client.post(
                    INGEST_PATH,
                    headers=sent,
                    json={"wireVersion": WIRE_VERSION, "spans": [span(f"{n + 1:016x}")]},
                )
                for n in range(10)
            ]
            return list(await asyncio.gather(*posts))

    responses = asyncio.run(go())
    assert {r.status_code for r in responses} == {200}
    assert len({r.content for r in responses}) == 1
    assert sum("idempotent-replayed" not in r.headers for r in responses) == 1
    assert len(stored_ids(app)) == 1


# --------------------------------------------------------------------------- durability


def test_spans_and_keys_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "spans.db"
    before = SqliteSpanStore(path)
    first = post(create_app(before, TENANTS), [span()], idempotency_key="batch-1")
    before.close()

    after = SqliteSpanStore(path)
    try:
        app = create_app(after, TENANTS)
        assert stored_ids(app) == ["b7ad6b7169203331"]
        replay = post(app, [span("b7ad6b7169203332")], idempotency_key="batch-1")
        assert replay.content == first.content
        assert post(app, [span(name="changed")]).json()["accepted"] == 0  # still a conflict
    finally:
        after.close()


def test_store_uses_wal_and_full_sync(store: SqliteSpanStore) -> None:
    db = sqlite3.connect(store.path)
    try:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        db.close()
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


class FailingStore(SqliteSpanStore):
    """Fails on the second insert of a batch, after the first row is written."""

    def __init__(self, path: Path, error: Exception) -> None:
        super().__init__(path)
        self.error = error
        self.inserts = 0
        self.armed = True

    def _insert(self, cursor: sqlite3.Cursor, tenant_id: str, row: SpanRow) -> None:
        self.inserts += 1
        if self.armed and self.inserts == 2:
            raise self.error
        super()._insert(cursor, tenant_id, row)


def test_a_batch_is_stored_whole_or_not_at_all(tmp_path: Path) -> None:
    store = FailingStore(tmp_path / "spans.db", RuntimeError("disk fell off"))
    try:
        app = create_app(store, TENANTS)
        rows = [span("b7ad6b7169203331"), span("b7ad6b7169203332"), span("b7ad6b7169203333")]
        response = post(app, rows, idempotency_key="batch-1")
        assert response.status_code == 500
        assert response.json() == {"error": "the store failed; nothing of this batch is stored"}
        assert store.inserts == 2
        assert stored_ids(app) == []  # the first row was rolled back
        store.armed = False
        retry = post(app, rows, idempotency_key="batch-1")  # not recorded: processed again
        assert retry.json() == {"accepted": 3, "rejected": []}
    finally:
        store.close()


def test_a_busy_store_is_503_with_retry_after(tmp_path: Path) -> None:
    store = FailingStore(tmp_path / "spans.db", sqlite3.OperationalError("database is locked"))
    try:
        app = create_app(store, TENANTS)
        response = post(app, [span("b7ad6b7169203331"), span("b7ad6b7169203332")])
        assert response.status_code == 503
        assert response.headers["retry-after"] == "1"
        assert stored_ids(app) == []
    finally:
        store.close()


def test_store_outcomes(store: SqliteSpanStore) -> None:
    row = SpanRow.of(span())
    other = SpanRow.of(span(name="other"))
    outcomes = store.store_batch("acme", [row, row, other])
    assert [outcome.status for outcome in outcomes] == ["stored", "duplicate", "conflict"]
    assert outcomes[2].reason is not None and "differs in name" in outcomes[2].reason
    assert store.store_batch("globex", [other])[0].status == "stored"
    assert [orjson.loads(p)["name"] for p in store.spans_of_trace("acme", TRACE)] == [
        "execute_tool Bash"
    ]


# --------------------------------------------------------------------------- the gate


def test_share_safety_gate(store: SqliteSpanStore, caplog: pytest.LogCaptureFixture) -> None:
    gated = create_app(store, TENANTS, require_safe=resolve_profile("share"))
    leaky = span("b7ad6b7169203332", attributes={"note": f"use {FAKE_PROVIDER_KEY} here"})
    personal = span("b7ad6b7169203333", attributes={"email": "someone@example.com"})
    with caplog.at_level(logging.DEBUG, logger="redact.ingest_server"):
        response = post(gated, [span(), leaky, personal])
    assert response.json() == {
        "accepted": 1,
        "rejected": [
            {
                "index": 1,
                "reason": "share-safety gate: UNSAFE under profile share: "
                "credential (provider-key) at /attributes/note",
            },
            {
                "index": 2,
                "reason": "share-safety gate: UNSAFE under profile share: "
                "personal-data (personal-data-key) at /attributes/email",
            },
        ],
    }
    assert FAKE_PROVIDER_KEY not in response.text
    assert "someone@example.com" not in response.text
    logged = " ".join(record.getMessage() for record in caplog.records)
    assert "1 accepted, 2 rejected" in logged
    for secret in (FAKE_PROVIDER_KEY, "someone@example.com", KEY_ACME):
        assert secret not in logged
    assert stored_ids(gated) == ["b7ad6b7169203331"]


def test_without_the_gate_the_same_row_is_stored(app: IngestApp) -> None:
    leaky = span(attributes={"note": f"use {FAKE_PROVIDER_KEY} here"})
    assert post(app, [leaky]).json() == {"accepted": 1, "rejected": []}


def test_the_gate_reads_events_and_pivots(store: SqliteSpanStore) -> None:
    gated = create_app(store, TENANTS, require_safe=resolve_profile("share"))
    row = span(
        events=[{"timeUnixNano": "1", "name": "log", "attributes": {"msg": FAKE_PROVIDER_KEY}}]
    )
    reason = post(gated, [row]).json()["rejected"][0]["reason"]
    assert reason.startswith("share-safety gate: UNSAFE under profile share: credential")
    assert FAKE_PROVIDER_KEY not in reason


# --------------------------------------------------------------------------- reads


def test_get_trace_orders_by_start_time(app: IngestApp) -> None:
    later = span("b7ad6b7169203331", startTimeUnixNano="1700000000900000000", endTimeUnixNano="0")
    earlier = span("b7ad6b7169203332", startTimeUnixNano="999")
    elsewhere = span("b7ad6b7169203333", traceId=OTHER_TRACE)
    post(app, [later, earlier, elsewhere])
    response = get_trace(app, TRACE.upper())
    assert response.status_code == 200
    assert response.json() == {"traceId": TRACE, "spans": [earlier, later]}
    assert stored_ids(app, trace_id=OTHER_TRACE) == ["b7ad6b7169203333"]


def test_get_trace_with_a_bad_id_is_400(app: IngestApp) -> None:
    response = get_trace(app, "xyz")
    assert response.json() == {"error": "the trace id is not 32 hex digits"}


# --------------------------------------------------------------------------- tenants


def test_tenants_file(tmp_path: Path) -> None:
    path = tmp_path / "tenants.yaml"
    path.write_text(f"acme: {key_hash(KEY_ACME)}\nglobex: '{key_hash(KEY_GLOBEX)}'\n")
    tenants = Tenants.from_file(path)
    assert len(tenants) == 2
    assert tenants.authenticate(KEY_GLOBEX, "globex") == "globex"
    assert KEY_ACME not in path.read_text()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", "is not a mapping of tenant id to key hash"),
        ("acme: plain-text-key", 'tenant "acme": the key hash is not "sha256:" and 64 hex digits'),
        ("acme: sha256:abc", 'tenant "acme": the key hash is not "sha256:" and 64 hex digits'),
        ("acme: [", "not YAML or JSON at line 1"),
        (
            f"acme: {'sha256:' + 'a' * 64}\nacme: {'sha256:' + 'b' * 64}\n",
            'duplicate key "acme" (line 2, column 1)',
        ),
    ],
)
def test_a_bad_tenants_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "tenants.yaml"
    path.write_text(text)
    with pytest.raises(TenantError) as caught:
        Tenants.from_file(path)
    assert str(caught.value) == f"{path}: {message}"


def test_a_key_is_compared_as_the_bytes_sent(store: SqliteSpanStore) -> None:
    key = "clé-" + "dev-" + "0003"
    app = create_app(store, Tenants.single("acme", key))
    response = post(app, [span()], key=None, headers={"Authorization": f"Bearer {key}".encode()})
    assert response.status_code == 200


def test_tenant_from_env() -> None:
    tenants = Tenants.from_env({"TENANT_ID": "acme", "TENANT_KEY": KEY_ACME})
    assert tenants.authenticate(KEY_ACME, "acme") == "acme"
    with pytest.raises(TenantError, match="TENANT_KEY unset or empty"):
        Tenants.from_env({"TENANT_ID": "acme"})


# --------------------------------------------------------------------------- the command


@pytest.fixture
def no_tenant_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TENANT_ID", raising=False)
    monkeypatch.delenv("TENANT_KEY", raising=False)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--listen", "localhost"], "--listen localhost is not HOST:PORT"),
        (
            ["--listen", "127.0.0.1:99999"],
            "--listen 127.0.0.1:99999 has a port that is not a number from 0 to 65535",
        ),
        (
            ["--listen", "::1:8787"],
            "--listen ::1:8787 has an IPv6 host without brackets: write [HOST]:PORT",
        ),
        (["--tenants", "{missing}"], "--tenants {missing}: cannot read: No such file or directory"),
        (
            [],
            "no tenants: pass --tenants FILE or set TENANT_ID and TENANT_KEY "
            "(TENANT_ID and TENANT_KEY unset or empty)",
        ),
        (["--max-body-bytes", "0"], "--max-body-bytes must be a positive number of bytes"),
    ],
)
def test_bad_options_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_tenant_env: None,
    options: list[str],
    message: str,
) -> None:
    missing = str(tmp_path / "tenants.yaml")
    options = [option.replace("{missing}", missing) for option in options]
    code = main(["ingest-server", "--db", str(tmp_path / "spans.db"), *options])
    assert code == 2
    assert (
        capsys.readouterr().err == f"tracecheck: error: {message.replace('{missing}', missing)}\n"
    )
    assert not (tmp_path / "spans.db").exists()


def test_unknown_gate_profile_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TENANT_ID", "acme")
    monkeypatch.setenv("TENANT_KEY", KEY_ACME)
    code = main(["ingest-server", "--db", str(tmp_path / "x.db"), "--require-safe", "shared"])
    assert code == 2
    assert "unknown redaction profile: shared" in capsys.readouterr().err


def test_a_busy_port_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TENANT_ID", "acme")
    monkeypatch.setenv("TENANT_KEY", KEY_ACME)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        code = main(
            ["ingest-server", "--db", str(tmp_path / "x.db"), "--listen", f"127.0.0.1:{port}"]
        )
    assert code == 2
    assert f"--listen 127.0.0.1:{port}: cannot listen: " in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start_server(db: Path, tenants: Path, port: int) -> subprocess.Popen[str]:
    code = "import sys; from tracecheck.cli import main; sys.exit(main(sys.argv[1:]))"
    argv = ["ingest-server", "--db", str(db), "--listen", f"127.0.0.1:{port}"]
    argv += ["--tenants", str(tenants), "--require-safe", "share"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("TENANT_KEY", None)
    server = subprocess.Popen(
        [sys.executable, "-c", code, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"the server exited: {server.communicate()[1]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=0.5).status_code == 200:
                return server
        except httpx.TransportError:
            time.sleep(0.05)
    server.kill()
    raise AssertionError("the server did not start")


def _stop_server(
    server: subprocess.Popen[str], sig: signal.Signals = signal.SIGTERM
) -> tuple[int, str]:
    server.send_signal(sig)
    try:
        _, err = server.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        raise
    return server.returncode, err


def test_the_command_serves_until_a_signal_and_keeps_spans(tmp_path: Path) -> None:
    db, tenants = tmp_path / "spans.db", tmp_path / "tenants.json"
    tenants.write_bytes(orjson.dumps({"acme": key_hash(KEY_ACME)}))
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    headers = {
        "Authorization": f"Bearer {KEY_ACME}",
        "X-Tangle-Tenant-Id": "acme",
        "X-Tangle-Wire-Version": WIRE_VERSION,
    }
    leaky = span("b7ad6b7169203332", attributes={"note": FAKE_PROVIDER_KEY})

    server = _start_server(db, tenants, port)
    try:
        with httpx.Client(base_url=base, headers=headers, timeout=5) as client:
            body = {"wireVersion": WIRE_VERSION, "spans": [span(), leaky]}
            response = client.post(INGEST_PATH, json=body, headers={"Idempotency-Key": "b-1"})
            assert response.status_code == 200
            assert response.json()["accepted"] == 1
            assert [r["index"] for r in response.json()["rejected"]] == [1]
    finally:
        code, err = _stop_server(server)
    assert code == 0, err
    assert "listening on http://127.0.0.1:" in err
    assert err.rstrip().endswith("tracecheck ingest-server: stopped")
    assert KEY_ACME not in err and FAKE_PROVIDER_KEY not in err

    server = _start_server(db, tenants, port)  # a restart on the same file
    try:
        response = httpx.get(f"{base}/v1/traces/{TRACE}", headers=headers, timeout=5)
        assert response.status_code == 200
        assert [row["spanId"] for row in response.json()["spans"]] == ["b7ad6b7169203331"]
    finally:
        code, err = _stop_server(server, signal.SIGINT)
    assert code == 0, err
    assert err.rstrip().endswith("tracecheck ingest-server: stopped")
