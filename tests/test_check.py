"""The checker around the rules: scope, run record, capture evidence, alternatives (§4.11–6)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from tracecheck.check import NO_CAPTURE, check, check_all
from tracecheck.contract.model import Alternative, Contract
from tracecheck.rules import Exact, Predicate, RuleError, Subject
from tracecheck.spans import RunRecord, Span, Trace
from tracecheck.verdict import Violation

TRACE = "a" * 32


@dataclass(frozen=True)
class FakeRule:
    """A rule whose outcome the test decides; it records the subject it saw."""

    label: str
    outcome: str = "pass"  # pass | fail | error
    needs_tool_capture: bool = False
    seen: list[Subject] = field(default_factory=list, compare=False)

    def evaluate(self, subject: Subject) -> list[Violation]:
        self.seen.append(subject)
        if self.outcome == "error":
            raise RuleError("pattern /x/ took too long")
        return [Violation(None, f"{self.label} failed")] if self.outcome == "fail" else []

    def describe(self) -> str:
        return self.label


def span(span_id: str, parent: str | None = None, **attributes: object) -> Span:
    return Span(TRACE, span_id * 16, parent and parent * 16, f"s{span_id}", attributes=attributes)


ROOT = span("1", None, **{"gen_ai.operation.name": "invoke_agent", "run.status": "completed"})
TOOL = span("2", "1", **{"gen_ai.tool.name": "Read"})
LLM = span("3", "1", **{"gen_ai.request.model": "m"})
TRACE_SPANS = Trace(TRACE, (ROOT, TOOL, LLM))


def contract(
    *rules: FakeRule, alternatives: tuple[Alternative, ...] = (), scope: Predicate | None = None
) -> Contract:
    return Contract("c", tuple(rules), alternatives, scope)


def statuses(verdict: object) -> list[tuple[str | None, str, str]]:
    return [(r.alternative, r.label, r.status) for r in verdict.rules]  # type: ignore[attr-defined]


def test_every_rule_sees_the_whole_trace_and_its_single_root_run() -> None:
    rule = FakeRule("r")
    verdict = check(TRACE_SPANS, contract(rule))
    assert verdict.status == "pass" and verdict.ok and verdict.trace_id == TRACE
    (subject,) = rule.seen
    assert subject.spans == (ROOT, TOOL, LLM)
    assert subject.run == ROOT.run_record and subject.run.status == "completed"
    assert (verdict.score, verdict.notes) == (1.0, "1/1 rules passed")


def test_the_run_record_is_unknown_without_exactly_one_root() -> None:
    orphan = span("4", "9")
    rule = FakeRule("r")
    check(Trace(TRACE, (ROOT, orphan)), contract(rule))
    assert rule.seen[0].run is None
    assert rule.seen[0].run_unknown == "the trace has 2 root spans and no run record was passed"
    passed = RunRecord("completed", 1, 2)
    check(Trace(TRACE, (ROOT, orphan)), contract(rule), run=passed)
    assert rule.seen[1].run == passed


def test_a_scope_root_is_the_subject_and_the_run() -> None:
    child_agent = span(
        "5", "1", **{"gen_ai.operation.name": "invoke_agent", "run.status": "failed"}
    )
    grandchild = span("6", "5", **{"gen_ai.tool.name": "Grep"})
    trace = Trace(TRACE, (ROOT, TOOL, child_agent, LLM, grandchild))
    rule = FakeRule("r")
    scope = Predicate(name=Exact("s5"))
    check(trace, contract(rule, scope=scope), run=RunRecord("completed"))
    assert rule.seen[0].spans == (child_agent, grandchild)
    assert rule.seen[0].run is not None and rule.seen[0].run.status == "failed"


def test_a_scope_that_matches_no_span_errors_every_rule() -> None:
    rule = FakeRule("r")
    verdict = check(TRACE_SPANS, contract(rule, scope=Predicate(name=Exact("nothing"))))
    assert verdict.status == "error" and not rule.seen
    assert [r.error for r in verdict.rules] == [
        "scope root name=nothing matched 0 spans; exactly one is required"
    ]


def test_a_scope_that_matches_two_spans_errors_base_and_alternatives() -> None:
    scope = Predicate(kind="UNKNOWN")  # ROOT is AGENT; TOOL is TOOL; LLM is LLM
    twins = Trace(TRACE, (ROOT, span("7", "1"), span("8", "1")))
    alternative = Alternative("cache", (FakeRule("x"),))
    verdict = check(twins, contract(FakeRule("r"), alternatives=(alternative,), scope=scope))
    assert verdict.status == "error"
    assert statuses(verdict) == [(None, "r", "error"), ("cache", "cache/x", "error")]
    assert (
        verdict.rules[1].error == "scope root kind=UNKNOWN matched 2 spans; exactly one is required"
    )
    assert verdict.notes == "0/2 rules passed; 2 could not be evaluated"


def test_capture_evidence_errors_tool_rules_when_nothing_was_captured() -> None:
    no_tools = Trace(TRACE, (ROOT, LLM))
    rule = FakeRule("tools.forbidden[Bash]", needs_tool_capture=True)
    plain = FakeRule("rules.x")
    verdict = check(no_tools, contract(rule, plain))
    assert [(r.status, r.error) for r in verdict.rules] == [("error", NO_CAPTURE), ("pass", None)]
    assert not rule.seen
    assert verdict.status == "error"
    assert verdict.notes == "1/2 rules passed; 1 could not be evaluated"


def test_an_offered_tool_set_is_capture_evidence() -> None:
    offered = span("3", "1", **{"gen_ai.request.model": "m", "gen_ai.tool.definitions": "[]"})
    rule = FakeRule("tools.maxCalls", needs_tool_capture=True)
    assert check(Trace(TRACE, (ROOT, offered)), contract(rule)).status == "pass"


def test_a_rule_that_cannot_be_evaluated_is_an_error() -> None:
    verdict = check(TRACE_SPANS, contract(FakeRule("a", "fail"), FakeRule("b", "error")))
    assert [(r.status, r.error) for r in verdict.rules] == [
        ("fail", None),
        ("error", "pattern /x/ took too long"),
    ]
    assert verdict.rules[0].violations == (Violation(None, "a failed"),)
    assert verdict.status == "error"


@pytest.mark.parametrize(
    ("base", "alternatives", "expected", "shown"),
    [
        # one alternative passes: base decides, the others are skipped
        ("pass", ["fail", "pass"], "pass", ["skipped", "pass"]),
        ("fail", ["pass"], "fail", ["pass"]),
        ("error", ["pass"], "error", ["pass"]),
        # none passes: violations of all are reported
        ("pass", ["fail", "fail"], "fail", ["fail", "fail"]),
        ("pass", ["fail", "error"], "error", ["fail", "error"]),
        ("fail", ["error"], "fail", ["error"]),
        ("error", ["fail"], "error", ["fail"]),
    ],
)
def test_alternatives(base: str, alternatives: list[str], expected: str, shown: list[str]) -> None:
    paths = tuple(
        Alternative(f"alt{i}", (FakeRule("r", outcome),)) for i, outcome in enumerate(alternatives)
    )
    verdict = check(TRACE_SPANS, contract(FakeRule("base", base), alternatives=paths))
    assert verdict.status == expected
    assert [r.status for r in verdict.rules[1:]] == shown
    assert all(r.label == f"alt{i}/r" for i, r in enumerate(verdict.rules[1:]))
    passed = (base == "pass") + ("pass" in alternatives)
    assert verdict.score == passed / 2
    skipped = [r for r in verdict.rules if r.status == "skipped"]
    assert all(not r.violations for r in skipped)


def test_an_empty_base_passes_when_an_alternative_passes() -> None:
    paths = (Alternative("a", (FakeRule("r", "fail"),)), Alternative("b", (FakeRule("r"),)))
    verdict = check(TRACE_SPANS, contract(alternatives=paths))
    assert verdict.status == "pass" and verdict.notes == "1/1 rules passed"


def test_check_all_gives_one_verdict_per_contract_and_refuses_none() -> None:
    verdicts = check_all(TRACE_SPANS, [contract(FakeRule("a")), contract(FakeRule("b", "fail"))])
    assert [v.status for v in verdicts] == ["pass", "fail"]
    with pytest.raises(ValueError, match="no contracts to check"):
        check_all(TRACE_SPANS, [])


def test_plain_spans_are_checked_like_a_trace() -> None:
    rule = FakeRule("r")
    verdict = check(iter([ROOT, TOOL]), contract(rule))
    assert verdict.trace_id == TRACE and rule.seen[0].spans == (ROOT, TOOL)
