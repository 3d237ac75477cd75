"""The one span model every reader builds and every rule reads (contracts.md §1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Literal

from tracecheck import normalize

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
    "Trace",
]

SpanStatus = Literal["ok", "error"]
EMPTY_ATTRIBUTES: Mapping[str, Any] = MappingProxyType({})


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


@dataclass(frozen=True, slots=True)
class Event:
    name: str
    time_ns: int | None = None
    attributes: Mapping[str, Any] = _no_attributes()


@dataclass(frozen=True, slots=True)
class Link:
    trace_id: str | None
    span_id: str | None
    attributes: Mapping[str, Any] = _no_attributes()


@dataclass(frozen=True, slots=True)
class Scope:
    """The instrumentation scope that emitted a span."""

    name: str = ""
    version: str = ""
    attributes: Mapping[str, Any] = _no_attributes()


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

    @property
    def total(self) -> int | float | None:
        if self.input is None or self.output is None:
            return None
        return self.input + self.output + self.cache_outside_input


@dataclass(frozen=True, slots=True)
class ToolArguments:
    """The arguments of a tool call, or why they are unknown (contracts.md §1.5)."""

    known: bool
    value: Any = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class OfferedTools:
    """The tools a span records as offered to the model (contracts.md §1.6).

    `problem` is set when the record is malformed; `names` then holds what could be read.
    """

    names: tuple[str, ...]
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class RunRecord:
    """How a run ended: status is running, completed, failed, aborted, or None (unknown)."""

    status: str | None
    start_ns: int | None = None
    end_ns: int | None = None

    @property
    def duration_ns(self) -> int | None:
        if self.start_ns is None or self.end_ns is None:
            return None
        return self.end_ns - self.start_ns


@dataclass(frozen=True, slots=True)
class ReadNote:
    """Something a reader noticed and did not silently repair, with where it was."""

    source: str
    where: str
    message: str
    trace_id: str | None = None

    def __str__(self) -> str:
        return f"{self.source}: {self.where}: {self.message}"


_UNSET: Any = object()


@dataclass(frozen=True, slots=True, eq=True)
class Span:
    """One span, normalised. Readers fill the recorded fields; derived fields are lazy."""

    trace_id: str | None
    span_id: str | None
    parent_span_id: str | None = None
    name: str = ""
    start_ns: int | None = None
    end_ns: int | None = None
    status: SpanStatus | None = None
    status_message: str | None = None
    attributes: Mapping[str, Any] = _no_attributes()
    events: tuple[Event, ...] = ()
    links: tuple[Link, ...] = ()
    resource: Mapping[str, Any] = _no_attributes()
    scope: Scope | None = None
    declared_kind: str | None = None
    otlp_kind: int = 0
    _kind: Any = field(default=_UNSET, init=False, repr=False, compare=False)
    _tool_name: Any = field(default=_UNSET, init=False, repr=False, compare=False)
    _model: Any = field(default=_UNSET, init=False, repr=False, compare=False)
    _tokens: Any = field(default=_UNSET, init=False, repr=False, compare=False)
    _arguments: Any = field(default=_UNSET, init=False, repr=False, compare=False)
    _offered: Any = field(default=_UNSET, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        return hash((self.trace_id, self.span_id, self.start_ns, self.name))

    @property
    def kind(self) -> Kind:
        if self._kind is _UNSET:
            object.__setattr__(
                self, "_kind", Kind(normalize.kind(self.declared_kind, self.attributes, self.name))
            )
        kind: Kind = self._kind
        return kind

    @property
    def tool_name(self) -> str | None:
        if self._tool_name is _UNSET:
            value = normalize.tool_name(self.attributes, self.name, self.kind)
            object.__setattr__(self, "_tool_name", value)
        name: str | None = self._tool_name
        return name

    @property
    def model(self) -> str | None:
        if self._model is _UNSET:
            object.__setattr__(self, "_model", normalize.model(self.attributes))
        model: str | None = self._model
        return model

    @property
    def tokens(self) -> TokenUsage:
        if self._tokens is _UNSET:
            object.__setattr__(self, "_tokens", TokenUsage(*normalize.tokens(self.attributes)))
        tokens: TokenUsage = self._tokens
        return tokens

    @property
    def arguments(self) -> ToolArguments:
        if self._arguments is _UNSET:
            known, value, reason = normalize.tool_arguments(self.attributes)
            object.__setattr__(self, "_arguments", ToolArguments(known, value, reason))
        arguments: ToolArguments = self._arguments
        return arguments

    @property
    def offered_tools(self) -> OfferedTools | None:
        if self._offered is _UNSET:
            found = normalize.offered_tools(self.attributes)
            offered = None if found is None else OfferedTools(*found)
            object.__setattr__(self, "_offered", offered)
        offered_tools: OfferedTools | None = self._offered
        return offered_tools

    @property
    def is_error(self) -> bool:
        return self.status == "error"

    @property
    def duration_ns(self) -> int | None:
        if self.start_ns is None or self.end_ns is None:
            return None
        return self.end_ns - self.start_ns

    @property
    def run_record(self) -> RunRecord:
        return RunRecord(
            normalize.run_status(self.attributes, self.status), self.start_ns, self.end_ns
        )

    def ref(self, index: int | None = None) -> str:
        """How messages refer to this span: its id, or `#<index>` when it has none."""
        if self.span_id:
            return self.span_id
        return f"#{index}" if index is not None else "#?"


@dataclass(frozen=True, slots=True)
class Trace:
    """The spans of one trace id, in the order they were read."""

    trace_id: str | None
    spans: Sequence[Span]
    notes: tuple[ReadNote, ...] = ()

    def __len__(self) -> int:
        return len(self.spans)

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
