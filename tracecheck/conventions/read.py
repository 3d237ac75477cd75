"""Reading a span's facts through its convention, falling back on the common reading."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
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

__all__ = [
    "arguments",
    "decided",
    "kind",
    "model",
    "offered_tools",
    "recorded_total",
    "result",
    "tokens",
    "tool_name",
]

Count = int | float
_NOT_A_TOOL_CALL = "the span is not a tool call"
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


def decided(convention: Convention, span: SpanFacts) -> bool:
    """True when one of the convention's own rules decides the span's kind: the producer's
    description accounts for the span, whatever kind it gives it."""
    return any(_decide(rule, span) is not None for rule in convention.kinds)


def _decide(rule: KindRule, span: SpanFacts) -> str | None:
    if rule.pattern is not None:
        return rule.kind if rule.pattern.search(span.name) else None
    if rule.attribute is None:
        return None
    if rule.place is not None:
        value = value_at(span.attributes, rule.place)
        value = None if value is MISSING else value
    else:
        value = span.attributes.get(rule.attribute)
    if value is None or value == "":
        return None
    if rule.values is None:
        return rule.kind
    if rule.decode_json:
        value = generic.json_or_text(value)
    if isinstance(value, bool):  # a flag inside a recorded value, looked up as its JSON text
        value = "true" if value else "false"
    if isinstance(value, str):
        decided = rule.kind_of(value)
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
    documented = convention.tool_from_name is not None or convention.tool_from_message is not None
    if name is None and documented and span_kind == "TOOL":
        # An attribute first; then only the documented shape of the span name or message.
        name = generic.recorded_tool_name(span.attributes) or _documented_name(convention, span)
    elif name is None:
        name = generic.tool_name(span.attributes, span.name, span_kind)
    if name is not None and name in convention.not_tool_names:
        return None
    return name


def _documented_name(convention: Convention, span: SpanFacts) -> str | None:
    """The tool named by the documented shape of a span's name or recorded message, if any."""
    if convention.tool_from_name is not None:
        match = _name_pattern(convention.tool_from_name).fullmatch(span.name)
        return match.group(1) if match else None
    if convention.tool_from_message is None:
        return None
    template_key, template, message_key = convention.tool_from_message
    attributes = span.attributes
    if attributes.get(template_key) != template:
        return None
    before, _, rest = template.partition("{")
    field, _, after = rest.partition("}")
    value = attributes.get(field)
    if isinstance(value, str) and value and attributes.get(message_key) == before + value + after:
        return value
    return None


def model(convention: Convention, span: SpanFacts) -> str | None:
    found = first_string(span.attributes, convention.model) if convention.model else None
    return found or generic.model(span.attributes)


def tokens(convention: Convention, span: SpanFacts) -> Tokens:
    """(input, output, cache read, cache write, cache counts outside input), from the first
    description that finds an input or output count; one that finds only a cache count (a
    count recorded in a place a later generation shares) yields to a later one that finds more."""
    partial = None
    for described in convention.tokens:
        found = _described_tokens(described, span)
        if found is not None and (found[0] is not None or found[1] is not None):
            return found
        partial = partial or found
    return partial or generic.tokens(span.attributes)


def _described_tokens(described: TokenFields, span: SpanFacts) -> Tokens | None:
    attributes = span.attributes
    if described.requires and not all(key in attributes for key in described.requires):
        return None
    input_tokens = first_number(attributes, described.input)
    output_tokens = first_number(attributes, described.output)
    beside = described.cache == "separate" or _provider_counts_beside(described, attributes)
    outside: Count = 0
    cache: list[Count | None] = []
    for places, places_beside in (
        (described.cache_read, described.cache_read_beside),
        (described.cache_write, described.cache_write_beside),
    ):
        count = first_number(attributes, places)
        counted_beside = beside
        if count is None:
            count = first_number(attributes, places_beside)
            counted_beside = True
        cache.append(count)
        # Counted beside input, or evidently left out of it by the producer.
        if count is not None and (
            counted_beside or (input_tokens is not None and count > input_tokens)
        ):
            outside += count
    read, write = cache
    if input_tokens is None and output_tokens is None and read is None and write is None:
        return None
    return input_tokens, output_tokens, read, write, outside


def _provider_counts_beside(described: TokenFields, attributes: Mapping[str, Any]) -> bool:
    for key, pattern in described.separate_when:
        value = generic.json_or_text(attributes.get(key))
        if isinstance(value, str) and re.search(pattern, value, re.IGNORECASE):
            return True
    return False


def recorded_total(convention: Convention, span: SpanFacts) -> Count | None:
    """The total the producer recorded itself, if any."""
    for described in convention.tokens:
        if described.requires and not all(key in span.attributes for key in described.requires):
            continue
        found = first_number(span.attributes, described.total)
        if found is not None:
            return found
    return generic.recorded_total(span.attributes)


