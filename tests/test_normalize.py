"""contracts.md §1: kind, tool name, model, tokens, arguments, offered tools, run record."""

from __future__ import annotations

from typing import Any

import pytest

from tracecheck import Kind, Span, Trace


def span(
    name: str = "", declared: str | None = None, status: Any = None, **attributes: Any
) -> Span:
    return Span(
        "0" * 31 + "1",
        "0" * 15 + "1",
        name=name,
        attributes={key.replace("__", "."): value for key, value in attributes.items()},
        declared_kind=declared,
        status=status,
    )


def attrs(**pairs: Any) -> dict[str, Any]:
    return pairs


@pytest.mark.parametrize(
    ("declared", "attributes", "name", "expected"),
    [
        # 1. a declared kind counts when it is a contract kind, with the two aliases
        ("tool", {}, "x", Kind.TOOL),
        ("judge", {}, "x", Kind.EVALUATOR),
        ("retrieval", {}, "x", Kind.RETRIEVER),
        ("Guardrail", {}, "x", Kind.GUARDRAIL),
        ("CLIENT", {"gen_ai.operation.name": "chat"}, "x", Kind.LLM),  # an OTLP kind is not
        ("tool", {"openinference.span.kind": "LLM"}, "x", Kind.TOOL),
        # 2. OpenInference's span kind, then inference.observation_kind
        (None, {"openinference.span.kind": "llm"}, "Bash", Kind.LLM),
        (None, {"openinference.span.kind": "RERANKER"}, "x", Kind.RERANKER),
        (None, {"inference.observation_kind": "prompt"}, "x", Kind.PROMPT),
        (
            None,
            {"openinference.span.kind": "SOMETHING", "gen_ai.operation.name": "chat"},
            "",
            Kind.LLM,
        ),
        # 3. a recorded tool name makes a tool call whatever operation was written over it
        # (LiteLLM writes `chat` over the current span), then a GenAI operation decides before
        # any inference from the name or a model
        (None, {"gen_ai.tool.name": "Read", "gen_ai.operation.name": "chat"}, "x", Kind.TOOL),
        (None, {"gen_ai.operation.name": "execute_tool", "llm.model_name": "m"}, "x", Kind.TOOL),
        (None, {"gen_ai.operation.name": "chat"}, "tool.search", Kind.LLM),
        (None, {"gen_ai.tool.name": "Read", "gen_ai.operation.name": "speech"}, "x", Kind.TOOL),
        (None, {"tool.name": "Read"}, "x", Kind.TOOL),
        (None, {"inference.tool.name": "Read"}, "x", Kind.TOOL),
        (None, {"gen_ai.tool.name": ""}, "x", Kind.UNKNOWN),
        (None, {}, "function.lookup", Kind.TOOL),
        (None, {}, "Tool:search", Kind.TOOL),
        (None, {}, "tool/search", Kind.TOOL),
        (None, {}, "toolbox", Kind.UNKNOWN),
        (None, {}, "execute_tool issue_refund", Kind.TOOL),  # the GenAI conventions' span name
        (None, {"gen_ai.operation.name": "x"}, "execute_tool issue_refund", Kind.UNKNOWN),
        # the operations the GenAI conventions define
        (None, {"gen_ai.operation.name": "chat"}, "x", Kind.LLM),
        (None, {"gen_ai.operation.name": "generate_content"}, "x", Kind.LLM),
        (None, {"gen_ai.operation.name": "text_completion"}, "x", Kind.LLM),
        (None, {"gen_ai.operation.name": "execute_tool"}, "x", Kind.TOOL),
        (None, {"gen_ai.operation.name": "invoke_agent"}, "x", Kind.AGENT),
        (None, {"gen_ai.operation.name": "create_agent"}, "x", Kind.AGENT),
        (None, {"gen_ai.operation.name": "plan"}, "x", Kind.AGENT),
        (None, {"gen_ai.operation.name": "handle_conversation_turn"}, "x", Kind.AGENT),
        (None, {"gen_ai.operation.name": "invoke_workflow"}, "x", Kind.CHAIN),
        (None, {"gen_ai.operation.name": "gen_ai.invocation.internal"}, "x", Kind.CHAIN),
        (None, {"gen_ai.operation.name": "retrieval"}, "x", Kind.RETRIEVER),
        (None, {"gen_ai.operation.name": "embeddings"}, "x", Kind.EMBEDDING),
        # any other operation stops inference, even with a model present
        (
            None,
            {"gen_ai.operation.name": "speech", "gen_ai.request.model": "m"},
            "llm",
            Kind.UNKNOWN,
        ),
        # then a model or an LLM-looking name
        (None, {"llm.model_name": "gpt-4o"}, "Read", Kind.LLM),
        (None, {}, "openai.chat_completions", Kind.LLM),
        (None, {}, "ChatCompletion", Kind.UNKNOWN),
        (None, {}, "chat.completion", Kind.LLM),
        (None, {}, "call_llm", Kind.LLM),
        (None, {}, "LLM", Kind.LLM),
        (None, {}, "llm.invoke", Kind.LLM),
        (None, {}, "smallmodel", Kind.UNKNOWN),
        (None, {}, "allm", Kind.UNKNOWN),
        # token counts alone never make an LLM span
        (
            None,
            {"gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 2},
            "x",
            Kind.UNKNOWN,
        ),
        (None, {}, "", Kind.UNKNOWN),
    ],
)
def test_kind(declared: str | None, attributes: dict[str, Any], name: str, expected: Kind) -> None:
    subject = Span("a" * 32, "b" * 16, name=name, attributes=attributes, declared_kind=declared)
    assert subject.kind is expected


def test_an_llm_span_named_like_a_tool_is_not_a_tool() -> None:
    subject = span("Bash", gen_ai__request__model="claude-sonnet-4-5")
    assert subject.kind is Kind.LLM
    assert subject.tool_name is None


@pytest.mark.parametrize(
    ("attributes", "name", "expected"),
    [
        ({"gen_ai.tool.name": "Read", "tool.name": "Other"}, "x", "Read"),
        ({"gen_ai.tool.name": "", "tool.name": "Grep"}, "x", "Grep"),
        ({"inference.tool.name": "Glob"}, "x", "Glob"),
        ({"toolName": "lookup", "gen_ai.operation.name": "execute_tool"}, "x", "lookup"),
        ({"gen_ai.operation.name": "execute_tool"}, "execute_tool Bash", "Bash"),
        ({"gen_ai.operation.name": "execute_tool"}, "execute_tool", None),
        ({"gen_ai.operation.name": "execute_tool"}, "lookup_order", "lookup_order"),
        ({"openinference.span.kind": "TOOL"}, "issue_refund", "issue_refund"),
        # only a TOOL span's name names a tool
        ({"gen_ai.operation.name": "chat"}, "execute_tool Bash", None),
        ({}, "Read", None),
        ({"gen_ai.tool.name": 5, "gen_ai.operation.name": "execute_tool"}, "execute_tool X", "X"),
    ],
)
def test_tool_name(attributes: dict[str, Any], name: str, expected: str | None) -> None:
    assert Span("a" * 32, "b" * 16, name=name, attributes=attributes).tool_name == expected


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        (
            {"gen_ai.response.model": "gpt-4o-2024-08-06", "gen_ai.request.model": "gpt-4o"},
            "gpt-4o-2024-08-06",
        ),
        ({"gen_ai.response.model": "", "gen_ai.request.model": "gpt-4o"}, "gpt-4o"),
        ({"llm.model_name": "claude-sonnet-4-5"}, "claude-sonnet-4-5"),
        ({"llm.response.model_name": "a", "llm.request.model_name": "b"}, "a"),
        ({"llm.request.model_name": "b"}, "b"),
        ({"inference.llm.model_name": "c"}, "c"),
        ({"llm.model": "d"}, "d"),
        ({"model": "e"}, "e"),
        ({"model": 4}, None),
        ({}, None),
    ],
)
def test_model(attributes: dict[str, Any], expected: str | None) -> None:
    assert Span("a" * 32, "b" * 16, attributes=attributes).model == expected


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        # OpenAI-style: cache reads are part of input, so they are not added again
        (
            {
                "gen_ai.usage.input_tokens": 100,
                "gen_ai.usage.output_tokens": 20,
                "gen_ai.usage.cache_read.input_tokens": 40,
            },
            (100, 20, 40, None, 120),
        ),
        (
            {
                "gen_ai.usage.prompt_tokens": "100",
                "gen_ai.usage.completion_tokens": "5",
                "gen_ai.usage.prompt_tokens_details.cached_tokens": 64,
            },
            (100, 5, 64, None, 105),
        ),
        # Anthropic-style: cache counts are beside input and are added
        (
            {
                "llm.token_count.prompt": 10,
                "llm.token_count.completion": 7,
                "llm.token_count.prompt_cache_write": 19004,
            },
            (10, 7, None, 19004, 19021),
        ),
        (
            {
                "gen_ai.usage.input_tokens": 3,
                "gen_ai.usage.output_tokens": 50,
                "gen_ai.usage.cache_read_input_tokens": 1000,
                "gen_ai.usage.cache_creation_input_tokens": 200,
            },
            (3, 50, 1000, 200, 1253),
        ),
        ({"input_tokens": 1, "output_tokens": 1, "cache_read_input_tokens": 5}, (1, 1, 5, None, 7)),
        # an included count larger than input was evidently left out of it: added once
        (
            {
                "gen_ai.usage.input_tokens": 10,
                "gen_ai.usage.output_tokens": 1,
                "gen_ai.usage.cache_read.input_tokens": 500,
                "gen_ai.usage.cache_creation.input_tokens": 4,
            },
            (10, 1, 500, 4, 511),
        ),
        # unknown input or output: total unknown; booleans and non-finite values are no counts
        ({"gen_ai.usage.input_tokens": 10}, (10, None, None, None, None)),
        (
            {"gen_ai.usage.input_tokens": True, "gen_ai.usage.output_tokens": 2},
            (None, 2, None, None, None),
        ),
        (
            {"gen_ai.usage.input_tokens": "NaN", "gen_ai.usage.output_tokens": 2},
            (None, 2, None, None, None),
        ),
        (
            {"gen_ai.usage.input_tokens": "many", "llm.input_tokens": 8, "llm.output_tokens": 2.0},
            (8, 2, None, None, 10),
        ),
        (
            {"inference.llm.input_tokens": 1.5, "inference.llm.output_tokens": 1},
            (1.5, 1, None, None, 2.5),
        ),
        ({}, (None, None, None, None, None)),
    ],
)
def test_tokens(attributes: dict[str, Any], expected: tuple[Any, ...]) -> None:
    tokens = Span("a" * 32, "b" * 16, attributes=attributes).tokens
    assert (
        tokens.input,
        tokens.output,
        tokens.cache_read,
        tokens.cache_write,
        tokens.total,
    ) == expected


