"""A golden run as a reference trajectory: `trajectory: {golden: FILE}` read when the contract
is compiled, its tool calls in steps (parallel groups kept), its arguments compared as asked."""

from __future__ import annotations

from pathlib import Path

from tracecheck.contract.spec import ContractSpec, PathSpec
from tracecheck.contract.trajectory_spec import TrajectorySpec
from tracecheck.errors import ContractProblem, TraceReadError
from tracecheck.readers import read_traces
from tracecheck.readers.duplicates import merge_duplicate_calls
from tracecheck.reading import read_subject
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
    merged = merge_duplicate_calls(traces[0].spans)
    subject = Subject(merged.spans)
    # A reference is only as good as its reading: a golden run whose tool calls are in doubt
    # (a call no convention maps, a tool call that does not name its tool) is no reference.
    doubt = read_subject(subject, merged.merges).tools_in_doubt
    if doubt is not None:
        problems.append(ContractProblem(where, f"the golden run cannot be a reference: {doubt}"))
        return ()
    steps: list[ExpectedStep] = []
    for step in tool_steps(subject):
        calls = [c for c in step.calls if c.tool_name not in trajectory.ignore]
        if calls and not step.placed:
            problems.append(
                ContractProblem(
                    where,
                    f"span {subject.ref(calls[0])} of the golden run has no start time, so "
                    "its place in the order is unknown",
                )
            )
            return ()
        expected = []
        for call in calls:
            found = _expected(trajectory, call)
            if found is None:
                problems.append(
                    ContractProblem(
                        where,
                        f"span {subject.ref(call)} of the golden run records no arguments, "
                        "so they cannot be matched: "
                        f"{call.arguments.reason or 'the span carries no argument evidence'}",
                    )
                )
                return ()
            expected.append(found)
        if expected:
            steps.append(ExpectedStep(tuple(expected), parallel=len(expected) > 1))
    if not steps:
        problems.append(ContractProblem(where, f"the golden run in {path} calls no tool"))
    return tuple(steps)


def _expected(trajectory: TrajectorySpec, call: Span) -> Expected | None:
    """The call as an expected call: its tool, and its arguments as the contract says; None
    when they are to be matched and the golden run did not record them."""
    tool = call.tool_name or ""
    how = dict(trajectory.match_per_tool).get(tool, trajectory.match_arguments)
    arguments = call.arguments
    if how == "ignore":
        return Expected(tool)
    if not arguments.known:
        return None
    if how == "exact":
        exact = (("", ArgumentCheck("equals", value=arguments.value)),)
        return Expected(tool, arguments=exact, from_golden=True)
    checks = [
        (pointer, ArgumentCheck("equals", value=value))
        for pointer in how
        if (value := resolve(arguments.value, pointer)) is not ABSENT
    ]
    return Expected(tool, arguments=tuple(checks), from_golden=True)
