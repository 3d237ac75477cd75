"""Scrubbing an OTLP metrics export request: the numbers pass through, the attributes do not.

A metric's value is not content, but its attributes may be (a user id, a prompt fragment, a
token an instrumentation put in a label). The attributes of every data point (gauge, sum,
histogram, exponential histogram, summary), the filtered attributes of its exemplars, the
metric's metadata, and the resource (attributes, entity references, schema URL) and scope
(name, version, attributes, schema URL) are redacted; a value that stays unsafe once redacted,
or nests deeper than `MAX_VALUE_DEPTH`, is replaced by a marker, so a data point is not lost
for its attributes. Values, times, ids and flags are left as they are. A metric's name,
description and unit are judged but never rewritten (a renamed metric would be another metric):
one that is not share-safe (a credential or an address written into it) holds the metric back
whole.

Only what no marker can fix holds data points back, each counted with its reason: a key that
stays unsafe, a part whose redaction raises, a metric that cannot be read or written.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from redact.core import KnownSecretsArg
from redact.held_back import verdict_kind
from redact.model import share_allowed
from redact.profiles import Profile
from redact.shipping.signals_core import ScrubbedSignal, Scrubber, write_attributes
from redact.shipping.signals_wire import (
    MALFORMED_ID,
    METRICS,
    SignalEncoding,
    data_points,
    decode,
    ids_malformed,
)
from tracecheck.readers.proto_attributes import proto_attributes

__all__ = ["scrub_metrics"]


def scrub_metrics(
    body: bytes,
    encoding: SignalEncoding,
    *,
    profile: str | Profile = "share",
    known_secrets: KnownSecretsArg = (),
    pseudonym_key: bytes | str | None = None,
    max_string_bytes: float | None = None,
) -> ScrubbedSignal:
    """Redact the attributes of every data point of an `ExportMetricsServiceRequest`
    (`encoding` "proto" or "json"); units are data points, `redacted` counts those whose
    attributes changed. Raises `TraceReadError` for a body that is not such a request."""
    decoded = decode(body, encoding, METRICS)
    request: Any = decoded.request
    scrubber = Scrubber(profile, known_secrets, pseudonym_key, max_string_bytes)
    scrubber.prescan(_values_of(request))
    reasons = list(decoded.left_out)
    received, redacted = len(reasons), 0
    for i, resource_metrics in enumerate(request.resource_metrics):
        resource = scrubber.container(resource_metrics, "resource", f"resource:{i}", force=True)
        for j, scope_metrics in enumerate(resource_metrics.scope_metrics):
            path = f"resource:{i}/{j}"
            # Under a resource held back, every metric goes: its scope needs no look.
            scope = resource or scrubber.container(scope_metrics, "scope", path, force=True)
            metrics = scope_metrics.metrics
            emptied: list[int] = []
            for k, metric in enumerate(metrics):
                root = f"metric:{i}/{j}/{k}"
                points = data_points(metric)
                count = len(points) if points is not None else 0
                received += count
                # A metric under a part held back goes whole, with or without data points.
                reason = resource or scope or _metadata(scrubber, metric, root)
                if reason is not None:
                    reasons += [reason] * count
                    emptied.append(k)
                    continue
                held: list[int] = []
                for p, point in enumerate(points if points is not None else ()):
                    before = scrubber.changes()
                    point_reason = _point(scrubber, point, f"{root}/{p}")
                    if point_reason is not None:
                        held.append(p)
                        reasons.append(point_reason)
                    elif scrubber.changes() > before:
                        redacted += 1
                for p in reversed(held):
                    del points[p]
                if held and not len(points):
                    emptied.append(k)
            for k in reversed(emptied):
                del metrics[k]
    return scrubber.finish(request, encoding, METRICS, received, reasons, redacted)


def _metadata(scrubber: Scrubber, metric: Any, root: str) -> str | None:
    try:
        for field in _DESCRIBED:
            scrubber.assessor.value(getattr(metric, field), f"{root}/{field}", 0)
        verdict = scrubber.verdict()
        if not share_allowed(verdict):
            return verdict_kind(verdict)
        values, verdict = scrubber.forced(metric.metadata, f"{root}/metadata")
        if not share_allowed(verdict):
            return verdict_kind(verdict)
        write_attributes(metric.metadata, values)
    except Exception as exc:
        return scrubber.unreadable(exc)
    return None


_DESCRIBED = ("name", "description", "unit")


def _point(scrubber: Scrubber, point: Any, root: str) -> str | None:
    """Redact one data point's attributes and its exemplars' in place; the reason it is held
    back, or None."""
    if any(ids_malformed(exemplar) for exemplar in _exemplars(point)):
        return MALFORMED_ID
    try:
        attributes, verdict = scrubber.forced(point.attributes, f"{root}/attributes")
        if not share_allowed(verdict):
            return verdict_kind(verdict)
        exemplars = []
        for e, exemplar in enumerate(_exemplars(point)):
            place = f"{root}/exemplars/{e}/filtered_attributes"
            values, verdict = scrubber.forced(exemplar.filtered_attributes, place)
            if not share_allowed(verdict):
                return verdict_kind(verdict)
            exemplars.append(values)
        write_attributes(point.attributes, attributes)
        for exemplar, values in zip(_exemplars(point), exemplars, strict=True):
            write_attributes(exemplar.filtered_attributes, values)
    except Exception as exc:
        return scrubber.unreadable(exc)
    return None


def _exemplars(point: Any) -> Any:
    # Summary data points have none.
    return point.exemplars if "exemplars" in point.DESCRIPTOR.fields_by_name else ()


def _values_of(request: Any) -> Iterator[Any]:
    """Every value of the request redaction looks at, for the one-pass prescan."""
    for resource_metrics in request.resource_metrics:
        yield proto_attributes(resource_metrics.resource.attributes)
        for scope_metrics in resource_metrics.scope_metrics:
            yield scope_metrics.scope.name
            yield proto_attributes(scope_metrics.scope.attributes)
            for metric in scope_metrics.metrics:
                yield [getattr(metric, field) for field in _DESCRIBED]
                yield proto_attributes(metric.metadata)
                for point in data_points(metric) or ():
                    yield proto_attributes(point.attributes)
                    for exemplar in _exemplars(point):
                        yield proto_attributes(exemplar.filtered_attributes)
