"""retrySafe: `retries` (contracts.md §4.10), and the canonical JSON behind call identity."""

from __future__ import annotations

import math
from typing import Any

import pytest
from test_rules_support import pairs, subject, tool

from tracecheck import read_traces
from tracecheck.rules import RetrySafe, RuleError, WriteTool
from tracecheck.rules.canonical import canonical_json, canonical_number
from tracecheck.spans import Span

KEY = "/idempotency_key"
CHARGE = WriteTool("charge_card", KEY)
EMAIL = WriteTool("send_email")
RULE = RetrySafe("retries", reads=("lookup_order",), writes=(CHARGE, EMAIL))


def charge(span_id: str | None, key: Any = None, *, status: str | None = None, **args: Any) -> Span:
    arguments: dict[str, Any] = {"amount": 42.5, "card": "tok_visa", **args}
    if key is not None:
        arguments["idempotency_key"] = key
    return tool(span_id, "charge_card", args=arguments, status=status)


def same_charge(n: int, key: Any) -> str:
    return f"write charge_card was called {n} times with the same arguments"


CASES: list[tuple[str, RetrySafe, tuple[Span, ...], list[Any]]] = [
    (
        "nothing repeats",
        RULE,
        (tool("s1", "search", args={"q": "a"}), tool("s2", "search", args={"q": "b"})),
        [],
    ),
    (
        "a call without a tool name",
        RULE,
        (tool("x", None, args={}),),
        [("x", "span x has no tool name, so whether it repeats a call is unknown")],
    ),
    (
        "reads repeat freely, errors included",
        RULE,
        (
            tool("o1", "lookup_order", args={"id": 1}, status="error"),
            tool("o2", "lookup_order", args={"id": 1}),
            tool("o3", "lookup_order"),
        ),
        [],
    ),
    (
        "an undeclared repeat",
        RULE,
        (
            tool("s1", "search", args={"q": "a", "n": 1}),
            tool("s2", "search", args={"n": 1.0, "q": "a"}),
        ),
        [
            (
                "s2",
                "search was called 2 times with the same arguments (spans s1, s2) and its side "
                "effect is not declared, so the repeat is not proven safe",
            )
        ],
    ),
    (
        "1 and true differ",
        RULE,
        (tool("s1", "search", args={"n": 1}), tool("s2", "search", args={"n": True})),
        [],
    ),
    (
        '42.5 and "42.50" differ',
        RULE,
        (tool("s1", "search", args={"n": 42.5}), tool("s2", "search", args={"n": "42.50"})),
        [],
    ),
    (
        "refs: six, then and <k> more",
        RULE,
        tuple(tool(f"s{i}", "search", args={"q": "a"}) for i in range(8)),
        [
            (
                "s1",
                "search was called 8 times with the same arguments (spans s0, s1, s2, s3, s4, s5 "
                "and 2 more) and its side effect is not declared, so the repeat is not proven safe",
            )
        ],
    ),
    (
        "unseen arguments",
        RULE,
        (tool("s1", "search", args={"q": "a"}), tool("s2", "search"), tool("s3", "search")),
        [
            (
                "s2",
                "search was called 3 times and span s2 has no captured arguments, so whether a "
                "call repeats another is unknown",
            )
        ],
    ),
    # Two calls are already a possible repeat: the one whose arguments were not captured may
    # have repeated the other (the boundary between this case and the one below).
    (
        "two calls, one unseen",
        RULE,
        (tool("s1", "search", args={"q": "a"}), tool("s2", "search")),
        [
            (
                "s2",
                "search was called 2 times and span s2 has no captured arguments, so whether a "
                "call repeats another is unknown",
            )
        ],
    ),
    ("a single unseen call", RULE, (tool("s1", "search"), tool("g", "other")), []),
    (
        "a declared write without a key pointer, repeated",
        RULE,
        (tool("e1", "send_email", args={"to": "x"}), tool("e2", "send_email", args={"to": "x"})),
        [
            (
                "e2",
                "write send_email was called 2 times with the same arguments (spans e1, e2) and "
                "declares no idempotency key, so it may have applied more than once",
            )
        ],
    ),
    # §8: charge_card twice with the same key after a timeout.
    (
        "the same key after a timeout",
        RULE,
        (charge("c1", "k-1", status="error"), charge("c2", "k-1")),
        [],
    ),
    ('42 and "42" are one key', RULE, (charge("c1", 42), charge("c2", "42")), []),
    ('42.0 and "42" are one key', RULE, (charge("c1", 42.0), charge("c2", "42")), []),
    (
        '42.5 and "42.50" are two keys',
        RULE,
        (charge("c1", 42.5), charge("c2", "42.50")),
        [
            (
                "c2",
                same_charge(2, None) + " (spans c1, c2) under 2 different idempotency keys, so the "
                "target cannot tell they are one operation",
            )
        ],
    ),
    (
        "different keys",
        RULE,
        (charge("c1", "a"), charge("c2", "b"), charge("c3", "a")),
        [
            (
                "c2",
                same_charge(3, None) + " (spans c1, c2, c3) under 2 different idempotency keys, so "
                "the target cannot tell they are one operation",
            )
        ],
    ),
    # §8 without the key: every call lacks one; the errored first call is reported once.
    (
        "the same charge twice without a key",
        RULE,
        (charge("c1", status="error"), charge("c2")),
        [
            (
                "c1",
                same_charge(2, None) + " (spans c1, c2); span c1 has no idempotency key at "
                "/idempotency_key, so it may have applied more than once",
            ),
            (
                "c2",
                same_charge(2, None) + " (spans c1, c2); span c2 has no idempotency key at "
                "/idempotency_key, so it may have applied more than once",
            ),
        ],
    ),
    (
        "not keys: empty string, boolean, object",
        RULE,
        (charge("c1", ""), charge("c2", True), charge("c3", {"k": 1}), charge("c4", "k")),
        [
            (
                f"c{i}",
                same_charge(4, None) + f" (spans c1, c2, c3, c4); span c{i} has no idempotency key "
                "at /idempotency_key, so it may have applied more than once",
            )
            for i in (1, 2, 3)
        ],
    ),
    # §8 with a contract that declares the write without a key pointer.
    (
        "a timed-out charge retried, no key declared",
        RetrySafe("retries", writes=(WriteTool("charge_card"),)),
        (charge("c1", "k", status="error"), charge("c2", "k")),
        [
            (
                "c2",
                "write charge_card was called 2 times with the same arguments (spans c1, c2) and "
                "declares no idempotency key, so it may have applied more than once",
            ),
            (
                "c1",
                "write charge_card (span c1) errored and declares no idempotency key; its outcome "
                "is unknown, so a retry cannot be proven safe",
            ),
        ],
    ),
    (
        "an errored write without a key, not repeated",
        RULE,
        (charge("c1", status="error"),),
        [
            (
                "c1",
                "write charge_card (span c1) errored and has no idempotency key at "
                "/idempotency_key; its outcome is unknown, so a retry cannot be proven safe",
            )
        ],
    ),
    (
        "an errored write without captured arguments",
        RULE,
        (tool(None, "charge_card", status="error"),),
        [
            (
                None,
                "write charge_card (span #0) errored and has no idempotency key at "
                "/idempotency_key; its outcome is unknown, so a retry cannot be proven safe",
            )
        ],
    ),
    (
        "an errored write that declares no key",
        RULE,
        (tool("e1", "send_email", args={"to": "x"}, status="error"),),
        [
            (
                "e1",
                "write send_email (span e1) errored and declares no idempotency key; its outcome "
                "is unknown, so a retry cannot be proven safe",
            )
        ],
    ),
    ("an errored write with a key", RULE, (charge("c1", "k", status="error"),), []),
    ("an errored undeclared call", RULE, (tool("s1", "search", args={}, status="error"),), []),
    (
        "a nested key pointer leaves the identity",
        RetrySafe("retries", writes=(WriteTool("pay", "/meta/key"),)),
        (
            tool("p1", "pay", args={"amount": 1, "meta": {"key": "k", "trace": 1}}),
            tool("p2", "pay", args={"meta": {"trace": 1, "key": 7}, "amount": 1.0}),
        ),
        [
            (
                "p2",
                "write pay was called 2 times with the same arguments (spans p1, p2) under 2 "
                "different idempotency keys, so the target cannot tell they are one operation",
            )
        ],
    ),
]


