"""`redact.shipping.ship_spans` and `tracecheck ship`: the hosted-ingest traces client (wire
2026-07-24.v1, spec shipping.md §3).

Unit tests talk to an `httpx.MockTransport`; waits go to an injected `sleep` that records them.
The end-to-end tests ship the leaky fixture into the reference receiver (`redact.shipping.ingest`)
served by uvicorn on a free loopback port, and read the trace back. Fake secrets only, glued
together at run time.
"""

from __future__ import annotations

import base64
import hashlib
import io
import logging
import os
import re
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from redact.shipping import (
    WIRE_VERSION,
    ShipConfig,
    ShipConfigError,
    ShipError,
    ShipGaveUp,
    ShipRefused,
    ShipRequestRefused,
    ShipResponseError,
    ShipResult,
    idempotency_key,
    parse_retry_after,
    prepare_shipment,
    resolve_config,
    ship_spans,
)
from redact.shipping import http as shipping_http
from tracecheck import read_traces
from tracecheck.cli import main
from tracecheck.cli.environment import Environment
from tracecheck.spans import Span

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
LEAKY = FIXTURES / "otel-genai" / "leaky.otlp.jsonl"
CLEAN = FIXTURES / "otel-genai" / "clean.otlp.jsonl"

BASE = "https://ingest.example.test"
TENANT = "acme-test"
API_KEY = "tk_" + "live_" + "FAKEfake" + "0123456789abcdef"
PSEUDONYM_KEY = b"fixture-" + b"pseudonym-key-0123"

# The planted values of the leaky fixture (see fixtures/README.md, tests/test_fixture_leaky.py).
KNOWN_SECRET = "zq9 Opaque/" + "Deploy Key 77"
PLANTED = (
    "jane.doe" + "@" + "example.com",
    "(415) " + "555-2671",
    " ".join(["4111"] + ["1111"] * 3),
    "sk-" + "proj-" + "FAKEfake0123456789" + "FAKEfake0123",
    "fake." + "0123456789abcdef" + ".FAKE",
    "crm_app:" + "FAKEpassw0rd",
    "AKIA" + "IOSFODNN7" + "EXAMPLE",
    "crm-admin" + "@" + "example.test",
    "platform-owner" + "@" + "example.test",
    "FAKE" + "signature" + "0123456789",
    KNOWN_SECRET,
    base64.b64encode(KNOWN_SECRET.encode()).decode(),
)

U64 = re.compile(r"0|[1-9][0-9]*")
SPAN_FIELDS = {
    "traceId",
    "spanId",
    "parentSpanId",
    "name",
    "startTimeUnixNano",
    "endTimeUnixNano",
    "attributes",
    "events",
    "status",
    "tangle.runId",
    "tangle.generation",
    "tangle.cellId",
    "tangle.scenarioId",
}


# --- helpers --------------------------------------------------------------------------------


Handler = Callable[[httpx.Request], httpx.Response]


@dataclass
class Store:
    """A scripted store: answers in order (the last repeats), records every request."""

    answers: list[Handler | httpx.Response | Exception] = field(default_factory=list)
    requests: list[httpx.Request] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = (
            self.answers[min(len(self.requests), len(self.answers)) - 1] if self.answers else None
        )
        if answer is None:
            return accept_all(request)
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, httpx.Response):
            return answer
        return answer(request)

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self))

    def bodies(self) -> list[dict[str, Any]]:
        return [orjson.loads(request.content) for request in self.requests]


def accept_all(request: httpx.Request) -> httpx.Response:
    spans = orjson.loads(request.content)["spans"]
    return httpx.Response(200, json={"accepted": len(spans), "rejected": []})


def leaky_spans() -> list[Span]:
    return [span for trace in read_traces(LEAKY) for span in trace.spans]


def clean_spans() -> list[Span]:
    return [span for trace in read_traces(CLEAN) for span in trace.spans]


def span(n: int, **attributes: Any) -> Span:
    return Span(
        "ab" * 16,
        f"{n:016x}",
        name=f"step {n}",
        start_ns=1_700_000_000_000_000_000 + n,
        end_ns=1_700_000_000_000_000_100 + n,
        attributes=attributes or {"n": n},
    )


def unreadable_span(n: int) -> Span:
    # A non-text data URI under `share` cannot be read, so it assesses UNKNOWN after redaction.
    return span(n, blob="data:application/octet-stream;base64," + "AAECAwQFBgc=")


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def ship(store: Store, spans: list[Span], **options: Any) -> ShipResult:
    options.setdefault("sleep", Sleeps())
    return ship_spans(
        spans, url=BASE, api_key=API_KEY, tenant_id=TENANT, client=store.client(), **options
    )


