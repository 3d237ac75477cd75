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
from types import MappingProxyType
from typing import Any

from redact.core import KnownSecretsArg, assessor_for, inspector_for, redactor_for
from redact.inspector import Inspector
from redact.model import RedactionFinding, RedactionReport, ShareVerdict, share_allowed
from redact.modes import SUMMARY_COUNT, SUMMARY_PATHS, Modes, compiled
from redact.profiles import Profile
from redact.walk import Assessor, Redactor
from tracecheck.spans import Event, Link, Scope, Span

__all__ = [
    "DroppedSpan",
    "ScrubbedSpans",
    "SpanAssessor",
    "SpanRedaction",
    "SpanRedactor",
    "assess_spans",
    "redact_spans",
    "scrub_spans",
]

# Attributes the hosted-ingest format keeps about the record a span was built from: not shared.
_SOURCE_RECORD = "traces.source_record."
_IO_CAP = 16 * 1024
_IO_META = tuple(
    (side, tuple(f"traces.{side}.{name}" for name in ("bytes", "sha256", "truncated")))
    for side in ("input", "output")
)
_IO_META_KEYS = frozenset(key for _, keys in _IO_META for key in keys)
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
    redactor = SpanRedactor(
        profile=profile,
        known_secrets=known_secrets,
        pseudonym_key=pseudonym_key,
        max_string_bytes=max_string_bytes,
    )
    return SpanRedaction(redactor.redact(spans), redactor.report())


class SpanRedactor:
    """Redaction of spans that arrive batch by batch (a file read record by record), with one
    state for all of them: pseudonyms agree across batches, a resource that spans of several
    batches share is redacted once, and one report covers every batch. Each batch is
    prescanned on its own, so memory follows the batch. `redact_spans` is one batch."""

    def __init__(
        self,
        *,
        profile: str | Profile = "default",
        known_secrets: KnownSecretsArg = (),
        pseudonym_key: bytes | str | None = None,
        max_string_bytes: float | None = None,
    ) -> None:
        self._redactor = redactor_for(profile, known_secrets, pseudonym_key, max_string_bytes)
        self._redactor.dropped_prefixes = (_SOURCE_RECORD,)
        self._groups = _Groups()

    def redact(self, spans: Iterable[Span]) -> tuple[Span, ...]:
        """The batch's spans redacted, in order."""
        batch = list(spans)
        self._redactor.inspector.prescan(*_strings_of(batch))
        return tuple(_redact_span(span, self._redactor, self._groups) for span in batch)

    def report(self) -> RedactionReport:
        """What was changed in every batch so far."""
        return self._redactor.report()


class SpanAssessor:
    """The share-safety verdict of spans that arrive batch by batch, as `assess_spans` gives
    it for all of them at once (a resource shared across batches is judged once)."""

    def __init__(
        self, *, profile: str | Profile = "default", known_secrets: KnownSecretsArg = ()
    ) -> None:
        self._assessor = assessor_for(inspector_for(profile, known_secrets))
        self._groups = _Groups()
        self._prescans = True

    @classmethod
    def following(cls, redactor: SpanRedactor) -> SpanAssessor:
        """An assessor of what `redactor` writes, each batch judged right after it was
        redacted, with the redaction's prescan instead of one of its own (as `scrub_spans`
        judges its output): what redaction left alone is the same strings, and what it wrote
        is judged string by string. What a prescan concludes holds for each string whatever
        batch it came with, so a batch judged at another time is judged the same, only
        slower."""
        assessor = cls.__new__(cls)
        assessor._assessor = assessor_for(redactor._redactor.inspector)
        assessor._groups = _Groups()
        assessor._prescans = False
        return assessor

    def assess(self, spans: Iterable[Span]) -> None:
        batch = list(spans)
        if self._prescans:
            self._assessor.inspector.prescan(*_strings_of(batch))
        for span in batch:
            _assess_span(span, self._assessor, self._groups)

    def verdict(self) -> ShareVerdict:
        """The verdict of every batch so far."""
        return self._assessor.verdict()


