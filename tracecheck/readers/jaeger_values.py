"""Values as Jaeger's Go code parses them from text: durations, and tag values written as strings.

Jaeger reads its protobuf model's JSON with gogo's `jsonpb`, whose `Duration` is parsed by Go's
`time.ParseDuration`: the protobuf form `"0.022938s"` and Go's own `"22938000ns"` (Jaeger's
fixtures), `"22.938ms"`, `"1h2m3.5s"` alike. A tag whose value is a string of another type (its
Elasticsearch documents, the UI's test traces, back ends that serve its API) is converted with
`strconv.ParseBool`, `ParseInt(s, 10, 64)` and `ParseFloat(s, 64)`. Each parser here accepts
exactly what those accept and raises `ValueError` for anything else, never with the text itself
in the message (a tag value may be a secret).
"""

from __future__ import annotations

import math
import re

from tracecheck.readers.common import INT64_MAX, INT64_MIN, described

__all__ = ["go_bool", "go_duration", "go_float", "go_int"]

# Go's `unitMap`: "us" and both micro signs (U+00B5, U+03BC) are microseconds.
_DURATION_UNITS = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,
    "\u03bcs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
# One component: digits, optionally a fraction (either side may be empty, not both), a unit.
# A unit is the run of characters up to the next digit or dot, so it is matched as such and
# looked up after: "1msx" has the unknown unit "msx", as Go finds.
_COMPONENT = re.compile(r"([0-9]*)(?:\.([0-9]*))?([^0-9.]*)")
_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})
_INT = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX_FLOAT = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+")
_SPECIAL = re.compile(r"[+-]?(?:inf|infinity)|nan", re.IGNORECASE)


def go_duration(text: str) -> int:
    """Nanoseconds of a Go duration string (`time.ParseDuration`), truncated as Go does."""
    body = text[1:] if text[:1] in ("+", "-") else text
    negative = text[:1] == "-"
    if body == "0":
        return 0
    if not body:
        raise ValueError(f"{described(text)} is not a duration")
    total, position = 0, 0
    while position < len(body):
        match = _COMPONENT.match(body, position)
        assert match is not None  # every part of the pattern may be empty
        whole, fraction, unit = match.groups()
        if not whole and not fraction:
            raise ValueError(f"{described(text)} is not a duration")
        scale = _DURATION_UNITS.get(unit)
        if scale is None:
            raise ValueError(f"{described(text)} has a missing or unknown unit")
        total += int(whole or "0") * scale
        if fraction:
            total += int(fraction) * scale // 10 ** len(fraction)
        position = match.end()
    if total > INT64_MAX + (1 if negative else 0):
        raise ValueError(f"{described(text)} is longer than a Go duration holds")
    return -total if negative else total


def go_bool(text: str) -> bool:
    """`strconv.ParseBool`: 1, t, T, TRUE, true, True and their false counterparts."""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{described(text)} is not true or false")


def go_int(text: str) -> int:
    """`strconv.ParseInt(text, 10, 64)`: an optional sign and decimal digits, in range."""
    if _INT.fullmatch(text) is None:
        raise ValueError(f"{described(text)} is not a whole number")
    value = int(text)
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError(f"{described(text)} is outside the range of a 64-bit integer")
    return value


def go_float(text: str) -> float:
    """`strconv.ParseFloat(text, 64)`: decimal or hexadecimal notation, Inf/Infinity/NaN."""
    if _SPECIAL.fullmatch(text):
        lowered = text.lower()
        return math.nan if lowered == "nan" else float(lowered.replace("infinity", "inf"))
    if _DECIMAL.fullmatch(text):
        value = float(text)
    elif _HEX_FLOAT.fullmatch(text):
        sign = -1.0 if text[0] == "-" else 1.0
        value = sign * float.fromhex(text.lstrip("+-"))
    else:
        raise ValueError(f"{described(text)} is not a number")
    if math.isinf(value):
        raise ValueError(f"{described(text)} is outside the range of a 64-bit float")
    return value
