"""Every parser of configuration and wire input either gives its value or raises its own error.

Contract documents and trace files have their own properties (test_contract_properties,
test_sniff); these cover the rest: redaction profiles, ingest tenant files, the hosted-ingest
span rows and request bodies, `--listen` addresses and `Retry-After` headers.
"""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redact.profiles import Profile, ProfileError, load_profile
from redact.shipping import (
    INGEST_PATH,
    WIRE_VERSION,
    SqliteSpanStore,
    TenantError,
    Tenants,
    key_hash,
    parse_retry_after,
    validate_span,
)
from redact.shipping.ingest import create_app
from tracecheck.cli.serving import parse_listen

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


def _shaped(keys: list[str], values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects that use the real field names, so that validation goes past the first check."""
    return st.dictionaries(st.sampled_from(keys), values, max_size=len(keys))


PROFILE_KEYS = ["name", "extends", "maxStringBytes", "keys", "detectors", "colour"]
PROFILE_VALUES = (
    JSON
    | st.sampled_from(["share", "default", "strict", "shar"])
    | _shaped(["credential", "identifier", "email", "disable", "enable"], JSON)
    | st.builds(lambda ids: {"disable": ids}, st.lists(st.sampled_from(["phone", "iban", "x"])))
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(JSON | _shaped(PROFILE_KEYS, PROFILE_VALUES))
def test_a_profile_document_loads_or_is_refused(document: Any) -> None:
    try:
        profile = load_profile(document)
    except ProfileError as exc:
        assert exc.problems
    else:
        assert isinstance(profile, Profile)


@settings(max_examples=200)
@given(st.text(max_size=80))
def test_profile_text_loads_or_is_refused(text: str) -> None:
    try:
        load_profile(text)
    except ProfileError as exc:
        assert str(exc)


TENANT_HASH = key_hash("tenant-key-" + "0" * 8)


@settings(max_examples=200)
@given(JSON | st.dictionaries(st.text(max_size=6), st.sampled_from([TENANT_HASH, "sha256:x"])))
def test_a_tenants_mapping_loads_or_is_refused(document: Any) -> None:
    try:
        tenants = Tenants.from_mapping(document)
    except TenantError as exc:
        assert str(exc)
    else:
        assert len(tenants) == len(document)


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=80))
def test_a_tenants_file_loads_or_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "tenants.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        Tenants.from_file(path)
    except TenantError as exc:
        assert str(exc).startswith(str(path))


ROW_KEYS = [
    "traceId",
    "spanId",
    "parentSpanId",
    "name",
    "kind",
    "startTimeUnixNano",
    "endTimeUnixNano",
    "attributes",
    "events",
    "status",
    "resource",
]
ROW_VALUES = (
    JSON
    | st.sampled_from(["a" * 32, "b" * 16, "1700000000000000000", "OK", "ERROR"])
    | _shaped(["code", "message", "name", "timeUnixNano", "attributes"], JSON)
)


@settings(max_examples=300)
@given(JSON | _shaped(ROW_KEYS, ROW_VALUES))
def test_a_span_row_validates_or_says_why_not(row: Any) -> None:
    try:
        stored = validate_span(row)
    except ValueError as exc:
        assert str(exc)
    else:
        assert isinstance(stored, dict)
        assert validate_span(stored) == stored  # what is stored is a valid row again


@pytest.fixture(scope="module")
def ingest(tmp_path_factory: pytest.TempPathFactory) -> Any:
    store = SqliteSpanStore(tmp_path_factory.mktemp("ingest") / "spans.db")
    yield create_app(store, Tenants.single("acme", "tenant-key-" + "0" * 8))
    store.close()


_requests = iter(range(1_000_000))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.binary(max_size=64).map(lambda body: ("bytes", body))
    | (JSON | _shaped(["wireVersion", "spans"], JSON | st.just(WIRE_VERSION))).map(
        lambda document: ("json", json.dumps(document).encode())
    )
    | st.lists(_shaped(ROW_KEYS, ROW_VALUES), max_size=3).map(
        lambda rows: ("json", json.dumps({"wireVersion": WIRE_VERSION, "spans": rows}).encode())
    )
)
def test_any_ingest_body_is_answered_never_with_a_server_error(
    ingest: Any, sent: tuple[str, bytes]
) -> None:
    _, body = sent
    headers = {
        "Authorization": "Bearer tenant-key-" + "0" * 8,
        "X-Tangle-Tenant-Id": "acme",
        "X-Tangle-Wire-Version": WIRE_VERSION,
        "Idempotency-Key": f"property-{next(_requests)}",
        "Content-Type": "application/json",
    }

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=ingest)
        async with httpx.AsyncClient(transport=transport, base_url="http://ingest.test") as client:
            return await client.post(INGEST_PATH, content=body, headers=headers)

    response = asyncio.run(go())
    assert response.status_code < 500, response.text
    assert isinstance(response.json(), dict)


@given(st.text(max_size=40))
def test_a_listen_address_parses_or_says_why_not(text: str) -> None:
    try:
        host, port = parse_listen(text)
    except ValueError as exc:
        assert str(exc)
    else:
        assert host and 0 <= port < 65536


@given(st.text(max_size=40) | st.integers(min_value=-10, max_value=10**12).map(str))
def test_retry_after_is_seconds_or_none(value: str) -> None:
    seconds = parse_retry_after(value)
    assert seconds is None or (math.isfinite(seconds) and seconds >= 0)
