"""Where two calls' arguments differ, as JSON Pointers, and which of the values may be shown.

Objects are compared member by member, arrays item by item (an item inserted early shows as
every later item changed: arrays are positions, not sets); numbers as JSON numbers (`1` is
`1.0`), never as booleans. A value is kept (`shown`) only when it is a scalar that the
redactor's `default` profile leaves as it is, looked at where it stands in the arguments (a
value under a `password` key is hidden however harmless it reads); otherwise the change names
the pointer and the JSON types alone. The arguments of every pair with a value to judge are
redacted together, in one pass of the redactor. A pointer is shown without any credential
held in a key (`without_credentials`): keys are recorded data too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, NamedTuple, cast

from tracecheck import naming
from tracecheck.diff.model import ArgumentChange, JsonType
from tracecheck.rules.pointers import pointer_of
from tracecheck.unquoted import without_credentials

__all__ = ["Difference", "described", "differences", "json_type"]

_ABSENT: Any = object()
Path = tuple[str | int, ...]


class Difference(NamedTuple):
    """Where two arguments differ, with both values (`_ABSENT` where one has none): kept only
    until `described` decides which may be shown."""

    path: Path
    old: Any
    new: Any


def differences(baseline: Any, run: Any) -> list[Difference]:
    """Every place at which `run`'s arguments differ from `baseline`'s, in document order."""
    return list(_walk(baseline, run, ()))


def described(
    pairs: Sequence[tuple[Any, Any, Sequence[Difference]]],
) -> list[tuple[ArgumentChange, ...]]:
    """The changes of each (baseline arguments, run arguments, differences), each value kept
    only where the default profile leaves it as it is."""
    judged = [k for k, (_, _, found) in enumerate(pairs) if any(map(_scalar, found))]
    redacted: dict[int, tuple[Any, Any]] = {}
    if judged:
        from redact import redact  # only for a diff with values to show

        batch = [[pairs[k][0], pairs[k][1]] for k in judged]
        for k, (old, new) in zip(judged, redact(batch, profile="default").value, strict=True):
            redacted[k] = old, new
    return [
        tuple(_change(found, redacted.get(k)) for found in differences)
        for k, (_, _, differences) in enumerate(pairs)
    ]


def json_type(value: Any) -> JsonType | None:
    """The JSON type of a value (None for a value that is absent, or not JSON)."""
    if value is _ABSENT:
        return None
    return cast("JsonType | None", naming.json_type(value))


def _walk(old: Any, new: Any, path: Path) -> Iterator[Difference]:
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in old:
            yield from _walk(old[key], new.get(key, _ABSENT), (*path, key))
        for key in new:
            if key not in old:
                yield Difference((*path, key), _ABSENT, new[key])
        return
    if _is_array(old) and _is_array(new):
        for index in range(max(len(old), len(new))):
            before = old[index] if index < len(old) else _ABSENT
            after = new[index] if index < len(new) else _ABSENT
            yield from _walk(before, after, (*path, index))
        return
    if not _same(old, new):
        yield Difference(path, old, new)


def _is_array(value: Any) -> bool:
    return isinstance(value, list | tuple)


def _same(old: Any, new: Any) -> bool:
    kinds = json_type(old), json_type(new)
    if kinds[0] != kinds[1]:
        return False
    if kinds[0] in ("object", "array"):
        return False  # containers are compared member by member, never here
    return bool(old == new)


def _scalar(found: Difference) -> bool:
    """Whether every value of a difference is a scalar (a container's values are not shown)."""
    values = [value for value in (found.old, found.new) if value is not _ABSENT]
    return all(json_type(value) not in ("object", "array") for value in values)


def _change(found: Difference, redacted: tuple[Any, Any] | None) -> ArgumentChange:
    path, old, new = found
    shown = (
        redacted is not None
        and _scalar(found)
        and all(
            _at(redacted[side], path) == value
            for side, value in enumerate((old, new))
            if value is not _ABSENT
        )
    )
    kind: Literal["changed", "added", "removed"] = (
        "added" if old is _ABSENT else "removed" if new is _ABSENT else "changed"
    )
    return ArgumentChange(
        pointer=pointer_of(without_credentials(str(token)) for token in path),
        change=kind,
        baseline_type=json_type(old),
        run_type=json_type(new),
        shown=shown,
        baseline_value=old if shown and old is not _ABSENT else None,
        run_value=new if shown and new is not _ABSENT else None,
    )


def _at(value: Any, path: Sequence[str | int]) -> Any:
    for token in path:
        if isinstance(value, Mapping) and isinstance(token, str):
            value = value.get(token, _ABSENT)
        elif _is_array(value) and isinstance(token, int) and token < len(value):
            value = value[token]
        else:
            return _ABSENT
    return value
