"""`explain` layout (contracts.md §7.3), with stand-in rules whose describe() is known."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tracecheck.contract import Alternative, Contract, explain_contract
from tracecheck.rules import Exact, Predicate


@dataclass(frozen=True)
class FakeRule:
    label: str
    text: str
    needs_tool_capture: bool = False

    def evaluate(self, subject: Any) -> list[Any]:
        return []

    def describe(self) -> str:
        return self.text


def test_full_layout() -> None:
    contract = Contract(
        name="refund-desk",
        description="Answer refund questions without a shell",
        scope=Predicate(kind="AGENT", name=Exact("refund")),
        rules=(
            FakeRule("tools.forbidden[Bash]", "no span matches kind=TOOL,tool=Bash"),
            FakeRule("run", "the run completed; it took at most 120000 ms"),
        ),
        alternatives=(
            Alternative(
                "full", (FakeRule("tools.required[Read]", "some span matches kind=TOOL,tool=Read"),)
            ),
            Alternative("cache-hit", (FakeRule("hit", "some span matches tool=cache"),)),
        ),
    )
    assert explain_contract(contract) == (
        'Contract "refund-desk" — Answer refund questions without a shell\n'
        "Scope: the span matching kind=AGENT,name=refund and its descendants\n"
        "Every rule must pass:\n"
        "  - tools.forbidden[Bash]: no span matches kind=TOOL,tool=Bash\n"
        "  - run: the run completed; it took at most 120000 ms\n"
        "And at least one alternative must pass completely:\n"
        "  - full/tools.required[Read]: some span matches kind=TOOL,tool=Read\n"
        "  - cache-hit/hit: some span matches tool=cache"
    )


def test_minimal_layout() -> None:
    contract = Contract(name="c", rules=(FakeRule("a", "some span matches tool=x"),))
    assert explain_contract(contract) == (
        'Contract "c"\nEvery rule must pass:\n  - a: some span matches tool=x'
    )


def test_only_alternatives() -> None:
    contract = Contract(name="c", rules=(), alternatives=(Alternative("x", (FakeRule("a", "d"),)),))
    assert explain_contract(contract) == (
        'Contract "c"\nAnd at least one alternative must pass completely:\n  - x/a: d'
    )


def test_compiles_a_source_first(monkeypatch: pytest.MonkeyPatch) -> None:
    from tracecheck.rules import presence

    monkeypatch.setattr(
        presence.Eventually, "describe", lambda self: f"some span matches {self.p.describe()}"
    )
    text = explain_contract({"name": "c", "tools": {"required": ["Read"]}})
    assert (
        text
        == 'Contract "c"\nEvery rule must pass:\n  - tools.required[Read]: some span matches kind=TOOL,tool=Read'
    )
