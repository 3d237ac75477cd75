"""Compiling a contract document into rule objects (contracts.md §2.1, compile order and labels).

`compile_spec` validates the document strictly (spec.py) and applies the compile-time checks at
the end of §2; `path_rules` builds the rules of one path in the order of the §2.1 table. Every
problem is reported at once. `compile_contract` (model.py) reads the document and makes the
`Contract` of these rules.

Each rule kind's module is imported where a path that has that key builds its rule: a contract
loads the kinds it names and no other (`tracecheck check` starts faster; bench/README.md,
"Command start-up"). The counting kinds (presence.py) and predicates nearly every contract uses.
"""

from __future__ import annotations

import itertools
import json
from typing import TYPE_CHECKING, NamedTuple

from tracecheck.contract.limits_spec import duration_rules, limit_rules
from tracecheck.contract.spec import ContractSpec, PathSpec, parse_spec
from tracecheck.errors import ContractProblem
from tracecheck.rules.predicates import Exact, OneOf, Predicate
from tracecheck.rules.presence import AtMost, Eventually, Never, TokensAtMost

if TYPE_CHECKING:
    from tracecheck.rules.base import Rule
    from tracecheck.rules.pricing import Prices

__all__ = ["CompiledRule", "compile_spec", "path_rules"]


class CompiledRule(NamedTuple):  # a named tuple, as the parsed sections are (section_spec.py)
    """A rule and the place in the document it was compiled from (`tools.required[0]`)."""

    where: str
    rule: Rule


def compile_spec(doc: object) -> tuple[ContractSpec | None, list[ContractProblem]]:
    """Validate a document and apply the compile-time checks; every problem, in order."""
    spec, problems = parse_spec(doc)
    if spec is None:
        return None, problems
    return spec, problems + structural_problems(spec, problems) + duplicate_ids(spec)


def structural_problems(
    spec: ContractSpec, earlier: list[ContractProblem]
) -> list[ContractProblem]:
    """Unique labels, no empty contract, no empty alternative (§2, compile-time checks).

    The emptiness checks are skipped where a problem was already reported: an invalid key
    compiles to nothing, and saying so twice would mislead.
    """
    problems: list[ContractProblem] = []
    paths = [spec.base, *(spec.alternatives or ())]
    for path in paths:
        problems += _duplicate_labels(path)
    if not earlier and not path_rules(spec.base) and spec.alternatives is None:
        problems.append(
            ContractProblem(
                "",
                "the contract has no rules and no alternatives: an empty contract would "
                "vacuously pass",
            )
        )
    for alternative in spec.alternatives or ():
        inside = alternative.where
        if path_rules(alternative) or any(
            p.path == inside or p.path.startswith((inside + ".", inside + "[")) for p in earlier
        ):
            continue
        problems.append(
            ContractProblem(
                inside,
                f"alternative {json.dumps(alternative.id)} has no rules: every alternative "
                "needs at least one",
            )
        )
    return problems


def duplicate_ids(spec: ContractSpec) -> list[ContractProblem]:
    """Alternative ids are unique (also a lint error, §7.2)."""
    problems: list[ContractProblem] = []
    first: dict[str, str] = {}
    for alternative in spec.alternatives or ():
        if alternative.id is None:
            continue
        where = f"{alternative.where}.id"
        if alternative.id in first:
            problems.append(
                ContractProblem(
                    where,
                    f"duplicate alternative id {json.dumps(alternative.id)}, already at "
                    f"{first[alternative.id]}",
                )
            )
        else:
            first[alternative.id] = where
    return problems


def _duplicate_labels(path: PathSpec) -> list[ContractProblem]:
    problems: list[ContractProblem] = []
    first: dict[str, str] = {}
    for compiled in path_rules(path):
        label = compiled.rule.label
        if label in first:
            problems.append(
                ContractProblem(
                    f"{compiled.where}.label",
                    f"duplicate label {json.dumps(label)}, already used by {first[label]}",
                )
            )
        else:
            first[label] = compiled.where
    return problems


def _tool(name: str) -> Predicate:
    return Predicate(kind="TOOL", tool=Exact(name))


