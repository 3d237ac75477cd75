"""What the pytest plugin's `pytester` tests share: a conftest for the generated test files whose
`run_agent` emits GenAI spans (the refund desk's tools, each after a model call), and a pattern
that matches a line of pytest's output exactly."""

from __future__ import annotations

import re
from pathlib import Path

RUN_AGENT = """
def run_agent(tracer, tools=("lookup_order", "issue_refund"), model="gpt-4.1-mini", shell=False):
    for_shell = ("run_shell",) if shell else ()
    with tracer.start_as_current_span("invoke_agent refund") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        for tool in (*tools, *for_shell):
            if model is not None:
                with tracer.start_as_current_span("chat " + model) as chat:
                    chat.set_attribute("gen_ai.operation.name", "chat")
                    chat.set_attribute("gen_ai.request.model", model)
                    chat.set_attribute("gen_ai.usage.input_tokens", 100)
                    chat.set_attribute("gen_ai.usage.output_tokens", 10)
            with tracer.start_as_current_span("execute_tool " + tool) as span:
                span.set_attribute("gen_ai.operation.name", "execute_tool")
                span.set_attribute("gen_ai.tool.name", tool)
                span.set_attribute(
                    "gen_ai.tool.call.arguments",
                    '{"order_id": "A-1", "amount": 12.5, "idempotency_key": "k-1"}',
                )
"""


def agent_conftest(**paths: Path) -> str:
    """A conftest naming each of `paths` (`REFUND_DESK=...`) and defining `run_agent`:
    `tools` the tools it calls, `model` the model before each (None: no model call), `shell`
    a call of run_shell after them."""
    named = "".join(f"{name} = {str(path)!r}\n" for name, path in paths.items())
    return named + RUN_AGENT


def literal(line: str) -> str:
    """An fnmatch pattern matching `line` exactly (rule labels hold brackets)."""
    return re.sub(r"([\[\]*?])", r"[\1]", line)
