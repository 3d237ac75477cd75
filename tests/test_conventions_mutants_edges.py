"""Edges of reading spans through conventions that mutation testing showed were untested:
token descriptions that yield to later ones, a producer's own total, templated tool names,
doubted tool names, counts written in JSON's notation, and release numbers."""

from __future__ import annotations

from typing import Any

import pytest

from tracecheck.conventions import Convention, TokenFields, fields, generic, read
from tracecheck.conventions.evidence import tool_name_doubt
from tracecheck.conventions.select import release
from tracecheck.conventions.values import number
from tracecheck.spans import Span

TRACE = "a" * 32


def span(span_name: str = "s", **attributes: object) -> Span:
    return Span(TRACE, "1" * 16, name=span_name, attributes=attributes)


# --- tokens: which description reads a span ----------------------------------------------------

OLD = TokenFields(input=fields("old.in"), output=fields("old.out"), cache_read=fields("cr"))
NEW = TokenFields(input=fields("new.in"), output=fields("new.out"))
GENERATIONS = Convention("c", "C", "any", tokens=(OLD, NEW))


def test_a_description_finding_only_a_cache_count_yields_to_a_later_one() -> None:
    recorded = span(**{"cr": 4, "new.in": 10, "new.out": 2})
    assert read.tokens(GENERATIONS, recorded) == (10, 2, None, None, 0)


def test_a_description_finding_only_a_cache_count_is_kept_when_no_other_finds_more() -> None:
    assert read.tokens(GENERATIONS, span(cr=4)) == (None, None, 4, None, 0)


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        ({"old.in": 7, "new.in": 10, "new.out": 2}, (7, None, None, None, 0)),
        ({"old.out": 3, "new.in": 10, "new.out": 2}, (None, 3, None, None, 0)),
    ],
)
def test_the_first_description_finding_input_or_output_reads_the_span(
    attributes: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    assert read.tokens(GENERATIONS, span(**attributes)) == expected


# --- the producer's own total -------------------------------------------------------------------

MARKED_TOTAL = Convention(
    "c", "C", "any", tokens=(TokenFields(total=fields("mine.total"), requires=("mark",)),)
)


def test_a_total_is_read_where_its_description_is_required_and_present() -> None:
    assert read.recorded_total(MARKED_TOTAL, span(**{"mark": 1, "mine.total": 7})) == 7


def test_a_total_is_not_read_where_its_descriptions_mark_is_missing() -> None:
    assert read.recorded_total(MARKED_TOTAL, span(**{"mine.total": 7})) is None


# --- a tool call's result and name --------------------------------------------------------------


def test_a_result_of_a_convention_without_a_failure_place_has_not_failed() -> None:
    convention = Convention("c", "C", "any", result=fields("r"))
    assert read.result(convention, span(r="5"), "TOOL") == (True, 5, None, False)
    assert read.result(convention, span(), "TOOL")[3] is False


def test_a_templated_tool_name_falls_back_to_the_common_reading() -> None:
    convention = Convention("c", "C", "any", tool=fields("t"))
    recorded = span("run", t="{tool}", **{"gen_ai.tool.name": "search"})
    assert read.tool_name(convention, recorded, "TOOL") == "search"


def test_a_span_name_taken_for_a_tool_name_is_doubted_unless_a_tool_field_records_one() -> None:
    name = "run_shell.__call__"
    tool_fields = fields("x.tool")
    assert tool_name_doubt(name, {"x.tool": "run_shell"}, name, tool_fields) is None
    assert tool_name_doubt(name, {}, name, tool_fields) == (
        "its span name is taken for its tool name, and is no tool name"
    )


# --- kinds --------------------------------------------------------------------------------------


def test_an_operation_name_recorded_as_a_list_decides_no_kind() -> None:
    attributes = {"gen_ai.operation.name": ["chat"]}
    assert generic.kind(None, attributes, "step") == generic.kind(None, {}, "step")


# --- counts and release numbers -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "count"),
    [("1E2", 100), ("1e2", 100), (0.0, 0), ("0.0", 0), (0.5, 0.5), ("0.25", 0.25)],
)
def test_counts_in_jsons_notation_are_read(value: object, count: float) -> None:
    assert number(value) == count


def test_a_release_stops_at_a_piece_that_is_no_number() -> None:
    assert release("2.x") == (2,)
    assert release("1.4.dev") == (1, 4)
