"""tracecheck: prove which path an AI agent took, from its OpenTelemetry traces."""

from __future__ import annotations

from tracecheck.errors import AmbiguousFormatError, TraceReadError, UnrecognizedFormatError
from tracecheck.readers import detect_format, iter_spans, read_traces, spans_from_otel
from tracecheck.spans import (
    Event,
    Kind,
    Link,
    OfferedTools,
    ReadNote,
    RunRecord,
    Scope,
    Span,
    TokenUsage,
    ToolArguments,
    Trace,
)

__all__ = [
    "AmbiguousFormatError",
    "Event",
    "Kind",
    "Link",
    "OfferedTools",
    "ReadNote",
    "RunRecord",
    "Scope",
    "Span",
    "TokenUsage",
    "ToolArguments",
    "Trace",
    "TraceReadError",
    "UnrecognizedFormatError",
    "detect_format",
    "iter_spans",
    "read_traces",
    "spans_from_otel",
]
