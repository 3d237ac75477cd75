"""Status and timing (issue 28, item 4): the `status` and `durationMs` predicates, the pass that
turns on a duration a span does not record, and the rules `errors`, `steps` and
`tools.durations`, each with its exact messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from test_rules_support import LLM_P, TOOL_P, llm, pairs, span, subject, tool, tool_p

from tracecheck import check, compile_contract, explain_contract, lint_contract, read_traces
from tracecheck.contract.places import rule_places
from tracecheck.errors import ContractError
from tracecheck.rules.base import rule_predicates
from tracecheck.rules.capture import MODELS, TOOLS, reads_calls
from tracecheck.rules.predicates import DurationRange, Predicate, status_word
from tracecheck.rules.timing import (
    ErrorsAtMost,
    StepCount,
    ToolDuration,
    nearest_rank,
    unknown_durations,
)
from tracecheck.spans import Span
from tracecheck.verdict import Violation


def problems(doc: Any) -> list[str]:
    with pytest.raises(ContractError) as caught:
        compile_contract(doc)
    return [str(problem) for problem in caught.value.problems]


def statuses(doc: dict[str, Any], *spans: Span) -> dict[str, str]:
    verdict = check(spans, compile_contract({"name": "c", **doc}))
    return {result.label: result.status for result in verdict.rules}


def details(doc: dict[str, Any], *spans: Span) -> list[tuple[str | None, str]]:
    verdict = check(spans, compile_contract({"name": "c", **doc}))
    return [(v.span_id, v.detail) for result in verdict.rules for v in result.violations]


# --------------------------------------------------------------------------- the predicates


@pytest.mark.parametrize(
    ("status", "expected"), [("ok", ["ok1"]), ("error", ["e1"]), ("unset", ["u1"])]
)
def test_status_names_the_span_status_and_unset_is_no_status(
    status: str, expected: list[str]
) -> None:
    spans = [tool("ok1", "a", status="ok"), tool("e1", "a", status="error"), tool("u1", "a")]
    assert [s.span_id for s in spans if Predicate(status=status).matches(s)] == expected


# LlamaIndex leaves a failed tool call's span unset and records the failure in its result.
TOOL_ERROR = "fixtures/producers/llama-index/openllmetry/tool-error.otlp.jsonl"


def test_a_call_whose_result_records_a_failure_is_in_error_for_every_rule() -> None:
    (trace,) = read_traces(TOOL_ERROR)
    refund = next(s for s in trace.spans if s.kind == "TOOL" and s.tool_name == "issue_refund")
    assert refund.status is None and refund.failed
    assert [status_word(s) for s in trace.spans if s.kind == "TOOL"] == ["unset", "error"]
    contract = {
        "errors": {"TOOL": {"max": 0}},
        "rules": [
            {"kind": "never", "label": "error", "p": {"kind": "TOOL", "status": "error"}},
            {"kind": "always", "label": "unset", "p": {"kind": "TOOL", "status": "unset"}},
        ],
        "trajectory": {"mode": "superset", "calls": [{"tool": "issue_refund", "status": "error"}]},
    }
    assert statuses(contract, *trace.spans) == {
        "errors[TOOL]": "fail",
        "error": "fail",
        "unset": "fail",
        "trajectory": "pass",
    }


def test_duration_bounds_are_inclusive_and_exact_for_decimal_milliseconds() -> None:
    within = DurationRange(min_ms=0.1, max_ms=2.5)
    assert (within.min_ns, within.max_ns) == (100_000, 2_500_000)
    cases = {99_999: False, 100_000: True, 2_500_000: True, 2_500_001: False}
    for took, expected in cases.items():
        timed = Span("t", "s", name="x", start_ns=10, end_ns=10 + took)
        assert within.contains(timed) is expected, took


def test_a_span_without_a_duration_never_matches_durations() -> None:
    untimed = [
        Span("t", "a", name="x", start_ns=None, end_ns=5),
        Span("t", "b", name="x", start_ns=5, end_ns=None),
        Span("t", "c", name="x", start_ns=9, end_ns=5),  # the clock went backwards
    ]
    for untimed_span in untimed:
        assert untimed_span.duration_ns is None  # as `show` reads it too
        assert not Predicate(duration=DurationRange(min_ms=0)).matches(untimed_span)
        assert not Predicate(duration=DurationRange(max_ms=10**9)).matches(untimed_span)
        # ... so `not durationMs` matches it, and whether it should is unknown.
        both = Predicate(not_=Predicate(duration=DurationRange(max_ms=1)))
        assert both.matches(untimed_span) and not both.decided(untimed_span)


def test_the_readings_of_an_unknown_duration_are_built_once_per_predicate() -> None:
    p = Predicate(kind="TOOL", not_=Predicate(duration=DurationRange(min_ms=0.5)))
    most, least = p.assuming_unknown_durations(True), p.assuming_unknown_durations(False)
    assert most.not_ == Predicate(duration=DurationRange(min_ms=0.5, unknown_matches=False))
    assert least.not_ == Predicate(duration=DurationRange(min_ms=0.5, unknown_matches=True))
    untimed = [tool(f"u{i}", "a") for i in range(3)]
    assert not any(p.decided(span) for span in untimed)
    # Deciding many spans reuses the two readings instead of parsing the bounds again.
    assert p.assuming_unknown_durations(True) is most
    assert p.assuming_unknown_durations(False) is least
    plain = Predicate(kind="TOOL")
    assert plain.assuming_unknown_durations(True) is plain


def test_the_predicates_describe_themselves_in_key_order() -> None:
    p = Predicate(
        kind="TOOL",
        status="error",
        duration=DurationRange(min_ms=5, max_ms=0.25),
        not_=Predicate(duration=DurationRange(max_ms=100.0)),
    )
    assert p.describe() == "kind=TOOL,status=error,durationMs=5..0.25,not(durationMs<=100)"
    assert DurationRange(min_ms=1e-3).describe() == "durationMs>=0.001"


def test_the_predicate_keys_compile_strictly() -> None:
    rule = {"kind": "never", "label": "a"}
    doc = {
        "name": "c",
        "rules": [
            {**rule, "p": {"status": "Error"}},
            {**rule, "label": "b", "p": {"durationMs": {}}},
            {**rule, "label": "c", "p": {"durationMs": {"min": 5, "max": 1}}},
            {**rule, "label": "d", "p": {"durationMs": {"max": -1, "maxMs": 3}}},
            {**rule, "label": "e", "p": {"durationMs": 100}},
        ],
    }
    assert problems(doc) == [
        'rules[0].p.status: unknown value "Error" — did you mean "error"? (allowed: ok, error, '
        "unset)",
        "rules[1].p.durationMs: checks nothing: give min or max",
        "rules[2].p.durationMs: min 5 is above max 1, so nothing can meet it",
        'rules[3].p.durationMs: unknown key "maxMs" — did you mean "max"? (allowed: min, max)',
        "rules[3].p.durationMs.max: must be a number of milliseconds ≥ 0, not -1",
        "rules[4].p.durationMs: must be an object, not 100",
    ]


# ------------------------------------------ a pass that turns on a duration no span records

SLOW = {"kind": "never", "label": "slow", "p": {"kind": "TOOL", "durationMs": {"min": 1000}}}


def test_never_of_a_duration_fails_at_a_call_without_times() -> None:
    spans = (tool("t1", "a", 0, 5), tool("t2", "a", 10, None))
    assert details({"rules": [SLOW]}, *spans) == [
        (
            "t2",
            'span t2 ("execute_tool a") has no start or end time (or ends before it starts), so '
            "whether it matches kind=TOOL,durationMs>=1000 is unknown",
        )
    ]
    assert statuses({"rules": [SLOW]}, tool("t1", "a", 0, 5)) == {"slow": "pass"}


def test_a_pass_that_holds_whatever_the_missing_duration_was_stands() -> None:
    fast = {
        "kind": "eventually",
        "label": "fast",
        "p": {"kind": "TOOL", "durationMs": {"max": 100}},
    }
    spans = (tool("t1", "a", 0, 5), tool("t2", "a", 10, None))
    assert statuses({"rules": [fast]}, *spans) == {"fast": "pass"}
    # A span the predicate rules out on another field is no doubt at all.
    other = (tool("t1", "a", 0, 5), llm("c1"))
    assert statuses({"rules": [SLOW]}, *other) == {"slow": "pass"}


def test_an_argument_check_of_the_first_call_fails_for_any_doubt() -> None:
    first = {
        "kind": "argument",
        "label": "first",
        "p": {"kind": "TOOL", "durationMs": {"max": 100}},
        "pointer": "/x",
        "check": {"op": "exists"},
        "occurrence": "first",
    }
    spans = (tool("t1", "a", 0, 5, args={"x": 1}), tool("t2", "a", 10, None, args={"x": 1}))
    assert statuses({"rules": [first]}, *spans) == {"first": "fail"}
    assert statuses({"rules": [{**first, "occurrence": "any"}]}, *spans) == {"first": "pass"}


def test_status_and_duration_in_one_predicate() -> None:
    rule = {
        "kind": "atMost",
        "label": "slow failures",
        "p": {"kind": "TOOL", "status": "error", "durationMs": {"min": 100}},
        "max": 0,
    }
    spans = (tool("t1", "a", 0, 500, status="error"), tool("t2", "a", 0, 500, status="ok"))
    assert details({"rules": [rule]}, *spans) == [
        ("t1", "1 span(s) match kind=TOOL,status=error,durationMs>=100, over the limit of 0")
    ]
    assert statuses({"rules": [rule]}, spans[1], tool("t3", "a", 0, 50, status="error")) == {
        "slow failures": "pass"
    }


# -------------------------------------------------------------------------------- errors


def errors_rule(kind: str = "TOOL", **limits: Any) -> ErrorsAtMost:
    return ErrorsAtMost(f"errors[{kind}]", Predicate(kind=kind), **limits)


def test_errors_by_count_name_every_error_span_in_start_order() -> None:
    spans = (tool("b", "x", 20, 30, status="error"), tool("a", "x", 0, 10, status="error"))
    assert pairs(errors_rule(max=1).evaluate(subject(*spans, tool("c", "x", 5, 6)))) == [
        (
            "a",
            'span a ("execute_tool x") is in error: 2 of 3 TOOL span(s) are (66.67 %), over the '
            "limit of 1 span(s)",
        ),
        (
            "b",
            'span b ("execute_tool x") is in error: 2 of 3 TOOL span(s) are (66.67 %), over the '
            "limit of 1 span(s)",
        ),
    ]
    assert errors_rule(max=2).evaluate(subject(*spans)) == []


def test_errors_by_percentage_and_both_limits() -> None:
    spans = [tool(f"t{i}", "x", i, i + 1, status="error" if i < 2 else None) for i in range(20)]
    assert errors_rule(max_percent=10).evaluate(subject(*spans)) == []  # 2 of 20: 10 %
    found = errors_rule(max=0, max_percent=9.99).evaluate(subject(*spans))
    assert found[0].detail == (
        'span t0 ("execute_tool x") is in error: 2 of 20 TOOL span(s) are (10 %), over the '
        "limit of 0 span(s) and over the limit of 9.99 %"
    )


def test_a_share_just_over_the_limit_never_reads_as_at_it() -> None:
    spans = [tool(f"t{i}", "x", i, i + 1, status="error" if i < 1 else None) for i in range(3001)]
    (violation,) = errors_rule(max_percent=0.0333).evaluate(subject(*spans))
    assert "(0.04 %), over the limit of 0.0333 %" in violation.detail


def test_no_spans_of_the_kind_is_zero_percent() -> None:
    assert errors_rule("LLM", max_percent=0).evaluate(subject(tool("t", "x"))) == []
    assert errors_rule("LLM", max=0).evaluate(subject()) == []


def test_errors_over_many_spans_show_the_first_few_and_count_the_rest() -> None:
    spans = [tool(f"t{i}", "x", i, i + 1, status="error") for i in range(9)]
    found = pairs(errors_rule(max=0).evaluate(subject(*spans)))
    assert [ref for ref, _ in found] == ["t0", "t1", "t2", "t3", "t4", "t5", None]
    assert found[-1][1] == "and 3 more TOOL span(s) in error"


# --------------------------------------------------------------------------------- steps


def test_steps_under_the_minimum_and_over_the_maximum() -> None:
    rule = StepCount("steps[LLM]", LLM_P, min=2, max=3)
    assert pairs(rule.evaluate(subject(llm("c1")))) == [
        (None, "1 LLM span(s), under the minimum of 2")
    ]
    assert rule.evaluate(subject(llm("c1"), llm("c2"), llm("c3"))) == []
    calls = [
        span(f"c{i}", "chat m", 10 - i, 11 - i, extra={"gen_ai.operation.name": "chat"})
        for i in range(5)
    ]
    assert pairs(rule.evaluate(subject(*calls))) == [
        ("c1", 'span c1 ("chat m") is LLM span 4 of 5 in start order, over the limit of 3'),
        ("c0", 'span c0 ("chat m") is LLM span 5 of 5 in start order, over the limit of 3'),
    ]


def test_a_parallel_group_is_as_many_steps_as_calls() -> None:
    group = [tool(f"t{i}", "x", 0, 10) for i in range(3)]
    assert StepCount("s", TOOL_P, max=2).evaluate(subject(*group))


# ------------------------------------------------------------------------ tools.durations


def durations(stat: str, limit: float) -> ToolDuration:
    return ToolDuration(f"tools.durations[a].{stat}", tool_p("a"), stat, limit)


@pytest.mark.parametrize(
    ("percent", "count", "rank"),
    [(50, 1, 1), (50, 2, 1), (50, 3, 2), (95, 20, 19), (95, 21, 20), (99, 100, 99), (100, 7, 7)],
)
def test_nearest_rank(percent: int, count: int, rank: int) -> None:
    assert nearest_rank(percent, count) == rank


def test_a_percentile_over_the_limit_names_the_calls_at_and_above_it() -> None:
    took = [100, 50, 300, 200, 400, 200]  # sorted: 50 100 200 200 300 400; p50 is the 3rd
    calls = [tool(f"t{i}", "a", 0, ms) for i, ms in enumerate(took)]
    assert durations("p50", 200).evaluate(subject(*calls)) == []
    assert pairs(durations("p50", 199.5).evaluate(subject(*calls))) == [
        (
            f"t{i}",
            f'span t{i} ("execute_tool a") took {ms} ms: the p50 of 6 a call(s) is 200 ms, '
            "over the limit of 199.5 ms",
        )
        for i, ms in ((3, 200), (5, 200), (2, 300), (4, 400))
    ]
    (slowest,) = durations("max", 399).evaluate(subject(*calls))
    assert slowest.span_id == "t4"


def test_a_call_without_times_fails_the_percentile_and_no_call_passes() -> None:
    calls = [tool("t1", "a", 0, 10), tool("t2", "a", 5, None), tool("b", "b", 0, 10**6)]
    assert pairs(durations("p95", 1000).evaluate(subject(*calls))) == [
        (
            "t2",
            'span t2 ("execute_tool a") has no start or end time (or ends before it starts), so '
            "the p95 of a's call durations is unknown",
        )
    ]
    assert durations("p95", 1).evaluate(subject(tool("b", "b", 0, 10**6))) == []


# ------------------------------------------------- compiled: labels, places, explain, doubt

LIMITS: dict[str, Any] = {
    "name": "limits",
    "tools": {"durations": {"lookup_order": {"p95": 2000, "max": 5000}}},
    "errors": {"TOOL": {"max": 0}, "LLM": {"maxPercent": 10}},
    "steps": {"TOOL": {"max": 12}, "LLM": {"min": 1, "max": 6}},
}


def test_labels_places_and_explain() -> None:
    assert rule_places(LIMITS) == {
        "tools.durations[lookup_order].p95": 'tools.durations["lookup_order"].p95',
        "tools.durations[lookup_order].max": 'tools.durations["lookup_order"].max',
        "errors[TOOL]": 'errors["TOOL"]',
        "errors[LLM]": 'errors["LLM"]',
        "steps[TOOL]": 'steps["TOOL"]',
        "steps[LLM]": 'steps["LLM"]',
    }
    assert explain_contract(LIMITS).splitlines()[2:] == [
        "  - tools.durations[lookup_order].p95: the p95 (nearest rank) of the durations of calls "
        "matching kind=TOOL,tool=lookup_order is at most 2000 ms",
        "  - tools.durations[lookup_order].max: every call matching kind=TOOL,tool=lookup_order "
        "takes at most 5000 ms",
        "  - errors[TOOL]: at most 0 TOOL span(s) are in error",
        "  - errors[LLM]: at most 10 % of LLM spans are in error (none at all: 0 %)",
        "  - steps[TOOL]: at most 12 TOOL span(s) (each span a step)",
        "  - steps[LLM]: between 1 and 6 LLM span(s) (each span a step)",
    ]


def test_the_limits_compile_strictly() -> None:
    doc = {
        "name": "c",
        "errors": {"tool": {"max": 0}, "LLM": {}, "TOOL": {"maxPercent": 120}},
        "steps": {"LLM": {"min": 3, "max": 1}},
        "tools": {"durations": {"a": {"p90": 5, "max": 0}}},
    }
    assert problems(doc) == [
        'tools.durations["a"]: unknown key "p90" — did you mean "p50"? (allowed: p50, p95, p99, '
        "max)",
        'tools.durations["a"].max: must be a number of milliseconds > 0, not 0',
        'errors: unknown key "tool" — did you mean "TOOL"? (allowed: AGENT, CHAIN, LLM, TOOL, '
        "EVALUATOR, RETRIEVER, EMBEDDING, RERANKER, GUARDRAIL, PROMPT, UNKNOWN)",
        'errors["LLM"]: checks nothing: give max or maxPercent',
        'errors["TOOL"].maxPercent: must be a number from 0 to 100, not 120',
        'steps["LLM"]: min 3 is above max 1, so nothing can meet it',
    ]


def test_rules_about_calls_are_found_by_capture_doubt() -> None:
    contract = compile_contract({**LIMITS, "steps": {"AGENT": {"max": 1}}})
    found = {rule.label: reads_calls(rule) for rule in contract.rules}
    assert found == {
        "tools.durations[lookup_order].p95": {TOOLS},
        "tools.durations[lookup_order].max": {TOOLS},
        "errors[TOOL]": {TOOLS},
        "errors[LLM]": {MODELS},
        "steps[AGENT]": {TOOLS, MODELS},
    }


@dataclass(frozen=True)
class _Watch:
    """A rule that keeps its predicate under a name of its own."""

    label: str
    watched: Predicate
    needs_tool_capture: bool = False

    def evaluate(self, subject: Any) -> list[Any]:
        return [] if subject.matching(self.watched) else [Violation(None, "nothing watched")]

    def describe(self) -> str:
        return f"some span matches {self.watched.describe()}"


def test_a_predicate_under_any_field_name_is_found_by_capture_and_duration_doubt() -> None:
    rule = _Watch("w", Predicate(kind="LLM", not_=Predicate(duration=DurationRange(max_ms=1))))
    assert rule_predicates(rule) == [("watched", rule.watched)]
    assert reads_calls(rule) == {MODELS}
    # An LLM span with no times: whether it matches turns on the duration it does not record.
    assert [v.span_id for v in unknown_durations(rule, subject(llm("c")))] == ["c"]


def test_doubt_about_capture_stops_a_passing_limit_on_the_calls_in_doubt() -> None:
    # A tool call that does not say which tool ran leaves tool capture in doubt.
    contract = {"errors": {"TOOL": {"max": 0}, "LLM": {"max": 0}}, "steps": {"LLM": {"max": 5}}}
    found = statuses(contract, tool("t1", "a", 0, 1), tool("u", None, 2, 3), llm("c1"))
    assert found == {"errors[TOOL]": "error", "errors[LLM]": "pass", "steps[LLM]": "pass"}
    failing = statuses(contract, tool("t1", "a", 0, 1, status="error"), tool("u", None, 2, 3))
    assert failing["errors[TOOL]"] == "fail"  # a rule already broken stays broken


def test_a_ceiling_on_tool_calls_needs_evidence_of_tool_capture() -> None:
    found = statuses(
        {"errors": {"TOOL": {"max": 0}}, "steps": {"TOOL": {"min": 0, "max": 3}}}, llm("c1")
    )
    assert found == {"errors[TOOL]": "error", "steps[TOOL]": "error"}
    only_min = statuses({"steps": {"TOOL": {"min": 1}}}, llm("c1"))
    assert only_min == {"steps[TOOL]": "fail"}


# ---------------------------------------------------------------------------------- lint


def test_lint_finds_step_counts_no_run_can_meet() -> None:
    doc = {
        "name": "c",
        "tools": {
            "required": ["a", "b"],
            "forbidden": ["z"],
            "maxCalls": 5,
            "durations": {"z": {"p95": 10}},
        },
        "llm": {"maxCalls": 1},
        "steps": {"TOOL": {"max": 1}, "LLM": {"min": 3}},
        "errors": {"LLM": {"maxPercent": 100}},
    }
    assert [str(finding) for finding in lint_contract(doc)] == [
        'error: steps["TOOL"].max: steps[TOOL].max is 1 but 2 distinct tool(s) are required '
        "[steps.required-exceeds-max]",
        'error: steps["LLM"].min: steps[LLM].min is 3 but llm.maxCalls is 1 '
        "[steps.min-exceeds-max-calls]",
        'warning: tools.durations["z"].p95: times the calls of "z", which is forbidden '
        "[tools.duration-on-forbidden]",
        'warning: errors["LLM"].maxPercent: maxPercent 100 lets every LLM span fail, so it '
        "checks nothing [errors.percent-allows-all]",
    ]
