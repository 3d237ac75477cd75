"""OTLP logs and metrics export requests read from either encoding and written back, one unit
at a time where a unit fails.

A request nests containers down to its leaves (logs: resource logs → scope logs → log record;
metrics: resource metrics → scope metrics → metric) and counts its units (a log record; a
metric's data points). A leaf that cannot be read costs only its own units, counted in
`Decoded.left_out` with a reason:
- protobuf: a request protobuf refuses whole (a value nested past its 100 levels) is read
  container by container from its wire format, each leaf parsed alone; a leaf (or a resource or
  scope, with every unit below it) that still fails is left out. Broken wire format above the
  leaves is malformed input, as is a request of which not one unit can be read.
- JSON: a leaf nested deeper than any value it may hold (`RAW_DEPTH`) is left out before it is
  converted; anything else that is not OTLP/JSON is malformed input.
Malformed input raises `TraceReadError` naming the place, never a value. Fields protobuf does
not know are discarded: nothing is forwarded that was not redacted and judged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import orjson
from google.protobuf.message import DecodeError, Message

from redact.shipping.signals_json import ShapeError, fill_message, message_to_json
from tracecheck.errors import TraceReadError
from tracecheck.readers import deep_json
from tracecheck.readers.common import MAX_VALUE_DEPTH, too_deep
from tracecheck.readers.proto_split import message_fields, write_varint

__all__ = [
    "DEEP",
    "LOGS",
    "METRICS",
    "RAW_DEPTH",
    "SOURCE",
    "UNREADABLE",
    "Decoded",
    "Signal",
    "SignalEncoding",
    "data_points",
    "decode",
    "encode",
    "leaf_lists",
    "prune",
]

SignalEncoding = Literal["proto", "json"]
SOURCE: Final = "request body"
DEEP: Final = "UNKNOWN (nested too deep)"
# Protobuf carries ids as bytes of any length; only OTLP's 16 and 8 (or none) are ids. Other
# bytes are content nobody judged (JSON's reader refuses them already).
MALFORMED_ID: Final = "UNKNOWN (an id is not 16 or 8 bytes)"


def ids_malformed(holder: Any) -> bool:
    """Whether a log record's or an exemplar's `trace_id`/`span_id` is not an OTLP id."""
    return len(holder.trace_id) not in (0, 16) or len(holder.span_id) not in (0, 8)


UNREADABLE: Final = "UNKNOWN (could not be read)"
# JSON levels a leaf may take to hold values MAX_VALUE_DEPTH deep: an AnyValue level is at most
# four JSON levels, and a data point's exemplar attributes start nine levels into a metric.
RAW_DEPTH: Final = 4 * MAX_VALUE_DEPTH + 12
_METRIC_DATA: Final = (5, 7, 9, 10, 11)  # gauge, sum, histogram, exponential histogram, summary
_METRIC_DATA_JSON: Final = (
    "gauge",
    "sum",
    "histogram",
    "exponentialHistogram",
    "exponential_histogram",
    "summary",
)


@dataclass(frozen=True, slots=True)
class Signal:
    """One OTLP signal's request: its message classes from the request down to the leaf, the
    repeated field of each that holds the next, and how many units a leaf holds."""

    name: str  # "logs" | "metrics"
    classes: tuple[type[Message], ...]
    children: tuple[str, ...]  # one fewer than `classes`
    units: Callable[[Message], int]
    units_in_wire: Callable[[bytes], int]
    units_in_json: Callable[[Any], int]

    @property
    def leaf(self) -> int:
        return len(self.classes) - 1


@dataclass(slots=True)
class Decoded:
    request: Message
    left_out: list[str] = field(default_factory=list)  # one reason per unit not read


def _logs() -> Signal:
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, ResourceLogs, ScopeLogs

    return Signal(
        "logs",
        (ExportLogsServiceRequest, ResourceLogs, ScopeLogs, LogRecord),
        ("resource_logs", "scope_logs", "log_records"),
        lambda record: 1,
        lambda data: 1,
        lambda raw: 1,
    )


def _metrics() -> Signal:
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
        ExportMetricsServiceRequest,
    )
    from opentelemetry.proto.metrics.v1.metrics_pb2 import Metric, ResourceMetrics, ScopeMetrics

    return Signal(
        "metrics",
        (ExportMetricsServiceRequest, ResourceMetrics, ScopeMetrics, Metric),
        ("resource_metrics", "scope_metrics", "metrics"),
        lambda metric: len(points) if (points := data_points(metric)) is not None else 0,
        _points_in_wire,
        _points_in_json,
    )


def data_points(metric: Any) -> Any:
    """The repeated data points of a metric, whichever kind it is; None for a metric with no data."""
    kind = metric.WhichOneof("data")
    return None if kind is None else getattr(metric, kind).data_points


def _points_in_wire(data: bytes) -> int:
    fields = message_fields(memoryview(data)) or []
    count = 0
    for number, payload in fields:
        if number in _METRIC_DATA:
            count += sum(1 for inner, _ in message_fields(payload) or [] if inner == 1)
    return count


def _points_in_json(raw: Any) -> int:
    if not isinstance(raw, dict):
        return 0
    count = 0
    for name in _METRIC_DATA_JSON:
        data = raw.get(name)
        if isinstance(data, dict):
            points = data.get("dataPoints", data.get("data_points"))
            count += len(points) if isinstance(points, list) else 0
    return count


LOGS: Final = _logs()
METRICS: Final = _metrics()


# ---------------------------------------------------------------------------------------------
# Reading


def decode(body: bytes, encoding: SignalEncoding, signal: Signal) -> Decoded:
    """The request's readable part and what was left out; raises TraceReadError."""
    if encoding == "json":
        return _decode_json(body, signal)
    if encoding != "proto":
        raise ValueError(f"unknown encoding {encoding!r} (proto or json)")
    request = signal.classes[0]()
    try:
        request.ParseFromString(body)
    except DecodeError:
        decoded = Decoded(signal.classes[0]())
        try:
            _split(memoryview(body), signal, 0, decoded)
        except _Malformed:
            decoded = Decoded(signal.classes[0]())
        if not any(leaf_lists(decoded.request, signal)):
            name = signal.classes[0].DESCRIPTOR.name
            raise TraceReadError(SOURCE, f"is not a valid {name} (malformed protobuf)") from None
        request = decoded.request
        request.DiscardUnknownFields()
        return decoded
    request.DiscardUnknownFields()
    return Decoded(request)


