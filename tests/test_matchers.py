"""Argument matchers (regex, range, contains, partial, schema, schema: offered, sameAs): what
each passes and fails, in words that never echo a value, compiled strictly and explained."""

from __future__ import annotations

import inspect
import json
import sys
from typing import Any

import pytest

from tracecheck import check, compile_contract, explain_contract
from tracecheck.errors import ContractError
from tracecheck.rules.matchers import (
    ArgumentCheck,
    Range,
    SameAs,
    argument_problem,
    partial_mismatch,
)
from tracecheck.rules.predicates import Pattern, RuleError
from tracecheck.rules.schemas import Schema
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span

TRACE = "a" * 32
SECRET = "sk-" + "live-" + "Z9y8X7w6V5u4T3s2"  # built at run time: never in a message


def call(
    name: str,
    start: int | None,
    end: int | None,
    arguments: Any = None,
    result: Any = None,
    *,
    status: str | None = None,
    span_id: str | None = None,
) -> Span:
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
    }
    if arguments is not None:
        attributes["gen_ai.tool.call.arguments"] = json.dumps(arguments)
    if result is not None:
        attributes["gen_ai.tool.call.result"] = json.dumps(result)
    return Span(
        TRACE,
        span_id or f"{name}-{start}",
        "root",
        f"execute_tool {name}",
        start,
        end,
        status,  # type: ignore[arg-type]
        attributes=attributes,
    )


def model_call(start: int, end: int, definitions: Any, span_id: str = "chat") -> Span:
    return Span(
        TRACE,
        span_id,
        "root",
        "chat gpt-4.1-mini",
        start,
        end,
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4.1-mini",
            "gen_ai.tool.definitions": json.dumps(definitions),
        },
    )


def problem(check: ArgumentCheck, arguments: Any, pointer: str = "/x", *others: Span) -> Any:
    span = call("pay", 100, 200, arguments)
    return argument_problem(span, pointer, check, Subject([*others, span]))


def regex(source: str) -> ArgumentCheck:
    return ArgumentCheck("regex", pattern=Pattern(source))


def in_range(**bounds: Any) -> ArgumentCheck:
    return ArgumentCheck("range", range=Range(**bounds))


def partial(value: Any, *ignore: str) -> ArgumentCheck:
    return ArgumentCheck("partial", value=value, ignore=ignore)


# --- one matcher at a time -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "arguments", "expected"),
    [
        (regex(r"^A-\d+\Z"), {"x": "A-1001"}, None),
        (regex(r"^A-\d+\Z"), {"x": "B-1001"}, "argument /x (a string) does not match the pattern"),
        (regex("a"), {"x": 1}, "argument /x is a number, not a string"),
        (regex("a"), {}, "argument /x is absent"),
        (in_range(min=0, max=500, max_exclusive=True), {"x": 0}, None),
        (in_range(min=0, max=500, max_exclusive=True), {"x": 499.99}, None),
        (
            in_range(min=0, max=500, max_exclusive=True),
            {"x": 500},
            "argument /x (a number) is outside [0, 500)",
        ),
        (in_range(min=0, min_exclusive=True), {"x": 0}, "argument /x (a number) is outside (0, ∞)"),
        (in_range(max=-1.5), {"x": -2}, None),
        (in_range(min=0), {"x": "5"}, "argument /x is a string, not a number"),
        (in_range(min=0), {"x": True}, "argument /x is a boolean, not a number"),
        (ArgumentCheck("contains", value="fund"), {"x": "refund"}, None),
        (
            ArgumentCheck("contains", value="x"),
            {"x": "refund"},
            "argument /x (a string) does not contain the expected text",
        ),
        (
            ArgumentCheck("contains", value=1),
            {"x": "1"},
            "argument /x is a string, which can contain only a string",
        ),
        (ArgumentCheck("contains", value={"a": 1.0}), {"x": [0, {"a": 1}]}, None),
        (
            ArgumentCheck("contains", value=True),
            {"x": [1]},
            "argument /x (an array) has no member equal to the expected value",
        ),
        (
            ArgumentCheck("contains", value=1),
            {"x": {"1": 1}},
            "argument /x is an object, not a string or an array",
        ),
        (partial({"a": 1}), {"x": {"a": 1, "b": 2}}, None),
        (
            partial({"a": {"b": 1}}),
            {"x": {"a": {"c": 1}}},
            "argument /x does not include the expected value: /a/b is absent",
        ),
        (
            partial({"a/b": "x"}),
            {"x": {"a/b": "y"}},
            "argument /x does not include the expected value: /a~1b (a string) differs from "
            "the expected value",
        ),
        (
            partial([1, 2]),
            {"x": {"0": 1}},
            "argument /x does not include the expected value: (whole value) is an object, "
            "not an array",
        ),
        (partial({"order_id": "B", "currency": "EUR"}, "*_id"), {"x": {"currency": "EUR"}}, None),
    ],
)
def test_a_matcher(check: ArgumentCheck, arguments: Any, expected: str | None) -> None:
    assert problem(check, arguments) == expected


