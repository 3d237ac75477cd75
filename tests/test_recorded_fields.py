"""The share-safety gate leaves ids and times out of what it judges (a 16-digit id or a 19-digit
time can pass for a card number) by emptying their values in the JSON text before parsing it.
The pattern that finds them is written for speed (its opening quote outside the alternation);
it must empty exactly what the plain pattern (every branch opening with its quote) empties."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from tracecheck.sharing.recorded_bytes import _IDS, _TIMES, _neutralized

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
