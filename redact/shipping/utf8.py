"""Protobuf export requests whose strings are not all valid UTF-8, repaired one unit at a time.

protobuf's `string` must be UTF-8, and Python's protobuf refuses a whole request when one
string of one span is not. The OpenTelemetry Collector's receiver does not check (its Go
protobuf keeps any bytes), so exporters do send such data; opentelemetry-proto's guidance for
intermediaries that handle it is to replace invalid UTF-8 with U+FFFD. The proxy cannot pass the
bytes through, since undecodable text cannot be scrubbed, and should not lose a batch's good
spans for one bad one, so it does what that guidance says: `repair_utf8` reads the request with
every `string` field read as `bytes` (the same wire format), decodes each string with invalid
sequences replaced by U+FFFD, and writes the request back. The repaired text is then scrubbed
like any other; the answer's partial success says how many units were repaired.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Final

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import FieldDescriptor, FileDescriptor
from google.protobuf.message import DecodeError, Message

__all__ = ["repair_utf8"]

_REQUESTS: Final = {
    "traces": "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
    "logs": "opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest",
    "metrics": "opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest",
}
# Where a request's units sit: the path of repeated fields from the request down to a unit.
_UNITS: Final = {
    "traces": ("resource_spans", "scope_spans", "spans"),
    "logs": ("resource_logs", "scope_logs", "log_records"),
    "metrics": ("resource_metrics", "scope_metrics", "metrics"),
}


def repair_utf8(body: bytes, signal: str) -> tuple[bytes, int] | None:
    """`body` (a protobuf export request of `signal`) with every invalid UTF-8 sequence of its
    strings replaced by U+FFFD, and how many units (spans, log records, metrics) held one or
    sat under a resource or scope that did; None when the body does not read even so, or
    holds no invalid string (its problem is another)."""
    lenient = _lenient_class(signal)
    request = lenient()
    try:
        request.ParseFromString(body)
    except (DecodeError, RecursionError):
        return None
    outer, middle, inner = _UNITS[signal]
    units = 0
    for top in getattr(request, outer):
        bad_top = _repair_beside(top, middle)
        for group in getattr(top, middle):
            bad_group = _repair_beside(group, inner)
            for unit in getattr(group, inner):
                if _repair(unit) or bad_top or bad_group:
                    units += 1
    if not units:
        # Invalid strings outside any unit (or none at all): not this module's case.
        return None
    return bytes(request.SerializeToString()), units


def _repair_beside(message: Message, skip: str) -> bool:
    """Repair every string of `message` but those under its field `skip`."""
    bad = False
    for field, value in message.ListFields():
        if field.name != skip:
            bad = _repair_field(message, field, value) or bad
    return bad


def _repair(message: Message) -> bool:
    bad = False
    for field, value in message.ListFields():
        bad = _repair_field(message, field, value) or bad
    return bad


def _repair_field(message: Message, field: FieldDescriptor, value: Any) -> bool:
    if field.message_type is not None:
        if field.message_type.GetOptions().map_entry:  # not in OTLP; kept for safety
            return any(_repair(item) for item in value.values())
        items = value if field.is_repeated else [value]
        bad = False
        for item in items:
            bad = _repair(item) or bad
        return bad
    if field.full_name not in _lenient_pool()[1]:
        return False
    if field.is_repeated:
        fixed = [_fixed(item) for item in value]
        if all(new is None for new in fixed):
            return False
        repaired = [item if new is None else new for item, new in zip(value, fixed, strict=True)]
        del value[:]
        value.extend(repaired)
        return True
    new = _fixed(value)
    if new is None:
        return False
    setattr(message, field.name, new)
    return True


def _fixed(raw: bytes) -> bytes | None:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace").encode("utf-8")
    return None


@cache
def _lenient_class(signal: str) -> Any:
    pool, _ = _lenient_pool()
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(_REQUESTS[signal]))


@cache
def _lenient_pool() -> tuple[descriptor_pool.DescriptorPool, frozenset[str]]:
    """A pool holding the OTLP export requests with every `string` field made `bytes`, and the
    full names of those fields."""
    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
    from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

    pool = descriptor_pool.DescriptorPool()
    strings: set[str] = set()
    added: set[str] = set()

    def add(file: FileDescriptor) -> None:
        if file.name in added:
            return
        for dependency in file.dependencies:
            add(dependency)
        proto = descriptor_pb2.FileDescriptorProto()
        file.CopyToProto(proto)
        for message in proto.message_type:
            _bytes_for_strings(message, f"{proto.package}.{message.name}", strings)
        pool.Add(proto)
        added.add(file.name)

    for module in (trace_service_pb2, logs_service_pb2, metrics_service_pb2):
        add(module.DESCRIPTOR)
    return pool, frozenset(strings)


def _bytes_for_strings(message: Any, name: str, strings: set[str]) -> None:
    for field in message.field:
        if field.type == descriptor_pb2.FieldDescriptorProto.TYPE_STRING:
            field.type = descriptor_pb2.FieldDescriptorProto.TYPE_BYTES
            strings.add(f"{name}.{field.name}")
    for nested in message.nested_type:
        _bytes_for_strings(nested, f"{name}.{nested.name}", strings)