def test_partial_matches_array_elements_each_to_its_own_order_free() -> None:
    # A greedy choice would give the first expected element the first actual one and fail.
    expected = [{"a": 1}, {"a": 1, "b": 2}]
    assert partial_mismatch(expected, [{"a": 1, "b": 2}, {"a": 1}]) is None
    assert (
        partial_mismatch([1, 1], [1, 2])
        == "(whole value) has no distinct element including each expected element"
    )
    assert partial_mismatch([2, 1], [1, 2, 3]) is None


def test_partial_matches_arrays_without_recursing_along_the_matching() -> None:
    # Element i of the expected array is included by actual elements i-1, i and i+1: each
    # expected element takes the one before it, and the next moves them all along by one.
    size = 100
    actual = [{f"k{j}": 1 for j in (i - 1, i, i + 1)} for i in range(size)]
    expected = [{f"k{i}": 1} for i in range(size)]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 60)  # deep enough for the values, no more
    try:
        found = partial_mismatch(expected, actual)
    finally:
        sys.setrecursionlimit(limit)
    assert found is None
    assert partial_mismatch([*expected, {}], actual) == (
        "(whole value) has no distinct element including each expected element"
    )
    assert partial_mismatch([1, {}], [{}, 1]) is None


def test_partial_ignores_matching_keys_at_any_depth() -> None:
    expected = {"refund": {"order_id": "A-1", "lines": [{"sku_id": 9, "n": 1}]}}
    actual = {"refund": {"order_id": "A-2", "lines": [{"sku_id": 7, "n": 1}]}}
    assert partial_mismatch(expected, actual, ["*_id"]) is None
    assert (
        partial_mismatch(expected, actual)
        == "/refund/order_id (a string) differs from the expected value"
    )


def test_a_regex_is_searched_under_a_time_bound() -> None:
    with pytest.raises(RuleError, match="took longer than"):
        problem(regex(r"^(a|aa)+$"), {"x": "a" * 5000 + "b"})


def test_no_message_echoes_a_value() -> None:
    checks = [
        regex("^x"),
        in_range(max=1),
        ArgumentCheck("contains", value="y"),
        partial({"key": "other"}),
        ArgumentCheck("schema", schema=Schema({"properties": {"key": {"maxLength": 1}}})),
        ArgumentCheck("equals", value="z"),
    ]
    for each in checks:
        found = problem(each, {"key": SECRET, "x": SECRET}, "")
        found = found or problem(each, {"x": SECRET})
        assert found is not None
        assert SECRET not in found and "Z9y8" not in found


# --- schema --------------------------------------------------------------------------------

ORDER = {"type": "object", "properties": {"amount": {"type": "number"}}, "required": ["order_id"]}


