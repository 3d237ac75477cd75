"""Properties of status and timing: percentiles against a sorted-list reference, error shares
against counting by hand, durations against exact arithmetic, and any document built from the
new keys compiles or raises ContractError (never anything else)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rules_support import subject, tool, tool_p

from tracecheck.contract import compile_contract, lint_contract
from tracecheck.errors import ContractError
from tracecheck.rules.predicates import DurationRange, Predicate
from tracecheck.rules.timing import PERCENTILES, ErrorsAtMost, ToolDuration, nearest_rank
from tracecheck.spans import Span

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MS = 1_000_000


def reference_percentile(values: list[int], percent: int) -> int:
    """The nearest-rank percentile as textbooks state it: the smallest value v such that at
    least p % of the values are ≤ v."""
    ordered = sorted(values)
    for value in ordered:
        if 100 * sum(1 for other in ordered if other <= value) >= percent * len(ordered):
            return value
    raise AssertionError("unreachable")


@SETTINGS
@given(
    st.lists(st.integers(min_value=0, max_value=10**7), min_size=1, max_size=40),
    st.sampled_from(sorted(PERCENTILES)),
    st.integers(min_value=1, max_value=10**7),
)
def test_percentiles_agree_with_a_sorted_list(
    durations: list[int], stat: str, limit_ns: int
) -> None:
    calls = [tool(f"t{i}", "a") for i in range(len(durations))]
    calls = [
        Span(c.trace_id, c.span_id, None, c.name, 1000, 1000 + ns, attributes=c.attributes)
        for c, ns in zip(calls, durations, strict=True)
    ]
    value = reference_percentile(durations, PERCENTILES[stat])
    assert sorted(durations)[nearest_rank(PERCENTILES[stat], len(durations)) - 1] == value
    limit_ms = limit_ns / MS  # a float, as a contract's number is read
    found = ToolDuration("d", tool_p("a"), stat, limit_ms).evaluate(subject(*calls))
    over = value > Fraction(repr(limit_ms)) * MS
    assert bool(found) == over
    if found:
        named = {v.span_id for v in found if v.span_id is not None}
        at_or_above = {c.span_id for c, ns in zip(calls, durations, strict=True) if ns >= value}
        assert named <= at_or_above
        assert len(found) == min(len(at_or_above), 6) + (len(at_or_above) > 6)


@SETTINGS
@given(
    st.lists(st.booleans(), max_size=60),
    st.one_of(st.none(), st.integers(min_value=0, max_value=10)),
    st.one_of(st.none(), st.floats(min_value=0, max_value=100), st.integers(0, 100)),
)
def test_error_shares_agree_with_counting(
    failed: list[bool], most: int | None, percent: float | None
) -> None:
    spans = [
        tool(f"t{i}", "a", i, i + 1, status="error" if bad else None)
        for i, bad in enumerate(failed)
    ]
    rule = ErrorsAtMost("e", Predicate(kind="TOOL"), most, percent)
    errors = sum(failed)
    over = (most is not None and errors > most) or (
        percent is not None
        and errors > 0
        and Fraction(100 * errors, len(failed))
        > Fraction(repr(percent) if isinstance(percent, float) else percent)
    )
    assert bool(rule.evaluate(subject(*spans))) == over


@SETTINGS
@given(
    st.integers(min_value=0, max_value=10**12),
    st.one_of(st.none(), st.decimals(min_value=0, max_value=10**6, places=6)),
    st.one_of(st.none(), st.decimals(min_value=0, max_value=10**6, places=6)),
)
def test_duration_bounds_are_exact(took: int, low: Any, high: Any) -> None:
    low_ms = None if low is None else float(low)
    high_ms = None if high is None else float(high)
    if low_ms is None and high_ms is None:
        return
    span = Span("t", "s", name="x", start_ns=5, end_ns=5 + took)
    expected = (low_ms is None or took >= Fraction(repr(low_ms)) * MS) and (
        high_ms is None or took <= Fraction(repr(high_ms)) * MS
    )
    assert DurationRange(low_ms, high_ms).contains(span) is expected


# --------------------------------------------------- any document compiles or ContractError

KINDS = st.sampled_from(["TOOL", "LLM", "AGENT", "tool", "STEP", "", 1])
NUMBERS = st.sampled_from([0, 1, 2, 1.0, 0.5, -1, 100, 101, 1e400, True, None, "1", [], {}])
LIMIT = st.dictionaries(
    st.sampled_from(["max", "min", "maxPercent", "p50", "p95", "p99", "x"]), NUMBERS, max_size=3
)
BY_KIND = st.one_of(st.dictionaries(KINDS, st.one_of(LIMIT, NUMBERS), max_size=3), NUMBERS)
LOOPS = st.one_of(
    st.dictionaries(
        st.sampled_from(["maxRepeats", "maxConsecutive", "maxCycles", "maxLoops"]),
        NUMBERS,
        max_size=3,
    ),
    NUMBERS,
)
DURATIONS = st.one_of(
    st.dictionaries(st.sampled_from(["a", "", "b"]), st.one_of(LIMIT, NUMBERS), max_size=2), NUMBERS
)
PREDICATE = st.fixed_dictionaries(
    {},
    optional={
        "kind": st.sampled_from(["TOOL", "tool"]),
        "status": st.sampled_from(["ok", "error", "unset", "failed", 1]),
        "durationMs": st.one_of(LIMIT, NUMBERS),
    },
)
DOCUMENTS = st.fixed_dictionaries(
    {"name": st.just("c")},
    optional={
        "errors": BY_KIND,
        "steps": BY_KIND,
        "loops": LOOPS,
        "tools": st.fixed_dictionaries(
            {}, optional={"durations": DURATIONS, "required": st.just(["a"])}
        ),
        "rules": st.lists(
            st.fixed_dictionaries(
                {
                    "kind": st.just("atMost"),
                    "label": st.just("r"),
                    "max": st.just(0),
                    "p": PREDICATE,
                }
            ),
            max_size=1,
        ),
    },
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS)
def test_documents_of_the_new_keys_compile_or_raise_contract_error(doc: dict[str, Any]) -> None:
    try:
        contract = compile_contract(doc)
    except ContractError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert isinstance(problem.path, str) and problem.message
        return
    lint_contract(doc)
    assert contract.rules or contract.alternatives
