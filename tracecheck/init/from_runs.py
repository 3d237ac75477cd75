"""A contract draft from good runs: what every run did, as rules every run passes.

The draft is planned first (`RunsPlan`: the tools, arguments, trajectory, retries, models and
budget the runs show, with the reasons for each), then checked on the runs it came from: a
rule that fails one of them is left out with the reason, so the draft never fails its own runs.
Then it is written with comments (render.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from tracecheck.init.budget import ceiling, tokens_used
from tracecheck.init.common_steps import common_steps
from tracecheck.init.draft import Draft
from tracecheck.init.plan import ArgumentEntry, Failure, RunsPlan
from tracecheck.init.render import render_runs
from tracecheck.init.retry_plan import plan_retries
from tracecheck.init.runs import Run, read_runs
from tracecheck.init.shapes import shape_of
from tracecheck.spans import Kind, Span, Trace

__all__ = ["NothingToDraft", "draft_from_runs"]


class NothingToDraft(ValueError):
    """The runs show nothing a contract could hold: no tool call and no model call."""


def draft_from_runs(traces: Sequence[Trace | Iterable[Span]], *, name: str = "draft") -> Draft:
    """A contract draft from one or more good runs (each a `Trace`, or a run's spans).

    Raises `NothingToDraft` when the runs record no tool call and no model call a rule could
    hold, and `ValueError` when no run is given.
    """
    if not traces:
        raise ValueError("no runs to draft a contract from")
    if not name.strip():
        raise ValueError("a contract's name must not be blank")
    runs, skipped = read_runs(traces)
    if not runs:
        raise NothingToDraft(
            "no trace records a tool call or a model call, so there is no run to draft from"
        )
    plan = _verified(_plan(runs, name), runs)
    plan = dataclasses.replace(plan, skipped=tuple(skipped))
    if not plan.has_rules():
        raise NothingToDraft(
            "the runs record no tool call and no model call a rule could hold, so there is "
            "nothing to draft"
        )
    return render_runs(plan, runs)


def _plan(runs: list[Run], name: str) -> RunsPlan:
    order = _tools_in_order(runs)
    required = tuple(t for t in order if all(_called(run, t) for run in runs))
    plan = RunsPlan(name=name, required=required)
    unnamed = next((run for run in runs if run.unnamed_calls), None)
    if unnamed is None and order:
        plan = dataclasses.replace(plan, allowed=order)
    elif unnamed is not None:
        plan = plan.noted(
            "allowed",
            f"left out: {unnamed.name} has tool calls that do not record which tool ran, and "
            "tools.allowed fails a call with no tool name",
        )
    plan = _arguments(plan, runs)
    trajectory = common_steps(runs)
    plan = dataclasses.replace(plan, trajectory=trajectory)
    if order:
        plan = dataclasses.replace(plan, retries=plan_retries(runs, order))
    return _models(_budget(plan, runs), runs)


def _tools_in_order(runs: Sequence[Run]) -> tuple[str, ...]:
    """Every tool the runs called, in the order first called (run by run)."""
    seen: dict[str, None] = {}
    for run in runs:
        for span in run.calls:
            name = run.named(span)
            if name:
                seen.setdefault(name, None)
    return tuple(seen)


def _called(run: Run, tool: str) -> bool:
    return any(run.named(span) == tool for span in run.calls)


def _arguments(plan: RunsPlan, runs: Sequence[Run]) -> RunsPlan:
    """Type checks for the pointers every call of a required tool had. A tool not called in
    every run gets none: a run without its calls has no evidence, and the check fails there."""
    entries: list[ArgumentEntry] = []
    for tool in plan.required:
        calls = [span for run in runs for span in run.calls if span.tool_name == tool]
        unknown = next((span for span in calls if not span.arguments.known), None)
        if unknown is not None:
            why = unknown.arguments.reason or "the span carries no argument evidence"
            plan = plan.noted("arguments", f"{tool}: no checks, since a call of it says {why}")
            continue
        shape = shape_of([span.arguments.value for span in calls])
        entries += [ArgumentEntry(tool, pointer, kind) for pointer, kind in shape.pointers]
        if shape.left_out:
            plan = plan.noted(
                "arguments",
                f"{tool}: {shape.left_out} more pointers every call has are not listed",
            )
    return dataclasses.replace(plan, arguments=tuple(entries))


def _models(plan: RunsPlan, runs: Sequence[Run]) -> RunsPlan:
    calls = [span for run in runs for span in run.subject.of_kind(Kind.LLM)]
    if not calls:
        return plan
    nameless = next((run for run in runs if any(not s.model for s in _llm(run))), None)
    if nameless is not None:
        return plan.noted(
            "models",
            f"llm.allowedModels left out: {nameless.name} has model calls that record no "
            "model, and the rule fails such a call",
        )
    models = tuple(dict.fromkeys(span.model for span in calls if span.model))
    return dataclasses.replace(plan, models=models)


def _llm(run: Run) -> Sequence[Span]:
    return run.subject.of_kind(Kind.LLM)


def _budget(plan: RunsPlan, runs: Sequence[Run]) -> RunsPlan:
    if not any(_llm(run) for run in runs):
        return plan
    largest: tuple[int | float, Run] | None = None
    for run in runs:
        used = tokens_used(run.subject)
        if used is None:
            return plan.noted(
                "tokens",
                f"llm.maxTotalTokens left out: {run.name} has model calls with no recorded "
                "token counts, so its total is unknown",
            )
        if largest is None or used > largest[0]:
            largest = (used, run)
    assert largest is not None
    used, run = largest
    if used <= 0:
        return plan.noted("tokens", "llm.maxTotalTokens left out: the runs used 0 tokens")
    return dataclasses.replace(plan, ceiling=ceiling(used), largest_run=run.name)


def _verified(plan: RunsPlan, runs: Sequence[Run]) -> RunsPlan:
    """The plan without the rules that fail a run it came from, each left out with why."""
    from tracecheck.check import check
    from tracecheck.contract.model import compile_contract

    if not plan.has_rules():
        return plan
    contract = compile_contract(render_runs(plan, runs).document())
    failures: dict[str, Failure] = {}
    for run in runs:
        for result in check(run.subject.spans, contract).rules:
            if result.status == "fail" and result.label not in failures:
                failures[result.label] = Failure(run.name, result.violations)
    return plan.without(failures) if failures else plan
