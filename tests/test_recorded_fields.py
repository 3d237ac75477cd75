"""The share-safety gate leaves ids and times out of what it judges (a 16-digit id or a 19-digit
time can pass for a card number) by emptying their values in the JSON text before parsing it.
The pattern that finds them is written for speed (its opening quote outside the alternation);
it must empty exactly what the plain pattern (every branch opening with its quote) empties."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st

from redact import KnownSecrets, ShareStatus, ShareVerdict
from redact.profiles import profile_named
from tracecheck.sharing.recorded_bytes import _IDS, _TIMES, _neutralized, assess_recorded

# The straightforward pattern, as first written: the oracle.
_PLAIN = re.compile(
    rb'("(?:' + _IDS + rb')"\s*:\s*)(?:"[0-9A-Za-z+/=_-]*"|[0-9]+)'
    rb'|("(?:' + _TIMES + rb')"\s*:\s*)(?:"[0-9T:.+Z -]*"|-?[0-9][0-9.eE+-]*)'
)


def _plain(data: bytes) -> bytes:
    return _PLAIN.sub(lambda match: (match.group(1) or match.group(2)) + b'""', data)


_NAMES = (_IDS + b"|" + _TIMES).split(b"|")
_PIECES = st.sampled_from(
    [
        *_NAMES,
        *(name[:-1] for name in _NAMES),  # a name cut short
        b'"',
        b'\\"',
        b":",
        b" ",
        b"\n",
        b"\t",
        b",",
        b"{",
        b"}",
        b"-",
        b".",
        b"e",
        b"+",
        b"Z",
        b"T",
        b"=",
        b"_",
        b"x",
        b"0",
        b"4111111111111111",
        b"2026-12-05T10:00:00Z",
        "é".encode(),
    ]
)


@given(st.lists(_PIECES, max_size=40).map(b"".join))
def test_ids_and_times_are_emptied_as_the_plain_pattern_empties_them(data: bytes) -> None:
    assert _neutralized(data) == _plain(data)


def test_an_id_and_a_time_are_emptied_and_free_text_is_kept() -> None:
    line = (
        b'{"traceId": "4111111111111111", "startTimeUnixNano":"1733392800000000000",'
        b' "name": "4111111111111111", "duration": -1.5e3}'
    )
    assert _neutralized(line) == (
        b'{"traceId": "", "startTimeUnixNano":"", "name": "4111111111111111", "duration": ""}'
    )


# The containers a trace format defines under names that elsewhere hold content: under `strict`
# (raw content removed) they are structure, not content, while what they hold is still judged.
def _strict(document: object, tmp_path: Path) -> ShareVerdict:
    path = tmp_path / "trace.json"
    path.write_bytes(orjson.dumps(document))
    return assess_recorded(path, profile_named("strict"), KnownSecrets(()))


_CONTEXT = {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331"}


def test_span_contexts_of_the_js_sdk_are_structure(tmp_path: Path) -> None:
    span = {"name": "chat", "_spanContext": _CONTEXT, "parentSpanContext": _CONTEXT}
    assert _strict([span, span], tmp_path).status is ShareStatus.SAFE


def test_the_jaeger_query_result_is_structure(tmp_path: Path) -> None:
    assert _strict({"result": {"resourceSpans": []}}, tmp_path).status is ShareStatus.SAFE


def test_what_a_structure_holds_is_still_judged(tmp_path: Path) -> None:
    token = "gh" + "p_" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    span = {"spanContext": {**_CONTEXT, "traceState": f"t={token}"}}
    assert _strict([span], tmp_path).status is ShareStatus.UNSAFE
    raw = {"spanContext": _CONTEXT, "attributes": {"result": {"rows": 3}}}
    assert _strict([raw], tmp_path).status is ShareStatus.UNSAFE
    # Only the query API's envelope, not a `result` anywhere else.
    assert _strict({"result": {"rows": 3}}, tmp_path).status is ShareStatus.UNSAFE
