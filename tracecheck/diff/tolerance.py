"""How far a run's total may stray from the baseline's: a share of the baseline (`10%`), an
absolute amount (`500` tokens, `2s` or `1500ms`), or both (`50%,1s`: whichever allows more).

A tolerance bounds the difference either way: a diff says whether two runs are the same, and a
run that uses half the tokens did something else too. A budget (a contract's token or duration
ceiling) is what says a run is good enough.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Literal

__all__ = [
    "DEFAULT_DURATION_TOLERANCE",
    "DEFAULT_TOKENS_TOLERANCE",
    "Tolerance",
    "ToleranceError",
    "Tolerances",
    "parse_tolerance",
]

Unit = Literal["tokens", "ms"]
Total = Literal["tokens", "duration"]
_PART = re.compile(r"(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>%|ms|s|)")
OFF = ("off", "none")


class ToleranceError(ValueError):
    """A tolerance that cannot be read; the message says what was wrong, `total` which
    tolerance it is (`tokens` or `duration`) when `Tolerances.parse` read it."""

    def __init__(self, message: str, total: Total | None = None) -> None:
        super().__init__(message)
        self.total = total


@dataclass(frozen=True, slots=True)
class Tolerance:
    """`relative` is a fraction of the baseline (0.1 for 10%), `absolute` an amount in the
    quantity's unit (tokens, or milliseconds); a difference within either is within."""

    relative: float | None = None
    absolute: float | None = None
    unit: Unit = "tokens"

    def allowance(self, baseline: float) -> float:
        """The largest difference from `baseline` this tolerance lets through."""
        relative = self.relative * abs(baseline) if self.relative is not None else 0.0
        return max(relative, self.absolute or 0.0)

    def allows(self, baseline: float, run: float) -> bool:
        return abs(run - baseline) <= self.allowance(baseline)

    def __str__(self) -> str:
        parts = []
        if self.relative is not None:
            parts.append(f"{_number(self.relative * 100)}%")
        if self.absolute is not None:
            suffix = "ms" if self.unit == "ms" else ""
            parts.append(f"{_number(self.absolute)}{suffix}")
        return ",".join(parts)


# Tokens: the same trajectory with the same prompts costs nearly the same; sampling moves the
# output a little. Wall time: CI machines and model endpoints vary far more, and a short run
# varies most in proportion, hence an absolute second as well.
DEFAULT_TOKENS_TOLERANCE = Tolerance(relative=0.10, unit="tokens")
DEFAULT_DURATION_TOLERANCE = Tolerance(relative=0.50, absolute=1000.0, unit="ms")


@dataclass(frozen=True, slots=True)
class Tolerances:
    """The tolerance of each total; None compares nothing (the values are still reported)."""

    tokens: Tolerance | None = DEFAULT_TOKENS_TOLERANCE
    duration: Tolerance | None = DEFAULT_DURATION_TOLERANCE

    @classmethod
    def parse(cls, tokens: str | None = None, duration: str | None = None) -> Tolerances:
        """The tolerances as written (`parse_tolerance`), the default for one not given;
        `ToleranceError` (its `total` naming which) for one that cannot be read."""
        chosen = cls()
        written: tuple[tuple[Total, str | None, Unit], ...] = (
            ("tokens", tokens, "tokens"),
            ("duration", duration, "ms"),
        )
        for total, text, unit in written:
            if text is None:
                continue
            try:
                parsed = parse_tolerance(text, unit)
            except ToleranceError as exc:
                raise ToleranceError(str(exc), total) from None
            chosen = replace(chosen, **{total: parsed})
        return chosen


def parse_tolerance(text: str, unit: Unit) -> Tolerance | None:
    """A tolerance as written on the command line (`10%`, `500`, `2s`, `50%,1s`; `off` for
    none); `ToleranceError` says what is wrong with any other text."""
    written = text.strip().lower()
    if written in OFF:
        return None
    relative = absolute = None
    parts = [part.strip() for part in written.split(",")]
    if not written or len(parts) > 2:
        raise ToleranceError(_expected(text, unit))
    for part in parts:
        found = _PART.fullmatch(part)
        if found is None:
            raise ToleranceError(_expected(text, unit))
        number = float(found["number"])
        kind = found["unit"]
        if kind == "%":
            if relative is not None:
                raise ToleranceError(f"{text!r} gives two percentages; give one, and an amount")
            relative = number / 100
            continue
        if kind in ("ms", "s") and unit != "ms":
            raise ToleranceError(f"{text!r}: a token tolerance is a count, not a time")
        if absolute is not None:
            raise ToleranceError(f"{text!r} gives two amounts; give one, and a percentage")
        absolute = number * 1000 if kind == "s" else number
    if not all(math.isfinite(v) for v in (relative or 0.0, absolute or 0.0)):
        raise ToleranceError(_expected(text, unit))
    return Tolerance(relative, absolute, unit)


def _expected(text: str, unit: Unit) -> str:
    amounts = "a time: 500ms or 2s" if unit == "ms" else "a count: 500"
    return (
        f"{text!r} is not a tolerance: give a percentage of the baseline (10%), "
        f"{amounts}, or both separated by a comma (whichever allows more), or off"
    )


def _number(value: float) -> str:
    return f"{value:g}" if value != int(value) else str(int(value))
