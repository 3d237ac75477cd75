"""Edges of the order machinery: matching a reference by key (a tool name), each (expected,
call) pair judged once, the bisection that finds where a parallel group ends, exact mode's
groups; earlier calls that never witness themselves; steps of calls made inside other calls
(through intermediate spans, parent cycles), calls at time zero or without an end, built once
per subject."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from tracecheck.rules.alignment import assign, in_order, lockstep
from tracecheck.rules.earlier import Calls
from tracecheck.rules.steps import tool_steps
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span

TRACE = "e" * 32


def by_letter(item: str) -> object:
    """The key of an expected entry or call: its letter (`a1` and `a2` are calls of tool a)."""
    return item[0]


def anything(expected: str, call: str) -> bool:
    """A `holds` that accepts any call: only the key keeps entries to calls of their tool."""
    return True


def counted(holds: Callable[[str, str], bool]) -> tuple[Callable[[str, str], bool], Counter]:
    asked: Counter = Counter()

    def judged(expected: str, call: str) -> bool:
        asked[expected, call] += 1
        return holds(expected, call)

    return judged, asked


# ------------------------------------------------------------------------------ in_order


def test_a_group_is_sought_from_the_first_step_holding_a_call_of_its_keys() -> None:
    # c0 fits every entry by `holds`, but no entry has key c: the group starts at a1.
    walk = in_order([["a", "b"]], [["c0"], ["a1"], ["b2"]], anything, by_letter)
    assert walk.found == ((1, 2),)
    assert walk.pairs == (((0, 0), (1, 0)), ((0, 1), (2, 0)))


def test_a_group_ends_at_the_first_step_with_a_call_of_each_key() -> None:
    # Without the key, c1 could stand for b and the group would end at step 1.
    walk = in_order([["a", "b"]], [["a0"], ["c1"], ["b2"]], anything, by_letter)
    assert walk.found == ((0, 2),)
    assert walk.pairs == (((0, 0), (0, 0)), ((0, 1), (2, 0)))


def test_without_a_key_any_call_that_holds_may_stand_for_a_member() -> None:
    walk = in_order([["a", "b"]], [["a0"], ["c1"], ["b2"]], anything)
    assert walk.found == ((0, 1),)
    walk = in_order([["a", "b"]], [["c0"], ["a1"], ["b2"]], lambda e, c: c[0] in "ab")
    assert walk.found == ((1, 2),)


@pytest.mark.parametrize("length", range(2, 9))
def test_a_group_ends_at_the_step_its_last_member_is_found(length: int) -> None:
    # Every end from the step after the first to the last run step, found by bisection.
    for last in range(1, length):
        run = [["a0"]] + [["x"]] * (length - 1)
        run[last] = ["b"]
        walk = in_order([["a", "b"]], run, lambda e, c: e[0] == c[0], by_letter)
        assert walk.found == ((0, last),)


def test_each_expected_call_is_judged_once_against_each_call() -> None:
    holds, asked = counted(lambda e, c: e[0] == c[0])
    run = [["a0"], ["x1"], ["x2"], ["x3"], ["x4"], ["x5"], ["b6"], ["x7"]]
    walk = in_order([["a", "b"]], run, holds)
    assert walk.found == ((0, 6),)
    assert asked and max(asked.values()) == 1


def test_assign_judges_each_pair_once_when_it_tries_to_move_entries() -> None:
    # a takes call 1; b fits only call 1, so a is asked to move, and call 0 is not asked again.
    fits = {("a", "1"), ("b", "1")}
    holds, asked = counted(lambda e, c: (e, c) in fits)
    matching = assign(["a", "b"], ["0", "1"], holds)
    assert (matching.pairs, matching.missing, matching.extra) == (((0, 1),), (1,), (0,))
    assert max(asked.values()) == 1


# ------------------------------------------------------------------------------ lockstep


@pytest.mark.parametrize(
    ("run", "parted"),
    [
        pytest.param([["a0", "b1"]], None, id="group-in-one-step"),
        pytest.param([["a0"], ["b1"]], None, id="group-over-two-steps"),
        pytest.param([["a0", "b1", "a2"]], 0, id="group-step-holds-an-extra-call"),
        pytest.param([["a0", "a1"]], 0, id="group-of-the-right-size-missing-b"),
        pytest.param([["a0", "c1"]], 0, id="a-call-of-another-key"),
        pytest.param([["a0", "b1"], ["c2"]], 1, id="a-step-left-over"),
        pytest.param([["a0"]], 0, id="group-cut-short"),
    ],
)
def test_lockstep_parts_where_a_group_does_not_hold_exactly_its_members(
    run: list[list[str]], parted: int | None
) -> None:
    assert lockstep([["a", "b"]], [True], run, anything, by_letter) == parted


def test_lockstep_without_a_key_takes_any_call_that_holds() -> None:
    assert lockstep([["a", "b"]], [True], [["a0", "c1"]], anything) is None


# ------------------------------------------------------------------------- earlier calls


def call(span_id: str, start: int | None, end: int | None, parent: str | None = None) -> Span:
    return Span(
        TRACE,
        span_id,
        parent,
        f"execute_tool {span_id}",
        start,
        end,
        attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": span_id},
    )


def test_a_call_does_not_finish_before_itself() -> None:
    instant = call("login", 5, 5)  # ends as it starts: end <= start holds for it alone
    subject = Subject([instant])
    calls = Calls(subject, [instant])
    assert calls.before(subject, instant) == "span login has no earlier match"
    assert not calls.finished_before(subject, instant)


def test_a_call_without_an_end_is_not_its_own_unended_rival() -> None:
    open_call = call("login", 5, None)
    other = call("login-2", 7, None)
    subject = Subject([open_call, other])
    assert Calls(subject, [open_call]).unended(subject, open_call) is None
    assert Calls(subject, [open_call, other]).unended(subject, open_call) is other
    assert Calls(subject, [open_call, other]).unended(subject, other) is open_call


# --------------------------------------------------------------------------------- steps


def named_steps(subject: Subject) -> list[list[str | None]]:
    return [[c.span_id for c in step.calls] for step in tool_steps(subject)]


def agent(span_id: str, parent: str | None, start: int, end: int) -> Span:
    return Span(TRACE, span_id, parent, "invoke_agent", start, end, attributes={})


def test_a_call_inside_an_agent_inside_a_tool_call_is_not_one_step_with_it() -> None:
    outer = call("outer", 0, 100)
    inner = call("inner", 10, 20, parent="agent")
    assert named_steps(Subject([outer, agent("agent", "outer", 5, 90), inner])) == [
        ["outer"],
        ["inner"],
    ]


def test_calls_under_one_agent_share_its_caller_whatever_order_they_are_read_in() -> None:
    # `late` is read first, filling in the agent's callers; `early` finds them there.
    outer = call("outer", 0, 100)
    late = call("late", 30, 40, parent="agent")
    early = call("early", 10, 20, parent="agent")
    spans = [outer, agent("agent", "outer", 5, 90), late, early]
    assert named_steps(Subject(spans)) == [["outer"], ["early"], ["late"]]


def test_a_cycle_of_parents_ends_the_walk_up_and_keeps_the_callers_found() -> None:
    # outer's parent is the agent, whose parent is outer: a malformed trace, read all the same.
    outer = call("outer", 0, 100, parent="agent")
    inner = call("inner", 10, 20, parent="agent")
    spans = [outer, agent("agent", "outer", 5, 90), inner]
    assert named_steps(Subject(spans)) == [["outer"], ["inner"]]


def test_a_call_at_time_zero_is_not_one_step_with_a_call_a_nanosecond_later() -> None:
    assert named_steps(Subject([call("a", 0, 0), call("b", 1, 1)])) == [["a"], ["b"]]


def test_a_call_without_an_end_is_a_step_that_ends_as_it_starts() -> None:
    spans = [call("a", 0, None), call("b", 5, 6), call("c", 5, None), call("d", 7, 8)]
    assert named_steps(Subject(spans)) == [["a"], ["b", "c"], ["d"]]


def test_steps_are_built_once_per_subject() -> None:
    subject = Subject([call("a", 0, 1), call("b", 2, 3)])
    assert tool_steps(subject) is tool_steps(subject)
