"""toolsOffered at its edges: records of offered tools anywhere in the trace count, whatever
comes before them."""

from __future__ import annotations

import pytest
from test_rules_support import llm, pairs, subject, tool

from tracecheck.rules import ToolsOffered
from tracecheck.spans import Span


def offering(span_id: str, names: list[str]) -> Span:
    return llm(span_id, **{"gen_ai.tool.definitions": names})


READ, BASH = tool("r", "Read"), tool("b", "Bash")


@pytest.mark.parametrize(
    "before",
    [(READ,), (llm("plain"),), (READ, llm("plain"), BASH)],
    ids=["a call", "a model call without a record", "several"],
)
def test_a_record_after_spans_without_one_is_still_read(before: tuple[Span, ...]) -> None:
    spans = (*before, offering("l", ["Read"]), READ)
    found = pairs(ToolsOffered("tools.enforced").evaluate(subject(*spans)))
    expected = [
        (
            "b",
            "span b called Bash, which was never offered: the harness did not enforce its tool set",
        )
    ] * sum(1 for span in before if span is BASH)
    assert found == expected


def test_a_record_after_spans_without_one_is_checked_against_the_declared_tools() -> None:
    spans = (READ, offering("l", ["Read", "Bash"]))
    assert pairs(ToolsOffered("tools.enforced", ("Read",)).evaluate(subject(*spans))) == [
        ("l", "span l offered the model 1 undeclared tool(s): Bash")
    ]
