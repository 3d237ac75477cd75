"""`trajectory`: the run's tool calls against a reference list of calls, in a match mode.

The run is read as steps (rules/steps.py): calls that ran in parallel, or that one model
response asked for, are one step. Calls of ignored tools are left out first. An expected call
names its tool, and may ask for a status (`ok`: the call did not fail; `error`: it failed, its
span in error or its result recording a failure) and argument checks. Failed calls are calls: they ran. Violations say where the run parts from the
reference (the first divergence), then what is missing, extra or out of order, each at its span.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from tracecheck.rules.alignment import assign, in_order, lockstep
from tracecheck.rules.base import at
from tracecheck.rules.matchers import (
    ArgumentCheck,
    argument_problem,
    describe_check,
    failed,
    pointer_text,
)
from tracecheck.rules.predicates import RuleError
from tracecheck.rules.steps import tool_steps
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span
from tracecheck.verdict import Violation

__all__ = ["MODES", "Expected", "ExpectedStep", "Trajectory", "TrajectoryMode"]

TrajectoryMode = Literal["exact", "in-order", "any-order", "subset", "superset"]
MODES: tuple[TrajectoryMode, ...] = ("exact", "in-order", "any-order", "subset", "superset")
_SHOWN = 5  # violations of one kind named one by one; the rest are counted


@dataclass(frozen=True, slots=True)
class Expected:
    """One expected call: its tool, and optionally its status and argument checks."""

    tool: str
    status: Literal["ok", "error"] | None = None
    arguments: tuple[tuple[str, ArgumentCheck], ...] = ()
    # Checks taken from a golden run: their values are a trace's, never shown.
    from_golden: bool = False

    def describe(self, *, values: bool = True) -> str:
        """The call in words; without `values`, its checks name their pointers only (what a
        violation says: a contract may spell out a secret's shape or value)."""
        parts = []
        if self.status is not None:
            parts.append("succeeding" if self.status == "ok" else "failing")
        if self.arguments and (self.from_golden or not values):
            pointers = ", ".join(pointer_text(pointer) for pointer, _ in self.arguments)
            source = "as in the golden run" if self.from_golden else "checked"
            parts.append(f"arguments {source} at {pointers}")
        else:
            parts += [describe_check(pointer, check) for pointer, check in self.arguments]
        return self.tool + (f" ({', '.join(parts)})" if parts else "")


@dataclass(frozen=True, slots=True)
class ExpectedStep:
    """A step of the reference: one call, or a `parallel` group of calls in any order."""

    calls: tuple[Expected, ...]
    parallel: bool = False

    def describe(self, *, values: bool = True) -> str:
        names = ", ".join(call.describe(values=values) for call in self.calls)
        return f"parallel [{names}]" if self.parallel else names


@dataclass(frozen=True)
class Trajectory:
    label: str
    mode: TrajectoryMode
    steps: tuple[ExpectedStep, ...]
    ignore: frozenset[str] = frozenset()
    needs_tool_capture: bool = True

    def evaluate(self, subject: Subject) -> list[Violation]:
        run = _run_steps(subject, self.ignore)
        holds = _holder(subject)
        if self.mode in ("exact", "in-order"):
            _require_times(subject, [call for step in run for call in step])
            return self._ordered(subject, run, holds)
        expected = [call for step in self.steps for call in step.calls]
        calls = [call for step in run for call in step]
        matching = assign(expected, calls, holds, _tool_of)
        missing = [] if self.mode == "subset" else [expected[i] for i in matching.missing]
        extra = [] if self.mode == "superset" else [calls[j] for j in matching.extra]
        return _missing(missing) + _extra(subject, extra)

    def _ordered(
        self, subject: Subject, run: list[list[Span]], holds: Callable[[Expected, Span], bool]
    ) -> list[Violation]:
        reference = [list(step.calls) for step in self.steps]
        walk = in_order(reference, run, holds, _tool_of)
        violations: list[Violation] = []
        if self.mode == "exact":
            parallel = [step.parallel for step in self.steps]
            parted = lockstep(reference, parallel, run, holds, _tool_of)
            if parted is not None:
                violations.append(_divergence(subject, self.steps, run, walk.found, parted))
        elif not walk.complete:
            first = next(k for k, found in enumerate(walk.found) if found is None)
            violations.append(_divergence(subject, self.steps, run, walk.found, first))
        for k, found in enumerate(walk.found):
            if found is None:
                violations.append(_absent(subject, self.steps[k], k, run, holds))
        if self.mode == "exact":
            used = {place for _, place in walk.pairs}
            extra = [
                call
                for s, step in enumerate(run)
                for j, call in enumerate(step)
                if (s, j) not in used
            ]
            violations += _extra(subject, extra)
        return violations

    def describe(self) -> str:
        ignored = f", ignoring {', '.join(sorted(self.ignore))}" if self.ignore else ""
        steps = "; ".join(step.describe() for step in self.steps)
        return f"the tool calls match [{steps}] ({self.mode}{ignored})"


def _run_steps(subject: Subject, ignore: frozenset[str]) -> list[list[Span]]:
    """The run's steps with the calls of ignored tools left out (and steps left empty gone),
    once per subject and ignore list: a contract may hold a trajectory in every alternative."""
    key = (_run_steps, ignore)
    found = subject.memo.get(key)
    if found is None:
        steps = tool_steps(subject)
        if ignore:
            found = [
                calls
                for step in steps
                if (calls := [c for c in step.calls if c.tool_name not in ignore])
            ]
        else:
            found = [list(step.calls) for step in steps]
        subject.memo[key] = found
    return found  # type: ignore[return-value]


def _tool_of(item: Expected | Span) -> str | None:
    """The tool an entry expects or a call called: matching looks no further than its own."""
    return item.tool if isinstance(item, Expected) else item.tool_name


def _holder(subject: Subject) -> Callable[[Expected, Span], bool]:
    def holds(expected: Expected, call: Span) -> bool:
        if call.tool_name != expected.tool:
            return False
        if expected.status is not None and (expected.status == "error") != failed(call):
            return False
        return all(
            argument_problem(call, pointer, check, subject) is None
            for pointer, check in expected.arguments
        )

    return holds


def _require_times(subject: Subject, calls: Sequence[Span]) -> None:
    untimed = [call for call in calls if call.start_ns is None]
    if untimed:
        named = ", ".join(subject.ref(call) for call in untimed[:_SHOWN])
        raise RuleError(
            f"{len(untimed)} tool call(s) have no start time ({named}), so their order is unknown"
        )


def _divergence(
    subject: Subject,
    reference: Sequence[ExpectedStep],
    run: Sequence[Sequence[Span]],
    found: Sequence[tuple[int, int] | None],
    parted: int,
) -> Violation:
    """Where the run first parts from the reference: the run step at that point, if any."""
    before = [span[1] for span in found[:parted] if span is not None]
    position = before[-1] + 1 if before else 0
    if parted >= len(reference):
        # Every reference step was met in its place, so the run parts by going on after them.
        detail = "trajectory diverges: the run goes on after the last reference step"
        return at(run[position][0], detail)
    wanted = reference[parted].describe(values=False)
    if position >= len(run):
        return Violation(
            None,
            f"trajectory diverges at reference step {parted + 1}: the run ends before {wanted}",
        )
    step = run[position]
    shown = ", ".join(f"{call.tool_name} (span {subject.ref(call)})" for call in step)
    ran = f"ran {shown} in parallel" if len(step) > 1 else f"called {shown}"
    return at(
        step[0],
        f"trajectory diverges at reference step {parted + 1}: expected {wanted}, the run {ran}",
    )


def _absent(
    subject: Subject,
    step: ExpectedStep,
    k: int,
    run: Sequence[Sequence[Span]],
    holds: Callable[[Expected, Span], bool],
) -> Violation:
    """A reference step the run did not do in its place: out of order when its calls are in
    the run all the same, missing otherwise."""
    calls = [call for run_step in run for call in run_step]
    somewhere = [call for member in step.calls for call in calls if holds(member, call)]
    if somewhere:
        return at(
            somewhere[0],
            f"out of order: reference step {k + 1} ({step.describe(values=False)}) is not in its "
            "place; "
            f"span {subject.ref(somewhere[0])} calls {somewhere[0].tool_name} elsewhere",
        )
    return Violation(
        None, f"missing: reference step {k + 1} ({step.describe(values=False)}) never happens"
    )


def _missing(missing: Sequence[Expected]) -> list[Violation]:
    shown = [
        Violation(None, f"missing call: {expected.describe(values=False)}")
        for expected in missing[:_SHOWN]
    ]
    return shown + _more(len(missing), "missing call")


def _extra(subject: Subject, extra: Sequence[Span]) -> list[Violation]:
    shown = [
        at(call, f"extra call: span {subject.ref(call)} calls {call.tool_name}")
        for call in extra[:_SHOWN]
    ]
    return shown + _more(len(extra), "extra call")


def _more(count: int, what: str) -> list[Violation]:
    """The violations past the first few, counted in one."""
    rest = count - _SHOWN
    return [Violation(None, f"and {rest} more {what}{'s' * (rest > 1)}")] if rest > 0 else []