def _redact_batch(batch: list[Span], redactor: Redactor) -> tuple[SpanRedaction, Inspector]:
    redactor.inspector.prescan(*_strings_of(batch))
    redactor.dropped_prefixes = (_SOURCE_RECORD,)
    groups = _Groups()
    out = tuple(_redact_span(span, redactor, groups) for span in batch)
    return SpanRedaction(out, redactor.report()), redactor.inspector


def assess_spans(
    spans: Iterable[Span],
    *,
    profile: str | Profile = "default",
    known_secrets: KnownSecretsArg = (),
) -> ShareVerdict:
    """The share-safety verdict of a batch of spans, every string surface included."""
    assessor = SpanAssessor(profile=profile, known_secrets=known_secrets)
    assessor.assess(spans)
    return assessor.verdict()


@dataclass(frozen=True, slots=True)
class DroppedSpan:
    """A span held back by the share-safety gate: its identity and why, never its content."""

    trace_id: str | None
    span_id: str | None
    verdict: ShareVerdict


@dataclass(frozen=True, slots=True)
class ScrubbedSpans:
    """What may leave (redacted spans whose own verdict is share-safe), what may not, and the
    report of what redaction changed."""

    kept: tuple[Span, ...]
    dropped: tuple[DroppedSpan, ...]
    report: RedactionReport


def scrub_spans(
    spans: Iterable[Span],
    *,
    profile: str | Profile = "share",
    known_secrets: KnownSecretsArg = (),
    pseudonym_key: bytes | str | None = None,
    max_string_bytes: float | None = None,
) -> ScrubbedSpans:
    """Redact a batch, then gate each redacted span on its own verdict: the step every path
    that ships spans runs. A span that is still UNSAFE or UNKNOWN is dropped, never sent."""
    redactor = redactor_for(profile, known_secrets, pseudonym_key, max_string_bytes)
    redaction, inspector = _redact_batch(list(spans), redactor)
    # The redaction's prescan still holds for the output: what redaction left alone is the
    # same strings, and what it wrote is judged string by string.
    assessor = assessor_for(inspector)
    # Redacted spans nearly always pass: one look at the whole batch settles that, and only a
    # batch that fails is judged span by span to find the spans to hold back.
    groups = _Groups()
    for span in redaction.spans:
        _assess_span(span, assessor, groups)
    if share_allowed(assessor.take_verdict()):
        return ScrubbedSpans(redaction.spans, (), redaction.report)
    groups = _Groups()
    kept: list[Span] = []
    dropped: list[DroppedSpan] = []
    for span in redaction.spans:
        # Every span is judged whole, resource and scope included, so none rides on another.
        _assess_span(span, assessor, groups, always_shared=True)
        verdict = assessor.take_verdict()
        if share_allowed(verdict):
            kept.append(span)
        else:
            dropped.append(DroppedSpan(span.trace_id, span.span_id, verdict))
    return ScrubbedSpans(tuple(kept), tuple(dropped), redaction.report)


def _assess_span(
    span: Span, assessor: Assessor, groups: _Groups, *, always_shared: bool = False
) -> None:
    root = _root(span)
    group, first = groups.of(span)
    if first or always_shared:
        assessor.mapping(span.resource, f"{root}/resource/attributes", 0)
        assessor.mapping(_scope_attributes(span), f"{root}/scope/attributes", 0)
        if span.scope is not None:
            assessor.keyed("name", span.scope.name, f"{root}/scope/name", 0)
            assessor.keyed("version", span.scope.version, f"{root}/scope/version", 0)
    assessor.keyed("name", span.name, f"{root}/name", 0)
    # Most spans' attributes (inherited ones included) hold nothing: settle that without
    # separating the inherited ones first.
    if not assessor.quiet(span.attributes):
        assessor.mapping(group.own(span), f"{root}/attributes", 0)
    if span.status_message:
        assessor.keyed("message", span.status_message, f"{root}/status/message", 0)
    for i, event in enumerate(span.events):
        assessor.keyed("name", event.name, f"{root}/events/{i}/name", 0)
        assessor.mapping(event.attributes, f"{root}/events/{i}/attributes", 0)
    for i, link in enumerate(span.links):
        assessor.mapping(link.attributes, f"{root}/links/{i}/attributes", 0)


