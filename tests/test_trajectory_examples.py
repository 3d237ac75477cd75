"""The trajectory contracts the docs show (examples/trajectories/, included by
docs/trajectories.md) compile and give the verdicts the page says on the recorded runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracecheck import check, compile_contract, read_traces

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "trajectories"
CLEAN = ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl"
FORBIDDEN = ROOT / "fixtures" / "otel-genai" / "forbidden.otlp.jsonl"
PARALLEL = ROOT / "fixtures" / "producers" / "google-adk" / "schema-v2" / "parallel.otlp.jsonl"


@pytest.mark.parametrize(
    ("example", "run", "status"),
    [
        ("refund-in-order.yaml", CLEAN, "pass"),
        ("refund-in-order.yaml", FORBIDDEN, "pass"),  # in-order allows a call between
        ("refund-exact.yaml", CLEAN, "pass"),
        ("refund-exact.yaml", FORBIDDEN, "fail"),
        ("parallel.yaml", PARALLEL, "pass"),
        ("parallel.yaml", CLEAN, "fail"),
        ("golden.yaml", CLEAN, "pass"),
        ("golden.yaml", FORBIDDEN, "fail"),
    ],
)
def test_each_example_gives_the_verdict_the_page_shows(
    example: str, run: Path, status: str
) -> None:
    contract = compile_contract(EXAMPLES / example)
    (trace,) = [t for t in read_traces(run) if any(s.kind == "TOOL" for s in t.spans)]
    assert check(trace, contract).status == status


def test_every_example_is_on_the_page() -> None:
    page = (ROOT / "docs" / "trajectories.md").read_text(encoding="utf-8")
    for example in EXAMPLES.glob("*.yaml"):
        assert f'--8<-- "examples/trajectories/{example.name}"' in page
