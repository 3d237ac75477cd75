"""A test run several times and judged once (the `trace_repeat` marker): how many runs passed,
the pass rate with its 95% Wilson interval, pass^k, which contract rules passed in some runs and
failed in others, and the words a failure, the terminal summary and JUnit use.

Agents are not deterministic: one passing run says little, so a team runs the task k times and
asks how often it holds. A run passes when its body passed and every contract checked on that
run's spans passed; a rule that could not be evaluated did not pass.

pass^k is τ-bench's unbiased estimate, C(c, k) / C(n, k) for c passing runs of n, the same
arithmetic `fleet summarize --reliability` uses (tracecheck.pass_rates). With k equal to the
number of runs (the default) it is 1 when every run passed and 0 otherwise; a k below the number
of runs estimates the chance that k runs in a row all pass from more evidence than k runs.

No pytest here: tracecheck.testing.rerun runs the test and hands each run over.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from tracecheck.pass_rates import pass_hat_k, wilson_interval
from tracecheck.verdict import Verdict

__all__ = [
    "Repeat",
    "Repetition",
    "RuleRuns",
    "Run",
    "RunCheck",
    "RunInProgress",
    "marker_problem",
    "run_check",
]

MAX_RUNS_SHOWN = 5  # failing runs listed before "… and <n> more"
OPTIONS = ("pass_hat_k", "pass_rate", "k")


def marker_problem(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    """What is wrong with a `trace_repeat` marker's arguments, as the end of a sentence that
    starts with the marker's name; None when they are right."""
    if len(args) != 1 or not _whole(args[0]) or args[0] < 1:
        given = ", ".join(map(repr, args)) or "nothing"
        return (
            "needs the number of runs, a whole number of 1 or more, e.g. "
            f"@pytest.mark.trace_repeat(8), not {given}"
        )
    runs: int = args[0]
    unknown = sorted(set(kwargs) - set(OPTIONS))
    if unknown:
        return (
            "takes only pass_hat_k=, pass_rate= and k= beside the number of runs, "
            f"not {', '.join(unknown)}"
        )
    if "pass_hat_k" in kwargs and "pass_rate" in kwargs:
        return "takes one threshold, pass_hat_k= or pass_rate=, not both"
    for name in ("pass_hat_k", "pass_rate"):
        if name not in kwargs:
            continue
        value = kwargs[name]
        if not _real(value) or not 0 <= value <= 1:
            # 70 is most likely meant as 70%; 1.5 is not likely a percentage at all
            whole = _real(value) and value == int(value) and 1 < value <= 100
            hint = f" ({value:g}% is {name}={value / 100:g})" if whole else ""
            return f"{name} is a fraction from 0 to 1, not {value!r}{hint}"
    k = kwargs.get("k", runs)
    if not _whole(k) or not 1 <= k <= runs:
        return f"k is a whole number from 1 to the {runs} runs, not {k!r}"
    return None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _real(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class Repeat:
    """How often a test runs and what it must reach: `pass_rate` (the share of runs that pass)
    or `pass_hat_k` (pass^k, with `k` of the runs); with neither, every run must pass."""

    runs: int
    k: int
    pass_hat_k: float | None = None
    pass_rate: float | None = None

    @classmethod
    def from_marker(cls, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Repeat:
        """The marker's settings; `marker_problem` says first whether they are right."""
        runs = args[0]
        return cls(runs, kwargs.get("k", runs), kwargs.get("pass_hat_k"), kwargs.get("pass_rate"))

    @property
    def every_run(self) -> bool:
        """Whether the threshold asks every run to pass: pass^k of all the runs above 0 is."""
        if self.pass_rate is not None:
            return self.pass_rate == 1
        return self.k == self.runs and (self.pass_hat_k is None or self.pass_hat_k > 0)


@dataclass(frozen=True)
class RunCheck:
    """One contract checked on one run's spans: each rule judged (its label, and whether it
    passed) and, unless the check passed, what went wrong first, in one line."""

    contract: str
    rules: tuple[tuple[str, bool], ...]
    problem: str | None


def run_check(verdict: Verdict, problem: str | None, *, spans_seen: bool) -> RunCheck:
    """A run's check of one contract. With no span captured the rules judged nothing (a
    `never` rule holds trivially), so none of them counts for that run."""
    rules = tuple(
        (result.label, result.status == "pass")
        for result in verdict.rules
        if spans_seen and result.status != "skipped"
    )
    return RunCheck(verdict.contract, rules, problem)


@dataclass(frozen=True)
class RunInProgress:
    """The run of a repeated test going on now, for the plugin's hooks: its number (the
    capture names it, so that each failing run's evidence has files of its own) and the
    contract checks made on its spans so far."""

    number: int
    checks: list[RunCheck] = field(default_factory=list)


@dataclass(frozen=True)
class Run:
    """One run of a repeated test: its number (from 1), whether it passed, why not in one line,
    and the contracts checked on its spans (none when the body failed: nothing was checked)."""

    number: int
    passed: bool
    problem: str | None = None
    checks: tuple[RunCheck, ...] = ()


@dataclass(frozen=True)
class RuleRuns:
    """How one contract rule fared over the runs whose spans it was checked on."""

    name: str  # "contract/rule label"
    passed: int
    checked: int

    @property
    def flaky(self) -> bool:
        return 0 < self.passed < self.checked

    def __str__(self) -> str:
        return f"{self.name} (passed in {self.passed} of {self.checked} checked runs)"


@dataclass(frozen=True)
class Repetition:
    """The runs of one repeated test, judged against its `Repeat`. `runs` may be fewer than
    asked for when the session stopped during them."""

    repeat: Repeat
    runs: tuple[Run, ...]

    @property
    def passes(self) -> int:
        return sum(run.passed for run in self.runs)

    @property
    def k(self) -> int:
        return min(self.repeat.k, len(self.runs))

    @property
    def pass_hat_k(self) -> Fraction:
        return pass_hat_k(self.passes, len(self.runs), self.k)

    @property
    def ok(self) -> bool:
        if len(self.runs) < self.repeat.runs:  # fewer runs than asked for is not the evidence
            return False
        # Exact comparisons: 0.1 is the decimal the user wrote, not the float nearest it.
        if self.repeat.pass_rate is not None:
            return Fraction(self.passes, len(self.runs)) >= _exact(self.repeat.pass_rate)
        threshold = 1 if self.repeat.pass_hat_k is None else self.repeat.pass_hat_k
        return self.pass_hat_k >= _exact(threshold)

    def rules(self) -> list[RuleRuns]:
        """Each contract rule checked in some run, in the order first seen."""
        counts: dict[str, list[int]] = {}
        for run in self.runs:
            for check in run.checks:
                for label, passed in check.rules:
                    seen = counts.setdefault(f"{check.contract}/{label}", [0, 0])
                    seen[0] += passed
                    seen[1] += 1
        return [RuleRuns(name, passed, checked) for name, (passed, checked) in counts.items()]

    def flaky(self) -> list[RuleRuns]:
        return [rule for rule in self.rules() if rule.flaky]

    def tally(self, *, rate: bool = True, pass_hat: bool = True) -> str:
        """`7 of 8 runs passed (rate 87.5%, 95% CI 52.9%–97.8%), pass^8 0.00`, without the rate
        or pass^k when the words before it already give it."""
        low, high = wilson_interval(self.passes, len(self.runs))
        shown = f"rate {self.passes / len(self.runs):.1%}, " if rate else ""
        text = f"{self.passes} of {len(self.runs)} runs passed ({shown}95% CI {low:.1%}–{high:.1%})"
        return f"{text}, pass^{self.k} {_number(self.pass_hat_k)}" if pass_hat else text

    def headline(self) -> str:
        """What the test was held to and where it fell short, then the tally."""
        stopped = len(self.runs) < self.repeat.runs
        if self.repeat.pass_rate is not None:
            rate = Fraction(self.passes, len(self.runs))
            measured = f"pass rate is {float(rate):.1%}, below {_percent(self.repeat.pass_rate)}"
            tally = self.tally(rate=False)
        else:
            threshold = 1 if self.repeat.pass_hat_k is None else self.repeat.pass_hat_k
            measured = f"pass^{self.k} is {_number(self.pass_hat_k)}, below {threshold:g}"
            if self.repeat.every_run:
                measured += " (every run must pass)"
            tally = self.tally(pass_hat=False)
        if stopped:
            measured = (
                f"the session stopped after {len(self.runs)} of {self.repeat.runs} runs; {measured}"
            )
        return f"{measured}: {tally}"

    def failure_lines(self) -> list[str]:
        """The headline, each failing run's first problem, and the flaky rules."""
        lines = [self.headline()]
        failing = [run for run in self.runs if not run.passed]
        for run in failing[:MAX_RUNS_SHOWN]:
            lines.append(f"  run {run.number}: {run.problem or 'did not pass'}")
        if len(failing) > MAX_RUNS_SHOWN:
            lines.append(f"  … and {len(failing) - MAX_RUNS_SHOWN} more failing runs")
        flaky = self.flaky()
        if flaky:
            lines.append(f"flaky rules: {', '.join(map(str, flaky))}")
        return lines

    def summary(self) -> str:
        """One line for the terminal summary, whether the test passed or not."""
        line = f"{'passes' if self.ok else 'fails'}: {self.tally()}; needs {self.needs()}"
        flaky = self.flaky()
        if flaky:
            line += f"; flaky rules: {', '.join(map(str, flaky))}"
        return line

    def needs(self) -> str:
        """What the test is held to: `pass rate ≥ 70%`, `pass^3 ≥ 0.9`, `every run to pass`."""
        if self.repeat.pass_rate is not None:
            return f"pass rate ≥ {_percent(self.repeat.pass_rate)}"
        if self.repeat.pass_hat_k is None:
            return "every run to pass"
        return f"pass^{self.repeat.k} ≥ {self.repeat.pass_hat_k:g}"

    def properties(self) -> list[tuple[str, object]]:
        """Properties for JUnit XML, as `record_property` writes them."""
        low, high = wilson_interval(self.passes, len(self.runs))
        found: list[tuple[str, object]] = [
            ("tracecheck_runs", len(self.runs)),
            ("tracecheck_passed_runs", self.passes),
            ("tracecheck_pass_rate", round(self.passes / len(self.runs), 4)),
            ("tracecheck_pass_rate_ci95_low", round(low, 4)),
            ("tracecheck_pass_rate_ci95_high", round(high, 4)),
            (f"tracecheck_pass_hat_{self.k}", round(float(self.pass_hat_k), 4)),
        ]
        flaky = self.flaky()
        if flaky:
            found.append(("tracecheck_flaky_rules", ", ".join(map(str, flaky))))
        return found


def _exact(threshold: float) -> Fraction:
    return Fraction(repr(threshold)) if isinstance(threshold, float) else Fraction(threshold)


def _number(value: Fraction) -> str:
    """Two decimals, as the fleet's reliability shows pass^k; the exact fraction where two would
    round a value that is not 0 or 1 to one of them (and so hide why a threshold of 1 failed)."""
    shown = f"{float(value):.2f}"
    if shown in ("0.00", "1.00") and value not in (0, 1):
        return f"{value.numerator}/{value.denominator}"
    return shown


def _percent(fraction: float) -> str:
    return f"{fraction * 100:g}%"
