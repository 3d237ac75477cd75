"""JSON objects that write a key twice, read with every value they hold.

JSON's grammar allows a key twice in one object (RFC 8259 says names *should* be unique), and
readers differ on which value wins: orjson, msgspec and Python's `json` keep the last, some keep
the first. A document judged on one of the two values can hide a secret in the other, so a
judge reads such an object as a `RepeatedKeys`: a dict (the last value of each key, what JSON
readers in Python give) whose `items()` and `values()` give *every* member in the order written.

Parsing every object through a hook costs a Python call per object, so the fast reader's result
is checked instead: `repeats_keys` compares the text with that result written back, by bytes
searches, and only a document that may repeat a key is read again (`loads_keeping_repeats`).
"""

from __future__ import annotations

import json
import re
from collections.abc import ItemsView, Iterator, ValuesView
from typing import Any

import orjson

__all__ = ["RepeatedKeys", "loads_keeping_repeats", "pairs_hook", "repeats_keys"]


class RepeatedKeys(dict[str, Any]):
    """A JSON object that writes some key more than once: as a dict it holds the last value of
    each key; `items()` and `values()` give every member as written, so a walk over it judges
    every value."""

    __slots__ = ("pairs",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.pairs = pairs

    def items(self) -> ItemsView[str, Any]:  # type: ignore[override]
        return _Items(self.pairs)  # type: ignore[return-value]

    def values(self) -> ValuesView[Any]:  # type: ignore[override]
        return _Values(self.pairs)  # type: ignore[return-value]


class _Items:
    """Every (key, value) member, as written."""

    __slots__ = ("_pairs",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self._pairs = pairs

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        return iter(self._pairs)

    def __len__(self) -> int:
        return len(self._pairs)


class _Values:
    """Every member's value, as written."""

    __slots__ = ("_pairs",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self._pairs = pairs

    def __iter__(self) -> Iterator[Any]:
        return (value for _, value in self._pairs)

    def __len__(self) -> int:
        return len(self._pairs)


def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`json`'s `object_pairs_hook`: a dict, or a `RepeatedKeys` when a key comes twice."""
    value = dict(pairs)
    return value if len(value) == len(pairs) else RepeatedKeys(pairs)


# The quick test compares the text with the fast reader's value written back by orjson, by the
# number of times a quote stands right before a colon (a member's name ends so; so does a quote
# that opens a string starting with a colon, and an escaped quote before a colon inside a
# string). When the text writes no quote or colon as a `\u` escape and no white space between a
# quote and a colon, its strings hold a quote before a colon where orjson's do (other escapes,
# `\/` or `\u00e9`, hold neither), so the value written back holds the same such places but
# those of the members a repeated key dropped, each of which holds at least one (its name's
# end): the counts are equal exactly when no key repeats. Any other text is read again, with
# every member kept.
_SPACED = re.compile(rb'"[ \t\r\n]+:')


def _comparable(data: bytes) -> bool:
    """Whether the text's quotes and colons are written as orjson writes them (see above)."""
    if b"\\u" in data and (b"\\u0022" in data or b"\\u003a" in data or b"\\u003A" in data):
        return False
    if b'" ' in data or b'"\n' in data or b'"\t' in data or b'"\r' in data:
        return _SPACED.search(data) is None
    return True


def _repeated(value: Any) -> bool:
    """Whether a value read with `pairs_hook` holds an object that writes a key twice."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, RepeatedKeys):
            return True
        if item.__class__ is dict:
            stack.extend(item.values())
        elif item.__class__ is list:
            stack.extend(item)
    return False


def repeats_keys(data: bytes, value: Any) -> bool:
    """Whether some object in the JSON text `data` writes a key twice, given `value`, what a
    reader that keeps one value per key parsed from it."""
    if value.__class__ is not dict and value.__class__ is not list:
        return False
    if _comparable(data):
        try:
            return data.count(b'":') != orjson.dumps(value).count(b'":')
        except (TypeError, orjson.JSONEncodeError):  # an integer past 64 bits, say
            pass
    return _repeated(json.loads(data, object_pairs_hook=pairs_hook))


def loads_keeping_repeats(data: bytes | str, value: Any) -> Any:
    """`value` (what a fast reader parsed from `data`) when no object in `data` writes a key
    twice; else `data` read again with every member kept (`RepeatedKeys`). Raises
    RecursionError when `data` nests deeper than `json` reads."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if value.__class__ is not dict and value.__class__ is not list:
        return value
    if _comparable(raw):
        try:
            if raw.count(b'":') == orjson.dumps(value).count(b'":'):
                return value
        except (TypeError, orjson.JSONEncodeError):
            pass
    whole = json.loads(data, object_pairs_hook=pairs_hook)
    return whole if _repeated(whole) else value


def shadowed(value: Any, path: str = "") -> Iterator[tuple[str, str, Any]]:
    """(path of the object, key, value) of every member a last-wins reader drops: each value of
    a repeated key but its last, in every `RepeatedKeys` under `value`. Paths are JSON
    Pointers under `path`."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, RepeatedKeys):
            last = {key: index for index, (key, _) in enumerate(item.pairs)}
            for index, (key, member) in enumerate(item.pairs):
                if last[key] != index:
                    yield where, key, member
            stack.extend((member, f"{where}/{_segment(key)}") for key, member in dict.items(item))
        elif isinstance(item, dict):
            stack.extend((member, f"{where}/{_segment(key)}") for key, member in item.items())
        elif isinstance(item, list):
            stack.extend((member, f"{where}/{index}") for index, member in enumerate(item))


def _segment(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
