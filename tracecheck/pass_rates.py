"""How reliable a rule (or a test) is over repeated runs of one task, in exact arithmetic: the
pass rate with its Wilson score interval, the unbiased pass@k and pass^k estimators, whether it
is stable or flaky, and Fisher's exact test of two pass rates (a baseline's and a new version's).

Standard library only, and below every layer that counts runs: the fleet's reliability and
comparison and the pytest plugin's repeated tests use the same arithmetic.

pass@k (Chen et al. 2021, "Evaluating Large Language Models Trained on Code"): the chance that
at least one of k runs drawn without replacement from the n recorded passes, 1 − C(n−c, k) /
C(n, k) for c passing runs. pass^k (Yao et al. 2024, τ-bench): the chance that all k pass,
C(c, k) / C(n, k). Both are exact ratios of binomial coefficients, computed with integers.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

__all__ = [
    "Stability",
    "fisher_exact",
    "pass_at_k",
    "pass_hat_k",
    "stability",
    "wilson_interval",
]

Stability = Literal["stable pass", "stable fail", "flaky"]

# The normal quantiles of the usual two-sided confidence levels: no SciPy needed for them.
_Z = {0.90: 1.6448536269514722, 0.95: 1.959963984540054, 0.99: 2.5758293035489004}


def wilson_interval(passes: int, runs: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a pass rate of `passes` in `runs` (Wilson 1927): unlike
    the normal approximation, it stays inside [0, 1] and is honest for few runs and for rates
    of 0 or 1. `confidence` is 0.90, 0.95 or 0.99."""
    _counts(passes, runs)
    if confidence not in _Z:
        raise ValueError(f"confidence is one of {', '.join(map(str, _Z))}, not {confidence}")
    if runs == 0:
        return (0.0, 1.0)  # no run: nothing is known
    z = _Z[confidence]
    rate = passes / runs
    middle = (rate + z * z / (2 * runs)) / (1 + z * z / runs)
    half = z / (1 + z * z / runs) * math.sqrt(rate * (1 - rate) / runs + z * z / (4 * runs * runs))
    # At a rate of 0 or 1 the bound is the rate itself, which rounding would miss by 1e-17.
    low = 0.0 if passes == 0 else max(0.0, middle - half)
    return (low, 1.0 if passes == runs else min(1.0, middle + half))


def pass_at_k(passes: int, runs: int, k: int) -> Fraction:
    """The unbiased estimate of the chance that at least one of `k` runs passes."""
    _draw(passes, runs, k)
    return 1 - Fraction(math.comb(runs - passes, k), math.comb(runs, k))


def pass_hat_k(passes: int, runs: int, k: int) -> Fraction:
    """The unbiased estimate of the chance that all `k` runs pass (τ-bench's pass^k)."""
    _draw(passes, runs, k)
    return Fraction(math.comb(passes, k), math.comb(runs, k))


def stability(passes: int, runs: int) -> Stability:
    """`stable pass` when every run passed, `stable fail` when none did, else `flaky`."""
    _counts(passes, runs)
    if runs and passes == runs:
        return "stable pass"
    return "stable fail" if passes == 0 else "flaky"


def fisher_exact(
    passes_a: int, runs_a: int, passes_b: int, runs_b: int
) -> tuple[float, float, float]:
    """Fisher's exact test of two pass rates: the two-sided p-value (the tables of the same
    margins no more likely than the one seen, as SciPy's `fisher_exact` sums them) and the
    one-sided p-values that b's rate is lower (`less`) and higher (`greater`) than a's."""
    _counts(passes_a, runs_a)
    _counts(passes_b, runs_b)
    passes = passes_a + passes_b
    low, high = max(0, passes - runs_a), min(passes, runs_b)
    weights = {
        x: math.comb(runs_b, x) * math.comb(runs_a, passes - x) for x in range(low, high + 1)
    }
    total = sum(weights.values())
    seen = weights[passes_b]
    # Exact integers: a table "as likely" is one of equal weight, with no rounding to guess at.
    two_sided = Fraction(sum(w for w in weights.values() if w <= seen), total)
    less = Fraction(sum(w for x, w in weights.items() if x <= passes_b), total)
    greater = Fraction(sum(w for x, w in weights.items() if x >= passes_b), total)
    return (float(two_sided), float(less), float(greater))


def _counts(passes: int, runs: int) -> None:
    if runs < 0 or not 0 <= passes <= runs:
        raise ValueError(f"{passes} passes of {runs} runs is not a count of runs")


def _draw(passes: int, runs: int, k: int) -> None:
    _counts(passes, runs)
    if not 1 <= k <= runs:
        raise ValueError(f"k is 1 to the {runs} runs recorded, not {k}")