def arguments(convention: Convention, span: SpanFacts) -> tuple[bool, Any, str | None]:
    """(known, value, reason) of a tool call's arguments."""
    if convention.arguments_by_parameter is not None:
        assembled = _by_parameter(span.attributes, convention.arguments_by_parameter, True)
        if assembled is not None:
            return assembled
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
    if found[0] and convention.arguments_by_parameter and isinstance(found[1], dict):
        return _by_parameter(found[1], convention.arguments_by_parameter, False) or found
    return found


def result(
    convention: Convention, span: SpanFacts, span_kind: str
) -> tuple[bool, Any, str | None, bool]:
    """(known, value, reason, failed) of a tool call's result: the convention's places first;
    failed when the result records that the call failed. Unknown for a span of another kind
    (a model call's `output.value` is its answer, not a tool's result)."""
    if span_kind != "TOOL":
        return False, None, _NOT_A_TOOL_CALL, False
    failed = False
    if convention.result_error:
        flag = first_value(span.attributes, convention.result_error)
        failed = flag is True or (isinstance(flag, str) and flag.lower() == "error")
    attributes = span.attributes
    recorded = None
    for place in convention.result:
        if attributes.get(place.key) is None:
            continue
        value = value_at(attributes, place)
        if value is not MISSING:
            value = generic.tool_result_value(value)
            wrapper = convention.result_wrapper
            if wrapper is not None and isinstance(value, dict) and value.keys() == {wrapper}:
                value = generic.tool_result_value(value[wrapper])
            return True, value, None, failed
        recorded = recorded or place
    if recorded is not None:  # a wrapper of another shape: never read as the result itself
        reason = f"{recorded.key} is recorded but holds no result at {recorded}"
        return False, None, reason, failed
    return (*generic.tool_result(attributes), failed)


def _by_parameter(
    recorded: Mapping[str, Any], pattern: str, decode: bool
) -> tuple[bool, Any, str | None] | None:
    """`{name: value}` from one key per parameter (`pattern`, ending in `.value`, with `{}`
    for the name), or None when no key has that shape. Types recorded without values (the
    `.type` siblings) mean the values were not captured. With `decode`, a text value is JSON
    text unless its `.type` sibling says `str` (the producer writes objects and lists as JSON,
    strings as they are)."""
    prefix = pattern.partition("{}")[0]
    matcher = _parameter_pattern(pattern)
    values: dict[str, Any] = {}
    typed = False
    for key, value in recorded.items():
        if not isinstance(key, str) or not key.startswith(prefix):
            continue
        match = matcher.fullmatch(key)
        if match is None:
            continue
        if match.group(2) == "type":
            typed = True
            continue
        kind = recorded.get(key[: match.start(2)] + "type")
        name = match.group(1)
        values[name] = generic.json_or_text(value) if decode and kind != "str" else value
    if values:
        return True, values, None
    return (False, None, generic.NOT_CAPTURED) if typed else None


def _keywords(value: Any) -> Any:
    """The keyword arguments of a recorded `{"args": [], "kwargs": {...}}` call."""
    if isinstance(value, dict) and isinstance(value.get("kwargs"), dict):
        positional = value.get("args")
        if not positional:
            return value["kwargs"]
    return value


def offered_tools(
    convention: Convention, span: SpanFacts, span_kind: str
) -> generic.Offered | None:
    """(names, problem, definitions) of the tools offered to the model, or None when not
    recorded: each definition is (name, parameters schema or None), read once for both."""
    if span_kind != "TOOL":
        for place in convention.offered:
            definitions = value_at(span.attributes, place)
            if definitions is MISSING or definitions is None:
                continue
            found: list[tuple[str, Any]] = []
            problem = generic.collect_definitions(definitions, found, str(place))
            return generic.offered(found, problem)
        for pattern in convention.offered_indexed:
            offered = _indexed(span.attributes, pattern)
            if offered is not None:
                return offered
    return generic.offered_tools(span.attributes)


def _indexed(attributes: Mapping[str, Any], pattern: str) -> generic.Offered | None:
    """Offered tool names flattened one per attribute (`pattern`'s `{}` is the index); they
    record no schemas."""
    prefix = pattern.partition("{}")[0]
    matcher = _index_pattern(pattern)
    entries = sorted(
        (int(match.group(1)), value)
        for key, value in attributes.items()
        if key.startswith(prefix) and (match := matcher.fullmatch(key))
    )
    if not entries:
        return None
    names = [(value, None) for _, value in entries if isinstance(value, str) and value]
    problem = None if len(names) == len(entries) else f"{pattern} has an entry without a name"
    return generic.offered(names, problem)


@lru_cache(maxsize=32)
def _parameter_pattern(pattern: str) -> re.Pattern[str]:
    """`prefix{}suffix.value` → `prefix(name)suffix.(value|type)`: a parameter's value and the
    sibling naming its type."""
    before, _, after = pattern.partition("{}")
    sibling = re.escape(after.rpartition(".")[0])
    return re.compile(re.escape(before) + r"(.+)" + sibling + r"\.(value|type)")


@lru_cache(maxsize=32)
def _name_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@lru_cache(maxsize=32)
def _index_pattern(pattern: str) -> re.Pattern[str]:
    before, _, after = pattern.partition("{}")
    return re.compile(re.escape(before) + r"(\d+)" + re.escape(after))
