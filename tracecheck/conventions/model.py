"""A producer's convention as data: where each fact a contract reads is recorded on a span.

A `Convention` names the producer family, how its spans are recognised (instrumentation scope
name and version, attribute keys or namespaces), and, fact by fact, the attributes that hold
the kind, tool name, arguments, result, model, tokens and offered tools. A fact a convention leaves
empty is read by the common OpenTelemetry GenAI / OpenInference reading (`generic.py`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

__all__ = [
    "CacheCounting",
    "Convention",
    "Field",
    "KindRule",
    "ScopeMatch",
    "SpanFacts",
    "TokenFields",
    "fields",
]


class SpanFacts(Protocol):
    """What a convention reads of a span (the `Span` model has all of it)."""

    @property
    def name(self) -> str: ...
    @property
    def attributes(self) -> Mapping[str, Any]: ...
    @property
    def declared_kind(self) -> str | None: ...
    @property
    def scope(self) -> Any: ...  # a `Scope` (name, version) or None


@dataclass(frozen=True, slots=True)
class Field:
    """One place a value is recorded: an attribute, and optionally an RFC 6901 pointer into its
    value. With `decoded` (always so with a pointer), a value that is JSON text is decoded
    first: some producers JSON-encode every value, strings included.

    Written `"key"`, `"key#"` (decoded) or `"key#/pointer"` in `fields()`.
    """

    key: str
    pointer: tuple[str, ...] = ()
    decoded: bool = False

    def __str__(self) -> str:
        if not self.decoded:
            return self.key
        tokens = (token.replace("~", "~0").replace("/", "~1") for token in self.pointer)
        return f"{self.key}#{''.join('/' + token for token in tokens)}"


def fields(*specs: str) -> tuple[Field, ...]:
    """`Field`s from `"key"`, `"key#"` and `"key#/pointer"` strings, tried in this order."""
    found = []
    for spec in specs:
        key, mark, pointer = spec.partition("#")
        tokens = tuple(
            token.replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]
        )
        found.append(Field(key, tokens, decoded=bool(mark)))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class KindRule:
    """One way a convention decides a span's kind; the first rule that applies decides.

    - `attribute` + `values`: the attribute's text (JSON text decoded when `decode_json`) looked
      up in `values`, case-insensitively; a value not listed decides `otherwise` when set, else
      the rule does not apply.
    - `attribute` alone: the attribute is present and not empty → `kind`.
    - `name`: the span name matches the regular expression (searched) → `kind`.
    A kind of `"UNKNOWN"` is a decision too: the span is not a call of any kind.

    `attribute` is written as a `Field` is (`"key#/pointer"` looks inside the attribute's JSON
    text): some producers say what a span is only inside a recorded value.
    """

    kind: str = ""
    attribute: str | None = None
    values: Mapping[str, str] | None = None
    otherwise: str | None = None
    decode_json: bool = False
    name: str | None = None
    _pattern: re.Pattern[str] | None = field(default=None, repr=False, compare=False)
    _lookup: Mapping[str, str] | None = field(default=None, repr=False, compare=False)
    _place: Field | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.attribute is not None and "#" in self.attribute:
            object.__setattr__(self, "_place", fields(self.attribute)[0])
        if self.values is not None:
            lowered = {key.lower(): value for key, value in self.values.items()}
            object.__setattr__(self, "_lookup", lowered)

    @property
    def pattern(self) -> re.Pattern[str] | None:
        """`name` compiled, on first use: a command reading one producer's spans need not
        compile every producer's patterns (a few milliseconds of its start-up)."""
        if self._pattern is None and self.name is not None:
            object.__setattr__(self, "_pattern", re.compile(self.name))
        return self._pattern

    @property
    def place(self) -> Field | None:
        """The value inside an attribute that the rule reads, when it points into one."""
        return self._place

    def kind_of(self, value: str) -> str | None:
        """The kind `values` gives a recorded text (case-insensitively), or None."""
        return None if self._lookup is None else self._lookup.get(value.lower())


CacheCounting = Literal["included", "separate"]


