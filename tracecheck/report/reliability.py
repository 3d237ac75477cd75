"""Each rule's reliability over repeated runs as the HTML page reads it: the shape of a row, the
colour of each stability, and the order rows are shown in (the least reliable first).

The rows are computed by the fleet (`tracecheck.fleet.reliability.RuleReliability`), which sits
above the report: the report names only the shape it reads (`ReliabilityRow`), so that it never
imports the fleet. The page draws them in `page.reliability_section` and
`charts.reliability_chart`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

__all__ = ["STABILITY_COLORS", "ReliabilityRow", "reliability_key", "worst_first"]

STABILITY_COLORS = {"stable fail": "#d62728", "flaky": "#c77c00", "stable pass": "#3a9d5d"}


class ReliabilityRow(Protocol):
    """How reliable one rule of one contract is over repeated runs of the same tasks. Read-only
    members, so that a frozen dataclass (the fleet's `RuleReliability`) is one."""

    @property
    def contract(self) -> str: ...
    @property
    def rule(self) -> str: ...
    @property
    def tasks(self) -> int: ...
    @property
    def runs(self) -> int: ...
    @property
    def passes(self) -> int: ...
    @property
    def interval(self) -> tuple[float, float]: ...  # the pass rate's 95% Wilson interval
    @property
    def k(self) -> int: ...
    @property
    def pass_hat_k(self) -> float | None: ...  # None: no task has k runs
    @property
    def stability(self) -> str: ...  # "stable pass", "stable fail" or "flaky"
    @property
    def flaky_tasks(self) -> int: ...
    @property
    def rate(self) -> float: ...


Row = TypeVar("Row", bound=ReliabilityRow)


def worst_first(rows: Sequence[Row]) -> list[Row]:
    """`rows`, the least reliable first (`reliability_key`); rules alike keep the order they
    were given in, so the page is the same bytes every time."""
    return sorted(rows, key=reliability_key)


def reliability_key(row: ReliabilityRow) -> tuple[float, float, float]:
    """What sorts rows the least reliable first: the pass rate, then the interval's upper end
    (of two rules that never passed, the one of more runs is surely the worse), then pass^k."""
    return (row.rate, row.interval[1], row.rate if row.pass_hat_k is None else row.pass_hat_k)
