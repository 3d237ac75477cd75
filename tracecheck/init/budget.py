"""Model calls of a run as a draft needs them: the models the responses name, and the tokens
the run used, counted as `llm.maxTotalTokens` counts them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from tracecheck.rules.run_totals import tokens_used as counted
from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind

__all__ = ["HEADROOM", "Ceiling", "ceiling", "tokens_used"]

HEADROOM = Fraction(3, 2)  # the largest run's tokens times this, then rounded up


@dataclass(frozen=True, slots=True)
class Ceiling:
    """A token budget and how it was reached from the largest run's total."""

    used: int | float
    raised: int  # used × HEADROOM, rounded up to a whole token
    budget: int  # raised, rounded up to two significant digits

    def explain(self) -> str:
        used = _number(self.used)
        text = f"used {used} tokens: {used} × 1.5 = {self.raised}"
        return text if self.raised == self.budget else f"{text}, rounded up to {self.budget}"


def tokens_used(subject: Subject) -> int | float | None:
    """The tokens the run's model calls used, as `llm.maxTotalTokens` adds them up (run totals
    a convention records standing for calls with no counts of their own), or None when some
    call's count is unknown."""
    return counted(subject, subject.of_kind(Kind.LLM))[0]


def ceiling(used: int | float) -> Ceiling:
    """A budget with headroom over `used`: × 1.5, then up to two significant digits (1851 is
    1900, 18 stays 18), so that the figure reads as a chosen budget, not a measurement."""
    raised = math.ceil(Fraction(used) * HEADROOM)
    digits = len(str(raised))
    step = 10 ** max(0, digits - 2)
    return Ceiling(used, raised, -(-raised // step) * step)


def _number(value: int | float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)
