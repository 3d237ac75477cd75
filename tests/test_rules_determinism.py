"""The same input gives the same violations; order-insensitive rules ignore span order."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_rules_support import LLM_P, TOOL_P, llm, pairs, subject, tool, tool_p

from tracecheck.rules import (
    Argument,
    ArgumentCheck,
    AtMost,
    Eventually,
    Never,
    NeverUnless,
    Precedes,
    RetrySafe,
    TokensAtMost,
    ToolsOffered,
    WriteTool,
)
from tracecheck.spans import Span

tokens = st.one_of(st.none(), st.integers(0, 10_000), st.floats(0, 1000, allow_nan=False))
stamp = st.one_of(st.none(), st.integers(0, 100))


@st.composite
def span_lists(draw: Any) -> list[Span]:
    rows = draw(st.lists(st.integers(0, 5), max_size=12))
    spans = []
    for i, choice in enumerate(rows):
        if choice < 3:
            name = ("Read", "Bash", "charge_card")[choice]
            args = draw(
                st.one_of(
                    st.none(), st.fixed_dictionaries({"k": st.sampled_from([1, "1", 1.0, True])})
                )
            )
            spans.append(
                tool(
                    f"s{i}",
                    name,
                    draw(stamp),
                    draw(stamp),
                    args=args,
                    status=draw(st.sampled_from([None, "error"])),
                )
            )
        elif choice < 5:
            spans.append(llm(f"s{i}", "m", draw(tokens), draw(tokens)))
        else:
            spans.append(llm(f"s{i}", "m", 1, 1, **{"gen_ai.tool.definitions": ["Read", "Bash"]}))
    return spans


ALL_RULES = [
    Never("n", tool_p("Bash")),
    Eventually("e", tool_p("Read")),
    AtMost("m", TOOL_P, 2),
    TokensAtMost("t", LLM_P, 5000),
    Precedes("p", tool_p("Read"), tool_p("Bash"), "all-occurrences"),
    NeverUnless("nu", tool_p("Bash"), tool_p("Read"), "finish-before-start"),
    Argument("a", tool_p("Read"), "/k", ArgumentCheck("type", type="number"), "first"),
    ToolsOffered("o", ("Read",)),
    RetrySafe("r", ("Read",), (WriteTool("charge_card", "/k"),)),
]


@settings(max_examples=150, deadline=None)
@given(spans=span_lists())
def test_the_same_input_gives_the_same_violations(spans: list[Span]) -> None:
    for rule in ALL_RULES:
        first = pairs(rule.evaluate(subject(*spans)))  # type: ignore[attr-defined]
        rebuilt = [s.replace() for s in spans]  # fresh spans: nothing cached carries over
        assert pairs(rule.evaluate(subject(*rebuilt))) == first  # type: ignore[attr-defined]


@settings(max_examples=200, deadline=None)
@given(data=st.data(), spans=span_lists())
def test_order_insensitive_rules_ignore_span_order(data: Any, spans: list[Span]) -> None:
    shuffled = data.draw(st.permutations(spans))
    before, after = subject(*spans), subject(*shuffled)

    never = Never("n", tool_p("Bash"))
    assert sorted(pairs(never.evaluate(before))) == sorted(pairs(never.evaluate(after)))

    eventually = Eventually("e", tool_p("Read"))
    assert pairs(eventually.evaluate(before)) == pairs(eventually.evaluate(after))

    at_most = AtMost("m", TOOL_P, 2)
    assert [v.detail for v in at_most.evaluate(before)] == [
        v.detail for v in at_most.evaluate(after)
    ]

    budget = TokensAtMost("t", LLM_P, 5000)
    first, second = budget.evaluate(before), budget.evaluate(after)
    assert len(first) == len(second)
    if first and first[0].span_id is None:  # a sum, not an unknown count
        assert first == second
