"""The one span model every reader builds and every rule reads (contracts.md §1)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import FrozenInstanceError, dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from tracecheck.conventions import generic, read
from tracecheck.conventions.model import Convention
from tracecheck.conventions.registry import select

__all__ = [
    "EMPTY_ATTRIBUTES",
    "Event",
    "Kind",
    "Link",
    "OfferedTools",
    "ReadNote",
    "RunRecord",
    "Scope",
    "Span",
    "SpanStatus",
    "TokenUsage",
    "ToolArguments",
    "ToolResult",
    "Trace",
    "shared_view",
]

SpanStatus = Literal["ok", "error"]
EMPTY_ATTRIBUTES: Mapping[str, Any] = MappingProxyType({})


def shared_view(attributes: dict[str, Any]) -> Mapping[str, Any]:
    """One read-only view of attributes that many spans hold (their resource's): `Span` keeps a
    view as it is given, so the spans share one instead of each wrapping the dict, and whoever
    meets them can tell by identity that they share it."""
    return MappingProxyType(attributes) if attributes else EMPTY_ATTRIBUTES


def _no_attributes() -> Any:
    return field(default_factory=lambda: EMPTY_ATTRIBUTES)


class Kind(StrEnum):
    """The contract kind of a span (contracts.md §1.1)."""

    AGENT = "AGENT"
    CHAIN = "CHAIN"
    LLM = "LLM"
    TOOL = "TOOL"
    EVALUATOR = "EVALUATOR"
    RETRIEVER = "RETRIEVER"
    EMBEDDING = "EMBEDDING"
    RERANKER = "RERANKER"
    GUARDRAIL = "GUARDRAIL"
    PROMPT = "PROMPT"
    UNKNOWN = "UNKNOWN"


_KINDS = {kind.value: kind for kind in Kind}  # a dict lookup; calling the enum is slow


@dataclass(frozen=True, slots=True)
class Event:
    name: str
    time_ns: int | None = None
    attributes: Mapping[str, Any] = _no_attributes()

    def __reduce__(self) -> tuple[Any, ...]:
        return Event, (self.name, self.time_ns, dict(self.attributes))


@dataclass(frozen=True, slots=True)
class Link:
    trace_id: str | None
    span_id: str | None
    attributes: Mapping[str, Any] = _no_attributes()

    def __reduce__(self) -> tuple[Any, ...]:
        return Link, (self.trace_id, self.span_id, dict(self.attributes))


@dataclass(frozen=True, slots=True)
class Scope:
    """The instrumentation scope that emitted a span."""

    name: str = ""
    version: str = ""
    attributes: Mapping[str, Any] = _no_attributes()

    def __reduce__(self) -> tuple[Any, ...]:
        return Scope, (self.name, self.version, dict(self.attributes))


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Token counts of one span; `None` means not recorded (contracts.md §1.4)."""

    input: int | float | None = None
    output: int | float | None = None
    cache_read: int | float | None = None
    cache_write: int | float | None = None
    # Cache counts that the producer reported on top of input (Anthropic-style), plus
    # convention-named counts that evidently were left out of input.
    cache_outside_input: int | float = 0
    # The total the producer recorded itself (`gen_ai.usage.total_tokens`, ...), if any.
    recorded_total: int | float | None = None

    @property
    def counted_total(self) -> int | float | None:
        """input + output + the cache counts outside input; None when either is unknown."""
        if self.input is None or self.output is None:
            return None
        return self.input + self.output + self.cache_outside_input

    @property
    def total(self) -> int | float | None:
        """The counted total, never below the producer's own total when it recorded one."""
        counted = self.counted_total
        if self.recorded_total is None:
            return counted
        if counted is None or self.recorded_total > counted:
            return self.recorded_total
        return counted


@dataclass(frozen=True, slots=True)
class ToolArguments:
    """The arguments of a tool call, or why they are unknown (contracts.md §1.5)."""

    known: bool
    value: Any = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The result a tool call returned, or why it is unknown. A result may be secret: rules
    name pointers and JSON types, never the value."""

    known: bool
    value: Any = None
    reason: str | None = None
    # The result records that the call failed, on a span not marked in error (LlamaIndex).
    failed: bool = False


@dataclass(frozen=True, slots=True)
class OfferedTools:
    """The tools a span records as offered to the model (contracts.md §1.6).

    `problem` is set when the record is malformed; `names` then holds what could be read.
    `definitions` are (name, parameters schema or None) of each named entry, as read with the
    names (not compared: the names are the record).
    """

    names: tuple[str, ...]
    problem: str | None = None
    definitions: tuple[tuple[str, Any], ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class RunRecord:
    """How a run ended: status is running, completed, failed, aborted, or None (unknown)."""

    status: str | None
    start_ns: int | None = None
    end_ns: int | None = None
    # A duration the producer wrote down (Claude Code's `result.duration_ms`), and whether it
    # recorded that the run ended without recording when (a `result` record without times).
    recorded_duration_ns: int | None = None
    end_recorded: bool = False

    @property
    def ended(self) -> bool:
        return self.end_recorded or self.end_ns is not None

    @property
    def duration_ns(self) -> int | None:
        """End minus start, or the recorded duration: the longer when both are known, so that
        a missing or too-short time never passes a duration ceiling."""
        measured = None
        if self.start_ns is not None and self.end_ns is not None:
            measured = self.end_ns - self.start_ns
        if self.recorded_duration_ns is None:
            return measured
        if measured is None:
            return self.recorded_duration_ns
        return max(measured, self.recorded_duration_ns)


@dataclass(frozen=True, slots=True)
class ReadNote:
    """Something a reader noticed and did not silently repair, with where it was."""

    source: str
    where: str
    message: str
    trace_id: str | None = None

    def __str__(self) -> str:
        return f"{self.source}: {self.where}: {self.message}"


_SPAN_FIELDS = (
    "trace_id",
    "span_id",
    "parent_span_id",
    "name",
    "start_ns",
    "end_ns",
    "status",
    "status_message",
    "attributes",
    "events",
    "links",
    "resource",
    "scope",
    "declared_kind",
    "otlp_kind",
)


# A derived field not computed yet (`None` is a value: no model, no offered tools).
_UNSET: Any = object()


class _Fields:
    """A span's slots, writable: `Span` builds each span as one of these (plain slot writes,
    the cheapest Python has) and then makes it a `Span`, whose `__setattr__` refuses every
    write. Written through `Span`'s descriptors instead, a span cost 2.3 µs to build rather
    than 0.9 µs, a tenth of reading a large trace."""

    __slots__ = (
        *_SPAN_FIELDS,
        "_convention",
        "_kind",
        "_tool_name",
        "_model",
        "_tokens",
        "_arguments",
        "_offered",
        "_result",
    )

    trace_id: str | None
    span_id: str | None
    parent_span_id: str | None
    name: str
    start_ns: int | None
    end_ns: int | None
    status: SpanStatus | None
    status_message: str | None
    attributes: Mapping[str, Any]
    events: tuple[Event, ...]
    links: tuple[Link, ...]
    resource: Mapping[str, Any]
    scope: Scope | None
    declared_kind: str | None
    otlp_kind: int
    _convention: Convention
    _kind: Kind
    _tool_name: str | None
    _model: str | None
    _tokens: TokenUsage
    _arguments: ToolArguments
    _offered: OfferedTools | None
    _result: ToolResult

    def __init__(
        self,
        trace_id: str | None,
        span_id: str | None,
        parent_span_id: str | None,
        name: str,
        start_ns: int | None,
        end_ns: int | None,
        status: SpanStatus | None,
        status_message: str | None,
        attributes: Mapping[str, Any],
        events: tuple[Event, ...],
        links: tuple[Link, ...],
        resource: Mapping[str, Any],
        scope: Scope | None,
        declared_kind: str | None,
        otlp_kind: int,
    ) -> None:
        self.trace_id = trace_id
        self.span_id = span_id
        self.parent_span_id = parent_span_id
        self.name = name
        self.start_ns = start_ns
        self.end_ns = end_ns
        self.status = status
        self.status_message = status_message
        # A dict handed over is wrapped, so attributes are read-only whoever built the span.
        self.attributes = (
            MappingProxyType(attributes) if attributes.__class__ is dict else attributes
        )
        self.events = events
        self.links = links
        self.resource = MappingProxyType(resource) if resource.__class__ is dict else resource
        self.scope = scope
        self.declared_kind = declared_kind
        self.otlp_kind = otlp_kind
        self._convention = _UNSET
        self._kind = _UNSET
        self._tool_name = _UNSET
        self._model = _UNSET
        self._tokens = _UNSET
        self._arguments = _UNSET
        self._offered = _UNSET
        self._result = _UNSET


class Span(_Fields):
    """One span, normalised and immutable. Readers fill the recorded fields; the derived
    fields (kind, tool name, model, tokens, arguments, offered tools) are computed on first
    use, since most rules read only a few of them.

    Written by hand rather than as a frozen dataclass: readers build millions of spans, and a
    frozen dataclass's `__init__` (one `object.__setattr__` per field) costs four times more.
    """

    __slots__ = ()

    def __new__(
        cls,
        trace_id: str | None,
        span_id: str | None,
        parent_span_id: str | None = None,
        name: str = "",
        start_ns: int | None = None,
        end_ns: int | None = None,
        status: SpanStatus | None = None,
        status_message: str | None = None,
        attributes: Mapping[str, Any] = EMPTY_ATTRIBUTES,
        events: tuple[Event, ...] = (),
        links: tuple[Link, ...] = (),
        resource: Mapping[str, Any] = EMPTY_ATTRIBUTES,
        scope: Scope | None = None,
        declared_kind: str | None = None,
        otlp_kind: int = 0,
    ) -> Span:
        span = _Fields(
            trace_id,
            span_id,
            parent_span_id,
            name,
            start_ns,
            end_ns,
            status,
            status_message,
            attributes,
            events,
            links,
            resource,
            scope,
            declared_kind,
            otlp_kind,
        )
        # Same slots, so the class can change: from here on every write is refused.
        span.__class__ = cls
        return span  # type: ignore[return-value]

    if not TYPE_CHECKING:  # (type checkers read the signature of `__new__`)
        # The fields are set in `__new__`; `object.__init__` takes the arguments and does
        # nothing (it accepts them because `__new__` is overridden).
        __init__ = object.__init__

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Read-only mappings do not pickle: send plain dicts, which `__init__` wraps again.
        values = [
            dict(value) if name in _MAPPING_FIELDS else value
            for name, value in zip(_SPAN_FIELDS, self._fields(), strict=True)
        ]
        return Span, tuple(values)

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _SPAN_FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Span:
            return NotImplemented
        assert isinstance(other, Span)
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash((self.trace_id, self.span_id, self.start_ns, self.name))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in _SPAN_FIELDS)
        return f"Span({fields})"

    def replace(self, **changes: Any) -> Span:
        """A copy with some recorded fields changed (derived fields are recomputed)."""
        values = {name: getattr(self, name) for name in _SPAN_FIELDS}
        unknown = set(changes) - set(values)
        if unknown:
            raise TypeError(f"Span has no field {', '.join(sorted(unknown))}")
        return Span(**{**values, **changes})

    def with_facts(
        self,
        *,
        tool_name: str | None,
        model: str | None,
        tokens: TokenUsage,
        arguments: ToolArguments,
        offered_tools: OfferedTools | None,
        result: ToolResult | None = None,
        **recorded: Any,
    ) -> Span:
        """A copy whose facts are the ones given instead of read from its attributes (one call
        merged from several recordings of it), with some recorded fields changed; its kind and
        convention stay this span's."""
        copy = self.replace(**recorded)
        _set_convention(copy, self.convention)
        _set_kind(copy, self.kind)
        _set_tool_name(copy, tool_name)
        _set_model(copy, model)
        _set_tokens(copy, tokens)
        _set_arguments(copy, arguments)
        _set_offered(copy, offered_tools)
        if result is not None:  # else read from the copy's attributes on first use
            _set_result(copy, result)
        return copy

    # Derived fields: each computed on first use and kept in its own slot, which starts as
    # `_UNSET`. (Leaving the slot empty and catching the AttributeError saves one store per
    # field at read time, but raising costs ten times more on every span's first use.)

    @property
    def convention(self) -> Convention:
        """The producer convention that reads this span's facts (`tracecheck.conventions`)."""
        convention = self._convention
        if convention is _UNSET:
            convention = select(self.scope, self.attributes)
            _set_convention(self, convention)
        return convention

    @property
    def kind(self) -> Kind:
        kind = self._kind
        if kind is _UNSET:
            # The first fact every check reads of every span: the convention chosen here
            # rather than through its property (one call less, on 100,000 spans a trace).
            convention: Any = self._convention  # (`_UNSET` until chosen)
            if convention is _UNSET:
                convention = select(self.scope, self.attributes)
                _set_convention(self, convention)
            kind = _KINDS[read.kind(convention, self)]
            _set_kind(self, kind)
        return kind

    @property
    def tool_name(self) -> str | None:
        name = self._tool_name
        if name is _UNSET:
            name = read.tool_name(self.convention, self, self.kind)
            _set_tool_name(self, name)
        return name

    @property
    def model(self) -> str | None:
        model = self._model
        if model is _UNSET:
            model = read.model(self.convention, self)
            _set_model(self, model)
        return model

    @property
    def tokens(self) -> TokenUsage:
        tokens = self._tokens
        if tokens is _UNSET:
            convention = self.convention
            counts = read.tokens(convention, self)
            tokens = TokenUsage(*counts, read.recorded_total(convention, self))
            _set_tokens(self, tokens)
        return tokens

    @property
    def arguments(self) -> ToolArguments:
        arguments = self._arguments
        if arguments is _UNSET:
            arguments = ToolArguments(*read.arguments(self.convention, self))
            _set_arguments(self, arguments)
        return arguments

    @property
    def result(self) -> ToolResult:
        """What the tool call returned, read through the convention (computed on first use)."""
        result = self._result
        if result is _UNSET:
            result = ToolResult(*read.result(self.convention, self, self.kind))
            _set_result(self, result)
        return result

    @property
    def offered_tools(self) -> OfferedTools | None:
        offered = self._offered
        if offered is _UNSET:
            found = read.offered_tools(self.convention, self, self.kind)
            offered = None if found is None else OfferedTools(*found)
            _set_offered(self, offered)
        return offered

    @property
    def is_error(self) -> bool:
        """Whether the span's status is error (what `show` marks); `failed` is what rules read."""
        return self.status == "error"

    @property
    def failed(self) -> bool:
        """Whether the span failed: its status is error, or it is a tool call whose result
        records a failure on a span left unmarked (LlamaIndex's `ToolOutput.is_error`). The one
        notion of failure every rule reads: `errors`, the `status` predicate, `requires`,
        `sameAs` and trajectory entries."""
        return self.status == "error" or (self.kind is Kind.TOOL and self.result.failed)

    @property
    def duration_ns(self) -> int | None:
        """End minus start, or None when either is missing or the end is before the start (a
        clock that went backwards records no duration): what rules and `show` both read."""
        start, end = self.start_ns, self.end_ns
        if start is None or end is None or end < start:
            return None
        return end - start

    @property
    def run_record(self) -> RunRecord:
        attributes = self.attributes
        # What a producer recorded about the run's end without times (Claude Code's result).
        recorded = attributes.get("run.duration_ms")
        duration_ns = None
        # Two tests, so that mypy narrows `recorded` before the second.
        if isinstance(recorded, (int, float)) and not isinstance(recorded, bool):  # noqa: SIM102
            if math.isfinite(recorded) and recorded >= 0:
                duration_ns = round(recorded * 1_000_000)
        return RunRecord(
            generic.run_status(attributes, self.status),
            self.start_ns,
            self.end_ns,
            duration_ns,
            attributes.get("run.ended") is True,
        )

    def ref(self, index: int | None = None) -> str:
        """How messages refer to this span: its id, or `#<index>` when it has none."""
        if self.span_id:
            return self.span_id
        return f"#{index}" if index is not None else "#?"


