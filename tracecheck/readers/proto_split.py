"""An OTLP protobuf request that protobuf refuses whole, read part by part.

Python's protobuf parsers stop at 100 nested messages: one span whose attribute nests key-value
lists 33 levels deep makes the whole request unreadable, and with it every other span of the
batch. When a request fails to parse, `split_request` walks its wire format down to the spans
(request → resource spans → scope spans → span), measures how deep each part nests, marks the
parts that nest too deep to parse inside a request, and parses the others alone. A part that
fails for any other reason means the request is malformed: then it returns None, and the caller
reports the parse error as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "PROTOBUF_DEPTH",
    "DeepSpan",
    "ResourcePart",
    "ScopePart",
    "message_fields",
    "split_request",
    "write_varint",
]

PROTOBUF_DEPTH: Final = 100  # nested messages Python's protobuf parses
# Levels above each part inside a request: a span lies in a request, resource spans and scope
# spans; a scope and a resource one level less.
_ABOVE: Final = {"span": 3, "scope": 3, "resource": 2}
# Which fields of which message hold the messages that nest (attributes and their values).
_CHILDREN: Final[dict[str, dict[int, str]]] = {
    "span": {9: "kv", 11: "event", 13: "link"},
    "event": {3: "kv"},
    "link": {5: "kv"},
    "resource": {1: "kv"},
    "scope": {3: "kv"},
    "kv": {2: "any"},
    "any": {5: "array", 6: "kvlist"},
    "array": {1: "any"},
    "kvlist": {1: "kv"},
}


@dataclass(frozen=True, slots=True)
class DeepSpan:
    """A span nested too deep to parse, with its ids as hex when its bytes hold them."""

    trace_id: str | None
    span_id: str | None


@dataclass(slots=True)
class ScopePart:
    scope: Any  # InstrumentationScope, None when absent
    deep: bool  # the scope itself is nested too deep: its spans are left out
    spans: list[Any] = field(default_factory=list)  # ProtoSpan or DeepSpan


@dataclass(slots=True)
class ResourcePart:
    resource: Any  # Resource
    deep: bool
    scopes: list[ScopePart] = field(default_factory=list)


class _Malformed(Exception):
    """A part fails to parse for a reason other than its depth."""


def split_request(data: bytes) -> list[ResourcePart] | None:
    """The parts of a request that failed to parse, or None when what failed is not a part
    nested too deep (the request is malformed)."""
    found = _Found()
    try:
        parts = [found.resource_spans(payload) for payload in _payloads(data, 1)]
    except _Malformed:
        return None
    return parts if found.deep else None


class _Found:
    def __init__(self) -> None:
        # protobuf's messages, imported when a request has to be split (not to read JSON).
        from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
        from opentelemetry.proto.resource.v1.resource_pb2 import Resource
        from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan

        self.kinds: dict[str, Any] = {
            "resource": Resource,
            "scope": InstrumentationScope,
            "span": ProtoSpan,
        }
        self.deep = False

    def resource_spans(self, data: bytes) -> ResourcePart:
        resource = self.part(self.kinds["resource"], b"".join(_payloads(data, 1)), "resource")
        part = ResourcePart(resource, resource is None)
        part.scopes = [self.scope_spans(payload) for payload in _payloads(data, 2)]
        return part

    def scope_spans(self, data: bytes) -> ScopePart:
        scopes = _payloads(data, 1)
        kind = self.kinds["scope"]
        scope = self.part(kind, b"".join(scopes), "scope") if scopes else None
        part = ScopePart(scope, bool(scopes) and scope is None)
        for payload in _payloads(data, 2):
            span = self.part(self.kinds["span"], payload, "span")
            part.spans.append(span if span is not None else _deep_span(payload))
        return part

    def part(self, kind: Any, data: bytes, name: str) -> Any:
        """The part parsed alone, or None when it nests too deep to parse inside a request."""
        levels = _levels(data, name)
        if levels is None:
            raise _Malformed
        if levels + _ABOVE[name] > PROTOBUF_DEPTH:
            self.deep = True
            return None
        from google.protobuf.message import DecodeError

        try:
            return kind.FromString(data)
        except DecodeError:
            raise _Malformed from None


def _deep_span(data: bytes) -> DeepSpan:
    ids = []
    for number in (1, 2):
        raw = b"".join(_payloads(data, number))
        ids.append(raw.hex() if raw.strip(b"\0") else None)
    return DeepSpan(ids[0], ids[1])


def _levels(data: bytes, kind: str) -> int | None:
    """How many messages deep `data` nests (1 for itself), following attributes and their
    values; None when its wire format is malformed. Iterative: any depth is measured."""
    deepest = 0
    stack: list[tuple[memoryview, str, int]] = [(memoryview(data), kind, 1)]
    while stack:
        view, name, level = stack.pop()
        deepest = max(deepest, level)
        children = _CHILDREN.get(name, {})
        fields = message_fields(view)
        if fields is None:
            return None
        stack.extend(
            (payload, children[number], level + 1)
            for number, payload in fields
            if number in children
        )
    return deepest


def _payloads(data: bytes, number: int) -> list[bytes]:
    fields = message_fields(memoryview(data))
    if fields is None:
        raise _Malformed
    return [bytes(payload) for found, payload in fields if found == number]


def message_fields(data: memoryview) -> list[tuple[int, memoryview]] | None:
    """The length-delimited fields of a message as (number, payload); None when malformed."""
    fields: list[tuple[int, memoryview]] = []
    position, end = 0, len(data)
    while position < end:
        key, position = _varint(data, position)
        if key is None or key >> 3 == 0:
            return None
        wire = key & 7
        if wire == 0:
            value, position = _varint(data, position)
            if value is None:
                return None
        elif wire == 1:
            position += 8
        elif wire == 5:
            position += 4
        elif wire == 2:
            length, position = _varint(data, position)
            if length is None or position + length > end:
                return None
            fields.append((key >> 3, data[position : position + length]))
            position += length
        else:
            return None
        if position > end:
            return None
    return fields


def _varint(data: memoryview, position: int) -> tuple[int | None, int]:
    result = shift = 0
    while position < len(data) and shift < 64:
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, position
        shift += 7
    return None, position


def write_varint(value: int) -> bytes:
    """A non-negative integer as protobuf's base-128 varint (what `_varint` reads back)."""
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)
