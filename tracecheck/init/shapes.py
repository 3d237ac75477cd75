"""The shape of a tool's arguments over all of its calls: which JSON Pointers every call has,
and with which JSON type. Key names and type names only: a value is never kept, since
arguments may hold secrets, nor a key that holds a credential (`without_credentials` would
change it), nor anything below one."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tracecheck.naming import json_type
from tracecheck.rules.pointers import pointer_of
from tracecheck.unquoted import without_credentials

__all__ = ["DEPTH", "Shape", "shape_of"]

DEPTH = 3  # pointer segments followed into nested objects; arrays are not entered
LIMIT = 24  # pointers listed per tool; the rest are counted


@dataclass(frozen=True, slots=True)
class Shape:
    """`pointers`: (pointer, JSON type or None when the calls disagree on it), in the order of
    the first call; `left_out`: how many more pointers every call has."""

    pointers: tuple[tuple[str, str | None], ...]
    left_out: int = 0


def shape_of(values: Sequence[Any]) -> Shape:
    """The pointers every value has (each value a call's arguments), with their common type.
    The whole value (`""`) is listed only when nothing inside it is: an object's members say
    more than that it is an object."""
    common: dict[str, str | None] | None = None
    for value in values:
        found = dict(_pointers(value, "", 0))
        if common is None:
            common = found
            continue
        common = {
            pointer: kind if found[pointer] == kind else None
            for pointer, kind in common.items()
            if pointer in found
        }
    if not common:
        return Shape(())
    inner = [(pointer, kind) for pointer, kind in common.items() if pointer]
    listed = inner
    if not inner and "" in common:
        listed = [("", common[""])]
    return Shape(tuple(listed[:LIMIT]), max(0, len(listed) - LIMIT))


def _pointers(value: Any, pointer: str, depth: int) -> Iterator[tuple[str, str | None]]:
    kind = json_type(value)
    if kind is None:  # not a JSON value: no check of it could be evaluated
        return
    yield pointer, kind
    if isinstance(value, Mapping) and depth < DEPTH:
        for key, member in value.items():
            if isinstance(key, str) and without_credentials(key) == key:
                yield from _pointers(member, pointer + pointer_of((key,)), depth + 1)
