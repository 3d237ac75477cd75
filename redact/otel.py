"""The OpenTelemetry SDK hook: a `SpanExporter` that redacts spans before another one sends them.

```python
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from redact.otel import RedactingSpanExporter

exporter = RedactingSpanExporter(OTLPSpanExporter(), known_secrets=[os.environ["API_KEY"]])
provider.add_span_processor(BatchSpanProcessor(exporter))
```

Each batch is read into tracecheck spans, redacted and gated span by span by
`redact.scrub_spans` (every string surface: name, attributes, status message, events, links,
resource, instrumentation scope: attributes, name and version), rebuilt as new SDK
`ReadableSpan`s with the same ids, parent, kind, times and status code, and handed to the
wrapped exporter. A span whose redacted form is still UNSAFE or UNKNOWN is dropped, never sent;
so is a span whose values nest deeper than readers hold, or whose redaction fails, alone
(`redact.isolated`): the rest of its batch is sent. A schema URL that holds anything a detector
finds is left out. Nothing raises into the application: a batch whose conversion fails is
dropped whole (fail closed) and FAILURE is returned. Every span offered is counted once, as
exported or as the reason it was not delivered (`RedactingSpanExporter.counters`).

Span attributes are frozen when a span ends, so redaction lives here and not in a
`SpanProcessor.on_end`. The OpenTelemetry SDK is the optional `otel` extra; importing `redact`
does not need it, importing this module does.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

try:
    from opentelemetry.attributes import BoundedAttributes
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import Event as SdkEvent
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
    from opentelemetry.sdk.util import BoundedList
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import Link as SdkLink
    from opentelemetry.trace import Status, StatusCode
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "redact.otel needs the OpenTelemetry SDK: pip install 'agent-tracecheck[otel]'"
    ) from exc

from redact.core import assess
from redact.held_back import reasons
from redact.inspector import known_secrets_of
from redact.isolated import Scrub, ScrubFailed, scrub_batch
from redact.known import KnownSecrets
from redact.model import ShareStatus, ShareVerdict
from redact.profiles import Profile, profile_named
from redact.secrets_config import SecretsConfigError, load_pseudonym_key
from redact.spans import DroppedSpan, scrub_spans
from tracecheck.readers.otel_sdk import spans_from_otel
from tracecheck.spans import Span

__all__ = ["RedactingSpanExporter"]

logger = logging.getLogger("redact.otel")

_MIN_KEY_BYTES = 16
_FURTHER = "further drops of this kind are counted, not logged"
_COUNTERS = (
    "received",
    "exported",
    "redacted_values",
    "dropped_unsafe",
    "dropped_errors",
    "export_failed",
    "dropped_after_shutdown",
)


class RedactingSpanExporter(SpanExporter):
    """Wraps any `SpanExporter` (OTLP, console, file, in-memory) so that only redacted,
    share-safe copies of spans reach it.

    - `profile`: a redaction profile name (`default`, `share`, `strict`), a `Profile`, or a
      profile file (`acme.yaml`: `redact.load_profile`), whose modes (allow-list, allowed and
      blocked values, hash, per-span summary, URL and SQL sanitizers) apply here as everywhere.
    - `known_secrets`: exact secrets removed in any encoding: an iterable of strings or a
      prebuilt `redact.KnownSecrets`. Built once here, so a bad secret raises now.
    - `pseudonym_key`: the key that turns user ids into pseudonyms. By default it is read from
      `$TRACECHECK_PSEUDONYM_KEY`, so one id maps to one pseudonym across processes; without
      it, one random key is drawn per exporter, so pseudonyms agree across the batches of this
      exporter (this process) but cannot be linked to those of another process.
    - `max_string_bytes`: a cap on each string, over the profile's own.

    Counters (thread-safe, read at any time): `received` (spans offered to `export`),
    `exported` (spans the inner exporter accepted), `redacted_values` (values redacted,
    pseudonymised or truncated), and one for each way a span is not delivered:
    `dropped_unsafe` (held back by the share-safety gate), `dropped_errors` (lost because
    conversion or redaction failed, so never handed on), `export_failed` (handed to the inner
    exporter, which returned FAILURE or raised) and `dropped_after_shutdown` (offered after
    `shutdown`). Every span received is counted in exactly one of `exported` and those four.
    Each kind of drop is logged once, at WARNING, to the `redact.otel` logger, with counts and
    reasons, never a value.
    """

    def __init__(
        self,
        inner: SpanExporter,
        *,
        profile: str | Path | Profile = "share",
        known_secrets: Iterable[str] | KnownSecrets = (),
        pseudonym_key: bytes | str | None = None,
        max_string_bytes: float | None = None,
        scrub: Scrub = scrub_spans,
    ) -> None:
        """`scrub` redacts and gates a batch (`scrub_spans`' signature); tests give their own."""
        if isinstance(known_secrets, str | bytes):
            raise TypeError(
                "known_secrets takes an iterable of strings or a KnownSecrets, "
                "not a single string: pass [secret]"
            )
        self._inner = inner
        self._profile = profile_named(profile)
        self._known = known_secrets_of(known_secrets)
        self._pseudonym_key = _pseudonym_key(pseudonym_key)
        self._max_string_bytes = max_string_bytes
        self._scrub_spans = scrub
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(_COUNTERS, 0)
        self._logged: set[str] = set()
        self._shut_down = False

    @property
    def inner(self) -> SpanExporter:
        """The wrapped exporter."""
        return self._inner

    @property
    def received(self) -> int:
        return self._count("received")

    @property
    def exported(self) -> int:
        return self._count("exported")

    @property
    def redacted_values(self) -> int:
        return self._count("redacted_values")

    @property
    def dropped_unsafe(self) -> int:
        return self._count("dropped_unsafe")

    @property
    def dropped_errors(self) -> int:
        return self._count("dropped_errors")

    @property
    def export_failed(self) -> int:
        return self._count("export_failed")

    @property
    def dropped_after_shutdown(self) -> int:
        return self._count("dropped_after_shutdown")

    @property
    def counters(self) -> dict[str, int]:
        """One consistent snapshot of every counter."""
        with self._lock:
            return dict(self._counts)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Redact `spans`, drop those that are not share-safe, export the rest through the
        inner exporter and return its result (SUCCESS when nothing was left to export)."""
        try:
            batch = list(spans)
        except Exception:  # never raise into the application
            return SpanExportResult.FAILURE
        self._add("received", len(batch))
        if self._shut_down:
            if batch:
                self._add("dropped_after_shutdown", len(batch))
                self._warn_once(
                    "after-shutdown",
                    f"dropped a batch of {_spans(len(batch))} offered after shutdown; {_FURTHER}",
                )
            return SpanExportResult.FAILURE
        if not batch:
            return SpanExportResult.SUCCESS
        try:
            redacted = self._redact(batch)
        except Exception as exc:  # never raise into the application; never send raw
            count = len(batch)
            self._add("dropped_errors", count)
            error = exc.error if isinstance(exc, ScrubFailed) else type(exc).__name__
            self._warn_once(
                "redaction-error",
                f"dropped a batch of {_spans(count)}: redaction failed ({error}), "
                f"so nothing of it was sent; {_FURTHER}",
            )
            return SpanExportResult.FAILURE
        if not redacted:
            return SpanExportResult.SUCCESS
        try:
            result = self._inner.export(redacted)
        except Exception as exc:
            self._add("export_failed", len(redacted))
            self._warn_once(
                "inner-error",
                f"dropped a batch of {_spans(len(redacted))}: the inner exporter "
                f"{type(self._inner).__name__} raised {type(exc).__name__}; {_FURTHER}",
            )
            return SpanExportResult.FAILURE
        if result is SpanExportResult.SUCCESS:
            self._add("exported", len(redacted))
        else:
            self._add("export_failed", len(redacted))
            self._warn_once(
                "inner-failure",
                f"dropped a batch of {_spans(len(redacted))}: the inner exporter "
                f"{type(self._inner).__name__} reported {_result(result)}; {_FURTHER}",
            )
        return result

    def shutdown(self) -> None:
        """Shut the inner exporter down; later exports return FAILURE."""
        self._shut_down = True
        try:
            self._inner.shutdown()
        except Exception as exc:
            logger.warning(
                "the inner exporter %s raised %s on shutdown",
                type(self._inner).__name__,
                type(exc).__name__,
            )

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Flush the inner exporter; this one holds nothing back."""
        try:
            return bool(self._inner.force_flush(timeout_millis))
        except Exception as exc:
            logger.warning(
                "the inner exporter %s raised %s on force_flush",
                type(self._inner).__name__,
                type(exc).__name__,
            )
            return False

    # The batch ----------------------------------------------------------------------------

    def _redact(self, batch: list[ReadableSpan]) -> list[ReadableSpan]:
        isolated = scrub_batch(
            spans_from_otel(batch),
            profile=self._profile,
            known_secrets=self._known,
            pseudonym_key=self._pseudonym_key,
            max_string_bytes=self._max_string_bytes,
            scrub=self._scrub_spans,
        )
        failed = isolated.failed
        if failed and len(failed) == len(batch):  # nothing could be redacted: the batch fails
            raise ScrubFailed(failed[0].error)
        scrubbed = isolated.scrubbed
        rebuild = _Rebuild(self._schema_url)
        # Kept spans come in input order; their ids find the SDK span each was read from.
        originals: dict[tuple[str | None, str | None], deque[ReadableSpan]] = {}
        for original, read in zip(batch, _identities(batch), strict=True):
            originals.setdefault(read, deque()).append(original)
        out: list[ReadableSpan] = []
        for span in scrubbed.kept:
            queue = originals[(span.trace_id, span.span_id)]
            # Ids repeat only in a malformed batch; then the frame may be another span's of
            # the same id, and the redacted content is share-safe whichever it is.
            original = queue.popleft() if len(queue) > 1 else queue[0]
            out.append(rebuild.span(original, span))
        # Counted once the batch is rebuilt: a failure before this counts the whole batch.
        if failed:
            self._add("dropped_errors", len(failed))
            self._warn_once(
                "redaction-error-span",
                f"dropped {_spans(len(failed))} whose redaction failed ({failed[0].error}); the "
                f"rest of the batch was sent; {_FURTHER}",
            )
        self._add("redacted_values", len(scrubbed.report.findings))
        if scrubbed.dropped:
            self._add("dropped_unsafe", len(scrubbed.dropped))
            self._log_dropped(scrubbed.dropped)
        return out

    def _log_dropped(self, dropped: Sequence[DroppedSpan]) -> None:
        for status in (ShareStatus.UNSAFE, ShareStatus.UNKNOWN):
            verdicts = [d.verdict for d in dropped if d.verdict.status is status]
            if verdicts:
                self._warn_once(
                    f"gate-{status.value}",
                    f"dropped {_spans(len(verdicts))} whose redacted form is {status.value} "
                    f"({_reasons(verdicts)}); {_FURTHER}",
                )

    def _schema_url(self, url: str) -> str:
        """The schema URL, or "" when it holds anything a detector finds (it is no content a
        trace needs, so it is left out rather than redacted)."""
        if not url:
            return url
        verdict = assess(url, profile=self._profile, known_secrets=self._known)
        return url if not verdict.findings and not verdict.unreadable else ""

    # Counters and logging -----------------------------------------------------------------

    def _count(self, name: str) -> int:
        with self._lock:
            return self._counts[name]

    def _add(self, name: str, count: int) -> None:
        with self._lock:
            self._counts[name] += count

    def _warn_once(self, kind: str, message: str) -> None:
        with self._lock:
            if kind in self._logged:
                return
            self._logged.add(kind)
        logger.warning("%s", message)


def _pseudonym_key(key: bytes | str | None) -> bytes:
    if key is None:
        key = load_pseudonym_key()
        if key is None:
            return secrets.token_bytes(32)
    data = key.encode("utf-8") if isinstance(key, str) else bytes(key)
    if len(data) < _MIN_KEY_BYTES:
        raise SecretsConfigError(
            f"pseudonym_key: a pseudonym key needs at least {_MIN_KEY_BYTES} bytes"
        )
    return data


def _identities(batch: list[ReadableSpan]) -> list[tuple[str | None, str | None]]:
    """(trace id, span id) of each SDK span, spelled as the reader spells them."""
    out: list[tuple[str | None, str | None]] = []
    for span in batch:
        context = span.context
        if context is None:
            out.append((None, None))
        else:
            out.append((_hex(context.trace_id, 32), _hex(context.span_id, 16)))
    return out


def _hex(value: int, width: int) -> str | None:
    return format(value, f"0{width}x") if value else None


def _result(result: object) -> str:
    name = getattr(result, "name", None)
    return name if isinstance(name, str) else type(result).__name__


def _spans(count: int) -> str:
    return f"{count} span" if count == 1 else f"{count} spans"


def _reasons(verdicts: Iterable[ShareVerdict]) -> str:
    return ", ".join(reasons(verdicts)) or "no reason given"


# Back into the SDK ---------------------------------------------------------------------------


class _Rebuild:
    """New `ReadableSpan`s from redacted spans, one `Resource` and one `InstrumentationScope`
    per distinct redacted content, as the SDK shares them."""

    def __init__(self, schema_url: Callable[[str], str]) -> None:
        self._resources: dict[Hashable, Resource] = {}
        self._scopes: dict[Hashable, InstrumentationScope] = {}
        self._urls: dict[str, str] = {}
        self._clean_url = schema_url

    def _url(self, url: str | None) -> str:
        if not url:
            return ""
        clean = self._urls.get(url)
        if clean is None:
            clean = self._urls[url] = self._clean_url(url)
        return clean

    def span(self, original: ReadableSpan, redacted: Span) -> ReadableSpan:
        resource = self._resource(original.resource, redacted.resource)
        scope = self._scope(original.instrumentation_scope, redacted)
        status = original.status
        description = redacted.status_message if status.status_code is StatusCode.ERROR else None
        return ReadableSpan(
            name=redacted.name,
            context=original.context,
            parent=original.parent,
            resource=resource,
            attributes=_bounded(_own(original, redacted), original.dropped_attributes),
            events=_bounded_list(
                [
                    SdkEvent(
                        redacted_event.name,
                        _bounded(redacted_event.attributes, _dropped(event)),
                        event.timestamp,
                    )
                    for event, redacted_event in zip(original.events, redacted.events, strict=True)
                ],
                original.dropped_events,
            ),
            links=_bounded_list(
                [
                    SdkLink(
                        link.context, _bounded(redacted_link.attributes, link.dropped_attributes)
                    )
                    for link, redacted_link in zip(original.links, redacted.links, strict=True)
                ],
                original.dropped_links,
            ),
            kind=original.kind,
            status=Status(status.status_code, description),
            start_time=original.start_time,
            end_time=original.end_time,
            instrumentation_scope=scope,
        )

    def _resource(self, original: Resource | None, attributes: Mapping[str, Any]) -> Resource:
        schema_url = self._url(original.schema_url) if original is not None else ""
        clean = _attributes(attributes)
        key = _key(schema_url, clean)
        resource = self._resources.get(key)
        if resource is None:
            resource = self._resources[key] = Resource(clean, schema_url)
        return resource

    def _scope(
        self, original: InstrumentationScope | None, redacted: Span
    ) -> InstrumentationScope | None:
        if original is None:
            return None
        # Name and version are redacted like any string (a tracer may be named with a token).
        name, version = original.name, original.version
        clean: dict[str, Any] = {}
        if redacted.scope is not None:
            name, version = redacted.scope.name, redacted.scope.version or original.version
            clean = _attributes(redacted.scope.attributes)
        schema_url = self._url(original.schema_url)
        key = _key((name, version, schema_url), clean)
        scope = self._scopes.get(key)
        if scope is None:
            scope = self._scopes[key] = InstrumentationScope(
                name, version, schema_url, clean or None
            )
        return scope


_ABSENT: Any = object()


def _own(original: ReadableSpan, redacted: Span) -> Mapping[str, Any]:
    """The span's own redacted attributes: the reader merged the resource and scope attributes
    into them (as the same objects), and they go back to the resource and scope."""
    inherited: dict[str, Any] = dict(redacted.resource)
    if redacted.scope is not None:
        inherited.update(redacted.scope.attributes)
    if not inherited:
        return redacted.attributes
    own = original.attributes or {}
    out: dict[str, Any] = {}
    for key, value in redacted.attributes.items():
        parent = inherited.get(key, _ABSENT)
        # The reader copies sequences per span, so an inherited value may be equal, not same.
        if key in own or (parent is not value and parent != value):
            out[key] = value
    return out


def _dropped(event: Any) -> int:
    attributes = getattr(event, "attributes", None)
    return attributes.dropped if isinstance(attributes, BoundedAttributes) else 0


def _bounded(attributes: Mapping[str, Any], dropped: int) -> BoundedAttributes:
    out = BoundedAttributes(attributes=_attributes(attributes), immutable=True)
    out.dropped = dropped
    return out


def _bounded_list(items: list[Any], dropped: int) -> BoundedList[Any]:
    out = BoundedList.from_seq(None, items)
    out.dropped = dropped
    return out


def _attributes(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """Attribute values the SDK accepts, of the types they had: str, bool, int, float, and
    homogeneous tuples of them. Redaction turns a value it removes into a marker string."""
    return {str(key): _value(value) for key, value in attributes.items() if value is not None}


def _value(value: Any) -> Any:
    if isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list | tuple):
        items = tuple(_value(item) for item in value)
        kinds = {type(item) for item in items if item is not None}
        if len(kinds) > 1 or not kinds <= {str, bool, int, float}:
            return tuple(None if item is None else _text(item) for item in items)
        return items
    if isinstance(value, Mapping):
        return {str(key): _value(item) for key, item in value.items() if item is not None}
    return _text(value)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    isoformat = getattr(value, "isoformat", None)
    return str(isoformat()) if callable(isoformat) else str(value)


def _key(head: Hashable, attributes: dict[str, Any]) -> Hashable:
    items = (head, tuple(attributes.items()))
    try:
        hash(items)
    except TypeError:
        return (head, repr(sorted(attributes.items(), key=lambda item: item[0])))
    return items