def strings_of(value: Any) -> Iterator[str]:
    """Every string in a JSON value, and in JSON documents held in strings."""
    if isinstance(value, str):
        yield value
        if value[:1] in "[{":
            try:
                inner = orjson.loads(value)
            except orjson.JSONDecodeError:
                return
            yield from strings_of(inner)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_of(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_of(item)


@pytest.fixture(autouse=True)
def _no_ingest_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("TANGLE_INGEST_URL", "TANGLE_INGEST_API_KEY", "TANGLE_TENANT_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("TRACECHECK_PSEUDONYM_KEY", raising=False)
    # The command's checkpoints go here, never under the real home.
    monkeypatch.setenv("TRACECHECK_STATE_DIR", str(tmp_path / "state"))


# --- the request ----------------------------------------------------------------------------


def test_one_post_with_the_wire_headers() -> None:
    store = Store()
    result = ship(store, clean_spans())
    (request,) = store.requests
    assert request.method == "POST"
    assert str(request.url) == BASE + "/v1/ingest/traces"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.headers["x-tangle-tenant-id"] == TENANT
    assert request.headers["x-tangle-wire-version"] == WIRE_VERSION == "2026-07-24.v1"
    assert request.headers["content-type"] == "application/json"
    key = request.headers["idempotency-key"]
    assert 0 < len(key) <= 256
    assert result == ShipResult(
        batches=1, sent=11, accepted=11, rejected=(), dropped_unsafe=(), report=result.report
    )
    assert result.ok


@pytest.mark.parametrize(
    ("base", "endpoint"),
    [
        ("https://ingest.example.test", "https://ingest.example.test/v1/ingest/traces"),
        ("https://ingest.example.test/", "https://ingest.example.test/v1/ingest/traces"),
        ("https://h.example.test/store/", "https://h.example.test/store/v1/ingest/traces"),
        ("https://h.example.test/v1", "https://h.example.test/v1/ingest/traces"),
    ],
)
def test_the_endpoint_under_the_base_url(base: str, endpoint: str) -> None:
    assert resolve_config(base, API_KEY, TENANT).endpoint == endpoint


def test_the_body_is_the_seed_shape() -> None:
    store = Store()
    ship(store, leaky_spans(), known_secrets=[KNOWN_SECRET])
    (body,) = store.bodies()
    assert set(body) == {"wireVersion", "spans"}
    assert body["wireVersion"] == WIRE_VERSION
    rows = body["spans"]
    assert len(rows) == 11
    for row in rows:
        assert set(row) <= SPAN_FIELDS
        assert re.fullmatch(r"[0-9a-f]{32}", row["traceId"])
        assert re.fullmatch(r"[0-9a-f]{16}", row["spanId"])
        if "parentSpanId" in row:
            assert re.fullmatch(r"[0-9a-f]{16}", row["parentSpanId"])
        assert isinstance(row["name"], str)
        for name in ("startTimeUnixNano", "endTimeUnixNano"):
            assert U64.fullmatch(row[name]) and int(row[name]) < 2**64
        assert int(row["startTimeUnixNano"]) <= int(row["endTimeUnixNano"])
        for value in row["attributes"].values():
            assert isinstance(value, str | int | float | bool)
        for event in row.get("events", ()):
            assert set(event) <= {"timeUnixNano", "name", "attributes"}
            assert U64.fullmatch(event["timeUnixNano"])
            assert isinstance(event["name"], str)
            assert all(
                isinstance(v, str | int | float | bool) for v in event["attributes"].values()
            )
        if "status" in row:
            assert set(row["status"]) <= {"code", "message"}
            assert row["status"]["code"] in ("OK", "ERROR", "UNSET")
    assert {row.get("status", {}).get("code") for row in rows} >= {"OK", "ERROR"}
    assert any(row.get("events") for row in rows)
    assert sum("parentSpanId" not in row for row in rows) == 1


def test_nested_values_are_flattened_and_pivots_lifted() -> None:
    store = Store()
    ship(
        store,
        [
            span(
                1,
                tool={"name": "lookup_order", "retries": [1, 2]},
                tags=["a", "b"],
                **{"tangle.runId": "run-7", "tangle.generation": 2, "tangle.cellId": "c-1"},
            )
        ],
    )
    (row,) = store.bodies()[0]["spans"]
    assert orjson.loads(row["attributes"]["tool"]) == {"name": "lookup_order", "retries": [1, 2]}
    assert orjson.loads(row["attributes"]["tags"]) == ["a", "b"]
    assert row["tangle.runId"] == "run-7"
    assert row["tangle.generation"] == 2
    assert row["tangle.cellId"] == "c-1"
    assert "tangle.scenarioId" not in row


def test_what_the_store_receives_holds_none_of_the_planted_values() -> None:
    store = Store()
    result = ship(store, leaky_spans(), known_secrets=[KNOWN_SECRET])
    (request,) = store.requests
    raw = request.content.decode()
    strings = list(strings_of(orjson.loads(request.content)))
    for value in PLANTED:
        assert value not in raw, value
        assert not any(value in s for s in strings), value
    assert result.report.redaction_count > 0
    assert "zq9" + " Opaque" not in raw


def test_the_known_secret_is_cut_in_every_form_only_when_named() -> None:
    """The check above means something: a known secret no detector knows reaches the store
    unless it is named, and then goes in plain and in base64 alike."""
    encoded = base64.b64encode(KNOWN_SECRET.encode()).decode()
    spans = [span(1, note=f"the phrase is {KNOWN_SECRET}", packed=f"blob {encoded} end")]
    plain = Store()
    ship(plain, spans)
    assert KNOWN_SECRET in plain.requests[0].content.decode()
    named = Store()
    ship(named, spans, known_secrets=[KNOWN_SECRET])
    raw = named.requests[0].content.decode()
    assert KNOWN_SECRET not in raw and encoded not in raw


def test_batches_and_global_indexes_of_rejected_spans() -> None:
    spans = [span(n) for n in range(10)]

    def reject_second_of_batch_two(request: httpx.Request) -> httpx.Response:
        rows = orjson.loads(request.content)["spans"]
        if rows[0]["spanId"] == f"{4:016x}":
            return httpx.Response(
                202, json={"accepted": 3, "rejected": [{"index": 1, "reason": "conflict"}]}
            )
        return accept_all(request)

    store = Store([reject_second_of_batch_two])
    result = ship(store, spans, batch_size=4)
    assert [len(body["spans"]) for body in store.bodies()] == [4, 4, 2]
    assert (result.batches, result.sent, result.accepted) == (3, 10, 9)
    (rejected,) = result.rejected
    assert (rejected.index, rejected.trace_id, rejected.span_id, rejected.reason) == (
        5,
        "ab" * 16,
        f"{5:016x}",
        "conflict",
    )
    assert not result.ok


def test_nothing_to_ship_sends_nothing() -> None:
    store = Store()
    result = ship(store, [])
    assert store.requests == []
    assert (result.batches, result.sent, result.accepted, result.ok) == (0, 0, 0, True)


# --- idempotency ----------------------------------------------------------------------------


def test_the_idempotency_key_is_the_hash_of_tenant_and_body() -> None:
    store = Store()
    ship(store, clean_spans())
    (request,) = store.requests
    digest = hashlib.sha256(TENANT.encode() + b"\x00" + request.content).hexdigest()
    assert request.headers["idempotency-key"] == f"tracecheck-{digest}"
    assert idempotency_key(TENANT, request.content) == f"tracecheck-{digest}"


def test_the_idempotency_key_is_reused_on_every_retry() -> None:
    store = Store([httpx.Response(503), httpx.ConnectError("refused"), httpx.Response(429)])
    store.answers.append(accept_all)
    ship(store, clean_spans(), max_attempts=4)
    keys = {request.headers["idempotency-key"] for request in store.requests}
    bodies = {request.content for request in store.requests}
    assert len(store.requests) == 4
    assert len(keys) == 1 and len(bodies) == 1


def test_the_idempotency_key_follows_the_content() -> None:
    def key_of(spans: list[Span], tenant: str = TENANT) -> str:
        store = Store()
        ship_spans(
            spans,
            url=BASE,
            api_key=API_KEY,
            tenant_id=tenant,
            client=store.client(),
            pseudonym_key=PSEUDONYM_KEY,
        )
        return store.requests[0].headers["idempotency-key"]

    first = key_of(leaky_spans())
    assert key_of(leaky_spans()) == first  # same content, same pseudonyms: same key
    assert key_of(leaky_spans(), "other-tenant") != first
    assert key_of(leaky_spans()[:-1]) != first


def test_each_batch_has_its_own_key() -> None:
    store = Store()
    ship(store, [span(n) for n in range(6)], batch_size=2)
    assert len({request.headers["idempotency-key"] for request in store.requests}) == 3


# --- retries --------------------------------------------------------------------------------


def test_429_waits_exactly_retry_after_seconds() -> None:
    store = Store([httpx.Response(429, headers={"Retry-After": "2"}), accept_all])
    sleeps = Sleeps()
    result = ship(store, clean_spans(), sleep=sleeps)
    assert sleeps == [2.0]
    assert len(store.requests) == 2 and result.accepted == 11


NOW = datetime(2026, 7, 24, 12, 0, 0, tzinfo=UTC)


class _Stopped(datetime):
    """`datetime` whose `now` is always NOW: the time the shipper reads while it works."""

    @classmethod
    def now(cls, tz: tzinfo | None = None) -> _Stopped:
        return cls.fromtimestamp(NOW.timestamp(), tz)


def test_429_waits_until_an_http_date(monkeypatch: pytest.MonkeyPatch) -> None:
    # The shipper's clock is stopped (the one `Retry-After` dates are read against), so the
    # wait is exact however long shipping takes on a busy machine.
    monkeypatch.setattr(shipping_http, "datetime", _Stopped)
    when = NOW + timedelta(seconds=30)
    store = Store(
        [httpx.Response(429, headers={"Retry-After": format_datetime(when, usegmt=True)})]
    )
    store.answers.append(accept_all)
    sleeps = Sleeps()
    ship(store, clean_spans(), sleep=sleeps)
    assert sleeps == [30.0]


def test_parse_retry_after() -> None:
    now = datetime(2026, 7, 24, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("0", now=now) == 0.0
    assert parse_retry_after(" 17 ", now=now) == 17.0
    assert parse_retry_after("Fri, 24 Jul 2026 12:00:05 GMT", now=now) == 5.0
    assert parse_retry_after("Fri, 24 Jul 2026 11:00:00 GMT", now=now) == 0.0  # past: now
    assert parse_retry_after("soon", now=now) is None
    assert parse_retry_after("-3", now=now) is None
    assert parse_retry_after("1.5", now=now) is None


def test_an_absurd_retry_after_is_capped_and_said(caplog: pytest.LogCaptureFixture) -> None:
    store = Store([httpx.Response(503, headers={"Retry-After": "86400"}), accept_all])
    sleeps = Sleeps()
    with caplog.at_level(logging.INFO, logger="redact.ship"):
        ship(store, clean_spans(), sleep=sleeps, max_retry_after=60.0)
    assert sleeps == [60.0]
    assert "batch 1 of 1: Retry-After asks for 86400 s; waiting the 60 s cap instead" in (
        caplog.messages
    )


def test_a_garbled_retry_after_falls_back_to_backoff() -> None:
    store = Store([httpx.Response(429, headers={"Retry-After": "later"}), accept_all])
    sleeps = Sleeps()
    ship(store, clean_spans(), sleep=sleeps)
    (wait,) = sleeps
    assert 0.0 <= wait <= 0.5


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504])
def test_retryable_statuses_then_success(status: int) -> None:
    store = Store([httpx.Response(status), accept_all])
    sleeps = Sleeps()
    result = ship(store, clean_spans(), sleep=sleeps)
    assert len(store.requests) == 2 and len(sleeps) == 1
    assert result.accepted == 11


@pytest.mark.parametrize(
    "error",
    [
        httpx.ConnectError("connection refused"),
        httpx.ReadTimeout("timed out"),
        httpx.RemoteProtocolError("server disconnected"),
    ],
)
def test_network_error_then_success(error: Exception) -> None:
    store = Store([error, accept_all])
    sleeps = Sleeps()
    result = ship(store, clean_spans(), sleep=sleeps)
    assert len(store.requests) == 2
    assert result.ok


def test_backoff_is_exponential_with_full_jitter() -> None:
    answers: list[Handler | httpx.Response | Exception] = [httpx.Response(503)] * 5
    store = Store([*answers, accept_all])
    sleeps = Sleeps()
    ship(store, clean_spans(), sleep=sleeps, max_attempts=6)
    assert len(sleeps) == 5
    for attempt, wait in enumerate(sleeps):
        assert 0.0 <= wait <= 0.5 * 2**attempt


def test_gives_up_after_the_bound_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    store = Store([httpx.Response(503)])
    sleeps = Sleeps()
    with caplog.at_level(logging.INFO, logger="redact.ship"), pytest.raises(ShipGaveUp) as caught:
        ship(store, clean_spans(), sleep=sleeps, max_attempts=3)
    assert len(store.requests) == 3 and len(sleeps) == 2
    assert str(caught.value) == (
        "batch 1 of 1: gave up after 3 attempts; the last failed with HTTP 503"
    )
    assert (caught.value.attempts, caught.value.last, caught.value.result) == (3, "HTTP 503", None)
    assert len([m for m in caplog.messages if "retrying in" in m]) == 2


def test_gives_up_naming_the_network_error() -> None:
    store = Store([httpx.ConnectError("connection refused")])
    with pytest.raises(ShipGaveUp) as caught:
        ship(store, clean_spans(), max_attempts=2)
    assert str(caught.value) == (
        "batch 1 of 1: gave up after 2 attempts; the last failed with "
        "ConnectError: connection refused"
    )
    assert API_KEY not in repr(caught.value.__context__)


def test_a_failure_carries_what_was_shipped_before_it() -> None:
    def fail_second(request: httpx.Request) -> httpx.Response:
        first = orjson.loads(request.content)["spans"][0]["spanId"]
        return httpx.Response(503) if first == f"{2:016x}" else accept_all(request)

    with pytest.raises(ShipGaveUp) as caught:
        ship(Store([fail_second]), [span(n) for n in range(4)], batch_size=2, max_attempts=2)
    assert str(caught.value).startswith("batch 2 of 2: gave up after 2 attempts")
    partial = caught.value.result
    assert partial is not None
    assert (partial.batches, partial.sent, partial.accepted) == (1, 2, 2)


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [
        (
            400,
            {"error": 'X-Tangle-Wire-Version must be "2026-07-24.v1"'},
            "batch 1 of 1: HTTP 400: the store refused the request (X-Tangle-Wire-Version must "
            'be "2026-07-24.v1")',
        ),
        (
            401,
            {"error": "the bearer token is not a valid key"},
            "batch 1 of 1: HTTP 401: the API key was refused (the bearer token is not a valid key)",
        ),
        (
            404,
            {"error": 'tenant "acme-test" is not known'},
            "batch 1 of 1: HTTP 404: unknown tenant, or no ingest endpoint at this URL "
            '(tenant "acme-test" is not known)',
        ),
        (404, None, "batch 1 of 1: HTTP 404: unknown tenant, or no ingest endpoint at this URL"),
        (
            413,
            {"error": "the body is over the limit"},
            "batch 1 of 1: HTTP 413: the batch is too large; ship smaller batches "
            "(the body is over the limit)",
        ),
    ],
)
def test_other_4xx_are_not_retried(status: int, body: Any, message: str) -> None:
    answer = httpx.Response(status, json=body) if body else httpx.Response(status, text="nope")
    store = Store([answer])
    sleeps = Sleeps()
    with pytest.raises(ShipRequestRefused) as caught:
        ship(store, clean_spans(), sleep=sleeps)
    assert len(store.requests) == 1 and sleeps == []
    assert str(caught.value) == message
    assert caught.value.status == status


