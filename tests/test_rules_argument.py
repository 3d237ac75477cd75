"""argument(p, pointer, check, occurrence) and JSON Pointer resolution (contracts.md §4.8)."""

from __future__ import annotations

from typing import Any

import pytest
from test_rules_support import pairs, subject, tool, tool_p

from tracecheck.rules import Argument, ArgumentCheck, RuleError
from tracecheck.rules.pointers import ABSENT, parse_pointer, pointer_of, resolve
from tracecheck.spans import Span

READ = tool_p("Read")
EXISTS = ArgumentCheck("exists")


def equals(value: Any) -> ArgumentCheck:
    return ArgumentCheck("equals", value=value)


def one_of(*values: Any) -> ArgumentCheck:
    return ArgumentCheck("oneOf", values=values)


def of_type(name: str) -> ArgumentCheck:
    return ArgumentCheck("type", type=name)


def check(pointer: str, rule_check: ArgumentCheck, *spans: Span, occurrence: str = "all") -> Any:
    rule = Argument("arg", READ, pointer, rule_check, occurrence)  # type: ignore[arg-type]
    return pairs(rule.evaluate(subject(*spans)))


ARGS = {
    "file_path": "/etc/secret-token-abc",
    "n": 1,
    "flag": True,
    "nothing": None,
    "obj": {"b": 2, "a": [1, {"c": "x"}]},
    "arr": [10, 20, 30],
    "a/b": "slash",
    "m~n": "tilde",
    "": "empty key",
    "nested_json": '{"inner": 1}',
}
CALL = tool("t", "Read", args=ARGS)


def ok(pointer: str, rule_check: ArgumentCheck) -> tuple[str, ArgumentCheck, str | None]:
    return (pointer, rule_check, None)


def bad(pointer: str, rule_check: ArgumentCheck, reason: str) -> tuple[str, ArgumentCheck, str]:
    return (pointer, rule_check, reason)


SINGLE = [
    ok("/file_path", EXISTS),
    ok("/nothing", EXISTS),  # a resolved null exists
    bad("/missing", EXISTS, "argument /missing is absent"),
    ok("/file_path", of_type("string")),
    bad("/file_path", of_type("number"), "argument /file_path is a string, not a number"),
    bad("/n", of_type("boolean"), "argument /n is a number, not a boolean"),
    bad("/flag", of_type("number"), "argument /flag is a boolean, not a number"),
    bad("/obj", of_type("array"), "argument /obj is an object, not an array"),
    bad("/arr", of_type("object"), "argument /arr is an array, not an object"),
    bad("/nothing", of_type("string"), "argument /nothing is null, not a string"),
    bad("/n", of_type("null"), "argument /n is a number, not null"),
    bad("/missing", of_type("string"), "argument /missing is absent"),
    ok("", of_type("object")),
    bad("", of_type("array"), "argument (whole value) is an object, not an array"),
    # 1 vs 1.0 vs true
    ok("/n", equals(1)),
    ok("/n", equals(1.0)),
    bad("/n", equals(True), "argument /n (a number) does not equal the expected value"),
    bad("/flag", equals(1), "argument /flag (a boolean) does not equal the expected value"),
    ok("/flag", equals(True)),
    bad("/n", equals("1"), "argument /n (a number) does not equal the expected value"),
    ok("/nothing", equals(None)),
    bad(
        "/file_path",
        equals(None),
        "argument /file_path (a string) does not equal the expected value",
    ),
    ok("/obj", equals({"a": [1, {"c": "x"}], "b": 2.0})),  # key order is free
    bad(
        "/obj",
        equals({"a": [{"c": "x"}, 1], "b": 2}),
        "argument /obj (an object) does not equal the expected value",
    ),
    bad("/missing", equals(None), "argument /missing is absent"),
    ok("/n", one_of("1", 1.0)),
    bad("/n", one_of("1", True), "argument /n (a number) is not one of the expected values"),
    bad("/nothing", one_of(0, ""), "argument /nothing (null) is not one of the expected values"),
    # RFC 6901 escapes and array tokens
    ok("/a~1b", equals("slash")),
    ok("/m~0n", equals("tilde")),
    bad("/a/b", EXISTS, "argument /a/b is absent"),
    ok("/", equals("empty key")),
    ok("/arr/0", equals(10)),
    ok("/arr/2", equals(30)),
    bad("/arr/3", EXISTS, "argument /arr/3 is absent"),
    bad("/arr/01", EXISTS, "argument /arr/01 is absent"),
    bad("/arr/-", EXISTS, "argument /arr/- is absent"),
    bad("/arr/-1", EXISTS, "argument /arr/-1 is absent"),
    bad("/arr/+1", EXISTS, "argument /arr/+1 is absent"),
    ok("/obj/a/1/c", equals("x")),
    bad("/obj/a/1/c/d", EXISTS, "argument /obj/a/1/c/d is absent"),
    bad("/n/0", EXISTS, "argument /n/0 is absent"),
    # a nested string is a string, even one holding JSON
    bad("/nested_json/inner", EXISTS, "argument /nested_json/inner is absent"),
]


