"""String pieces: placeholders, the size cap (§B11), data URIs (§B10), JS number strings (§B8)."""

from __future__ import annotations

import pytest

from redact.strings import (
    cap_string,
    decode_data_uri_payload,
    effective_cap,
    is_placeholder,
    js_string,
    parse_data_uri,
    pseudonym,
)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[REDACTED]",
        "[redacted]",
        "[REDACTED:email]",
        "[ID:0123456789ab]",
        "***",
        "<redacted>",
        "«redacted»",
        "[HASH:deadbeef]",
    ],
)
def test_placeholders(text: str) -> None:
    assert is_placeholder(text)


@pytest.mark.parametrize(
    "text",
    ["[REDACTED:x] and more", "**", "[ID:0123456789AB]", "[HASH:dead]", "x[REDACTED]"],
)
def test_not_placeholders(text: str) -> None:
    assert not is_placeholder(text)


def test_cap_cuts_on_a_character_boundary_and_counts_the_bytes_removed() -> None:
    assert cap_string("é" * 3000, 4096) == "é" * 2048 + "…[truncated 1904 bytes]"
    assert cap_string("a" * 4096, 4096) is None
    assert cap_string("€" * 3, 4) == "€…[truncated 6 bytes]"


@pytest.mark.parametrize(
    ("asked", "cap"),
    [
        (None, 4096),
        (100, 100),
        (100.9, 100),
        (10**9, 4096),
        (-1, 4096),
        (float("inf"), 4096),
        (float("nan"), 4096),
        (True, 4096),
        (0, 0),
    ],
)
def test_max_string_bytes_only_lowers_the_cap(asked: float | None, cap: int) -> None:
    assert effective_cap(4096, asked) == cap


def test_data_uri_recognition() -> None:
    uri = parse_data_uri("DATA:Text/Plain;charset=utf-8;base64,aGVsbG8=")
    assert uri is not None and uri.mime == "text/plain" and uri.is_text
    assert parse_data_uri("data:image/png;base64,iVBORw0KGgo=, see above") is None
    assert parse_data_uri("data:text/plain,hello") is None
    assert decode_data_uri_payload("aGVs bG8=") == "hello"
    assert decode_data_uri_payload("") == ""
    assert decode_data_uri_payload("aGVsbG8") is None
    assert decode_data_uri_payload("aGVs-G8=") is None


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (42, "42"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (0.1, "0.1"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (-2.5, "-2.5"),
        (5e-324, "5e-324"),
        (-0.0, "0"),
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (2**80, "1.2089258196146292e+24"),
    ],
)
def test_numbers_are_written_as_javascript_writes_them(value: float, text: str) -> None:
    assert js_string(value) == text


def test_a_number_and_its_string_share_a_pseudonym() -> None:
    key = b"k" * 32
    assert pseudonym(key, 42) == pseudonym(key, "42") == pseudonym(key, 42.0)
    assert pseudonym(key, "u1") != pseudonym(b"j" * 32, "u1")
    assert is_placeholder(pseudonym(key, "u1"))
