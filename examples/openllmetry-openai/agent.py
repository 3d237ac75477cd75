"""The refund desk as a hand-written tool loop on the `openai` client, traced by OpenLLMetry.

OpenLLMetry records each model call; the loop records the agent and each tool it runs as
OpenTelemetry GenAI spans of its own, with a tracer taken from the global API.
"""

import json

from openai import OpenAI
from opentelemetry import trace
from opentelemetry.instrumentation.openai import OpenAIInstrumentor

OpenAIInstrumentor().instrument()  # once per process, on the global tracer provider
tracer = trace.get_tracer("refund-desk")


def lookup_order(order_id: str) -> str:
    return json.dumps({"order_id": order_id, "status": "delivered", "total": 42.5})


def issue_refund(order_id: str, amount: float, idempotency_key: str) -> str:
    return json.dumps({"refund_id": "re_0001", "amount": amount, "status": "succeeded"})


def run_shell(command: str) -> str:
    return "(this example never runs a command)"


def _schema(function, description, **parameters):
    properties = {name: {"type": kind} for name, kind in parameters.items()}
    return {
        "type": "function",
        "function": {
            "name": function.__name__,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": [*parameters]},
        },
    }


TOOLS = {f.__name__: f for f in (lookup_order, issue_refund, run_shell)}
SCHEMAS = [
    _schema(lookup_order, "Look an order up in the orders database.", order_id="string"),
    _schema(
        issue_refund,
        "Refund an amount of an order; the idempotency key makes a retry safe.",
        order_id="string",
        amount="number",
        idempotency_key="string",
    ),
    _schema(run_shell, "Run a shell command on the support server.", command="string"),
]
INSTRUCTIONS = "You are the refunds assistant of an online shop. Look the order up first."


def ask(question: str) -> str:
    client = OpenAI()
    messages = [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": question}]
    agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "refund-desk"}
    with tracer.start_as_current_span("invoke_agent refund-desk", attributes=agent):
        for _ in range(10):
            completion = client.chat.completions.create(
                model="gpt-4.1-mini", messages=messages, tools=SCHEMAS
            )
            message = completion.choices[0].message
            if not message.tool_calls:
                return message.content or ""
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                name, arguments = call.function.name, call.function.arguments
                attributes = {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": name,
                    "gen_ai.tool.call.id": call.id,
                    "gen_ai.tool.call.arguments": arguments,
                }
                with tracer.start_as_current_span(f"execute_tool {name}", attributes=attributes):
                    result = TOOLS[name](**json.loads(arguments))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    raise RuntimeError("the model did not answer within 10 turns")
