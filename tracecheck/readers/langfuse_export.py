"""Langfuse's exports: traces and observations as its public API and its UI write them.

Read (layouts in `langfuse_shapes`): `GET /api/public/traces/{id}` (a trace with its
`observations`), the trace page's download `{"trace", "observations"}`, the download route's
`{"observations", "scores"}`, pages of `GET /api/public/observations` and `/v2/observations`
(`{"data", "meta"}`; several pages may follow one another in a file), and observations alone.

Each observation is a span, the inverse of Langfuse's own OpenTelemetry mapping: its `id`
(16 hex digits, as Langfuse keeps an OpenTelemetry span id, else a stable digest of it) and
`traceId` (32 hex digits or a UUID, else a digest), `parentObservationId`, `name`, `startTime`
and `endTime`, `level` ERROR as the error status with `statusMessage`, and the fields under
Langfuse's own attribute names: `langfuse.observation.type` (as written, `TOOL`),
`.input`/`.output`/`.metadata`/`.model.parameters`/`.usage_details`/`.cost_details` as JSON
text (as its SDK writes them), `.model.name` (`model`, v2's `providedModelName`), `.level`,
`.status_message`, `.completion_start_time`, `.prompt.name`/`.prompt.version`, the download's
`.tool_calls`/`.tool_call_names`/`.tool_definitions`, `langfuse.version`,
`langfuse.environment`, and the ids as written in `langfuse.observation.id`.

Token counts are Langfuse's own sums over `usageDetails` (its public API's `usage`, from
`reduceUsageOrCostDetails`): input is every key naming `input`, output every key naming
`output`, as `gen_ai.usage.input_tokens`/`output_tokens`; its ingestion keeps cache counts
beside a reduced `input` (`input_cached_tokens`, `input_cache_read`, `input_cache_creation`,
`cache_read_input_tokens`, ...), so they are summed into input and also given as
`gen_ai.usage.cache_read.input_tokens`/`cache_creation.input_tokens`. `total` stays the
producer's total. An export without `usageDetails` falls back on the older `usage` object.

The trace is the run record: its fields (`langfuse.trace.id`, `.name`, `.timestamp`, `.input`,
`.output`, `.metadata`, `.tags`, `.public`, `user.id`, `session.id`, `langfuse.release`) go on
its single root observation; when it has none or several, the trace itself is a root span
(named by the trace, starting at its `timestamp`, no end: Langfuse records none). An
observation listed in a trace whose `traceId` names another trace is refused.

Every span carries `langfuse.export.layout`, its convention's mark. In a trace that uses none
of the types Langfuse added with SDK 3.5 (AGENT, TOOL, CHAIN, ...) anywhere in the file and was
not recorded by a Langfuse SDK of 3.5 or later (`metadata.scope`), a SPAN may be a tool call:
its spans also carry `langfuse.export.untyped`, which selects the convention that says so.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from tracecheck.readers.common import ReadContext, checked, described, normalize_id, parse_iso8601
from tracecheck.readers.langfuse_shapes import OBSERVATION_TYPES, langfuse_layout
from tracecheck.readers.tracer_parts import JsonValue, at, count
from tracecheck.spans import Span, SpanStatus

__all__ = ["read_langfuse_export", "token_counts"]

_LAYOUT = "langfuse.export.layout"  # on every span: the export it was read from
_UNTYPED = "langfuse.export.untyped"  # on every span of a trace with the old types only
_OLD_TYPES = frozenset({"SPAN", "GENERATION", "EVENT"})
_LEVELS = frozenset({"DEBUG", "DEFAULT", "WARNING", "ERROR"})
_CACHE_READ = re.compile(r"cache_read|cached")
_CACHE_WRITE = re.compile(r"cache_creation|cache_write")
_RELEASE = re.compile(r"(\d+)\.(\d+)")
# (attribute, the word a key names, and for cache counts what else it names)
_SUMS: tuple[tuple[str, str, re.Pattern[str] | None], ...] = (
    ("gen_ai.usage.input_tokens", "input", None),
    ("gen_ai.usage.output_tokens", "output", None),
    ("gen_ai.usage.cache_read.input_tokens", "input", _CACHE_READ),
    ("gen_ai.usage.cache_creation.input_tokens", "input", _CACHE_WRITE),
)
_NOT_AN_EXPORT = (
    'is not a Langfuse export: expected a trace with "observations", {"trace", '
    '"observations"}, {"observations", "scores"}, or an observations page {"data", "meta"}'
)
_TRACE_LIST = (
    "is a page of Langfuse's trace list, whose traces name their observations by id only: "
    "save each trace with GET /api/public/traces/{id}"
)
# Observation fields kept as JSON text, as Langfuse's SDK writes them as attributes.
_AS_JSON = (
    ("input", "langfuse.observation.input"),
    ("output", "langfuse.observation.output"),
    ("metadata", "langfuse.observation.metadata"),
    ("modelParameters", "langfuse.observation.model.parameters"),
    ("usageDetails", "langfuse.observation.usage_details"),
    ("costDetails", "langfuse.observation.cost_details"),
    ("toolCalls", "langfuse.observation.tool_calls"),
    ("toolDefinitions", "langfuse.observation.tool_definitions"),
)
_AS_TEXT = (
    ("statusMessage", "langfuse.observation.status_message"),
    ("completionStartTime", "langfuse.observation.completion_start_time"),
    ("promptName", "langfuse.observation.prompt.name"),
    ("version", "langfuse.version"),
    ("environment", "langfuse.environment"),
)
_TRACE_FIELDS = (
    ("name", "langfuse.trace.name", False),
    ("timestamp", "langfuse.trace.timestamp", False),
    ("userId", "user.id", False),
    ("sessionId", "session.id", False),
    ("release", "langfuse.release", False),
    ("input", "langfuse.trace.input", True),
    ("output", "langfuse.trace.output", True),
    ("metadata", "langfuse.trace.metadata", True),
)


@dataclass
class _Observation:
    """One observation as read, before it becomes a span."""

    raw_id: str
    trace_id: str | None
    span_id: str | None
    parent: str | None  # the parent's id as written
    name: str
    type: str
    start_ns: int
    end_ns: int | None
    status: SpanStatus | None
    message: str | None
    attributes: dict[str, Any]
    where: str
    sdk_typed: bool = False  # recorded by a Langfuse SDK that has the newer types


@dataclass
class _Pages:
    """The pages of observation lists seen: v1's page numbers, v2's cursors."""

    numbered: set[int] = field(default_factory=set)
    total_pages: int | None = None
    cursors: list[bool] = field(default_factory=list)  # v2: whether each page had a cursor

    def add(self, meta: Any) -> None:
        if not isinstance(meta, dict):
            return
        page, pages = count(meta.get("page")), count(meta.get("totalPages"))
        if page is not None and pages is not None:
            self.numbered.add(page)
            self.total_pages = max(self.total_pages or 0, pages)
        elif "page" not in meta:
            self.cursors.append(bool(meta.get("cursor")))

    def check(self, ctx: ReadContext) -> None:
        """Refuse a file that holds only some pages: what the others hold is not there."""
        total = self.total_pages
        # Counted, never enumerated: `meta.totalPages` is the file's word, however large.
        if total is not None and len({p for p in self.numbered if 1 <= p <= total}) < total:
            held = ", ".join(str(page) for page in sorted(self.numbered))
            raise ctx.error(
                None,
                f"holds page {held} of {total} of a Langfuse observations list "
                "(meta.totalPages): the observations of the other pages are missing; save "
                "every page in the file, one after another",
            )
        if self.cursors and all(self.cursors):
            raise ctx.error(
                None,
                "holds pages of a Langfuse observations list whose meta.cursor says more "
                "follow: the observations of the next pages are missing; save every page in "
                "the file, one after another",
            )


@dataclass
class _Part:
    """One JSON value of the file: its layout, its trace if it has one, its observations."""

    layout: str
    trace: dict[str, Any] | None
    trace_id: str | None
    where: str  # the trace's place
    observations: list[_Observation]


def read_langfuse_export(values: list[JsonValue], ctx: ReadContext) -> list[Span]:
    """Every observation of the file's exports as a span (see the module's docstring)."""
    pages = _Pages()
    parts = []
    for where, value in values:
        layout = langfuse_layout(value)
        if layout is None:
            raise ctx.error(where or None, _NOT_AN_EXPORT)
        if layout == "trace-list":
            raise ctx.error(where or None, _TRACE_LIST)
        if layout == "observations":
            pages.add(value["meta"])
        parts.append(_part(value, layout, ctx, where))
    pages.check(ctx)
    if not any(part.observations for part in parts):
        raise ctx.error(
            None,
            "holds no Langfuse observations (a trace fetched without observations in its "
            "fields?): there is nothing to check",
        )
    # Whether a trace uses the newer types is decided over the whole file: its observations may
    # be on several pages, which are read under one convention.
    typed = {
        o.trace_id
        for part in parts
        for o in part.observations
        if o.type not in _OLD_TYPES or o.sdk_typed
    }
    spans: list[Span] = []
    for part in parts:
        for observation in part.observations:
            observation.attributes[_LAYOUT] = part.layout
            if observation.trace_id not in typed:
                observation.attributes[_UNTYPED] = True
        if part.trace is not None:
            spans.extend(_with_trace(part.trace, part, ctx))
        spans.extend(_span(observation, ctx) for observation in part.observations)
    return spans


def _part(value: Any, layout: str, ctx: ReadContext, where: str) -> _Part:
    """The value's trace (if its layout has one) and its observations, read."""
    trace: dict[str, Any] | None = None
    trace_where = where
    if layout == "ui-trace":
        trace, rows, place = value["trace"], value["observations"], at(where, "observations")
        trace_where = at(where, "trace")
    elif layout == "trace":
        trace, rows, place = value, value["observations"], at(where, "observations")
    elif layout == "download":
        rows, place = value["observations"], at(where, "observations")
    elif layout == "observations":
        rows, place = value["data"], at(where, "data")
    else:
        rows, place = (value, where) if layout == "list" else ([value], where)
    trace_id = None
    if trace is not None:
        trace_id = _trace_id(trace.get("id"), ctx, at(trace_where, "id"))
    observations = [
        _observation(row, ctx, place if layout == "observation" else f"{place}[{index}]", trace_id)
        for index, row in enumerate(rows)
    ]
    return _Part(layout, trace, trace_id, trace_where, observations)


