"""Loops and redundancy in a run's tool calls (issue 28, item 5): the same call made again and
again, the same tool many times in a row, and a cycle of calls that keeps coming back.

Calls are taken in start order (ties in array order). A call with no start time has no place in
that order, so the rules that read the order (`maxConsecutive`, `maxCycles`) fail at it rather
than guess. A cycle compares tools, not arguments: an agent that pages through the same two
tools with new arguments each time is still going round, and a trace that did not capture
arguments must not hide a loop; the same call with equal arguments is `maxRepeats`' concern.

Finding cycles is O(n log n) in the calls (n log² n at worst): for each period p, only every
p-th position is sampled (n/p samples, n·H(n) in all), and a run through a sample is measured
with longest-common-extension queries on prefix hashes, growing exponentially then halving;
each run found is then confirmed item by item.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import NamedTuple

from tracecheck.rules.base import SHOWN_NAMES, at, named
from tracecheck.rules.canonical import canonical_json
from tracecheck.rules.predicates import RuleError
from tracecheck.rules.steps import placed_calls
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span
from tracecheck.verdict import Violation

__all__ = [
    "ConsecutiveCalls",
    "RepeatedCalls",
    "RepeatedCycles",
    "Run",
    "periodic_runs",
    "symbols",
]

_MOD = (1 << 61) - 1  # a Mersenne prime: hashes of distinct sequences collide about never
_BASE = 1_000_003
_DIRECT = 8  # positions compared one by one before hashes take over


class Run(NamedTuple):
    """A maximal stretch `[start, start + length)` of the sequence with smallest period
    `period`: the block of the first `period` items, repeated `length // period` times and
    then some."""

    start: int
    period: int
    length: int

    @property
    def repetitions(self) -> int:
        return self.length // self.period


def symbols(names: Sequence[str | None]) -> list[int]:
    """Each name as a positive integer, equal names equal; a missing name is a symbol of its
    own (two calls that do not say which tool ran are not known to be one tool)."""
    ids: dict[str, int] = {}
    out: list[int] = []
    unnamed = len(set(names)) + 1
    for name in names:
        if name is None:
            unnamed += 1
            out.append(unnamed)
        else:
            out.append(ids.setdefault(name, len(ids) + 1))
    return out


class _Hashes:
    """Polynomial prefix hashes, so that two stretches compare in constant time."""

    __slots__ = ("power", "prefix")

    def __init__(self, seq: Sequence[int]) -> None:
        prefix = [0]
        power = [1]
        value, base = 0, 1
        for item in seq:
            value = (value * _BASE + item) % _MOD
            base = base * _BASE % _MOD
            prefix.append(value)
            power.append(base)
        self.prefix = prefix
        self.power = power

    def same(self, i: int, j: int, length: int) -> bool:
        prefix, scale = self.prefix, self.power[length]
        return (prefix[i + length] - prefix[i] * scale) % _MOD == (
            prefix[j + length] - prefix[j] * scale
        ) % _MOD


def _forward(seq: Sequence[int], hashes: _Hashes, i: int, j: int, cap: int) -> int:
    """The longest m ≤ cap with seq[i:i+m] == seq[j:j+m]."""
    m = 0
    while m < cap and m < _DIRECT:
        if seq[i + m] != seq[j + m]:
            return m
        m += 1
    return _gallop(m, cap, lambda length: hashes.same(i, j, length))


def _backward(seq: Sequence[int], hashes: _Hashes, i: int, j: int, cap: int) -> int:
    """The longest m ≤ cap with seq[i-m:i] == seq[j-m:j]."""
    m = 0
    while m < cap and m < _DIRECT:
        if seq[i - 1 - m] != seq[j - 1 - m]:
            return m
        m += 1
    return _gallop(m, cap, lambda length: hashes.same(i - length, j - length, length))


def _gallop(known: int, cap: int, equal: Callable[[int], bool]) -> int:
    """The longest length ≤ cap for which `equal` holds, knowing it holds for `known`:
    doubling steps until it fails, then halving back (O(log) comparisons)."""
    if known >= cap:
        return cap
    step = max(known, 1)
    low = known
    while True:
        high = min(cap, low + step)
        if not equal(high):
            break
        low = high
        if low == cap:
            return cap
        step *= 2
    while high - low > 1:
        middle = (low + high) // 2
        if equal(middle):
            low = middle
        else:
            high = middle
    return low


def _constant_runs(seq: Sequence[int]) -> set[tuple[int, int]]:
    """The (start, length) of every maximal stretch of one symbol two or more long."""
    found = set()
    start = 0
    for _, group in groupby(seq):
        length = sum(1 for _ in group)
        if length > 1:
            found.add((start, length))
        start += length
    return found


def _checked(seq: Sequence[int], period: int, start: int, length: int) -> tuple[int, int]:
    """The run's extent, compared item by item: hashes of two different stretches could in
    principle be equal, so what they found is confirmed, or measured again without them."""
    end = start + length
    if (
        seq[start : end - period] == seq[start + period : end]
        and (start == 0 or seq[start - 1] != seq[start - 1 + period])
        and (end == len(seq) or seq[end] != seq[end - period])
    ):
        return start, length
    i = start + period - 1 - (start + period - 1) % period  # a sample inside the run
    low = i
    while low > 0 and seq[low - 1] == seq[low - 1 + period]:
        low -= 1
    high = i
    while high + period < len(seq) and seq[high] == seq[high + period]:
        high += 1
    return low, high - low + period


def periodic_runs(seq: Sequence[int], repetitions: int) -> list[Run]:
    """Every maximal run of a block of two or more items repeated at least `repetitions` (≥ 2)
    times in a row, its block primitive (`ABAB` repeated is the block `AB`), by period then
    start. A block of one item repeated is a run of one symbol: not a cycle."""
    if repetitions < 2:
        raise ValueError("a cycle is a block repeated at least twice")
    seq = list(seq)
    n = len(seq)
    runs: list[Run] = []
    if n < 2 * repetitions:
        return runs
    hashes = _Hashes(seq)
    # A run whose block is a power of a shorter one (ABAB, AA) spans exactly the run of that
    # shorter block's own period, found before it: the extents seen so far tell them apart.
    seen = _constant_runs(seq)
    for period in range(2, n // repetitions + 1):
        i = 0
        last = n - period  # a sample i needs i + period ≤ n - 1
        while i < last:
            j = i + period
            if seq[i] != seq[j]:
                i = j
                continue
            # The run through i and j starts less than one period before i: a run reaching
            # further back would have been found (or judged short) at the sample before.
            back = _backward(seq, hashes, i, j, min(period - 1, i))
            need = (repetitions - 1) * period - back
            if j + need > n or not hashes.same(i, j, need):
                i = j
                continue
            ahead = _forward(seq, hashes, i, j, n - j)
            extent = (i - back, back + ahead + period)
            if extent not in seen:
                seen.add(extent)
                extent = _checked(seq, period, *extent)
                seen.add(extent)
                # measured again after a collision of hashes, the run may repeat too few times
                if extent[1] // period >= repetitions:
                    runs.append(Run(extent[0], period, extent[1]))
            i = (i + ahead) // period * period + period  # past the run's last match
    return runs


# ---------------------------------------------------------------------------------------------
# The rules


def _unplaced(subject: Subject, untimed: Sequence[Span]) -> list[Violation]:
    return [
        at(
            span,
            f"{named(subject, span)} has no start time, so its place in the order of calls is "
            "unknown",
        )
        for span in untimed
    ]


def _tool(span: Span) -> str:
    return span.tool_name or "(a call that does not name its tool)"


@dataclass(frozen=True)
class RepeatedCalls:
    """`loops.maxRepeats`: at most `max` calls of one tool with equal arguments (RFC 8785
    canonical JSON). A tool called more than `max` times some of whose calls' arguments were
    not captured cannot be judged: those calls may repeat the others."""

    label: str
    max: int
    needs_tool_capture: bool = True

    def evaluate(self, subject: Subject) -> list[Violation]:
        timed, untimed = placed_calls(subject)
        groups: dict[tuple[str, str], list[Span]] = {}
        calls: dict[str, int] = {}
        unknown: dict[str, Span] = {}
        for span in (*timed, *untimed):
            name, arguments = span.tool_name, span.arguments
            if name is None:
                continue
            calls[name] = calls.get(name, 0) + 1
            if not arguments.known:
                unknown.setdefault(name, span)
                continue
            groups.setdefault((name, canonical_json(arguments.value)), []).append(span)
        violations = []
        for (name, _), spans in groups.items():
            if len(spans) > self.max:
                span = spans[self.max]
                violations.append(
                    at(
                        span,
                        f"{named(subject, span)} calls {name} with the same arguments as span "
                        f"{subject.ref(spans[0])}: {len(spans)} calls with equal arguments, "
                        f"over the limit of {self.max}",
                    )
                )
        if violations:
            return violations
        blind = [span for name, span in unknown.items() if calls[name] > self.max]
        if blind:
            named_spans = ", ".join(f"{s.tool_name} (span {subject.ref(s)})" for s in blind[:5])
            raise RuleError(
                f"calls whose arguments were not captured may repeat others: {named_spans}"
            )
        return violations

    def describe(self) -> str:
        return (
            f"at most {self.max} call(s) of one tool with equal arguments (a tool called more "
            "often, some of whose calls' arguments were not captured, cannot be judged)"
        )


@dataclass(frozen=True)
class ConsecutiveCalls:
    """`loops.maxConsecutive`: at most `max` calls of one tool in a row, in start order."""

    label: str
    max: int
    needs_tool_capture: bool = True

    def evaluate(self, subject: Subject) -> list[Violation]:
        timed, untimed = placed_calls(subject)
        violations = _unplaced(subject, untimed)
        at_index = 0
        for _, group in groupby(symbols([span.tool_name for span in timed])):
            length = sum(1 for _ in group)
            first = timed[at_index]
            if length > self.max and first.tool_name is not None:
                span = timed[at_index + self.max]
                violations.append(
                    at(
                        span,
                        f"{named(subject, span)} is call {self.max + 1} of {first.tool_name} in "
                        f"a row ({length} in a row from span {subject.ref(first)}), over the "
                        f"limit of {self.max}",
                    )
                )
            at_index += length
        return violations

    def describe(self) -> str:
        return f"at most {self.max} call(s) of one tool in a row (start order)"


@dataclass(frozen=True)
class RepeatedCycles:
    """`loops.maxCycles`: no cycle of two or more calls (A→B→A→B…, compared by tool) repeats
    more than `max` times in a row, in start order."""

    label: str
    max: int
    needs_tool_capture: bool = True

    def evaluate(self, subject: Subject) -> list[Violation]:
        timed, untimed = placed_calls(subject)
        violations = _unplaced(subject, untimed)
        seq = symbols([span.tool_name for span in timed])
        for run in periodic_runs(seq, self.max + 1):
            block = [_tool(span) for span in timed[run.start : run.start + run.period]]
            cycle = " → ".join(block[:SHOWN_NAMES])
            if run.period > SHOWN_NAMES:
                cycle += f" → … ({run.period} calls)"
            span = timed[run.start + self.max * run.period]
            violations.append(
                at(
                    span,
                    f"{named(subject, span)} begins repetition {self.max + 1} of the cycle "
                    f"{cycle}, which runs {run.repetitions} times in a row from span "
                    f"{subject.ref(timed[run.start])}, over the limit of {self.max}",
                )
            )
        return violations

    def describe(self) -> str:
        return (
            f"no cycle of two or more calls repeats more than {self.max} time(s) in a row "
            "(compared by tool, start order)"
        )