# --- the response ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"<html>ok</html>", "the body is not JSON"),
        (b"[]", "the body is a JSON array, not an object"),
        (b"{}", "accepted: missing; rejected: missing"),
        (b'{"accepted": "11", "rejected": []}', "accepted: a string, not an integer"),
        (b'{"accepted": true, "rejected": []}', "accepted: a boolean, not an integer"),
        (b'{"accepted": 11.0, "rejected": []}', "accepted: a number, not an integer"),
        (b'{"accepted": 12, "rejected": []}', "accepted: 12, outside 0..11"),
        (b'{"accepted": 11, "rejected": {}}', "rejected: an object, not an array"),
        (
            b'{"accepted": 10, "rejected": [{"index": 11, "reason": "x"}]}',
            "rejected/0/index: 11, outside 0..10",
        ),
        (
            b'{"accepted": 10, "rejected": [{"index": "1", "reason": "x"}]}',
            "rejected/0/index: a string, not an integer",
        ),
        (
            b'{"accepted": 10, "rejected": [{"index": 1}]}',
            "rejected/0/reason: missing, not a string",
        ),
        (
            b'{"accepted": 9, "rejected": [{"index": 1, "reason": "x"}, {"index": 1, "reason": "y"}]}',
            "rejected/1/index: 1 is listed twice",
        ),
        (
            b'{"accepted": 10, "rejected": []}',
            "accepted (10) and rejected (0) do not add up to the 11 spans sent",
        ),
    ],
)
def test_an_invalid_response_is_an_error(body: bytes, problem: str) -> None:
    store = Store([httpx.Response(200, content=body)])
    with pytest.raises(ShipResponseError) as caught:
        ship(store, clean_spans())
    assert str(caught.value) == (
        f"batch 1 of 1: invalid response from the store (HTTP 200): {problem}"
    )
    assert len(store.requests) == 1


