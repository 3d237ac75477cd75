"""What the detector test modules share: the prefilter-covers-the-pattern property and the
linear-time check on hostile input."""

from __future__ import annotations

import time
from collections.abc import Iterable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redact.detectors import Detector
from redact.engine import re2

HOSTILE_SIZE = 100_000


def fill(unit: str, size: int = HOSTILE_SIZE) -> str:
    """`unit` repeated to `size` characters."""
    return (unit * (size // len(unit) + 1))[:size]


def texts_around(examples: list[str], *others: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Text made of a detector's examples, cut-out pieces of them, and other pieces."""
    example = st.sampled_from(examples)
    cut = st.tuples(example, st.integers(0, 40), st.integers(1, 80)).map(
        lambda t: t[0][t[1] : t[1] + t[2]]
    )
    return st.lists(st.one_of(example, cut, *others), max_size=8).map("".join)


def assert_prefilter_covers(
    detector: Detector, texts: st.SearchStrategy[str], max_examples: int
) -> None:
    """Whenever the precise pattern accepts a match, the RE2 prefilter matches the UTF-8 text."""
    prefilter = re2.compile(detector.prefilter.encode())

    @settings(
        max_examples=max_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    @given(texts)
    def holds(text: str) -> None:
        if detector.search(text):
            assert prefilter.search(text.encode()), text

    holds()


def assert_linear_time(detector: Detector, units: Iterable[str]) -> None:
    """Each unit repeated to 100 KB is scanned in under a second. CPU time, not wall time, so
    other processes on the machine count less; a quadratic pattern takes minutes, so the bound
    leaves a slow or busy machine ten times the usual 0.1 s."""
    total = 0.0
    for unit in units:
        text = fill(unit)
        started = time.process_time()
        list(detector.find(text))
        spent = time.process_time() - started
        assert spent < 1.0, repr(unit)
        total += spent
    assert total < 4.0
