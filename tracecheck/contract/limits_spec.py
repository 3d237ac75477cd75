"""Strict parsing of the limits on status, timing and loops (issue 28, items 4–5): `errors`,
`steps`, `loops`, `tools.durations`, and a predicate's `durationMs`.

Kinds are the contract kinds written in upper case (`tool` is refused with a suggestion of
`TOOL`); every limit is located (`steps["LLM"].min`), a bound that cannot be met (a minimum above
its maximum) is refused where it is written, and an object that would check nothing is refused
rather than compiled to nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from tracecheck.contract.checker import Checker
from tracecheck.contract.words import describe, map_path
from tracecheck.rules.predicates import DurationRange, Exact, Predicate
from tracecheck.spans import Kind

if TYPE_CHECKING:
    from tracecheck.rules.base import Rule

__all__ = [
    "BOUND_KEYS",
    "DURATION_KEYS",
    "ERROR_KEYS",
    "LOOPS_KEYS",
    "DurationLimit",
    "ErrorLimit",
    "LimitsChecker",
    "LoopsSpec",
    "StepLimit",
    "duration_rules",
    "limit_rules",
]

_KINDS = tuple(kind.value for kind in Kind)
ERROR_KEYS = ("max", "maxPercent")
BOUND_KEYS = ("min", "max")  # `steps` entries and `durationMs`
# rules.timing.PERCENTILES's keys (a test keeps them equal), written out so that parsing a
# contract loads the timing rules only when it has one.
DURATION_KEYS = ("p50", "p95", "p99", "max")
LOOPS_KEYS = ("maxRepeats", "maxConsecutive", "maxCycles")


# Named tuples, as the other parsed sections are (section_spec.py says why).
class ErrorLimit(NamedTuple):
    """`errors.<KIND>`: at most `max` spans of the kind in error, and at most `max_percent`
    percent of them."""

    kind: str
    max: int | None = None
    max_percent: int | float | None = None


class StepLimit(NamedTuple):
    """`steps.<KIND>`: between `min` and `max` spans of the kind, both inclusive."""

    kind: str
    min: int | None = None
    max: int | None = None


class DurationLimit(NamedTuple):
    """`tools.durations.<tool>.<stat>`: the tool's call durations at `stat` ≤ `max_ms`."""

    tool: str
    stat: str
    max_ms: int | float


class LoopsSpec(NamedTuple):
    max_repeats: int | None = None
    max_consecutive: int | None = None
    max_cycles: int | None = None


class LimitsChecker(Checker):
    """Checks `errors`, `steps`, `loops`, `tools.durations` and `durationMs`."""

    def error_limits(self, value: Any, where: str) -> tuple[ErrorLimit, ...]:
        limits: list[ErrorLimit] = []
        for kind, entry, at in self._by_kind(value, where, "an object of kind → limits"):
            limit = self._nonempty(entry, at, ERROR_KEYS)
            if limit is None:
                continue
            count = self.count(limit["max"], f"{at}.max") if "max" in limit else None
            percent = None
            if "maxPercent" in limit:
                percent = self.percent(limit["maxPercent"], f"{at}.maxPercent")
            if count is not None or percent is not None:
                limits.append(ErrorLimit(kind, count, percent))
        return tuple(limits)

    def step_limits(self, value: Any, where: str) -> tuple[StepLimit, ...]:
        limits: list[StepLimit] = []
        for kind, entry, at in self._by_kind(value, where, "an object of kind → {min, max}"):
            bounds = self._nonempty(entry, at, BOUND_KEYS)
            if bounds is None:
                continue
            low = self.count(bounds["min"], f"{at}.min") if "min" in bounds else None
            high = self.count(bounds["max"], f"{at}.max") if "max" in bounds else None
            if self._ordered(low, high, at) and (low is not None or high is not None):
                limits.append(StepLimit(kind, low, high))
        return tuple(limits)

    def loop_limits(self, value: Any, where: str) -> LoopsSpec | None:
        loops = self._nonempty(value, where, LOOPS_KEYS)
        if loops is None:
            return None
        spec = LoopsSpec(
            *(
                self.at_least_one(loops[key], f"{where}.{key}") if key in loops else None
                for key in LOOPS_KEYS
            )
        )
        return None if spec == LoopsSpec() else spec

    def duration_limits(self, value: Any, where: str) -> tuple[DurationLimit, ...] | None:
        if not isinstance(value, Mapping) or not value:
            shape = "a non-empty object of tool name → {p50, p95, p99, max}"
            self.add(where, f"must be {shape}, not {_empty_or(value)}")
            return None
        limits: list[DurationLimit] = []
        for tool, entry in value.items():
            if not isinstance(tool, str) or not tool:
                self.add(where, f"key {describe(tool)} must be a non-empty tool name")
                continue
            at = map_path(where, tool)
            stats = self._nonempty(entry, at, DURATION_KEYS) or {}
            for stat in DURATION_KEYS:
                if stat in stats:
                    ms = self.milliseconds(stats[stat], f"{at}.{stat}")
                    if ms is not None:
                        limits.append(DurationLimit(tool, stat, ms))
        return tuple(limits)

    def duration_range(self, value: Any, where: str) -> DurationRange | None:
        bounds = self._nonempty(value, where, BOUND_KEYS)
        if bounds is None:
            return None
        low, high = (
            self.milliseconds(bounds[key], f"{where}.{key}", zero_ok=True)
            if key in bounds
            else None
            for key in BOUND_KEYS
        )
        if (low is None) != ("min" not in bounds) or (high is None) != ("max" not in bounds):
            return None  # a bound was refused
        return DurationRange(low, high) if self._ordered(low, high, where) else None

    # --- the shapes they are made of ------------------------------------------------------

    def _by_kind(self, value: Any, where: str, shape: str) -> list[tuple[str, Any, str]]:
        """The entries of an object keyed by contract kind, each with its place; unknown kinds
        are reported with the closest kind."""
        if not isinstance(value, Mapping) or not value:
            self.add(where, f"must be {_article(shape)}, not {_empty_or(value)}")
            return []
        self.obj(value, where, _KINDS)
        return [
            (kind, entry, map_path(where, kind)) for kind, entry in value.items() if kind in _KINDS
        ]

    def _nonempty(self, value: Any, where: str, keys: tuple[str, ...]) -> Mapping[str, Any] | None:
        """An object of some of `keys` (unknown keys reported) with at least one of them."""
        found = self.obj(value, where, keys)
        if found is None:
            return None
        if not any(key in found for key in keys):
            self.add(where, f"checks nothing: give {_either(keys)}")
            return None
        return found

    def _ordered(self, low: float | None, high: float | None, where: str) -> bool:
        if low is not None and high is not None and low > high:
            self.add(
                where, f"min {_shown(low)} is above max {_shown(high)}, so nothing can meet it"
            )
            return False
        return True

    def at_least_one(self, value: Any, where: str) -> int | None:
        """An integer ≥ 1 (a limit of 0 calls would forbid every call; say so elsewhere)."""
        if isinstance(value, float) and value.is_integer() and value >= 1:
            return int(value)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
        self.add(where, f"must be an integer ≥ 1, not {describe(value)}")
        return None

    def percent(self, value: Any, where: str) -> int | float | None:
        if _finite(value) and 0 <= value <= 100:
            return value  # type: ignore[no-any-return]
        self.add(where, f"must be a number from 0 to 100, not {describe(value)}")
        return None

    def milliseconds(self, value: Any, where: str, *, zero_ok: bool = False) -> int | float | None:
        if _finite(value) and (value > 0 or (zero_ok and value == 0)):
            return value  # type: ignore[no-any-return]
        floor = "≥ 0" if zero_ok else "> 0"
        self.add(where, f"must be a number of milliseconds {floor}, not {describe(value)}")
        return None


