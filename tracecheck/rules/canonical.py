"""RFC 8785 canonical JSON, used as the identity of a tool call's arguments (contracts.md §4.10).

Object members are sorted by their UTF-16 code units, numbers are written the way ECMAScript
writes a double (so `1` and `1.0` are one value), strings escape only what JSON requires.
One deliberate difference: an integer a double cannot hold exactly keeps all its digits, so two
distinct large ids are never taken for one value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from tracecheck.rules.predicates import RuleError

__all__ = ["canonical_json", "canonical_number"]

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
_MAX_EXACT = 2**53
_NEEDS_ESCAPE = re.compile(r'[\x00-\x1f"\\]')


def canonical_json(value: Any) -> str:
    """The canonical text of a JSON value; `RuleError` when it is not one (NaN, bytes, …)."""
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def canonical_number(number: int | float) -> str:
    """ECMAScript's `Number.prototype.toString` for a finite number; booleans are refused."""
    if isinstance(number, bool):
        raise RuleError("a boolean is not a number")
    if isinstance(number, int):
        if -_MAX_EXACT <= number <= _MAX_EXACT:
            return str(number)
        try:
            as_float = float(number)
        except OverflowError:
            return str(number)
        if int(as_float) != number:
            return str(number)
        number = as_float
    if not math.isfinite(number):
        raise RuleError(f"the number {number!r} has no JSON form, so it cannot be canonicalized")
    if number == 0:
        return "0"
    if number < 0:
        return "-" + canonical_number(-number)
    # `repr` is the shortest text that reads back as the same double (`42.5`, `1e-07`,
    # `1.5e+22`): its significant digits and the power of ten of the last one.
    mantissa, _, power = repr(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    significant = (whole + fraction).lstrip("0")
    digits = significant.rstrip("0")
    exponent = int(power or "0") - len(fraction) + len(significant) - len(digits)
    k = len(digits)
    n = exponent + k  # the value is 0.<digits> × 10^n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return f"{digits[:n]}.{digits[n:]}"
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    shown = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
    return f"{shown}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"


def _write(value: Any, parts: list[str]) -> None:
    if isinstance(value, str):
        parts.append(_string(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, (int, float)):
        parts.append(canonical_number(value))
    elif isinstance(value, Mapping):
        members = []
        for key in value:
            if not isinstance(key, str):
                raise RuleError("an object key is not a string, so it cannot be canonicalized")
            members.append(key)
        # Code point order is UTF-16 order for ASCII keys; others are compared as UTF-16.
        if all(key.isascii() for key in members):
            members.sort()
        else:
            members.sort(key=_utf16)
        parts.append("{")
        for position, key in enumerate(members):
            if position:
                parts.append(",")
            parts.append(_string(key))
            parts.append(":")
            _write(value[key], parts)
        parts.append("}")
    elif isinstance(value, (list, tuple)):
        parts.append("[")
        for position, item in enumerate(value):
            if position:
                parts.append(",")
            _write(item, parts)
        parts.append("]")
    else:
        raise RuleError(
            f"a {type(value).__name__} value is not JSON, so it cannot be canonicalized"
        )


def _utf16(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _string(text: str) -> str:
    if _NEEDS_ESCAPE.search(text) is None:
        return f'"{text}"'
    out = ['"']
    for char in text:
        escaped = _ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
        elif char < " ":
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)
