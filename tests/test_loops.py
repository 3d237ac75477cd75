"""Loops and redundancy (issue 28, item 5): equal calls repeated, one tool in a row, repeating
cycles of calls; each with its exact messages, its reading of calls without times or arguments,
and its place in a compiled contract."""

from __future__ import annotations

from typing import Any

import pytest
from test_rules_support import llm, pairs, subject, tool

from tracecheck import check, compile_contract, explain_contract
from tracecheck.errors import ContractError
from tracecheck.rules.capture import TOOLS, reads_calls
from tracecheck.rules.loops import (
    ConsecutiveCalls,
    RepeatedCalls,
    RepeatedCycles,
    Run,
    periodic_runs,
    symbols,
)
from tracecheck.rules.predicates import RuleError
from tracecheck.spans import Span


def calls(*names: str | None, args: Any = None) -> list[Span]:
    """One call per name, a millisecond apart, in reverse array order (start order rules)."""
    made = [tool(f"t{i}", name, i, i + 0.5, args=args) for i, name in enumerate(names)]
    return made[::-1]


# ------------------------------------------------------------------------------- maxRepeats


def test_repeats_count_calls_with_equal_arguments_whatever_their_key_order() -> None:
    spans = [
        tool("a1", "lookup", 0, 1, args={"id": "A-1", "n": 1}),
        tool("b1", "lookup", 2, 3, args={"id": "B-2", "n": 1}),
        tool("a2", "lookup", 4, 5, args={"n": 1.0, "id": "A-1"}),
        tool("a3", "lookup", 6, 7, args={"id": "A-1", "n": 1}),
        tool("o1", "other", 8, 9, args={"id": "A-1", "n": 1}),
    ]
    assert RepeatedCalls("r", 3).evaluate(subject(*spans)) == []
    assert pairs(RepeatedCalls("r", 1).evaluate(subject(*spans))) == [
        (
            "a2",
            'span a2 ("execute_tool lookup") calls lookup with the same arguments as span a1: 3 '
            "calls with equal arguments, over the limit of 1",
        )
    ]


def test_calls_whose_arguments_were_not_captured_leave_a_repeated_tool_unjudged() -> None:
    spans = [tool(f"t{i}", "lookup", i, i + 1) for i in range(5)]
    assert all(not span.arguments.known for span in spans)
    with pytest.raises(RuleError) as raised:
        RepeatedCalls("r", 1).evaluate(subject(*spans))
    assert str(raised.value) == (
        "calls whose arguments were not captured may repeat others: lookup (span t0)"
    )
    # Called no more often than the limit, the tool cannot break it whatever its arguments.
    assert RepeatedCalls("r", 5).evaluate(subject(*spans)) == []


# --------------------------------------------------------------------------- maxConsecutive


def test_consecutive_calls_in_start_order() -> None:
    spans = calls("a", "a", "a", "b", "a", "a", "a", "a")
    assert ConsecutiveCalls("c", 4).evaluate(subject(*spans)) == []
    assert pairs(ConsecutiveCalls("c", 3).evaluate(subject(*spans))) == [
        (
            "t7",
            'span t7 ("execute_tool a") is call 4 of a in a row (4 in a row from span t4), over '
            "the limit of 3",
        )
    ]
    assert [ref for ref, _ in pairs(ConsecutiveCalls("c", 2).evaluate(subject(*spans)))] == [
        "t2",
        "t6",
    ]


def test_calls_that_do_not_name_their_tool_are_not_one_tool() -> None:
    assert ConsecutiveCalls("c", 1).evaluate(subject(*calls(None, None, None))) == []


def test_a_call_without_a_start_time_has_no_place_in_the_order() -> None:
    spans = [*calls("a", "b"), tool("u", "a", None, None)]
    expected = [
        (
            "u",
            'span u ("execute_tool a") has no start time, so its place in the order of calls is unknown',
        )
    ]
    assert pairs(ConsecutiveCalls("c", 5).evaluate(subject(*spans))) == expected
    assert pairs(RepeatedCycles("y", 5).evaluate(subject(*spans))) == expected


# -------------------------------------------------------------------------------- maxCycles


def test_a_cycle_repeated_more_than_the_limit_is_named_at_its_next_repetition() -> None:
    spans = calls("lookup", "search", "lookup", "search", "lookup", "search", "answer")
    assert RepeatedCycles("y", 3).evaluate(subject(*spans)) == []
    assert pairs(RepeatedCycles("y", 2).evaluate(subject(*spans))) == [
        (
            "t4",
            'span t4 ("execute_tool lookup") begins repetition 3 of the cycle lookup → search, '
            "which runs 3 times in a row from span t0, over the limit of 2",
        )
    ]


