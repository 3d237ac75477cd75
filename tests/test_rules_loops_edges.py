"""Edges of loop detection: a run measured again item by item when its hashed extent is wrong,
the galloping search's cost, and the loop rules' messages at their limits (a nameless call
among named ones, six cycle members, more blind tools than are listed)."""

from __future__ import annotations

from itertools import groupby

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_rules_support import subject, tool

from tracecheck.rules.loops import RepeatedCalls, RepeatedCycles, _checked, _gallop, periodic_runs
from tracecheck.rules.predicates import RuleError


def run_through(seq: list[int], period: int, sample: int) -> tuple[int, int]:
    """(start, length) of the maximal stretch with period `period` through `sample`: the
    positions k with seq[k] == seq[k + period] grouped into consecutive stretches, the one
    holding `sample` taken, a period added for the block its last match repeats."""
    matches = [k for k in range(len(seq) - period) if seq[k] == seq[k + period]]
    for _, group in groupby(enumerate(matches), key=lambda pair: pair[1] - pair[0]):
        stretch = [k for _, k in group]
        if stretch[0] <= sample <= stretch[-1]:
            return stretch[0], len(stretch) + period
    raise AssertionError("the sample is in no run")


# ------------------------------------------------------------------ a run's extent confirmed


# (sequence, period, claimed start, claimed length): the sample is the multiple of the period
# at or after the claimed start, as periodic_runs samples; the claims are what colliding
# hashes could have reported.
CLAIMS = [
    pytest.param("abababab", 2, 0, 8, id="right-claim-kept"),
    pytest.param("abababab", 2, 2, 6, id="run-reaches-back-to-0"),
    pytest.param("abababab", 2, 1, 7, id="claim-starts-at-1-run-at-0"),
    pytest.param("xabababab", 2, 1, 6, id="run-reaches-the-end"),
    pytest.param("xabababab", 2, 1, 9, id="claim-past-the-end"),
    pytest.param("ababab", 2, 0, 4, id="claim-short-of-the-end"),
    pytest.param("xyabababxy", 2, 2, 8, id="claim-too-long-inner-mismatch"),
    pytest.param("cxababab", 2, 3, 5, id="starts-at-2-not-1"),
    pytest.param("aabcabcabcz", 3, 1, 9, id="period-3-from-1"),
    pytest.param("aabcabcabcz", 3, 2, 8, id="period-3-claim-late"),
    pytest.param("zabcabcabca", 3, 1, 10, id="period-3-to-the-end"),
    pytest.param("abcdabcdabcdq", 4, 2, 8, id="period-4-claim-late"),
    pytest.param("qabcdabcdabcd", 4, 3, 10, id="period-4-sample-4"),
    pytest.param("xabcxabcxabcx", 4, 3, 9, id="period-4-claim-short-both-sides"),
]


@pytest.mark.parametrize(("text", "period", "start", "length"), CLAIMS)
def test_a_claimed_extent_becomes_the_run_through_its_sample(
    text: str, period: int, start: int, length: int
) -> None:
    seq = [ord(c) for c in text]
    sample = -(-start // period) * period
    assert _checked(seq, period, start, length) == run_through(seq, period, sample)


@st.composite
def claims(draw: st.DrawFn) -> tuple[list[int], int, int, int, int]:
    """A sequence, a period, a sample (a multiple of the period where an item equals the one a
    period later) and any extent a hash could claim for the run there: starting less than a
    period before the sample, ending after its match."""
    alphabet = draw(st.integers(min_value=1, max_value=3))
    seq = draw(st.lists(st.integers(min_value=1, max_value=alphabet), min_size=4, max_size=24))
    period = draw(st.integers(min_value=2, max_value=len(seq) // 2))
    samples = [i for i in range(0, len(seq) - period, period) if seq[i] == seq[i + period]]
    if not samples:
        seq = seq[:period] * 2 + seq[2 * period :]
        samples = [0]
    sample = draw(st.sampled_from(samples))
    start = draw(st.integers(min_value=max(0, sample - period + 1), max_value=sample))
    end = draw(st.integers(min_value=sample + period + 1, max_value=len(seq)))
    return seq, period, sample, start, end - start


@settings(max_examples=300, derandomize=True, deadline=None)
@given(claims())
def test_whatever_extent_is_claimed_the_run_through_the_sample_is_returned(
    claim: tuple[list[int], int, int, int, int],
) -> None:
    seq, period, sample, start, length = claim
    assert _checked(seq, period, start, length) == run_through(seq, period, sample)


# ----------------------------------------------------------------------------- the gallop


@pytest.mark.parametrize("cap", [1, 2, 9, 64, 1000])
def test_gallop_finds_the_longest_length_that_holds(cap: int) -> None:
    for answer in range(min(cap, 8), cap + 1):
        assert _gallop(min(answer, 8), cap, lambda length, a=answer: length <= a) == answer


@pytest.mark.parametrize("answer", [9, 100, 1234, 2047, 3000, 4095, 4096])
def test_gallop_asks_logarithmically_many_questions(answer: int) -> None:
    asked: list[int] = []

    def equal(length: int) -> bool:
        asked.append(length)
        return length <= answer

    assert _gallop(8, 4096, equal) == answer
    assert len(asked) <= 2 * (4096).bit_length() + 2


# ------------------------------------------------------------------------------ the rules


def test_periodic_runs_names_the_repetitions_it_needs() -> None:
    with pytest.raises(ValueError) as raised:
        periodic_runs([1, 2, 1, 2], 1)
    assert str(raised.value) == "a cycle is a block repeated at least twice"


def test_a_call_naming_no_tool_does_not_stop_the_count_of_later_calls() -> None:
    spans = [
        tool("a0", "lookup", 0, 1, args={"id": 1}),
        tool("n1", None, 2, 3, args={"id": 1}),
        tool("a2", "lookup", 4, 5, args={"id": 1}),
        tool("a3", "lookup", 6, 7, args={"id": 1}),
    ]
    (violation,) = RepeatedCalls("r", 2).evaluate(subject(*spans))
    assert violation.span_id == "a3"
    assert violation.detail == (
        'span a3 ("execute_tool lookup") calls lookup with the same arguments as span a0: 3 '
        "calls with equal arguments, over the limit of 2"
    )


def test_blind_tools_are_listed_comma_separated_five_at_most() -> None:
    names = [f"tool{k}" for k in range(6)]
    spans = [
        tool(f"{name}-{i}", name, 10 * k + i, 10 * k + i + 0.5)
        for k, name in enumerate(names)
        for i in range(2)
    ]
    with pytest.raises(RuleError) as raised:
        RepeatedCalls("r", 1).evaluate(subject(*spans))
    assert str(raised.value) == (
        "calls whose arguments were not captured may repeat others: "
        + ", ".join(f"{name} (span {name}-0)" for name in names[:5])
    )


def test_a_cycle_of_six_calls_is_named_in_full() -> None:
    block = [f"tool{k}" for k in range(6)]
    names = block * 2
    spans = [tool(f"t{i}", name, i, i + 0.5) for i, name in enumerate(names)]
    (violation,) = RepeatedCycles("y", 1).evaluate(subject(*spans))
    assert violation.detail == (
        'span t6 ("execute_tool tool0") begins repetition 2 of the cycle '
        + " → ".join(block)
        + ", which runs 2 times in a row from span t0, over the limit of 1"
    )
