"""The refund desk on the OpenAI Agents SDK, traced by OpenInference."""

import json

from agents import (
    Agent,
    Runner,
    function_tool,
    set_default_openai_api,
    set_trace_processors,
)
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

set_default_openai_api("chat_completions")
# Once per process, on the global tracer provider. The SDK's own exporter to the OpenAI
# tracing backend is dropped first: OpenInference's processor replaces it, nothing leaves.
set_trace_processors([])
OpenAIAgentsInstrumentor().instrument()


@function_tool
def lookup_order(order_id: str) -> str:
    """Look an order up in the orders database."""
    return json.dumps({"order_id": order_id, "status": "delivered", "total": 42.5})


@function_tool
def issue_refund(order_id: str, amount: float, idempotency_key: str) -> str:
    """Refund an amount of an order; the idempotency key makes a retry safe."""
    return json.dumps({"refund_id": "re_0001", "amount": amount, "status": "succeeded"})


@function_tool
def run_shell(command: str) -> str:
    """Run a shell command on the support server."""
    return "(this example never runs a command)"


agent = Agent(
    name="refund-desk",
    instructions="You are the refunds assistant of an online shop. Look the order up first.",
    model="gpt-4.1-mini",
    tools=[lookup_order, issue_refund, run_shell],
)


def ask(question: str) -> str:
    return str(Runner.run_sync(agent, question).final_output)
