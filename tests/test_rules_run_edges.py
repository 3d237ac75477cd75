"""Edges of the run rule and of run totals: the words of a run record that is missing, of a rule
that checks nothing or lets the run stay unfinished, a duration ceiling that is no number, and
a parent's own token counts never taken for run totals (issue 34, item 1: mutants that
survived)."""

from __future__ import annotations

import pytest
from test_rules_support import LLM_P, llm, pairs, subject

from tracecheck.rules.predicates import RuleError
from tracecheck.rules.run import RunCheck
from tracecheck.rules.run_totals import coverage, tokens_used
from tracecheck.spans import RunRecord

FINISHED = RunRecord("completed", 0, 5)


def test_a_missing_run_record_with_no_reason_given_says_none_was_found() -> None:
    found = RunCheck("run", require_completed=True).evaluate(subject())
    assert pairs(found) == [(None, "run record unavailable: no run record was found or passed")]


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (RunCheck("run"), "the run record is checked for nothing"),
        (RunCheck("run", require_completed=False), "the run need not complete"),
        (
            RunCheck("run", require_completed=False, allowed_statuses=("completed", "failed")),
            "the run need not complete; run status is one of completed, failed",
        ),
        (
            RunCheck("run", require_completed=True, max_duration_ms=2.5),
            "the run completed with an end time recorded; the run takes at most 2.5 ms",
        ),
    ],
)
def test_the_run_rule_describes_each_check_it_makes(rule: RunCheck, expected: str) -> None:
    assert rule.describe() == expected


@pytest.mark.parametrize("ceiling", [float("inf"), float("-inf"), float("nan")])
def test_a_duration_ceiling_that_is_no_finite_number_cannot_be_evaluated(ceiling: float) -> None:
    rule = RunCheck("run", max_duration_ms=ceiling)
    with pytest.raises(RuleError) as raised:
        rule.evaluate(subject(run=FINISHED))
    assert str(raised.value) == f"maxDurationMs {ceiling!r} is not a finite number"


def test_a_parent_call_s_own_counts_never_stand_for_a_call_below_it() -> None:
    # Plain OpenTelemetry GenAI records no run totals: a model call with counts is no cover
    # for a call below it that records none, so the tokens used are unknown.
    parent = llm("p", input_tokens=10, output_tokens=5)
    child = llm("c").replace(parent_span_id="p")
    run = subject(parent, child)
    assert not parent.convention.run_totals and parent.tokens.total is not None
    calls = run.matching(LLM_P)
    counted = coverage(run, calls)
    assert counted.covers == () and counted.unknown is child
    assert tokens_used(run, calls) == (None, counted)
