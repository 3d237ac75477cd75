"""The refund desk on Strands Agents with its OpenAIModel, traced by Strands itself."""

import json
import os

from strands import Agent, tool
from strands.models.openai import OpenAIModel
from strands.telemetry import StrandsTelemetry

# Once per process: Strands installs an OpenTelemetry SDK tracer provider as the global one.
telemetry = StrandsTelemetry()
if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
    telemetry.setup_otlp_exporter()  # where the spans go in production


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


model = OpenAIModel(model_id="gpt-4.1-mini")  # streams Chat Completions; OPENAI_* from the env


def ask(question: str) -> str:
    agent = Agent(  # an Agent keeps its conversation: one per question
        model=model,
        tools=[lookup_order, issue_refund, run_shell],
        system_prompt="You are the refunds assistant of an online shop. Look the order up first.",
        name="refund-desk",
        callback_handler=None,
    )
    return str(agent(question))