class _Malformed(Exception):
    pass


def _split(data: memoryview, signal: Signal, depth: int, into: Decoded) -> Message | None:
    """The part parsed container by container (into `into.request` at depth 0)."""
    fields = message_fields(data)
    if fields is None:
        raise _Malformed
    cls = signal.classes[depth]
    number = cls.DESCRIPTOR.fields_by_name[signal.children[depth]].number
    children = [payload for found, payload in fields if found == number]
    # Containers hold only length-delimited fields: their other fields are written back as such.
    rest = b"".join(_field(found, payload) for found, payload in fields if found != number)
    shell = into.request if depth == 0 else cls()
    try:
        shell.MergeFromString(rest)
    except DecodeError:  # the resource or scope itself nests too deep: its units go with it
        into.left_out += [UNREADABLE] * sum(_wire_units(p, signal, depth + 1) for p in children)
        return None
    target = getattr(shell, signal.children[depth])
    for payload in children:
        if depth + 1 == signal.leaf:
            try:
                target.add().MergeFromString(bytes(payload))
            except DecodeError:
                del target[-1]
                into.left_out += [UNREADABLE] * signal.units_in_wire(bytes(payload))
            continue
        child = _split(payload, signal, depth + 1, into)
        if child is not None:
            target.add().CopyFrom(child)
    return shell


def _wire_units(data: memoryview, signal: Signal, depth: int) -> int:
    if depth == signal.leaf:
        return signal.units_in_wire(bytes(data))
    fields = message_fields(data)
    if fields is None:
        raise _Malformed
    number = signal.classes[depth].DESCRIPTOR.fields_by_name[signal.children[depth]].number
    return sum(_wire_units(p, signal, depth + 1) for found, p in fields if found == number)


def _field(number: int, payload: memoryview) -> bytes:
    return write_varint((number << 3) | 2) + write_varint(len(payload)) + bytes(payload)


def _decode_json(body: bytes, signal: Signal) -> Decoded:
    try:
        document = deep_json.loads(body)
    except orjson.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        reason = f"malformed JSON: {exc.msg.rstrip('.')}"
        raise TraceReadError(SOURCE, reason, where=where) from None
    decoded = Decoded(signal.classes[0]())
    try:
        _from_json(document, signal, 0, "", decoded)
    except ShapeError as exc:
        raise TraceReadError(SOURCE, exc.reason, where=exc.where or None) from None
    return decoded


