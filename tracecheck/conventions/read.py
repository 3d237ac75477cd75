"""Reading a span's facts through its convention, falling back on the common reading."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tracecheck.conventions import generic
from tracecheck.conventions.model import Convention, KindRule, SpanFacts, TokenFields
from tracecheck.conventions.values import (
    MISSING,
    first_number,
    first_string,
    first_value,
    value_at,
)

__all__ = ["arguments", "kind", "model", "offered_tools", "recorded_total", "tokens", "tool_name"]

Count = int | float
Tokens = tuple[Count | None, Count | None, Count | None, Count | None, Count]


def kind(convention: Convention, span: SpanFacts) -> str:
    """A declared kind first, then the convention's rules, then the common inference."""
    declared = span.declared_kind
    if not declared or declared.upper() not in generic.CONTRACT_KINDS:
        for rule in convention.kinds:
            decided = _decide(rule, span)
            if decided is not None:
                return decided
    return generic.kind(declared, span.attributes, span.name)


def _decide(rule: KindRule, span: SpanFacts) -> str | None:
    if rule.pattern is not None:
        return rule.kind if rule.pattern.search(span.name) else None
    if rule.attribute is None:
        return None
    value = span.attributes.get(rule.attribute)
    if value is None or value == "":
        return None
    if rule.values is None:
        return rule.kind
    if rule.decode_json:
        value = generic.json_or_text(value)
    if isinstance(value, str):
        decided = rule.values.get(value.lower())
        if decided is not None:
            return decided
    return rule.otherwise


def tool_name(convention: Convention, span: SpanFacts, span_kind: str) -> str | None:
    """The tool a TOOL span called, as the convention records it, else as commonly read."""
    name: str | None = None
    if convention.tool and span_kind == "TOOL":
        name = first_string(span.attributes, convention.tool)
        if name is not None and generic.is_template(name):
            name = None
    if name is None:
        name = generic.tool_name(span.attributes, span.name, span_kind)
    if name is not None and name in convention.not_tool_names:
        return None
    return name


def model(convention: Convention, span: SpanFacts) -> str | None:
    found = first_string(span.attributes, convention.model) if convention.model else None
    return found or generic.model(span.attributes)


def tokens(convention: Convention, span: SpanFacts) -> Tokens:
    """(input, output, cache read, cache write, cache counts outside input)."""
    described = convention.tokens
    if described is None:
        return generic.tokens(span.attributes)
    found = _described_tokens(described, span)
    return generic.tokens(span.attributes) if found is None else found


def _described_tokens(described: TokenFields, span: SpanFacts) -> Tokens | None:
    attributes = span.attributes
    input_tokens = first_number(attributes, described.input)
    output_tokens = first_number(attributes, described.output)
    read = first_number(attributes, described.cache_read)
    write = first_number(attributes, described.cache_write)
    if input_tokens is None and output_tokens is None and read is None and write is None:
        return None
    beside = described.cache == "separate" or _provider_counts_beside(described, attributes)
    outside: Count = 0
    for count in (read, write):
        if count is None:
            continue
        # Counted beside input by the convention, or evidently left out of it by the producer.
        if beside or (input_tokens is not None and count > input_tokens):
            outside += count
    return input_tokens, output_tokens, read, write, outside


def _provider_counts_beside(described: TokenFields, attributes: Mapping[str, Any]) -> bool:
    for key, pattern in described.separate_when:
        value = generic.json_or_text(attributes.get(key))
        if isinstance(value, str) and re.search(pattern, value, re.IGNORECASE):
            return True
    return False


def recorded_total(convention: Convention, span: SpanFacts) -> Count | None:
    """The total the producer recorded itself, if any."""
    if convention.tokens is not None and convention.tokens.total:
        found = first_number(span.attributes, convention.tokens.total)
        if found is not None:
            return found
    return generic.recorded_total(span.attributes)


def arguments(convention: Convention, span: SpanFacts) -> tuple[bool, Any, str | None]:
    """(known, value, reason) of a tool call's arguments."""
    if convention.arguments:
        captured = span.attributes.get("tool.args_captured")
        if captured is False or (isinstance(captured, str) and captured.lower() == "false"):
            return False, None, generic.NOT_CAPTURED
        value = first_value(span.attributes, convention.arguments)
        if value is not MISSING:
            value = generic.json_or_text(value)
            if convention.arguments_as_call:
                value = _keywords(value)
            return True, value, None
    found = generic.tool_arguments(span.attributes)
    if found[0] and convention.arguments_as_call:
        return True, _keywords(found[1]), None
    return found


def _keywords(value: Any) -> Any:
    """The keyword arguments of a recorded `{"args": [], "kwargs": {...}}` call."""
    if isinstance(value, dict) and isinstance(value.get("kwargs"), dict):
        positional = value.get("args")
        if not positional:
            return value["kwargs"]
    return value


def offered_tools(
    convention: Convention, span: SpanFacts
) -> tuple[tuple[str, ...], str | None] | None:
    """(names, problem) of the tools offered to the model, or None when not recorded."""
    for place in convention.offered:
        definitions = value_at(span.attributes, place)
        if definitions is MISSING or definitions is None:
            continue
        names: list[str] = []
        problem = generic.collect_tool_names(definitions, names, str(place))
        return tuple(dict.fromkeys(names)), problem
    return generic.offered_tools(span.attributes)
