"""Scrubbing an OTLP logs export request: every string surface of each log record is redacted,
and a record whose redacted form is not share-safe is dropped and counted, never forwarded.

GenAI instrumentations send prompts and completions as log records (events such as
`gen_ai.user.message` or `gen_ai.client.inference.operation.details`, with the content in the
body or in attributes like `gen_ai.input.messages`), so a record is redacted whole: its body
(any AnyValue, under the key `body`), its attributes and its event name, with its resource
(attributes, entity references, schema URL) and scope (name, version, attributes, schema
URL). Its severity text is judged as it is, and ids, flags, times and severity never change.

Each record is judged with its resource and scope: a resource or scope that stays unsafe
holds back every record under it. A record whose values nest deeper than `MAX_VALUE_DEPTH`,
or whose redaction raises, is dropped alone as UNKNOWN.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from redact.core import KnownSecretsArg
from redact.held_back import verdict_kind
from redact.isolated import holds_too_deep
from redact.model import share_allowed
from redact.profiles import Profile
from redact.shipping.signals_core import (
    ScrubbedSignal,
    Scrubber,
    write_attributes,
)
from redact.shipping.signals_wire import (
    DEEP,
    LOGS,
    MALFORMED_ID,
    SignalEncoding,
    decode,
    ids_malformed,
)
from tracecheck.readers.proto_attributes import proto_attributes, proto_value
from tracecheck.writers.otlp import write_proto_value

__all__ = ["scrub_logs"]

_ABSENT: Final[Any] = object()


def scrub_logs(
    body: bytes,
    encoding: SignalEncoding,
    *,
    profile: str | Profile = "share",
    known_secrets: KnownSecretsArg = (),
    pseudonym_key: bytes | str | None = None,
    max_string_bytes: float | None = None,
) -> ScrubbedSignal:
    """Redact and gate every log record of an `ExportLogsServiceRequest` (`encoding` "proto"
    or "json"); the payload is written back in the same encoding. Raises `TraceReadError` for
    a body that is not such a request (naming the place, never a value)."""
    decoded = decode(body, encoding, LOGS)
    request: Any = decoded.request
    scrubber = Scrubber(profile, known_secrets, pseudonym_key, max_string_bytes)
    scrubber.prescan(_values_of(request))
    reasons = list(decoded.left_out)
    received, redacted, number = len(reasons), 0, 0
    for i, resource_logs in enumerate(request.resource_logs):
        resource = scrubber.container(resource_logs, "resource", f"resource:{i}", force=False)
        for j, scope_logs in enumerate(resource_logs.scope_logs):
            # Under a resource held back, every record goes: its scope needs no look.
            scope = resource or scrubber.container(
                scope_logs, "scope", f"resource:{i}/{j}", force=False
            )
            records = scope_logs.log_records
            received += len(records)
            held: list[int] = []
            for k, record in enumerate(records):
                before = scrubber.changes()
                reason = resource or scope or _record(scrubber, record, f"log:{number + k}")
                if reason is not None:
                    held.append(k)
                    reasons.append(reason)
                elif scrubber.changes() > before:
                    redacted += 1
            number += len(records)
            for k in reversed(held):
                del records[k]
    return scrubber.finish(request, encoding, LOGS, received, reasons, redacted)


def _record(scrubber: Scrubber, record: Any, root: str) -> str | None:
    """Redact one record in place; the reason it is held back, or None."""
    if ids_malformed(record):
        return MALFORMED_ID
    try:
        body = proto_value(record.body) if record.HasField("body") else _ABSENT
        attributes = proto_attributes(record.attributes)
        if holds_too_deep(attributes.values()) or (body is not _ABSENT and holds_too_deep((body,))):
            return DEEP
        redactor = scrubber.redactor
        attributes = redactor.mapping(attributes, f"{root}/attributes", 0)
        if body is not _ABSENT:
            body = redactor.keyed("body", body, f"{root}/body", 0)
        event_name = scrubber.redactor.value(record.event_name, f"{root}/event_name", 0)
        assessor = scrubber.assessor
        assessor.mapping(attributes, f"{root}/attributes", 0)
        if body is not _ABSENT:
            assessor.keyed("body", body, f"{root}/body", 0)
        assessor.value(event_name, f"{root}/event_name", 0)
        # Severity stays as it is: judged, never changed.
        assessor.value(record.severity_text, f"{root}/severity_text", 0)
        verdict = scrubber.verdict()
        if not share_allowed(verdict):
            return verdict_kind(verdict)
        write_attributes(record.attributes, attributes)
        if body is not _ABSENT:
            record.ClearField("body")
            record.body.SetInParent()
            write_proto_value(record.body, body)
        record.event_name = event_name
    except Exception as exc:
        return scrubber.unreadable(exc)
    return None


def _values_of(request: Any) -> Iterator[Any]:
    """Every value of the request redaction looks at, for the one-pass prescan."""
    for resource_logs in request.resource_logs:
        yield proto_attributes(resource_logs.resource.attributes)
        for scope_logs in resource_logs.scope_logs:
            yield scope_logs.scope.name
            yield proto_attributes(scope_logs.scope.attributes)
            for record in scope_logs.log_records:
                yield proto_attributes(record.attributes)
                if record.HasField("body"):
                    yield proto_value(record.body)
                yield record.event_name
