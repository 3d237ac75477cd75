"""The refund desk on Pydantic AI, traced by its built-in OpenTelemetry instrumentation."""

import json

from pydantic_ai import Agent

Agent.instrument_all()  # once per process: every agent, on the global tracer provider


def lookup_order(order_id: str) -> str:
    """Look an order up in the orders database."""
    return json.dumps({"order_id": order_id, "status": "delivered", "total": 42.5})


def issue_refund(order_id: str, amount: float, idempotency_key: str) -> str:
    """Refund an amount of an order; the idempotency key makes a retry safe."""
    return json.dumps({"refund_id": "re_0001", "amount": amount, "status": "succeeded"})


def run_shell(command: str) -> str:
    """Run a shell command on the support server."""
    return "(this example never runs a command)"


agent = Agent(
    "openai-chat:gpt-4.1-mini",  # Chat Completions
    name="refund-desk",
    instructions="You are the refunds assistant of an online shop. Look the order up first.",
    tools=[lookup_order, issue_refund, run_shell],
)


def ask(question: str) -> str:
    return agent.run_sync(question).output