@pytest.mark.parametrize(
    ("attributes", "known", "value", "reason"),
    [
        (
            {"gen_ai.tool.call.arguments": '{"file_path": "/a", "n": 1}'},
            True,
            {"file_path": "/a", "n": 1},
            None,
        ),
        ({"tool.arguments": {"q": "x"}}, True, {"q": "x"}, None),
        ({"input.value": "not json"}, True, "not json", None),
        ({"input.value": "[1, 2]"}, True, [1, 2], None),
        ({"tool.input": "null"}, True, None, None),
        ({"gen_ai.tool.call.arguments": None, "tool.arguments": "7"}, True, 7, None),
        (
            {"tool.args_captured": False, "tool.arguments": "{}"},
            False,
            None,
            "arguments were not captured",
        ),
        ({"tool.args_captured": "false"}, False, None, "arguments were not captured"),
        ({"tool.args_captured": True}, False, None, "the span carries no argument evidence"),
        ({}, False, None, "the span carries no argument evidence"),
    ],
)
def test_tool_arguments(
    attributes: dict[str, Any], known: bool, value: Any, reason: str | None
) -> None:
    arguments = Span("a" * 32, "b" * 16, attributes=attributes).arguments
    assert (arguments.known, arguments.value, arguments.reason) == (known, value, reason)


