"""One call recorded twice (or three times) by real producers counts once (issue 27, part 2).

The recordings (fixtures/producers/, see each folder's README) play the refund-desk script, so
the true tool calls, arguments, model calls and token counts are known. Every call in them is
recorded by more than one instrumentation:

- `agent-framework-anthropic/`: Agent Framework's `chat <model>` span with the Anthropic SDK's
  own `anthropic.messages.create` span inside it (the same `gen_ai.response.id`);
- `openinference-anthropic-sdk-otel/`: OpenInference's `messages.create` LLM span with the SDK's
  span inside it (no shared id: OpenInference writes the response id only inside `output.value`);
- `agent-framework-mcp/`: Agent Framework's `execute_tool <tool>` (arguments) with its own MCP
  client span `tools/call <tool>` inside it (no arguments; the same instrumentation scope);
  `with-server/` adds the MCP server's `tools/call <tool>` SERVER span, under the `mcp`
  package's `MCP send tools/call <tool>` client span (the same `jsonrpc.request.id`);
- `pydantic-ai-mcp/`: Pydantic AI's `execute_tool <tool>` (arguments), FastMCP's client
  `tools/call <tool>` inside it, and FastMCP's server `tools/call <tool>` in the server process
  (the client and server spans share the scope `fastmcp`).

The truth is asserted through the reading that contracts see (`check`, and the calls after
duplicate recordings are merged); where today's reading still counts a call more than once the
test is an expected failure that turns into a failure the day it reads true.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tracecheck import Kind, Span, Trace, check, compile_contract, read_traces
from tracecheck.readers.duplicates import merge_duplicate_calls

PRODUCERS = Path(__file__).resolve().parent.parent / "fixtures" / "producers"
RUNS = ("clean", "forbidden", "tool-error", "cache")
LOOKUP = {"order_id": "A-1001"}
REFUND = {"order_id": "A-1001", "amount": 42.5, "idempotency_key": "refund-A-1001-01"}
SHELL = {"command": "grep A-1001 /var/log/payments.log"}
ARGUMENTS = {"lookup_order": LOOKUP, "issue_refund": REFUND, "run_shell": SHELL}
TOOLS = {
    "clean": ["lookup_order", "issue_refund"],
    "forbidden": ["lookup_order", "run_shell", "issue_refund"],
    "tool-error": ["lookup_order", "issue_refund!"],
    "cache": ["lookup_order"],
}
# Each model call's total as the fake Anthropic server served it (input + cache + output).
TOTALS = {
    "clean": [430, 530, 590],
    "forbidden": [430, 513, 588, 648],
    "tool-error": [430, 530, 608],
    "cache": [1630, 1396],
}


@dataclass(frozen=True)
class Recording:
    folder: str
    conventions: frozenset[str]
    twin: str = "otlp.pb"  # the protobuf capture of the same run

    def path(self, run: str, suffix: str = "otlp.jsonl") -> Path:
        return PRODUCERS / self.folder / f"{run}.{suffix}"


AF = frozenset({"agent-framework"})
MODEL_TWINS = (
    Recording("agent-framework-anthropic", AF | {"otel-genai"}),
    Recording("openinference-anthropic-sdk-otel", frozenset({"openinference", "otel-genai"})),
)
TOOL_TWINS = (
    Recording("agent-framework-mcp", AF | {"generic"}),
    Recording(
        "agent-framework-mcp/with-server", AF | {"generic", "otel-genai"}, twin="otlp.pbstream"
    ),
    Recording(
        "pydantic-ai-mcp",
        frozenset({"pydantic-ai", "otel-genai", "generic"}),
        twin="otlp.pbstream",
    ),
)
RECORDINGS = MODEL_TWINS + TOOL_TWINS


def cases(recordings: tuple[Recording, ...]) -> list[object]:
    """(recording, run) pairs."""
    return [
        pytest.param(recording, run, id=f"{recording.folder}-{run}")
        for recording in recordings
        for run in RUNS
    ]


def agent_run(path: Path) -> Trace:
    """The trace of the agent's run (MCP connection set-up and tear-down are traces of their
    own)."""
    (run,) = [
        trace for trace in read_traces(path) if any(s.kind == Kind.AGENT for s in trace.spans)
    ]
    return run


def calls(trace: Trace, kind: Kind) -> list[Span]:
    """The calls of one kind as contracts read them: duplicate recordings merged, by start."""
    merged = merge_duplicate_calls(trace.spans).spans
    spans = [span for span in merged if span.kind == kind]
    return sorted(spans, key=lambda span: (span.start_ns or 0, span.span_id or ""))


def by_name(trace: Trace, prefix: str) -> list[Span]:
    spans = [span for span in trace.spans if span.name.startswith(prefix)]
    return sorted(spans, key=lambda span: span.start_ns or 0)


def parent(trace: Trace, span: Span) -> Span:
    (found,) = [s for s in trace.spans if s.span_id == span.parent_span_id]
    return found


def nests(outer: Span, inner: Span) -> bool:
    assert None not in (outer.start_ns, outer.end_ns, inner.start_ns, inner.end_ns)
    return outer.start_ns <= inner.start_ns <= inner.end_ns <= outer.end_ns  # type: ignore[operator]


# --- what reads true today ----------------------------------------------------------------------


@pytest.mark.parametrize(("recording", "run"), cases(RECORDINGS))
def test_every_span_is_read_by_a_known_convention(recording: Recording, run: str) -> None:
    trace = agent_run(recording.path(run))
    assert {span.convention.name for span in trace.spans} <= recording.conventions
    verdict = check(trace, compile_contract({"name": "any", "tools": {"forbidden": ["rm"]}}))
    assert verdict.status == "pass", verdict.reading_notes  # no doubt about capture


@pytest.mark.parametrize(("recording", "run"), cases(RECORDINGS))
def test_model_calls_count_every_token_once(recording: Recording, run: str) -> None:
    trace = agent_run(recording.path(run))
    assert [span.tokens.total for span in calls(trace, Kind.LLM)] == TOTALS[run]
    assert {span.model for span in calls(trace, Kind.LLM)} == {"claude-sonnet-4-5-20250929"}


@pytest.mark.parametrize(("recording", "run"), cases(RECORDINGS))
def test_a_model_budget_at_the_true_count_passes_and_one_below_fails(
    recording: Recording, run: str
) -> None:
    trace = agent_run(recording.path(run))
    count, total = len(TOTALS[run]), sum(TOTALS[run])
    exact = {"name": "exact", "llm": {"maxCalls": count, "maxTotalTokens": total}}
    assert [r.status for r in check(trace, compile_contract(exact)).rules] == ["pass", "pass"]
    below = {"name": "below", "llm": {"maxCalls": count - 1, "maxTotalTokens": total - 1}}
    assert [r.status for r in check(trace, compile_contract(below)).rules] == ["fail", "fail"]


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda r: r.folder)
def test_the_forbidden_tool_fails_whatever_the_twins(recording: Recording) -> None:
    contract = compile_contract({"name": "no-shell", "tools": {"forbidden": ["run_shell"]}})
    assert check(agent_run(recording.path("forbidden")), contract).status == "fail"
    assert check(agent_run(recording.path("clean")), contract).status == "pass"


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda r: r.folder)
@pytest.mark.parametrize("run", RUNS)
def test_both_exports_of_a_run_read_alike(recording: Recording, run: str) -> None:
    def facts(path: Path) -> list[tuple[object, ...]]:
        return sorted(
            (s.span_id, s.kind, s.tool_name, s.model, s.tokens, s.arguments, s.convention.name)
            for trace in read_traces(path)
            for s in trace.spans
        )

    assert facts(recording.path(run)) == facts(recording.path(run, recording.twin))


# --- how the twins are linked (what a merge can rely on) ----------------------------------------


@pytest.mark.parametrize("run", RUNS)
def test_agent_framework_chat_spans_hold_the_sdk_span_of_the_same_response(run: str) -> None:
    trace = agent_run(PRODUCERS / "agent-framework-anthropic" / f"{run}.otlp.jsonl")
    sdk = by_name(trace, "anthropic.messages.create")
    assert len(sdk) == len(TOTALS[run])
    for span in sdk:
        chat = parent(trace, span)
        assert chat.name == "chat claude-sonnet-4-5" and chat.scope and span.scope
        assert (chat.scope.name, span.scope.name) == ("agent_framework", "com.anthropic.sdk.python")
        assert chat.attributes["gen_ai.response.id"] == span.attributes["gen_ai.response.id"]
        assert chat.attributes["gen_ai.operation.name"] == span.attributes["gen_ai.operation.name"]
        assert nests(chat, span)
        # The counts agree once each is read by its convention (Anthropic's uncached input on
        # Agent Framework's side, the OpenTelemetry input holding the cache on the SDK's).
        assert chat.tokens.total == span.tokens.total
        assert chat.tokens.input != span.tokens.input or not chat.tokens.cache_write


@pytest.mark.parametrize("run", RUNS)
def test_openinference_llm_spans_hold_the_sdk_span_with_no_shared_id(run: str) -> None:
    trace = agent_run(PRODUCERS / "openinference-anthropic-sdk-otel" / f"{run}.otlp.jsonl")
    sdk = by_name(trace, "anthropic.messages.create")
    assert len(sdk) == len(TOTALS[run])
    for span in sdk:
        outer = parent(trace, span)
        assert outer.name == "messages.create" and outer.kind == span.kind == Kind.LLM
        assert "gen_ai.response.id" not in outer.attributes
        assert f'"id":"{span.attributes["gen_ai.response.id"]}"' in outer.attributes["output.value"]
        assert nests(outer, span)


@pytest.mark.parametrize("folder", ["agent-framework-mcp", "agent-framework-mcp/with-server"])
def test_agent_framework_execute_tool_holds_its_own_argument_less_tools_call(folder: str) -> None:
    trace = agent_run(PRODUCERS / folder / "clean.otlp.jsonl")
    inner = [s for s in by_name(trace, "tools/call ") if parent(trace, s).name.startswith("exec")]
    assert [s.tool_name for s in inner] == TOOLS["clean"]
    for span in inner:
        outer = parent(trace, span)
        assert outer.scope == span.scope and outer.scope is not None
        assert outer.scope.name == "agent_framework"
        assert outer.tool_name == span.tool_name and nests(outer, span)
        assert outer.arguments.value == ARGUMENTS[span.tool_name or ""]
        assert not span.arguments.known
        assert span.attributes["mcp.method.name"] == "tools/call"
        assert "gen_ai.tool.call.id" in outer.attributes
        assert "gen_ai.tool.call.id" not in span.attributes


@pytest.mark.parametrize(
    ("folder", "client_scope", "server_scope"),
    [
        ("agent-framework-mcp/with-server", "agent_framework", "mcp-python-sdk"),
        ("pydantic-ai-mcp", "fastmcp", "fastmcp"),
    ],
)
def test_the_servers_tools_call_joins_the_trace_under_the_request_it_answers(
    folder: str, client_scope: str, server_scope: str
) -> None:
    trace = agent_run(PRODUCERS / folder / "clean.otlp.jsonl")
    served = [s for s in by_name(trace, "tools/call ") if s.otlp_kind == 2]  # SERVER
    assert [s.tool_name for s in served] == TOOLS["clean"]
    for span in served:
        assert span.scope is not None and span.scope.name == server_scope
        assert span.resource["service.name"] == "refund-tools"
        send = parent(trace, span)  # the `mcp` package's client span of the JSON-RPC request
        assert send.name == f"MCP send tools/call {span.tool_name}"
        assert send.attributes["jsonrpc.request.id"] == span.attributes["jsonrpc.request.id"]
        client = parent(trace, send)
        assert client.name == f"tools/call {span.tool_name}" and client.otlp_kind == 3
        assert client.scope is not None and client.scope.name == client_scope
        assert parent(trace, client).name == f"execute_tool {span.tool_name}"
        assert nests(client, span) and not span.arguments.known


# --- what reads true once every recording of a tool call is one call ----------------------------


@pytest.mark.parametrize(("recording", "run"), cases(RECORDINGS))
def test_tool_calls_in_order_with_their_arguments(recording: Recording, run: str) -> None:
    tools = calls(agent_run(recording.path(run)), Kind.TOOL)
    assert [f"{s.tool_name}{'!' if s.is_error else ''}" for s in tools] == TOOLS[run]
    assert [s.arguments.value for s in tools] == [
        ARGUMENTS[name.rstrip("!")] for name in TOOLS[run]
    ]


@pytest.mark.parametrize(("recording", "run"), cases(RECORDINGS))
def test_tool_counts_and_an_argument_check_that_holds_pass(recording: Recording, run: str) -> None:
    names = [name.rstrip("!") for name in TOOLS[run]]
    contract = compile_contract(
        {
            "name": "once",
            "tools": {
                "maxCalls": len(names),
                "maxCallsPerTool": {name: 1 for name in names},
                "arguments": [
                    {"tool": "lookup_order", "pointer": "/order_id", "type": "string"},
                ],
            },
        }
    )
    verdict = check(agent_run(recording.path(run)), contract)
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.maxCalls", "pass"),
        *((f"tools.maxCallsPerTool[{name}]", "pass") for name in names),
        ("tools.arguments[0] lookup_order /order_id type string", "pass"),
    ]
