"""Two fleets' verdicts compared rule by rule with Fisher's exact test: which rules regressed
(passed significantly less often in the new runs) and which improved, at a stated significance
level. A difference too small a sample cannot tell apart from chance is said to be that, never a
regression; a rule that could not be evaluated on a run did not pass it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from tracecheck.pass_rates import fisher_exact

__all__ = ["ALPHA", "Change", "RuleComparison", "compare_runs"]

ALPHA = 0.05
Change = Literal["regressed", "improved", "no significant change", "only before", "only after"]


@dataclass(frozen=True, slots=True)
class RuleComparison:
    contract: str
    rule: str
    change: Change
    before: tuple[int, int] | None  # (passes, runs) in the baseline
    after: tuple[int, int] | None
    p_value: float | None  # one-sided, in the direction of the change seen; None: not tested
    alpha: float


def compare_runs(
    before: Iterable[Mapping[str, Any]], after: Iterable[Mapping[str, Any]], alpha: float = ALPHA
) -> list[RuleComparison]:
    """Each rule of either fleet's verdict rows (`to_pylist()` of `read_verdicts`), in the order
    first seen (the baseline's first): its passes and runs in both, and whether the new runs
    pass it significantly less (`regressed`) or more (`improved`) often, by Fisher's exact test
    one-sided at `alpha`."""
    if not 0 < alpha < 1:
        raise ValueError(f"a significance level is between 0 and 1, not {alpha}")
    counts = [_counts(before), _counts(after)]
    rules = dict.fromkeys([*counts[0], *counts[1]])
    return [_compared(key, counts[0].get(key), counts[1].get(key), alpha) for key in rules]


def _counts(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], tuple[int, int]]:
    counts: dict[tuple[str, str], tuple[int, int]] = {}
    for row in rows:
        if row.get("rule") is None or row.get("status") == "skipped":
            continue
        key = (row["contract"], row["rule"])
        passes, runs = counts.get(key, (0, 0))
        counts[key] = (passes + (row["status"] == "pass"), runs + 1)
    return counts


def _compared(
    key: tuple[str, str],
    before: tuple[int, int] | None,
    after: tuple[int, int] | None,
    alpha: float,
) -> RuleComparison:
    if before is None or after is None:
        change: Change = "only after" if before is None else "only before"
        return RuleComparison(*key, change, before, after, None, alpha)
    _, less, greater = fisher_exact(*before, *after)
    lower = after[0] * before[1] < before[0] * after[1]  # the new rate is the lower one
    p_value = less if lower else greater
    change = "no significant change"
    if p_value < alpha:
        change = "regressed" if lower else "improved"
    return RuleComparison(*key, change, before, after, p_value, alpha)
