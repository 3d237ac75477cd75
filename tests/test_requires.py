"""`tools.requires`: a tool runs only after another succeeded, on the same values when asked;
read from recorded runs of real producers and from spans made here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tracecheck import check, compile_contract, explain_contract, lint_contract, read_traces
from tracecheck.rules.predicates import RuleError
from tracecheck.rules.requires import Requires
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
TRACE = "b" * 32
SECRET_ID = "A-" + "424242424242"


def call(
    name: str, start: int | None, end: int | None, status: str | None = None, **args: Any
) -> Span:
    return Span(
        TRACE,
        f"{name}-{start}",
        "root",
        f"execute_tool {name}",
        start,
        end,
        status,  # type: ignore[arg-type]
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.arguments": json.dumps(args),
        },
    )


def details(rule: Requires, *spans: Span) -> list[tuple[str | None, str, str | None]]:
    return [(v.span_id, v.detail, v.pointer) for v in rule.evaluate(Subject(spans))]


PLAIN = Requires("r", "pay", "look")
SAME = Requires("r", "pay", "look", ("/order_id",))


def test_a_call_after_a_successful_one_passes_and_one_before_fails() -> None:
    assert details(PLAIN, call("look", 0, 10), call("pay", 10, 20)) == []
    assert details(PLAIN, call("look", 0, 10, "ok"), call("pay", 20, 30)) == []
    assert details(PLAIN, call("pay", 0, 5), call("look", 10, 20), call("pay", 30, 40)) == [
        ("pay-0", "span pay-0: pay runs before any successful look call finished", None)
    ]
    # Overlapping: the earlier call had not finished when the later one started.
    assert details(PLAIN, call("look", 0, 15), call("pay", 10, 20)) == [
        ("pay-10", "span pay-10: pay runs before any successful look call finished", None)
    ]
    assert details(PLAIN) == []  # no call of the tool: nothing to precede


def test_a_failed_call_never_satisfies_it() -> None:
    assert details(PLAIN, call("look", 0, 10, "error"), call("pay", 20, 30)) == [
        (
            "pay-20",
            "span pay-20: pay runs after look failed, with no successful look call finished "
            "before it",
            None,
        )
    ]


def test_missing_times_prove_nothing() -> None:
    # As neverUnless says it: the earlier call may have finished in time, or not.
    assert details(PLAIN, call("look", 0, None), call("pay", 20, 30)) == [
        (
            "pay-20",
            "span pay-20: no successful look call is known to have finished before it: span "
            "look-0 has no end time, so its order cannot be proven",
            None,
        )
    ]
    assert details(PLAIN, call("look", 0, None), call("look", 0, 10), call("pay", 20, 30)) == []
    unended = call("look", 0, None, order_id="A-1")
    assert details(SAME, unended, call("pay", 20, 30, order_id="A-1")) == [
        (
            "pay-20",
            "span pay-20: no successful look call is known to have finished before it: span "
            "look-0 has no end time, so its order cannot be proven",
            None,
        )
    ]
    other = call("look", 5, 10, order_id="A-2")
    assert details(SAME, unended, other, call("pay", 20, 30, order_id="A-1")) == [
        (
            "pay-20",
            "span pay-20: no successful look call is known to have finished before it: span "
            "look-0 has no end time, so its order cannot be proven",
            None,
        )
    ]
    assert details(PLAIN, call("look", 0, 10), call("pay", None, 30)) == [
        ("pay-None", "span pay-None: it has no start time, so what ran before it is unknown", None)
    ]


def test_same_values_name_the_pointer_never_the_value() -> None:
    looked = call("look", 0, 10, order_id=SECRET_ID)
    assert details(SAME, looked, call("pay", 20, 30, order_id=SECRET_ID)) == []
    found = details(SAME, looked, call("pay", 20, 30, order_id="A-2"))
    assert found == [
        (
            "pay-20",
            "span pay-20: argument /order_id equals the argument /order_id of no successful "
            "look call that finished before it",
            "/order_id",
        )
    ]
    assert SECRET_ID not in repr(found)
    assert details(SAME, looked, call("pay", 20, 30)) == [
        ("pay-20", "span pay-20: argument /order_id is absent", "/order_id")
    ]


def test_same_values_come_from_one_earlier_call_and_never_a_failed_one() -> None:
    both = Requires("r", "pay", "look", ("/order_id", "/shop"))
    first = call("look", 0, 10, order_id="A-1", shop="s1")
    second = call("look", 10, 20, order_id="A-2", shop="s2")
    assert details(both, first, second, call("pay", 30, 40, order_id="A-2", shop="s2")) == []
    assert details(both, first, second, call("pay", 30, 40, order_id="A-1", shop="s2")) == [
        (
            "pay-30",
            "span pay-30: no single successful look call that finished before it has the same "
            "/order_id, /shop",
            "/order_id",
        )
    ]
    failed = call("look", 0, 10, "error", order_id="A-1")
    good = call("look", 0, 10, order_id="A-9")
    assert details(SAME, failed, good, call("pay", 20, 30, order_id="A-1")) == [
        (
            "pay-20",
            "span pay-20: argument /order_id equals the argument /order_id of no successful "
            "look call that finished before it",
            "/order_id",
        )
    ]


def unrecorded(name: str, start: int, end: int) -> Span:
    """A successful call whose arguments were not captured."""
    return Span(
        TRACE,
        f"{name}-{start}",
        "root",
        f"execute_tool {name}",
        start,
        end,
        attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name},
    )


def test_same_values_of_an_earlier_call_whose_arguments_were_not_recorded_are_unknown() -> None:
    blind = unrecorded("look", 0, 10)
    assert not blind.arguments.known
    with pytest.raises(RuleError) as caught:
        details(SAME, blind, call("pay", 20, 30, order_id="A-1"))
    assert str(caught.value) == (
        "span pay-20: the arguments of an earlier successful look call were not recorded, so "
        "whether one has the same /order_id is unknown"
    )
    contract = {
        "name": "c",
        "tools": {"requires": [{"tool": "pay", "after": "look", "same": ["/order_id"]}]},
    }
    (result,) = check(
        [blind, call("pay", 20, 30, order_id="A-1")], compile_contract(contract)
    ).rules
    assert result.status == "error"
    # Another earlier call settles it; a later unrecorded call leaves nothing open.
    settled = call("look", 5, 10, order_id="A-1")
    assert details(SAME, blind, settled, call("pay", 20, 30, order_id="A-1")) == []
    later = unrecorded("look", 40, 50)
    assert details(SAME, later, call("pay", 20, 30, order_id="A-1")) == [
        ("pay-20", "span pay-20: pay runs before any successful look call finished", None)
    ]
    # A call that fails fails the rule, whatever another call leaves open.
    assert details(
        SAME,
        blind,
        call("pay", 20, 30, order_id="A-1"),
        call("pay", 5, 8, order_id="A-1"),
    ) == [("pay-5", "span pay-5: pay runs before any successful look call finished", None)]


def test_equal_values_compare_as_json() -> None:
    assert details(SAME, call("look", 0, 10, order_id=7.0), call("pay", 20, 30, order_id=7)) == []
    assert details(SAME, call("look", 0, 10, order_id=1), call("pay", 20, 30, order_id=True))


def test_a_tool_requiring_itself_never_takes_the_call_itself() -> None:
    rule = Requires("r", "pay", "pay")
    assert len(details(rule, call("pay", 0, 0))) == 1
    assert details(rule, call("pay", 0, 0), call("pay", 5, 6))[0][0] == "pay-0"


# --- in a contract, on recorded runs -------------------------------------------------------

CONTRACT = {
    "name": "refund-desk",
    "tools": {
        "requires": [{"tool": "issue_refund", "after": "lookup_order", "same": ["/order_id"]}]
    },
}
RECORDED = [
    "frameworks/pydantic-ai/clean.otlp.jsonl",
    "producers/vercel-ai-v5/clean.otlp.json",
    "producers/mlflow/default/clean.otlp.jsonl",
    "producers/langgraph-openllmetry/v0.62/clean.otlp.jsonl",
    "producers/google-adk/openinference/clean.otlp.jsonl",
]


@pytest.mark.parametrize("name", RECORDED)
def test_recorded_runs_look_the_order_up_before_refunding_it(name: str) -> None:
    (trace,) = read_traces(FIXTURES / name)
    verdict = check(trace, compile_contract(CONTRACT))
    assert verdict.status == "pass", [(r.label, r.violations, r.error) for r in verdict.rules]
    reversed_contract = {
        "name": "backwards",
        "tools": {"requires": [{"tool": "lookup_order", "after": "issue_refund"}]},
    }
    (rule,) = check(trace, compile_contract(reversed_contract)).rules
    assert rule.status == "fail"
    assert rule.violations[0].detail.endswith(
        "lookup_order runs before any successful issue_refund call finished"
    )


def test_explain_lint_and_the_label() -> None:
    contract = compile_contract(CONTRACT)
    assert explain_contract(contract).splitlines()[-1] == (
        "  - tools.requires[0] issue_refund after lookup_order: every call of issue_refund starts "
        "after a successful call of lookup_order ended, one with the same arguments at /order_id"
    )
    assert lint_contract(CONTRACT) == []
