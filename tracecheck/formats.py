"""The names of the trace formats, in one place that imports nothing: the command line offers
them (`--format`, `--output-format`) without loading a reader or a writer."""

from __future__ import annotations

__all__ = ["FORMATS", "OUTPUT_FORMATS", "TRACER_FORMATS"]

# Other tracers' formats (readers/tracers.py).
TRACER_FORMATS = ("zipkin", "jaeger", "jaeger-model", "jaeger-api-v3", "otel-js", "langfuse-export")
# Every format a reader reads, in the order `--format` lists them.
FORMATS = ("otlp-json", "otlp-jsonl", "otlp-proto", "spans", "claude-stream", *TRACER_FORMATS)
# What `--output-format` offers: every format read but Claude Code's (a record of a session,
# which spans do not make again) and Langfuse's exports (objects of its API, no writer).
OUTPUT_FORMATS = tuple(name for name in FORMATS if name not in ("claude-stream", "langfuse-export"))
