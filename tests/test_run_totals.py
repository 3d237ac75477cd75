"""Run totals standing for model calls with no counts of their own: the outermost span that
records them stands for every call below it, for the token budget and the cost rule alike."""

from __future__ import annotations

from pathlib import Path

from tracecheck import read_traces
from tracecheck.contract import load_prices
from tracecheck.rules.cost import run_cost
from tracecheck.rules.predicates import Predicate
from tracecheck.rules.presence import TokensAtMost
from tracecheck.rules.run_totals import coverage, tokens_used
from tracecheck.rules.subject import Subject

RECORDING = (
    Path(__file__).resolve().parent.parent
    / "fixtures"
    / "producers"
    / "logfire-claude-agent-sdk"
    / "clean.otlp.jsonl"
)
LLM = Predicate(kind="LLM")


def nested_runs() -> Subject:
    """The recorded Claude Agent SDK run inside an outer agent run whose totals hold the inner
    run's and one more call of its own (all calls record only a start-of-message snapshot)."""
    spans = list(max(read_traces(RECORDING), key=len).spans)
    inner, chat = spans[-1], spans[0]
    assert inner.kind == "AGENT" and chat.kind == "LLM" and chat.tokens.total is None
    inner_in, inner_out = inner.tokens.input or 0, inner.tokens.output or 0
    outer = inner.replace(
        span_id="a" * 16,
        parent_span_id=None,
        attributes={
            **inner.attributes,
            "gen_ai.usage.input_tokens": inner_in + (chat.tokens.input or 0),
            "gen_ai.usage.output_tokens": inner_out + 1,
        },
    )
    own = chat.replace(span_id="b" * 16, parent_span_id=outer.span_id)
    return Subject([*spans[:-1], inner.replace(parent_span_id=outer.span_id), own, outer])


def test_the_outermost_run_totals_stand_for_every_call_below_them() -> None:
    subject = nested_runs()
    calls = subject.matching(LLM)
    counted = coverage(subject, calls)
    assert [cover.span_id for cover in counted.covers] == ["a" * 16]
    assert all(counted.under[id(call)].span_id == "a" * 16 for call in calls)
    outer = counted.covers[0]
    used, _ = tokens_used(subject, calls)
    assert used == outer.tokens.total  # counted once, not the inner run's again
    assert TokensAtMost("t", LLM, used).evaluate(subject) == []
    assert TokensAtMost("t", LLM, used - 1).evaluate(subject) != []
    prices = load_prices({"claude-sonnet-4-5*": {"input": 3, "output": 15}})
    (bill,) = run_cost(subject, prices).bills
    assert (bill.span.span_id, bill.calls) == ("a" * 16, len(calls))


def test_a_run_total_below_its_calls_inputs_stands_for_nothing() -> None:
    subject = nested_runs()
    calls = subject.matching(LLM)
    outer = coverage(subject, calls).covers[0]
    short = Subject(
        [
            span.replace(attributes={**span.attributes, "gen_ai.usage.input_tokens": 1})
            if span is outer
            else span
            for span in subject.spans
        ]
    )
    counted = coverage(short, short.matching(LLM))
    assert counted.covers == () and counted.unknown is not None
    assert tokens_used(short, short.matching(LLM))[0] is None
