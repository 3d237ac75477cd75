"""Predicates, matchers and regexes (contracts.md §3.1): `scope.root`, rule `p`, `a`, `b`…"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracecheck.contract.checker import MISSING
from tracecheck.contract.limits_spec import LimitsChecker
from tracecheck.contract.words import describe, map_path
from tracecheck.rules.predicates import STATUSES, Exact, Matcher, OneOf, Pattern, Predicate
from tracecheck.spans import Kind

__all__ = ["KINDS", "PREDICATE_KEYS", "REGEX_FLAGS", "PredicateChecker"]

KINDS = tuple(kind.value for kind in Kind)
PREDICATE_KEYS = ("name", "tool", "model", "kind", "attr", "status", "durationMs", "not")
REGEX_FLAGS = "imsxugyd"


class PredicateChecker(LimitsChecker):
    """Checks predicates and their matchers (exact, `$regex` with flags, `oneOf`); a
    predicate's `durationMs` is a limit's range (limits_spec.py)."""

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
        status = None
        if "status" in predicate:
            status = self.enum(predicate["status"], f"{where}.status", STATUSES)
        duration = None
        if "durationMs" in predicate:
            duration = self.duration_range(predicate["durationMs"], f"{where}.durationMs")
        not_ = self.predicate(predicate["not"], f"{where}.not") if "not" in predicate else None
        if len(self.problems) > before:
            return None
        return Predicate(
            kind=kind,
            name=name,
            tool=tool,
            model=model,
            attr=attr or (),
            status=status,
            duration=duration,
            not_=not_,
        )

    def matcher(self, value: Any, where: str) -> Matcher | None:
        if isinstance(value, str):
            return Exact(value)
        shape = 'a string, {"$regex": …} or {"oneOf": […]}'
        if not isinstance(value, Mapping):
            self.add(where, f"must be {shape}, not {describe(value)}")
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
                self.add(f"{where}.oneOf[{i}]", f"must be a string, not {describe(items[i])}")
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
            self.add(f"{where}.$regex", f"must be a string, not {describe(source)}")
            ok = False
        if not isinstance(flags, str):
            self.add(f"{where}.flags", f"must be a string, not {describe(flags)}")
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
            self.add(
                where, f"must be an object of attribute → expected value, not {describe(value)}"
            )
            return None
        if not value:
            self.add(where, "must name at least one attribute")
            return None
        expected: list[tuple[str, Any]] = []
        for key, item in value.items():
            if not isinstance(key, str):
                self.add(where, f"a key is {describe(key)}, not a string")
                continue
            at = map_path(where, key)
            if isinstance(item, Mapping) and "$regex" in item:
                pattern = self.regex(item, at, allow_one_of=False)
                if pattern is not None:
                    expected.append((key, pattern))
                continue
            parsed = self.json_value(item, at)
            if parsed is not MISSING:
                expected.append((key, parsed))
        return tuple(expected)
