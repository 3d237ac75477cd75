"""`trajectory` at its edges: where a divergence is placed and what it names, checks shown by
their pointers only, the count past the first five of a kind, entries' status and `sameAs`
checks, ignore lists kept apart on one subject, and the rule and its entries in words."""

from __future__ import annotations

from typing import Any

import pytest
from test_rules_support import MS, TRACE
from test_rules_support import tool as support_tool

from tracecheck.rules.matchers import ArgumentCheck, SameAs
from tracecheck.rules.predicates import RuleError
from tracecheck.rules.subject import Subject
from tracecheck.rules.trajectory import Expected, ExpectedStep, Trajectory, TrajectoryMode
from tracecheck.spans import Span

ID_EQUALS = (("/id", ArgumentCheck("equals", "A-1")),)


def tool(
    name: str, start: int | None, end: int | None, *, error: bool = False, **arguments: Any
) -> Span:
    """A tool call span; calls whose times overlap are one step of the run."""
    return support_tool(
        f"{name}-{start}", name, start, end, args=arguments, status="error" if error else None
    )


def run(*calls: Span) -> Subject:
    root = Span(TRACE, "root", None, "invoke_agent", 0, 10_000 * MS, None, attributes={})
    return Subject((root, *calls))


def steps(*entries: str | Expected) -> tuple[ExpectedStep, ...]:
    return tuple(ExpectedStep((Expected(e) if isinstance(e, str) else e,)) for e in entries)


def rule(
    mode: TrajectoryMode, *entries: str | Expected, ignore: frozenset[str] = frozenset()
) -> Trajectory:
    return Trajectory("t", mode, steps(*entries), ignore)


def found(trajectory: Trajectory, subject: Subject) -> list[tuple[str | None, str]]:
    return [(v.span_id, v.detail) for v in trajectory.evaluate(subject)]


# --- where the run parts from the reference ------------------------------------------------


def test_a_run_that_parts_at_its_first_step_is_placed_at_that_step() -> None:
    assert found(rule("exact", "a"), run(tool("b", 10, 11), tool("a", 20, 21))) == [
        (
            "b-10",
            "trajectory diverges at reference step 1: expected a, the run called b (span b-10)",
        ),
        ("b-10", "extra call: span b-10 calls b"),
    ]


def test_a_run_going_on_after_the_reference_is_placed_at_its_first_step_past_it() -> None:
    assert found(rule("exact", "a"), run(tool("a", 10, 11), tool("b", 20, 21))) == [
        ("b-20", "trajectory diverges: the run goes on after the last reference step"),
        ("b-20", "extra call: span b-20 calls b"),
    ]
    assert found(Trajectory("t", "exact", ()), run(tool("b", 20, 21))) == [
        ("b-20", "trajectory diverges: the run goes on after the last reference step"),
        ("b-20", "extra call: span b-20 calls b"),
    ]


def test_a_parallel_run_step_where_one_call_was_expected_names_every_call_in_it() -> None:
    parallel = run(tool("a", 10, 30), tool("b", 15, 25))
    assert found(rule("exact", "a"), parallel)[0] == (
        "a-10",
        "trajectory diverges at reference step 1: expected a, the run ran a (span a-10), "
        "b (span b-15) in parallel",
    )


def test_an_in_order_divergence_names_the_run_step_in_the_skipped_steps_place() -> None:
    assert found(rule("in-order", "a", "c", "b"), run(tool("a", 10, 11), tool("b", 20, 21))) == [
        (
            "b-20",
            "trajectory diverges at reference step 2: expected c, the run called b (span b-20)",
        ),
        (None, "missing: reference step 2 (c) never happens"),
    ]


# --- checks are named by their pointers, never their values ---------------------------------


def test_a_divergence_names_an_entrys_checks_by_pointer_only() -> None:
    looked = Expected("lookup", arguments=ID_EQUALS)
    assert found(rule("exact", looked), run(tool("browse", 10, 11)))[0] == (
        "browse-10",
        "trajectory diverges at reference step 1: expected lookup (arguments checked at /id), "
        "the run called browse (span browse-10)",
    )


def test_an_out_of_order_or_missing_step_names_its_checks_by_pointer_only() -> None:
    looked = Expected("lookup", arguments=ID_EQUALS)
    reordered = run(tool("lookup", 10, 11, id="A-1"), tool("pay", 20, 21))
    assert found(rule("in-order", "pay", looked), reordered)[1:] == [
        (
            "lookup-10",
            "out of order: reference step 2 (lookup (arguments checked at /id)) is not in its "
            "place; span lookup-10 calls lookup elsewhere",
        )
    ]
    assert found(rule("in-order", "pay", looked), run(tool("pay", 20, 21))) == [
        (
            None,
            "trajectory diverges at reference step 2: the run ends before lookup (arguments "
            "checked at /id)",
        ),
        (None, "missing: reference step 2 (lookup (arguments checked at /id)) never happens"),
    ]