def test_a_response_may_carry_more_fields() -> None:
    answer = httpx.Response(200, json={"accepted": 11, "rejected": [], "stored": 11})
    assert ship(Store([answer]), clean_spans()).ok


# --- the share-safety gate ------------------------------------------------------------------


def test_unsafe_spans_are_refused_and_nothing_is_sent() -> None:
    store = Store()
    spans = [span(1), unreadable_span(2), span(3)]
    with pytest.raises(ShipRefused) as caught:
        ship(store, spans)
    assert store.requests == []
    assert str(caught.value) == (
        "1 of 3 spans are not safe to share after redaction (UNKNOWN ×1); nothing sent"
    )
    (dropped,) = caught.value.dropped
    assert (dropped.trace_id, dropped.span_id) == ("ab" * 16, f"{2:016x}")
    assert dropped.verdict.status.value == "UNKNOWN"
    assert caught.value.result is None


def test_unsafe_spans_can_be_dropped_instead() -> None:
    store = Store()
    result = ship(store, [span(1), unreadable_span(2), span(3)], on_unsafe="drop")
    (body,) = store.bodies()
    assert [row["spanId"] for row in body["spans"]] == [f"{1:016x}", f"{3:016x}"]
    assert [d.span_id for d in result.dropped_unsafe] == [f"{2:016x}"]
    assert (result.sent, result.accepted) == (2, 2)
    assert not result.ok


def test_refusal_happens_before_the_network_even_when_the_url_is_dead() -> None:
    with pytest.raises(ShipRefused):
        ship_spans(
            [unreadable_span(1)],
            url="http://127.0.0.1:9",
            api_key=API_KEY,
            tenant_id=TENANT,
            sleep=Sleeps(),
        )


# --- configuration and secrecy ----------------------------------------------------------------


def test_configuration_names_everything_missing() -> None:
    with pytest.raises(ShipConfigError) as caught:
        ship_spans(clean_spans())
    assert str(caught.value) == (
        "missing ingest configuration: the ingest URL ($TANGLE_INGEST_URL), "
        "the tenant id ($TANGLE_TENANT_ID), the API key ($TANGLE_INGEST_API_KEY)"
    )
    assert caught.value.missing == (
        "TANGLE_INGEST_URL",
        "TANGLE_TENANT_ID",
        "TANGLE_INGEST_API_KEY",
    )


def test_configuration_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TANGLE_INGEST_URL", BASE)
    monkeypatch.setenv("TANGLE_INGEST_API_KEY", API_KEY)
    monkeypatch.setenv("TANGLE_TENANT_ID", TENANT)
    store = Store()
    ship_spans(clean_spans(), client=store.client())
    (request,) = store.requests
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.headers["x-tangle-tenant-id"] == TENANT
    # Arguments win over the environment.
    assert resolve_config(tenant_id="other").tenant_id == "other"


@pytest.mark.parametrize(
    ("url", "tenant", "key", "message"),
    [
        (
            "ftp://h.example.test",
            TENANT,
            API_KEY,
            "the ingest URL must be http:// or https:// with a host, not ftp://",
        ),
        (
            "https://",
            TENANT,
            API_KEY,
            "the ingest URL must be http:// or https:// with a host, not https://",
        ),
        (BASE + "?a=1", TENANT, API_KEY, "the ingest URL is a base URL: no query or fragment"),
        (
            BASE,
            "acme\r\nX-Evil: 1",
            API_KEY,
            "the tenant id must be printable ASCII without spaces",
        ),
        (BASE, TENANT, API_KEY + " x", "the API key must be printable ASCII without spaces"),
    ],
)
def test_unusable_configuration(url: str, tenant: str, key: str, message: str) -> None:
    with pytest.raises(ShipConfigError) as caught:
        resolve_config(url, key, tenant)
    assert str(caught.value) == message
    assert API_KEY not in str(caught.value)


