"""The contracts docs/timing-and-loops.md shows (examples/timing-and-loops/) compile and give
the verdicts, and the very messages, the page shows on the recorded runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tracecheck import Trace, check, compile_contract, read_traces

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "timing-and-loops"
PAGE = ROOT / "docs" / "timing-and-loops.md"
RUNS = ("clean", "timeout", "repeated-write", "looping")
# Each example's verdict on each recorded run (both instrumentations agree).
VERDICTS = {
    "fail-fast.yaml": ("pass", "fail", "pass", "fail"),
    "few-errors.yaml": ("pass", "fail", "pass", "fail"),
    "short-run.yaml": ("pass", "pass", "pass", "fail"),
    "fast-tools.yaml": ("pass", "fail", "pass", "fail"),
    "no-loops.yaml": ("pass", "pass", "fail", "fail"),
}


def run(instrumentation: str, name: str) -> Trace:
    (trace,) = read_traces(ROOT / "fixtures" / instrumentation / f"{name}.otlp.jsonl")
    return trace


@pytest.mark.parametrize("instrumentation", ["otel-genai", "openinference"])
@pytest.mark.parametrize("example", sorted(VERDICTS))
def test_each_example_gives_the_verdicts_the_page_states(
    example: str, instrumentation: str
) -> None:
    contract = compile_contract(EXAMPLES / example)
    found = tuple(check(run(instrumentation, name), contract).status for name in RUNS)
    assert found == VERDICTS[example]


def test_every_message_on_the_page_is_one_a_check_gives() -> None:
    """Each violation line of the page's output blocks is what `check` says, word for word."""
    said = set()
    for example in VERDICTS:
        contract = compile_contract(EXAMPLES / example)
        for name in RUNS:
            verdict = check(run("otel-genai", name), contract)
            said |= {v.detail for result in verdict.rules for v in result.violations}
            said |= {f"✗ {result.label}" for result in verdict.rules if result.status == "fail"}
    page = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"```text\n(.*?)```", page, re.S)
    shown = [
        line.strip()
        for block in blocks
        for line in block.splitlines()
        if line.startswith("  ") and "tests/test_" not in line
    ]
    assert len(shown) > 15
    assert [line for line in shown if line not in said] == []


def test_every_example_is_on_the_page() -> None:
    page = PAGE.read_text(encoding="utf-8")
    examples = sorted(path.name for path in EXAMPLES.glob("*.yaml"))
    assert examples == sorted(VERDICTS)
    for example in examples:
        assert f'--8<-- "examples/timing-and-loops/{example}"' in page