# --- the first five of a kind, then a count -------------------------------------------------


COUNTED = [(5, None), (6, "and 1 more {}"), (7, "and 2 more {}s")]


@pytest.mark.parametrize(("count", "tail"), COUNTED)
def test_extra_calls_past_the_fifth_are_counted(count: int, tail: str | None) -> None:
    calls = [tool("x", 10 * k, 10 * k + 1) for k in range(1, count + 1)]
    violations = found(rule("any-order"), run(*calls))
    shown = [(c.span_id, f"extra call: span {c.span_id} calls x") for c in calls[:5]]
    assert violations == shown + ([] if tail is None else [(None, tail.format("extra call"))])


@pytest.mark.parametrize(("count", "tail"), COUNTED)
def test_missing_calls_past_the_fifth_are_counted(count: int, tail: str | None) -> None:
    violations = found(rule("superset", *["x"] * count), run())
    shown = [(None, "missing call: x")] * 5
    assert violations == shown + ([] if tail is None else [(None, tail.format("missing call"))])


# --- which calls an entry takes -------------------------------------------------------------


def test_an_entry_asking_for_a_failure_is_not_met_by_a_success() -> None:
    failing = Expected("lookup", "error")
    assert found(rule("superset", failing), run(tool("lookup", 10, 11))) == [
        (None, "missing call: lookup (failing)")
    ]
    assert found(rule("superset", failing), run(tool("lookup", 10, 11, error=True))) == []


def test_an_entry_whose_argument_comes_from_an_earlier_call_reads_that_call() -> None:
    same = (("/id", ArgumentCheck("sameAs", same_as=SameAs("lookup", "/id"))),)
    paid = Expected("pay", arguments=same)
    traced = run(tool("lookup", 10, 11, id="A-1"), tool("pay", 20, 21, id="A-1"))
    assert found(rule("superset", paid), traced) == []
    assert found(rule("exact", "lookup", paid), traced) == []
    untraced = run(tool("lookup", 10, 11, id="A-1"), tool("pay", 20, 21, id="A-2"))
    assert found(rule("superset", paid), untraced) == [
        (None, "missing call: pay (arguments checked at /id)")
    ]


def test_ignore_lists_of_two_trajectories_on_one_run_are_kept_apart() -> None:
    subject = run(tool("a", 10, 11), tool("b", 20, 21))
    assert found(rule("exact", "a", ignore=frozenset({"b"})), subject) == []
    assert found(rule("exact", "a"), subject) == [
        ("b-20", "trajectory diverges: the run goes on after the last reference step"),
        ("b-20", "extra call: span b-20 calls b"),
    ]
    assert found(rule("exact", "a", ignore=frozenset({"b"})), subject) == []


def test_untimed_calls_are_named_in_the_error() -> None:
    subject = run(tool("a", None, None), tool("b", None, None))
    with pytest.raises(RuleError) as caught:
        rule("in-order", "a", "b").evaluate(subject)
    assert str(caught.value) == (
        "2 tool call(s) have no start time (a-None, b-None), so their order is unknown"
    )


# --- in words ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "words"),
    [
        (Expected("lookup"), "lookup"),
        (Expected("lookup", "ok"), "lookup (succeeding)"),
        (Expected("lookup", "error"), "lookup (failing)"),
        (Expected("lookup", arguments=ID_EQUALS), 'lookup (has argument /id equal to "A-1")'),
        (
            Expected("lookup", "error", ID_EQUALS),
            'lookup (failing, has argument /id equal to "A-1")',
        ),
        (
            Expected("lookup", arguments=ID_EQUALS, from_golden=True),
            "lookup (arguments as in the golden run at /id)",
        ),
    ],
)
def test_an_entry_in_words_shows_its_checks_by_default(expected: Expected, words: str) -> None:
    assert expected.describe() == words


def test_the_rule_in_words_names_what_it_ignores_only_when_it_ignores_some() -> None:
    assert rule("exact", "a", "b").describe() == "the tool calls match [a; b] (exact)"
    ignoring = rule("in-order", "a", ignore=frozenset({"y", "x"}))
    assert ignoring.describe() == "the tool calls match [a] (in-order, ignoring x, y)"
