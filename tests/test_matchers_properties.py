"""Properties of the argument matchers, and of compiling their keys: any entry either compiles
or is refused with a located ContractError."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck import compile_contract
from tracecheck.errors import ContractError
from tracecheck.rules.matchers import ArgumentCheck, Range, argument_problem, partial_mismatch
from tracecheck.rules.predicates import json_equal
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span

KEYS = st.text(alphabet="ab_/~*id", min_size=0, max_size=4)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=16,
)
NUMBERS = st.integers(-1000, 1000) | st.floats(-1e6, 1e6, allow_nan=False)


def holds(check: ArgumentCheck, value: Any) -> bool:
    span = Span(
        "t" * 32,
        "s",
        name="execute_tool pay",
        start_ns=1,
        end_ns=2,
        attributes={"gen_ai.tool.name": "pay", "gen_ai.operation.name": "execute_tool"},
    )
    span = span.with_facts(
        tool_name="pay",
        model=None,
        tokens=span.tokens,
        arguments=type(span.arguments)(True, {"x": value}),
        offered_tools=None,
    )
    return argument_problem(span, "/x", check, Subject([span])) is None


@given(JSON)
def test_a_value_includes_itself(value: Any) -> None:
    assert partial_mismatch(value, value) is None


@given(st.dictionaries(KEYS, JSON, max_size=5), st.data())
def test_an_object_includes_any_of_its_sub_objects(actual: dict[str, Any], data: Any) -> None:
    kept = data.draw(st.lists(st.sampled_from(sorted(actual)), unique=True)) if actual else []
    assert partial_mismatch({key: actual[key] for key in kept}, actual) is None


@given(st.lists(JSON, max_size=5), st.randoms())
def test_an_array_includes_any_reordering_of_a_part_of_it(actual: list[Any], rng: Any) -> None:
    part = [item for item in actual if rng.random() < 0.6]
    rng.shuffle(part)
    assert partial_mismatch(part, actual) is None


@given(JSON, JSON)
def test_partial_of_scalars_is_json_equality(expected: Any, actual: Any) -> None:
    if not isinstance(expected, (dict, list)):
        assert (partial_mismatch(expected, actual) is None) == json_equal(expected, actual)


@given(JSON, st.lists(st.sampled_from(["*", "a*", "*_id", "?"]), max_size=2))
def test_ignoring_keys_never_turns_a_match_into_a_mismatch(value: Any, ignore: list[str]) -> None:
    assert partial_mismatch(value, value, ignore) is None


@given(
    NUMBERS,
    st.none() | NUMBERS,
    st.none() | NUMBERS,
    st.booleans(),
    st.booleans(),
)
def test_range_agrees_with_a_direct_comparison(
    number: float, low: float | None, high: float | None, low_out: bool, high_out: bool
) -> None:
    bounds = Range(low, high, low_out and low is not None, high_out and high is not None)
    expected = True
    if low is not None:
        expected = expected and (number > low if bounds.min_exclusive else number >= low)
    if high is not None:
        expected = expected and (number < high if bounds.max_exclusive else number <= high)
    assert holds(ArgumentCheck("range", range=bounds), number) == expected
    if bounds.empty:
        assert not bounds.holds(number)


@given(st.text(max_size=8), st.text(max_size=3))
def test_contains_on_a_string_agrees_with_in(text: str, part: str) -> None:
    assert holds(ArgumentCheck("contains", value=part), text) == (part in text)


@given(st.lists(JSON, max_size=5), JSON)
def test_contains_on_an_array_is_membership_by_json_equality(items: list[Any], member: Any) -> None:
    found = any(json_equal(item, member) for item in items)
    assert holds(ArgumentCheck("contains", value=member), items) == found


@given(st.lists(JSON, min_size=1, max_size=5), st.data())
def test_an_array_contains_each_of_its_members(items: list[Any], data: Any) -> None:
    member = data.draw(st.sampled_from(items))
    if not (isinstance(member, float) and math.isnan(member)):
        assert holds(ArgumentCheck("contains", value=member), items)


# --- compiling the new keys ----------------------------------------------------------------

OPERANDS = JSON | st.sampled_from(["offered", "(", "^a", "*_id", "/x", "", {"type": "strin"}])
ENTRY_KEYS = st.sampled_from(
    ["regex", "range", "contains", "partial", "ignore", "schema", "sameAs", "pointer", "tool"]
)
RANGES = st.dictionaries(st.sampled_from(["min", "max", "minExclusive", "maxExclusive", "x"]), JSON)
SAME_AS = st.dictionaries(st.sampled_from(["tool", "pointer", "result", "x"]), OPERANDS)
REQUIRES = st.dictionaries(
    st.sampled_from(["tool", "after", "same", "x"]),
    JSON | st.lists(st.sampled_from(["/a", "", "a", "/a"]), max_size=3),
)


@st.composite
def entries(draw: st.DrawFn) -> dict[str, Any]:
    entry: dict[str, Any] = {"tool": "pay", "pointer": draw(st.sampled_from(["", "/x", "x"]))}
    for key in draw(st.lists(ENTRY_KEYS, max_size=3)):
        if key == "range":
            entry[key] = draw(RANGES)
        elif key == "sameAs":
            entry[key] = draw(SAME_AS)
        else:
            entry[key] = draw(OPERANDS)
    return entry


@settings(max_examples=300, deadline=None)
@given(st.lists(entries(), min_size=1, max_size=3), st.lists(REQUIRES, max_size=2))
def test_any_entry_compiles_or_is_refused_with_places(
    arguments: list[dict[str, Any]], requires: list[dict[str, Any]]
) -> None:
    tools: dict[str, Any] = {"arguments": arguments}
    if requires:
        tools["requires"] = requires
    try:
        compile_contract({"name": "c", "tools": tools})
    except ContractError as exc:
        assert exc.problems
        assert all(problem.path.startswith("tools") for problem in exc.problems)
