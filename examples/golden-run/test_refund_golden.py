"""The refund desk against its golden run, in the agent's own tests: the spans each test emits
are diffed against goldens/refund.otlp.json after the test body passes."""

import pytest
from agent import ask


@pytest.mark.trace_golden("goldens/refund.otlp.json", match_arguments="exact")
def test_refund() -> None:
    answer = ask("Order A-1001 arrived broken. Please refund the 42.5 EUR I paid.")
    assert "refunded" in answer


@pytest.mark.trace_golden("goldens/refund.otlp.json")
def test_payment_log_parts_from_the_golden() -> None:
    """Fails on purpose: asked about the payment log, the agent opens a shell where the golden
    run issues the refund."""
    ask("Was I charged twice for order A-1001? Please check the payment log.")
