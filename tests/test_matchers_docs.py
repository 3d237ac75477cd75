"""docs/arguments.md's examples (examples/arguments/) are checked against the recorded runs they
are shown with, and give what the page says they give."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tracecheck import check, compile_contract, lint_contract, read_traces

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "arguments"
PAGE = (ROOT / "docs" / "arguments.md").read_text(encoding="utf-8")
CLEAN = ROOT / "fixtures" / "frameworks" / "pydantic-ai" / "clean.otlp.jsonl"
ADK_14 = (
    ROOT / "fixtures" / "producers" / "google-adk" / "openinference-adk-1.4" / "clean.otlp.jsonl"
)

# (example, run, status, the violation details)
CASES = [
    ("refund-arguments.yaml", CLEAN, "pass", []),
    ("offered-schema.yaml", CLEAN, "pass", []),
    ("requires.yaml", CLEAN, "pass", []),
    (
        "too-much.yaml",
        CLEAN,
        "fail",
        ["span 14a1959b6aa1fb23: argument /amount (a number) is outside (-∞, 40]"],
    ),
    # Gemini's schema ("type": "OBJECT") is no JSON Schema: what was offered cannot be judged.
    ("offered-schema.yaml", ADK_14, "error", []),
]


@pytest.mark.parametrize(("example", "run", "status", "details"), CASES)
def test_an_example_gives_what_the_page_says(
    example: str, run: Path, status: str, details: list[str]
) -> None:
    (trace,) = read_traces(run)
    verdict = check(trace, compile_contract(EXAMPLES / example))
    assert verdict.status == status
    assert [v.detail for r in verdict.rules for v in r.violations] == details
    for detail in details:
        assert detail in PAGE


def test_every_example_is_on_the_page_checked_and_lint_clean() -> None:
    files = sorted(path.name for path in EXAMPLES.glob("*.yaml"))
    included = re.findall(r'--8<-- "examples/arguments/([^"]+)"', PAGE)
    assert sorted(set(included)) == files
    assert {case[0] for case in CASES} == set(files)
    for name in files:
        assert lint_contract(EXAMPLES / name) == []