def _with_trace(trace: dict[str, Any], part: _Part, ctx: ReadContext) -> Iterator[Span]:
    """The trace's fields on its single root observation, or the trace as a root span."""
    where, read = part.where, part.observations
    attributes = _trace_attributes(trace, ctx, where)
    roots = [o for o in read if o.parent is None]
    if len(roots) == 1:
        roots[0].attributes.update(attributes)
        return
    raw_id = trace.get("id")
    span_id = _digest(f"langfuse-trace:{raw_id}", 8)
    for root in roots:
        root.parent = f"\0{span_id}"  # the trace span, not an observation id
    start = _time(trace.get("timestamp"), ctx, at(where, "timestamp"))
    name = trace.get("name")
    attributes[_LAYOUT] = part.layout
    if read and all(_UNTYPED in o.attributes for o in read):
        attributes[_UNTYPED] = True
    yield checked(
        Span(
            trace_id=part.trace_id,
            span_id=span_id,
            name=name if isinstance(name, str) else "",
            start_ns=start,
            attributes=attributes,
        ),
        ctx,
        where or "trace",
    )


def _trace_attributes(trace: dict[str, Any], ctx: ReadContext, where: str) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    if isinstance(trace.get("id"), str):
        attributes["langfuse.trace.id"] = trace["id"]
    for key, name, as_json in _TRACE_FIELDS:
        value = trace.get(key)
        if value is None:
            continue
        if as_json:
            attributes[name] = _json_text(value, ctx, at(where, key))
        elif isinstance(value, str):
            attributes[name] = value
        else:
            raise ctx.error(at(where, key), f"is {described(value)}, not a string")
    tags = trace.get("tags")
    if isinstance(tags, list) and all(isinstance(tag, str) for tag in tags):
        attributes["langfuse.trace.tags"] = list(tags)
    if isinstance(trace.get("public"), bool):
        attributes["langfuse.trace.public"] = trace["public"]
    return attributes