def test_a_cycle_compares_tools_not_arguments() -> None:
    spans = [
        tool(f"t{i}", name, i, i + 0.5, args={"page": i})
        for i, name in enumerate(["list", "read"] * 3)
    ]
    assert [v.span_id for v in RepeatedCycles("y", 2).evaluate(subject(*spans))] == ["t4"]


def test_one_tool_repeated_is_no_cycle_and_a_long_cycle_is_shortened() -> None:
    assert RepeatedCycles("y", 1).evaluate(subject(*calls(*"aaaaaa"))) == []
    block = [f"tool{i}" for i in range(8)]
    (violation,) = RepeatedCycles("y", 1).evaluate(subject(*calls(*block, *block)))
    assert "the cycle tool0 → tool1 → tool2 → tool3 → tool4 → tool5 → … (8 calls)" in (
        violation.detail
    )


def test_periodic_runs_are_maximal_and_primitive() -> None:
    seq = symbols(list("xababababy"))
    assert periodic_runs(seq, 2) == [Run(1, 2, 8)]  # `abab` is the block `ab`
    assert periodic_runs(seq, 4) == [Run(1, 2, 8)]
    assert periodic_runs(seq, 5) == []
    assert periodic_runs(symbols(list("abcabcab")), 2) == [Run(0, 3, 8)]
    with pytest.raises(ValueError):
        periodic_runs(seq, 1)


def test_symbols_keep_equal_names_equal_and_missing_names_apart() -> None:
    assert symbols(["a", None, "b", "a", None]) == [1, 5, 2, 1, 6]


# ------------------------------------------------------------------------- in a contract

LOOPS: dict[str, Any] = {
    "name": "loops",
    "loops": {"maxRepeats": 1, "maxConsecutive": 3, "maxCycles": 2},
}


def test_labels_explain_and_capture() -> None:
    contract = compile_contract(LOOPS)
    assert [rule.label for rule in contract.rules] == [
        "loops.maxRepeats",
        "loops.maxConsecutive",
        "loops.maxCycles",
    ]
    assert all(reads_calls(rule) == {TOOLS} for rule in contract.rules)
    assert explain_contract(contract).splitlines()[2:] == [
        "  - loops.maxRepeats: at most 1 call(s) of one tool with equal arguments (a tool "
        "called more often, some of whose calls' arguments were not captured, cannot be judged)",
        "  - loops.maxConsecutive: at most 3 call(s) of one tool in a row (start order)",
        "  - loops.maxCycles: no cycle of two or more calls repeats more than 2 time(s) in a row "
        "(compared by tool, start order)",
    ]


def test_a_run_without_tool_calls_cannot_confirm_capture() -> None:
    verdict = check([llm("c1")], compile_contract(LOOPS))
    assert {r.status for r in verdict.rules} == {"error"}


def test_the_loops_key_compiles_strictly() -> None:
    with pytest.raises(ContractError) as caught:
        compile_contract({"name": "c", "loops": {"maxRepeat": 1, "maxCycles": 0}})
    assert [str(p) for p in caught.value.problems] == [
        'loops: unknown key "maxRepeat" — did you mean "maxRepeats"? (allowed: maxRepeats, '
        "maxConsecutive, maxCycles)",
        "loops.maxCycles: must be an integer ≥ 1, not 0",
    ]
    with pytest.raises(ContractError) as caught:
        compile_contract({"name": "c", "loops": {}})
    assert [str(p) for p in caught.value.problems] == [
        "loops: checks nothing: give maxRepeats, maxConsecutive or maxCycles"
    ]


def test_a_run_hashes_measured_wrong_is_measured_again_item_by_item() -> None:
    from tracecheck.rules.loops import _checked

    seq = symbols(list("xababababy"))
    assert _checked(seq, 2, 1, 8) == (1, 8)
    assert _checked(seq, 2, 1, 4) == (1, 8)  # as a hash collision could have it


def test_a_run_found_by_colliding_hashes_is_kept_only_if_it_repeats_enough(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hashes of different stretches collide about once in 2**61 comparisons: simulated here by
    hashes that call every two stretches equal. Measured again item by item, `1 2 1` is one
    repetition and a half of `1 2`: no run."""
    from tracecheck.rules import loops

    monkeypatch.setattr(loops._Hashes, "same", lambda self, i, j, length: True)
    assert periodic_runs([1, 2, 1, 3, 4, 5, 6, 7], 2) == []
    assert periodic_runs([1, 2, 1, 2, 9, 5, 6, 7], 2) == [loops.Run(0, 2, 4)]