@pytest.mark.parametrize(
    ("attributes", "names", "problem"),
    [
        ({"gen_ai.tool.definitions": ["Read", "Grep"]}, ("Read", "Grep"), None),
        (
            {
                "gen_ai.tool.definitions": '[{"type": "function", "name": "Read"}, {"function": {"name": "Grep"}}]'
            },
            ("Read", "Grep"),
            None,
        ),
        ({"gen_ai.tool.definitions": "[]"}, (), None),
        (
            {"gen_ai.tool.definitions": '{"name": "Read"}'},
            (),
            "gen_ai.tool.definitions is not a list",
        ),
        ({"gen_ai.tool.definitions": "Read,Grep"}, (), "gen_ai.tool.definitions is not a list"),
        (
            {"gen_ai.tool.definitions": ["Read", "", {"description": "x"}]},
            ("Read",),
            "gen_ai.tool.definitions has an entry without a tool name",
        ),
        (
            {
                "llm.tools.1.tool.json_schema": '{"type": "function", "function": {"name": "Grep"}}',
                "llm.tools.0.tool.json_schema": '{"name": "Read"}',
                "llm.tools.10.tool.json_schema": {"name": "Glob"},
            },
            ("Read", "Grep", "Glob"),
            None,
        ),
        ({"llm.tools.0.tool.json_schema": "{}"}, (), "llm.tools has an entry without a tool name"),
        # A schema that is not a JSON object names no tool, however it reads.
        (
            {"llm.tools.0.tool.json_schema": "Read"},
            (),
            "llm.tools has an entry without a tool name",
        ),
        (
            {"llm.tools.0.tool.json_schema": "{bad"},
            (),
            "llm.tools has an entry without a tool name",
        ),
        (
            {"llm.tools.0.tool.json_schema": '"Read"', "llm.tools.1.tool.json_schema": ["Grep"]},
            (),
            "llm.tools has an entry without a tool name",
        ),
        # BeeAI's ReAct agent under its instrumentation before 0.1.9: flattened tool objects.
        (
            {"llm.tools": '[{"tool.name": "Read", "tool.description": "r"}, "Grep"]'},
            ("Read", "Grep"),
            None,
        ),
    ],
)
def test_offered_tools(
    attributes: dict[str, Any], names: tuple[str, ...], problem: str | None
) -> None:
    offered = Span("a" * 32, "b" * 16, attributes=attributes).offered_tools
    assert offered is not None
    assert (offered.names, offered.problem) == (names, problem)


