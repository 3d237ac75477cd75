"""Write the repeated runs of docs/fleet.md's worked example: 20 tasks of the refund desk, each
run 8 times by two versions of the agent, one run per OTLP JSON Lines file.

    python examples/reliability/make_runs.py runs      # runs/v1/*.otlp.jsonl, runs/v2/*.otlp.jsonl

No model is called: the runs are made up, deterministically (the same files every time), in the
shape the OpenTelemetry GenAI semantic conventions give a recorded agent: an `invoke_agent` span
holding `chat` spans (the model's turns, with their token usage) and `execute_tool` spans (the
tool calls, with their arguments and results). Each run has a trace id of its own and says which
task it is of in the resource attribute `agent.task.id`, which `fleet check --group-by` records.

What the two versions do, against contracts/refund-desk.json:

- Both look the order up, then refund it under an idempotency key, with the approved model;
  when the payment service times out they retry under the same key (tasks 06 and 19).
- Both pass the amount of task 09, where the customer wrote "12,90 €", as the string "12,90":
  `tools.arguments[1]` fails every run of that task (a stable fail).
- Asked whether they were charged twice (tasks 04, 12 and 15), both sometimes open a shell to
  search the payment log: `tools.forbidden[run_shell]` is flaky, a little more often in v2.
- v1 reads the whole order history of task 17 into its context: over the token budget every
  run. v2 keeps the last five orders: within it.
- v2 refunds small amounts (under 20 EUR: tasks 03, 08, 11 and 16) at once and looks the
  order up only afterwards, in some runs: `tools.requiredOrder` regresses.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

RUNS = 8  # of each task, by each version
VERSIONS = ("v1", "v2")
START = 1_772_442_000_000_000_000  # 2026-03-02 09:00 UTC, in nanoseconds
MODEL, ANSWERED_BY = "gpt-4.1-mini", "gpt-4.1-mini-2025-04-14"
SYSTEM = (
    "You are refund-desk, the refunds assistant of an online shop. Look the order up before "
    "anything else. Refund at most the order total. Always pass an idempotency key to "
    "issue_refund. Never run shell commands."
)

# task -> (order, amount as the customer wrote it, what the customer says)
TASKS: dict[str, tuple[str, str, str]] = {
    f"refund-{number:02d}": task
    for number, task in enumerate(
        [
            ("A-1001", "42.50", "arrived broken"),
            ("A-1002", "129.00", "never arrived"),
            ("A-1003", "9.99", "is the wrong size"),
            ("A-1004", "64.00", "was charged twice"),
            ("A-1005", "35.20", "arrived late and I no longer need it"),
            ("A-1006", "88.80", "arrived broken"),
            ("A-1007", "210.00", "is not what the photo showed"),
            ("A-1008", "14.50", "arrived open"),
            ("A-1009", "12,90", "arrived broken"),
            ("A-1010", "57.00", "never arrived"),
            ("A-1011", "4.20", "is missing a part"),
            ("A-1012", "99.90", "was charged twice"),
            ("A-1013", "23.00", "arrived broken"),
            ("A-1014", "150.00", "was cancelled but charged"),
            ("A-1015", "31.40", "was charged twice"),
            ("A-1016", "18.00", "arrived in the wrong colour"),
            ("A-1017", "76.30", "arrived broken"),
            ("A-1018", "45.00", "never arrived"),
            ("A-1019", "120.00", "arrived broken"),
            ("A-1020", "62.10", "is the wrong model"),
        ],
        start=1,
    )
}
# How many of a task's 8 runs open a shell to search the payment log, by version.
SHELL = {"v1": {"refund-04": 2, "refund-12": 1, "refund-15": 1}}
SHELL["v2"] = {"refund-04": 3, "refund-12": 2, "refund-15": 2}
# How many of a task's 8 runs v2 refunds before it looks the order up (amounts under 20 EUR).
REFUND_FIRST = {"refund-03": 5, "refund-08": 3, "refund-11": 6, "refund-16": 4}
LONG_HISTORY = "refund-17"  # 60 earlier orders: v1 reads them all into its context
TIMEOUTS = {"refund-06", "refund-19"}  # the payment service times out once, in some runs
Step = tuple[str, dict[str, Any], dict[str, Any] | None]  # a tool, its arguments, its result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder to write (its v1/ and v2/)")
    args = parser.parse_args(argv)
    for version in VERSIONS:
        folder = args.out / version
        folder.mkdir(parents=True, exist_ok=True)
        for task in TASKS:
            for number in range(1, RUNS + 1):
                request = run(version, task, number)
                path = folder / f"{task}.{number}.otlp.jsonl"
                path.write_text(json.dumps(request, separators=(",", ":")) + "\n")
    return 0


def run(version: str, task: str, number: int) -> dict[str, Any]:
    """One run of `task` by `version` of the agent, as an OTLP/JSON export request."""
    rng = random.Random(f"{version}/{task}/{number}")  # a str seed is the same in every process
    chosen = random.Random(f"{version}/{task}")  # which of the task's runs go astray
    order, written, complaint = TASKS[task]
    amount = float(written.replace(",", "."))
    shell = number - 1 in chosen.sample(range(RUNS), SHELL[version].get(task, 0))
    first = version == "v2" and number - 1 in chosen.sample(range(RUNS), REFUND_FIRST.get(task, 0))
    timeout = task in TIMEOUTS and rng.random() < 0.5
    ordinal = (VERSIONS.index(version) * len(TASKS) + list(TASKS).index(task)) * RUNS + number
    recorder = Recorder(rng, START + ordinal * 90_000_000_000)  # a run every minute and a half
    root = recorder.span_id()
    question = f"Order {order} {complaint}. Please refund the {written} EUR I paid."
    history = 60 if task == LONG_HISTORY else rng.randint(1, 4)
    if version == "v2":
        history = min(history, 5)
    context = rng.randint(330, 380) + len(question)  # the instructions, the question
    arguments = {"order_id": order, "amount": written if "," in written else amount}
    refund = {**arguments, "idempotency_key": f"refund-{order}-{rng.randint(1, 99):02d}"}
    looked_up = {"order_id": order, "status": "delivered", "total": amount, "currency": "EUR"}
    steps: list[Step] = []
    if shell:
        command = {"command": f"grep {order} /var/log/payments.log"}
        steps.append(("run_shell", command, {"exit_code": 0, "lines": 2}))
    lookup = ("lookup_order", {"order_id": order}, looked_up)
    refunds: list[Step] = [("issue_refund", refund, None)] if timeout else []  # None: timed out
    refunds.append(("issue_refund", refund, {"refund_id": f"re_{rng.randint(1000, 9999)}"}))
    steps += [*refunds, lookup] if first else [lookup, *refunds]
    for tool, call, result in steps:
        context = recorder.chat(root, context, rng, call=(tool, call))
        context += recorder.tool(root, tool, call, result, history if tool == "lookup_order" else 0)
    recorder.chat(root, context, rng, call=None)
    recorder.spans.insert(0, recorder.agent(root, question))
    return recorder.request(version, task)


class Recorder:
    """The spans of one run, in the order they end, with ids and times from `rng`."""

    def __init__(self, rng: random.Random, start: int) -> None:
        self.rng = rng
        self.start = self.clock = start
        self.trace_id = f"{rng.getrandbits(128):032x}"
        self.spans: list[dict[str, Any]] = []
        self.calls = 0

    def span_id(self) -> str:
        return f"{self.rng.getrandbits(64):016x}"

    def chat(
        self,
        parent: str,
        context: int,
        rng: random.Random,
        call: tuple[str, dict[str, Any]] | None,
    ) -> int:
        """A model turn over `context` tokens that asks for `call` (or answers); the context
        after it."""
        output = rng.randint(18, 45) if call else rng.randint(60, 140)
        if call:
            self.calls += 1
            tool, arguments = call
            content: Any = [
                {
                    "type": "tool_call",
                    "id": f"call_{self.calls}",
                    "name": tool,
                    "arguments": arguments,
                }
            ]
        else:
            content = [{"type": "text", "content": "Your refund is on its way."}]
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": MODEL,
            "gen_ai.response.model": ANSWERED_BY,
            "gen_ai.response.finish_reasons": ["tool_calls" if call else "stop"],
            "gen_ai.usage.input_tokens": context,
            "gen_ai.usage.output_tokens": output,
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": content}]),
        }
        self._span(parent, f"chat {MODEL}", 3, attributes, rng.randint(400, 1800), error=None)
        return context + output

    def tool(
        self,
        parent: str,
        tool: str,
        arguments: dict[str, Any],
        result: dict[str, Any] | None,
        history: int,
    ) -> int:
        """A tool call (`result` None: it timed out); the tokens its result adds."""
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.type": "function",
            "gen_ai.tool.call.id": f"call_{self.calls}",
            "gen_ai.tool.call.arguments": json.dumps(arguments),
        }
        if result is not None:
            if history:
                result = {**result, "earlier_orders": history}
            attributes["gen_ai.tool.call.result"] = json.dumps(result)
        took = self.rng.randint(30, 300) if result is not None else 10_000
        error = None if result is not None else "payment service timed out after 10 s"
        self._span(parent, f"execute_tool {tool}", 1, attributes, took, error)
        return 40 + 330 * history + self.rng.randint(0, 60)

    def agent(self, root: str, question: str) -> dict[str, Any]:
        attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.provider.name": "openai",
            "gen_ai.agent.name": "refund-desk",
            "gen_ai.request.model": MODEL,
            "gen_ai.system_instructions": json.dumps([{"type": "text", "content": SYSTEM}]),
            "gen_ai.input.messages": json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": question}]}]
            ),
        }
        return self._record(
            root, None, "invoke_agent refund-desk", 1, attributes, self.start, self.clock, None
        )

    def _span(
        self,
        parent: str,
        name: str,
        kind: int,
        attributes: dict[str, Any],
        millis: int,
        error: str | None,
    ) -> None:
        start = self.clock + 1_000_000
        self.clock = start + millis * 1_000_000
        span = self._record(
            self.span_id(), parent, name, kind, attributes, start, self.clock, error
        )
        self.spans.append(span)

    def _record(
        self,
        span_id: str,
        parent: str | None,
        name: str,
        kind: int,
        attributes: dict[str, Any],
        start: int,
        end: int,
        error: str | None,
    ) -> dict[str, Any]:
        span: dict[str, Any] = {"traceId": self.trace_id, "spanId": span_id}
        if parent is not None:
            span["parentSpanId"] = parent
        span |= {
            "name": name,
            "kind": kind,
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(end),
            "attributes": otlp_attributes(attributes),
            "status": {"code": 2, "message": error} if error else {"code": 1},
        }
        if error:
            span["attributes"] += otlp_attributes({"error.type": "timeout"})
        return span

    def request(self, version: str, task: str) -> dict[str, Any]:
        resource = {
            "service.name": "refund-desk",
            "service.version": version,
            "agent.task.id": task,
            "telemetry.sdk.language": "python",
            "telemetry.sdk.name": "opentelemetry",
        }
        scope = {"name": "refund_desk.agent", "version": version}
        return {
            "resourceSpans": [
                {
                    "resource": {"attributes": otlp_attributes(resource)},
                    "scopeSpans": [{"scope": scope, "spans": self.spans}],
                }
            ]
        }


def otlp_attributes(attributes: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "value": otlp_value(value)} for key, value in attributes.items()]


def otlp_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}  # OTLP/JSON spells 64-bit integers as strings
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [otlp_value(item) for item in value]}}
    return {"stringValue": str(value)}


if __name__ == "__main__":
    raise SystemExit(main())
