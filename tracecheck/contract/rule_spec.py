"""The low-level `rules` entries (contracts.md §3.2), each built into its operator.

An operator's module is imported when an entry of its kind is built, as compile.py does for
the sections: a contract loads the rule kinds it uses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from tracecheck.contract.checker import MISSING
from tracecheck.contract.predicate_spec import PredicateChecker
from tracecheck.contract.section_spec import (
    JSON_TYPES,
    OCCURRENCES,
    ORDER_MODES,
    RETRIES_KEYS,
    RUN_KEYS,
    SectionChecker,
)
from tracecheck.contract.words import describe
from tracecheck.rules.presence import Always, AtMost, Eventually, Never, TokensAtMost

if TYPE_CHECKING:
    from tracecheck.rules.argument import Argument, ArgumentCheck
    from tracecheck.rules.base import Occurrence, Rule
    from tracecheck.rules.ordering import OrderMode
    from tracecheck.rules.predicates import Predicate

__all__ = ["CHECK_KEYS", "RULE_KEYS", "RULE_REQUIRED", "RuleChecker", "RuleSpec"]

CHECK_KEYS = {"exists": ("op",), "equals": ("op", "value"), "oneOf": ("op", "values")}
CHECK_KEYS["type"] = ("op", "type")
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


@dataclass(frozen=True)  # a dataclass, not a named tuple: a named tuple's `index` is tuple.index
class RuleSpec:
    """A low-level `rules` entry, already built, with its index."""

    index: int
    rule: Rule


class RuleChecker(SectionChecker, PredicateChecker):
    """Checks `rules` entries; they reuse the predicate and section checks."""

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
            self.add(where, f"must be an object (a rule), not {describe(value)}")
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
            return cast("OrderMode", self.enum(value["order"], f"{where}.order", ORDER_MODES))

        if kind in ("always", "never", "eventually"):
            p = pred("p")
            if p is None:
                return None
            if kind == "always":
                return Always(label, p)
            return Never(label, p) if kind == "never" else Eventually(label, p)
        if kind in ("precedes", "neverUnless"):
            from tracecheck.rules.order import NeverUnless, Precedes

            if kind == "precedes":
                a, b, mode = pred("a"), pred("b"), order()
                return Precedes(label, a, b, mode) if a and b and mode else None
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
            from tracecheck.rules.run import RunCheck

            return RunCheck(label, run.require_completed, run.allowed_statuses, run.max_duration_ms)
        if kind == "argument":
            return self.argument_rule(value, where, label, pred("p"))
        if kind == "toolsOffered":
            declared = None
            if "declared" in value:
                declared = self.declared(value["declared"], f"{where}.declared")
            from tracecheck.rules.offered import ToolsOffered

            return ToolsOffered(label, declared)
        retries = self.retries(own, where, "retrySafe")
        if retries is None:
            return None
        from tracecheck.rules.retry import RetrySafe

        return RetrySafe(label, retries.reads, retries.writes)

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
        from tracecheck.rules.argument import Argument

        return Argument(label, p, pointer, check, cast("Occurrence", occurrence))

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
        from tracecheck.rules.argument import ArgumentCheck

        if op == "exists":
            return ArgumentCheck("exists")
        if op == "equals":
            expected = self.json_value(check["value"], f"{where}.value")
            return None if expected is MISSING else ArgumentCheck("equals", value=expected)
        if op == "oneOf":
            values = self.json_values(check["values"], f"{where}.values")
            return None if values is None else ArgumentCheck("oneOf", values=values)
        kind = self.enum(check["type"], f"{where}.type", JSON_TYPES)
        return None if kind is None else ArgumentCheck("type", type=kind)
