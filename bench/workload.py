"""Deterministic agent-run workloads for the reader (and later the redaction) benchmarks.

One workload is N spans of recorded agent runs (one big trace, or several), written in the four
OTLP layouts that `tracecheck` reads:

- `.otlp.json`      one `ExportTraceServiceRequest` as JSON (what an OTLP/HTTP JSON body holds);
- `.otlp.jsonl`     one request per line, `--batch` spans each (Collector `file` exporter,
                    BatchSpanProcessor batches of 512);
- `.otlp.pb`        one protobuf `ExportTraceServiceRequest`;
- `.otlp.pbstream`  the Collector `file` exporter's proto stream: each request (one batch)
                    prefixed by its length as a 4-byte big-endian integer.

A run is a root `invoke_agent` span and turns of `chat <model>` spans, each followed by the
`execute_tool <name>` spans it asked for, with OpenTelemetry GenAI attributes, message and tool
payloads of realistic size, a few error statuses and events. Spans are written in the order they
end (children before their parent), as an exporter writes them. A few fake secrets (built here
from the seeded generator) and e-mail addresses are sprinkled into tool results for the redaction
benchmark; their counts are in the sidecar `<stem>.meta.json`, together with the JSON size of
every trace (the denominator of the memory ratio).

Everything derives from `random.Random(seed)`: the same arguments give byte-identical files.

    python bench/workload.py --spans 100000 --out bench/.data
    python bench/workload.py --spans 100000 --traces 100
"""

from __future__ import annotations

import argparse
import gc
import random
import string
import struct
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan

__all__ = [
    "DEFAULT_DIR",
    "EXTENSIONS",
    "FORMATS",
    "Workload",
    "ensure",
    "generate",
    "load_meta",
]

# Bump when the generated content changes, so cached files are regenerated.
GENERATOR_VERSION = 4
DEFAULT_DIR = Path(__file__).resolve().parent / ".data"
EXTENSIONS = {
    "otlp-json": ".otlp.json",
    "otlp-jsonl": ".otlp.jsonl",
    "otlp-proto": ".otlp.pb",
    "otlp-pbstream": ".otlp.pbstream",
}
FORMATS = tuple(EXTENSIONS)

_EPOCH_NS = 1_733_130_000_000_000_000  # 2024-12-02T09:00:00Z
_ALNUM = string.ascii_letters + string.digits
_PREFIX = struct.Struct(">I")

# Span kinds and status codes as the Collector writes them in JSON (numbers).
_INTERNAL, _CLIENT = 1, 3
_STATUS_ERROR = 2


@dataclass(frozen=True)
class Workload:
    """N spans in `traces` traces of equal size, batched `batch` spans per request."""

    spans: int
    traces: int = 1
    seed: int = 1
    batch: int = 512

    def __post_init__(self) -> None:
        if self.spans < 2 * self.traces:
            raise ValueError("every trace needs at least two spans")

    @property
    def stem(self) -> str:
        return f"agent-{self.spans}s-{self.traces}t-seed{self.seed}-b{self.batch}"

    @property
    def label(self) -> str:
        size = f"{self.spans // 1000}k" if self.spans % 1000 == 0 else str(self.spans)
        return size if self.traces == 1 else f"{size} / {self.traces} traces"

    def path(self, root: Path, fmt: str) -> Path:
        return root / f"{self.stem}{EXTENSIONS[fmt]}"

    def meta_path(self, root: Path) -> Path:
        return root / f"{self.stem}.meta.json"


# ---------------------------------------------------------------------------------------------
# Text: a seeded pool of sentences and fragments, recombined into payloads of a chosen size.


def _words(text: str) -> list[str]:
    return text.split()