def _observation(raw: Any, ctx: ReadContext, where: str, trace_id: str | None) -> _Observation:
    if not isinstance(raw, dict):
        raise ctx.error(where or None, f"is {described(raw)}, not a Langfuse observation")
    raw_id = raw.get("id")
    if not isinstance(raw_id, str) or not raw_id:
        raise ctx.error(at(where, "id"), f"is {described(raw_id)}, not an observation id")
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in OBSERVATION_TYPES:
        raise ctx.error(
            at(where, "type"),
            f"is {described(kind)}, not a Langfuse observation type "
            f"({', '.join(sorted(OBSERVATION_TYPES))})",
        )
    start = _time(raw.get("startTime"), ctx, at(where, "startTime"))
    if start is None:
        raise ctx.error(at(where, "startTime"), "is missing: every observation has a start")
    level = raw.get("level")
    if level is not None and (not isinstance(level, str) or level not in _LEVELS):
        raise ctx.error(at(where, "level"), f"is {described(level)}, not a Langfuse level")
    own_trace = raw.get("traceId")
    if own_trace:
        own_id = _trace_id(own_trace, ctx, at(where, "traceId"))
        if trace_id is not None and own_id != trace_id:
            raise ctx.error(
                at(where, "traceId"),
                "names another trace than the one whose observations it is listed in: its "
                "place in that trace is unknown",
            )
        trace_id = own_id
    attributes = _attributes(raw, ctx, where)
    message = attributes.get("langfuse.observation.status_message")
    return _Observation(
        raw_id=raw_id,
        trace_id=trace_id,
        span_id=_span_id(raw_id),
        parent=_text(raw.get("parentObservationId"), ctx, at(where, "parentObservationId")),
        name=_text(raw.get("name"), ctx, at(where, "name")) or "",
        type=kind,
        start_ns=start,
        end_ns=_time(raw.get("endTime"), ctx, at(where, "endTime")),
        status="error" if level == "ERROR" else None,
        message=message if level == "ERROR" else None,
        attributes=attributes,
        where=where,
        sdk_typed=_sdk_typed(raw.get("metadata")),
    )


