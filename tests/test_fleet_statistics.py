"""Reliability statistics over repeated runs, against SciPy's exact tests and hand-computed
values, and the properties every estimate must have (`tracecheck.pass_rates`)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracecheck.pass_rates import (
    fisher_exact,
    pass_at_k,
    pass_hat_k,
    stability,
    wilson_interval,
)


@st.composite
def counts(draw: st.DrawFn, most: int = 40) -> tuple[int, int]:
    runs = draw(st.integers(1, most))
    return draw(st.integers(0, runs)), runs


def test_hand_computed_cases() -> None:
    # 8 runs, 6 passed: all of 2 drawn pass in C(6,2)/C(8,2) = 15/28 of the draws.
    assert pass_hat_k(6, 8, 2) == Fraction(15, 28)
    assert pass_at_k(6, 8, 2) == 1 - Fraction(1, 28)  # both failing: C(2,2)/C(8,2)
    assert pass_hat_k(6, 8, 7) == 0 and pass_at_k(6, 8, 7) == 1
    assert pass_hat_k(8, 8, 8) == 1 and pass_at_k(0, 8, 1) == 0
    assert [stability(p, 5) for p in (5, 0, 3)] == ["stable pass", "stable fail", "flaky"]
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775327998628899)  # Wilson's, z = 1.96
    assert wilson_interval(0, 0) == (0.0, 1.0)


@given(counts(), st.data())
def test_pass_hat_1_is_the_rate_and_pass_hat_k_never_rises_with_k(
    case: tuple[int, int], data: st.DataObject
) -> None:
    passes, runs = case
    assert pass_hat_k(passes, runs, 1) == pass_at_k(passes, runs, 1) == Fraction(passes, runs)
    hats = [pass_hat_k(passes, runs, k) for k in range(1, runs + 1)]
    ats = [pass_at_k(passes, runs, k) for k in range(1, runs + 1)]
    assert hats == sorted(hats, reverse=True) and ats == sorted(ats)
    assert all(0 <= value <= 1 for value in hats + ats)
    k = data.draw(st.integers(1, runs))
    assert pass_hat_k(passes, runs, k) <= Fraction(passes, runs) <= pass_at_k(passes, runs, k)


@given(counts(200), st.sampled_from([0.90, 0.95, 0.99]))
def test_the_wilson_interval_holds_the_rate_and_narrows_with_confidence(
    case: tuple[int, int], confidence: float
) -> None:
    passes, runs = case
    low, high = wilson_interval(passes, runs, confidence)
    assert 0 <= low <= passes / runs <= high <= 1
    wider = wilson_interval(passes, runs, 0.99)
    assert wider[0] <= low + 1e-12 and high <= wider[1] + 1e-12


def test_bad_counts_are_refused() -> None:
    for call in (
        lambda: pass_hat_k(3, 2, 1),
        lambda: pass_at_k(1, 4, 5),
        lambda: pass_hat_k(1, 4, 0),
        lambda: wilson_interval(1, 4, 0.5),
        lambda: fisher_exact(-1, 3, 1, 3),
    ):
        with pytest.raises(ValueError):
            call()


@given(counts(30), counts(30))
def test_fisher_exact_gives_scipys_p_values(a: tuple[int, int], b: tuple[int, int]) -> None:
    stats = pytest.importorskip("scipy.stats")
    (passes_a, runs_a), (passes_b, runs_b) = a, b
    table = [[passes_b, runs_b - passes_b], [passes_a, runs_a - passes_a]]
    two_sided, less, greater = fisher_exact(passes_a, runs_a, passes_b, runs_b)
    assert two_sided == pytest.approx(stats.fisher_exact(table).pvalue, rel=1e-6)
    assert less == pytest.approx(stats.fisher_exact(table, alternative="less").pvalue, rel=1e-9)
    assert greater == pytest.approx(
        stats.fisher_exact(table, alternative="greater").pvalue, rel=1e-9
    )


def test_fisher_exact_on_a_regression_of_a_hand_sized_suite() -> None:
    # 20 of 20 runs passed before, 12 of 20 after: a regression at any usual level.
    two_sided, less, _ = fisher_exact(20, 20, 12, 20)
    assert less == pytest.approx(
        math.comb(20, 12) * math.comb(20, 20) / math.comb(40, 32) * 1, rel=1
    )
    assert less < 0.01 and two_sided < 0.01
    # 1 of 2 against 2 of 2: far too few runs to say anything.
    assert fisher_exact(2, 2, 1, 2)[1] > 0.4
