"""RFC 6901 JSON Pointers resolved with the contract's rules (contracts.md §4.8).

`""` is the whole value; `~1` is `/` and `~0` is `~`; an array token is `0` or `[1-9][0-9]*`
and in range (`-` and `01` are absent); strings and other scalars have no members, so a pointer
into an argument string that was not JSON is absent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, Final

import jsonpointer

from tracecheck.rules.predicates import RuleError

__all__ = [
    "ABSENT",
    "parse_pointer",
    "pointer_of",
    "pointer_text",
    "resolve",
    "without_member",
]


class _Absent:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")


@lru_cache(maxsize=1024)
def parse_pointer(pointer: str) -> tuple[str, ...]:
    """The unescaped reference tokens; `RuleError` for a pointer that is not RFC 6901."""
    if pointer == "":
        return ()
    try:
        return tuple(jsonpointer.JsonPointer(pointer).parts)
    except jsonpointer.JsonPointerException as exc:
        raise RuleError(f"invalid JSON Pointer {pointer!r}: {exc}") from None


def pointer_of(tokens: Iterable[str | int]) -> str:
    """The JSON Pointer of reference tokens (member names, array indexes): each token escaped
    (`~` is `~0`, `/` is `~1`) after a `/`; `""` for none."""
    return "".join("/" + str(token).replace("~", "~0").replace("/", "~1") for token in tokens)


def pointer_text(pointer: str) -> str:
    """A pointer as messages name it: `(whole value)` for `""`."""
    return pointer if pointer else "(whole value)"


def _step(container: Any, token: str) -> Any:
    if isinstance(container, Mapping):
        return container.get(token, ABSENT)
    if isinstance(container, (list, tuple)):
        if _ARRAY_INDEX.fullmatch(token) is None:
            return ABSENT
        index = int(token)
        return container[index] if index < len(container) else ABSENT
    return ABSENT


def resolve(value: Any, pointer: str) -> Any:
    """The value `pointer` names inside `value`, or `ABSENT`."""
    for token in parse_pointer(pointer):
        value = _step(value, token)
        if value is ABSENT:
            return ABSENT
    return value


def without_member(value: Any, pointer: str) -> Any:
    """A copy of `value` without the member `pointer` names (unchanged when it is absent)."""
    tokens = parse_pointer(pointer)
    if not tokens or resolve(value, pointer) is ABSENT:
        return value
    return _drop(value, tokens)


def _drop(value: Any, tokens: tuple[str, ...]) -> Any:
    head, rest = tokens[0], tokens[1:]
    if isinstance(value, Mapping):
        copy = dict(value)
        if rest:
            copy[head] = _drop(copy[head], rest)
        else:
            del copy[head]
        return copy
    items = list(value)
    index = int(head)
    if rest:
        items[index] = _drop(items[index], rest)
    else:
        del items[index]
    return items
