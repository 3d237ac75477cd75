"""A name/value pair written as a mapping is its name's key: HTTP headers in HAR, Kubernetes env
entries, AWS tags and OTLP key/value attributes written as JSON all put the name beside the
value, where a key rule would otherwise never see it."""

from __future__ import annotations

import random
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redact import ShareStatus, assess, redact

_RNG = random.Random(20261205)


def _random(n: int) -> str:
    return "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(n))


PASSWORD = _random(6) + "x9"
API_KEY = _random(30)

SECRET_PAIRS: list[tuple[str, Any, str]] = [
    ("har-header", {"headers": [{"name": "X-API-Key", "value": API_KEY}]}, "/headers/0/value"),
    ("k8s-env", {"env": [{"name": "DB_PASSWORD", "value": PASSWORD}]}, "/env/0/value"),
    ("aws-tag", {"Tags": [{"Key": "client_secret", "Value": API_KEY}]}, "/Tags/0/Value"),
    (
        "otlp-key-value",
        {"attributes": [{"key": "db.password", "value": {"stringValue": PASSWORD}}]},
        "/attributes/0/value/stringValue",
    ),
    (
        "har-with-comment",
        {"name": "Cookie", "value": f"sid={API_KEY}", "comment": ""},
        "/value",
    ),
]


@pytest.mark.parametrize(("name", "value", "path"), SECRET_PAIRS, ids=[c[0] for c in SECRET_PAIRS])
def test_a_secret_named_by_its_pair_is_unsafe_and_redacted(
    name: str, value: Any, path: str
) -> None:
    verdict = assess(value, profile="share")
    assert verdict.status is ShareStatus.UNSAFE
    assert any(
        path in finding.paths for finding in verdict.findings if finding.category == "credential"
    )
    out = redact(value, profile="share")
    assert PASSWORD not in repr(out.value) and API_KEY not in repr(out.value)
    assert assess(out.value, profile="share").status is not ShareStatus.UNSAFE


ORDINARY_PAIRS: list[Any] = [
    {"name": "region", "value": "eu-west-1"},
    {"name": "Content-Type", "value": "application/json"},
    {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "1200"}},
    {"Key": "team", "Value": "payments"},
    {"name": "password", "value": 12345},  # a number under a credential key is a count
    {"name": "max_tokens", "value": "4096"},
    {"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
]


@pytest.mark.parametrize("value", ORDINARY_PAIRS, ids=[repr(v)[:40] for v in ORDINARY_PAIRS])
def test_an_ordinary_pair_passes_untouched(value: Any) -> None:
    assert redact(value, profile="share").value == value
    assert assess(value, profile="share").status is ShareStatus.SAFE


def test_the_name_is_kept_and_only_the_value_is_replaced() -> None:
    out = redact({"name": "X-API-Key", "value": API_KEY}, profile="share").value
    assert out == {"name": "X-API-Key", "value": "[REDACTED:credential-key]"}


def test_an_otlp_attribute_keeps_its_any_value_wrapper() -> None:
    attribute = {"key": "db.password", "value": {"stringValue": PASSWORD}}
    out = redact(attribute, profile="share").value
    assert out == {"key": "db.password", "value": {"stringValue": "[REDACTED:credential-key]"}}
    # What redact wrote is a marker, which nothing flags again.
    assert assess(out, profile="strict").status is not ShareStatus.UNSAFE


_SECRET_NAMES = st.sampled_from(["password", "api_key", "X-Auth-Token", "client_secret", "passwd"])
_NAME_KEYS = st.sampled_from(
    [("name", "value"), ("key", "value"), ("Name", "Value"), ("Key", "Value")]
)
_VALUES = st.text(alphabet=string.ascii_letters + string.digits + "!#%+", min_size=4, max_size=40)


@settings(max_examples=200, deadline=None)
@given(_SECRET_NAMES, _NAME_KEYS, _VALUES, st.booleans())
def test_any_secret_pair_leaves_nothing(
    name: str, keys: tuple[str, str], secret: str, nested: bool
) -> None:
    pair: dict[str, Any] = {keys[0]: name, keys[1]: secret}
    value: Any = {"items": [pair]} if nested else pair
    out = redact(value, profile="share").value
    assert secret not in repr(out)
    assert assess(out, profile="share").status is not ShareStatus.UNSAFE
    assert assess(value, profile="share").status is ShareStatus.UNSAFE


@pytest.mark.parametrize("profile", ["default", "share", "strict"])
def test_an_otlp_int_value_is_a_number_to_its_name(profile: str) -> None:
    # OTLP JSON writes a 64-bit integer as a string: under a name the credential rule takes
    # (`…_token`), it is the count it is once read, and a card number is still one.
    count = {"key": "gen_ai.server.time_to_first_token", "value": {"intValue": "293"}}
    assert assess(count, profile=profile).status is ShareStatus.SAFE
    assert redact(count, profile=profile).value == count
    card = {"key": "api_key", "value": {"intValue": "4111111111111111"}}
    assert assess(card, profile=profile).status is not ShareStatus.SAFE
    assert redact(card, profile=profile).value["value"] == {"intValue": "[REDACTED:card-number]"}