@pytest.mark.parametrize(("pointer", "rule_check", "reason"), SINGLE)
def test_one_call(pointer: str, rule_check: ArgumentCheck, reason: str | None) -> None:
    expected = [] if reason is None else [("t", f"span t: {reason}")]
    assert check(pointer, rule_check, CALL) == expected


def test_messages_never_echo_the_value() -> None:
    for pointer, rule_check, _ in SINGLE:
        for _, detail in check(pointer, rule_check, CALL):
            assert "secret-token" not in detail and "slash" not in detail


@pytest.mark.parametrize(
    ("call", "pointer", "reason"),
    [
        (tool("t", "Read", raw_args="cat /etc/passwd |"), "/x", "argument /x is absent"),
        (tool("t", "Read", raw_args="cat /etc/passwd |"), "/0", "argument /0 is absent"),
        (tool("t", "Read", raw_args="not json"), "", None),
        (tool("t", "Read", raw_args='"json string"'), "", None),
        (tool("t", "Read", raw_args="[1, 2]"), "/1", "argument /1 is a number, not a string"),
        (
            tool("t", "Read", args={"x": 1}, extra={"tool.args_captured": False}),
            "/x",
            "arguments were not captured",
        ),
        (tool("t", "Read"), "/x", "the span carries no argument evidence"),
        (tool("t", "Read", raw_args={"x": "structured"}), "/x", None),
    ],
)
def test_argument_evidence(call: Span, pointer: str, reason: str | None) -> None:
    expected = [] if reason is None else [("t", f"span t: {reason}")]
    assert check(pointer, of_type("string"), call) == expected


def test_no_matching_call() -> None:
    assert check("/x", EXISTS, tool("g", "Grep", args={"x": 1})) == [
        (None, "no span matches kind=TOOL,tool=Read, so there is no argument evidence to check")
    ]


GOOD = {"file_path": "a.txt"}
BAD = {"file_path": 3}


