"""The values rules compare, at their edges: JSON equality with non-finite numbers, canonical
key order beyond the Basic Multilingual Plane, patterns' flags, duration bounds in whole
nanoseconds, the corners of a duration in doubt, the first call by start time from zero, and
the ancestors of a span through a broken parent chain."""

from __future__ import annotations

import math
from typing import Any

import pytest
from test_rules_support import TRACE, pairs, span, subject, tool, tool_p

from tracecheck.rules import Argument, ArgumentCheck
from tracecheck.rules.canonical import canonical_json
from tracecheck.rules.pointers import ABSENT
from tracecheck.rules.predicates import DurationRange, Pattern, Predicate, json_equal
from tracecheck.spans import Span

NAN, INF = math.nan, math.inf

# --- json_equal ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        (1, 1.0, True),
        (NAN, NAN, False),
        (NAN, 1, False),
        (1, NAN, False),
        (INF, INF, False),
        (1.0, -INF, False),
        (-INF, 1.0, False),
        (1, "1", False),
        ("1", 1, False),
        (None, None, True),
        (None, "null", False),
        (0, None, False),
        ([1, "a"], (1.0, "a"), True),
        ([1, 2], [1], False),
        ([1], [1, 2], False),
        ({"a": [1]}, {"a": [1.0]}, True),
    ],
)
def test_json_equal(left: Any, right: Any, equal: bool) -> None:
    assert json_equal(left, right) is equal


# --- canonical JSON: keys in UTF-16 order ------------------------------------------------------


def test_keys_beyond_the_basic_plane_sort_by_their_utf16_code_units() -> None:
    # U+1F600 is D83D DE00 in UTF-16: before U+FF61, though its code point is larger.
    assert canonical_json({"\uff61": 1, "\U0001f600": 2, "a": 3}) == (
        '{"a":3,"\U0001f600":2,"\uff61":1}'
    )


def test_a_key_holding_a_lone_surrogate_still_has_its_place() -> None:
    # JSON text may escape a lone surrogate ("\ud800"); the key is kept and ordered by it.
    assert canonical_json({"\uff61": 1, "\ud800": 2, "é": 3}) == '{"é":3,"\ud800":2,"\uff61":1}'


# --- the absent marker ---------------------------------------------------------------------


def test_the_absent_marker_reads_as_absent() -> None:
    assert repr(ABSENT) == "ABSENT"
    assert repr([ABSENT]) == "[ABSENT]"


# --- patterns ------------------------------------------------------------------------------


def test_a_pattern_applies_every_flag_it_is_given() -> None:
    both = Pattern("^b.c$", "im")
    assert both.matches("a\nBxC\nd")
    assert not Pattern("^b.c$", "i").matches("a\nBxC\nd")
    assert Pattern("b.c", "is").matches("B\nC")
    assert not Pattern("b.c", "s").matches("B\nC")
    assert not Pattern("b.c", "i").matches("B\nC")


@pytest.mark.parametrize(
    ("flags", "unknown"), [("z", "z"), ("izq", "qz"), ("ugydz", "z"), ("I", "I")]
)
def test_an_unknown_pattern_flag_is_refused_by_name(flags: str, unknown: str) -> None:
    with pytest.raises(ValueError) as raised:
        Pattern("a", flags)
    assert str(raised.value) == f"unknown regex flag(s) {unknown} (known: imsxugyd)"


def test_patterns_are_equal_by_source_and_flags() -> None:
    assert Pattern("a", "i") == Pattern("a", "i")
    assert hash(Pattern("a", "i")) == hash(Pattern("a", "i"))
    assert Pattern("a") != Pattern("b")
    assert Pattern("a", "i") != Pattern("a")
    assert Pattern("a") != "a"


# --- predicates' descriptions --------------------------------------------------------------


def test_an_attribute_value_json_cannot_write_is_described_as_python_writes_it() -> None:
    huge = 2**70  # beyond 64 bits: orjson refuses it
    assert Predicate(attr=(("n", huge),)).describe() == f"attr.n={huge}"
    assert Predicate(attr=(("n", [1, "a"]),)).describe() == 'attr.n=[1,"a"]'


