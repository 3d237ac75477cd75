"""The refund-desk contract on the runs recorded from real instrumentation, both alike."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tracecheck import Kind, Span, Trace, check, compile_contract, read_traces

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CONTRACT = compile_contract(ROOT / "contracts" / "refund-desk.json")
INSTRUMENTATIONS = ("otel-genai", "openinference")


def recorded(instrumentation: str, scenario: str) -> Trace:
    (trace,) = read_traces(FIXTURES / instrumentation / f"{scenario}.otlp.jsonl")
    return trace


def failed(trace: Trace) -> dict[str, list[tuple[str | None, str]]]:
    verdict = check(trace, CONTRACT)
    return {
        r.label: [(v.span_id, v.detail) for v in r.violations]
        for r in verdict.rules
        if r.status != "pass"
    }


def tool_span(trace: Trace, tool: str, nth: int = 0) -> Span:
    calls = [s for s in trace.spans if s.kind is Kind.TOOL and s.tool_name == tool]
    return sorted(calls, key=lambda s: s.start_ns or 0)[nth]


@pytest.mark.parametrize("instrumentation", INSTRUMENTATIONS)
@pytest.mark.parametrize("fmt", ["otlp.jsonl", "otlp.pb"])
def test_the_clean_run_passes(instrumentation: str, fmt: str) -> None:
    (trace,) = read_traces(FIXTURES / instrumentation / f"clean.{fmt}")
    verdict = check(trace, CONTRACT)
    assert verdict.status == "pass", failed(trace)
    assert verdict.notes == f"{len(CONTRACT.rules)}/{len(CONTRACT.rules)} rules passed"


@pytest.mark.parametrize("instrumentation", INSTRUMENTATIONS)
def test_the_forbidden_tool_fails_on_its_span(instrumentation: str) -> None:
    trace = recorded(instrumentation, "forbidden")
    shell = tool_span(trace, "run_shell")
    assert failed(trace) == {
        "tools.forbidden[run_shell]": [
            (
                shell.span_id,
                f'span {shell.span_id} ("{shell.name}") matches never(kind=TOOL,tool=run_shell)',
            )
        ]
    }


@pytest.mark.parametrize("instrumentation", INSTRUMENTATIONS)
def test_the_repeated_write_fails_retry_safety_on_both_calls(instrumentation: str) -> None:
    trace = recorded(instrumentation, "repeated-write")
    first, second = (tool_span(trace, "issue_refund", n).span_id for n in (0, 1))
    ordered = sorted(
        (s for s in trace.spans if s.tool_name == "issue_refund"),
        key=lambda s: trace.spans.index(s),
    )
    refs = ", ".join(s.span_id or "" for s in ordered)
    problems = failed(trace)
    assert list(problems) == ["retries"]
    assert {span_id for span_id, _ in problems["retries"]} == {first, second}
    for span_id, detail in problems["retries"]:
        assert detail == (
            f"write issue_refund was called 2 times with the same arguments (spans {refs}); "
            f"span {span_id} has no idempotency key at /idempotency_key, "
            "so it may have applied more than once"
        )


@pytest.mark.parametrize("scenario", ["clean", "forbidden", "repeated-write", "timeout", "cache"])
def test_both_instrumentations_reach_the_same_verdict(scenario: str) -> None:
    verdicts = [check(recorded(i, scenario), CONTRACT) for i in INSTRUMENTATIONS]
    summaries = [[(r.label, r.status, len(r.violations)) for r in v.rules] for v in verdicts]
    assert summaries[0] == summaries[1]
    assert verdicts[0].status == verdicts[1].status


def test_verdicts_do_not_depend_on_the_order_spans_were_exported() -> None:
    trace = recorded("otel-genai", "repeated-write")
    expected = check(trace, CONTRACT)
    shuffled = list(trace.spans)
    for seed in range(5):
        random.Random(seed).shuffle(shuffled)
        verdict = check(Trace(trace.trace_id, tuple(shuffled)), CONTRACT)
        assert [(r.label, r.status) for r in verdict.rules] == [
            (r.label, r.status) for r in expected.rules
        ]
    assert check(trace, CONTRACT) == expected


def test_a_catastrophic_pattern_ends_as_a_rule_error_in_bounded_time() -> None:
    contract = compile_contract(
        {
            "name": "slow pattern",
            "rules": [
                {
                    "kind": "never",
                    "label": "no slow match",
                    "p": {"attr": {"gen_ai.tool.call.result": {"$regex": "(x+x+)+y"}}},
                }
            ],
        }
    )
    span = Span("a" * 32, "b" * 16, name="t", attributes={"gen_ai.tool.call.result": "x" * 20_000})
    # The error is the regex engine's timeout firing: without it the search would not end.
    verdict = check([span], contract)
    (result,) = verdict.rules
    assert (verdict.status, result.status) == ("error", "error")
    assert result.error is not None and "took longer than" in result.error
    assert "x" * 20 not in result.error
