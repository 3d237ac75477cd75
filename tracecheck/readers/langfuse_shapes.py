"""What Langfuse's exports look like: the tests sniffing puts a JSON value or a file's first bytes to.

Kept apart from the reader (`langfuse_export`), so that telling a file's format loads no reader.
The layouts, each a name the reader also uses:

| layout         | what it is                                                               |
|----------------|--------------------------------------------------------------------------|
| `trace`        | `GET /api/public/traces/{id}`: a trace with its `observations`           |
| `ui-trace`     | the trace page's download: `{"trace": {...}, "observations": [...]}`     |
| `download`     | the trace download route: `{"observations": [...], "scores": [...]}`     |
| `observations` | a page of `GET /api/public/observations` or `/v2/observations`: `{"data", "meta"}` |
| `list`         | a bare list of observations (a page's `data`)                            |
| `observation`  | one observation (one per line)                                           |
| `trace-list`   | a page of `GET /api/public/traces`: its traces name observations by id only |
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["OBSERVATION_TYPES", "langfuse_layout", "looks_like_langfuse_text"]

# Langfuse's observation types (packages/shared/src/domain/observations.ts, `ObservationType`).
OBSERVATION_TYPES = frozenset(
    {
        "SPAN",
        "EVENT",
        "GENERATION",
        "AGENT",
        "TOOL",
        "CHAIN",
        "RETRIEVER",
        "EVALUATOR",
        "EMBEDDING",
        "GUARDRAIL",
    }
)


def _is_observation(row: Any) -> bool:
    """An observation: an `id`, a `startTime`, one of Langfuse's types, and its trace or
    parent named in Langfuse's spelling (never an OpenTelemetry `spanId`)."""
    return (
        isinstance(row, dict)
        and "id" in row
        and "startTime" in row
        and isinstance(row.get("type"), str)
        and row["type"] in OBSERVATION_TYPES
        and ("traceId" in row or "parentObservationId" in row)
        and "spanId" not in row
    )


def _is_trace_row(row: Any) -> bool:
    return (
        isinstance(row, dict)
        and "id" in row
        and "timestamp" in row
        and ("htmlPath" in row or isinstance(row.get("observations"), list))
    )


def _first_rows(rows: list[Any]) -> list[Any]:
    return [row for row in rows[:5] if isinstance(row, dict)]


def langfuse_layout(value: Any) -> str | None:
    """The layout of a Langfuse export that `value` (a file's first JSON value) has, or None."""
    if isinstance(value, list):
        rows = _first_rows(value)
        return "list" if rows and all(_is_observation(row) for row in rows) else None
    if not isinstance(value, dict):
        return None
    observations = value.get("observations")
    if isinstance(observations, list):
        if isinstance(value.get("trace"), dict):
            return "ui-trace"
        if "id" in value and "timestamp" in value:
            return "trace"
        rows = _first_rows(observations)
        if "scores" in value or (rows and all(_is_observation(row) for row in rows)):
            return "download"
        return None
    data = value.get("data")
    if isinstance(data, list) and isinstance(value.get("meta"), dict):
        rows = _first_rows(data)
        if rows and all(_is_observation(row) for row in rows):
            return "observations"
        if rows and all(_is_trace_row(row) for row in rows):
            return "trace-list"
        return None
    return "observation" if _is_observation(value) else None


def _key(*names: str) -> re.Pattern[bytes]:
    return re.compile(("|".join(rf'"{name}"\s*:' for name in names)).encode())


@functools.cache
def _text_rules() -> tuple[re.Pattern[bytes], ...]:
    """A download's opening `{"trace": {`, Langfuse's own keys, and keys no export has."""
    return (
        re.compile(rb'^\{\s*"trace"\s*:\s*\{'),
        _key("parentObservationId"),
        _key("htmlPath", "observations", "data"),
        _key("resourceSpans", "resource_spans", "spanId", "spanID", "traceID"),
    )


def looks_like_langfuse_text(text: bytes) -> bool:
    """True when the first bytes of a document that does not parse yet (pretty-printed, or
    longer than the head) show Langfuse's keys and no other format's."""
    opening, parent, holder, foreign = _text_rules()
    if foreign.search(text):
        return False
    if opening.match(text):
        return True
    return bool(parent.search(text)) and (text[:1] == b"[" or bool(holder.search(text)))