@dataclass(frozen=True, slots=True)
class TokenFields:
    """Where a convention records token counts, and whether input already holds the cache.

    `cache` says how the producer counts: `included` (input already holds the cache reads and
    writes, the OpenTelemetry GenAI definition) or `separate` (Anthropic-style counts beside
    input). `total` is the producer's own total, which the normalised total must agree with.
    """

    input: tuple[Field, ...] = ()
    output: tuple[Field, ...] = ()
    cache_read: tuple[Field, ...] = ()
    cache_write: tuple[Field, ...] = ()
    cache: CacheCounting = "included"
    total: tuple[Field, ...] = ()
    # Cache counts that are reported beside input whatever `cache` says, tried after the others
    # (free-form usage maps whose key names tell how a count was counted).
    cache_read_beside: tuple[Field, ...] = ()
    cache_write_beside: tuple[Field, ...] = ()
    # (attribute, pattern): when the attribute's text matches, cache counts are reported beside
    # input whatever `cache` says (one convention, several model providers).
    separate_when: tuple[tuple[str, str], ...] = ()
    # Attributes a span must have for this description to read it (a producer version's mark).
    requires: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ScopeMatch:
    """An instrumentation scope: its name (exact, or a prefix ending in `*`) and an optional
    half-open version range `[min_version, below_version)` compared as release numbers."""

    name: str
    min_version: str | None = None
    below_version: str | None = None


@dataclass(frozen=True, slots=True)
class Convention:
    """How one producer family records what contracts read (see the module docstring)."""

    name: str
    title: str
    versions: str
    scopes: tuple[ScopeMatch, ...] = ()
    # Attribute keys whose presence marks the convention; `prefix.*` matches a namespace.
    markers: tuple[str, ...] = ()
    kinds: tuple[KindRule, ...] = ()
    tool: tuple[Field, ...] = ()
    arguments: tuple[Field, ...] = ()
    # Arguments recorded as a call's `{"args": [...], "kwargs": {...}}`: read the keywords.
    arguments_as_call: bool = False
    # Arguments recorded one per parameter: a key ending in `.value`, `{}` standing for the
    # parameter's name (`code.function.parameters.{}.value`), with a `.type` sibling; assembled
    # into `{name: value}`, from the span's attributes or from a recorded arguments object
    # holding such keys.
    arguments_by_parameter: str | None = None
    model: tuple[Field, ...] = ()
    # Where a tool call's result is recorded, tried before the common reading (a pointer reads
    # through a wrapper the producer documents, such as LlamaIndex's `ToolOutput`). Where one of
    # these attributes is recorded, they are final: a null found is the call's null, and a
    # pointer that finds nothing leaves the result unknown (never the whole wrapper).
    result: tuple[Field, ...] = ()
    # A key whose object, when it is the result's only key, wraps the value the tool returned
    # (ADK hands the model a return value that is not an object as `{"result": value}`); an
    # object with other keys beside it is the tool's own.
    result_wrapper: str | None = None
    # Where a result records that the call failed (`true`, or the text `error`) on a span the
    # producer leaves unmarked (LlamaIndex's `ToolOutput.is_error`).
    result_error: tuple[Field, ...] = ()
    # One description per generation of the producer's token attributes: the first that finds
    # a count on the span reads all of them.
    tokens: tuple[TokenFields, ...] = ()
    # Read on any span but a tool call (whose arguments may hold a `tools` key of their own).
    offered: tuple[Field, ...] = ()
    # Offered tool names flattened into one attribute each: `{}` stands for the index.
    offered_indexed: tuple[str, ...] = ()
    # Tool-name values that name no tool (a container of several calls, say).
    not_tool_names: frozenset[str] = frozenset()
    # A regular expression with one group: a TOOL span that no attribute names is named by the
    # group where the span name matches it in full (`<tool>.__call__`); a name that does not
    # match names no tool. Only for a producer that documents the shape, never as a guess.
    tool_from_name: str | None = None
    # (template attribute, template with one `{field}`, message attribute): a TOOL span that no
    # attribute names, whose template attribute holds exactly this template, is named by the
    # `field` attribute when the message attribute holds the template rendered with it
    # (Logfire's `logfire.msg_template` `Function: {name}`, `name` and `logfire.msg`
    # `Function: random_number`); another template, or a message that disagrees, names no tool.
    tool_from_message: tuple[str, str, str] | None = None
    # Attribute keys that, on a span this convention leaves of kind UNKNOWN, mean a call may be
    # recorded there that the reading cannot see (a version that named every step alike).
    evidence: tuple[str, ...] = ()
    # Kinds of span whose token counts are the totals of every model call below them (the
    # run's usage on its agent span), read for a budget when the calls' own counts are not.
    run_totals: frozenset[str] = frozenset()
    notes: str = ""