def _root(span: Span) -> str:
    return f"span:{span.span_id or 'unknown'}"


def _identity(attributes: Mapping[str, Any]) -> Hashable:
    """What makes two resources (or scopes) one: spans wrap a shared dict in their own read-only
    view (and readers copy array values per span), so the content decides, values of the same
    class: `1` and `True`, `4000000000000005120` and `4.000000000000005e+18` are equal in
    Python, and only one of such a pair may be a card number."""
    return tuple((key, _frozen(value)) for key, value in attributes.items())


def _frozen(value: Any) -> Hashable:
    if isinstance(value, Mapping):
        return ("{}", tuple((key, _frozen(item)) for key, item in value.items()))
    if isinstance(value, list | tuple):
        return ("[]", tuple(_frozen(item) for item in value))
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    if value.__class__ is float:
        return (float, repr(value))  # -0.0 == 0.0, and nan != nan
    return (value.__class__, value)


# Classes whose values are told apart by `==` and their class (not floats: -0.0 == 0.0).
_FLAT = frozenset({str, int, bool, type(None)})


def _same_mapping(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """`_identity(a) == _identity(b)`, settled in C for the usual flat mapping."""
    if a is b:
        return True
    if a != b:
        return False
    kinds = tuple(map(type, a.values()))
    if kinds != tuple(map(type, b.values())):
        return False
    return _FLAT.issuperset(kinds) or _identity(a) == _identity(b)


def _same_scope(a: Scope | None, b: Scope | None) -> bool:
    if a is b:
        return True
    if a is None or b is None or (a.name, a.version) != (b.name, b.version):
        return False
    return (not a.attributes and not b.attributes) or _same_mapping(a.attributes, b.attributes)


def _scope_attributes(span: Span) -> Mapping[str, Any]:
    return _scope_attributes_of(span.scope)


def _scope_attributes_of(scope: Scope | None) -> Mapping[str, Any]:
    return scope.attributes if scope is not None else {}


class _Group:
    """The resource and scope a set of spans shares, and what they inherit from them."""

    __slots__ = ("inherited", "replacements", "resource", "scope", "unchanged")

    def __init__(self, span: Span) -> None:
        self.resource: Mapping[str, Any] = span.resource
        self.scope = span.scope
        # The readers merge these into every span's attributes, as the same objects.
        self.inherited: dict[str, Any] = {**span.resource, **_scope_attributes(span)}
        # Inherited key → (key, value) redacted; None until the group's first span is redacted.
        self.replacements: dict[str, tuple[str, Any]] | None = None
        self.unchanged = False

    def own(self, span: Span) -> Mapping[str, Any]:
        """The span's attributes without those it only inherited from its resource or scope."""
        inherited = self.inherited
        if not inherited:
            return span.attributes
        own = _copy(span.attributes)
        for key, found in inherited.items():
            if _same(found, own.get(key, _ABSENT)):
                del own[key]
        return own

    def redact(self, redactor: Redactor, root: str) -> None:
        """Redact the resource and scope once, for every span of the group."""
        if self.replacements is not None:
            return
        raw_resource, raw_scope = self.resource, _scope_attributes_of(self.scope)
        self.resource = redactor.mapping(raw_resource, f"{root}/resource/attributes", 0)
        replacements = _replacements(raw_resource, self.resource, redactor)
        scope = self.scope
        if scope is not None:
            # A tracer's name and version are strings an application chose, like any other.
            name = redactor.keyed("name", scope.name, f"{root}/scope/name", 0)
            version = redactor.keyed("version", scope.version, f"{root}/scope/version", 0)
            attributes = scope.attributes
            if attributes:
                attributes = redactor.mapping(attributes, f"{root}/scope/attributes", 0)
                replacements.update(_replacements(raw_scope, attributes, redactor))
            if (name, version) != (scope.name, scope.version) or attributes is not scope.attributes:
                self.scope = Scope(name, version, attributes)
        self.replacements = replacements
        self.unchanged = self.scope is scope and all(
            pair == (k, self.inherited[k]) for k, pair in replacements.items()
        )

    def attributes(self, span: Span, redactor: Redactor, root: str) -> dict[str, Any]:
        """The span's redacted attributes: inherited ones as redacted once for the group, its
        own ones redacted here, in the order the span holds them (inherited first)."""
        inherited, replacements = self.inherited, self.replacements or {}
        out: dict[str, Any] = {}
        own: dict[str, Any] = {}
        for key, value in span.attributes.items():
            if _inherited(inherited, key, value):
                pair = replacements.get(key)
                if pair is not None:
                    out[pair[0]] = pair[1]
            else:
                own[key] = value
        out.update(redactor.mapping(own, f"{root}/attributes", 0))
        return out


def _replacements(
    raw: Mapping[str, Any], redacted: dict[str, Any], redactor: Redactor
) -> dict[str, tuple[str, Any]]:
    """Which redacted item each raw key became (`Redactor.mapping` keeps order, one item per
    key, and leaves out only keys with a dropped prefix)."""
    dropped = redactor.dropped_prefixes
    kept = [k for k in raw if not (dropped and str(k).startswith(dropped))]
    return dict(zip(kept, redacted.items(), strict=True))


_ABSENT: Any = object()


def _copy(attributes: Mapping[str, Any]) -> dict[str, Any]:
    # A read-only view copies as its dict does, in C; `dict(view)` goes key by key.
    if isinstance(attributes, MappingProxyType | dict):
        return attributes.copy()
    return dict(attributes)


def _inherited(inherited: dict[str, Any], key: str, value: Any) -> bool:
    """Whether a span holds this attribute only because its resource or scope does."""
    return _same(inherited.get(key, _ABSENT), value)


def _same(found: Any, value: Any) -> bool:
    """One value as `_identity` counts them: readers copy arrays per span, and spans of a
    resource read from several records of a file hold equal copies of its values."""
    if found is value:
        return True
    kind = found.__class__
    if kind is not value.__class__:
        return False
    return found == value if kind in _FLAT else _frozen(found) == _frozen(value)


class _Groups:
    def __init__(self) -> None:
        self._groups: dict[tuple[Hashable, ...], _Group] = {}
        # The last span's resource, its scope, and their group.
        self._last: tuple[Mapping[str, Any], Scope | None, _Group] | None = None

    def of(self, span: Span) -> tuple[_Group, bool]:
        """The span's group, and whether this span is the first of it."""
        resource, scope = span.resource, span.scope
        last = self._last
        # Spans of one resource and scope come together, most sharing its very objects:
        # comparing with the last span's spares building the group's key for nearly every span.
        if last is not None and resource is last[0] and scope is last[1]:
            return last[2], False
        if last is not None and _same_mapping(resource, last[0]) and _same_scope(scope, last[1]):
            group, first = last[2], False
        else:
            group, first = self._of(span)
        self._last = (resource, scope, group)
        return group, first

    def _of(self, span: Span) -> tuple[_Group, bool]:
        scope = span.scope
        key = (
            _identity(span.resource),
            None if scope is None else (scope.name, scope.version),
            _identity(_scope_attributes(span)),
        )
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = _Group(span)
            return group, True
        return group, False


def _untouched(span: Span, redactor: Redactor, group: _Group) -> bool:
    """Whether redaction leaves this span as it is: most spans of a run hold nothing to remove,
    and the prescan already knows it, so they are shared rather than copied."""
    return (
        group.unchanged
        and span.attributes.keys().isdisjoint(_IO_META_KEYS)
        and redactor.untouched_string("name", span.name)
        and redactor.untouched_string("message", span.status_message)
        and redactor.untouched(span.attributes)
        and all(
            redactor.untouched_string("name", event.name) and redactor.untouched(event.attributes)
            for event in span.events
        )
        and all(redactor.untouched(link.attributes) for link in span.links)
    )


def _redact_span(span: Span, redactor: Redactor, groups: _Groups) -> Span:
    modes = redactor.profile.modes
    if modes is None or modes.summary == "none":
        return _redacted_span(span, redactor, groups)
    first = len(redactor.findings)
    out = _redacted_span(span, redactor, groups)
    return _summarised(out, redactor.findings[first:], modes)


def _summarised(span: Span, findings: list[RedactionFinding], modes: Modes) -> Span:
    """The span with what redaction changed in it written as two attributes (the profile's
    `summary`): `tracecheck.redacted.count`, the values changed, and with `paths`,
    `tracecheck.redacted.paths`, where (JSON Pointers within the span, to an attribute at
    most), never what. A span already summarised (redacted before) adds to its summary, so a
    second redaction that changes nothing leaves it as it is. The resource and the scope,
    which many spans share, are not counted in any span."""
    root = _root(span) + "/"
    applied = compiled(modes)
    places: list[str] = []
    for finding in findings:
        if not finding.path.startswith(root):
            continue
        place = _place(finding.path[len(root) - 1 :])
        if place is not None:
            # Key names are no values, but the summary is one: what a blocked pattern finds in
            # it is cut now, as a second redaction would.
            places.append(applied.cut_blocked(place) if applied.blocks else place)
    if not places:
        return span
    attributes = dict(span.attributes)
    count = attributes.get(SUMMARY_COUNT)
    before = count if count.__class__ is int else 0
    attributes[SUMMARY_COUNT] = before + len(places)
    if modes.summary == "paths":
        earlier = attributes.get(SUMMARY_PATHS)
        known = (
            [p for p in earlier if isinstance(p, str)] if isinstance(earlier, list | tuple) else []
        )
        attributes[SUMMARY_PATHS] = sorted({*known, *places})
    return span.replace(attributes=attributes)


def _place(path: str) -> str | None:
    """Where in a span a finding is, to the attribute that holds it (`/attributes/db.statement`,
    `/events/0/attributes/x`, `/name`, `/status/message`); None for the resource and scope."""
    parts = path.split("/")
    if len(parts) < 2 or parts[1] in ("resource", "scope"):
        return None
    if "attributes" in parts:
        at = parts.index("attributes")
        return "/".join(parts[: at + 2])
    return "/".join(parts[:4] if parts[1] in ("events", "links") else parts[:3])


def _redacted_span(span: Span, redactor: Redactor, groups: _Groups) -> Span:
    root = _root(span)
    group, _ = groups.of(span)
    group.redact(redactor, root)
    if _untouched(span, redactor, group):
        return span
    attributes = group.attributes(span, redactor, root)
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
        resource=group.resource,
        scope=group.scope,
    )