def test_no_offered_tools_record() -> None:
    assert Span("a" * 32, "b" * 16, attributes={"llm.tools": "x"}).offered_tools is None


@pytest.mark.parametrize(
    ("attributes", "status", "expected"),
    [
        ({"run.status": "completed"}, None, "completed"),
        ({"run.status": "aborted"}, "error", "aborted"),
        ({"run.status": "done"}, "error", "failed"),
        ({}, "error", "failed"),
        # a root that simply ended OK is not evidence that the run completed
        ({}, "ok", None),
        ({}, None, None),
    ],
)
def test_run_status(attributes: dict[str, Any], status: Any, expected: str | None) -> None:
    root = Span("a" * 32, "b" * 16, start_ns=5, end_ns=9, status=status, attributes=attributes)
    assert root.run_record.status == expected
    assert root.run_record.duration_ns == 4


def test_trace_run_record_needs_exactly_one_root() -> None:
    root = Span("a" * 32, "1" * 16, attributes={"run.status": "completed"})
    child = Span("a" * 32, "2" * 16, parent_span_id="1" * 16)
    orphan = Span("a" * 32, "3" * 16, parent_span_id="9" * 16)
    assert Trace("a" * 32, (root, child)).run_record == root.run_record
    assert Trace("a" * 32, (root, child, orphan)).run_record is None
    assert [s.span_id for s in Trace("a" * 32, (root, child, orphan)).roots] == ["1" * 16, "3" * 16]


def test_span_is_frozen_and_attributes_are_read_only() -> None:
    from tracecheck import read_traces

    document = (
        b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"'
        + b"a" * 32
        + b'","spanId":"'
        + b"b" * 16
        + b'","name":"n","attributes":[{"key":"k","value":{"stringValue":"v"}}]}]}]}]}'
    )
    (trace,) = read_traces(document)
    (subject,) = trace.spans
    with pytest.raises(AttributeError):
        subject.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        subject.attributes["k"] = "w"  # type: ignore[index]