def _attributes(raw: dict[str, Any], ctx: ReadContext, where: str) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "langfuse.observation.id": raw["id"],
        "langfuse.observation.type": raw["type"],
    }
    if raw.get("level") is not None:
        attributes["langfuse.observation.level"] = raw["level"]
    model = raw.get("model") or raw.get("providedModelName")
    if model is not None:
        attributes["langfuse.observation.model.name"] = _text(model, ctx, at(where, "model"))
    for key, name in _AS_TEXT:
        value = _text(raw.get(key), ctx, at(where, key))
        if value is not None:
            attributes[name] = value
    version = raw.get("promptVersion")
    if isinstance(version, int) and not isinstance(version, bool):
        attributes["langfuse.observation.prompt.version"] = version
    for key, name in _AS_JSON:
        if raw.get(key) is not None:
            attributes[name] = _json_text(raw[key], ctx, at(where, key))
    names = raw.get("toolCallNames")
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        attributes["langfuse.observation.tool_call_names"] = list(names)
    attributes.update(_tokens(raw, ctx, where))
    return attributes


def _tokens(raw: dict[str, Any], ctx: ReadContext, where: str) -> dict[str, int]:
    details = raw.get("usageDetails")
    if details is None:
        usage = raw.get("usage")  # older answers: the deprecated usage object alone
        if not isinstance(usage, dict):
            return {}
        details = {key: usage[key] for key in ("input", "output", "total") if key in usage}
        where = at(where, "usage")
    else:
        where = at(where, "usageDetails")
    if not isinstance(details, dict):
        raise ctx.error(where, f"is {described(details)}, not a map of usage counts")
    counts: dict[str, int] = {}
    for key, value in details.items():
        number = None if isinstance(value, bool) else count(value)
        if value is not None and number is None:
            raise ctx.error(at(where, key), f"is {described(value)}, not a count of units")
        if number is not None:
            counts[key] = number
    return token_counts(counts)


