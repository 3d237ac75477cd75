"""In-process capture: OpenTelemetry SDK `ReadableSpan`s into the same span model.

Duck-typed on the SDK's attributes so importing tracecheck never requires the SDK.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tracecheck.readers.common import ReadContext, checked
from tracecheck.spans import EMPTY_ATTRIBUTES, Event, Link, Scope, Span, SpanStatus

__all__ = ["spans_from_otel"]

_STATUS: dict[str, SpanStatus | None] = {"UNSET": None, "OK": "ok", "ERROR": "error"}


def spans_from_otel(spans: Iterable[Any], *, notes: list[Any] | None = None) -> list[Span]:
    """`Span`s of SDK `ReadableSpan`s (for example from `InMemorySpanExporter`), in order."""
    ctx = ReadContext("<opentelemetry-sdk>", notes if notes is not None else [])
    return [_span(span, ctx, f"span[{index}]") for index, span in enumerate(spans)]


def _span(span: Any, ctx: ReadContext, where: str) -> Span:
    context = span.context
    parent = span.parent
    resource = _attributes(span.resource.attributes) if span.resource is not None else {}
    raw_scope = span.instrumentation_scope
    scope = None
    scope_attributes: dict[str, Any] = {}
    if raw_scope is not None:
        scope_attributes = _attributes(getattr(raw_scope, "attributes", None))
        scope = Scope(
            raw_scope.name or "", raw_scope.version or "", scope_attributes or EMPTY_ATTRIBUTES
        )
    status = span.status
    return checked(
        Span(
            trace_id=_hex(context.trace_id, 32) if context is not None else None,
            span_id=_hex(context.span_id, 16) if context is not None else None,
            parent_span_id=_hex(parent.span_id, 16) if parent is not None else None,
            name=span.name or "",
            start_ns=span.start_time or None,
            end_ns=span.end_time or None,
            status=_STATUS.get(status.status_code.name) if status is not None else None,
            status_message=(status.description or None) if status is not None else None,
            attributes={**resource, **scope_attributes, **_attributes(span.attributes)},
            events=tuple(
                Event(e.name, e.timestamp or None, _attributes(e.attributes) or EMPTY_ATTRIBUTES)
                for e in span.events
            ),
            links=tuple(
                Link(
                    _hex(link.context.trace_id, 32),
                    _hex(link.context.span_id, 16),
                    _attributes(link.attributes) or EMPTY_ATTRIBUTES,
                )
                for link in span.links
            ),
            resource=resource or EMPTY_ATTRIBUTES,
            scope=scope,
            otlp_kind=_kind(span.kind),
        ),
        ctx,
        where,
    )


def _hex(value: int, width: int) -> str | None:
    return format(value, f"0{width}x") if value else None


def _kind(kind: Any) -> int:
    # The SDK's SpanKind counts from 0 (INTERNAL); OTLP's from 1, with 0 for unspecified.
    return int(kind.value) + 1 if kind is not None else 0


def _attributes(attributes: Mapping[str, Any] | None) -> dict[str, Any]:
    if not attributes:
        return {}
    return {
        key: list(value) if isinstance(value, tuple) else value for key, value in attributes.items()
    }
