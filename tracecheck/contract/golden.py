"""A golden run as a reference trajectory: `trajectory: {golden: FILE}` read when the contract
is compiled, its tool calls in steps (parallel groups kept), its arguments compared as asked."""

from __future__ import annotations

from pathlib import Path

from tracecheck.contract.spec import ContractSpec, PathSpec
from tracecheck.contract.trajectory_spec import TrajectorySpec
from tracecheck.errors import ContractProblem, TraceReadError
from tracecheck.readers import read_traces
from tracecheck.readers.duplicates import merge_duplicate_calls
from tracecheck.rules.matchers import ArgumentCheck
from tracecheck.rules.pointers import ABSENT, resolve
from tracecheck.rules.steps import tool_steps
from tracecheck.rules.subject import Subject
from tracecheck.rules.trajectory import Expected, ExpectedStep
from tracecheck.spans import Span

__all__ = ["with_goldens"]


def with_goldens(
    spec: ContractSpec, origin: str | None
) -> tuple[ContractSpec, list[ContractProblem]]:
    """The contract with each golden run read into its trajectory's reference steps; a golden
    file is found beside the contract file (or from the working directory for a contract
    given as text)."""
    problems: list[ContractProblem] = []
    base = Path(origin).parent if origin else Path()

    def resolved(path: PathSpec) -> PathSpec:
        trajectory = path.trajectory
        if trajectory is None or trajectory.golden is None:
            return path
        where = path.at("trajectory.golden")
        steps = _golden_steps(trajectory, base / trajectory.golden, where, problems)
        return path._replace(trajectory=trajectory._replace(steps=steps))

    alternatives = spec.alternatives
    if alternatives is not None:
        alternatives = tuple(resolved(path) for path in alternatives)
    return spec._replace(base=resolved(spec.base), alternatives=alternatives), problems


def _golden_steps(
    trajectory: TrajectorySpec, path: Path, where: str, problems: list[ContractProblem]
) -> tuple[ExpectedStep, ...]:
    try:
        traces = [t for t in read_traces(path) if any(s.kind == "TOOL" for s in t.spans)]
    except (TraceReadError, OSError) as exc:
        problems.append(ContractProblem(where, f"the golden run cannot be read: {exc}"))
        return ()
    if len(traces) != 1:
        problems.append(
            ContractProblem(
                where,
                f"{path} holds {len(traces)} traces with tool calls; a golden run is one trace",
            )
        )
        return ()
    subject = Subject(merge_duplicate_calls(traces[0].spans).spans)
    steps: list[ExpectedStep] = []
    for step in tool_steps(subject):
        calls = [c for c in step.calls if c.tool_name not in trajectory.ignore]
        unnamed = [c for c in calls if not c.tool_name]
        if unnamed or not step.placed:
            what = "does not say which tool it called" if unnamed else "has no start time"
            problems.append(
                ContractProblem(
                    where, f"span {subject.ref(step.calls[0])} of the golden run {what}"
                )
            )
            return ()
        if calls:
            expected = tuple(_expected(trajectory, call) for call in calls)
            steps.append(ExpectedStep(expected, parallel=len(expected) > 1))
    if not steps:
        problems.append(ContractProblem(where, f"the golden run in {path} calls no tool"))
    return tuple(steps)


def _expected(trajectory: TrajectorySpec, call: Span) -> Expected:
    """The call as an expected call: its tool, and its arguments as the contract says."""
    tool = call.tool_name or ""
    how = dict(trajectory.match_per_tool).get(tool, trajectory.match_arguments)
    arguments = call.arguments
    if how == "ignore" or not arguments.known:
        return Expected(tool)
    if how == "exact":
        exact = (("", ArgumentCheck("equals", value=arguments.value)),)
        return Expected(tool, arguments=exact, from_golden=True)
    checks = [
        (pointer, ArgumentCheck("equals", value=value))
        for pointer in how
        if (value := resolve(arguments.value, pointer)) is not ABSENT
    ]
    return Expected(tool, arguments=tuple(checks), from_golden=True)