_NOUNS = _words(
    "order customer refund invoice ticket account payment shipment warehouse carrier address "
    "subscription plan discount coupon receipt balance transaction request response handler "
    "module function test fixture parser config service endpoint database query index table "
    "migration schema record field value token session cache queue worker job deployment "
    "cluster region bucket report summary policy contract tool model prompt context window "
    "budget limit timeout retry error warning log trace span metric dashboard alert incident"
)
_VERBS = _words(
    "returns updates checks creates deletes validates fetches parses writes reads retries "
    "schedules cancels approves rejects escalates merges splits renders computes caches "
    "migrates deploys rolls back reconciles matches flags records confirms expects handles"
)
_ADJECTIVES = _words(
    "pending failed partial duplicate expired active archived latest previous missing valid "
    "invalid stale new large small nested optional required internal external primary"
)
_CONNECTIVES = (
    "because",
    "although",
    "so that",
    "after",
    "before",
    "while",
    "unless",
    "once",
    "and then",
)
_FIRST = _words("alice bob carol dave erin frank grace heidi ivan judy mallory oscar peggy trent")
_LAST = _words("smith jones garcia miller davis lopez wilson moore taylor thomas white harris")
_DIRS = _words("src src/app src/app/api src/core tests tests/unit docs scripts config migrations")
_EXTS = (".py", ".py", ".py", ".ts", ".json", ".md", ".yaml", ".sql", ".toml", ".txt")
_MONTHS = _words("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec")
_TOOLS = (
    # name, weight, result kind
    ("read_file", 5, "code"),
    ("list_files", 3, "listing"),
    ("search_code", 4, "listing"),
    ("run_shell", 4, "shell"),
    ("web_search", 3, "prose"),
    ("query_orders", 3, "records"),
    ("get_customer", 2, "records"),
    ("issue_refund", 1, "records"),
    ("write_file", 2, "prose"),
    ("http_get", 2, "prose"),
)
_MODELS = (
    ("openai", "gpt-4o", "gpt-4o-2024-08-06"),
    ("openai", "gpt-4.1-mini", "gpt-4.1-mini-2025-04-14"),
    ("anthropic", "claude-sonnet-4-5", "claude-sonnet-4-5-20250929"),
    ("anthropic", "claude-haiku-4-5", "claude-haiku-4-5-20251001"),
)
_AGENTS = ("refund-desk", "code-fixer", "research-assistant", "ops-runbook")
_ERRORS = (
    ("TimeoutError", "tool call timed out after 30000 ms"),
    ("PermissionError", "permission denied: the tool may not write outside the workspace"),
    ("HTTPError", "HTTP 502 Bad Gateway from upstream"),
    ("ValueError", "order id is not in the expected format"),
    ("FileNotFoundError", "no such file or directory"),
)


