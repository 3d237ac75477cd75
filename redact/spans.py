"""Redaction and share safety over the `Span` model: every string surface of a span (Part A2).

A span's name, attributes, status message, event names and attributes, link attributes, and its
resource and instrumentation-scope attributes are redacted and assessed; ids, times, kinds and
status codes never change. One call covers a whole batch: the strings of every span are scanned
in one pass, pseudonyms agree across the batch, and a resource shared by many spans is redacted
once. Paths start with `span:<span_id>`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from redact.core import KnownSecretsArg, redactor_for
from redact.inspector import Inspector, known_secrets_of
from redact.model import RedactionReport, ShareVerdict
from redact.profiles import Profile, resolve_profile
from redact.walk import Assessor, Redactor
from tracecheck.spans import Event, Link, Scope, Span

__all__ = ["SpanRedaction", "assess_spans", "redact_spans"]

# Attributes the hosted-ingest format keeps about the record a span was built from: not shared.
_SOURCE_RECORD = "traces.source_record."
_IO_CAP = 16 * 1024
_LEGACY_TRUNCATION = re.compile(r"\n\[truncated \d+ bytes(?:; sha256=[0-9a-f]*)?\]\Z")


@dataclass(frozen=True, slots=True)
class SpanRedaction:
    spans: tuple[Span, ...]
    report: RedactionReport


def redact_spans(
    spans: Iterable[Span],
    *,
    profile: str | Profile = "default",
    known_secrets: KnownSecretsArg = (),
    pseudonym_key: bytes | str | None = None,
    max_string_bytes: float | None = None,
) -> SpanRedaction:
    """New spans with every string surface redacted, and one report for the batch."""
    batch = list(spans)
    redactor = redactor_for(profile, known_secrets, pseudonym_key, max_string_bytes)
    redactor.inspector.prescan(_strings_of(batch))
    shared = _Shared(redactor)
    out = tuple(_redact_span(span, redactor, shared) for span in batch)
    return SpanRedaction(out, redactor.report())


def assess_spans(
    spans: Iterable[Span],
    *,
    profile: str | Profile = "default",
    known_secrets: KnownSecretsArg = (),
) -> ShareVerdict:
    """The share-safety verdict of a batch of spans, every string surface included."""
    batch = list(spans)
    inspector = Inspector(resolve_profile(profile), known_secrets_of(known_secrets))
    inspector.prescan(_strings_of(batch))
    assessor = Assessor(inspector)
    seen: set[Hashable] = set()
    for span in batch:
        root = _root(span)
        for mapping, where in ((span.resource, "resource"), (_scope_attributes(span), "scope")):
            if mapping and (where, _identity(mapping)) not in seen:
                seen.add((where, _identity(mapping)))
                assessor.mapping(mapping, f"{root}/{where}/attributes", 0)
        assessor.keyed("name", span.name, f"{root}/name", 0)
        assessor.mapping(_own_attributes(span), f"{root}/attributes", 0)
        if span.status_message:
            assessor.keyed("message", span.status_message, f"{root}/status/message", 0)
        for i, event in enumerate(span.events):
            assessor.keyed("name", event.name, f"{root}/events/{i}/name", 0)
            assessor.mapping(event.attributes, f"{root}/events/{i}/attributes", 0)
        for i, link in enumerate(span.links):
            assessor.mapping(link.attributes, f"{root}/links/{i}/attributes", 0)
    return assessor.verdict()


def _root(span: Span) -> str:
    return f"span:{span.span_id or 'unknown'}"


def _identity(attributes: Mapping[str, Any]) -> Hashable:
    """What makes two resources (or scopes) one: spans wrap a shared dict in their own read-only
    view, so the content decides, falling back to the object when a value is unhashable."""
    items = tuple(attributes.items())
    try:
        hash(items)
    except TypeError:
        return id(attributes)
    return items


def _scope_attributes(span: Span) -> Mapping[str, Any]:
    return span.scope.attributes if span.scope is not None else {}


def _own_attributes(span: Span) -> Mapping[str, Any]:
    """A span's attributes without those it only inherited from its resource or scope (the
    readers merge them in, as the same objects): those are redacted once, where they live."""
    if not span.resource and not _scope_attributes(span):
        return span.attributes
    inherited = {**span.resource, **_scope_attributes(span)}
    return {
        key: value
        for key, value in span.attributes.items()
        if not (key in inherited and inherited[key] is value)
    }


class _Shared:
    """Resource and scope attributes are shared by many spans and merged into each span's
    attributes by the readers: redact them once, and reuse the result for every span."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._done: dict[tuple[Hashable, ...], tuple[dict[str, Any], Any, Scope | None]] = {}

    def of(self, span: Span, root: str) -> tuple[dict[str, Any], Any, Scope | None]:
        scope = span.scope
        key = (
            _identity(span.resource),
            None if scope is None else (scope.name, scope.version),
            _identity(_scope_attributes(span)),
        )
        done = self._done.get(key)
        if done is None:
            resource = self.redactor.mapping(span.resource, f"{root}/resource/attributes", 0)
            if scope is not None and scope.attributes:
                attributes = self.redactor.mapping(scope.attributes, f"{root}/scope/attributes", 0)
                scope = Scope(scope.name, scope.version, attributes)
            inherited = {**resource, **(scope.attributes if scope is not None else {})}
            done = self._done[key] = (inherited, resource, scope)
        return done


