"""What scrubbing logs and metrics share: the result, one redactor and one judge per request,
attribute values between protobuf and Python, and how a drop is named.

A request is redacted with one `Redactor` (so pseudonyms agree across it and its strings are
prescanned in one pass) and judged with one `Assessor` over the same inspector, as
`redact.spans.scrub_spans` does for spans. Whatever is forwarded is written back from the
values that were judged: a value protobuf held that the Python view does not (an earlier
duplicate of a key) is never forwarded unjudged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from redact.core import KnownSecretsArg, assessor_for, redactor_for
from redact.held_back import verdict_kind
from redact.inspector import known_secrets_of, pointer_segment, strings_in
from redact.isolated import holds_too_deep
from redact.model import (
    Category,
    RedactionFinding,
    RedactionReport,
    ShareVerdict,
    share_allowed,
)
from redact.profiles import Profile, resolve_profile
from redact.shipping.signals_wire import DEEP, Signal, SignalEncoding, encode
from tracecheck.readers.proto_attributes import proto_attributes
from tracecheck.writers.otlp import write_proto_attributes

__all__ = [
    "ScrubbedSignal",
    "Scrubber",
    "write_attributes",
]


@dataclass(frozen=True, slots=True)
class ScrubbedSignal:
    """One export request scrubbed.

    `received` counts its units (log records, or metric data points), `kept` those in
    `payload`, `dropped` those held back, with one reason each in `reasons` (a verdict and the
    detectors behind it, `UNSAFE (credential/github-token)`, never a value). `redacted` counts
    the kept units that redaction changed. `payload` is the request in the encoding it came
    in, or None when nothing is left to forward. `report` lists every change (paths only).
    """

    received: int
    kept: int
    dropped: int
    reasons: tuple[str, ...]
    redacted: int
    payload: bytes | None
    report: RedactionReport

    def reason_counts(self) -> dict[str, int]:
        """Each distinct reason and how many units it held back, in order of first drop."""
        counts: dict[str, int] = {}
        for reason in self.reasons:
            counts[reason] = counts.get(reason, 0) + 1
        return counts


class Scrubber:
    """The redactor and judge of one request, and the markers the share gate added."""

    def __init__(
        self,
        profile: str | Profile,
        known_secrets: KnownSecretsArg,
        pseudonym_key: bytes | str | None,
        max_string_bytes: float | None,
    ) -> None:
        self.profile = resolve_profile(profile)
        known = known_secrets_of(known_secrets)
        self.redactor = redactor_for(self.profile, known, pseudonym_key, max_string_bytes)
        self.assessor = assessor_for(self.redactor.inspector)
        self._gate_findings: list[RedactionFinding] = []

    def prescan(self, values: Iterable[Any]) -> None:
        """Scan every string of the request in one pass (an optimisation: strings it missed
        are judged one at a time)."""
        self.redactor.inspector.prescan(*strings_in(values))

    def finish(
        self,
        request: Message,
        encoding: SignalEncoding,
        signal: Signal,
        received: int,
        reasons: list[str],
        redacted: int,
    ) -> ScrubbedSignal:
        """The request written back in `encoding`, with its counts: a unit the encoder refuses
        is held back too, and no longer counts among those redaction changed."""
        payload, unwritten = encode(request, encoding, signal)
        held = (*reasons, *unwritten)
        kept = received - len(held)
        return ScrubbedSignal(
            received, kept, len(held), held, min(redacted, kept), payload, self.report()
        )

    def changes(self) -> int:
        """How many changes so far: a unit changed when this grows while it is scrubbed."""
        return len(self.redactor.findings) + len(self._gate_findings)

    def report(self) -> RedactionReport:
        return RedactionReport(self.profile.name, (*self.redactor.findings, *self._gate_findings))

    def verdict(self) -> ShareVerdict:
        """The verdict of what was judged since the last call."""
        return self.assessor.take_verdict()

    def unreadable(self, exc: Exception) -> str:
        """The reason for a unit whose scrubbing raised (the judge starts afresh)."""
        self.assessor.take_verdict()
        return f"UNKNOWN (could not be redacted: {type(exc).__name__})"

    # Resources and scopes -------------------------------------------------------------------

    def container(self, holder: Any, part: str, path: str, *, force: bool) -> str | None:
        """Redact, in place, the resource or scope (`part`) of a container and the container's
        schema URL; the reason every unit under it is held back, or None. With `force`, values
        that stay unsafe become markers (`forced`); without it, a value nested too deep makes
        the part UNKNOWN."""
        message = getattr(holder, part)
        place = f"{path}/{part}"
        try:
            if force:
                attributes, verdict = self.forced(message.attributes, f"{place}/attributes")
                if not share_allowed(verdict):
                    return verdict_kind(verdict)
            else:
                values = proto_attributes(message.attributes)
                if holds_too_deep(values.values()):
                    return DEEP
                attributes = self.redactor.mapping(values, f"{place}/attributes", 0)
                self.assessor.mapping(attributes, f"{place}/attributes", 0)
            self._strings(message, place, judge=False)
            self._strings(message, place, judge=True)
            schema_url = self.redactor.value(holder.schema_url, f"{path}/schema_url", 0)
            self.assessor.value(schema_url, f"{path}/schema_url", 0)
            verdict = self.verdict()
            if not share_allowed(verdict):
                return verdict_kind(verdict)
            if holder.HasField(part):  # an absent resource or scope stays absent
                write_attributes(message.attributes, attributes)
            holder.schema_url = schema_url
        except Exception as exc:
            return self.unreadable(exc)
        return None

    def _strings(self, message: Message, path: str, *, judge: bool) -> None:
        """Redact in place (or judge) every string a message holds beside its attributes: a
        scope's name and version, a resource's entity references."""
        for field, value in message.ListFields():
            place = f"{path}/{field.name}"
            if field.name == "attributes":
                continue
            if field.message_type is not None:
                items = value if field.is_repeated else [value]
                for index, item in enumerate(items):
                    self._strings(item, f"{place}/{index}", judge=judge)
            elif field.type == field.TYPE_STRING and field.is_repeated:
                if judge:
                    self.assessor.value(list(value), place, 0)
                    continue
                redacted = [self.redactor.value(v, f"{place}/{i}", 0) for i, v in enumerate(value)]
                del value[:]
                value.extend(redacted)
            elif field.type == field.TYPE_STRING:
                if judge:
                    self.assessor.value(value, place, 0)
                else:
                    setattr(message, field.name, self.redactor.value(value, place, 0))

    # Attributes -----------------------------------------------------------------------------

    def forced(self, pairs: Any, path: str) -> tuple[dict[str, Any], ShareVerdict]:
        """A `KeyValue` list redacted so that it passes the share gate whatever its values
        held (the metrics way, where a data point is not dropped for its attributes): a value
        nested too deep, or still not share-safe once redacted, becomes a marker. Also the
        verdict of the result, which fails only when a key itself stays unsafe."""
        values = proto_attributes(pairs)
        for key, value in values.items():
            if holds_too_deep((value,)):
                values[key] = self._gate_marker(path, key, "raw-content", "depth-limit")
        redacted = self.redactor.mapping(values, path, 0)
        self.assessor.mapping(redacted, path, 0)
        verdict = self.verdict()
        if share_allowed(verdict):
            return redacted, verdict
        for key, value in redacted.items():
            self.assessor.mapping({key: value}, path, 0)
            alone = self.verdict()
            if not share_allowed(alone):
                category, detector = _first_error(alone)
                redacted[key] = self._gate_marker(path, key, category, detector)
        self.assessor.mapping(redacted, path, 0)
        return redacted, self.verdict()

    def _gate_marker(self, path: str, key: str, category: Category, detector: str) -> str:
        place = f"{path}/{pointer_segment(key)}"
        self._gate_findings.append(RedactionFinding(place, category, detector, "redacted"))
        return f"[REDACTED:{detector}]"


def _first_error(verdict: ShareVerdict) -> tuple[Category, str]:
    for finding in verdict.findings:
        if finding.severity == "error":
            return finding.category, finding.detector
    return "raw-content", "unreadable"


def write_attributes(target: Any, values: Mapping[str, Any]) -> None:
    """Replace a repeated `KeyValue` field's content with `values`."""
    del target[:]
    write_proto_attributes(target, values)
