"""A contract's own `capture` setting: parsed strictly, compiled, explained, built in Python."""

from __future__ import annotations

import pytest

from tracecheck import compile_contract, explain_contract
from tracecheck.contract import Contract
from tracecheck.errors import ContractError

RULES = {"tools": {"forbidden": ["run_shell"]}}


@pytest.mark.parametrize("mode", ["strict", "lenient"])
def test_a_contract_says_how_doubt_weighs(mode: str) -> None:
    assert compile_contract({"name": "c", "capture": mode, **RULES}).capture == mode
    assert compile_contract({"name": "c", **RULES}).capture is None  # not said: strict


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("loose", 'capture: unknown value "loose" (allowed: strict, lenient)'),
        (True, "capture: must be one of strict, lenient, not true"),
    ],
)
def test_any_other_capture_is_refused(value: object, message: str) -> None:
    with pytest.raises(ContractError) as raised:
        compile_contract({"name": "c", "capture": value, **RULES})
    assert [str(problem) for problem in raised.value.problems] == [message]


def test_explain_says_when_capture_is_lenient() -> None:
    lenient = explain_contract(compile_contract({"name": "c", "capture": "lenient", **RULES}))
    assert lenient.splitlines()[1] == (
        "Capture: lenient (rules about tools and models are judged even when the trace gives "
        "reason to doubt that every call was recorded; a note says why)"
    )
    assert "Capture:" not in explain_contract(compile_contract({"name": "c", **RULES}))


def test_the_builder_sets_capture() -> None:
    built = Contract.builder("c").capture("lenient").never(tool="run_shell").build()
    assert built.capture == "lenient"
