"""A detector with `starts` tries its precise pattern only where a match can begin: it must
find exactly what scanning every offset finds, in any text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from redact.detectors import Detector
from redact.profiles import PROFILES

ANCHORED = [
    d
    for d in PROFILES["strict"].credential_detectors + PROFILES["strict"].personal_detectors
    if d.starts is not None
]

_VALUE = "Zq8x0Pw9Lm2Ty7RkVb3N"
fragments = st.sampled_from(
    [
        "api_key",
        "apiKey",
        "SECRET_KEY",
        "dbPassword",
        "token",
        "Authorization",
        "secretkey",
        "passwd",
        " = ",
        ": ",
        ":=",
        "=>",
        ">",
        '"',
        "'",
        ",",
        "\n",
        " ",
        "Bearer ",
        _VALUE,
        "é",
        "\u212a",  # the Kelvin sign, which RE2 folds to k
        "\ud800",
        "😀",
        "token.py::test_reading",
    ]
)
texts = st.lists(st.one_of(fragments, st.text(max_size=6)), max_size=14).map("".join)


def test_some_detector_is_anchored() -> None:
    assert [d.id for d in ANCHORED] == ["keyword-assignment"]


@settings(max_examples=400, deadline=None)
@given(texts, st.sampled_from(ANCHORED))
def test_anchored_finds_what_scanning_finds(text: str, detector: Detector) -> None:
    scanned = [m.span() for m in detector._scanned(text)]
    anchored = [m.span() for m in detector._anchored(text)]
    assert anchored == scanned


def test_a_secret_after_non_ascii_text_is_found_at_its_offset() -> None:
    detector = ANCHORED[0]
    text = "é" * 40 + f" api_key = '{_VALUE}' and \ud800 token: {_VALUE[::-1]}"
    assert list(detector.find(text)) == [
        m.span() for m in detector._scanned(text) if detector.accept is None or detector.accept(m)
    ]
    assert list(detector.find(text))
