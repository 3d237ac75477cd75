"""Strict parsing of argument checks (`tools.arguments` entries, trajectory entries) and of
`tools.requires`: exactly one check per entry, each operand checked where it is written.

Every problem is located (`tools.arguments[2].range.minExclusive`); nothing a contract holds is
echoed but what its author wrote as structure (keys, pointers), never an expected value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_args

from tracecheck.contract.checker import MISSING, Checker
from tracecheck.contract.words import describe
from tracecheck.naming import quote
from tracecheck.rules.matchers import ArgumentCheck, ArgumentOp, Range, SameAs
from tracecheck.rules.predicates import Pattern

if TYPE_CHECKING:
    from tracecheck.rules.schemas import Schema

__all__ = [
    "JSON_TYPES",
    "MATCHER_CHECKS",
    "MATCHER_OPTIONS",
    "RANGE_KEYS",
    "REQUIRES_KEYS",
    "SAME_AS_KEYS",
    "MatcherChecker",
    "RequiresSpec",
]

# The checks an entry may give, in the order messages list them: the matchers' own.
MATCHER_CHECKS: tuple[str, ...] = get_args(ArgumentOp)
MATCHER_OPTIONS = ("ignore",)  # only beside partial
RANGE_KEYS = ("min", "max", "minExclusive", "maxExclusive")
SAME_AS_KEYS = ("tool", "pointer", "result")
REQUIRES_KEYS = ("tool", "after", "same")
JSON_TYPES = ("string", "number", "boolean", "object", "array", "null")
_OFFERED = "offered"


@dataclass(frozen=True)  # a dataclass: a named tuple's `index` is tuple.index
class RequiresSpec:
    """`{tool, after, same}`: every call of `tool` after a successful call of `after`."""

    index: int
    tool: str
    after: str
    same: tuple[str, ...] = ()


class MatcherChecker(Checker):
    """Checks argument checks and `tools.requires` entries."""

    def entry_check(
        self, entry: Mapping[str, Any], at: str, pointer: str | None
    ) -> ArgumentCheck | None:
        """The one check an entry gives (`ignore` beside `partial`), or None after saying why.
        `pointer` is the entry's pointer when valid (`schema: offered` needs `""`)."""
        checks = [key for key in MATCHER_CHECKS if key in entry]
        if "ignore" in entry and "partial" not in entry:
            self.add(f"{at}.ignore", "is allowed only together with partial")
        if not checks:
            self.add(at, f"needs one check: {', '.join(MATCHER_CHECKS[:-1])} or sameAs")
            return None
        if len(checks) > 1:
            self.add(at, f"has {len(checks)} checks ({', '.join(checks)}); give exactly one")
            return None
        op = checks[0]
        ignore: tuple[str, ...] = ()
        if "ignore" in entry and op == "partial":
            found = self.names(entry["ignore"], f"{at}.ignore")
            if found is None:
                return None
            ignore = found
        check = self.key_check(op, entry[op], f"{at}.{op}", ignore)
        offered = check is not None and check.schema is not None and check.schema.offered
        if offered and pointer is not None and pointer != "":
            self.add(
                f"{at}.schema",
                'offered checks the whole arguments: give pointer "" (the whole value)',
            )
            return None
        return check

    def key_check(
        self, op: str, value: Any, where: str, ignore: tuple[str, ...] = ()
    ) -> ArgumentCheck | None:
        """One check from its key and operand; None after saying what is wrong."""
        if op == "exists":
            return ArgumentCheck("exists") if self.true(value, where) else None
        if op in ("equals", "contains", "partial"):
            expected = self.json_value(value, where)
            if expected is MISSING:
                return None
            return ArgumentCheck(op, value=expected, ignore=ignore)  # type: ignore[arg-type]
        if op == "oneOf":
            values = self.json_values(value, where)
            return None if values is None else ArgumentCheck("oneOf", values=values)
        if op == "type":
            kind = self.enum(value, where, JSON_TYPES)
            return None if kind is None else ArgumentCheck("type", type=kind)
        if op == "regex":
            pattern = self.pattern(value, where)
            return None if pattern is None else ArgumentCheck("regex", pattern=pattern)
        if op == "range":
            bounds = self.bounds(value, where)
            return None if bounds is None else ArgumentCheck("range", range=bounds)
        if op == "schema":
            schema = self.schema(value, where)
            return None if schema is None else ArgumentCheck("schema", schema=schema)
        same_as = self.same_as(value, where)
        return None if same_as is None else ArgumentCheck("sameAs", same_as=same_as)

    def pattern(self, value: Any, where: str) -> Pattern | None:
        if not isinstance(value, str):
            self.add(where, f"must be a regular expression (a string), not {describe(value)}")
            return None
        try:
            return Pattern(value)
        except ValueError as exc:
            self.add(where, str(exc))  # the source is not repeated: it may describe a secret
            return None

    def bounds(self, value: Any, where: str) -> Range | None:
        bounds = self.obj(value, where, RANGE_KEYS)
        if bounds is None:
            return None
        if "min" not in bounds and "max" not in bounds:
            self.add(where, "needs min, max or both")
        found: dict[str, Any] = {}
        for key in ("min", "max"):
            if key in bounds:
                found[key] = self.number(bounds[key], f"{where}.{key}")
        for key, bound in (("minExclusive", "min"), ("maxExclusive", "max")):
            if key in bounds:
                found[key] = self.boolean(bounds[key], f"{where}.{key}")
                if bound not in bounds:
                    self.add(f"{where}.{key}", f"is allowed only together with {bound}")
                    found[key] = None
        if any(item is None for item in found.values()) or not ("min" in found or "max" in found):
            return None
        return Range(
            found.get("min"),
            found.get("max"),
            bool(found.get("minExclusive")),
            bool(found.get("maxExclusive")),
        )

    def number(self, value: Any, where: str) -> int | float | None:
        """A finite number (JSON's one number type; `true` is not one)."""
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and math.isfinite(value):
            return value
        self.add(where, f"must be a finite number, not {describe(value)}")
        return None

    def schema(self, value: Any, where: str) -> Schema | None:
        from tracecheck.rules.schemas import Schema, schema_error  # a schema check only

        if value == _OFFERED:
            return Schema(None)
        if not isinstance(value, Mapping | bool):
            self.add(
                where,
                'must be a JSON Schema (an object or a boolean) or "offered", '
                f"not {describe(value)}",
            )
            return None
        schema = self.json_value(value, where)
        if schema is MISSING:
            return None
        problem = schema_error(schema)
        if problem is not None:
            self.add(where, problem)
            return None
        return Schema(schema)

    def same_as(self, value: Any, where: str) -> SameAs | None:
        same = self.obj(value, where, SAME_AS_KEYS, required=("tool",))
        if same is None:
            return None
        tool = self.name(same["tool"], f"{where}.tool") if "tool" in same else None
        places = [key for key in ("pointer", "result") if key in same]
        if len(places) != 1:
            self.add(
                where,
                "needs exactly one of pointer (into the earlier call's arguments) and result "
                "(into its result)",
            )
            return None
        place = places[0]
        pointer = self.pointer(same[place], f"{where}.{place}")
        if tool is None or pointer is None:
            return None
        return SameAs(tool, pointer, "arguments" if place == "pointer" else "result")

    # --- tools.requires -------------------------------------------------------------------

    def requires(self, value: Any, where: str) -> tuple[RequiresSpec, ...] | None:
        items = self.array(value, where, "preconditions")
        if items is None:
            return None
        parsed: list[RequiresSpec] = []
        for i, item in enumerate(items):
            at = f"{where}[{i}]"
            entry = self.obj(item, at, REQUIRES_KEYS, required=("tool", "after"))
            if entry is None:
                continue
            tool = self.name(entry["tool"], f"{at}.tool") if "tool" in entry else None
            after = self.name(entry["after"], f"{at}.after") if "after" in entry else None
            same: tuple[str, ...] | None = ()
            if "same" in entry:
                same = self.pointers(entry["same"], f"{at}.same")
            if tool is not None and after is not None and same is not None:
                parsed.append(RequiresSpec(i, tool, after, same))
        return tuple(parsed)

    def pointers(self, value: Any, where: str) -> tuple[str, ...] | None:
        """A non-empty array of distinct JSON Pointers."""
        items = self.array(value, where, "distinct JSON Pointers")
        if items is None:
            return None
        seen: dict[str, int] = {}
        ok = True
        for i, item in enumerate(items):
            pointer = self.pointer(item, f"{where}[{i}]")
            if pointer is None:
                ok = False
            elif pointer in seen:
                self.add(
                    f"{where}[{i}]",
                    f"duplicate {quote(pointer)}, already at {where}[{seen[pointer]}]",
                )
                ok = False
            else:
                seen[pointer] = i
        return tuple(seen) if ok else None
