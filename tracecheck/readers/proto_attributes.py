"""Span attributes read from protobuf, converted to Python values only when looked up.

Parsing OTLP protobuf is ten times faster than converting every attribute it holds, and a
contract reads only a few attributes of each span. Protobuf has already checked every value's
type, so deferring the conversion cannot defer an error.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["ProtoAttributes", "proto_attributes", "proto_value"]


class ProtoAttributes(Mapping[str, Any]):
    """The read-only attributes of one span: its own `KeyValue`s over inherited ones."""

    __slots__ = ("_base", "_index", "_pairs", "_values")

    def __init__(self, pairs: Any, base: Mapping[str, Any]) -> None:
        self._pairs = pairs
        self._base = base
        self._index: dict[str, Any] | None = None
        self._values: dict[str, Any] = {}

    def _own(self) -> dict[str, Any]:
        if self._index is None:  # later duplicates win, as in a dict built from the pairs
            self._index = {pair.key: pair.value for pair in self._pairs}
            self._pairs = None
        return self._index

    def __getitem__(self, key: str) -> Any:
        values = self._values
        if key in values:
            return values[key]
        raw = self._own().get(key)
        if raw is None:
            return self._base[key]
        value = values[key] = proto_value(raw)
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._own() or key in self._base

    def __iter__(self) -> Iterator[str]:
        own = self._own()
        yield from (key for key in self._base if key not in own)
        yield from own

    def __len__(self) -> int:
        own = self._own()
        return len(own) + sum(1 for key in self._base if key not in own)

    def __repr__(self) -> str:
        return f"ProtoAttributes({dict(self)!r})"

    def to_dict(self) -> dict[str, Any]:
        """Every attribute converted at once, in iteration order: for a reader of every value
        (redaction), which the lookups one by one would cost several times over."""
        values = self._values
        own = {
            key: values[key] if key in values else proto_value(raw)
            for key, raw in self._own().items()
        }
        out = {key: value for key, value in self._base.items() if key not in own}
        out.update(own)
        return out


def proto_attributes(pairs: Any) -> dict[str, Any]:
    """A `KeyValue` list converted at once (resource, scope, events, links)."""
    return {pair.key: proto_value(pair.value) for pair in pairs}


def proto_value(value: Any) -> Any:
    """An `AnyValue` message as a Python value: kvlist → dict, array → list, bytes → bytes."""
    which = value.WhichOneof("value")
    if which == "string_value":
        return value.string_value
    if which is None:
        return None
    if which == "array_value":
        return [proto_value(item) for item in value.array_value.values]
    if which == "kvlist_value":
        return proto_attributes(value.kvlist_value.values)
    return getattr(value, which)