def test_schema_names_the_failing_place_and_keyword() -> None:
    check = ArgumentCheck("schema", schema=Schema(ORDER))
    assert problem(check, {"order_id": "A", "amount": 1}, "") is None
    assert problem(check, {"amount": "1"}, "") == (
        "argument (whole value) fails the 'required' keyword of the schema (1 more failure)"
    )
    assert problem(check, {"x": {"order_id": "A", "amount": "1"}}) == (
        "argument /x/amount fails the 'type' keyword of the schema"
    )


def test_a_schema_naming_another_draft_is_read_as_that_draft() -> None:
    # Draft 4's exclusiveMaximum is a boolean beside maximum; 2020-12's is a number.
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "maximum": 5,
        "exclusiveMaximum": True,
    }
    check = ArgumentCheck("schema", schema=Schema(draft4))
    assert problem(check, {"x": 5}) == "argument /x fails the 'maximum' keyword of the schema"
    assert problem(check, {"x": 4}) is None


def test_a_schema_ref_that_cannot_be_resolved_is_an_error_not_a_fetch() -> None:
    check = ArgumentCheck("schema", schema=Schema({"$ref": "http://127.0.0.1:9/nowhere.json"}))
    with pytest.raises(RuleError, match=r"\$ref that cannot be resolved"):
        problem(check, {"x": 1})


OFFERED = ArgumentCheck("schema", schema=Schema(None))
DEFINITIONS = [
    {"type": "function", "name": "pay", "parameters": ORDER},
    {"name": "look", "input_schema": {"type": "object"}},
]


def test_offered_schema_is_the_one_of_the_nearest_model_call_before() -> None:
    before = model_call(10, 20, DEFINITIONS)
    assert problem(OFFERED, {"order_id": "A"}, "", before) is None
    assert problem(OFFERED, {"amount": 1}, "", before) == (
        "argument (whole value) fails the 'required' keyword of the offered parameters schema"
    )
    # A later offering (after the call started) is not the one the call answered.
    later = model_call(150, 160, [{"name": "pay", "parameters": {"type": "string"}}], "later")
    assert problem(OFFERED, {"order_id": "A"}, "", before, later) is None
    nearer = model_call(30, 40, [{"name": "pay", "parameters": {"type": "string"}}], "nearer")
    assert problem(OFFERED, {"order_id": "A"}, "", before, nearer) == (
        "argument (whole value) fails the 'type' keyword of the offered parameters schema"
    )


def test_offered_schema_fails_a_tool_not_offered_and_cannot_judge_without_offerings() -> None:
    only_look = model_call(10, 20, [DEFINITIONS[1]])
    assert problem(OFFERED, {}, "", only_look) == (
        "pay was not offered to the model by the nearest model call before it (span chat)"
    )
    with pytest.raises(RuleError, match="no span records the parameters schemas"):
        problem(OFFERED, {}, "")
    names_only = model_call(10, 20, ["pay", "look"])
    with pytest.raises(RuleError, match="no span records the parameters schemas"):
        problem(OFFERED, {}, "", names_only)
    without = model_call(10, 20, [{"name": "pay", "parameters": None}, DEFINITIONS[1]])
    with pytest.raises(RuleError, match="offered pay without a parameters schema"):
        problem(OFFERED, {}, "", without)
    after = model_call(300, 400, DEFINITIONS)
    with pytest.raises(RuleError, match="no span before span pay-100"):
        problem(OFFERED, {}, "", after)
    # An entry that names no tool may be the one that offered pay.
    unnamed = model_call(10, 20, [DEFINITIONS[1], {"parameters": {"type": "object"}}])
    with pytest.raises(RuleError, match=r"records the offered tools in part \(.*\), so whether "):
        problem(OFFERED, {}, "", unnamed)