def path_rules(path: PathSpec, prices: Prices | None = None) -> list[CompiledRule]:
    """The rules of one path in compile order (§2.1), each with the place it came from; its
    cost rule priced by `prices`, the contract's own table (None: priced when checking)."""
    out: list[CompiledRule] = []

    def add(key: str, rule: Rule) -> None:
        out.append(CompiledRule(path.at(key), rule))

    if path.run is not None:
        from tracecheck.rules.run import RunCheck

        run = path.run
        add(
            "run", RunCheck("run", run.require_completed, run.allowed_statuses, run.max_duration_ms)
        )
    tools = path.tools
    if tools is not None:
        for i, name in enumerate(tools.required):
            add(f"tools.required[{i}]", Eventually(f"tools.required[{name}]", _tool(name)))
        for i, name in enumerate(tools.forbidden):
            add(
                f"tools.forbidden[{i}]",
                Never(f"tools.forbidden[{name}]", _tool(name), needs_tool_capture=True),
            )
        if tools.allowed is not None:
            allowed = Predicate(kind="TOOL", not_=Predicate(tool=OneOf(tools.allowed)))
            add("tools.allowed", Never("tools.allowed", allowed, needs_tool_capture=True))
        if tools.max_calls is not None:
            add(
                "tools.maxCalls",
                AtMost("tools.maxCalls", Predicate(kind="TOOL"), tools.max_calls, True),
            )
        for name, cap in tools.max_calls_per_tool:
            add(
                f"tools.maxCallsPerTool[{json.dumps(name, ensure_ascii=False)}]",
                AtMost(f"tools.maxCallsPerTool[{name}]", _tool(name), cap, True),
            )
        order = tools.required_order
        mode = tools.order_mode or "start-order"
        if len(order) == 1:
            add(
                "tools.requiredOrder[0]",
                Eventually(f"tools.requiredOrder[{order[0]}]", _tool(order[0])),
            )
        elif order:
            from tracecheck.rules.order import Precedes

            for i, (a, b) in enumerate(itertools.pairwise(order)):
                label = f"tools.requiredOrder[{a}->{b}]"
                add(f"tools.requiredOrder[{i + 1}]", Precedes(label, _tool(a), _tool(b), mode))
        if tools.arguments:
            from tracecheck.rules.argument import Argument

            for argument in tools.arguments:
                check = argument.check
                shown = argument.pointer or "(whole value)"
                what = f"type {check.type}" if check.op == "type" else check.op
                label = f"tools.arguments[{argument.index}] {argument.tool} {shown} {what}"
                rule = Argument(
                    label, _tool(argument.tool), argument.pointer, check, argument.occurrence
                )
                add(f"tools.arguments[{argument.index}]", rule)
        if tools.requires:
            from tracecheck.rules.requires import Requires

            for precondition in tools.requires:
                label = (
                    f"tools.requires[{precondition.index}] {precondition.tool} after "
                    f"{precondition.after}"
                )
                add(
                    f"tools.requires[{precondition.index}]",
                    Requires(label, precondition.tool, precondition.after, precondition.same),
                )
        if tools.enforced:
            from tracecheck.rules.offered import ToolsOffered

            add("tools.enforced", ToolsOffered("tools.enforced", tools.allowed))
        for key, timed in duration_rules(tools.durations):
            add(key, timed)
    if path.retries is not None:
        from tracecheck.rules.retry import RetrySafe

        retries = path.retries
        add("retries", RetrySafe("retries", retries.reads, retries.writes, True))
    llm = path.llm
    if llm is not None:
        if llm.max_calls is not None:
            add("llm.maxCalls", AtMost("llm.maxCalls", Predicate(kind="LLM"), llm.max_calls))
        if llm.max_total_tokens is not None:
            add(
                "llm.maxTotalTokens",
                TokensAtMost("llm.maxTotalTokens", Predicate(kind="LLM"), llm.max_total_tokens),
            )
        if llm.max_cost_usd is not None:  # a table given when checking replaces `prices`
            from tracecheck.rules.cost import MaxCost

            add("llm.maxCostUsd", MaxCost("llm.maxCostUsd", llm.max_cost_usd, prices))
        if llm.allowed_models:
            models = Predicate(kind="LLM", not_=Predicate(model=OneOf(llm.allowed_models)))
            add("llm.allowedModels", Never("llm.allowedModels", models))
    trajectory = path.trajectory
    if trajectory is not None:  # a golden run's steps are read once the document is valid
        from tracecheck.rules.trajectory import Trajectory

        ignore = frozenset(trajectory.ignore)
        add("trajectory", Trajectory("trajectory", trajectory.mode, trajectory.steps, ignore))
    for key, limit in limit_rules(path.errors, path.steps, path.loops):
        add(key, limit)
    for entry in path.rules:
        add(f"rules[{entry.index}]", entry.rule)
    return out