def token_counts(details: dict[str, int]) -> dict[str, int]:
    """The GenAI token attributes of a usage map, summed as Langfuse sums it: input is every
    key naming `input`, output every key naming `output`; cache reads and writes are the
    input keys that name them (Langfuse counts them beside `input`)."""
    found: dict[str, int] = {}
    for name, word, kind in _SUMS:
        values = [
            value
            for key, value in details.items()
            if word in key and (kind is None or kind.search(key) is not None)
        ]
        if values:
            found[name] = sum(values)
    return found


def _span(observation: _Observation, ctx: ReadContext) -> Span:
    parent = observation.parent
    if parent is not None:
        parent = parent[1:] if parent.startswith("\0") else _span_id(parent)
    return checked(
        Span(
            trace_id=observation.trace_id,
            span_id=observation.span_id,
            parent_span_id=parent,
            name=observation.name,
            start_ns=observation.start_ns,
            end_ns=observation.end_ns,
            status=observation.status,
            status_message=observation.message,
            attributes=observation.attributes,
        ),
        ctx,
        observation.where or "observation",
    )


def _sdk_typed(metadata: Any) -> bool:
    """Recorded by a Langfuse SDK of 3.5 or later (its scope, which Langfuse keeps)."""
    if isinstance(metadata, str):
        try:
            metadata = orjson.loads(metadata)
        except orjson.JSONDecodeError:
            return False
    scope = metadata.get("scope") if isinstance(metadata, dict) else None
    if isinstance(scope, str):  # Langfuse keeps metadata values as text
        try:
            scope = orjson.loads(scope)
        except orjson.JSONDecodeError:
            return False
    if not isinstance(scope, dict) or scope.get("name") != "langfuse-sdk":
        return False
    version = scope.get("version")
    match = _RELEASE.match(version) if isinstance(version, str) else None
    return match is not None and (int(match.group(1)), int(match.group(2))) >= (3, 5)


def _span_id(raw: str) -> str | None:
    """An observation id as a span id: the OpenTelemetry span id Langfuse kept, else a digest."""
    if len(raw) == 16:
        try:
            return normalize_id(raw, 8)
        except ValueError:
            pass
    return _digest(raw, 8)


def _trace_id(raw: Any, ctx: ReadContext, where: str) -> str | None:
    """A trace id: the OpenTelemetry trace id (or UUID) Langfuse kept, else a digest."""
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw:
        raise ctx.error(where, f"is {described(raw)}, not a trace id")
    if len(raw) in (32, 36):
        try:
            return normalize_id(raw, 16)
        except ValueError:
            pass
    return _digest(raw, 16)


def _digest(text: str, size: int) -> str:
    """A stable id of `size` bytes for an id Langfuse's API was given as free text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[: 2 * size]


def _time(raw: Any, ctx: ReadContext, where: str) -> int | None:
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise ctx.error(where, f"is {described(raw)}, not an ISO-8601 time")
    try:
        return parse_iso8601(raw)
    except ValueError as exc:
        raise ctx.error(where, str(exc)) from None


def _text(raw: Any, ctx: ReadContext, where: str) -> str | None:
    if raw is None or isinstance(raw, str):
        return raw
    raise ctx.error(where, f"is {described(raw)}, not a string")


def _json_text(value: Any, ctx: ReadContext, where: str) -> str:
    """A value as JSON text, as Langfuse's SDK records it; text stays as it is."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except (orjson.JSONEncodeError, TypeError):
        pass  # an integer past 64 bits, or nesting orjson refuses
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (ValueError, RecursionError):
        raise ctx.error(where, "is nested too deeply to be held as JSON text") from None