@pytest.mark.parametrize(("case", "rule", "spans", "expected"), CASES, ids=[c[0] for c in CASES])
def test_retry_safe(
    case: str, rule: RetrySafe, spans: tuple[Span, ...], expected: list[Any]
) -> None:
    assert pairs(rule.evaluate(subject(*spans))) == expected


def test_arguments_that_cannot_be_canonicalised_are_an_error() -> None:
    with pytest.raises(RuleError, match="cannot be canonicalized"):
        RULE.evaluate(subject(tool("s1", "search", raw_args={"x": math.nan})))


def test_describe() -> None:
    assert RetrySafe("r", ("lookup_order",), (WriteTool("charge_card", KEY),)).describe() == (
        "repeated calls are proven safe: reads lookup_order; writes charge_card keyed by /idempotency_key"
    )
    assert RetrySafe("r", writes=(CHARGE, EMAIL)).describe() == (
        "repeated calls are proven safe: writes charge_card keyed by /idempotency_key, send_email"
    )
    assert RetrySafe("r", ("a", "b")).describe() == "repeated calls are proven safe: reads a, b"


# LlamaIndex leaves a failed tool call's span unset and records the failure in its result.
TOOL_ERROR = "fixtures/producers/llama-index/openllmetry/tool-error.otlp.jsonl"