def test_an_offered_schema_is_checked_against_its_meta_schema_once_per_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tracecheck.rules import schemas

    checked: list[Any] = []

    def counted(value: Any) -> str | None:
        checked.append(value)
        return original(value)

    original = schemas.schema_error
    monkeypatch.setattr(schemas, "schema_error", counted)
    calls = [call("pay", 100 + i, 101 + i, {"order_id": "A"}, span_id=f"p{i}") for i in range(3)]
    run = Subject([model_call(10, 20, DEFINITIONS), *calls])
    assert [argument_problem(c, "", OFFERED, run) for c in calls] == [None, None, None]
    assert checked == [ORDER]
    # An invalid schema is remembered as invalid: every call still cannot be judged.
    invalid = [{"name": "pay", "parameters": {"type": 5}}]
    run = Subject([model_call(10, 20, invalid), *calls])
    for each in calls:
        with pytest.raises(RuleError, match="offered pay with an invalid parameters schema"):
            argument_problem(each, "", OFFERED, run)
    assert checked == [ORDER, {"type": 5}]


# --- sameAs --------------------------------------------------------------------------------

FROM_ARGUMENT = ArgumentCheck("sameAs", same_as=SameAs("look", "/order_id"))
FROM_RESULT = ArgumentCheck("sameAs", same_as=SameAs("look", "/total", "result"))


def test_same_as_takes_an_earlier_successful_call_s_argument_or_result() -> None:
    look = call("look", 10, 20, {"order_id": "A-1"}, {"total": 42.5})
    assert problem(FROM_ARGUMENT, {"x": "A-1"}, "/x", look) is None
    assert problem(FROM_RESULT, {"x": 42.5}, "/x", look) is None
    assert problem(FROM_ARGUMENT, {"x": "A-2"}, "/x", look) == (
        "argument /x (a string) equals the argument /order_id of no successful look call "
        "that finished before it"
    )
    assert problem(FROM_RESULT, {"x": 40}, "/x", look) == (
        "argument /x (a number) equals the result /total of no successful look call that "
        "finished before it"
    )


def test_same_as_any_earlier_successful_call_will_do() -> None:
    first = call("look", 10, 20, {"order_id": "A-1"})
    second = call("look", 30, 40, {"order_id": "A-2"})
    assert problem(FROM_ARGUMENT, {"x": "A-1"}, "/x", first, second) is None
    assert problem(FROM_ARGUMENT, {"x": "A-2"}, "/x", first, second) is None


def test_same_as_never_takes_a_failed_overlapping_or_later_call() -> None:
    failed = call("look", 10, 20, {"order_id": "A-1"}, {"total": 1}, status="error")
    message = (
        "argument /x cannot come from look: no successful look call recording it finished "
        "before this call started"
    )
    assert problem(FROM_ARGUMENT, {"x": "A-1"}, "/x", failed) == message
    assert problem(FROM_RESULT, {"x": 1}, "/x", failed) == message
    overlapping = call("look", 90, 150, {"order_id": "A-1"})
    assert problem(FROM_ARGUMENT, {"x": "A-1"}, "/x", overlapping) == message
    later = call("look", 300, 400, {"order_id": "A-1"})
    assert problem(FROM_ARGUMENT, {"x": "A-1"}, "/x", later) == message
    unset = call("look", 10, 20, {"order_id": "A-1"}, status=None)
    ok = call("look", 10, 20, {"order_id": "A-1"}, status="ok")
    assert problem(FROM_ARGUMENT, {"x": "A-1"}, "/x", unset) is None
    assert problem(FROM_ARGUMENT, {"x": "A-1"}, "/x", ok) is None


def test_same_as_compares_as_json_and_needs_times() -> None:
    look = call("look", 10, 20, {"order_id": 7.0})
    assert problem(FROM_ARGUMENT, {"x": 7}, "/x", look) is None
    assert problem(FROM_ARGUMENT, {"x": True}, "/x", call("look", 10, 20, {"order_id": 1})) == (
        "argument /x (a boolean) equals the argument /order_id of no successful look call "
        "that finished before it"
    )
    untimed = call("pay", None, None, {"x": 7})
    found = argument_problem(untimed, "/x", FROM_ARGUMENT, Subject([look, untimed]))
    assert (
        found == "argument /x cannot be traced to an earlier look call: this call has no start time"
    )


