"""The typed OTLP/JSON reader's fast paths (digit strings taken as integers and times without
the general parser, attributes laid over the resource's without an own dict, the checks of
ids and times made inline) build what the general reader builds, or decline.

Drawn as raw JSON, not through a writer, so that the forms a writer never produces are drawn
too: leading zeros, digit strings at and past the 64-bit bounds, digits of other scripts,
negative numbers, times of zero, ends before starts, missing ids, keys repeated."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck.readers import otlp_json_typed
from tracecheck.readers.common import ReadContext
from tracecheck.readers.otlp_json import spans_from_request
from tracecheck.readers.otlp_json_typed import typed_spans
from tracecheck.spans import ReadNote

DIGITS = st.text("0123456789", min_size=1, max_size=21)
NUMBER_TEXT = st.one_of(
    DIGITS,
    DIGITS.map(lambda digits: "-" + digits),
    DIGITS.map(lambda digits: "0" + digits),
    st.sampled_from(
        (
            "0",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "999999999999999999",
            "1000000000000000000",
            "٣",
            "1_000",
            " 1",
            "",
        )
    ),
)
KEYS = st.sampled_from(("a", "b", "service.name", "gen_ai.usage.input_tokens", ""))
VALUES = st.one_of(
    st.builds(lambda text: {"stringValue": text}, st.text(max_size=5)),
    st.builds(lambda text: {"intValue": text}, NUMBER_TEXT),
    st.builds(lambda number: {"intValue": number}, st.integers(-(2**64), 2**64)),
    st.builds(lambda flag: {"boolValue": flag}, st.booleans()),
    st.just({}),
)
ATTRIBUTES = st.lists(st.builds(lambda k, v: {"key": k, "value": v}, KEYS, VALUES), max_size=4)
TIMES = st.one_of(st.none(), NUMBER_TEXT, st.integers(0, 2**64 + 1))
IDS = st.sampled_from(("", "00000000000000000000000000000000", "5b8efff798038103d269b633813fc60c"))
SPAN_IDS = st.sampled_from(("", "0000000000000000", "00f067aa0ba902b7", "A0F067AA0BA902B7"))


@st.composite
def requests(draw: st.DrawFn) -> bytes:
    spans = []
    for _ in range(draw(st.integers(1, 4))):
        span: dict[str, Any] = {
            "traceId": draw(IDS),
            "spanId": draw(SPAN_IDS),
            "name": draw(st.sampled_from(("chat m", "execute_tool Bash", "n"))),
            "attributes": draw(ATTRIBUTES),
        }
        for field in ("startTimeUnixNano", "endTimeUnixNano"):
            time = draw(TIMES)
            if time is not None:
                span[field] = time
        spans.append(span)
    scope: dict[str, Any] = {"spans": spans}
    if draw(st.booleans()):
        scope["scope"] = {"name": "s", "attributes": draw(ATTRIBUTES)}
    resource = {"attributes": draw(ATTRIBUTES)}
    return json.dumps({"resourceSpans": [{"resource": resource, "scopeSpans": [scope]}]}).encode()


@settings(max_examples=300, deadline=None)
@given(requests())
def test_the_typed_reader_builds_what_the_general_reader_builds_or_declines(data: bytes) -> None:
    typed_notes: list[ReadNote] = []
    typed = typed_spans(data, ReadContext("f", typed_notes), "")
    if typed is None:
        return  # the general reader reads it (and errs where it must)
    general_notes: list[ReadNote] = []
    general = list(spans_from_request(orjson.loads(data), ReadContext("f", general_notes), ""))
    assert typed == general
    for mine, theirs in zip(typed, general, strict=True):
        assert list(mine.attributes.items()) == list(theirs.attributes.items())
        assert [type(value) for value in mine.attributes.values()] == [
            type(value) for value in theirs.attributes.values()
        ]
    assert typed_notes == general_notes


def test_keys_and_short_texts_are_shared_and_their_table_is_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Spans share one copy of a key or short text; the table that finds it starts afresh past
    its bound, so distinct values (times, ids) read over a long process do not pile up."""
    monkeypatch.setattr(otlp_json_typed, "_SHARED", {})
    monkeypatch.setattr(otlp_json_typed, "_SHARED_MOST", 10)
    spans = [
        {
            "traceId": "5b8efff798038103d269b633813fc60c",
            "spanId": f"{i + 1:016x}",
            "name": "n",
            "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                {"key": "distinct", "value": {"stringValue": f"value {i}"}},
            ],
        }
        for i in range(100)
    ]
    data = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()
    typed = typed_spans(data, ReadContext("f", []), "")
    assert typed is not None
    assert [span.attributes["distinct"] for span in typed] == [f"value {i}" for i in range(100)]
    first, second = (next(iter(span.attributes.items())) for span in typed[:2])
    assert first == second == ("gen_ai.operation.name", "chat")
    assert first[0] is second[0] and first[1] is second[1]
    assert len(otlp_json_typed._SHARED) <= 10 + 1 + 3  # past the bound by one span's texts
