"""Contract lint: contradictions (errors) and likely mistakes (warnings), contracts.md §7.2.

`lint_contract` accepts exactly what `compile_contract` accepts and raises `ContractError` for a
malformed contract. Duplicate alternative ids, which compile also refuses, are reported as a
lint error rather than raised, so that lint names them with its stable code.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tracecheck.contract.compile import compile_spec, duplicate_ids
from tracecheck.contract.limits_lint import LIMIT_CODES, limit_findings
from tracecheck.contract.load import ContractSource, load_document
from tracecheck.contract.prices import cost_findings
from tracecheck.contract.spec import TOP_KEYS, ContractSpec, PathSpec
from tracecheck.errors import ContractError

__all__ = ["CODES", "LintFinding", "is_json_schema", "lint_contract"]

LintLevel = Literal["error", "warning"]

# Every code lint can report, with its level (stable: tools and CI configurations rely on them).
CODES: dict[str, LintLevel] = {
    "tools.required-and-forbidden": "error",
    "tools.required-not-allowed": "error",
    "tools.required-capped-at-zero": "error",
    "tools.required-but-max-calls-zero": "error",
    "tools.required-exceeds-max-calls": "error",
    "tools.allowed-and-forbidden": "error",
    "tools.argument-on-forbidden": "error",
    "tools.argument-empty-range": "error",
    "tools.same-as-forbidden": "error",
    "tools.requires-itself": "error",
    "tools.requires-unreachable": "error",
    "tools.argument-schema-vacuous": "warning",
    "run.completed-not-allowed": "error",
    "alternatives.duplicate-id": "error",
    "tools.cap-on-forbidden": "warning",
    "tools.cap-on-disallowed": "warning",
    "tools.argument-not-required": "warning",
    "tools.enforced-without-allowed": "warning",
    "retries.forbidden-tool": "warning",
    "tools.order-default-mode": "warning",
    "run.completed-beside-other-statuses": "warning",
    "llm.max-calls-zero-with-limits": "warning",
    "alternatives.single": "warning",
    "capture.lenient": "warning",
    "llm.cost-without-prices": "warning",
    "llm.allowed-model-unpriced": "warning",
    "prices.unused": "warning",
    "trajectory.forbidden-tool": "error",
    "trajectory.ignored-tool": "error",
    **LIMIT_CODES,
}


@dataclass(frozen=True)
class LintFinding:
    level: LintLevel
    code: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.level}: {self.path}: {self.message} [{self.code}]"


def lint_contract(source: ContractSource) -> list[LintFinding]:
    """Findings in document order: the base path, then each alternative; errors before
    warnings within a path."""
    doc, origin = load_document(source)
    spec, problems = compile_spec(doc)
    id_problems = set(duplicate_ids(spec)) if spec is not None else set()
    refused = [problem for problem in problems if problem not in id_problems]
    if spec is None or refused:
        from tracecheck.contract.places import refusal  # on this path only

        raise refusal(refused, origin)
    findings = list(_lint_path(spec.base))
    for alternative in spec.alternatives or ():
        findings += _lint_path(alternative)
    findings += [
        _finding("alternatives.duplicate-id", problem.path, problem.message)
        for problem in duplicate_ids(spec)
    ]
    findings += _lint_alternatives(spec)
    findings += [_finding(*found) for found in cost_findings(spec)]
    if spec.capture == "lenient":
        findings.append(
            _finding(
                "capture.lenient",
                "capture",
                "lenient capture judges rules about tools and models on traces that give reason "
                "to doubt every call was recorded, so a forbidden call no convention recognised "
                "passes with only a note",
            )
        )
    order = {"error": 0, "warning": 1}
    return sorted(findings, key=lambda f: (_path_rank(spec, f.path), order[f.level]))


_META_SCHEMA = re.compile(r"https?://json-schema\.org/")
# Keys only a contract has (a JSON Schema has a description too).
_CONTRACT_ONLY_KEYS = tuple(key for key in TOP_KEYS if key != "description")


def is_json_schema(path: str | os.PathLike[str]) -> bool:
    """Whether a file is a JSON Schema rather than a contract: its top-level `$schema` names a
    json-schema.org draft and it has no contract key (`tracecheck lint contracts/*.json` meets
    contract.schema.json). A file that cannot be read or parsed is not one: linting it as a
    contract says why."""
    try:
        doc, _ = load_document(Path(path))
    except ContractError:
        return False
    if not isinstance(doc, Mapping):
        return False
    schema = doc.get("$schema")
    return (
        isinstance(schema, str)
        and _META_SCHEMA.match(schema) is not None
        and not any(key in doc for key in _CONTRACT_ONLY_KEYS)
    )


def _path_rank(spec: ContractSpec, path: str) -> int:
    for rank, alternative in enumerate(spec.alternatives or (), start=1):
        if path == alternative.where or path.startswith(
            (f"{alternative.where}.", f"{alternative.where}[")
        ):
            return rank
    return 0


def _finding(code: str, path: str, message: str) -> LintFinding:
    return LintFinding(CODES[code], code, path, message)


def _q(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)


def _lint_alternatives(spec: ContractSpec) -> list[LintFinding]:
    if spec.alternatives is not None and len(spec.alternatives) == 1:
        return [
            _finding(
                "alternatives.single",
                "alternatives.anyOf",
                "there is a single alternative, so it is simply required: move its rules into "
                "the base contract, or add the other path",
            )
        ]
    return []


def _lint_trajectory(path: PathSpec) -> Iterator[LintFinding]:
    """Expected calls the rest of the path, or the trajectory itself, rules out."""
    trajectory = path.trajectory
    if trajectory is None:
        return
    forbidden = set(path.tools.forbidden) if path.tools is not None else set()
    for k, step in enumerate(trajectory.steps):
        for j, call in enumerate(step.calls):
            where = path.at(f"trajectory.calls[{k}]" + (f".parallel[{j}]" if step.parallel else ""))
            if call.tool in trajectory.ignore:
                yield _finding(
                    "trajectory.ignored-tool",
                    where,
                    f"{_q(call.tool)} is expected but also ignored, so no call can match it",
                )
            if call.tool in forbidden and trajectory.mode != "subset":
                yield _finding(
                    "trajectory.forbidden-tool",
                    where,
                    f"{_q(call.tool)} is expected in the trajectory but forbidden by tools.forbidden",
                )


def _lint_matchers(path: PathSpec) -> Iterator[LintFinding]:
    """Argument checks that no value can pass or every value passes, and preconditions that
    no call can meet."""
    tools = path.tools
    if tools is None:
        return
    forbidden = set(tools.forbidden)
    for argument in tools.arguments:
        check = argument.check
        where = path.at(f"tools.arguments[{argument.index}]")
        if check.range is not None and check.range.empty:
            yield _finding(
                "tools.argument-empty-range",
                f"{where}.range",
                f"admits no number ({check.range.describe()}), so every call fails",
            )
        if check.same_as is not None and check.same_as.tool in forbidden:
            yield _finding(
                "tools.same-as-forbidden",
                f"{where}.sameAs.tool",
                f"takes the value from {_q(check.same_as.tool)}, which is forbidden, so every "
                "call fails",
            )
        schema = check.schema
        if schema is not None and not schema.offered and schema.value in (True, {}):
            yield _finding(
                "tools.argument-schema-vacuous",
                f"{where}.schema",
                "accepts every value, so it checks only that the argument exists",
            )
    required = set(tools.required) | set(tools.required_order)
    for entry in tools.requires:
        where = path.at(f"tools.requires[{entry.index}]")
        if entry.tool == entry.after:
            yield _finding(
                "tools.requires-itself",
                f"{where}.after",
                f"{_q(entry.tool)} must follow a successful call of itself, so its first call "
                "always fails",
            )
        unreachable = entry.after in forbidden or (
            tools.allowed is not None and entry.after not in tools.allowed
        )
        if unreachable and entry.tool in required:
            yield _finding(
                "tools.requires-unreachable",
                f"{where}.after",
                f"{_q(entry.tool)} is required but may run only after {_q(entry.after)}, which "
                "is forbidden or not allowed",
            )


def _lint_path(path: PathSpec) -> Iterator[LintFinding]:
    yield from _lint_trajectory(path)
    yield from (_finding(*found) for found in limit_findings(path))
    yield from _lint_matchers(path)
    at = path.at
    tools = path.tools
    run = path.run
    if tools is not None:
        # Every tool the path requires (tools.required, then tools.requiredOrder), first place.
        required: dict[str, str] = {}
        for i, name in enumerate(tools.required):
            required.setdefault(name, at(f"tools.required[{i}]"))
        for i, name in enumerate(tools.required_order):
            required.setdefault(name, at(f"tools.requiredOrder[{i}]"))
        forbidden = set(tools.forbidden)
        caps = dict(tools.max_calls_per_tool)
        for name, where in required.items():
            if name in forbidden:
                yield _finding(
                    "tools.required-and-forbidden",
                    where,
                    f"{_q(name)} is both required and forbidden",
                )
            if tools.allowed is not None and name not in tools.allowed:
                yield _finding(
                    "tools.required-not-allowed",
                    where,
                    f"{_q(name)} is required but not in tools.allowed",
                )
            if caps.get(name) == 0:
                yield _finding(
                    "tools.required-capped-at-zero",
                    at(f"tools.maxCallsPerTool[{_q(name)}]"),
                    f"{_q(name)} is required but capped at 0 calls",
                )
        if tools.max_calls is not None and required:
            if tools.max_calls == 0:
                yield _finding(
                    "tools.required-but-max-calls-zero",
                    at("tools.maxCalls"),
                    f"tools.maxCalls is 0 but {len(required)} tool(s) are required",
                )
            elif len(required) > tools.max_calls:
                yield _finding(
                    "tools.required-exceeds-max-calls",
                    at("tools.maxCalls"),
                    f"{len(required)} distinct tools are required but tools.maxCalls is "
                    f"{tools.max_calls}",
                )
        for i, name in enumerate(tools.allowed or ()):
            if name in forbidden:
                yield _finding(
                    "tools.allowed-and-forbidden",
                    at(f"tools.allowed[{i}]"),
                    f"{_q(name)} is both allowed and forbidden",
                )
        for argument in tools.arguments:
            if argument.tool in forbidden:
                yield _finding(
                    "tools.argument-on-forbidden",
                    at(f"tools.arguments[{argument.index}].tool"),
                    f"checks the arguments of {_q(argument.tool)}, which is forbidden",
                )
    statuses = run.allowed_statuses if run is not None and run.require_completed else None
    if statuses is not None and "completed" not in statuses:
        yield _finding(
            "run.completed-not-allowed",
            at("run.allowedStatuses"),
            "run.requireCompleted is true but run.allowedStatuses excludes completed",
        )
    # Warnings.
    if tools is not None:
        forbidden = set(tools.forbidden)
        for name, cap in tools.max_calls_per_tool:
            where = at(f"tools.maxCallsPerTool[{_q(name)}]")
            if name in forbidden:
                yield _finding(
                    "tools.cap-on-forbidden",
                    where,
                    f"caps {_q(name)} at {cap} call(s), but it is forbidden",
                )
            elif tools.allowed is not None and name not in tools.allowed:
                yield _finding(
                    "tools.cap-on-disallowed",
                    where,
                    f"caps {_q(name)} at {cap} call(s), but it is not in tools.allowed",
                )
        required_names = set(tools.required) | set(tools.required_order)
        for argument in tools.arguments:
            if argument.tool not in required_names and argument.tool not in forbidden:
                yield _finding(
                    "tools.argument-not-required",
                    at(f"tools.arguments[{argument.index}].tool"),
                    f"checks the arguments of {_q(argument.tool)}, which is not required: a run "
                    "that never calls it fails for missing evidence",
                )
        if tools.enforced and tools.allowed is None:
            yield _finding(
                "tools.enforced-without-allowed",
                at("tools.enforced"),
                "enforced without tools.allowed checks only that every call was offered, not "
                "which tools were offered",
            )
        if path.retries is not None:
            for i, name in enumerate(path.retries.reads):
                if name in forbidden:
                    yield _finding(
                        "retries.forbidden-tool",
                        at(f"retries.reads[{i}]"),
                        f"declares a retry rule for {_q(name)}, which is forbidden",
                    )
            for i, write in enumerate(path.retries.writes):
                if write.tool in forbidden:
                    yield _finding(
                        "retries.forbidden-tool",
                        at(f"retries.writes[{i}].tool"),
                        f"declares a retry rule for {_q(write.tool)}, which is forbidden",
                    )
        if len(tools.required_order) >= 2 and tools.order_mode is None:
            yield _finding(
                "tools.order-default-mode",
                at("tools.requiredOrder"),
                "orders tools without orderMode: the default start-order passes overlapping "
                "calls; set orderMode (finish-before-start to require each call to finish first)",
            )
    if run is not None and run.require_completed and run.allowed_statuses is not None:
        others = [status for status in run.allowed_statuses if status != "completed"]
        if "completed" in run.allowed_statuses and others:
            yield _finding(
                "run.completed-beside-other-statuses",
                at("run.allowedStatuses"),
                f"also allows {', '.join(others)}, but run.requireCompleted accepts only completed",
            )
    llm = path.llm
    if llm is not None and llm.max_calls == 0:
        limits = [
            key
            for key, present in (
                ("maxTotalTokens", llm.max_total_tokens is not None),
                ("allowedModels", bool(llm.allowed_models)),
                ("maxCostUsd", llm.max_cost_usd is not None),
            )
            if present
        ]
        if limits:
            verb = "limit" if len(limits) > 1 else "limits"
            yield _finding(
                "llm.max-calls-zero-with-limits",
                at("llm.maxCalls"),
                f"is 0, so no model may be called, yet llm.{' and llm.'.join(limits)} {verb} "
                "model calls",
            )