def test_same_as_of_the_same_tool_never_takes_the_call_itself() -> None:
    itself = ArgumentCheck("sameAs", same_as=SameAs("pay", "/x"))
    zero = call("pay", 100, 100, {"x": 1})
    assert argument_problem(zero, "/x", itself, Subject([zero])) is not None
    earlier = call("pay", 10, 20, {"x": 1})
    assert argument_problem(zero, "/x", itself, Subject([earlier, zero])) is None


# --- in a contract -------------------------------------------------------------------------

CONTRACT = {
    "name": "refund-desk",
    "tools": {
        "arguments": [
            {"tool": "pay", "pointer": "/order_id", "regex": r"^A-\d+\Z"},
            {
                "tool": "pay",
                "pointer": "/amount",
                "range": {"min": 0, "max": 500, "maxExclusive": True},
            },
            {"tool": "pay", "pointer": "/tags", "contains": "refund"},
            {
                "tool": "pay",
                "pointer": "",
                "partial": {"currency": "EUR", "order_id": "?"},
                "ignore": ["*_id"],
            },
            {"tool": "pay", "pointer": "", "schema": ORDER},
            {"tool": "pay", "pointer": "", "schema": "offered"},
            {
                "tool": "pay",
                "pointer": "/order_id",
                "sameAs": {"tool": "look", "pointer": "/order_id"},
            },
            {"tool": "pay", "pointer": "/amount", "sameAs": {"tool": "look", "result": "/total"}},
        ]
    },
}
PAY = {"order_id": "A-1", "amount": 42.5, "tags": ["refund"], "currency": "EUR"}


def run(pay: dict[str, Any], result: Any = None) -> list[Span]:
    return [
        model_call(0, 5, DEFINITIONS),
        call("look", 10, 20, {"order_id": "A-1"}, result or {"total": 42.5}),
        model_call(25, 30, DEFINITIONS, "chat-2"),
        call("pay", 40, 50, pay),
    ]


def test_a_contract_of_every_matcher_passes_a_good_run_and_fails_each_wrong_argument() -> None:
    contract = compile_contract(CONTRACT)
    verdict = check(run(PAY), contract, capture="lenient")
    assert verdict.status == "pass", [(r.label, r.violations, r.error) for r in verdict.rules]
    wrong = {**PAY, "order_id": "A-2", "amount": 500, "tags": [], "currency": "USD"}
    verdict = check(run(wrong), contract, capture="lenient")
    failed = {rule.label for rule in verdict.rules if rule.status == "fail"}
    assert failed == {
        "tools.arguments[1] pay /amount range",
        "tools.arguments[2] pay /tags contains",
        "tools.arguments[3] pay (whole value) partial",
        "tools.arguments[6] pay /order_id sameAs",
        "tools.arguments[7] pay /amount sameAs",
    }
    (violation,) = next(r for r in verdict.rules if r.label.endswith("range")).violations
    assert (violation.span_id, violation.pointer, violation.tool) == ("pay-40", "/amount", "pay")
    assert violation.detail == "span pay-40: argument /amount (a number) is outside [0, 500)"


