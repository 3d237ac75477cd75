"""Wrong values that would change a verdict are read errors, not facts (inputs.md).

An attribute key that is not a string (`true` became the key "True" in `redact` and the proxy,
and an internal error in `check`), a time past 2^64 - 1 or with a fraction, and an `intValue`
Python's `int()` reads but JSON and protobuf do not (`"1_000"`, `" 5"`, other scripts' digits)
are refused with their place and type. Both OTLP/JSON paths (typed and general) agree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from surfaces import TRACE, proxy_post

from tracecheck import read_traces
from tracecheck.cli import ExitCode, main
from tracecheck.errors import TraceReadError
from tracecheck.readers.common import described, parse_int64, parse_unix_nano

SPAN = "resourceSpans[0].scopeSpans[0].spans[0]"


def document(span: dict[str, Any] | None = None, **resource: Any) -> bytes:
    base: dict[str, Any] = {"traceId": TRACE, "spanId": "1" * 16, "name": "x"}
    entry: dict[str, Any] = {"scopeSpans": [{"spans": [{**base, **(span or {})}]}]}
    if resource:
        entry["resource"] = {"attributes": [{"key": k, "value": v} for k, v in resource.items()]}
    return orjson.dumps({"resourceSpans": [entry]})


def attribute(key: Any, value: Any = None) -> dict[str, Any]:
    return {"attributes": [{"key": key, "value": value or {"stringValue": "v"}}]}


def read_error(data: bytes) -> str:
    with pytest.raises(TraceReadError) as info:
        read_traces(data)
    return str(info.value)


# --- attribute keys ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "kind"), [(True, "a boolean"), (None, "null"), (5, "an integer"), ([], "a list")]
)
def test_a_non_string_attribute_key_is_a_read_error(
    key: Any, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.otlp.json"
    path.write_bytes(document(attribute(key)))
    expected = f"{path}: {SPAN}.attributes[0].key: is {kind}, not a string"
    contract = tmp_path / "c.json"
    contract.write_text('{"name": "any", "tools": {"forbidden": ["Bash"]}}')
    assert main(["check", str(path), "--contract", str(contract)]) == ExitCode.UNREADABLE
    assert capsys.readouterr().err == f"tracecheck: error: {expected}\n"
    out = tmp_path / "out.json"
    assert main(["redact", str(path), "-o", str(out)]) == ExitCode.UNREADABLE
    assert capsys.readouterr().err == f"tracecheck: error: {expected}\n"
    assert not out.exists()
    response, _, upstream = proxy_post(path.read_bytes(), "application/json")
    assert response.status_code == 400
    assert orjson.loads(response.content)["message"] == (
        f"request body: {SPAN}.attributes[0].key: is {kind}, not a string"
    )
    assert upstream.bodies == []


def test_non_string_keys_are_refused_at_every_depth() -> None:
    nested = {"kvlistValue": {"values": [{"key": False, "value": {"intValue": "1"}}]}}
    assert read_error(document(attribute("outer", nested))) == (
        f"<bytes>: {SPAN}.attributes[0].value.kvlistValue.values[0].key: is a boolean, not a string"
    )
    assert read_error(document(None, **{"ok": {"stringValue": "v"}}).replace(b'"ok"', b"7")) == (
        "<bytes>: resourceSpans[0].resource.attributes[0].key: is an integer, not a string"
    )
    event = {"events": [{"name": "e", "attributes": [{"key": None, "value": {"boolValue": True}}]}]}
    assert read_error(document(event)) == (
        f"<bytes>: {SPAN}.events[0].attributes[0].key: is null, not a string"
    )


# --- times ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (
            "18446744073709551616",
            "a string of 20 character(s) is beyond 2^64 - 1, the latest time OTLP holds",
        ),
        # orjson reads a number past 64 bits as a float.
        (18446744073709551616, "a number is beyond 2^64 - 1, the latest time OTLP holds"),
        (1.5, "a non-integral number is not an unsigned integer"),
        (1.9e19, "a number is beyond 2^64 - 1, the latest time OTLP holds"),
        ("1.5", "a string of 3 character(s) is not an unsigned integer"),
        (-1, "a negative integer is not an unsigned integer"),
        ("1e9", "a string of 3 character(s) is not an unsigned integer"),
    ],
)
def test_a_time_past_64_bits_or_with_a_fraction_is_a_read_error(raw: Any, reason: str) -> None:
    data = document({"startTimeUnixNano": "BIG" if raw == 2**64 else raw})
    data = data.replace(b'"BIG"', str(2**64).encode())  # past what orjson writes
    assert read_error(data) == f"<bytes>: {SPAN}.startTimeUnixNano: {reason}"


def test_the_largest_time_is_read() -> None:
    (trace,) = read_traces(document({"startTimeUnixNano": str(2**64 - 1)}))
    assert trace.spans[0].start_ns == 2**64 - 1
    assert parse_unix_nano(2**64 - 1) == 2**64 - 1


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        (
            {"start_time": "9999-01-01T00:00:00Z"},
            "[0].start_time: a string of 20 character(s) is a time after 2554, past 2^64 - 1 "
            "nanoseconds",
        ),
        (
            {"start_time": 1e30},
            "[0].start_time: a number is beyond 2^64 - 1 nanoseconds, the latest time",
        ),
        (
            {"startedAt": 2**63},
            "[0].startedAt: an integer is beyond 2^64 - 1 nanoseconds, the latest time",
        ),
        (
            {"startTimeUnixNano": "99999999999999999999"},
            "[0].startTimeUnixNano: a string of 20 character(s) is beyond 2^64 - 1, the latest "
            "time OTLP holds",
        ),
    ],
)
def test_flat_row_times_past_64_bits_are_read_errors(row: dict[str, Any], reason: str) -> None:
    rows = [{"traceId": TRACE, "spanId": "1" * 16, "name": "x", **row}]
    assert read_error(orjson.dumps(rows)) == f"<bytes>: {reason}"


# --- integers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("1_000", "is not an integer (a str)"),
        (" 5", "is not an integer (a str)"),
        ("５", "is not an integer (a str)"),  # a fullwidth digit
        ("+5", "is not an integer (a str)"),
        ("1e3", "is not an integer (a str)"),
        ("9223372036854775808", "is beyond the 64-bit integer range (a str)"),
        (9223372036854775808, "is beyond the 64-bit integer range (a number)"),
        (1.5, "is not an integer (a float)"),
    ],
)
def test_an_int_value_protobuf_would_not_read_is_a_read_error(raw: Any, reason: str) -> None:
    data = document(attribute("n", {"intValue": raw}))
    assert read_error(data) == f"<bytes>: {SPAN}.attributes[0].value.intValue: {reason}"


@pytest.mark.parametrize(("raw", "value"), [("-5", -5), ("0", 0), (7, 7), (7.0, 7)])
def test_an_int_value_protobuf_reads_is_read(raw: Any, value: int) -> None:
    (trace,) = read_traces(document(attribute("n", {"intValue": raw})))
    assert trace.spans[0].attributes["n"] == value


def test_parse_int64_and_described_never_show_the_value() -> None:
    assert parse_int64("-9223372036854775808") == -(2**63)
    for text in ("1_000", "٣", "0x10", ""):
        with pytest.raises(ValueError) as info:
            parse_int64(text)
        assert str(info.value) == f"a string of {len(text)} character(s) is not an integer"
    assert [described(v) for v in (4111111111111111, -3, 2.5, 2.0, float("nan"), True, None)] == [
        "an integer",
        "a negative integer",
        "a non-integral number",
        "a number",
        "a non-finite number",
        "a boolean",
        "null",
    ]