def _redact_span(span: Span, redactor: Redactor, shared: _Shared) -> Span:
    root = _root(span)
    inherited, resource, scope = shared.of(span, root)
    own = {k: v for k, v in _own_attributes(span).items() if not k.startswith(_SOURCE_RECORD)}
    attributes = {**inherited, **redactor.mapping(own, f"{root}/attributes", 0)}
    _describe_tool_io(attributes)
    message = span.status_message
    if message:
        message = redactor.keyed("message", message, f"{root}/status/message", 0)
    events = tuple(
        Event(
            redactor.keyed("name", event.name, f"{root}/events/{i}/name", 0),
            event.time_ns,
            redactor.mapping(event.attributes, f"{root}/events/{i}/attributes", 0),
        )
        for i, event in enumerate(span.events)
    )
    links = tuple(
        Link(
            link.trace_id,
            link.span_id,
            redactor.mapping(link.attributes, f"{root}/links/{i}/attributes", 0),
        )
        for i, link in enumerate(span.links)
    )
    return span.replace(
        name=redactor.keyed("name", span.name, f"{root}/name", 0),
        attributes=attributes,
        status_message=message,
        events=events,
        links=links,
        resource=resource,
        scope=scope,
    )


def _describe_tool_io(attributes: dict[str, Any]) -> None:
    """Keep the hosted-ingest size/hash metadata of tool input and output true to the redacted
    value (§B14 step 3), so no digest of a removed secret survives. Only spans that carry that
    metadata are touched; OpenTelemetry spans without it keep their values whole."""
    for side in ("input", "output"):
        meta = [f"traces.{side}.{name}" for name in ("bytes", "sha256", "truncated")]
        if not any(key in attributes for key in meta):
            continue
        value = attributes.get(f"{side}.value")
        if not isinstance(value, str):
            for key in (f"{side}.mime_type", *meta):
                attributes.pop(key, None)
            continue
        value = _LEGACY_TRUNCATION.sub("\n[truncated]", value)
        data = value.encode("utf-8", "surrogatepass")
        truncated = len(data) > _IO_CAP
        if truncated:
            kept = data[:_IO_CAP].decode("utf-8", "ignore").encode("utf-8")
            value = f"{kept.decode()}\n[truncated {len(data) - len(kept)} bytes]"
        attributes[f"{side}.value"] = value
        if meta[0] in attributes:
            attributes[meta[0]] = len(value.encode("utf-8", "surrogatepass"))
        if meta[1] in attributes:
            attributes[meta[1]] = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
        if meta[2] in attributes:
            attributes[meta[2]] = truncated or attributes[meta[2]] is True


def _strings_of(spans: list[Span]) -> list[str]:
    """Every string a batch redaction will look at, keys included, for the one-pass prescan."""
    out: list[str] = []
    add = out.append
    resources: set[Hashable] = set()
    for span in spans:
        add(span.name)
        _collect(span.attributes, out)
        if span.status_message:
            add(span.status_message)
        for event in span.events:
            add(event.name)
            _collect(event.attributes, out)
        for link in span.links:
            _collect(link.attributes, out)
        if span.resource and _identity(span.resource) not in resources:
            resources.add(_identity(span.resource))
            _collect(span.resource, out)
        if span.scope is not None:
            _collect(span.scope.attributes, out)
    return out


def _collect(attributes: Mapping[str, Any], out: list[str]) -> None:
    # Keys are left out: they repeat, and the inspector judges each distinct key once.
    add = out.append
    for value in attributes.values():
        if value.__class__ is str:
            add(value)
        elif isinstance(value, Mapping | list | tuple):
            _collect_nested(value, out, set())


def _collect_nested(value: Any, out: list[str], seen: set[int]) -> None:
    # Strings missed here are scanned one by one later, so cycles need only stop the descent.
    if id(value) in seen:
        return
    seen.add(id(value))
    items = value.items() if isinstance(value, Mapping) else enumerate(value)
    for key, item in items:
        if isinstance(key, str):
            out.append(key)
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Mapping | list | tuple):
            _collect_nested(item, out, seen)
