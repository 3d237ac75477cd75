"""Input errors never echo input: every surface that refuses input names a place and a type,
never a value, a key, a field name or a header that may hold a secret.

Each test plants a fake secret (built at run time) in the bad part of the input and asserts that
the message, the answer body and the log hold none of it.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from surfaces import TRACE, proxy_post

from redact.shipping import INGEST_PATH, WIRE_VERSION, SqliteSpanStore, Tenants
from redact.shipping.ingest import create_app
from tracecheck import compile_contract, read_traces
from tracecheck.errors import ContractError, TraceReadError

SECRET = "sk-" + "live-" + "Q7f2Vx9Lm4Np8Rs1Tu6Wy3Za"
SPAN = "resourceSpans[0].scopeSpans[0].spans[0]"


def otlp(span: dict[str, Any]) -> bytes:
    base = {"traceId": TRACE, "spanId": "1" * 16, "name": "x"}
    return orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{**base, **span}]}]}]})


def kv(value: Any, key: Any = "k") -> dict[str, Any]:
    return {"attributes": [{"key": key, "value": value}]}


# --- readers ----------------------------------------------------------------------------------

OTLP_CASES = [
    (
        kv({SECRET: 1}),
        f"{SPAN}.attributes[0].value: has no value field OTLP defines (1 other field(s))",
    ),
    (kv({"intValue": SECRET}), f"{SPAN}.attributes[0].value.intValue: is not an integer (a str)"),
    (
        kv(SECRET),
        f"{SPAN}.attributes[0].value: is a string of 32 character(s), not an AnyValue object",
    ),
    (
        {"spanId": SECRET},
        f"{SPAN}.spanId: a string of 32 character(s) is neither 16 hex digits nor base64",
    ),
    (
        {"kind": SECRET},
        f"{SPAN}.kind: a string of 32 character(s) is not a span kind (0 to 5, or its name)",
    ),
    (
        {"status": {"code": SECRET}},
        f"{SPAN}.status.code: a string of 32 character(s) is not a status code",
    ),
    (
        {"startTimeUnixNano": SECRET},
        f"{SPAN}.startTimeUnixNano: a string of 32 character(s) is not an unsigned integer",
    ),
]


@pytest.mark.parametrize(("span", "message"), OTLP_CASES)
def test_otlp_reader_errors_name_the_place_and_type(span: dict[str, Any], message: str) -> None:
    with pytest.raises(TraceReadError) as info:
        read_traces(otlp(span))
    assert str(info.value) == f"<bytes>: {message}"
    assert SECRET not in str(info.value)


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("traceId", "[0].traceId: a string of 32 character(s) is neither 32 hex digits nor base64"),
        ("start_time", "[0].start_time: a string of 32 character(s) is not an ISO-8601 time"),
        ("status", "[0].status: a string of 32 character(s) is not a status code"),
    ],
)
def test_flat_reader_errors_name_the_place_and_type(field: str, message: str) -> None:
    rows = [{"traceId": TRACE, "spanId": "1" * 16, "name": "x", field: SECRET}]
    with pytest.raises(TraceReadError) as info:
        read_traces(orjson.dumps(rows))
    assert str(info.value) == f"<bytes>: {message}"


# --- the proxy ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("span", "message"), OTLP_CASES)
def test_the_proxy_400_body_and_log_hold_no_input(
    span: dict[str, Any], message: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG):
        response, app, upstream = proxy_post(otlp(span), "application/json")
    assert response.status_code == 400
    assert orjson.loads(response.content)["message"] == f"request body: {message}"
    assert SECRET not in response.text
    assert SECRET not in caplog.text
    assert upstream.bodies == []
    assert app.metrics.value("tracecheck_proxy_requests_total", outcome="bad_request") == 1


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        (
            {"content-type": f"application/{SECRET}"},
            "the Content-Type is not supported: send application/x-protobuf or application/json",
        ),
        (
            {"content-type": "application/json", "content-encoding": SECRET},
            "the Content-Encoding is not supported "
            "(use gzip, deflate, zstd, snappy, x-snappy-framed or identity)",
        ),
    ],
)
def test_the_proxy_415_does_not_repeat_the_header(headers: dict[str, str], message: str) -> None:
    response, _, _ = proxy_post(otlp({}), headers.pop("content-type"), headers)
    assert response.status_code == 415
    assert message in response.text
    assert SECRET not in response.text


# --- the receiver -------------------------------------------------------------------------------

KEY = "acme-" + "key-" + "0123456789abcdef"


@pytest.fixture
def receiver(tmp_path: Path) -> Any:
    store = SqliteSpanStore(tmp_path / "spans.db")
    yield create_app(store, Tenants.single("acme", KEY))
    store.close()


def call(app: Any, method: str, path: str, body: Any = None, **headers: str) -> httpx.Response:
    sent = {
        "Authorization": f"Bearer {KEY}",
        "X-Tangle-Tenant-Id": "acme",
        "X-Tangle-Wire-Version": WIRE_VERSION,
        "Idempotency-Key": "k-" + str(id(body)),
        **headers,
    }

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://ingest.test") as client:
            content = None if body is None else orjson.dumps(body)
            return await client.request(method, path, headers=sent, content=content)

    return asyncio.run(go())


def row(**fields: Any) -> dict[str, Any]:
    base = {
        "traceId": TRACE,
        "spanId": "1" * 16,
        "name": "x",
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": {},
    }
    return {**base, **fields}


@pytest.mark.parametrize(
    ("span", "reason"),
    [
        (
            row(attributes={SECRET: {"nested": 1}}),
            "attributes: the value of entry 1 is an object, not a string, number or boolean",
        ),
        (row(**{SECRET: "x"}), "the span has a field the wire does not define"),
        (
            row(events=[{"name": "e", "timeUnixNano": "1", SECRET: 1}]),
            "events[0] has a field the wire does not define",
        ),
        (
            row(events=[{"name": "e", "timeUnixNano": "1", "attributes": {SECRET: None}}]),
            "events[0].attributes: the value of entry 1 is null, not a string, number or boolean",
        ),
        (row(status={"code": SECRET}), "status.code is not one of OK, ERROR, UNSET"),
    ],
)
def test_rejection_reasons_name_places_never_keys_or_fields(
    receiver: Any, span: dict[str, Any], reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG):
        response = call(
            receiver, "POST", INGEST_PATH, {"wireVersion": WIRE_VERSION, "spans": [span]}
        )
    assert response.json() == {"accepted": 0, "rejected": [{"index": 0, "reason": reason}]}
    assert SECRET not in response.text
    assert SECRET not in _server_log(caplog)


@pytest.mark.parametrize(
    ("method", "path", "body", "headers", "status", "error"),
    [
        (
            "POST",
            INGEST_PATH,
            {"wireVersion": WIRE_VERSION, "spans": [], SECRET: 1},
            {},
            400,
            "the body has a field the wire does not define",
        ),
        (
            "POST",
            INGEST_PATH,
            {"wireVersion": SECRET, "spans": []},
            {},
            400,
            "wireVersion is not accepted: this server accepts 2026-07-24.v1 only",
        ),
        (
            "POST",
            INGEST_PATH,
            {"wireVersion": WIRE_VERSION, "spans": []},
            {"X-Tangle-Wire-Version": SECRET},
            400,
            "X-Tangle-Wire-Version is not accepted: this server accepts 2026-07-24.v1 only",
        ),
        (
            "POST",
            INGEST_PATH,
            {"wireVersion": WIRE_VERSION, "spans": []},
            {"X-Tangle-Tenant-Id": SECRET},
            404,
            "X-Tangle-Tenant-Id names no known tenant",
        ),
        (
            "POST",
            INGEST_PATH,
            {"wireVersion": WIRE_VERSION, "spans": []},
            {"Content-Type": f"text/{SECRET}"},
            415,
            "the Content-Type is not accepted: send JSON",
        ),
        (
            "POST",
            INGEST_PATH,
            {"wireVersion": WIRE_VERSION, "spans": []},
            {"Content-Encoding": SECRET},
            415,
            "the Content-Encoding is not accepted: send the body uncompressed",
        ),
        (
            "GET",
            f"/v1/{SECRET}",
            None,
            {},
            404,
            "no such route: POST /v1/ingest/traces, GET /v1/traces/<traceId>, GET /healthz",
        ),
        ("POST", f"/v1/traces/{SECRET}", None, {}, 405, "use GET on /v1/traces/<traceId>"),
    ],
)
def test_receiver_errors_never_repeat_what_was_sent(
    receiver: Any,
    method: str,
    path: str,
    body: Any,
    headers: dict[str, str],
    status: int,
    error: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.DEBUG):
        response = call(receiver, method, path, body, **headers)
    assert (response.status_code, response.json()) == (status, {"error": error})
    assert SECRET not in _server_log(caplog)


def _server_log(caplog: pytest.LogCaptureFixture) -> str:
    """What the servers logged (the test's own HTTP client logs the URLs it requests)."""
    return "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("redact"))


def test_a_tenants_file_problem_names_the_type_of_a_bad_id() -> None:
    from redact.shipping import TenantError

    with pytest.raises(TenantError) as info:
        Tenants.from_mapping({4111111111111111: "sha256:" + "0" * 64})
    assert str(info.value) == "tenants: a tenant id is a number, not a non-empty string"


# --- contracts --------------------------------------------------------------------------------


def test_a_contract_error_does_not_repeat_a_pattern_or_a_key() -> None:
    spec = {
        "name": "no live keys",
        "rules": [
            {"kind": "never", "label": "a", "p": {"tool": {"$regex": f"({SECRET}"}}},
            {"kind": "never", "label": "b", "p": {"attr": {"x": 1}}},
        ],
    }
    with pytest.raises(ContractError) as info:
        compile_contract(spec)
    assert str(info.value) == (
        "rules[0].p.tool.$regex: is not a valid regular expression: missing ) at position 33"
    )
    assert SECRET not in str(info.value)
