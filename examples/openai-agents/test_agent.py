import pytest
from agent import ask


@pytest.mark.trace_contract("refund-desk.yaml")
def test_refund() -> None:
    answer = ask("Order A-1001 arrived broken. Please refund the 42.5 EUR I paid.")
    assert "refunded" in answer


@pytest.mark.trace_contract("refund-desk.yaml")
def test_payment_log_opens_a_shell() -> None:
    """Fails on purpose: to read the payment log, the agent calls the forbidden run_shell."""
    ask("Was I charged twice for order A-1001? Please check the payment log.")
