"""The `leaky` fixture really holds the secrets and personal data it was recorded with.

fixtures/otel-genai/leaky.* and fixtures/openinference/leaky.* are one agent run (recorded by
fixtures/generate.py) whose prompt, tool arguments, tool results, exception, final answer and
resource carry fake credentials and personal data. The redaction tests use them; these tests pin
that every planted value is where fixtures/README.md says it is, so that "nothing found after
redaction" means something. The values are glued together from parts, as in generate.py, so that
no secret scanner trips over this file.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tracecheck import Kind, Span, Trace, read_traces

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
INSTRUMENTATIONS = ("otel-genai", "openinference")

CUSTOMER_EMAIL = "jane.doe" + "@" + "example.com"
CUSTOMER_PHONE = "(415) " + "555-2671"
CARD_NUMBER = " ".join(["4111"] + ["1111"] * 3)
OPENAI_KEY = "sk-" + "proj-" + "FAKEfake0123456789" + "FAKEfake0123"
BEARER_LINE = "Authori" + "zation: Bearer " + "fake." + "0123456789abcdef" + ".FAKE"
POSTGRES_URL = "postgres://" + "crm_app:" + "FAKEpassw0rd" + "@db.example.test:5432/crm"
AWS_KEY_ID = "AKIA" + "IOSFODNN7" + "EXAMPLE"
MANAGER_EMAIL = "crm-admin" + "@" + "example.test"
OWNER_EMAIL = "platform-owner" + "@" + "example.test"
KNOWN_SECRET = "zq9 Opaque/" + "Deploy Key 77"
KNOWN_SECRET_B64 = base64.b64encode(KNOWN_SECRET.encode()).decode()


def _b64url(part: dict[str, str]) -> str:
    raw = json.dumps(part, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


TICKET_TOKEN = ".".join(
    [
        _b64url({"alg": "HS256", "typ": "JWT"}),
        _b64url({"sub": "fixture-fake", "iss": "example.test"}),
        "FAKE" + "signature" + "0123456789",
    ]
)

PROMPT_VALUES = (CUSTOMER_EMAIL, CUSTOMER_PHONE, CARD_NUMBER)
CRM_RESULT_VALUES = (
    BEARER_LINE,
    POSTGRES_URL,
    AWS_KEY_ID,
    CUSTOMER_EMAIL,
    MANAGER_EMAIL,
    KNOWN_SECRET,
    KNOWN_SECRET_B64,
)

# Where each instrumentation records the prompt, tool arguments, tool results and the answer.
KEYS = {
    "otel-genai": {
        "prompt": "gen_ai.input.messages",
        "arguments": "gen_ai.tool.call.arguments",
        "result": "gen_ai.tool.call.result",
        "answer": "gen_ai.output.messages",
    },
    "openinference": {
        "prompt": "llm.input_messages.1.message.content",
        "arguments": "input.value",
        "result": "output.value",
        "answer": "llm.output_messages.0.message.content",
    },
}


def only_trace(path: Path) -> Trace:
    traces = read_traces(path)
    assert len(traces) == 1, f"{path} holds {len(traces)} traces"
    assert not traces[0].notes
    return traces[0]


def by_start(trace: Trace, kind: Kind) -> list[Span]:
    spans = [span for span in trace.spans if span.kind is kind]
    return sorted(spans, key=lambda span: (span.start_ns or 0, span.span_id or ""))


def tool_span(trace: Trace, name: str) -> Span:
    (span,) = [span for span in by_start(trace, Kind.TOOL) if span.tool_name == name]
    return span


def text(span: Span, key: str) -> str:
    value: Any = span.attributes.get(key)
    assert isinstance(value, str), f"{span.name}: {key} is {value!r}"
    return value


@pytest.fixture(params=INSTRUMENTATIONS)
def recorded(request: pytest.FixtureRequest) -> tuple[str, Trace]:
    return request.param, only_trace(FIXTURES / request.param / "leaky.otlp.jsonl")


@pytest.mark.parametrize("instrumentation", INSTRUMENTATIONS)
def test_json_lines_and_protobuf_hold_the_same_run(instrumentation: str) -> None:
    from_json = only_trace(FIXTURES / instrumentation / "leaky.otlp.jsonl")
    from_proto = only_trace(FIXTURES / instrumentation / "leaky.otlp.pb")
    assert from_json.trace_id == from_proto.trace_id
    assert sorted(from_json.spans, key=lambda s: s.span_id or "") == sorted(
        from_proto.spans, key=lambda s: s.span_id or ""
    )


def test_the_run(recorded: tuple[str, Trace]) -> None:
    _, trace = recorded
    assert [span.tool_name for span in by_start(trace, Kind.TOOL)] == ["call_crm", "open_ticket"]
    assert [span.tokens.input for span in by_start(trace, Kind.LLM)] == [468, 702, 781]


def test_the_prompt_holds_e_mail_phone_and_card(recorded: tuple[str, Trace]) -> None:
    instrumentation, trace = recorded
    key = KEYS[instrumentation]["prompt"]
    for llm in by_start(trace, Kind.LLM):
        prompt = text(llm, key)
        for value in PROMPT_VALUES:
            assert value in prompt, (llm.name, key, value)


def test_the_tool_arguments_hold_an_api_key(recorded: tuple[str, Trace]) -> None:
    instrumentation, trace = recorded
    crm = tool_span(trace, "call_crm")
    assert crm.arguments.value == {"customer_email": CUSTOMER_EMAIL, "api_key": OPENAI_KEY}
    assert OPENAI_KEY in text(crm, KEYS[instrumentation]["arguments"])
    # ...and the model's request for the call, on the first LLM span.
    first = by_start(trace, Kind.LLM)[0]
    assert any(
        OPENAI_KEY in value
        for key, value in first.attributes.items()
        if key.startswith(("gen_ai.output.", "llm.output_messages.")) and isinstance(value, str)
    )


def test_the_tool_result_holds_credentials_and_the_known_secret(
    recorded: tuple[str, Trace],
) -> None:
    instrumentation, trace = recorded
    result = text(tool_span(trace, "call_crm"), KEYS[instrumentation]["result"])
    for value in CRM_RESULT_VALUES:
        assert value in result, value
    assert f"\n{BEARER_LINE}\n" in result, "the authorization header is a line of its own"
    assert base64.b64decode(KNOWN_SECRET_B64).decode() == KNOWN_SECRET
    # The model got the result back: the next LLM spans carry it in their input messages.
    for llm in by_start(trace, Kind.LLM)[1:]:
        inputs = "".join(
            value
            for key, value in llm.attributes.items()
            if key.startswith(("gen_ai.input.", "llm.input_messages.")) and isinstance(value, str)
        )
        for value in (AWS_KEY_ID, POSTGRES_URL, KNOWN_SECRET, KNOWN_SECRET_B64, OPENAI_KEY):
            assert value in inputs, (llm.name, value)


def test_the_failed_tool_leaks_a_token_in_status_result_and_exception_event(
    recorded: tuple[str, Trace],
) -> None:
    instrumentation, trace = recorded
    ticket = tool_span(trace, "open_ticket")
    assert ticket.status == "error"
    assert TICKET_TOKEN in (ticket.status_message or "")
    assert TICKET_TOKEN in text(ticket, KEYS[instrumentation]["result"])
    (event,) = ticket.events
    assert event.name == "exception"
    assert event.attributes["exception.type"] == "PermissionError"
    assert TICKET_TOKEN in event.attributes["exception.message"]
    assert TICKET_TOKEN in event.attributes["exception.stacktrace"]
    assert all(not span.events for span in trace.spans if span is not ticket)


def test_the_answer_repeats_the_customer_e_mail(recorded: tuple[str, Trace]) -> None:
    instrumentation, trace = recorded
    answer = text(by_start(trace, Kind.LLM)[-1], KEYS[instrumentation]["answer"])
    assert answer.count(CUSTOMER_EMAIL) == 2


def test_the_resource_holds_an_owner_e_mail(recorded: tuple[str, Trace]) -> None:
    _, trace = recorded
    assert all(span.resource.get("deployment.owner.email") == OWNER_EMAIL for span in trace.spans)
