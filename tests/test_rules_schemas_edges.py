"""JSON Schema checks at their edges: `pattern` under the regex package and its time bound, the
meta-schema message cut, the count of further failures, remote `$ref`s never fetched, schemas
compared by their canonical JSON, and `schema: offered` picking the nearest offering."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tracecheck.rules.matchers import ArgumentCheck, argument_problem
from tracecheck.rules.predicates import REGEX_TIMEOUT_SECONDS, RuleError
from tracecheck.rules.schemas import Schema, schema_error
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span

TRACE = "a" * 32


def call(name: str | None, start: int | None, arguments: Any, span_id: str = "pay-call") -> Span:
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.call.arguments": json.dumps(arguments),
    }
    if name is not None:
        attributes["gen_ai.tool.name"] = name
    end = None if start is None else start + 10
    title = "execute_tool" if name is None else f"execute_tool {name}"
    return Span(TRACE, span_id, "root", title, start, end, None, attributes=attributes)


def model_call(start: int, definitions: Any, span_id: str = "chat") -> Span:
    return Span(
        TRACE,
        span_id,
        "root",
        "chat m",
        start,
        start + 5,
        None,
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "m",
            "gen_ai.tool.definitions": json.dumps(definitions),
        },
    )


def step(span_id: str, start: int | None) -> Span:
    return Span(TRACE, span_id, "root", "step", start, None if start is None else start + 1, None)


def judged(schema: Any, value: Any) -> str | None:
    span = call("pay", 100, {"x": value})
    check = ArgumentCheck("schema", schema=Schema(schema))
    return argument_problem(span, "/x", check, Subject([span]))


OFFERED = ArgumentCheck("schema", schema=Schema(None))


def offered(span: Span, *others: Span) -> str | None:
    return argument_problem(span, "", OFFERED, Subject([*others, span]))


def offering(name: str, parameters: Any) -> list[dict[str, Any]]:
    return [{"type": "function", "name": name, "parameters": parameters}]


# --- pattern -------------------------------------------------------------------------------

UPPER = {"pattern": r"^\p{Lu}"}  # a Unicode property: the regex package's syntax, not re's
PATTERN_FAILS = "argument /x fails the 'pattern' keyword of the schema"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Ärger", None),
        ("ärger", PATTERN_FAILS),
        ("", PATTERN_FAILS),
        (5, None),  # pattern says nothing of what is not a string
        (["ärger"], None),
        ({"a": "ärger"}, None),
    ],
)
def test_a_schema_pattern_is_searched_with_the_regex_package_and_only_in_strings(
    value: Any, expected: str | None
) -> None:
    assert judged(UPPER, value) == expected


def test_a_schema_pattern_is_searched_not_matched_from_the_start() -> None:
    assert judged({"pattern": "fund"}, "refund") is None
    assert judged({"pattern": "fund"}, "refusal") == PATTERN_FAILS


def test_an_invalid_schema_pattern_cannot_be_judged() -> None:
    with pytest.raises(RuleError, match=r"^a schema pattern is not a valid regular expression$"):
        judged({"pattern": "(unclosed"}, "anything")


def test_a_schema_pattern_is_searched_under_the_time_bound() -> None:
    value = "a" * 5000 + "b"
    with pytest.raises(RuleError) as raised:
        judged({"pattern": r"^(a|aa)+$"}, value)
    assert str(raised.value) == (
        f"a schema pattern took longer than {REGEX_TIMEOUT_SECONDS} s on a value of "
        f"{len(value)} characters"
    )


# --- failures and their count ----------------------------------------------------------------

THREE_WAYS = {"type": "object", "required": ["a", "b", "c"]}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"required": ["a"]}, "argument /x fails the 'required' keyword of the schema"),
        (
            {"required": ["a"], "minProperties": 1},
            "argument /x fails the 'required' keyword of the schema (1 more failure)",
        ),
        (
            {"required": ["a"], "minProperties": 1, "maxLength": 0, "not": {}},
            "argument /x fails the 'required' keyword of the schema (2 more failures)",
        ),
    ],
)
def test_further_failures_are_counted_in_singular_or_plural(schema: Any, expected: str) -> None:
    assert judged(schema, {}) == expected


# --- references ----------------------------------------------------------------------------


def test_a_remote_ref_is_never_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    import urllib.request

    fetched: list[Any] = []

    def urlopen(*args: Any, **kwargs: Any) -> Any:
        fetched.append(args)
        raise OSError("no network here")

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    with pytest.raises(RuleError, match=r"\$ref that cannot be resolved"):
        judged({"$ref": "https://example.invalid/order.json"}, 1)
    assert fetched == []


def test_a_ref_to_a_draft_meta_schema_resolves_without_the_network() -> None:
    meta = {"$ref": "https://json-schema.org/draft/2020-12/schema"}
    assert judged(meta, {"type": "string"}) is None
    assert judged(meta, {"type": 5}) is not None


# --- the meta-schema check's message -------------------------------------------------------

NOT_VALID_TAIL = "' is not valid under any of the given schemas"


def long_type(length: int) -> dict[str, str]:
    """A schema whose meta-schema message is `length` characters long."""
    return {"type": "t" * (length - len(NOT_VALID_TAIL) - 1)}


def test_a_meta_schema_message_of_the_shown_length_is_shown_whole() -> None:
    schema = long_type(160)
    message = f"'{schema['type']}{NOT_VALID_TAIL}"
    assert len(message) == 160
    assert schema_error(schema) == f"is not a valid JSON Schema: at /type, {message}"


def test_a_longer_meta_schema_message_is_cut_with_an_ellipsis() -> None:
    schema = long_type(161)
    message = f"'{schema['type']}{NOT_VALID_TAIL}"
    assert schema_error(schema) == f"is not a valid JSON Schema: at /type, {message[:159]}…"


def test_a_meta_schema_failure_of_the_whole_schema_is_said_at_the_top() -> None:
    assert schema_error(["string"]) == (
        "is not a valid JSON Schema: at the top, ['string'] is not of type 'object', 'boolean'"
    )


# --- Schema values -------------------------------------------------------------------------


def test_schemas_are_equal_by_their_canonical_json() -> None:
    one = Schema({"type": "object", "required": ["a"]})
    same = Schema({"required": ["a"], "type": "object"})
    other = Schema({"type": "object", "required": ["b"]})
    assert one == same and hash(one) == hash(same)
    assert one != other
    assert one != {"type": "object", "required": ["a"]}
    assert Schema(None) == Schema(None) and Schema(None) != Schema(True)
    assert Schema(True) != Schema(False)
    assert len({one, same, other, Schema(None)}) == 3


def test_a_schema_builds_its_validator_once() -> None:
    schema = Schema({"type": "object"})
    assert schema.validator() is schema.validator()


# --- schema: offered -----------------------------------------------------------------------

STRING = offering("pay", {"type": "string"})
OBJECT = offering("pay", {"type": "object"})
TYPE_FAILS = "argument (whole value) fails the 'type' keyword of the offered parameters schema"


def test_the_nearest_offering_is_found_by_start_time_not_by_order_in_the_trace() -> None:
    pay = call("pay", 100, {"a": 1})
    # Listed later but started earlier: the string schema is not the nearest.
    assert offered(pay, model_call(30, OBJECT, "near"), model_call(10, STRING, "far")) is None
    assert offered(pay, model_call(10, OBJECT, "far"), model_call(30, STRING, "near")) == (
        TYPE_FAILS
    )


def test_of_two_offerings_starting_together_the_later_listed_is_taken() -> None:
    pay = call("pay", 100, {"a": 1})
    assert offered(pay, model_call(30, STRING, "one"), model_call(30, OBJECT, "two")) is None
    assert offered(pay, model_call(30, OBJECT, "one"), model_call(30, STRING, "two")) == (
        TYPE_FAILS
    )


def test_spans_without_offerings_or_start_do_not_hide_a_later_offering() -> None:
    pay = call("pay", 100, {"a": 1})
    for first in (step("plain", 5), step("unstarted", None), model_call(5, ["pay"], "names")):
        assert offered(pay, first, model_call(30, STRING)) == TYPE_FAILS


def test_each_offered_schema_of_a_check_is_its_own() -> None:
    first = call("pay", 100, {"a": 1}, "first")
    second = call("pay", 300, {"a": 1}, "second")
    run = Subject([model_call(10, OBJECT, "a"), first, model_call(200, STRING, "b"), second])
    assert argument_problem(first, "", OFFERED, run) is None
    assert argument_problem(second, "", OFFERED, run) == TYPE_FAILS


def test_the_offerings_are_gathered_once_per_check(monkeypatch: pytest.MonkeyPatch) -> None:
    from tracecheck.rules import schemas

    built: list[Any] = []
    original = schemas._Offering

    class Counted(original):  # type: ignore[misc,valid-type]
        def __init__(self, *fields: Any) -> None:
            built.append(fields)
            super().__init__(*fields)

    monkeypatch.setattr(schemas, "_Offering", Counted)
    calls = [call("pay", 100 + i, {"a": 1}, f"p{i}") for i in range(3)]
    run = Subject([model_call(10, OBJECT), *calls])
    assert [argument_problem(c, "", OFFERED, run) for c in calls] == [None, None, None]
    assert len(built) == 1


def test_offered_schema_errors_say_why_in_full() -> None:
    with pytest.raises(RuleError) as raised:
        offered(call("pay", 100, {}))
    assert str(raised.value) == (
        "no span records the parameters schemas of the tools offered to the model, so the "
        "offered schema is unknown"
    )
    with pytest.raises(RuleError) as raised:
        offered(call("pay", None, {}), model_call(10, OBJECT))
    assert str(raised.value) == (
        "span pay-call has no start time, so the model call before it is unknown"
    )
    with pytest.raises(RuleError) as raised:
        offered(call("pay", 100, {}), model_call(300, OBJECT))
    assert str(raised.value) == (
        "no span before span pay-call records the parameters schemas of the tools offered to "
        "the model"
    )


def test_a_call_naming_no_tool_was_not_offered() -> None:
    assert offered(call(None, 100, {}), model_call(10, OBJECT)) == (
        "the tool was not offered to the model by the nearest model call before it (span chat)"
    )