# Slot descriptors write past the immutability guard: the derived fields' caches use them.
_MAPPING_FIELDS = frozenset({"attributes", "resource"})
_set_convention = _Fields.__dict__["_convention"].__set__
_set_kind = _Fields.__dict__["_kind"].__set__
_set_tool_name = _Fields.__dict__["_tool_name"].__set__
_set_model = _Fields.__dict__["_model"].__set__
_set_tokens = _Fields.__dict__["_tokens"].__set__
_set_arguments = _Fields.__dict__["_arguments"].__set__
_set_offered = _Fields.__dict__["_offered"].__set__
_set_result = _Fields.__dict__["_result"].__set__


@dataclass(frozen=True, slots=True)
class Trace:
    """The spans of one trace id, in the order they were read."""

    trace_id: str | None
    spans: Sequence[Span]
    notes: tuple[ReadNote, ...] = ()
    # The files its spans were read from, in read order: one, unless the trace is spread over
    # several files of a directory. Empty for spans that came from no file.
    sources: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.spans)

    @property
    def source(self) -> str | None:
        """The file the trace's first span was read from (what reports name), if any."""
        return self.sources[0] if self.sources else None

    @property
    def roots(self) -> list[Span]:
        """Spans with no parent, or whose parent is not in the trace (contracts.md §1.7)."""
        ids = {span.span_id for span in self.spans if span.span_id}
        return [s for s in self.spans if s.parent_span_id is None or s.parent_span_id not in ids]

    @property
    def run_record(self) -> RunRecord | None:
        """The run record of the trace's single root, or None when there is not exactly one."""
        roots = self.roots
        return roots[0].run_record if len(roots) == 1 else None