@pytest.mark.parametrize(
    ("occurrence", "spans", "expected"),
    [
        ("all", (tool("1", "Read", 0, args=GOOD), tool("2", "Read", 1, args=GOOD)), []),
        (
            "all",
            (tool("1", "Read", 0, args=BAD), tool("2", "Read", 1, args=GOOD), tool("3", "Read")),
            [
                ("1", "span 1: argument /file_path is a number, not a string"),
                ("3", "span 3: the span carries no argument evidence"),
            ],
        ),
        ("any", (tool("1", "Read", args=BAD), tool("2", "Read", args=GOOD)), []),
        (
            "any",
            (tool("1", "Read", args=BAD), tool("2", "Read")),
            [
                ("1", "span 1: argument /file_path is a number, not a string"),
                ("2", "span 2: the span carries no argument evidence"),
            ],
        ),
        # first/last choose by start time, not by array position.
        (
            "first",
            (tool("1", "Read", 5, args=GOOD), tool("2", "Read", 1, args=BAD)),
            [("2", "span 2: argument /file_path is a number, not a string")],
        ),
        ("last", (tool("1", "Read", 5, args=GOOD), tool("2", "Read", 1, args=BAD)), []),
        ("first", (tool("1", "Read", 1, args=GOOD), tool("2", "Read", 5, args=BAD)), []),
        (
            "last",
            (tool("1", "Read", 1, args=GOOD), tool("2", "Read", 5, args=BAD)),
            [("2", "span 2: argument /file_path is a number, not a string")],
        ),
        # ties keep array order
        (
            "first",
            (tool("1", "Read", 1, args=BAD), tool("2", "Read", 1, args=GOOD)),
            [("1", "span 1: argument /file_path is a number, not a string")],
        ),
        ("last", (tool("1", "Read", 1, args=BAD), tool("2", "Read", 1, args=GOOD)), []),
        # a single match needs no start time
        ("first", (tool("1", "Read", args=GOOD),), []),
        (
            "last",
            (tool("1", "Read", args=BAD),),
            [("1", "span 1: argument /file_path is a number, not a string")],
        ),
        # several matches need every start time
        (
            "first",
            (
                tool("1", "Read", 1, args=GOOD),
                tool("2", "Read", args=GOOD),
                tool(None, "Read", args=GOOD),
            ),
            [
                ("2", "span 2 has no start time, so the first call cannot be chosen"),
                (None, "span #2 has no start time, so the first call cannot be chosen"),
            ],
        ),
        (
            "last",
            (tool("1", "Read", args=GOOD), tool("2", "Read", 1, args=GOOD)),
            [("1", "span 1 has no start time, so the last call cannot be chosen")],
        ),
    ],
)
def test_occurrence(occurrence: str, spans: tuple[Span, ...], expected: list[Any]) -> None:
    assert check("/file_path", of_type("string"), *spans, occurrence=occurrence) == expected


@pytest.mark.parametrize(
    ("pointer", "value", "expected"),
    [
        ("", {"a": 1}, {"a": 1}),
        ("/a", {"a": 1}, 1),
        ("/a", {"b": 1}, ABSENT),
        ("/~01", {"~1": "x", "/": "y"}, "x"),
        ("/~1", {"~1": "x", "/": "y"}, "y"),
        ("/0", ["z"], "z"),
        ("/00", ["z"], ABSENT),
        ("/1", ["z"], ABSENT),
        ("/-", ["z"], ABSENT),
        ("/0", {"0": "k"}, "k"),
        ("/01", {"01": "k"}, "k"),
        ("/x", "text", ABSENT),
        ("/x", None, ABSENT),
    ],
)
def test_resolve(pointer: str, value: Any, expected: Any) -> None:
    assert resolve(value, pointer) == expected


@pytest.mark.parametrize("pointer", ["a", "/bad~2escape", "/trailing~"])
def test_a_malformed_pointer_cannot_be_evaluated(pointer: str) -> None:
    with pytest.raises(RuleError, match="invalid JSON Pointer"):
        check(pointer, EXISTS, CALL)


@pytest.mark.parametrize(
    ("pointer", "rule_check", "occurrence", "text"),
    [
        (
            "/file_path",
            of_type("string"),
            "all",
            "every call matching kind=TOOL,tool=Read has argument /file_path of type string",
        ),
        (
            "/file_path",
            EXISTS,
            "any",
            "some call matching kind=TOOL,tool=Read has argument /file_path",
        ),
        (
            "/mode",
            equals("fast"),
            "first",
            'the first call matching kind=TOOL,tool=Read has argument /mode equal to "fast"',
        ),
        (
            "/n",
            one_of(1, "a"),
            "last",
            'the last call matching kind=TOOL,tool=Read has argument /n equal to one of 1, "a"',
        ),
        (
            "",
            of_type("object"),
            "all",
            "every call matching kind=TOOL,tool=Read has argument (whole value) of type object",
        ),
    ],
)
def test_describe(pointer: str, rule_check: ArgumentCheck, occurrence: str, text: str) -> None:
    rule = Argument("arg", READ, pointer, rule_check, occurrence)  # type: ignore[arg-type]
    assert rule.describe() == text


def test_pointer_of_escapes_each_token_and_parses_back() -> None:
    tokens = ("a/b~", 0, "~1", "")
    assert pointer_of(tokens) == "/a~1b~0/0/~01/"
    assert parse_pointer(pointer_of(tokens)) == ("a/b~", "0", "~1", "")
    assert pointer_of(()) == ""
