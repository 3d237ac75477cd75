"""Spans written back in the formats they are read in, one module per format: OTLP (JSON, JSON
Lines, protobuf: `otlp`), the hosted-ingest wire's flat rows (`span_events`), Jaeger (`jaeger`),
Zipkin (`zipkin`), an OpenTelemetry JS dump (`otel_js`) and Claude Code records (`claude`);
`values` holds attribute values as the JSON writers write them, and `layout` picks a writer by
format name and finds a read file's layout, so that `tracecheck redact` keeps the input's format.

The writers know spans, the readers' mappings (run backwards) and, for Claude Code records, the
redaction core's record redactor; never the contract language, the rules, the checker, reports
or the command line. A module here imports from the module that defines a name, never from this
package: the names below are re-exported, each imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracecheck.lazy import lazy_names

if TYPE_CHECKING:
    from tracecheck.writers.otlp import (
        to_otlp_json,
        to_otlp_jsonl,
        to_otlp_proto,
        to_otlp_request,
        write_proto_attributes,
        write_proto_value,
    )
    from tracecheck.writers.span_events import (
        GENERATION_PIVOT,
        STRING_PIVOTS,
        to_trace_span_events,
    )

__all__ = [
    "GENERATION_PIVOT",
    "STRING_PIVOTS",
    "to_otlp_json",
    "to_otlp_jsonl",
    "to_otlp_proto",
    "to_otlp_request",
    "to_trace_span_events",
    "write_proto_attributes",
    "write_proto_value",
]

_HOMES = {
    "to_otlp_json": "tracecheck.writers.otlp",
    "to_otlp_jsonl": "tracecheck.writers.otlp",
    "to_otlp_proto": "tracecheck.writers.otlp",
    "to_otlp_request": "tracecheck.writers.otlp",
    "write_proto_attributes": "tracecheck.writers.otlp",
    "write_proto_value": "tracecheck.writers.otlp",
    "GENERATION_PIVOT": "tracecheck.writers.span_events",
    "STRING_PIVOTS": "tracecheck.writers.span_events",
    "to_trace_span_events": "tracecheck.writers.span_events",
}

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
