"""Where two calls' arguments differ, as JSON Pointers, and which of the values may be shown.

Objects are compared member by member, arrays item by item (an item inserted early shows as
every later item changed: arrays are positions, not sets); numbers as JSON numbers (`1` is
`1.0`), never as booleans. A value is kept (`shown`) only when it is a scalar that the
redactor's `default` profile leaves as it is, looked at where it stands in the arguments (a
value under a `password` key is hidden however harmless it reads); otherwise the change names
the pointer and the JSON types alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from tracecheck.diff.model import ArgumentChange, JsonType

__all__ = ["argument_changes", "json_type"]

_ABSENT = object()


def argument_changes(baseline: Any, run: Any) -> tuple[ArgumentChange, ...]:
    """Every pointer at which `run`'s arguments differ from `baseline`'s, in document order."""
    found = list(_differences(baseline, run, ()))
    if not found:
        return ()
    visible = _Visible(baseline, run)
    return tuple(_change(path, old, new, visible.shows(path, old, new)) for path, old, new in found)


def json_type(value: Any) -> JsonType | None:
    """The JSON type of a value (None for a value that is absent)."""
    if value is _ABSENT:
        return None
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return None


Path = tuple[str | int, ...]


def _differences(old: Any, new: Any, path: Path) -> Iterator[tuple[Path, Any, Any]]:
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in old:
            yield from _differences(old[key], new.get(key, _ABSENT), (*path, key))
        for key in new:
            if key not in old:
                yield (*path, key), _ABSENT, new[key]
        return
    if _is_array(old) and _is_array(new):
        for index in range(max(len(old), len(new))):
            before = old[index] if index < len(old) else _ABSENT
            after = new[index] if index < len(new) else _ABSENT
            yield from _differences(before, after, (*path, index))
        return
    if not _same(old, new):
        yield path, old, new


def _is_array(value: Any) -> bool:
    return isinstance(value, list | tuple)


def _same(old: Any, new: Any) -> bool:
    kinds = json_type(old), json_type(new)
    if kinds[0] != kinds[1]:
        return False
    if kinds[0] in ("object", "array"):
        return False  # containers are compared member by member, never here
    return bool(old == new)


def _change(path: Path, old: Any, new: Any, shown: bool) -> ArgumentChange:
    kind: Literal["changed", "added", "removed"] = (
        "added" if old is _ABSENT else "removed" if new is _ABSENT else "changed"
    )
    return ArgumentChange(
        pointer=_pointer(path),
        change=kind,
        baseline_type=json_type(old),
        run_type=json_type(new),
        shown=shown,
        baseline_value=old if shown and old is not _ABSENT else None,
        run_value=new if shown and new is not _ABSENT else None,
    )


def _pointer(path: Path) -> str:
    return "".join("/" + str(token).replace("~", "~0").replace("/", "~1") for token in path)


class _Visible:
    """Whether a change's values may be shown: each side's arguments redacted once (and only
    when some change has a value that could be shown), a value shown when its redacted form
    is itself."""

    def __init__(self, baseline: Any, run: Any) -> None:
        self._sides = (baseline, run)
        self._redacted: tuple[Any, Any] | None = None

    def shows(self, path: Path, old: Any, new: Any) -> bool:
        values = [(side, value) for side, value in enumerate((old, new)) if value is not _ABSENT]
        if not all(json_type(value) not in ("object", "array") for _, value in values):
            return False
        redacted = self._redact()
        return all(_at(redacted[side], path) == value for side, value in values)

    def _redact(self) -> tuple[Any, Any]:
        if self._redacted is None:
            from redact import redact  # only for a diff with values to show

            baseline, run = self._sides
            self._redacted = (
                redact(baseline, profile="default").value,
                redact(run, profile="default").value,
            )
        return self._redacted


def _at(value: Any, path: Sequence[str | int]) -> Any:
    for token in path:
        if isinstance(value, Mapping) and isinstance(token, str):
            value = value.get(token, _ABSENT)
        elif _is_array(value) and isinstance(token, int) and token < len(value):
            value = value[token]
        else:
            return _ABSENT
    return value
