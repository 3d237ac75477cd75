"""OTLP/JSON to protobuf messages and back, driven by the messages' own descriptors.

OTLP/JSON is protobuf's JSON mapping with its own rules: trace and span ids are hex strings,
not base64; enums are integers (names are accepted on reading); field names are lowerCamelCase
(the proto names are accepted on reading); 64-bit integers are read from strings or numbers
and written as strings. A field the message does not define is an error, as is a value of the
wrong type. Errors name the place (`resourceLogs[0].scopeLogs[1].logRecords[3].body`) and
the type of what is there, never the value (`ShapeError`).

`google.protobuf.json_format` is not used: it reads ids as base64, and its errors quote values.
"""

from __future__ import annotations

import base64
import math
import re
from functools import cache
from typing import Any, Final

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from tracecheck.readers.common import decode_base64, described, special_double

__all__ = ["ShapeError", "fill_message", "message_to_json"]

# Bytes fields that OTLP/JSON writes as hex, and the length each holds.
_ID_SIZES: Final = {"trace_id": 16, "span_id": 8, "parent_span_id": 8}
_INTEGER: Final = re.compile(r"-?[0-9]+")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_T = FieldDescriptor
_RANGES: Final[dict[int, tuple[int, int]]] = {
    **dict.fromkeys((_T.TYPE_INT64, _T.TYPE_SINT64, _T.TYPE_SFIXED64), (-(2**63), 2**63 - 1)),
    **dict.fromkeys((_T.TYPE_UINT64, _T.TYPE_FIXED64), (0, 2**64 - 1)),
    **dict.fromkeys((_T.TYPE_INT32, _T.TYPE_SINT32, _T.TYPE_SFIXED32), (-(2**31), 2**31 - 1)),
    **dict.fromkeys((_T.TYPE_UINT32, _T.TYPE_FIXED32), (0, 2**32 - 1)),
}
_WIDE: Final = frozenset(
    (_T.TYPE_INT64, _T.TYPE_SINT64, _T.TYPE_SFIXED64, _T.TYPE_UINT64, _T.TYPE_FIXED64)
)
_DOUBLES: Final = frozenset((_T.TYPE_DOUBLE, _T.TYPE_FLOAT))