def _describe_tool_io(attributes: dict[str, Any]) -> None:
    """Keep the hosted-ingest size/hash metadata of tool input and output true to the redacted
    value (§B14 step 3), so no digest of a removed secret survives. Only spans that carry that
    metadata are touched; OpenTelemetry spans without it keep their values whole."""
    for side, meta in _IO_META:
        if meta[0] not in attributes and meta[1] not in attributes and meta[2] not in attributes:
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


def _strings_of(spans: list[Span]) -> tuple[list[str], list[Any]]:
    """The strings a batch redaction will look at (keys aside), for the one-pass prescan, and
    the scalar values beside them."""
    out: list[str] = []
    scalars: list[Any] = []
    add = out.append
    groups = _Groups()
    for span in spans:
        add(span.name)
        _collect(span.attributes, out, scalars)
        if span.status_message:
            add(span.status_message)
        for event in span.events:
            add(event.name)
            _collect(event.attributes, out, scalars)
        for link in span.links:
            _collect(link.attributes, out, scalars)
        # A resource and scope that many spans share are collected once.
        if groups.of(span)[1]:
            _collect(span.resource, out, scalars)
            if span.scope is not None:
                add(span.scope.name)
                add(span.scope.version)
                _collect(span.scope.attributes, out, scalars)
    return out, scalars


def _collect(attributes: Mapping[str, Any], out: list[str], scalars: list[Any]) -> None:
    # Keys are left out: they repeat, and the inspector judges each distinct key once.
    add = out.append
    for value in attributes.values():
        kind = value.__class__
        if kind is str:
            add(value)
        elif kind is int or kind is float or kind is bool:
            scalars.append(value)
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
