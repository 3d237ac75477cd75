"""Rule edges found by mutation testing (rules, second part): a JSON Schema whose `$schema`
names no draft jsonschema knows is judged as 2020-12, quietly."""

from __future__ import annotations

import json
import warnings
from typing import Any

from tracecheck.rules.matchers import ArgumentCheck, argument_problem
from tracecheck.rules.schemas import Schema, schema_error
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span

TRACE = "b" * 32

# `prefixItems` is a 2020-12 keyword: an earlier draft would not read it.
UNKNOWN_DRAFT = {
    "$schema": "https://example.org/schemas/our-own-draft",
    "prefixItems": [{"type": "string"}],
}


def call(arguments: Any) -> Span:
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "pay",
        "gen_ai.tool.call.arguments": json.dumps(arguments),
    }
    return Span(
        TRACE, "pay-call", "root", "execute_tool pay", 100, 110, None, attributes=attributes
    )


def judged(schema: Any, value: Any) -> str | None:
    span = call({"x": value})
    check = ArgumentCheck("schema", schema=Schema(schema))
    return argument_problem(span, "/x", check, Subject([span]))


def test_a_schema_naming_an_unknown_draft_is_valid_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # jsonschema's DeprecationWarning would raise here
        assert schema_error(UNKNOWN_DRAFT) is None


def test_a_schema_naming_an_unknown_draft_is_judged_as_2020_12_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert judged(UNKNOWN_DRAFT, ["refund"]) is None
        assert judged(UNKNOWN_DRAFT, [5]) == (
            "argument /x/0 fails the 'type' keyword of the schema"
        )