def test_the_key_is_in_no_repr_message_or_log(caplog: pytest.LogCaptureFixture) -> None:
    config = resolve_config(BASE, API_KEY, TENANT)
    assert API_KEY not in repr(config) and API_KEY not in str(config)
    assert config == ShipConfig(BASE, TENANT, API_KEY)
    failures: list[ShipError] = []
    answers: list[Any] = [
        httpx.Response(401, json={"error": "bad key"}),
        httpx.Response(503),
        httpx.ConnectError("refused"),
        httpx.Response(200, json={"accepted": "all"}),
    ]
    with caplog.at_level(logging.DEBUG):
        for answer in answers:
            with pytest.raises(ShipError) as caught:
                ship(Store([answer]), leaky_spans(), max_attempts=2)
            failures.append(caught.value)
    for failure in failures:
        assert API_KEY not in str(failure) and API_KEY not in repr(failure)
        assert API_KEY not in repr(vars(failure))
    assert API_KEY not in caplog.text
    for value in PLANTED[:-2]:
        assert value not in caplog.text


def test_prepare_shipment_needs_no_configuration() -> None:
    shipment = prepare_shipment(clean_spans(), batch_size=5)
    assert [len(batch) for batch in shipment.batches] == [5, 5, 1]
    assert [batch.first for batch in shipment.batches] == [0, 5, 10]
    assert shipment.spans == 11
    assert all(orjson.loads(b.body)["wireVersion"] == WIRE_VERSION for b in shipment.batches)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="batch_size must be at least 1"):
        prepare_shipment([], batch_size=0)
    with pytest.raises(ValueError, match="max_attempts must be at least 1"):
        ship(Store(), [], max_attempts=0)


# --- the command ----------------------------------------------------------------------------


@pytest.fixture
def command_store(monkeypatch: pytest.MonkeyPatch) -> Store:
    """The store `tracecheck ship` reaches, with the ingest configuration in the environment."""
    store = Store()
    monkeypatch.setenv("TANGLE_INGEST_URL", BASE)
    monkeypatch.setenv("TANGLE_INGEST_API_KEY", API_KEY)
    monkeypatch.setenv("TANGLE_TENANT_ID", TENANT)
    monkeypatch.setenv("FIXTURE_DEPLOY_KEY", KNOWN_SECRET)
    return store


def ship_command(store: Store, argv: list[str]) -> int:
    """`tracecheck ship` reaching `store`, its waits recorded instead of slept."""
    env = Environment.current(transport=httpx.MockTransport(store), sleep=Sleeps())
    return main(argv, env=env)