class _Text:
    """Payload text built from a seeded pool; every choice is made by the workload's generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.sentences = [self._sentence() for _ in range(3000)]
        self.paths = [self._path() for _ in range(800)]
        self.code = [self._code_line() for _ in range(1500)]

    def _sentence(self) -> str:
        r = self.rng
        words = [
            r.choice(("The", "This", "Each", "Every", "One", "That")),
            r.choice(_ADJECTIVES),
            r.choice(_NOUNS),
            r.choice(_VERBS),
            r.choice(("the", "a", "its", "every")),
            r.choice(_NOUNS),
        ]
        if r.random() < 0.6:
            words += [r.choice(_CONNECTIVES), "the", r.choice(_NOUNS), r.choice(_VERBS)]
            words += [r.choice(("it", "them", "the " + r.choice(_NOUNS)))]
        if r.random() < 0.3:
            words += ["(" + r.choice(_NOUNS) + " " + str(r.randrange(10, 99999)) + ")"]
        return " ".join(words) + r.choice((".", ".", ".", "!", "?", "."))

    def _path(self) -> str:
        r = self.rng
        name = "_".join(r.sample(_NOUNS, r.randint(1, 2)))
        return f"{r.choice(_DIRS)}/{name}{r.choice(_EXTS)}"

    def _code_line(self) -> str:
        r = self.rng
        a, b, c = r.choice(_NOUNS), r.choice(_NOUNS), r.choice(_VERBS)
        return r.choice(
            (
                f"def {c}_{a}({b}, *, timeout=30):",
                f"    {a} = {b}.get({r.randrange(1000)!s})",
                f"    if not {a}:",
                f"        raise ValueError('{a} {c} no {b}')",
                f"    return {{'{a}': {a}, '{b}': {r.random():.3f}}}",
                f"from app.{a} import {b.capitalize()}{c.capitalize()}",
                f"# {r.choice(self.sentences)}",
                f"class {a.capitalize()}{b.capitalize()}:",
                f"    for {a} in self.{b}s:",
                f"        self.{c.replace(' ', '_')}({a})",
                "",
            )
        )

    def prose(self, size: int) -> str:
        out: list[str] = []
        length = 0
        while length < size:
            paragraph = " ".join(self.rng.choices(self.sentences, k=self.rng.randint(3, 7)))
            out.append(paragraph)
            length += len(paragraph) + 2
        return "\n\n".join(out)[:size]

    def email(self) -> str:
        r = self.rng
        user = f"{r.choice(_FIRST)}.{r.choice(_LAST)}{r.randrange(100)}"
        return f"{user}@example-{r.choice(_NOUNS)}.com"

    def records(self, size: int) -> str:
        r = self.rng
        rows: list[dict[str, Any]] = []
        length = 2
        while length < size:
            row = {
                "id": f"ord_{r.getrandbits(40):010x}",
                "customer": f"{r.choice(_FIRST).title()} {r.choice(_LAST).title()}",
                "status": r.choice(("paid", "shipped", "refunded", "pending", "disputed")),
                "amount": round(r.uniform(3, 900), 2),
                "currency": r.choice(("USD", "EUR", "GBP")),
                "created_at": f"2024-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T"
                f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}Z",
                "items": [
                    {"sku": f"SKU-{r.randrange(10**6):06d}", "qty": r.randint(1, 4)}
                    for _ in range(r.randint(1, 3))
                ],
                "note": r.choice(self.sentences),
            }
            rows.append(row)
            length += len(orjson.dumps(row)) + 1
        return orjson.dumps({"count": len(rows), "results": rows}).decode()

    def listing(self, size: int) -> str:
        r = self.rng
        lines: list[str] = []
        length = 0
        while length < size:
            line = (
                f"-rw-r--r--  1 dev  dev  {r.randrange(80, 90000):>6} "
                f"{r.choice(_MONTHS)} {r.randint(1, 28):>2} {r.randint(0, 23):02d}:"
                f"{r.randint(0, 59):02d} {r.choice(self.paths)}"
            )
            if r.random() < 0.3:
                line = f"{r.choice(self.paths)}:{r.randrange(1, 900)}: {r.choice(self.code)}"
            lines.append(line)
            length += len(line) + 1
        return "\n".join(lines)

    def code_text(self, size: int) -> str:
        r = self.rng
        lines: list[str] = []
        length = 0
        while length < size:
            chunk = r.choices(self.code, k=8)
            lines += chunk
            length += sum(len(x) + 1 for x in chunk)
        return "\n".join(lines)[:size]

    def shell(self, size: int) -> str:
        r = self.rng
        lines = [f"$ {r.choice(('pytest -q', 'make test', 'npm test', 'ruff check .'))}"]
        length = len(lines[0])
        while length < size:
            if r.random() < 0.7:
                line = f"{r.choice(self.paths)}::test_{r.choice(_NOUNS)}_{r.choice(_NOUNS)} "
                line += r.choice(("PASSED", "PASSED", "PASSED", "FAILED", "SKIPPED"))
            else:
                line = r.choice(self.code)
            lines.append(line)
            length += len(line) + 1
        lines.append(
            f"== {r.randrange(5, 400)} passed, {r.randrange(0, 4)} failed in "
            f"{r.uniform(0.5, 60):.2f}s =="
        )
        return "\n".join(lines)


class _Secrets:
    """Fake credentials and addresses, built from the generator so no scanner trips on source."""

    KINDS = ("openai-key", "anthropic-key", "aws-access-key", "github-token", "email")

    def __init__(self, rng: random.Random, text: _Text) -> None:
        self.rng = rng
        self.text = text
        self.counts = dict.fromkeys(self.KINDS, 0)

    def _chars(self, n: int, alphabet: str = _ALNUM) -> str:
        return "".join(self.rng.choices(alphabet, k=n))

    def make(self) -> str:
        kind = self.rng.choice(self.KINDS)
        self.counts[kind] += 1
        if kind == "openai-key":
            return "sk-" + "proj-" + self._chars(48)
        if kind == "anthropic-key":
            return "sk-" + "ant-api03-" + self._chars(86, _ALNUM + "-_") + "AA"
        if kind == "aws-access-key":
            return "AK" + "IA" + self._chars(16, string.ascii_uppercase + "234567")
        if kind == "github-token":
            return "gh" + "p_" + self._chars(36)
        return self.text.email()

    def sprinkle(self, payload: str, rate: float) -> str:
        """With probability `rate`, put one fake secret into `payload` at a line boundary."""
        if self.rng.random() >= rate:
            return payload
        secret = self.make()
        cut = payload.rfind("\n", 0, self.rng.randrange(1, max(2, len(payload))))
        where = cut + 1 if cut >= 0 else 0
        line = self.rng.choice(
            (
                f"export API_KEY={secret}",
                f"contact: {secret}",
                f'"authorization": "Bearer {secret}"',
                f"token={secret}",
            )
        )
        if payload.startswith("{"):  # JSON records: keep the document valid
            return payload[:-1] + ', "debug": ' + orjson.dumps(line).decode() + "}"
        return f"{payload[:where]}{line}\n{payload[where:]}"


# ---------------------------------------------------------------------------------------------
# Spans: a neutral record per span, then the OTLP/JSON and protobuf renderings of it.

_Attrs = list[tuple[str, Any]]


@dataclass
class _Span:
    trace_id: bytes
    span_id: bytes
    parent_id: bytes | None
    name: str
    kind: int
    start: int
    end: int
    attributes: _Attrs
    status: tuple[int, str] | None = None
    events: tuple[tuple[str, int, _Attrs], ...] = ()


class _Generator:
    def __init__(self, workload: Workload) -> None:
        self.w = workload
        self.rng = random.Random(workload.seed)
        self.text = _Text(self.rng)
        self.secrets = _Secrets(self.rng, self.text)
        tools = [t for t in _TOOLS for _ in range(t[1])]
        self.tools = tools
        self.tool_definitions = orjson.dumps(
            [
                {
                    "type": "function",
                    "name": name,
                    "description": self.rng.choice(self.text.sentences),
                    "parameters": {
                        "type": "object",
                        "properties": {"target": {"type": "string"}, "limit": {"type": "integer"}},
                        "required": ["target"],
                    },
                }
                for name, _, _ in _TOOLS
            ]
        ).decode()

    def _id(self, nbytes: int) -> bytes:
        return self.rng.getrandbits(8 * nbytes).to_bytes(nbytes, "big")

    def _call_id(self) -> str:
        return "call_" + "".join(self.rng.choices(_ALNUM, k=24))

    def spans(self) -> Iterator[tuple[int, _Span]]:
        """(trace index, span) for every span, in the order an exporter writes them."""
        per_trace, extra = divmod(self.w.spans, self.w.traces)
        clock = _EPOCH_NS
        for index in range(self.w.traces):
            count = per_trace + (1 if index < extra else 0)
            for span in self._trace(count, clock):
                yield index, span
                clock = max(clock, span.end)
            clock += self.rng.randrange(1, 60) * 1_000_000_000

    def _trace(self, count: int, start: int) -> Iterator[_Span]:
        r = self.rng
        trace_id = self._id(16)
        root_id = self._id(8)
        provider, request_model, response_model = r.choice(_MODELS)
        agent = r.choice(_AGENTS)
        conversation = f"conv_{r.getrandbits(64):016x}"
        now = start + r.randrange(1, 50) * 1_000_000
        remaining = count - 1
        turn = 0
        context = r.randrange(1200, 4000)
        pending_results: list[tuple[str, str, str]] = []
        while remaining > 0:
            turn += 1
            final = remaining == 1
            tools = 0 if final else max(0, min(r.choice((1, 1, 1, 2, 2, 3)), remaining - 2))
            calls = [(r.choice(self.tools), self._call_id()) for _ in range(tools)]
            chat, context = self._chat(
                trace_id,
                root_id,
                now,
                turn,
                context,
                calls,
                pending_results,
                final,
                (provider, request_model, response_model),
            )
            yield chat
            remaining -= 1
            now = chat.end + r.randrange(1, 20) * 1_000_000
            pending_results = []
            for (tool, _, kind), call_id in calls:
                span, result = self._tool(trace_id, root_id, now, tool, kind, call_id)
                yield span
                remaining -= 1
                pending_results.append((call_id, tool, result))
                now = span.end + r.randrange(1, 5) * 1_000_000
        attributes: _Attrs = [
            ("gen_ai.operation.name", "invoke_agent"),
            ("gen_ai.provider.name", provider),
            ("gen_ai.agent.name", agent),
            ("gen_ai.agent.id", f"agent_{r.getrandbits(48):012x}"),
            ("gen_ai.conversation.id", conversation),
            ("gen_ai.request.model", request_model),
            ("gen_ai.tool.definitions", self.tool_definitions),
            ("agent.turns", turn),
        ]
        yield _Span(
            trace_id,
            root_id,
            None,
            f"invoke_agent {agent}",
            _INTERNAL,
            start,
            now + 1_000_000,
            attributes,
        )

    def _chat(
        self,
        trace_id: bytes,
        parent: bytes,
        start: int,
        turn: int,
        context: int,
        calls: list[tuple[tuple[str, int, str], str]],
        results: list[tuple[str, str, str]],
        final: bool,
        models: tuple[str, str, str],
    ) -> tuple[_Span, int]:
        r = self.rng
        provider, request_model, response_model = models
        if results:
            messages = [
                {
                    "role": "tool",
                    "parts": [
                        {
                            "type": "tool_call_response",
                            "id": call_id,
                            "response": result[: r.randrange(150, 600)],
                        }
                    ],
                }
                for call_id, _, result in results
            ]
        else:
            messages = [
                {
                    "role": "user",
                    "parts": [
                        {
                            "type": "text",
                            "content": self.text.prose(int(r.triangular(250, 2000, 300))),
                        }
                    ],
                }
            ]
        parts: list[dict[str, Any]] = [
            {"type": "text", "content": self.text.prose(int(r.triangular(60, 900, 200)))}
        ]
        for (tool, _, _), call_id in calls:
            parts.append(
                {
                    "type": "tool_call",
                    "id": call_id,
                    "name": tool,
                    "arguments": self._arguments(tool),
                }
            )
        finish = "stop" if final else "tool_call"
        output = [{"role": "assistant", "parts": parts, "finish_reason": finish}]
        input_tokens = context + r.randrange(50, 900)
        output_tokens = r.randrange(20, 800)
        attributes: _Attrs = [
            ("gen_ai.operation.name", "chat"),
            ("gen_ai.provider.name", provider),
            ("gen_ai.request.model", request_model),
            ("gen_ai.request.temperature", r.choice((0.0, 0.2, 0.7, 1.0))),
            ("gen_ai.request.max_tokens", 4096),
            ("gen_ai.response.model", response_model),
            ("gen_ai.response.id", f"resp_{r.getrandbits(96):024x}"),
            ("gen_ai.response.finish_reasons", [finish]),
            ("gen_ai.usage.input_tokens", input_tokens),
            ("gen_ai.usage.output_tokens", output_tokens),
        ]
        if r.random() < 0.4:
            cached = int(input_tokens * r.uniform(0.5, 0.95))
            attributes.append(("gen_ai.usage.cache_read.input_tokens", cached))
        attributes += [
            ("gen_ai.input.messages", orjson.dumps(messages).decode()),
            ("gen_ai.output.messages", orjson.dumps(output).decode()),
            ("server.address", "api.openai.com" if provider == "openai" else "api.anthropic.com"),
            ("gen_ai.request.stream", r.random() < 0.5),
        ]
        duration = r.randrange(600, 12000) * 1_000_000
        events: tuple[tuple[str, int, _Attrs], ...] = ()
        status = None
        if r.random() < 0.03:
            events = (
                (
                    "gen_ai.client.retry",
                    start + duration // 3,
                    [
                        ("http.response.status_code", 429),
                        ("retry.attempt", 1),
                        ("retry.delay_s", round(r.uniform(0.5, 8), 3)),
                    ],
                ),
            )
        if r.random() < 0.005:
            status = (_STATUS_ERROR, "upstream stream ended before the final chunk")
            attributes.append(("error.type", "APIConnectionError"))
        span = _Span(
            trace_id,
            self._id(8),
            parent,
            f"chat {request_model}",
            _CLIENT,
            start,
            start + duration,
            attributes,
            status,
            events,
        )
        return span, min(190_000, context + output_tokens + sum(len(x[2]) // 4 for x in results))

    def _arguments(self, tool: str) -> dict[str, Any]:
        r = self.rng
        if tool in ("read_file", "write_file"):
            args: dict[str, Any] = {"path": r.choice(self.text.paths)}
            if tool == "write_file":
                args["content"] = r.choice(self.text.code)
            return args
        if tool in ("list_files", "search_code"):
            return {"target": r.choice(_DIRS), "pattern": r.choice(_NOUNS), "limit": 200}
        if tool == "run_shell":
            return {"command": r.choice(("pytest -q", "make test", "git status", "ls -la src"))}
        if tool in ("web_search", "http_get"):
            return {"query": " ".join(r.sample(_NOUNS, 4)), "max_results": r.randint(3, 10)}
        return {
            "order_id": f"ord_{r.getrandbits(40):010x}",
            "reason": r.choice(self.text.sentences),
        }

    def _tool(
        self, trace_id: bytes, parent: bytes, start: int, tool: str, kind: str, call_id: str
    ) -> tuple[_Span, str]:
        r = self.rng
        size = int(r.triangular(1024, 4096, 1024))
        result = {
            "prose": self.text.prose,
            "records": self.text.records,
            "listing": self.text.listing,
            "code": self.text.code_text,
            "shell": self.text.shell,
        }[kind](size)
        result = self.secrets.sprinkle(result, 0.004)
        attributes: _Attrs = [
            ("gen_ai.operation.name", "execute_tool"),
            ("gen_ai.tool.name", tool),
            ("gen_ai.tool.type", "function"),
            ("gen_ai.tool.call.id", call_id),
            ("gen_ai.tool.call.arguments", orjson.dumps(self._arguments(tool)).decode()),
            ("gen_ai.tool.call.result", result),
        ]
        duration = int(r.lognormvariate(4.5, 1.2) * 1_000_000) + 2_000_000
        status = None
        events: tuple[tuple[str, int, _Attrs], ...] = ()
        if r.random() < 0.03:
            error_type, message = r.choice(_ERRORS)
            status = (_STATUS_ERROR, message)
            attributes.append(("error.type", error_type))
            stack = "\n".join(
                f'  File "/srv/agent/{r.choice(self.text.paths)}", line {r.randrange(1, 900)}, '
                f"in {r.choice(_VERBS).replace(' ', '_')}_{r.choice(_NOUNS)}"
                for _ in range(r.randint(3, 8))
            )
            events = (
                (
                    "exception",
                    start + duration,
                    [
                        ("exception.type", error_type),
                        ("exception.message", message),
                        ("exception.stacktrace", f"Traceback (most recent call last):\n{stack}"),
                        ("exception.escaped", False),
                    ],
                ),
            )
        span = _Span(
            trace_id,
            self._id(8),
            parent,
            f"execute_tool {tool}",
            _INTERNAL,
            start,
            start + duration,
            attributes,
            status,
            events,
        )
        return span, result


# ---------------------------------------------------------------------------------------------
# Renderings.


def _json_value(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_json_value(v) for v in value]}}
    raise TypeError(type(value))


def _json_attributes(attributes: _Attrs) -> list[dict[str, Any]]:
    return [{"key": key, "value": _json_value(value)} for key, value in attributes]


def _json_span(span: _Span) -> dict[str, Any]:
    out: dict[str, Any] = {
        "traceId": span.trace_id.hex(),
        "spanId": span.span_id.hex(),
    }
    if span.parent_id is not None:
        out["parentSpanId"] = span.parent_id.hex()
    out.update(
        name=span.name,
        kind=span.kind,
        startTimeUnixNano=str(span.start),
        endTimeUnixNano=str(span.end),
        attributes=_json_attributes(span.attributes),
    )
    if span.events:
        out["events"] = [
            {"timeUnixNano": str(t), "name": name, "attributes": _json_attributes(attrs)}
            for name, t, attrs in span.events
        ]
    out["status"] = {"code": span.status[0], "message": span.status[1]} if span.status else {}
    return out


def _proto_value(target: AnyValue, value: Any) -> None:
    if isinstance(value, str):
        target.string_value = value
    elif isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, int):
        target.int_value = value
    elif isinstance(value, float):
        target.double_value = value
    elif isinstance(value, list):
        values = target.array_value.values
        for item in value:
            _proto_value(values.add(), item)
    else:
        raise TypeError(type(value))


def _proto_attributes(target: Any, attributes: _Attrs) -> None:
    for key, value in attributes:
        pair = target.add()
        pair.key = key
        _proto_value(pair.value, value)


def _proto_span(target: ProtoSpan, span: _Span) -> None:
    target.trace_id = span.trace_id
    target.span_id = span.span_id
    if span.parent_id is not None:
        target.parent_span_id = span.parent_id
    target.name = span.name
    target.kind = span.kind  # type: ignore[assignment]
    target.start_time_unix_nano = span.start
    target.end_time_unix_nano = span.end
    _proto_attributes(target.attributes, span.attributes)
    for name, t, attrs in span.events:
        event = target.events.add()
        event.time_unix_nano = t
        event.name = name
        _proto_attributes(event.attributes, attrs)
    if span.status:
        target.status.code = span.status[0]  # type: ignore[assignment]
        target.status.message = span.status[1]


def _resource(rng: random.Random) -> _Attrs:
    return [
        ("service.name", "agent-runner"),
        ("service.version", "2.14.0"),
        ("service.instance.id", f"{rng.getrandbits(128):032x}"),
        ("deployment.environment.name", "ci"),
        ("host.name", f"runner-{rng.randrange(100):02d}"),
        ("process.pid", rng.randrange(1000, 60000)),
        ("telemetry.sdk.name", "opentelemetry"),
        ("telemetry.sdk.language", "python"),
        ("telemetry.sdk.version", "1.27.0"),
    ]


_SCOPE = ("opentelemetry.instrumentation.genai", "0.48b0")


def _envelope(resource: _Attrs) -> tuple[bytes, bytes]:
    """The JSON bytes before and after the comma-joined spans of one request."""
    marker = {"__spans__": 0}
    document = {
        "resourceSpans": [
            {
                "resource": {"attributes": _json_attributes(resource)},
                "scopeSpans": [
                    {
                        "scope": {"name": _SCOPE[0], "version": _SCOPE[1]},
                        "spans": [marker],
                    }
                ],
                "schemaUrl": "https://opentelemetry.io/schemas/1.27.0",
            }
        ]
    }
    head, tail = orjson.dumps(document).split(orjson.dumps(marker))
    return head, tail


def _proto_request(resource: _Attrs) -> tuple[ExportTraceServiceRequest, ScopeSpans]:
    request = ExportTraceServiceRequest()
    entry: ResourceSpans = request.resource_spans.add()
    _proto_attributes(entry.resource.attributes, resource)
    entry.schema_url = "https://opentelemetry.io/schemas/1.27.0"
    group: ScopeSpans = entry.scope_spans.add()
    group.scope.name, group.scope.version = _SCOPE
    return request, group


def generate(workload: Workload, root: Path = DEFAULT_DIR) -> dict[str, Any]:
    """Write every format of `workload` below `root` and return its metadata."""
    root.mkdir(parents=True, exist_ok=True)
    gen = _Generator(workload)
    resource = _resource(gen.rng)
    head, tail = _envelope(resource)
    trace_bytes = [len(head) + len(tail)] * workload.traces
    counts = {"spans": 0, "errors": 0, "events": 0}
    paths = {fmt: workload.path(root, fmt) for fmt in FORMATS}
    partial = {fmt: path.with_name(path.name + ".part") for fmt, path in paths.items()}
    full_request, full_group = _proto_request(resource)
    enabled = gc.isenabled()
    gc.disable()
    try:
        with (
            partial["otlp-json"].open("wb") as json_out,
            partial["otlp-jsonl"].open("wb") as jsonl_out,
            partial["otlp-pbstream"].open("wb") as stream_out,
        ):
            json_out.write(head)
            batch: list[bytes] = []
            batch_request, batch_group = _proto_request(resource)

            def flush() -> None:
                nonlocal batch_request, batch_group
                if not batch:
                    return
                jsonl_out.write(head + b",".join(batch) + tail + b"\n")
                body = batch_request.SerializeToString()
                stream_out.write(_PREFIX.pack(len(body)) + body)
                full_group.spans.extend(batch_group.spans)
                batch.clear()
                batch_request, batch_group = _proto_request(resource)

            seen_in_trace = [0] * workload.traces
            for trace_index, span in gen.spans():
                encoded = orjson.dumps(_json_span(span))
                if counts["spans"]:
                    json_out.write(b",")
                json_out.write(encoded)
                trace_bytes[trace_index] += len(encoded) + (1 if seen_in_trace[trace_index] else 0)
                seen_in_trace[trace_index] += 1
                batch.append(encoded)
                _proto_span(batch_group.spans.add(), span)
                counts["spans"] += 1
                counts["errors"] += span.status is not None
                counts["events"] += len(span.events)
                if len(batch) == workload.batch:
                    flush()
            flush()
            json_out.write(tail)
        partial["otlp-proto"].write_bytes(full_request.SerializeToString())
    finally:
        if enabled:
            gc.enable()
    meta = {
        "generator_version": GENERATOR_VERSION,
        "workload": {
            "spans": workload.spans,
            "traces": workload.traces,
            "seed": workload.seed,
            "batch": workload.batch,
        },
        "files": {
            fmt: {"name": paths[fmt].name, "bytes": partial[fmt].stat().st_size} for fmt in FORMATS
        },
        "trace_json_bytes": trace_bytes,
        "largest_trace_json_bytes": max(trace_bytes),
        "spans_per_trace": seen_in_trace,
        "errors": counts["errors"],
        "events": counts["events"],
        "secrets": gen.secrets.counts,
    }
    for fmt in FORMATS:
        partial[fmt].replace(paths[fmt])
    workload.meta_path(root).write_bytes(orjson.dumps(meta, option=orjson.OPT_INDENT_2))
    return meta


def load_meta(workload: Workload, root: Path = DEFAULT_DIR) -> dict[str, Any] | None:
    """The metadata of a cached workload, or None when any of its files is missing or stale."""
    path = workload.meta_path(root)
    if not path.exists():
        return None
    meta: dict[str, Any] = orjson.loads(path.read_bytes())
    if meta.get("generator_version") != GENERATOR_VERSION:
        return None
    for fmt in FORMATS:
        file = workload.path(root, fmt)
        if not file.exists() or file.stat().st_size != meta["files"][fmt]["bytes"]:
            return None
    return meta


def ensure(workload: Workload, root: Path = DEFAULT_DIR, *, verbose: bool = True) -> dict[str, Any]:
    """The workload's metadata, generating its files first when they are missing or stale."""
    meta = load_meta(workload, root)
    if meta is None:
        started = time.perf_counter()
        if verbose:
            print(f"generating {workload.stem} in {root} ...", file=sys.stderr, flush=True)
        meta = generate(workload, root)
        if verbose:
            took = time.perf_counter() - started
            sizes = ", ".join(
                f"{EXTENSIONS[f]} {meta['files'][f]['bytes'] / 1e6:.1f} MB" for f in FORMATS
            )
            print(f"  done in {took:.1f} s: {sizes}", file=sys.stderr, flush=True)
    return meta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=10_000, help="spans in the workload")
    parser.add_argument("--traces", type=int, default=1, help="traces the spans are split into")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=512, help="spans per JSONL line / record")
    parser.add_argument("--out", type=Path, default=DEFAULT_DIR, help="output directory")
    parser.add_argument("--force", action="store_true", help="regenerate even when cached")
    args = parser.parse_args(argv)
    workload = Workload(args.spans, args.traces, args.seed, args.batch)
    meta = generate(workload, args.out) if args.force else ensure(workload, args.out)
    for fmt in FORMATS:
        print(f"{workload.path(args.out, fmt)}\t{meta['files'][fmt]['bytes']} bytes")
    print(f"largest trace: {meta['largest_trace_json_bytes']} bytes of OTLP/JSON")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
