"""JSON Schema checks of arguments: a schema the contract gives, or the parameters schema of
the tool as offered to the model (`schema: offered`).

`jsonschema` is imported only when a contract has a schema check (it costs a command's start-up
otherwise). Schemas are JSON Schema 2020-12 unless their `$schema` names another draft; `$ref`s
resolve inside the schema and to the drafts' meta-schemas only, never over the network;
`pattern` is searched with the `regex` package under the same time bound as every contract
pattern; `format` is an annotation, not checked.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tracecheck.rules.canonical import canonical_json
from tracecheck.rules.pointers import pointer_of, pointer_text
from tracecheck.rules.predicates import REGEX_TIMEOUT_SECONDS, RuleError
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span

__all__ = ["Schema", "offered_schema", "schema_error", "schema_problem"]

_SHOWN_MESSAGE = 160  # characters of a schema's own error message (the contract's text)


@dataclass(frozen=True, eq=False)
class Schema:
    """A JSON Schema (an object or a boolean), or None for `offered`. Compared by its
    canonical JSON; its validator is built on first use."""

    value: Any

    @property
    def offered(self) -> bool:
        return self.value is None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Schema) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> str | None:
        return None if self.value is None else canonical_json(self.value)

    def validator(self) -> Any:
        found = self.__dict__.get("_validator")
        if found is None:
            found = _validator(self.value)
            object.__setattr__(self, "_validator", found)
        return found


def schema_error(value: Any) -> str | None:
    """Why a value is not a valid JSON Schema (said at compile time), or None."""
    import jsonschema

    cls = _validator_class(value)
    try:
        cls.check_schema(value)
    except jsonschema.SchemaError as exc:
        where = pointer_of(exc.absolute_path) or "the top"
        message = exc.message
        if len(message) > _SHOWN_MESSAGE:
            message = message[: _SHOWN_MESSAGE - 1] + "…"
        return f"is not a valid JSON Schema: at {where}, {message}"
    return None


def schema_problem(schema: Schema, value: Any, pointer: str, what: str) -> str | None:
    """Why `value` (the argument at `pointer`) fails the schema, naming the failing place and
    keyword, never a value; None when it validates."""
    from referencing.exceptions import Unresolvable

    try:
        errors = list(schema.validator().iter_errors(value))
    except Unresolvable:
        raise RuleError(f"{what} has a $ref that cannot be resolved") from None
    if not errors:
        return None
    from jsonschema.exceptions import best_match

    best = best_match(errors)
    place = pointer_text(pointer + pointer_of(best.absolute_path))
    others = len(errors) - 1
    more = f" ({others} more failure{'s' if others > 1 else ''})" if others else ""
    return f"argument {place} fails the {best.validator!r} keyword of {what}{more}"


def _validator_class(value: Any) -> Any:
    import jsonschema

    default = jsonschema.Draft202012Validator
    if isinstance(value, dict) and not isinstance(value.get("$schema", ""), str):
        return default  # its meta-schema check then says what is wrong
    return jsonschema.validators.validator_for(value, default=default)


def _validator(value: Any) -> Any:
    import jsonschema
    from jsonschema_specifications import REGISTRY

    cls = _validator_class(value)
    # The regex package under a time bound, as every pattern a contract gives.
    bounded = jsonschema.validators.extend(cls, {"pattern": _bounded_pattern})
    return bounded(value, registry=REGISTRY)


def _bounded_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "string"):
        return
    try:
        found = _compiled(pattern).search(instance, timeout=REGEX_TIMEOUT_SECONDS)
    except TimeoutError:
        raise RuleError(
            f"a schema pattern took longer than {REGEX_TIMEOUT_SECONDS} s on a value of "
            f"{len(instance)} characters"
        ) from None
    if found is None:
        yield ValidationError("does not match the pattern")


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> Any:
    import regex

    try:
        return regex.compile(pattern)
    except regex.error:
        raise RuleError("a schema pattern is not a valid regular expression") from None


# --- schema: offered ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Offering:
    """The spans that record offered tools with at least one parameters schema, by start."""

    starts: list[int]
    spans: list[Span]
    definitions: list[dict[str, Any]]
    problems: list[str | None]  # why a span's record could not be read whole


def offered_schema(span: Span, subject: Subject) -> Schema | str:
    """The parameters schema of the call's tool as offered in the nearest span before it (by
    start time) that records offered tools with their schemas; a problem text when that span
    did not offer the tool. `RuleError` when no span before it records them, or the tool was
    offered without a schema, or that schema is not one."""
    offering = _offering(subject)
    ref = subject.ref(span)
    if not offering.spans:
        raise RuleError(
            "no span records the parameters schemas of the tools offered to the model, so the "
            "offered schema is unknown"
        )
    if span.start_ns is None:
        raise RuleError(f"span {ref} has no start time, so the model call before it is unknown")
    at = bisect.bisect_right(offering.starts, span.start_ns) - 1
    if at < 0:
        raise RuleError(
            f"no span before span {ref} records the parameters schemas of the tools offered to "
            "the model"
        )
    offered_by = subject.ref(offering.spans[at])
    definitions = offering.definitions[at]
    name = span.tool_name
    if name is not None and name not in definitions and offering.problems[at] is not None:
        raise RuleError(
            f"span {offered_by} records the offered tools in part ({offering.problems[at]}), "
            f"so whether it offered {name} is unknown"
        )
    if name is None or name not in definitions:
        return (
            f"{name or 'the tool'} was not offered to the model by the nearest model call "
            f"before it (span {offered_by})"
        )
    value = definitions[name]
    if value is None:
        raise RuleError(f"span {offered_by} offered {name} without a parameters schema")
    schema, error = _shared_schema(subject, value)
    if error is not None:
        raise RuleError(f"span {offered_by} offered {name} with an invalid parameters schema")
    return schema


def _offering(subject: Subject) -> _Offering:
    key = ("offered schemas",)
    found = subject.memo.get(key)
    if isinstance(found, _Offering):
        return found
    entries = []
    for position, span in enumerate(subject.spans):
        offered = span.offered_tools
        if span.start_ns is None or offered is None:
            continue
        definitions: dict[str, Any] = {}
        for name, schema in offered.definitions:
            definitions.setdefault(name, schema)
        if any(schema is not None for schema in definitions.values()):
            entries.append((span.start_ns, position, span, definitions, offered.problem))
    entries.sort(key=lambda entry: (entry[0], entry[1]))
    offering = _Offering(
        [entry[0] for entry in entries],
        [entry[2] for entry in entries],
        [entry[3] for entry in entries],
        [entry[4] for entry in entries],
    )
    subject.memo[key] = offering
    return offering


def _shared_schema(subject: Subject, value: Any) -> tuple[Schema, str | None]:
    """One `Schema` (and so one validator) per distinct offered schema in a check, with why it
    is not a valid JSON Schema (or None): the meta-schema check runs once per schema, not once
    per call."""
    key = ("offered schema", canonical_json(value))
    found = subject.memo.get(key)
    if found is None:
        found = subject.memo[key] = (Schema(value), schema_error(value))
    return found  # type: ignore[return-value]
