"""The tool-call steps every run made, in the order they made them: the trajectory a draft
expects in `in-order` mode.

A run is its steps (rules/steps.py): one call, or a parallel group of calls whose order the
trace does not establish. Each step is compared by the tools it called (a group as the sorted
names of its members), and the steps shared by all runs in one order are kept: a reference the
trajectory rule finds, step by step, in each of the runs it came from. A step found in one run
as a group and in another as single calls is not shared, since a sequential reference is not
satisfied by a group; the draft leaves it out rather than claim an order one run did not show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tracecheck.diff.sequence import common_pairs
from tracecheck.init.runs import Run
from tracecheck.rules.steps import tool_steps

__all__ = ["LONGEST", "StepNames", "Trajectory", "common_steps"]

StepNames = tuple[str, ...]  # the tools of one step, sorted; more than one is a parallel group
LONGEST = 200  # steps a draft lists; a longer shared trajectory is better compared to a run


@dataclass(frozen=True, slots=True)
class Trajectory:
    """The steps every run shares (`steps`), or why there is no trajectory to draft
    (`problem`); `left_out`: how many of the runs' calls are not in every run in this order."""

    steps: tuple[StepNames, ...] = ()
    problem: str | None = None
    left_out: int = 0


def common_steps(runs: Sequence[Run]) -> Trajectory:
    """The steps every run shares, in order."""
    sequences: list[list[StepNames]] = []
    for run in runs:
        steps = tool_steps(run.subject)
        if any(not step.placed for step in steps):
            return Trajectory(
                problem=f"{run.name} has tool calls with no start time, so the order of its "
                "calls is not established"
            )
        named = [tuple(sorted(n for c in s.calls if (n := run.named(c)))) for s in steps]
        sequences.append([names for names in named if names])
    common = sequences[0] if sequences else []
    for other in sequences[1:]:
        common = _shared(common, other)
    if not common:
        what = "no tool calls" if not any(sequences) else "no tool call in common in one order"
        return Trajectory(problem=f"the runs have {what}")
    if len(common) > LONGEST:
        return Trajectory(
            problem=f"the runs share {len(common)} steps, more than a draft lists ({LONGEST}); "
            "compare runs that long with a golden run (trajectory: {mode: in-order, golden: "
            "FILE}) or tracecheck diff"
        )
    total = sum(len(names) for sequence in sequences for names in sequence)
    kept = sum(len(names) for names in common) * len(sequences)
    return Trajectory(tuple(common), left_out=total - kept)


def _shared(first: list[StepNames], second: list[StepNames]) -> list[StepNames]:
    """Steps both sequences hold, in order: their longest common subsequence (exact for runs
    of up to 4096 steps; see tracecheck.diff.sequence)."""
    return [first[i] for i, _ in common_pairs(first, second)]