# --- duration bounds -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bounds", "min_ns", "max_ns"),
    [
        ({"min_ms": 0.0000015, "max_ms": 0.0000015}, 2, 1),
        ({"min_ms": -0.0000015, "max_ms": -0.0000015}, -1, -2),
        ({"min_ms": 0.1, "max_ms": 2}, 100_000, 2_000_000),
        ({"max_ms": 0}, None, 0),
    ],
)
def test_duration_bounds_are_the_whole_nanoseconds_within_them(
    bounds: dict[str, float], min_ns: int | None, max_ns: int | None
) -> None:
    found = DurationRange(**bounds)
    assert (found.min_ns, found.max_ns) == (min_ns, max_ns)


def timed(span_id: str, took_ms: float | None) -> Span:
    if took_ms is None:
        return span(span_id, start=10)
    return span(span_id, start=10, end=10 + took_ms)


@pytest.mark.parametrize("matching", [True, False])
def test_a_corner_of_duration_doubt_keeps_both_bounds_for_known_durations(matching: bool) -> None:
    bounded = Predicate(duration=DurationRange(min_ms=50, max_ms=100))
    corner = bounded.assuming_unknown_durations(matching)
    assert [corner.matches(timed(s, ms)) for s, ms in (("a", 20), ("b", 75), ("c", 500))] == [
        False,
        True,
        False,
    ]
    assert corner.matches(timed("u", None)) is matching


# --- first and last by start time ----------------------------------------------------------


def started_at(span_id: str, start_ns: int, arguments: str) -> Span:
    found = tool(span_id, "Read", raw_args=arguments)
    return Span(
        TRACE,
        found.span_id,
        None,
        found.name,
        start_ns,
        None,
        None,
        None,
        attributes=dict(found.attributes),
    )


def test_a_call_starting_at_zero_is_the_first() -> None:
    later, at_zero = started_at("later", 1, '{"n": 2}'), started_at("zero", 0, '{"n": 1}')
    rule = Argument("arg", tool_p("Read"), "/n", ArgumentCheck("equals", value=1), "first")
    assert pairs(rule.evaluate(subject(later, at_zero))) == []
    rule = Argument("arg", tool_p("Read"), "/n", ArgumentCheck("equals", value=2), "last")
    assert pairs(rule.evaluate(subject(at_zero, later))) == []


# --- ancestors -----------------------------------------------------------------------------


def child_of(span_id: str, parent: str | None) -> Span:
    return Span(TRACE, span_id, parent, span_id, None, None, None, None)


def ids(spans: list[Span]) -> list[str | None]:
    return [s.span_id for s in spans]


def test_a_span_without_a_parent_has_no_ancestors_whatever_the_other_ids() -> None:
    root, other = child_of("root", None), child_of("XXXX", None)
    leaf = child_of("leaf", "root")
    run = subject(leaf, root, other)
    assert run.ancestors(root) == []
    assert ids(run.ancestors(leaf)) == ["root"]


def test_a_parent_cycle_through_the_span_ends_before_the_span() -> None:
    one, two = child_of("one", "two"), child_of("two", "one")
    assert ids(subject(one, two).ancestors(one)) == ["two"]


def test_a_parent_cycle_above_the_span_ends_the_walk() -> None:
    leaf = child_of("leaf", "a")
    upper, lower = child_of("a", "b"), child_of("b", "a")
    assert ids(subject(leaf, upper, lower).ancestors(leaf)) == ["a", "b"]


SLOW = Pattern(r"^(a|aa)+$")  # catastrophic on a long run of a's that ends otherwise


@pytest.mark.parametrize(
    ("predicate", "took_ms"),
    [
        (Predicate(name=SLOW, duration=DurationRange(max_ms=100)), 50),
        (Predicate(name=SLOW), None),
    ],
    ids=["a known duration", "no duration read"],
)
def test_a_match_that_turns_on_no_unknown_duration_is_decided_without_matching(
    predicate: Predicate, took_ms: float | None
) -> None:
    long_name = "a" * 5000 + "b"
    end = None if took_ms is None else 10 + took_ms
    assert predicate.decided(span("s", long_name, start=10, end=end))
