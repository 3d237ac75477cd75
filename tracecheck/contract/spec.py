"""Strict parsing of a contract document (contracts.md §2, §3, §7.1).

`parse_spec` checks every key, type and constraint and collects **all** problems with their
location (`tools.maxCalls`, `alternatives.anyOf[1].tools.required[0]`, `rules[2].p.kind`).
It returns a best-effort `ContractSpec` of the valid parts beside the problems, so that the
compiler can add its own checks (labels, empty contract) in the same report.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from tracecheck.errors import ContractProblem
from tracecheck.rules.operators import (
    Always,
    Argument,
    ArgumentCheck,
    AtMost,
    Eventually,
    Never,
    NeverUnless,
    Occurrence,
    OrderMode,
    Precedes,
    RetrySafe,
    Rule,
    RunCheck,
    TokensAtMost,
    ToolsOffered,
    WriteTool,
)
from tracecheck.rules.predicates import Exact, Matcher, OneOf, Pattern, Predicate
from tracecheck.spans import Kind

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

KINDS = tuple(kind.value for kind in Kind)
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
)
PATH_KEYS = ("run", "tools", "llm", "retries", "rules")
ALTERNATIVE_KEYS = ("id", *PATH_KEYS)
RUN_KEYS = ("requireCompleted", "allowedStatuses", "maxDurationMs")
TOOLS_KEYS = (
    "required",
    "forbidden",
    "allowed",
    "maxCalls",
    "maxCallsPerTool",
    "requiredOrder",
    "orderMode",
    "arguments",
    "enforced",
)
LLM_KEYS = ("maxCalls", "maxTotalTokens", "allowedModels")
RETRIES_KEYS = ("reads", "writes")
WRITE_KEYS = ("tool", "idempotencyKey")
ARGUMENT_CHECKS = ("exists", "equals", "oneOf", "type")
ARGUMENT_KEYS = ("tool", "pointer", "occurrence", *ARGUMENT_CHECKS)
PREDICATE_KEYS = ("name", "tool", "model", "kind", "attr", "not")
RUN_STATUSES = ("running", "completed", "failed", "aborted")
ORDER_MODES: tuple[OrderMode, ...] = ("start-order", "finish-before-start", "all-occurrences")
OCCURRENCES = ("first", "last", "any", "all")
JSON_TYPES = ("string", "number", "boolean", "object", "array", "null")
CHECK_KEYS = {"exists": ("op",), "equals": ("op", "value"), "oneOf": ("op", "values")}
CHECK_KEYS["type"] = ("op", "type")
REGEX_FLAGS = "imsxugyd"
# Low-level rule kinds (§3.2): their keys besides `kind` and `label`, and the required ones.
RULE_KEYS: dict[str, tuple[str, ...]] = {
    "always": ("p",),
    "never": ("p",),
    "eventually": ("p",),
    "precedes": ("a", "b", "order"),
    "neverUnless": ("p", "prior", "order"),
    "atMost": ("p", "max"),
    "tokensAtMost": ("p", "max"),
    "run": RUN_KEYS,
    "argument": ("p", "pointer", "check", "occurrence"),
    "toolsOffered": ("declared",),
    "retrySafe": RETRIES_KEYS,
}
RULE_REQUIRED: dict[str, tuple[str, ...]] = {
    "always": ("p",),
    "never": ("p",),
    "eventually": ("p",),
    "precedes": ("a", "b"),
    "neverUnless": ("p", "prior"),
    "atMost": ("p", "max"),
    "tokensAtMost": ("p", "max"),
    "argument": ("p", "pointer", "check"),
}

_MISSING: Any = object()


# ------------------------------------------------------------------------------------------
# The parsed document: valid parts only, each with the path it came from


@dataclass(frozen=True)
class RunSpec:
    require_completed: bool | None = None
    allowed_statuses: tuple[str, ...] | None = None
    max_duration_ms: float | None = None


@dataclass(frozen=True)
class ArgumentSpec:
    index: int
    tool: str
    pointer: str
    check: ArgumentCheck
    occurrence: Occurrence = "all"


@dataclass(frozen=True)
class ToolsSpec:
    required: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    allowed: tuple[str, ...] | None = None
    max_calls: int | None = None
    max_calls_per_tool: tuple[tuple[str, int], ...] = ()
    required_order: tuple[str, ...] = ()
    order_mode: OrderMode | None = None
    arguments: tuple[ArgumentSpec, ...] = ()
    enforced: bool = False


@dataclass(frozen=True)
class LlmSpec:
    max_calls: int | None = None
    max_total_tokens: int | None = None
    allowed_models: tuple[str, ...] = ()


@dataclass(frozen=True)
class RetriesSpec:
    reads: tuple[str, ...] = ()
    writes: tuple[WriteTool, ...] = ()


@dataclass(frozen=True)
class RuleSpec:
    """A low-level `rules` entry, already built, with its index."""

    index: int
    rule: Rule


@dataclass(frozen=True)
class PathSpec:
    """The base contract (`where == ""`) or one alternative (`alternatives.anyOf[i]`)."""

    where: str
    id: str | None = None
    run: RunSpec | None = None
    tools: ToolsSpec | None = None
    llm: LlmSpec | None = None
    retries: RetriesSpec | None = None
    rules: tuple[RuleSpec, ...] = ()

    def at(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key


@dataclass(frozen=True)
class ContractSpec:
    name: str
    description: str | None
    scope: Predicate | None
    base: PathSpec
    alternatives: tuple[PathSpec, ...] | None  # None when the key is absent


# ------------------------------------------------------------------------------------------
# Words


def json_type(value: Any) -> str:
    """The JSON type name of a value (a boolean is never an integer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _what(value: Any) -> str:
    """How a message names a value it refuses: numbers and literals as written, the rest by
    type (a string may be long or secret)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    if isinstance(value, str):
        return "an empty string" if value == "" else "a string"
    kind = json_type(value)
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _quote(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else repr(value)


def _edit_distance(left: str, right: str) -> int:
    previous = list(range(len(right) + 1))
    for i, a in enumerate(left, 1):
        current = [i]
        for j, b in enumerate(right, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1]


def did_you_mean(word: Any, candidates: Sequence[str]) -> str | None:
    """The closest candidate within edit distance 2, case-insensitive; ties go to the first."""
    if not isinstance(word, str):
        return None
    best: str | None = None
    best_distance = 3
    lowered = word.lower()
    for candidate in candidates:
        distance = _edit_distance(lowered, candidate.lower())
        if distance < best_distance:
            best, best_distance = candidate, distance
    return best


def _unknown(what: str, word: Any, candidates: Sequence[str]) -> str:
    suggestion = did_you_mean(word, candidates)
    hint = f' — did you mean "{suggestion}"?' if suggestion is not None else ""
    return f"unknown {what} {_quote(word)}{hint} (allowed: {', '.join(candidates)})"


def _key_path(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _map_path(where: str, key: str) -> str:
    """A path into a map whose keys are free text (`attr["gen_ai.tool.name"]`)."""
    return f"{where}[{json.dumps(key, ensure_ascii=False)}]"


def pointer_problem(pointer: str) -> str | None:
    """Why a string is not an RFC 6901 JSON Pointer, or None when it is one."""
    if pointer == "":
        return None
    if not pointer.startswith("/"):
        return f'{_quote(pointer)} is not a JSON Pointer: it must be "" or start with "/"'
    index = pointer.find("~")
    while index != -1:
        if pointer[index + 1 : index + 2] not in ("0", "1"):
            return f'{_quote(pointer)} is not a JSON Pointer: "~" must be followed by 0 or 1'
        index = pointer.find("~", index + 2)
    return None


def _is_json_value(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list | tuple):
        return all(_is_json_value(item) for item in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and _is_json_value(v) for k, v in value.items())
    return False


# ------------------------------------------------------------------------------------------
# The parser


class _Parser:
    def __init__(self) -> None:
        self.problems: list[ContractProblem] = []

    def add(self, where: str, message: str) -> None:
        self.problems.append(ContractProblem(where, message))

    # --- shapes ---------------------------------------------------------------------------

    def obj(
        self,
        value: Any,
        where: str,
        allowed: Sequence[str],
        *,
        required: Sequence[str] = (),
        what: str = "an object",
    ) -> Mapping[str, Any] | None:
        """An object with only `allowed` keys (unknown keys reported, then ignored)."""
        if not isinstance(value, Mapping):
            self.add(where, f"must be {what}, not {_what(value)}")
            return None
        for key in value:
            if key not in allowed:
                self.add(where, _unknown("key", key, allowed))
        for key in required:
            if key not in value:
                self.add(where, f'missing required key "{key}"')
        return value

    def boolean(self, value: Any, where: str) -> bool | None:
        if isinstance(value, bool):
            return value
        self.add(where, f"must be true or false, not {_what(value)}")
        return None

    def true(self, value: Any, where: str) -> bool:
        if value is True:
            return True
        self.add(where, f"must be true, not {_what(value)}")
        return False

    def text(self, value: Any, where: str, *, blank_ok: bool = True) -> str | None:
        if isinstance(value, str) and (blank_ok or value.strip()):
            return value
        if isinstance(value, str):
            self.add(where, "must not be blank")
        else:
            self.add(
                where,
                f"must be a {'string' if blank_ok else 'non-blank string'}, not {_what(value)}",
            )
        return None

    def name(self, value: Any, where: str) -> str | None:
        if isinstance(value, str) and value:
            return value
        self.add(where, f"must be a non-empty string, not {_what(value)}")
        return None

    def count(self, value: Any, where: str) -> int | None:
        """An integer ≥ 0 (`1.0` is a number and `true` a boolean: neither is an integer)."""
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        self.add(where, f"must be an integer ≥ 0, not {_what(value)}")
        return None

    def positive(self, value: Any, where: str) -> float | None:
        if isinstance(value, int | float) and not isinstance(value, bool):
            if isinstance(value, float) and not math.isfinite(value):
                self.add(where, f"must be a finite number > 0, not {_what(value)}")
                return None
            if value > 0:
                return value
        self.add(where, f"must be a number > 0, not {_what(value)}")
        return None

    def enum(self, value: Any, where: str, allowed: Sequence[str]) -> str | None:
        if isinstance(value, str) and value in allowed:
            return value
        if isinstance(value, str):
            self.add(where, _unknown("value", value, allowed))
        else:
            self.add(where, f"must be one of {', '.join(allowed)}, not {_what(value)}")
        return None

    def array(self, value: Any, where: str, what: str) -> Sequence[Any] | None:
        """A non-empty array."""
        if not isinstance(value, list | tuple):
            self.add(where, f"must be a non-empty array of {what}, not {_what(value)}")
            return None
        if not value:
            self.add(where, "must not be empty")
            return None
        return value

    def names(
        self, value: Any, where: str, *, choices: Sequence[str] | None = None
    ) -> tuple[str, ...] | None:
        """A non-empty array of distinct non-empty strings (or of `choices`)."""
        items = self.array(value, where, "distinct names" if choices is None else "values")
        if items is None:
            return None
        seen: dict[str, int] = {}
        ok = True
        for i, item in enumerate(items):
            at = f"{where}[{i}]"
            parsed = self.name(item, at) if choices is None else self.enum(item, at, choices)
            if parsed is None:
                ok = False
            elif parsed in seen:
                self.add(at, f"duplicate {_quote(parsed)}, already at {where}[{seen[parsed]}]")
                ok = False
            else:
                seen[parsed] = i
        return tuple(seen) if ok else None

    def pointer(self, value: Any, where: str) -> str | None:
        if not isinstance(value, str):
            self.add(where, f'must be a JSON Pointer ("" or starting with "/"), not {_what(value)}')
            return None
        problem = pointer_problem(value)
        if problem is not None:
            self.add(where, problem)
            return None
        return value

    def json_value(self, value: Any, where: str) -> Any:
        if _is_json_value(value):
            return copy.deepcopy(value)
        self.add(
            where,
            "must be a JSON value (null, boolean, finite number, string, array, "
            "object with string keys)",
        )
        return _MISSING

    # --- the document ---------------------------------------------------------------------

    def contract(self, doc: Any) -> ContractSpec | None:
        if not isinstance(doc, Mapping):
            self.add("", f"a contract must be an object, not {_what(doc)}")
            return None
        self.obj(doc, "", TOP_KEYS, required=("name",))
        name = self.text(doc["name"], "name", blank_ok=False) if "name" in doc else None
        description = None
        if "description" in doc:
            description = self.text(doc["description"], "description")
        scope = self.scope(doc["scope"]) if "scope" in doc else None
        alternatives = None
        if "alternatives" in doc:
            alternatives = self.alternatives(doc["alternatives"])
        base = self.path_keys(doc, "")
        return ContractSpec(name or "", description, scope, base, alternatives)

    def scope(self, value: Any) -> Predicate | None:
        scope = self.obj(value, "scope", ("root",), required=("root",))
        if scope is None or "root" not in scope:
            return None
        root = scope["root"]
        kind = root.get("kind") if isinstance(root, Mapping) else None
        if isinstance(kind, str) and kind.upper() in KINDS:
            root = {**root, "kind": kind.upper()}  # only the root's own kind
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
            path = self.path_keys(alternative, where)
            parsed.append(
                PathSpec(where, alt_id, path.run, path.tools, path.llm, path.retries, path.rules)
            )
        return tuple(parsed)

    def path_keys(self, doc: Mapping[str, Any], where: str) -> PathSpec:
        run = self.run(doc["run"], _key_path(where, "run")) if "run" in doc else None
        tools = self.tools(doc["tools"], _key_path(where, "tools")) if "tools" in doc else None
        llm = self.llm(doc["llm"], _key_path(where, "llm")) if "llm" in doc else None
        retries = None
        if "retries" in doc:
            retries = self.retries(doc["retries"], _key_path(where, "retries"), "retries")
        rules: tuple[RuleSpec, ...] = ()
        if "rules" in doc:
            rules = self.rules(doc["rules"], _key_path(where, "rules"))
        return PathSpec(where, None, run, tools, llm, retries, rules)

    # --- run ------------------------------------------------------------------------------

    def run(self, value: Any, where: str, *, what: str = "run rule") -> RunSpec | None:
        run = self.obj(value, where, RUN_KEYS)
        if run is None:
            return None
        if not any(key in run for key in RUN_KEYS):
            self.add(
                where,
                f"{what} checks nothing: give requireCompleted, allowedStatuses or maxDurationMs",
            )
            return None
        spec = RunSpec(
            self.boolean(run["requireCompleted"], f"{where}.requireCompleted")
            if "requireCompleted" in run
            else None,
            self.names(run["allowedStatuses"], f"{where}.allowedStatuses", choices=RUN_STATUSES)
            if "allowedStatuses" in run
            else None,
            self.positive(run["maxDurationMs"], f"{where}.maxDurationMs")
            if "maxDurationMs" in run
            else None,
        )
        if spec == RunSpec():
            return None  # every key was invalid: reported already
        return spec

    # --- tools ----------------------------------------------------------------------------

    def tools(self, value: Any, where: str) -> ToolsSpec | None:
        tools = self.obj(value, where, TOOLS_KEYS)
        if tools is None:
            return None

        def get(key: str, parse: Any) -> Any:
            return parse(tools[key], f"{where}.{key}") if key in tools else None

        def order_mode(value: Any, at: str) -> str | None:
            mode = self.enum(value, at, ORDER_MODES)
            if "requiredOrder" not in tools:
                self.add(at, "is allowed only together with requiredOrder")
            return mode

        # Keyword arguments are evaluated in the order written: the §2.1 table's order.
        return ToolsSpec(
            required=get("required", self.names) or (),
            forbidden=get("forbidden", self.names) or (),
            allowed=get("allowed", self.names),
            max_calls=get("maxCalls", self.count),
            max_calls_per_tool=get("maxCallsPerTool", self.per_tool) or (),
            required_order=get("requiredOrder", self.names) or (),
            order_mode=cast(OrderMode | None, get("orderMode", order_mode)),
            arguments=get("arguments", self.arguments) or (),
            enforced=bool(get("enforced", self.true)),
        )

    def per_tool(self, value: Any, where: str) -> tuple[tuple[str, int], ...] | None:
        if not isinstance(value, Mapping):
            self.add(where, f"must be an object of tool name → integer ≥ 0, not {_what(value)}")
            return None
        caps: list[tuple[str, int]] = []
        for key, cap in value.items():
            if not isinstance(key, str) or not key:
                self.add(where, f"key {_quote(key)} must be a non-empty tool name")
                continue
            parsed = self.count(cap, _map_path(where, key))
            if parsed is not None:
                caps.append((key, parsed))
        return tuple(caps)

    def arguments(self, value: Any, where: str) -> tuple[ArgumentSpec, ...] | None:
        items = self.array(value, where, "argument checks")
        if items is None:
            return None
        parsed: list[ArgumentSpec] = []
        for i, item in enumerate(items):
            at = f"{where}[{i}]"
            entry = self.obj(item, at, ARGUMENT_KEYS, required=("tool", "pointer"))
            if entry is None:
                continue
            tool = self.name(entry["tool"], f"{at}.tool") if "tool" in entry else None
            pointer = (
                self.pointer(entry["pointer"], f"{at}.pointer") if "pointer" in entry else None
            )
            occurrence = "all"
            if "occurrence" in entry:
                occurrence = self.enum(entry["occurrence"], f"{at}.occurrence", OCCURRENCES) or ""
            checks = [key for key in ARGUMENT_CHECKS if key in entry]
            check: ArgumentCheck | None = None
            if not checks:
                self.add(at, "needs one check: exists, equals, oneOf or type")
            elif len(checks) > 1:
                self.add(at, f"has {len(checks)} checks ({', '.join(checks)}); give exactly one")
            else:
                check = self.key_check(checks[0], entry[checks[0]], f"{at}.{checks[0]}")
            if tool is not None and pointer is not None and occurrence and check is not None:
                parsed.append(ArgumentSpec(i, tool, pointer, check, cast(Occurrence, occurrence)))
        return tuple(parsed)

    def key_check(self, op: str, value: Any, where: str) -> ArgumentCheck | None:
        if op == "exists":
            return ArgumentCheck("exists") if self.true(value, where) else None
        if op == "equals":
            expected = self.json_value(value, where)
            return None if expected is _MISSING else ArgumentCheck("equals", value=expected)
        if op == "oneOf":
            values = self.json_values(value, where)
            return None if values is None else ArgumentCheck("oneOf", values=values)
        kind = self.enum(value, where, JSON_TYPES)
        return None if kind is None else ArgumentCheck("type", type=kind)

    def json_values(self, value: Any, where: str) -> tuple[Any, ...] | None:
        items = self.array(value, where, "values")
        if items is None:
            return None
        values = [self.json_value(item, f"{where}[{i}]") for i, item in enumerate(items)]
        return None if any(v is _MISSING for v in values) else tuple(values)

    # --- retries and llm ------------------------------------------------------------------

    def retries(self, value: Any, where: str, what: str) -> RetriesSpec | None:
        retries = self.obj(value, where, RETRIES_KEYS)
        if retries is None:
            return None
        if not any(key in retries for key in RETRIES_KEYS):
            self.add(where, f"{what} rule checks nothing: give reads or writes")
            return None
        reads = self.names(retries["reads"], f"{where}.reads") if "reads" in retries else ()
        writes = (
            self.writes(retries["writes"], f"{where}.writes", reads or ())
            if ("writes" in retries)
            else ()
        )
        if reads is None or writes is None:
            return None
        return RetriesSpec(reads, writes)

    def writes(
        self, value: Any, where: str, reads: tuple[str, ...]
    ) -> tuple[WriteTool, ...] | None:
        items = self.array(value, where, "write tools")
        if items is None:
            return None
        parsed: list[WriteTool] = []
        seen: dict[str, int] = {}
        ok = True
        for i, item in enumerate(items):
            at = f"{where}[{i}]"
            entry = self.obj(item, at, WRITE_KEYS, required=("tool",))
            if entry is None:
                ok = False
                continue
            tool = self.name(entry["tool"], f"{at}.tool") if "tool" in entry else None
            key: str | None = None
            if "idempotencyKey" in entry:
                key = self.pointer(entry["idempotencyKey"], f"{at}.idempotencyKey")
                if key == "":
                    self.add(
                        f"{at}.idempotencyKey",
                        'must point inside the arguments, not be "" (the whole value)',
                    )
                    key = None
                if key is None:
                    ok = False
            if tool is None:
                ok = False
                continue
            if tool in seen:
                self.add(
                    f"{at}.tool", f"duplicate {_quote(tool)}, already at {where}[{seen[tool]}].tool"
                )
                ok = False
                continue
            if tool in reads:
                self.add(
                    f"{at}.tool",
                    f"{_quote(tool)} is also in reads; a tool is either a read or a write",
                )
                ok = False
            seen[tool] = i
            parsed.append(WriteTool(tool, key))
        return tuple(parsed) if ok else None

    def llm(self, value: Any, where: str) -> LlmSpec | None:
        llm = self.obj(value, where, LLM_KEYS)
        if llm is None:
            return None
        return LlmSpec(
            self.count(llm["maxCalls"], f"{where}.maxCalls") if "maxCalls" in llm else None,
            self.count(llm["maxTotalTokens"], f"{where}.maxTotalTokens")
            if "maxTotalTokens" in llm
            else None,
            (self.names(llm["allowedModels"], f"{where}.allowedModels") or ())
            if "allowedModels" in llm
            else (),
        )

    # --- predicates -----------------------------------------------------------------------

    def predicate(self, value: Any, where: str) -> Predicate | None:
        predicate = self.obj(value, where, PREDICATE_KEYS, what="an object (a predicate)")
        if predicate is None:
            return None
        if not any(key in predicate for key in PREDICATE_KEYS):
            self.add(where, f"must have at least one of {', '.join(PREDICATE_KEYS)}")
            return None
        before = len(self.problems)
        kind = self.enum(predicate["kind"], f"{where}.kind", KINDS) if "kind" in predicate else None
        name, tool, model = (
            self.matcher(predicate[key], f"{where}.{key}") if key in predicate else None
            for key in ("name", "tool", "model")
        )
        attr = self.attr(predicate["attr"], f"{where}.attr") if "attr" in predicate else ()
        not_ = self.predicate(predicate["not"], f"{where}.not") if "not" in predicate else None
        if len(self.problems) > before:
            return None
        return Predicate(kind=kind, name=name, tool=tool, model=model, attr=attr or (), not_=not_)

    def matcher(self, value: Any, where: str) -> Matcher | None:
        if isinstance(value, str):
            return Exact(value)
        shape = 'a string, {"$regex": …} or {"oneOf": […]}'
        if not isinstance(value, Mapping):
            self.add(where, f"must be {shape}, not {_what(value)}")
            return None
        return self.regex(value, where, allow_one_of=True)

    def regex(self, value: Mapping[Any, Any], where: str, *, allow_one_of: bool) -> Matcher | None:
        allowed = ("$regex", "flags", "oneOf") if allow_one_of else ("$regex", "flags")
        self.obj(value, where, allowed)
        if "$regex" in value and "oneOf" in value:
            self.add(where, 'must have either "$regex" or "oneOf", not both')
            return None
        if "oneOf" in value:
            if "flags" in value:
                self.add(where, '"flags" needs "$regex"')
            items = self.array(value["oneOf"], f"{where}.oneOf", "strings")
            if items is None:
                return None
            bad = [i for i, item in enumerate(items) if not isinstance(item, str)]
            for i in bad:
                self.add(f"{where}.oneOf[{i}]", f"must be a string, not {_what(items[i])}")
            return None if bad or any(k not in allowed for k in value) else OneOf(tuple(items))
        if "$regex" not in value:
            self.add(
                where,
                'missing required key "$regex"'
                if not allow_one_of
                else 'must have "$regex" or "oneOf"',
            )
            return None
        source = value["$regex"]
        flags = value.get("flags", "")
        ok = all(k in allowed for k in value)
        if not isinstance(source, str):
            self.add(f"{where}.$regex", f"must be a string, not {_what(source)}")
            ok = False
        if not isinstance(flags, str):
            self.add(f"{where}.flags", f"must be a string, not {_what(flags)}")
            ok = False
        else:
            unknown = [flag for flag in dict.fromkeys(flags) if flag not in REGEX_FLAGS]
            if unknown:
                self.add(
                    f"{where}.flags",
                    f"unknown flag(s) {''.join(unknown)} (allowed: {', '.join(REGEX_FLAGS)})",
                )
                ok = False
        if not isinstance(source, str):
            return None
        # The source is compiled even beside bad flags, so that both problems are reported.
        known = (
            "".join(flag for flag in flags if flag in REGEX_FLAGS) if isinstance(flags, str) else ""
        )
        try:
            pattern = Pattern(source, known)
        except ValueError as exc:
            self.add(f"{where}.$regex", str(exc))
            return None
        return pattern if ok else None

    def attr(self, value: Any, where: str) -> tuple[tuple[str, Any], ...] | None:
        if not isinstance(value, Mapping):
            self.add(where, f"must be an object of attribute → expected value, not {_what(value)}")
            return None
        if not value:
            self.add(where, "must name at least one attribute")
            return None
        expected: list[tuple[str, Any]] = []
        for key, item in value.items():
            if not isinstance(key, str):
                self.add(where, f"key {_quote(key)} must be a string")
                continue
            at = _map_path(where, key)
            if isinstance(item, Mapping) and "$regex" in item:
                pattern = self.regex(item, at, allow_one_of=False)
                if pattern is not None:
                    expected.append((key, pattern))
                continue
            parsed = self.json_value(item, at)
            if parsed is not _MISSING:
                expected.append((key, parsed))
        return tuple(expected)

    # --- low-level rules ------------------------------------------------------------------

    def rules(self, value: Any, where: str) -> tuple[RuleSpec, ...]:
        items = self.array(value, where, "rules")
        if items is None:
            return ()
        parsed: list[RuleSpec] = []
        for i, item in enumerate(items):
            rule = self.rule(item, f"{where}[{i}]")
            if rule is not None:
                parsed.append(RuleSpec(i, rule))
        return tuple(parsed)

    def rule(self, value: Any, where: str) -> Rule | None:
        if not isinstance(value, Mapping):
            self.add(where, f"must be an object (a rule), not {_what(value)}")
            return None
        kinds = tuple(RULE_KEYS)
        for key in ("kind", "label"):
            if key not in value:
                self.add(where, f'missing required key "{key}"')
        label = (
            self.text(value["label"], f"{where}.label", blank_ok=False)
            if ("label" in value)
            else None
        )
        kind = self.enum(value["kind"], f"{where}.kind", kinds) if "kind" in value else None
        if kind is None:
            return None
        allowed = ("kind", "label", *RULE_KEYS[kind])
        self.obj(value, where, allowed, required=RULE_REQUIRED.get(kind, ()))
        before = len(self.problems)
        rule = self.build_rule(kind, value, where, label or "")
        if rule is None or label is None or len(self.problems) > before:
            return None
        return rule

    def build_rule(
        self, kind: str, value: Mapping[str, Any], where: str, label: str
    ) -> Rule | None:
        def pred(key: str) -> Predicate | None:
            return self.predicate(value[key], f"{where}.{key}") if key in value else None

        def order() -> OrderMode:
            if "order" not in value:
                return "start-order"
            return cast(OrderMode, self.enum(value["order"], f"{where}.order", ORDER_MODES))

        if kind in ("always", "never", "eventually"):
            p = pred("p")
            if p is None:
                return None
            if kind == "always":
                return Always(label, p)
            return Never(label, p) if kind == "never" else Eventually(label, p)
        if kind == "precedes":
            a, b, mode = pred("a"), pred("b"), order()
            return Precedes(label, a, b, mode) if a and b and mode else None
        if kind == "neverUnless":
            p, prior, mode = pred("p"), pred("prior"), order()
            return NeverUnless(label, p, prior, mode) if p and prior and mode else None
        if kind in ("atMost", "tokensAtMost"):
            p = pred("p")
            n = self.count(value["max"], f"{where}.max") if "max" in value else None
            if p is None or n is None:
                return None
            return AtMost(label, p, n) if kind == "atMost" else TokensAtMost(label, p, n)
        own = {key: value[key] for key in RULE_KEYS[kind] if key in value}
        if kind == "run":
            run = self.run(own, where, what="run rule")
            if run is None:
                return None
            return RunCheck(label, run.require_completed, run.allowed_statuses, run.max_duration_ms)
        if kind == "argument":
            return self.argument_rule(value, where, label, pred("p"))
        if kind == "toolsOffered":
            declared = None
            if "declared" in value:
                declared = self.declared(value["declared"], f"{where}.declared")
            return ToolsOffered(label, declared)
        retries = self.retries(own, where, "retrySafe")
        return None if retries is None else RetrySafe(label, retries.reads, retries.writes)

    def declared(self, value: Any, where: str) -> tuple[str, ...] | None:
        if isinstance(value, list | tuple) and not value:
            return ()  # an empty declaration: no tool may be offered
        return self.names(value, where)

    def argument_rule(
        self, value: Mapping[str, Any], where: str, label: str, p: Predicate | None
    ) -> Argument | None:
        pointer = self.pointer(value["pointer"], f"{where}.pointer") if "pointer" in value else None
        occurrence = "all"
        if "occurrence" in value:
            occurrence = self.enum(value["occurrence"], f"{where}.occurrence", OCCURRENCES) or ""
        check = self.check(value["check"], f"{where}.check") if "check" in value else None
        if p is None or pointer is None or not occurrence or check is None:
            return None
        return Argument(label, p, pointer, check, cast(Occurrence, occurrence))

    def check(self, value: Any, where: str) -> ArgumentCheck | None:
        check = self.obj(value, where, ("op", "value", "values", "type"), required=("op",))
        if check is None or "op" not in check:
            return None
        op = self.enum(check["op"], f"{where}.op", tuple(CHECK_KEYS))
        if op is None:
            return None
        allowed = CHECK_KEYS[op]
        for key in check:
            if key not in allowed:
                self.add(
                    where,
                    f'key "{key}" does not apply to op "{op}" (allowed: {", ".join(allowed)})',
                )
        if any(key not in check for key in allowed):
            missing = next(key for key in allowed if key not in check)
            self.add(where, f'missing required key "{missing}" for op "{op}"')
            return None
        if any(key not in allowed for key in check):
            return None
        if op == "exists":
            return ArgumentCheck("exists")
        if op == "equals":
            expected = self.json_value(check["value"], f"{where}.value")
            return None if expected is _MISSING else ArgumentCheck("equals", value=expected)
        if op == "oneOf":
            values = self.json_values(check["values"], f"{where}.values")
            return None if values is None else ArgumentCheck("oneOf", values=values)
        kind = self.enum(check["type"], f"{where}.type", JSON_TYPES)
        return None if kind is None else ArgumentCheck("type", type=kind)


def parse_spec(doc: Any) -> tuple[ContractSpec | None, list[ContractProblem]]:
    """The valid parts of a contract document and every problem found in it, in order."""
    parser = _Parser()
    try:
        spec = parser.contract(doc)
    except RecursionError:
        parser.add("", "the contract is nested too deeply")
        return None, parser.problems
    return spec, parser.problems