def test_explain_says_each_matcher_in_words() -> None:
    lines = explain_contract(compile_contract(CONTRACT)).splitlines()[2:]
    assert lines == [
        "  - tools.arguments[0] pay /order_id regex: every call matching kind=TOOL,tool=pay has "
        r"argument /order_id matching /^A-\d+\Z/",
        "  - tools.arguments[1] pay /amount range: every call matching kind=TOOL,tool=pay has "
        "argument /amount, a number in [0, 500)",
        "  - tools.arguments[2] pay /tags contains: every call matching kind=TOOL,tool=pay has "
        'argument /tags containing "refund"',
        "  - tools.arguments[3] pay (whole value) partial: every call matching kind=TOOL,tool=pay "
        'has argument (whole value) including {"currency":"EUR","order_id":"?"} (keys matching '
        "*_id not compared)",
        "  - tools.arguments[4] pay (whole value) schema: every call matching kind=TOOL,tool=pay "
        'has argument (whole value) valid against the JSON Schema {"properties":{"amount":'
        '{"type":"number"}},"required":["order_id"],"type":"object"}',
        "  - tools.arguments[5] pay (whole value) schema: every call matching kind=TOOL,tool=pay "
        "has argument (whole value) valid against the parameters schema of its tool as offered "
        "to the model",
        "  - tools.arguments[6] pay /order_id sameAs: every call matching kind=TOOL,tool=pay has "
        "argument /order_id equal to the argument /order_id of an earlier successful look call",
        "  - tools.arguments[7] pay /amount sameAs: every call matching kind=TOOL,tool=pay has "
        "argument /amount equal to the result /total of an earlier successful look call",
    ]


def refusal(entry: dict[str, Any]) -> list[str]:
    doc = {"name": "c", "tools": {"arguments": [{"tool": "pay", "pointer": "/x", **entry}]}}
    with pytest.raises(ContractError) as caught:
        compile_contract(doc)
    return [str(problem) for problem in caught.value.problems]


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (
            {"regex": "("},
            [
                "tools.arguments[0].regex: is not a valid regular expression: missing ) at position 1"
            ],
        ),
        (
            {"regex": 5},
            ["tools.arguments[0].regex: must be a regular expression (a string), not 5"],
        ),
        ({"range": {}}, ["tools.arguments[0].range: needs min, max or both"]),
        (
            {"range": {"max": 1, "minExclusive": True}},
            ["tools.arguments[0].range.minExclusive: is allowed only together with min"],
        ),
        (
            {"range": {"min": "0"}},
            ["tools.arguments[0].range.min: must be a finite number, not a string"],
        ),
        (
            {"range": {"mini": 0}},
            [
                'tools.arguments[0].range: unknown key "mini" — did you mean "min"? (allowed: min, '
                "max, minExclusive, maxExclusive)",
                "tools.arguments[0].range: needs min, max or both",
            ],
        ),
        (
            {"equals": 1, "ignore": ["*_id"]},
            ["tools.arguments[0].ignore: is allowed only together with partial"],
        ),
        (
            {"partial": {}, "ignore": "*_id"},
            [
                "tools.arguments[0].ignore: must be a non-empty array of distinct names, not a string"
            ],
        ),
        (
            {"schema": {"type": "strin"}},
            [
                "tools.arguments[0].schema: is not a valid JSON Schema: at /type, 'strin' is not "
                "valid under any of the given schemas"
            ],
        ),
        (
            {"schema": "object"},
            [
                'tools.arguments[0].schema: must be a JSON Schema (an object or a boolean) or "offered", not a string'
            ],
        ),
        (
            {"schema": "offered"},
            [
                'tools.arguments[0].schema: offered checks the whole arguments: give pointer "" (the whole value)'
            ],
        ),
        (
            {"sameAs": {"tool": "look"}},
            [
                "tools.arguments[0].sameAs: needs exactly one of pointer (into the earlier call's "
                "arguments) and result (into its result)"
            ],
        ),
        (
            {"sameAs": {"tool": "", "result": "total"}},
            [
                "tools.arguments[0].sameAs.tool: must be a non-empty string, not an empty string",
                'tools.arguments[0].sameAs.result: "total" is not a JSON Pointer: it must be "" or start with "/"',
            ],
        ),
        (
            {"partial": {}, "contains": 1},
            ["tools.arguments[0]: has 2 checks (contains, partial); give exactly one"],
        ),
    ],
)
def test_compile_refusals_are_located(entry: dict[str, Any], expected: list[str]) -> None:
    assert refusal(entry) == expected