def test_a_write_whose_result_records_a_failure_errored() -> None:
    (trace,) = read_traces(TOOL_ERROR)
    refund = next(s for s in trace.spans if s.tool_name == "issue_refund")
    assert refund.status is None and refund.failed
    rule = RetrySafe("retries", writes=(WriteTool("issue_refund"),))
    assert pairs(rule.evaluate(subject(*trace.spans))) == [
        (
            refund.span_id,
            f"write issue_refund (span {refund.span_id}) errored and declares no idempotency "
            "key; its outcome is unknown, so a retry cannot be proven safe",
        )
    ]


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (0, "0"),
        (-0.0, "0"),
        (1, "1"),
        (1.0, "1"),
        (-3, "-3"),
        (42.5, "42.5"),
        (0.1, "0.1"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (10**21, "1e+21"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (5e-324, "5e-324"),
        (2**53, "9007199254740992"),
        (2**60 + 1, "1152921504606846977"),  # kept exact: no double holds it
        (333333333.33333329, "333333333.3333333"),
    ],
)
def test_canonical_numbers(number: float, text: str) -> None:
    assert canonical_number(number) == text


def test_canonical_json() -> None:
    value = {"b": [1, 2.0, 'x\n\u0001"\\'], "a": None, "\ue000": True, "\U0001f600": False}
    assert canonical_json(value) == (
        '{"a":null,"b":[1,2,"x\\n\\u0001\\"\\\\"],"\U0001f600":false,"\ue000":true}'
    )
    assert canonical_json({"b": 1, "a": 2}) == canonical_json({"a": 2.0, "b": 1.0})


@pytest.mark.parametrize("value", [math.nan, math.inf, [b"bytes"], {1: "non-string key"}])
def test_canonical_json_refuses_what_is_not_json(value: Any) -> None:
    with pytest.raises(RuleError):
        canonical_json(value)
