"""Properties of loop detection against brute-force references on generated call sequences:
every maximal repeated cycle, every run of one tool, every group of equal calls."""

from __future__ import annotations

from collections import Counter
from itertools import groupby

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rules_support import subject, tool

from tracecheck.rules.loops import (
    ConsecutiveCalls,
    RepeatedCalls,
    RepeatedCycles,
    Run,
    periodic_runs,
)
from tracecheck.rules.predicates import RuleError

SETTINGS = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def brute_runs(seq: list[int], repetitions: int) -> set[Run]:
    """For every period, every maximal stretch where each item equals the one a period later,
    kept when it holds the block `repetitions` times and the block is no power of a shorter
    one: O(n²), obviously right."""
    found = set()
    n = len(seq)
    for period in range(2, n + 1):
        j = 0
        while j < n - period:
            if seq[j] != seq[j + period]:
                j += 1
                continue
            start = j
            while j < n - period and seq[j] == seq[j + period]:
                j += 1
            length = j - start + period
            block = seq[start : start + period]
            primitive = all(
                block != block[d:] + block[:d] for d in range(1, period) if period % d == 0
            )
            if length >= repetitions * period and primitive:
                found.add(Run(start, period, length))
    return found


@st.composite
def sequences(draw: st.DrawFn) -> list[int]:
    """Short sequences over a few tools, often with a repeated block spliced in."""
    alphabet = draw(st.integers(min_value=1, max_value=4))
    items = st.integers(min_value=1, max_value=alphabet)
    seq = draw(st.lists(items, max_size=30))
    if draw(st.booleans()):
        block = draw(st.lists(items, min_size=1, max_size=6))
        at = draw(st.integers(min_value=0, max_value=len(seq)))
        seq = seq[:at] + block * draw(st.integers(min_value=2, max_value=6)) + seq[at:]
    return seq


@SETTINGS
@given(sequences(), st.integers(min_value=2, max_value=5))
def test_periodic_runs_agree_with_brute_force(seq: list[int], repetitions: int) -> None:
    runs = periodic_runs(seq, repetitions)
    assert len(runs) == len(set(runs))
    assert set(runs) == brute_runs(seq, repetitions)


NAMES = st.sampled_from(["a", "b", "c"])


@SETTINGS
@given(st.lists(NAMES, max_size=25), st.integers(min_value=1, max_value=4))
def test_every_tool_run_past_the_limit_is_reported_once(names: list[str], limit: int) -> None:
    spans = [tool(f"t{i}", name, i, i + 0.5) for i, name in enumerate(names)]
    found = ConsecutiveCalls("c", limit).evaluate(subject(*reversed(spans)))
    expected = []
    at = 0
    for _, group in groupby(names):
        length = len(list(group))
        if length > limit:
            expected.append(f"t{at + limit}")
        at += length
    assert [v.span_id for v in found] == expected


@SETTINGS
@given(st.lists(NAMES, max_size=25), st.integers(min_value=1, max_value=3))
def test_cycles_of_calls_agree_with_brute_force(names: list[str], limit: int) -> None:
    spans = [tool(f"t{i}", name, i, i + 0.5) for i, name in enumerate(names)]
    found = RepeatedCycles("y", limit).evaluate(subject(*spans))
    seq = [ord(name) for name in names]
    expected = sorted(f"t{run.start + limit * run.period}" for run in brute_runs(seq, limit + 1))
    assert sorted(v.span_id or "" for v in found) == expected


@SETTINGS
@given(
    st.lists(
        st.tuples(NAMES, st.sampled_from([None, {"x": 1}, {"x": 1.0}, {"x": 2}])), max_size=20
    ),
    st.integers(min_value=1, max_value=3),
)
def test_repeats_agree_with_counting(calls: list[tuple[str, object]], limit: int) -> None:
    spans = [tool(f"t{i}", name, i, i + 1, args=args) for i, (name, args) in enumerate(calls)]
    counts = Counter(
        (name, None if args is None else args["x"])  # type: ignore[index]
        for name, args in calls
        if args is not None
    )
    over = sum(1 for count in counts.values() if count > limit)
    called = Counter(name for name, _ in calls)
    blind = any(args is None and called[name] > limit for name, args in calls)
    if over or not blind:
        assert len(RepeatedCalls("r", limit).evaluate(subject(*spans))) == over
    else:  # no repeat seen, but an uncaptured call may be one
        with pytest.raises(RuleError):
            RepeatedCalls("r", limit).evaluate(subject(*spans))
