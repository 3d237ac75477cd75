"""Spans looked up through the subject's kind and tool indexes are the spans that a test of
every span finds, for generated spans and predicates."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_rules_support import llm, subject, tool
from test_rules_support import span as plain_span

from tracecheck.rules import Exact, OneOf, Predicate
from tracecheck.spans import Span

NAMES = ("Read", "Bash", None)


@st.composite
def spans(draw: Any) -> list[Span]:
    made: list[Span] = []
    for i in range(draw(st.integers(0, 12))):
        shape = draw(st.sampled_from(["tool", "llm", "plain"]))
        if shape == "tool":
            made.append(tool(f"s{i}", draw(st.sampled_from(NAMES)), i, i + 1))
        elif shape == "llm":
            made.append(llm(f"s{i}", draw(st.sampled_from(["m", "n", None]))))
        else:
            made.append(plain_span(f"s{i}", draw(st.sampled_from(["step", "Read"])), i, i + 1))
    return made


matchers = st.one_of(
    st.none(),
    st.sampled_from(["Read", "Bash", "m"]).map(Exact),
    st.lists(st.sampled_from(["Read", "Bash", "m", "n"]), max_size=2).map(tuple).map(OneOf),
)


@st.composite
def predicates(draw: Any, depth: int = 0) -> Predicate:
    return Predicate(
        kind=draw(st.sampled_from([None, "TOOL", "LLM", "UNKNOWN"])),
        name=draw(st.one_of(st.none(), st.sampled_from(["step", "Read"]).map(Exact))),
        tool=draw(matchers),
        model=draw(matchers),
        not_=draw(st.one_of(st.none(), predicates(depth + 1))) if depth < 1 else None,
    )


@settings(max_examples=400, deadline=None)
@given(spans=spans(), predicate=predicates())
def test_indexed_lookup_is_every_span_tested(spans: list[Span], predicate: Predicate) -> None:
    assert subject(*spans).matching(predicate) == [s for s in spans if predicate.matches(s)]
