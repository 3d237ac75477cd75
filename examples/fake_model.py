"""A scripted stand-in for the OpenAI Chat Completions API, loaded as a pytest plugin.

Each example's conftest.py loads it (`pytest_plugins = ["fake_model"]`). For the session it
serves `http://127.0.0.1:<free port>/v1/chat/completions`, points `OPENAI_BASE_URL` and
`OPENAI_API_KEY` at it, and refuses every connection that would leave the machine (a model, a
tracing backend). `pytest -p no:fake_model` leaves it out and talks to the real API.

The model plays a script, chosen by the user's question (the first user message that holds one
of the phrases in SCRIPTS); the assistant turns already in the conversation say how far along
it is. Tool calls come first, then the final answer (as a call of `final_answer` when the request
offers that tool, as smolagents does). `usage` is counted from the sizes of the request and the
reply; `"stream": true` is answered with server-sent events, as the API streams.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

LOOKUP = ("lookup_order", {"order_id": "A-1001"})
REFUND = (
    "issue_refund",
    {"order_id": "A-1001", "amount": 42.5, "idempotency_key": "refund-A-1001-01"},
)
SHELL = ("run_shell", {"command": "grep A-1001 /var/log/payments.log"})

# phrase of the question -> the model's turns: a list of tool calls, or the final answer
SCRIPTS: dict[str, list[Any]] = {
    "refund": [
        [LOOKUP],
        [REFUND],
        "I have refunded 42.5 EUR for order A-1001. You will see it in 3-5 business days.",
    ],
    "payment log": [
        [LOOKUP],
        [SHELL],
        "Order A-1001 was charged once, on 2025-03-02: 42.5 EUR.",
    ],
}
RESPONSE_MODEL = "gpt-4.1-mini-2025-04-14"


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def reply(request: dict[str, Any]) -> dict[str, Any]:
    """The chat completion the script gives for this request."""
    messages = request.get("messages", [])
    questions = [_text(m.get("content")) for m in messages if m.get("role") == "user"]
    script = next(
        (turns for q in questions for phrase, turns in SCRIPTS.items() if phrase in q.lower()),
        None,
    )
    if script is None:
        raise LookupError(f"no script for the question {questions[:1]!r}; phrases: {[*SCRIPTS]}")
    turn = sum(m.get("role") == "assistant" for m in messages)
    step = script[min(turn, len(script) - 1)]
    offered = {t.get("function", {}).get("name") for t in request.get("tools") or []}
    if isinstance(step, str) and "final_answer" in offered:
        step = [("final_answer", {"answer": step})]
    message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
    if isinstance(step, str):
        message["content"] = step
    else:
        message["tool_calls"] = [
            {
                "id": f"call_{turn}_{n}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for n, (name, arguments) in enumerate(step)
        ]
    prompt = len(json.dumps(messages)) // 4 + len(json.dumps(request.get("tools") or [])) // 4
    completion = len(json.dumps(message)) // 4
    return {
        "id": f"chatcmpl-fake-{turn}",
        "object": "chat.completion",
        "created": 1767225600 + turn,
        "model": RESPONSE_MODEL,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if "tool_calls" in message else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0},
        },
        "system_fingerprint": "fp_fake",
    }


def chunks(completion: dict[str, Any], include_usage: bool) -> list[dict[str, Any]]:
    """The same completion as the stream of chunks the API sends."""
    (choice,) = completion["choices"]
    message = choice["message"]
    head = {k: completion[k] for k in ("id", "created", "model", "system_fingerprint")}
    head["object"] = "chat.completion.chunk"
    delta: dict[str, Any] = {"role": "assistant", "content": message["content"]}
    if "tool_calls" in message:
        delta["tool_calls"] = [{"index": n, **c} for n, c in enumerate(message["tool_calls"])]
    finish = {"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}
    out = [
        {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**head, "choices": [finish]},
    ]
    if include_usage:
        out.append({**head, "choices": [], "usage": completion["usage"]})
    return out


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        if not self.path.rstrip("/").endswith("/chat/completions"):
            return self._send(404, {"error": {"message": f"no route {self.path}"}})
        try:
            completion = reply(request)
        except LookupError as exc:
            return self._send(400, {"error": {"message": str(exc)}})
        if not request.get("stream"):
            return self._send(200, completion)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        usage = bool((request.get("stream_options") or {}).get("include_usage"))
        for chunk in chunks(completion, usage):
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.close_connection = True

    def _send(self, code: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _loopback_only() -> None:
    connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else ""
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in ("127.0.0.1", "::1"):
            raise ConnectionRefusedError(f"fake_model: no connection leaves the machine ({host})")
        return connect(self, address)

    socket.socket.connect = guarded  # type: ignore[method-assign]


_SERVER = pytest.StashKey[ThreadingHTTPServer]()


def pytest_configure(config: pytest.Config) -> None:
    _loopback_only()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    config.stash[_SERVER] = server
    os.environ["OPENAI_BASE_URL"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
    os.environ["OPENAI_API_KEY"] = "fake-key-for-the-fake-model"


def pytest_unconfigure(config: pytest.Config) -> None:
    server = config.stash.get(_SERVER, None)
    if server is not None:
        server.shutdown()
        server.server_close()
