"""The refund desk as a smolagents ToolCallingAgent on OpenAIServerModel, traced by OpenInference."""

import json

from openinference.instrumentation.smolagents import SmolagentsInstrumentor
from smolagents import OpenAIServerModel, ToolCallingAgent, tool

SmolagentsInstrumentor().instrument()  # once per process, on the global tracer provider


@tool
def lookup_order(order_id: str) -> str:
    """Look an order up in the orders database.

    Args:
        order_id: The order id, e.g. A-1001.
    """
    return json.dumps({"order_id": order_id, "status": "delivered", "total": 42.5})


@tool
def issue_refund(order_id: str, amount: float, idempotency_key: str) -> str:
    """Refund an amount of an order.

    Args:
        order_id: The order to refund.
        amount: The amount in EUR.
        idempotency_key: Makes a retried refund safe.
    """
    return json.dumps({"refund_id": "re_0001", "amount": amount, "status": "succeeded"})


@tool
def run_shell(command: str) -> str:
    """Run a shell command on the support server.

    Args:
        command: The command line.
    """
    return "(this example never runs a command)"


agent = ToolCallingAgent(
    tools=[lookup_order, issue_refund, run_shell],
    model=OpenAIServerModel(model_id="gpt-4.1-mini"),  # OPENAI_BASE_URL, OPENAI_API_KEY
    name="refund_desk",
    instructions="You are the refunds assistant of an online shop. Look the order up first.",
    max_steps=6,
    verbosity_level=0,
)


def ask(question: str) -> str:
    return str(agent.run(question))  # a fresh memory for every run
