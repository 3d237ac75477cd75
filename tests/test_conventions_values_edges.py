"""Edges of reading recorded values: pointers through lists, JSON text and bytes, counts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tracecheck.conventions import fields
from tracecheck.conventions.values import MISSING, number, value_at


@pytest.mark.parametrize(
    ("attributes", "spec", "expected"),
    [
        # `*` keeps what each item finds and skips items where nothing is found.
        ({"k": [{"n": 1}, {"m": 2}, {"n": 3}]}, "k#/*/n", [1, 3]),
        # A list recorded as JSON text inside an object is decoded to follow the pointer.
        ({"k": {"a": "[5, 6]"}}, "k#/a/1", 6),
        # ... and JSON text encoded again as a JSON string, however many times.
        ({"k": {"a": json.dumps(json.dumps({"b": 1}))}}, "k#/a/b", 1),
        ({"k": json.dumps(json.dumps(json.dumps({"b": [2]})))}, "k#/b/0", 2),
        # A JSON string that holds no JSON text leads nowhere.
        ({"k": {"a": json.dumps("plain")}}, "k#/a/b", MISSING),
        # An index equal to the list's length is past its end.
        ({"k": {"a": [5, 6]}}, "k#/a/2", MISSING),
        # JSON recorded as its bytes, a list as well as an object.
        ({"k": b"[7, 8]"}, "k#/1", 8),
        ({"k": b'{"a": 9}'}, "k#/a", 9),
        # Bytes that are not JSON: kept as recorded without a pointer, missing with one.
        ({"k": b"{not json"}, "k#", b"{not json"),
        ({"k": b"{not json"}, "k#/a", MISSING),
        # A field that is not decoded reads the attribute as it is, bytes included.
        ({"k": b'{"a": 9}'}, "k", b'{"a": 9}'),
    ],
)
def test_a_field_reads_what_is_recorded_at_its_place(
    attributes: dict[str, Any], spec: str, expected: Any
) -> None:
    assert value_at(attributes, fields(spec)[0]) == expected


def test_a_count_recorded_as_a_whole_float_reads_as_an_integer() -> None:
    assert type(number(3.0)) is int
    assert number(3.0) == 3
    assert type(number(2.5)) is float


def test_missing_names_itself() -> None:
    assert repr(MISSING) == "MISSING"