def _from_json(raw: Any, signal: Signal, depth: int, where: str, into: Decoded) -> Message | None:
    cls = signal.classes[depth]
    if not isinstance(raw, dict):
        place = where or f"the {cls.DESCRIPTOR.name}"
        raise ShapeError(place, "is not an object")
    child = cls.DESCRIPTOR.fields_by_name[signal.children[depth]]
    names = (child.json_name, child.name)
    items = [value for key, value in raw.items() if key in names and value is not None]
    if len(items) > 1:
        raise ShapeError(where or cls.DESCRIPTOR.name, f"gives {child.json_name} twice")
    rest = {key: value for key, value in raw.items() if key not in names}
    if too_deep(rest, RAW_DEPTH):
        into.left_out += [DEEP] * _json_units(items, signal, depth + 1)
        return None
    shell = into.request if depth == 0 else cls()
    fill_message(shell, rest, where)
    if not items:
        return shell
    place = f"{where}.{child.json_name}" if where else child.json_name
    if not isinstance(items[0], list):
        raise ShapeError(place, "is not a list")
    target = getattr(shell, child.name)
    for index, item in enumerate(items[0]):
        item_place = f"{place}[{index}]"
        if depth + 1 < signal.leaf:
            part = _from_json(item, signal, depth + 1, item_place, into)
            if part is not None:
                target.add().CopyFrom(part)
        elif too_deep(item, RAW_DEPTH):
            into.left_out += [DEEP] * signal.units_in_json(item)
        else:
            fill_message(target.add(), item, item_place)
    return shell


def _json_units(items: list[Any], signal: Signal, depth: int) -> int:
    """Units under the lists `items` (best effort: what is left out is not read)."""
    count = 0
    for group in items:
        for item in group if isinstance(group, list) else ():
            if depth == signal.leaf:
                count += signal.units_in_json(item)
            elif isinstance(item, dict):
                child = signal.classes[depth].DESCRIPTOR.fields_by_name[signal.children[depth]]
                below = [item.get(child.json_name), item.get(child.name)]
                count += _json_units([b for b in below if b is not None], signal, depth + 1)
    return count


# ---------------------------------------------------------------------------------------------
# Walking and writing


def leaf_lists(request: Message, signal: Signal) -> Iterator[Any]:
    """The repeated fields that hold the request's leaves (each non-empty one)."""
    stack: list[tuple[Any, int]] = [(request, 0)]
    while stack:
        message, depth = stack.pop()
        children = getattr(message, signal.children[depth])
        if depth + 1 == signal.leaf:
            if len(children):
                yield children
        else:
            stack.extend((child, depth + 1) for child in reversed(children))


def prune(request: Message, signal: Signal) -> int:
    """Remove containers left with no leaf; the number of leaves that remain."""

    def remaining(message: Any, depth: int) -> int:
        children = getattr(message, signal.children[depth])
        if depth + 1 == signal.leaf:
            return len(children)
        total = 0
        for index in reversed(range(len(children))):
            count = remaining(children[index], depth + 1)
            if count == 0:
                del children[index]
            total += count
        return total

    return remaining(request, 0)


def encode(
    request: Message, encoding: SignalEncoding, signal: Signal
) -> tuple[bytes | None, list[str]]:
    """The request written in `encoding` (None when no leaf is left), and one reason per unit
    of each leaf that could not be written (left out alone)."""
    write = _writer(encoding)
    if prune(request, signal) == 0:
        return None, []
    try:
        return write(request), []
    except Exception:
        pass
    left_out: list[str] = []
    for leaves in list(leaf_lists(request, signal)):
        for index in reversed(range(len(leaves))):
            try:
                write(leaves[index])
            except Exception as exc:
                reason = f"UNKNOWN (could not be encoded: {type(exc).__name__})"
                left_out += [reason] * signal.units(leaves[index])
                del leaves[index]
    if prune(request, signal) == 0:
        return None, left_out
    return write(request), left_out


def _writer(encoding: SignalEncoding) -> Callable[[Message], bytes]:
    if encoding == "json":
        return lambda message: orjson.dumps(message_to_json(message))
    return lambda message: message.SerializeToString()
