"""Strict parsing of a contract document (contracts.md §2, §3, §7.1).

`parse_spec` checks every key, type and constraint and collects **all** problems with their
location (`tools.maxCalls`, `alternatives.anyOf[1].tools.required[0]`, `rules[2].p.kind`).
It returns a best-effort `ContractSpec` of the valid parts beside the problems, so that the
compiler can add its own checks (labels, empty contract) in the same report. A top-level
`$schema` (any string) names the document's JSON Schema for editors and is otherwise ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, cast

# `X as X` re-exports the words and helpers that lived here before the split (tests read them).
from tracecheck.contract.checker import pointer_problem as pointer_problem
from tracecheck.contract.limits_spec import ErrorLimit, LoopsSpec, StepLimit
from tracecheck.contract.predicate_spec import KINDS
from tracecheck.contract.predicate_spec import PREDICATE_KEYS as PREDICATE_KEYS
from tracecheck.contract.predicate_spec import REGEX_FLAGS as REGEX_FLAGS
from tracecheck.contract.rule_spec import CHECK_KEYS as CHECK_KEYS
from tracecheck.contract.rule_spec import RULE_KEYS as RULE_KEYS
from tracecheck.contract.rule_spec import RULE_REQUIRED as RULE_REQUIRED
from tracecheck.contract.rule_spec import RuleChecker, RuleSpec
from tracecheck.contract.section_spec import ARGUMENT_CHECKS as ARGUMENT_CHECKS
from tracecheck.contract.section_spec import ARGUMENT_KEYS as ARGUMENT_KEYS
from tracecheck.contract.section_spec import JSON_TYPES as JSON_TYPES
from tracecheck.contract.section_spec import LLM_KEYS as LLM_KEYS
from tracecheck.contract.section_spec import OCCURRENCES as OCCURRENCES
from tracecheck.contract.section_spec import ORDER_MODES as ORDER_MODES
from tracecheck.contract.section_spec import RETRIES_KEYS as RETRIES_KEYS
from tracecheck.contract.section_spec import RUN_KEYS as RUN_KEYS
from tracecheck.contract.section_spec import RUN_STATUSES as RUN_STATUSES
from tracecheck.contract.section_spec import TOOLS_KEYS as TOOLS_KEYS
from tracecheck.contract.section_spec import WRITE_KEYS as WRITE_KEYS
from tracecheck.contract.section_spec import (
    ArgumentSpec,
    LlmSpec,
    RetriesSpec,
    RunSpec,
    ToolsSpec,
)
from tracecheck.contract.trajectory_spec import TrajectoryChecker, TrajectorySpec
from tracecheck.contract.words import describe
from tracecheck.contract.words import json_type as json_type
from tracecheck.errors import ContractProblem
from tracecheck.naming import did_you_mean, key_path
from tracecheck.rules.capture import CAPTURES, CaptureMode
from tracecheck.rules.predicates import Predicate

if TYPE_CHECKING:
    from tracecheck.rules.pricing import Prices

__all__ = [
    "KINDS",
    "ArgumentSpec",
    "ContractSpec",
    "LlmSpec",
    "PathSpec",
    "RetriesSpec",
    "RuleSpec",
    "RunSpec",
    "ToolsSpec",
    "did_you_mean",
    "parse_spec",
]

TOP_KEYS = (
    "name",
    "description",
    "scope",
    "alternatives",
    "run",
    "tools",
    "llm",
    "retries",
    "rules",
    "trajectory",
    "errors",
    "steps",
    "loops",
    "capture",
    "prices",
)
PATH_KEYS = ("run", "tools", "llm", "retries", "rules", "trajectory", "errors", "steps", "loops")
ALTERNATIVE_KEYS = ("id", *PATH_KEYS)


# ------------------------------------------------------------------------------------------
# The parsed document: valid parts only, each with the path it came from


# Named tuples, as the sections are (section_spec.py says why).
class PathSpec(NamedTuple):
    """The base contract (`where == ""`) or one alternative (`alternatives.anyOf[i]`)."""

    where: str
    id: str | None = None
    run: RunSpec | None = None
    tools: ToolsSpec | None = None
    llm: LlmSpec | None = None
    retries: RetriesSpec | None = None
    rules: tuple[RuleSpec, ...] = ()
    trajectory: TrajectorySpec | None = None
    errors: tuple[ErrorLimit, ...] = ()
    steps: tuple[StepLimit, ...] = ()
    loops: LoopsSpec | None = None

    def at(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key


class ContractSpec(NamedTuple):
    name: str
    description: str | None
    scope: Predicate | None
    base: PathSpec
    alternatives: tuple[PathSpec, ...] | None  # None when the key is absent
    capture: CaptureMode | None = None  # None when the key is absent: strict
    prices: Prices | None = None  # the contract's own price table (price_spec.py)


class _Parser(RuleChecker, TrajectoryChecker):
    """The document and its paths (the base contract and each alternative)."""

    def contract(self, doc: Any) -> ContractSpec | None:
        if not isinstance(doc, Mapping):
            self.add("", f"a contract must be an object, not {describe(doc)}")
            return None
        if "$schema" in doc:
            # Names the document's JSON Schema for editors (any string); not a contract key.
            self.text(doc["$schema"], "$schema")
            doc = {key: value for key, value in doc.items() if key != "$schema"}
        self.obj(doc, "", TOP_KEYS, required=("name",))
        name = self.text(doc["name"], "name", blank_ok=False) if "name" in doc else None
        description = None
        if "description" in doc:
            description = self.text(doc["description"], "description")
        scope = self.scope(doc["scope"]) if "scope" in doc else None
        capture = None
        if "capture" in doc:
            capture = cast("CaptureMode | None", self.enum(doc["capture"], "capture", CAPTURES))
        alternatives = None
        if "alternatives" in doc:
            alternatives = self.alternatives(doc["alternatives"])
        base = self.path_keys(doc, "")
        prices = None
        if "prices" in doc:  # the price rules (and `decimal`) only for a contract with prices
            from tracecheck.contract.price_spec import price_table

            prices = price_table(self, doc["prices"], "prices")
        return ContractSpec(
            name or "", description, scope, base, alternatives, capture, prices=prices
        )

    def scope(self, value: Any) -> Predicate | None:
        scope = self.obj(value, "scope", ("root",), required=("root",))
        if scope is None or "root" not in scope:
            return None
        root = scope["root"]
        kind = root.get("kind") if isinstance(root, Mapping) else None
        if isinstance(kind, str) and kind.isascii() and kind.upper() in KINDS:
            # Only the root's own kind, and only ASCII letters ("chaın".upper() is "CHAIN").
            root = {**root, "kind": kind.upper()}
        return self.predicate(root, "scope.root")

    def alternatives(self, value: Any) -> tuple[PathSpec, ...] | None:
        alternatives = self.obj(value, "alternatives", ("anyOf",), required=("anyOf",))
        if alternatives is None or "anyOf" not in alternatives:
            return None
        items = self.array(alternatives["anyOf"], "alternatives.anyOf", "alternatives")
        if items is None:
            return None
        parsed: list[PathSpec] = []
        for i, item in enumerate(items):
            where = f"alternatives.anyOf[{i}]"
            alternative = self.obj(item, where, ALTERNATIVE_KEYS, required=("id",))
            if alternative is None:
                continue
            alt_id = None
            if "id" in alternative:
                alt_id = self.text(alternative["id"], f"{where}.id", blank_ok=False)
            parsed.append(self.path_keys(alternative, where)._replace(id=alt_id))
        return tuple(parsed)

    def path_keys(self, doc: Mapping[str, Any], where: str) -> PathSpec:
        run = self.run(doc["run"], key_path(where, "run")) if "run" in doc else None
        tools = self.tools(doc["tools"], key_path(where, "tools")) if "tools" in doc else None
        llm = self.llm(doc["llm"], key_path(where, "llm")) if "llm" in doc else None
        retries = None
        if "retries" in doc:
            retries = self.retries(doc["retries"], key_path(where, "retries"), "retries")
        rules: tuple[RuleSpec, ...] = ()
        if "rules" in doc:
            rules = self.rules(doc["rules"], key_path(where, "rules"))
        trajectory = None
        if "trajectory" in doc:
            trajectory = self.trajectory(doc["trajectory"], key_path(where, "trajectory"))
        errors = (
            self.error_limits(doc["errors"], key_path(where, "errors")) if "errors" in doc else ()
        )
        steps = self.step_limits(doc["steps"], key_path(where, "steps")) if "steps" in doc else ()
        loops = self.loop_limits(doc["loops"], key_path(where, "loops")) if "loops" in doc else None
        # One keyword per path key: each feature's section is parsed by its own checker.
        return PathSpec(
            where,
            run=run,
            tools=tools,
            llm=llm,
            retries=retries,
            rules=rules,
            trajectory=trajectory,
            errors=errors,
            steps=steps,
            loops=loops,
        )


def parse_spec(doc: Any) -> tuple[ContractSpec | None, list[ContractProblem]]:
    """The valid parts of a contract document and every problem found in it, in order."""
    parser = _Parser()
    try:
        spec = parser.contract(doc)
    except RecursionError:
        parser.add("", "the contract is nested too deeply")
        return None, parser.problems
    return spec, parser.problems