class ShapeError(ValueError):
    """A JSON value that is not what the message's field holds: `where` names the place."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


@cache
def _fields(descriptor: Descriptor) -> dict[str, FieldDescriptor]:
    """Each field under both the names JSON may give it."""
    out: dict[str, FieldDescriptor] = {}
    for field in descriptor.fields:
        out[field.name] = out[field.json_name] = field
    return out


def fill_message(message: Message, raw: Any, where: str) -> None:
    """Set `message` from the JSON object `raw` (the caller bounds how deep `raw` nests)."""
    if not isinstance(raw, dict):
        raise ShapeError(where, f"is {described(raw)}, not an object")
    fields = _fields(message.DESCRIPTOR)
    oneofs: set[str] = set()
    for key, value in raw.items():
        field = fields.get(key)
        if field is None:
            # Keys are input too: counted and measured, never quoted.
            raise ShapeError(where, f"has a field OTLP does not define ({described(key)})")
        if value is None:  # JSON null is the field's default
            continue
        place = f"{where}.{field.json_name}" if where else field.json_name
        oneof = field.containing_oneof
        if oneof is not None:
            if oneof.name in oneofs:
                raise ShapeError(where, f"sets more than one field of its {oneof.name!r} choice")
            oneofs.add(oneof.name)
        if field.is_repeated:
            _fill_repeated(message, field, value, place)
        elif field.message_type is not None:
            child = getattr(message, field.name)
            child.SetInParent()
            fill_message(child, value, place)
        else:
            _set(message, field, _scalar(field, value, place), place)


def _fill_repeated(message: Message, field: FieldDescriptor, value: Any, place: str) -> None:
    if not isinstance(value, list):
        raise ShapeError(place, f"is {described(value)}, not a list")
    target = getattr(message, field.name)
    if field.message_type is not None:
        for index, item in enumerate(value):
            fill_message(target.add(), item, f"{place}[{index}]")
        return
    items = [_scalar(field, item, f"{place}[{index}]") for index, item in enumerate(value)]
    try:
        target.extend(items)
    except ValueError:
        raise ShapeError(place, "holds text that is not valid Unicode") from None


def _set(message: Message, field: FieldDescriptor, value: Any, place: str) -> None:
    try:
        setattr(message, field.name, value)
    except ValueError:  # a string protobuf refuses (lone surrogates)
        raise ShapeError(place, "is text that is not valid Unicode") from None


def _scalar(field: FieldDescriptor, raw: Any, place: str) -> Any:
    kind = field.type
    if kind in _RANGES:
        return _integer(raw, kind, place)
    if kind in _DOUBLES:
        return _double(raw, place)
    if kind == _T.TYPE_STRING:
        if isinstance(raw, str):
            return raw
        raise ShapeError(place, f"is {described(raw)}, not a string")
    if kind == _T.TYPE_BOOL:
        if isinstance(raw, bool):
            return raw
        raise ShapeError(place, f"is {described(raw)}, not a boolean")
    if kind == _T.TYPE_BYTES:
        return _bytes(field, raw, place)
    if kind == _T.TYPE_ENUM:
        return _enum(field, raw, place)
    raise ShapeError(place, "is a field of a type OTLP/JSON does not carry")


def _integer(raw: Any, kind: int, place: str) -> int:
    if (isinstance(raw, str) and raw.isascii() and _INTEGER.fullmatch(raw)) or (
        isinstance(raw, float) and raw.is_integer()
    ):
        value = int(raw)
    elif isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    else:
        raise ShapeError(place, f"is {described(raw)}, not an integer")
    low, high = _RANGES[kind]
    if not low <= value <= high:
        raise ShapeError(place, f"is {described(raw)}, beyond the field's integer range")
    return value


def _double(raw: Any, place: str) -> float:
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, str):
        special = special_double(raw)
        if special is not None:
            return special
        if raw.isascii() and _NUMBER.fullmatch(raw):
            return float(raw)
    raise ShapeError(place, f"is {described(raw)}, not a number")


def _bytes(field: FieldDescriptor, raw: Any, place: str) -> bytes:
    if not isinstance(raw, str):
        raise ShapeError(place, f"is {described(raw)}, not a string")
    size = _ID_SIZES.get(field.name)
    if size is None:
        data = decode_base64(raw)
        if data is None:
            raise ShapeError(place, f"is {described(raw)}, not base64")
        return data
    if not raw:
        return b""
    if len(raw) == 2 * size and raw.isascii():
        try:
            return bytes.fromhex(raw)
        except ValueError:
            pass
    data = decode_base64(raw)  # what protobuf's own JSON writes; some exporters still do
    if data is not None and len(data) == size:
        return data
    raise ShapeError(place, f"is {described(raw)}, not {2 * size} hex digits")


def _enum(field: FieldDescriptor, raw: Any, place: str) -> int:
    enum = field.enum_type
    if isinstance(raw, str) and enum is not None:
        found = enum.values_by_name.get(raw)
        if found is None:
            raise ShapeError(place, f"is {described(raw)}, not a name of {enum.name}")
        number: int = found.number
        return number
    return _integer(raw, _T.TYPE_INT32, place)


def message_to_json(message: Message) -> dict[str, Any]:
    """The OTLP/JSON object of a message: fields that are set, under their JSON names."""
    out: dict[str, Any] = {}
    for field, value in message.ListFields():
        if field.is_repeated:
            out[field.json_name] = [_json_value(field, item) for item in value]
        else:
            out[field.json_name] = _json_value(field, value)
    return out


def _json_value(field: FieldDescriptor, value: Any) -> Any:
    if field.message_type is not None:
        return message_to_json(value)
    kind = field.type
    if kind == _T.TYPE_BYTES:
        if field.name in _ID_SIZES:
            return value.hex()
        return base64.b64encode(value).decode("ascii")
    if kind in _WIDE:
        return str(value)
    if kind in _DOUBLES and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value