def _finite(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return not isinstance(value, float) or math.isfinite(value)


def _shown(number: float) -> str:
    return describe(int(number) if isinstance(number, float) and number.is_integer() else number)


def _either(keys: tuple[str, ...]) -> str:
    return " or ".join(keys) if len(keys) == 2 else f"{', '.join(keys[:-1])} or {keys[-1]}"


def _article(shape: str) -> str:
    return f"a non-empty {shape.removeprefix('an ').removeprefix('a ')}"


def _empty_or(value: Any) -> str:
    return "an empty object" if isinstance(value, Mapping) else describe(value)


# ---------------------------------------------------------------------------------------------
# The rules they compile to, each with its place relative to the path (compile.path_rules)


def duration_rules(durations: tuple[DurationLimit, ...]) -> list[tuple[str, Rule]]:
    """`tools.durations`: one rule per tool and statistic (`tools.durations[lookup_order].p95`)."""
    if not durations:
        return []
    from tracecheck.rules.timing import ToolDuration

    return [
        (
            f"tools.durations{map_path('', limit.tool)}.{limit.stat}",
            ToolDuration(
                f"tools.durations[{limit.tool}].{limit.stat}",
                Predicate(kind="TOOL", tool=Exact(limit.tool)),
                limit.stat,
                limit.max_ms,
            ),
        )
        for limit in durations
    ]


def limit_rules(
    errors: tuple[ErrorLimit, ...], steps: tuple[StepLimit, ...], loops: LoopsSpec | None
) -> list[tuple[str, Rule]]:
    """`errors`, `steps` and `loops`, in that order (`errors[TOOL]`, `steps[LLM]`,
    `loops.maxCycles`). A ceiling on tool calls needs evidence that tools were captured, as
    `tools.maxCalls` does."""
    out: list[tuple[str, Rule]] = []
    if errors or steps:
        from tracecheck.rules.timing import ErrorsAtMost, StepCount
    for error in errors:
        kind = Predicate(kind=error.kind)
        label = f"errors[{error.kind}]"
        rule: Rule = ErrorsAtMost(label, kind, error.max, error.max_percent, error.kind == "TOOL")
        out.append((f"errors{map_path('', error.kind)}", rule))
    for step in steps:
        ceiling = step.kind == "TOOL" and step.max is not None
        rule = StepCount(
            f"steps[{step.kind}]", Predicate(kind=step.kind), step.min, step.max, ceiling
        )
        out.append((f"steps{map_path('', step.kind)}", rule))
    if loops is not None:
        from tracecheck.rules.loops import ConsecutiveCalls, RepeatedCalls, RepeatedCycles

        kinds = (
            ("maxRepeats", loops.max_repeats, RepeatedCalls),
            ("maxConsecutive", loops.max_consecutive, ConsecutiveCalls),
            ("maxCycles", loops.max_cycles, RepeatedCycles),
        )
        for key, limit, make in kinds:
            if limit is not None:
                out.append((f"loops.{key}", make(f"loops.{key}", limit)))
    return out
