"""The problem collector and the JSON shapes every part of a contract is checked with.

Each check reports what is wrong at its path and returns the parsed value, or None (or
`MISSING` for a JSON value, where None is a valid value) so that checking goes on.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from typing import Any

from tracecheck.contract.words import describe
from tracecheck.errors import ContractProblem
from tracecheck.naming import quote, unknown_message

__all__ = ["MISSING", "Checker", "is_json_value", "pointer_problem"]

MISSING: Any = object()

# Plain words YAML 1.1 read as booleans; YAML 1.2, as contracts are read, reads them as strings.
_YAML11_BOOLEANS = frozenset({"yes", "no", "on", "off"})


def _not_a_boolean(value: Any) -> str:
    """How `true`/`boolean` name a refused value, with a hint for a YAML 1.1 boolean word
    (one of four words, never a secret, so it is quoted)."""
    if isinstance(value, str) and value.lower() in _YAML11_BOOLEANS:
        return f"{describe(value)} ({quote(value)} is a string in YAML 1.2: write true or false)"
    return describe(value)


def pointer_problem(pointer: str) -> str | None:
    """Why a string is not an RFC 6901 JSON Pointer, or None when it is one."""
    if pointer == "":
        return None
    if not pointer.startswith("/"):
        return f'{quote(pointer)} is not a JSON Pointer: it must be "" or start with "/"'
    index = pointer.find("~")
    while index != -1:
        if pointer[index + 1 : index + 2] not in ("0", "1"):
            return f'{quote(pointer)} is not a JSON Pointer: "~" must be followed by 0 or 1'
        index = pointer.find("~", index + 2)
    return None


def is_json_value(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list | tuple):
        return all(is_json_value(item) for item in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and is_json_value(v) for k, v in value.items())
    return False


class Checker:
    """Collects problems; its methods check the shapes the contract's parts are made of."""

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
            self.add(where, f"must be {what}, not {describe(value)}")
            return None
        for key in value:
            if key not in allowed:
                self.add(where, unknown_message("key", key, allowed))
        for key in required:
            if key not in value:
                self.add(where, f'missing required key "{key}"')
        return value

    def boolean(self, value: Any, where: str) -> bool | None:
        if isinstance(value, bool):
            return value
        self.add(where, f"must be true or false, not {_not_a_boolean(value)}")
        return None

    def true(self, value: Any, where: str) -> bool:
        if value is True:
            return True
        self.add(where, f"must be true, not {_not_a_boolean(value)}")
        return False

    def text(self, value: Any, where: str, *, blank_ok: bool = True) -> str | None:
        if isinstance(value, str) and (blank_ok or value.strip()):
            return value
        if isinstance(value, str):
            self.add(where, "must not be blank")
        else:
            self.add(
                where,
                f"must be a {'string' if blank_ok else 'non-blank string'}, not {describe(value)}",
            )
        return None

    def name(self, value: Any, where: str) -> str | None:
        if isinstance(value, str) and value:
            return value
        self.add(where, f"must be a non-empty string, not {describe(value)}")
        return None

    def count(self, value: Any, where: str) -> int | None:
        """An integer ≥ 0. `1.0` counts as 1: JSON has one number type, in which 1.0 and 1 are
        the same (as in JSON Schema, JavaScript and RFC 8785); `true` is not an integer."""
        if isinstance(value, float) and value.is_integer() and value >= 0:
            return int(value)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        self.add(where, f"must be an integer ≥ 0, not {describe(value)}")
        return None

    def positive(self, value: Any, where: str) -> float | None:
        if isinstance(value, int | float) and not isinstance(value, bool):
            if isinstance(value, float) and not math.isfinite(value):
                self.add(where, f"must be a finite number > 0, not {describe(value)}")
                return None
            if value > 0:
                return value
        self.add(where, f"must be a number > 0, not {describe(value)}")
        return None

    def enum(self, value: Any, where: str, allowed: Sequence[str]) -> str | None:
        if isinstance(value, str) and value in allowed:
            return value
        if isinstance(value, str):
            self.add(where, unknown_message("value", value, allowed))
        else:
            self.add(where, f"must be one of {', '.join(allowed)}, not {describe(value)}")
        return None

    def array(self, value: Any, where: str, what: str) -> Sequence[Any] | None:
        """A non-empty array."""
        if not isinstance(value, list | tuple):
            self.add(where, f"must be a non-empty array of {what}, not {describe(value)}")
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
                self.add(at, f"duplicate {quote(parsed)}, already at {where}[{seen[parsed]}]")
                ok = False
            else:
                seen[parsed] = i
        return tuple(seen) if ok else None

    def pointer(self, value: Any, where: str) -> str | None:
        if not isinstance(value, str):
            self.add(
                where, f'must be a JSON Pointer ("" or starting with "/"), not {describe(value)}'
            )
            return None
        problem = pointer_problem(value)
        if problem is not None:
            self.add(where, problem)
            return None
        return value

    def json_value(self, value: Any, where: str) -> Any:
        if is_json_value(value):
            return copy.deepcopy(value)
        self.add(
            where,
            "must be a JSON value (null, boolean, finite number, string, array, "
            "object with string keys)",
        )
        return MISSING

    def json_values(self, value: Any, where: str) -> tuple[Any, ...] | None:
        items = self.array(value, where, "values")
        if items is None:
            return None
        values = [self.json_value(item, f"{where}[{i}]") for i, item in enumerate(items)]
        return None if any(v is MISSING for v in values) else tuple(values)
