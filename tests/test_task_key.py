"""Which task a run is of: the attribute path that names it, and its value on a trace."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracecheck.run import TaskKey, check_many, parse_task_key
from tracecheck.run.task_key import task_of
from tracecheck.spans import Span, Trace

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('resource.attributes["agent.task.id"]', TaskKey("resource", "agent.task.id")),
        ("resource.attributes['agent.task.id']", TaskKey("resource", "agent.task.id")),
        (' span.attributes["gen_ai.agent.name"] ', TaskKey("span", "gen_ai.agent.name")),
    ],
)
def test_an_attribute_path_names_a_key(text: str, key: TaskKey) -> None:
    assert parse_task_key(text) == key


@pytest.mark.parametrize(
    "text",
    [
        "agent.task.id",
        "resource.agent.task.id",
        'resource.attributes[""]',
        'attributes["x"]',
        'resource.attributes["x"]extra',
        'scope.attributes["x"]',
    ],
)
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not an attribute path"):
        parse_task_key(text)


@given(
    st.sampled_from(["resource", "span"]),
    st.text(min_size=1).filter(lambda n: not ('"' in n and "'" in n)),
)
def test_a_key_reads_back_as_it_is_written(scope: str, name: str) -> None:
    key = parse_task_key(str(TaskKey(scope, name)))  # type: ignore[arg-type]
    assert key == (scope, name)


def _span(span_id: str, attributes: dict[str, object], resource: dict[str, object]) -> Span:
    return Span("t1", span_id, attributes=attributes, resource=resource)


def test_the_first_span_that_carries_the_attribute_names_the_task() -> None:
    trace = Trace(
        "t1",
        [
            _span("1", {}, {}),
            _span("2", {"task": 7}, {"task": True}),
            _span("3", {"task": "b"}, {"task": "c"}),
        ],
    )
    assert task_of(trace, TaskKey("span", "task")) == "7"
    assert task_of(trace, TaskKey("resource", "task")) == "true"
    assert task_of(trace, TaskKey("span", "other")) is None
    listed = Trace("t1", [_span("1", {"task": ("a", 2)}, {})])
    assert task_of(listed, TaskKey("span", "task")) == '["a", 2]'


def test_check_many_records_each_runs_task() -> None:
    contract = FIXTURES.parent / "contracts" / "refund-desk.json"
    run = FIXTURES / "otel-genai" / "clean.otlp.jsonl"
    (outcome,) = check_many(run, contract, task_key='resource.attributes["service.name"]')
    assert [trace.facts.task for trace in outcome.traces] == ["refund-desk"]
    (outcome,) = check_many(run, contract)
    assert [trace.facts.task for trace in outcome.traces] == [None]
    with pytest.raises(ValueError, match=r"task_key 'service\.name' is not an attribute path"):
        list(check_many(run, contract, task_key="service.name"))