def test_command_ships_and_summarises(
    command_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    code = ship_command(
        command_store, ["ship", str(LEAKY), "--known-secret-env", "FIXTURE_DEPLOY_KEY"]
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert out == ""
    assert err.splitlines()[-1] == "shipped 11 spans in 1 batch: 11 accepted, 0 rejected"
    assert err.startswith("redacted ")
    raw = command_store.requests[0].content.decode()
    for value in PLANTED:
        assert value not in raw
    assert API_KEY not in out + err


def test_command_flags_win_over_the_environment(
    command_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTHER_KEY", "ok_" + "other-key-01234")
    code = ship_command(
        command_store,
        [
            "ship",
            str(CLEAN),
            "--url",
            "https://other.example.test/",
            "--tenant",
            "t-2",
            "--api-key-env",
            "OTHER_KEY",
            "--batch-size",
            "4",
        ],
    )
    assert code == 0
    assert len(command_store.requests) == 3
    request = command_store.requests[0]
    assert str(request.url) == "https://other.example.test/v1/ingest/traces"
    assert request.headers["x-tangle-tenant-id"] == "t-2"
    assert request.headers["authorization"] == "Bearer ok_" + "other-key-01234"


def test_command_exit_1_when_a_span_is_rejected(
    command_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    command_store.answers.append(
        httpx.Response(
            200, json={"accepted": 10, "rejected": [{"index": 3, "reason": "conflicting payload"}]}
        )
    )
    code = ship_command(command_store, ["ship", str(CLEAN)])
    err = capsys.readouterr().err
    assert code == 1
    span_id = clean_spans()[3].span_id
    assert f"  span {span_id} (index 3) rejected: conflicting payload" in err.splitlines()
    assert err.splitlines()[-1] == "shipped 11 spans in 1 batch: 10 accepted, 1 rejected"


def test_command_exit_1_and_nothing_sent_when_unsafe(
    command_store: Store, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = tmp_path / "unsafe.spans.jsonl"
    rows = [
        {
            "traceId": "ab" * 16,
            "spanId": "cd" * 8,
            "name": "upload",
            "startTimeUnixNano": "1",
            "endTimeUnixNano": "2",
            "attributes": {"blob": "data:application/octet-stream;base64,AAECAwQFBgc="},
        }
    ]
    trace.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))
    code = ship_command(command_store, ["ship", str(trace)])
    err = capsys.readouterr().err
    assert code == 1
    assert command_store.requests == []
    assert err.splitlines()[0] == (
        "tracecheck: error: 1 of 1 span is not safe to share after redaction (UNKNOWN ×1); "
        "nothing sent"
    )
    assert "  span cdcdcdcdcdcdcdcd: UNKNOWN" in err.splitlines()


def test_command_exit_1_when_it_gives_up(
    command_store: Store, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    command_store.answers.append(httpx.Response(503, headers={"Retry-After": "0"}))
    code = ship_command(command_store, ["ship", str(CLEAN), "--max-attempts", "3"])
    err = capsys.readouterr().err
    assert code == 1
    assert len(command_store.requests) == 3
    (checkpoint,) = (tmp_path / "state").iterdir()
    assert err.splitlines() == [
        "tracecheck: batch 1 of 1: HTTP 503; retrying in 0.0 s (attempt 2 of 3)",
        "tracecheck: batch 1 of 1: HTTP 503; retrying in 0.0 s (attempt 3 of 3)",
        "tracecheck: error: batch 1 of 1: gave up after 3 attempts; the last failed with HTTP 503",
        f"the checkpoint {checkpoint} keeps this shipment's pseudonym key and the batches "
        "answered: run the same command again to resume",
    ]


def test_command_exit_1_when_the_store_refuses(
    command_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    command_store.answers.append(httpx.Response(401, json={"error": "bad key"}))
    assert ship_command(command_store, ["ship", str(CLEAN)]) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        "tracecheck: error: batch 1 of 1: HTTP 401: the API key was refused (bad key)"
    )


def test_command_exit_2_without_configuration(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TANGLE_INGEST_URL", BASE)
    code = main(["ship", str(CLEAN), "--api-key-env", "MY_INGEST_KEY"])
    assert code == 2
    assert capsys.readouterr().err == (
        "tracecheck: error: missing ingest configuration: the tenant id (--tenant or "
        "$TANGLE_TENANT_ID), the API key ($MY_INGEST_KEY)\n"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--known-secret-env", "NOT_SET_ANYWHERE"],
            "$NOT_SET_ANYWHERE: the environment variable is not set or empty",
        ),
        (["--profile", "lenient"], "unknown redaction profile: lenient"),
    ],
)
def test_command_exit_2_for_bad_secret_sources(
    command_store: Store, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert ship_command(command_store, ["ship", str(CLEAN), *argv]) == 2
    assert capsys.readouterr().err == f"tracecheck: error: {message}\n"
    assert command_store.requests == []


def test_command_exit_2_for_a_bad_batch_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ship", str(CLEAN), "--batch-size", "0"]) == 2
    assert "--batch-size: '0' must be at least 1" in capsys.readouterr().err


def test_command_exit_3_for_an_unreadable_trace(
    command_store: Store, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "missing.otlp.jsonl"
    assert ship_command(command_store, ["ship", str(missing)]) == 3
    assert capsys.readouterr().err == f"tracecheck: error: {missing}: no such file or directory\n"
    assert command_store.requests == []


def the_checkpoint(tmp_path: Path) -> Path:
    (path,) = (tmp_path / "state").iterdir()
    return path


def kept_key(checkpoint: Path) -> str:
    key = orjson.loads(checkpoint.read_bytes())["pseudonymKey"]
    assert isinstance(key, str) and len(key) == 64
    return key


def key_forms(hex_key: str) -> list[str]:
    raw = bytes.fromhex(hex_key)
    return [
        hex_key,
        hex_key.upper(),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
    ]


def test_command_keeps_the_drawn_key_in_a_private_checkpoint(
    command_store: Store, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["ship", str(LEAKY), "--known-secret-env", "FIXTURE_DEPLOY_KEY", "--batch-size", "4"]
    assert ship_command(command_store, argv) == 0
    out, err = capsys.readouterr()
    checkpoint = the_checkpoint(tmp_path)
    assert checkpoint.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "state").stat().st_mode & 0o777 == 0o700
    document = orjson.loads(checkpoint.read_bytes())
    assert set(document) == {"version", "pseudonymKey", "batches"}
    assert len(document["batches"]) == 3
    text = checkpoint.read_text()
    for value in PLANTED:
        assert value not in text
    assert API_KEY not in text
    for form in key_forms(kept_key(checkpoint)):
        assert form not in out + err
    # The same command again sends nothing: every batch was answered, and the result says so.
    assert ship_command(command_store, argv) == 0
    assert len(command_store.requests) == 3
    assert capsys.readouterr().err.splitlines()[-1] == (
        "shipped 11 spans in 3 batches: 11 accepted, 0 rejected "
        "(3 batches of them answered in an earlier run, not sent again)"
    )


def test_command_resumes_with_the_kept_key_and_skips_answered_batches(
    command_store: Store, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    command_store.answers[:] = [accept_all, accept_all, httpx.Response(503)]
    argv = ["ship", str(LEAKY), "--known-secret-env", "FIXTURE_DEPLOY_KEY", "--batch-size", "4"]
    assert ship_command(command_store, [*argv, "--max-attempts", "1"]) == 1
    first = capsys.readouterr().err
    assert "before that: shipped 8 spans in 2 batches: 8 accepted, 0 rejected" in first
    failed = command_store.requests[2]
    command_store.answers[:] = []
    assert ship_command(command_store, argv) == 0
    err = capsys.readouterr().err
    assert len(command_store.requests) == 4
    resent = command_store.requests[3]
    # The same key, so the same body and idempotency key as the batch that failed.
    assert resent.content == failed.content
    assert resent.headers["Idempotency-Key"] == failed.headers["Idempotency-Key"]
    assert err.splitlines()[-1] == (
        "shipped 11 spans in 3 batches: 11 accepted, 0 rejected "
        "(2 batches of them answered in an earlier run, not sent again)"
    )
    for form in key_forms(kept_key(the_checkpoint(tmp_path))):
        assert form not in first + err


def test_command_kept_rejections_still_fail_the_resumed_run(
    command_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    def reject_first(request: httpx.Request) -> httpx.Response:
        spans = orjson.loads(request.content)["spans"]
        return httpx.Response(
            200, json={"accepted": len(spans) - 1, "rejected": [{"index": 0, "reason": "no"}]}
        )

    command_store.answers[:] = [reject_first, httpx.Response(503)]
    argv = ["ship", str(LEAKY), "--batch-size", "4", "--max-attempts", "1"]
    argv += ["--known-secret-env", "FIXTURE_DEPLOY_KEY"]
    assert ship_command(command_store, argv) == 1
    command_store.answers[:] = []
    assert ship_command(command_store, argv) == 1
    err = capsys.readouterr().err
    assert "  span " in err and "(index 0) rejected: no" in err
    assert err.splitlines()[-1].startswith("shipped 11 spans in 3 batches: 10 accepted, 1 rejected")


def test_command_without_a_key_or_a_place_for_one_refuses_before_sending(
    command_store: Store, tmp_path: Path
) -> None:
    environ = {name: os.environ[name] for name in ("TANGLE_INGEST_URL", "TANGLE_TENANT_ID")}
    environ["TANGLE_INGEST_API_KEY"] = API_KEY
    stderr = io.StringIO()
    env = Environment(
        io.StringIO(), io.StringIO(), stderr, environ, transport=httpx.MockTransport(command_store)
    )
    assert main(["ship", str(CLEAN)], env=env) == 2
    assert stderr.getvalue() == (
        "tracecheck: error: no place to keep this shipment's pseudonym key for a resume: set "
        "$TRACECHECK_STATE_DIR (or $XDG_STATE_HOME or $HOME), or give a key with "
        "--pseudonym-key-file or $TRACECHECK_PSEUDONYM_KEY; nothing sent\n"
    )
    assert command_store.requests == []
    # With a key of one's own there is nothing to keep: it ships, with no checkpoint.
    key_file = tmp_path / "pseudonym.key"
    key_file.write_bytes(PSEUDONYM_KEY)
    assert main(["ship", str(CLEAN), "--pseudonym-key-file", str(key_file)], env=env) == 0
    assert len(command_store.requests) == 1
    assert not (tmp_path / "state").exists()


def test_command_an_unreadable_checkpoint_stops_before_sending(
    command_store: Store, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert ship_command(command_store, ["ship", str(CLEAN)]) == 0
    checkpoint = the_checkpoint(tmp_path)
    checkpoint.write_text("{not json")
    capsys.readouterr()
    assert ship_command(command_store, ["ship", str(CLEAN)]) == 2
    assert capsys.readouterr().err == (
        f"tracecheck: error: the checkpoint {checkpoint} is not one this version wrote; remove "
        "it to start this shipment afresh (with a new pseudonym key); nothing sent\n"
    )
    assert len(command_store.requests) == 1


def test_a_given_key_is_not_written_to_the_checkpoint(command_store: Store, tmp_path: Path) -> None:
    key_file = tmp_path / "pseudonym.key"
    key_file.write_bytes(PSEUDONYM_KEY)
    assert (
        ship_command(command_store, ["ship", str(CLEAN), "--pseudonym-key-file", str(key_file)])
        == 0
    )
    document = orjson.loads(the_checkpoint(tmp_path).read_bytes())
    assert document["pseudonymKey"] is None and len(document["batches"]) == 1
    # Then without the key: one is drawn and kept in the same file, beside the kept answer.
    assert ship_command(command_store, ["ship", str(CLEAN)]) == 0
    kept_key(the_checkpoint(tmp_path))
    assert len(orjson.loads(the_checkpoint(tmp_path).read_bytes())["batches"]) >= 1


def test_two_runs_starting_at_once_keep_one_key(tmp_path: Path) -> None:
    from redact.shipping.checkpoint import ShipCheckpoint

    spans = clean_spans()
    opened = [
        ShipCheckpoint.open(tmp_path / "state", endpoint=BASE, tenant_id=TENANT, spans=spans)
        for _ in range(2)
    ]
    first, second = (checkpoint.ensure_key() for checkpoint in opened)
    assert first == second
    (path,) = (tmp_path / "state").iterdir()
    assert path == opened[0].path and path.stat().st_mode & 0o777 == 0o600
    assert kept_key(path) == first.hex()
    assert first.hex() not in repr(opened[0])
    # Other spans, another tenant or another store: another shipment, another file.
    others = [
        (BASE, TENANT, spans[1:]),
        (BASE, "other-tenant", spans),
        ("https://other.example.test/v1/ingest/traces", TENANT, spans),
    ]
    for endpoint, tenant, members in others:
        other = ShipCheckpoint.open(
            tmp_path / "state", endpoint=endpoint, tenant_id=tenant, spans=members
        )
        assert other.path != path and other.ensure_key() != first
    assert len(list((tmp_path / "state").iterdir())) == 4


def test_command_dry_run_prints_the_bodies_and_sends_nothing(
    command_store: Store, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TANGLE_INGEST_URL")
    code = ship_command(
        command_store,
        [
            "ship",
            str(LEAKY),
            "--dry-run",
            "--batch-size",
            "5",
            "--known-secret-env",
            "FIXTURE_DEPLOY_KEY",
        ],
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert command_store.requests == []
    bodies = [orjson.loads(line) for line in out.splitlines()]
    assert [len(body["spans"]) for body in bodies] == [5, 5, 1]
    assert {body["wireVersion"] for body in bodies} == {WIRE_VERSION}
    for value in PLANTED:
        assert value not in out
    assert err.splitlines()[-1] == "dry run: would ship 11 spans in 3 batches; nothing sent"


def test_command_help_lists_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ship", "--help"]) == 0
    out = capsys.readouterr().out
    assert "gave up after N attempts" in out
    for code in ("0", "1", "2", "3", "4"):
        assert f"\n  {code}  " in out


# --- end to end: the reference receiver ------------------------------------------------------


@dataclass
class Receiver:
    url: str
    tenant: str
    key: str

    def trace(self, trace_id: str) -> httpx.Response:
        return httpx.get(
            f"{self.url}/v1/traces/{trace_id}",
            headers={
                "Authorization": f"Bearer {self.key}",
                "X-Tangle-Tenant-Id": self.tenant,
                "X-Tangle-Wire-Version": WIRE_VERSION,
            },
            timeout=10,
        )


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[Receiver]:
    """The reference receiver on SQLite, served by uvicorn on a free loopback port."""
    import uvicorn

    from redact.profiles import resolve_profile
    from redact.shipping import ingest as ingest_server
    from redact.shipping import store as ingest_store
    from redact.shipping import tenants

    class _Announcing(uvicorn.Server):
        """uvicorn's server, which sets `serving` once it has started to serve."""

        def __init__(self, config: uvicorn.Config) -> None:
            super().__init__(config)
            self.serving = threading.Event()

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                self.serving.set()

    key = "rk_" + "FAKE" + "receiver0123456789"
    store = ingest_store.SqliteSpanStore(tmp_path / "ingest.db")
    app = ingest_server.create_app(
        store, tenants.Tenants.single(TENANT, key), require_safe=resolve_profile("share")
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = _Announcing(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    # Waits for the server to say it serves, however slow the machine, or to have died: no
    # deadline, which a loaded machine could miss.
    while not server.serving.wait(0.05):
        assert thread.is_alive(), "the receiver stopped before it served"
    try:
        yield Receiver(f"http://127.0.0.1:{port}", TENANT, key)
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        store.close()


def test_end_to_end_the_leaky_run_lands_scrubbed(receiver: Receiver) -> None:
    spans = leaky_spans()
    trace_id = spans[0].trace_id
    assert trace_id is not None

    def ship_leaky() -> ShipResult:
        return ship_spans(
            spans,
            url=receiver.url,
            api_key=receiver.key,
            tenant_id=receiver.tenant,
            known_secrets=[KNOWN_SECRET],
            pseudonym_key=PSEUDONYM_KEY,
            batch_size=4,
            sleep=Sleeps(),
        )

    result = ship_leaky()
    assert (result.batches, result.sent, result.accepted, result.rejected) == (3, 11, 11, ())
    response = receiver.trace(trace_id)
    assert response.status_code == 200
    document = response.json()
    assert document["traceId"] == trace_id
    assert {row["spanId"] for row in document["spans"]} == {s.span_id for s in spans}
    stored = response.text
    for value in PLANTED:
        assert value not in stored, value
        assert not any(value in s for s in strings_of(document)), value
    # The same spans again, with the same pseudonym key: the same content, all accepted.
    again = ship_leaky()
    assert (again.accepted, again.rejected) == (11, ())


def test_end_to_end_through_the_command(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RECEIVER_KEY", receiver.key)
    monkeypatch.setenv("FIXTURE_DEPLOY_KEY", KNOWN_SECRET)
    code = main(
        [
            "ship",
            str(LEAKY),
            "--url",
            receiver.url,
            "--tenant",
            receiver.tenant,
            "--api-key-env",
            "RECEIVER_KEY",
            "--known-secret-env",
            "FIXTURE_DEPLOY_KEY",
        ]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    assert err.splitlines()[-1] == "shipped 11 spans in 1 batch: 11 accepted, 0 rejected"
    trace_id = leaky_spans()[0].trace_id
    assert trace_id is not None
    stored = receiver.trace(trace_id)
    assert stored.status_code == 200
    assert len(stored.json()["spans"]) == 11
    for value in PLANTED:
        assert value not in stored.text


def test_end_to_end_a_wrong_key_is_refused(receiver: Receiver) -> None:
    wrong = "rk_" + "FAKE" + "wrong-key-0123456789"
    with pytest.raises(ShipRequestRefused) as caught:
        ship_spans(
            clean_spans(),
            url=receiver.url,
            api_key=wrong,
            tenant_id=receiver.tenant,
            sleep=Sleeps(),
        )
    assert caught.value.status == 401
    assert wrong not in str(caught.value) and receiver.key not in str(caught.value)


# --- end to end: a shipment interrupted, then resumed without a key ---------------------------

RESUME_TRACE = "5e" * 16


def write_hundred_spans(path: Path) -> None:
    """100 spans of one trace, each naming a user: their pseudonyms depend on the key."""
    spans = [
        {
            "traceId": RESUME_TRACE,
            "spanId": f"{n + 1:016x}",
            "name": f"execute_tool lookup {n}",
            "kind": 1,
            "startTimeUnixNano": str(1_700_000_000_000_000_000 + n * 1000),
            "endTimeUnixNano": str(1_700_000_000_000_000_500 + n * 1000),
            "attributes": [
                {"key": "user.id", "value": {"stringValue": f"user-{n:04d}"}},
                {"key": "session.id", "value": {"stringValue": f"session-{n // 10}"}},
            ],
            "status": {},
        }
        for n in range(100)
    ]
    document = {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "refunds"}}]
                },
                "scopeSpans": [{"scope": {"name": "agent.lib"}, "spans": spans}],
            }
        ]
    }
    path.write_bytes(orjson.dumps(document) + b"\n")


class Interrupting(httpx.BaseTransport):
    """The real network until `after` requests have been answered; the next one reaches the
    store, which stores it, and then its answer is lost (the connection drops)."""

    def __init__(self, after: int) -> None:
        self.inner = httpx.HTTPTransport()
        self.after = after
        self.requests = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        response = self.inner.handle_request(request)
        if self.requests <= self.after:
            return response
        response.read()
        response.close()
        raise httpx.ReadError("the connection dropped before the answer", request=request)

    def close(self) -> None:
        self.inner.close()


def ship_to(
    receiver: Receiver, trace: Path, transport: httpx.BaseTransport | None
) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    env = Environment.current(stdout=stdout, stderr=stderr, transport=transport, sleep=Sleeps())
    argv = ["ship", str(trace), "--url", receiver.url, "--tenant", receiver.tenant]
    argv += ["--api-key-env", "RECEIVER_KEY", "--batch-size", "10", "--max-attempts", "1"]
    code = main(argv, env=env)
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture
def hundred_spans(receiver: Receiver, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("RECEIVER_KEY", receiver.key)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    trace = tmp_path / "hundred.otlp.jsonl"
    write_hundred_spans(trace)
    return trace


def test_end_to_end_an_interrupted_ship_resumes_without_a_key(
    receiver: Receiver, hundred_spans: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG):
        # Three batches answered, the fourth stored but its answer lost: the run stops.
        code, out1, err1 = ship_to(receiver, hundred_spans, Interrupting(after=3))
        assert code == 1, err1
        assert "before that: shipped 30 spans in 3 batches: 30 accepted, 0 rejected" in err1
        checkpoint = the_checkpoint(tmp_path)
        assert checkpoint.stat().st_mode & 0o777 == 0o600
        assert f"the checkpoint {checkpoint} keeps this shipment's pseudonym key" in err1
        stored = receiver.trace(RESUME_TRACE).json()["spans"]
        assert len(stored) == 40
        # The same command, no key given: the kept key, so no span conflicts with the store's.
        code, out2, err2 = ship_to(receiver, hundred_spans, None)
    assert code == 0, err2
    assert err2.splitlines()[-1] == (
        "shipped 100 spans in 10 batches: 100 accepted, 0 rejected "
        "(3 batches of them answered in an earlier run, not sent again)"
    )
    assert "rejected:" not in err2 and "already stored with a different payload" not in err2
    spans = receiver.trace(RESUME_TRACE).json()["spans"]
    ids = [row["spanId"] for row in spans]
    assert len(ids) == 100 and set(ids) == {f"{n + 1:016x}" for n in range(100)}
    assert checkpoint.stat().st_mode & 0o777 == 0o600
    logged = "\n".join(record.getMessage() for record in caplog.records)
    for form in key_forms(kept_key(checkpoint)):
        for text in (out1, err1, out2, err2, logged):
            assert form not in text


def test_end_to_end_without_the_checkpoint_the_rerun_conflicts(
    receiver: Receiver, hundred_spans: Path, tmp_path: Path
) -> None:
    # What the checkpoint prevents: the same rerun with the checkpoint removed draws a new key,
    # and the store rejects every span it already holds as a conflict.
    code, _, err = ship_to(receiver, hundred_spans, Interrupting(after=3))
    assert code == 1, err
    the_checkpoint(tmp_path).unlink()
    code, _, err = ship_to(receiver, hundred_spans, None)
    assert code == 1
    assert err.splitlines()[-1] == "shipped 100 spans in 10 batches: 60 accepted, 40 rejected"
    assert "is already stored with a different payload" in err
