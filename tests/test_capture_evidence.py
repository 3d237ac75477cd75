"""No false PASS on spans no convention maps: notes, --strict-capture, and which rules it stops."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracecheck import compile_contract
from tracecheck.check import check
from tracecheck.cli import ExitCode, main
from tracecheck.conventions.evidence import requested_tools, unmapped_evidence
from tracecheck.spans import ReadNote, Span, Trace

TRACE = "a" * 32


def span(span_id: int, name: str, parent: int | None = 1, **attributes: object) -> Span:
    return Span(
        TRACE,
        f"{span_id:016x}",
        None if parent is None else f"{parent:016x}",
        name,
        attributes=attributes,
    )


ROOT = span(1, "run", None, **{"gen_ai.operation.name": "invoke_agent"})
KNOWN_TOOL = span(2, "execute_tool lookup_order", **{"gen_ai.tool.name": "lookup_order"})
MODEL_CALL = span(4, "chat gpt", **{"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt"})
# A producer the conventions do not know: a templated name, the tool in a private attribute.
UNKNOWN_TOOL = span(3, "Call {tool}", **{"acme.tool_name": "run_shell", "acme.input": "{}"})
CONTRACT = compile_contract(
    {
        "name": "c",
        "tools": {"forbidden": ["run_shell"]},
        "llm": {"maxCalls": 5},
        "rules": [{"kind": "eventually", "label": "named", "p": {"name": "run"}}],
    }
)


@pytest.mark.parametrize(
    ("name", "attributes", "kind", "tool", "reason"),
    [
        ("Function: {name}", {}, "UNKNOWN", None, "a message-template name"),
        ("processing {item}", {}, "UNKNOWN", None, None),  # an application's own template
        ("x", {"vendor.model_name": "gpt"}, "UNKNOWN", None, "attributes vendor.model_name"),
        ("x", {"ai.toolCall.name": "t"}, "UNKNOWN", None, "attributes ai.toolCall.name"),
        ("x", {"vendor.usage": "{}"}, "UNKNOWN", None, "attributes vendor.usage"),
        ("tool_call lookup", {}, "UNKNOWN", None, "a tool- or model-like name"),
        # Traceloop's tool spans, in an instrumentation whose kinds no convention describes.
        ("run_shell.tool", {}, "UNKNOWN", None, "a tool- or model-like name"),
        ("tools.task", {}, "UNKNOWN", None, None),
        ("execute_tool", {}, "TOOL", None, "a tool call with no tool name"),
        ("execute_tool x", {}, "TOOL", "x", None),
        ("chat gpt", {"gen_ai.request.model": "gpt"}, "LLM", None, None),
        ("RunnableSequence", {}, "CHAIN", None, None),
        ("unknown", {"gen_ai.agent.name": "a", "service.name": "svc"}, "UNKNOWN", None, None),
        ("handler", {"code.function": "main", "http.route": "/"}, "UNKNOWN", None, None),
    ],
)
def test_what_counts_as_evidence_of_an_unmapped_call(
    name: str, attributes: dict[str, object], kind: str, tool: str | None, reason: str | None
) -> None:
    assert unmapped_evidence(name, attributes, kind, tool) == reason


def test_a_verdict_names_the_unmapped_spans_and_still_judges_without_strict() -> None:
    verdict = check(Trace(TRACE, (ROOT, KNOWN_TOOL, MODEL_CALL, UNKNOWN_TOOL)), CONTRACT)
    assert verdict.status == "pass"
    (note,) = verdict.reading_notes
    assert note == (
        "1 span looks like a tool or model call that no convention maps, so rules about tools "
        'and models may not see it: 0000000000000003 ("Call {tool}") (a message-template name)'
    )
    assert "run_shell" not in note  # attribute values are never quoted


def test_strict_capture_stops_every_rule_about_calls_and_only_those() -> None:
    trace = Trace(TRACE, (ROOT, KNOWN_TOOL, MODEL_CALL, UNKNOWN_TOOL))
    verdict = check(trace, CONTRACT, strict_capture=True)
    assert verdict.status == "error"
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.forbidden[run_shell]", "error"),
        ("llm.maxCalls", "error"),
        ("named", "pass"),  # a rule about names alone does not depend on capture
    ]
    assert verdict.rules[0].error == (
        "1 span looks like a tool or model call that no convention maps, and --strict-capture is on"
    )


def test_strict_capture_changes_nothing_when_every_call_is_mapped() -> None:
    trace = Trace(TRACE, (ROOT, KNOWN_TOOL, MODEL_CALL))
    assert check(trace, CONTRACT, strict_capture=True) == check(trace, CONTRACT)
    assert check(trace, CONTRACT).reading_notes == ()


def test_a_verdict_counts_the_spans_each_convention_read() -> None:
    flat = Span(TRACE, "5" * 16, f"{1:016x}", "step")
    verdict = check(Trace(TRACE, (ROOT, KNOWN_TOOL, MODEL_CALL, flat)), CONTRACT)
    assert verdict.conventions == (("generic", 1), ("otel-genai", 3))


def test_tool_calls_without_any_model_call_stop_only_the_rules_about_models() -> None:
    trace = Trace(TRACE, (ROOT, KNOWN_TOOL))
    (note,) = check(trace, CONTRACT).reading_notes
    assert note == (
        "1 tool call is recorded but no model call: the producer may not record them, so rules "
        "about models see none"
    )
    verdict = check(trace, CONTRACT, strict_capture=True)
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.forbidden[run_shell]", "pass"),
        ("llm.maxCalls", "error"),
        ("named", "pass"),
    ]
    assert verdict.rules[1].error == (
        "tool calls are recorded but no model call, and --strict-capture is on"
    )


@pytest.mark.parametrize(
    "attributes",
    [
        {  # OpenTelemetry GenAI messages (OpenLLMetry from 0.53, openai-v2, util-genai)
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": [{"type": "tool_call", "name": "run_shell"}]}]
            )
        },
        {"gen_ai.completion.0.tool_calls.0.name": "run_shell"},  # OpenLLMetry before
        {"llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "run_shell"},
        {"ai.response.toolCalls": json.dumps([{"toolCallId": "c", "toolName": "run_shell"}])},
    ],
)
def test_the_tools_a_model_call_asked_for_are_read_from_its_recorded_output(
    attributes: dict[str, object],
) -> None:
    assert requested_tools(attributes) == ("run_shell",)


def test_text_parts_and_unreadable_outputs_ask_for_no_tool() -> None:
    text = [{"role": "assistant", "parts": [{"type": "text", "content": "run_shell"}]}]
    assert requested_tools({"gen_ai.output.messages": json.dumps(text)}) == ()
    assert requested_tools({"gen_ai.output.messages": "[not json"}) == ()
    assert requested_tools({"ai.response.toolCalls": json.dumps({"toolName": "x"})}) == ()


def model_call(span_id: int, start: int, output: list[dict[str, object]]) -> Span:
    return Span(
        TRACE,
        f"{span_id:016x}",
        f"{1:016x}",
        "openai.chat",
        start_ns=start,
        end_ns=start + 1,
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt",
            "gen_ai.tool.definitions": json.dumps([{"name": "run_shell"}]),
            "gen_ai.output.messages": json.dumps(output),
        },
    )


ASKS = [{"role": "assistant", "parts": [{"type": "tool_call", "name": "run_shell"}]}]
ANSWERS = [{"role": "assistant", "parts": [{"type": "text", "content": "done"}]}]


def test_model_calls_that_asked_for_tools_with_no_tool_call_recorded_never_pass_tool_rules() -> (
    None
):
    # A producer that instruments model calls only (OpenLLMetry's CrewAI instrumentation): the
    # tools were offered, the model asked for run_shell, its result came back to a later call,
    # and no tool span exists.
    trace = Trace(TRACE, (ROOT, model_call(5, 10, ASKS), model_call(6, 20, ANSWERS)))
    verdict = check(trace, CONTRACT)
    assert verdict.status == "error"
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.forbidden[run_shell]", "error"),
        ("llm.maxCalls", "pass"),
        ("named", "pass"),
    ]
    expected = (
        "model calls asked for run_shell but the trace records no tool call: the producer does "
        "not record tool calls, so they cannot be checked"
    )
    assert verdict.rules[0].error == expected
    assert verdict.reading_notes == (expected,)


def test_a_tool_call_asked_for_by_the_last_model_call_alone_may_be_its_structured_output() -> None:
    # Pydantic AI's `final_result`, a forced extraction: the run ends on the request.
    only = Trace(TRACE, (ROOT, model_call(5, 10, ANSWERS), model_call(6, 20, ASKS)))
    assert check(only, CONTRACT).status == "pass"
    assert check(Trace(TRACE, (ROOT, model_call(5, 10, ASKS))), CONTRACT).reading_notes == ()


def loop_of_calls(**output: object) -> Trace:
    """A model call span with a tool call below it, as automatic function calling records."""
    call = span(
        5,
        "generate_content gemini",
        **{
            "gen_ai.operation.name": "generate_content",
            "gen_ai.request.model": "gemini",
            "gen_ai.usage.input_tokens": 600,
            "gen_ai.usage.output_tokens": 30,
            **output,
        },
    )
    tool = span(6, "execute_tool lookup_order", 5, **{"gen_ai.tool.name": "lookup_order"})
    return Trace(TRACE, (ROOT, call, tool))


@pytest.mark.parametrize(
    "output",
    [
        {"gen_ai.response.finish_reasons": ("stop",)},  # content capture off
        {"gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": []}])},
    ],
)
def test_a_model_call_span_running_tools_it_did_not_ask_for_leaves_model_rules_unjudged(
    output: dict[str, object],
) -> None:
    verdict = check(loop_of_calls(**output), CONTRACT)
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.forbidden[run_shell]", "pass"),
        ("llm.maxCalls", "error"),
        ("named", "pass"),
    ]
    assert verdict.rules[1].error == verdict.reading_notes[0]
    assert verdict.reading_notes[0].startswith("1 model call span runs tool calls that its")


@pytest.mark.parametrize(
    "output",
    [
        {"gen_ai.response.finish_reasons": ("tool_calls",)},  # it asked: a stream running tools
        {"ai.response.finishReason": "tool-calls"},
        {
            "gen_ai.output.messages": json.dumps(
                [{"parts": [{"type": "tool_call", "name": "lookup_order"}]}]
            )
        },
        {},  # neither recorded: not judged
    ],
)
def test_a_model_call_span_running_the_tools_it_asked_for_is_one_call(
    output: dict[str, object],
) -> None:
    verdict = check(loop_of_calls(**output), CONTRACT)
    assert verdict.status == "pass" and verdict.reading_notes == ()


def test_a_total_that_disagrees_with_the_producers_own_is_noted_and_the_larger_used() -> None:
    llm = span(
        5,
        "chat",
        **{
            "gen_ai.request.model": "m",
            "gen_ai.usage.input_tokens": 100,
            "gen_ai.usage.output_tokens": 10,
            "llm.usage.total_tokens": 300,
        },
    )
    assert llm.tokens.total == 300 and llm.tokens.counted_total == 110
    budget = compile_contract({"name": "b", "llm": {"maxTotalTokens": 200}})
    verdict = check(Trace(TRACE, (ROOT, llm)), budget)
    assert verdict.status == "fail"
    assert verdict.reading_notes == (
        f'span {5:016x} ("chat") records a total of 300 tokens, but its counts add up to 110 as '
        "otel-genai reads them; 300 is used",
    )


def otlp_file(tmp_path: Path, *spans: dict[str, object]) -> str:
    document = {"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}
    path = tmp_path / "run.otlp.json"
    path.write_text(json.dumps(document))
    return str(path)


def raw(span_id: int, name: str, parent: int | None, **attributes: str) -> dict[str, object]:
    return {
        "traceId": TRACE,
        "spanId": f"{span_id:016x}",
        **({"parentSpanId": f"{parent:016x}"} if parent else {}),
        "name": name,
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()],
    }


def test_the_cli_prints_the_note_and_exits_2_under_strict_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = otlp_file(
        tmp_path,
        raw(1, "run", None, **{"gen_ai.operation.name": "invoke_agent"}),
        raw(2, "execute_tool lookup_order", 1, **{"gen_ai.tool.name": "lookup_order"}),
        raw(3, "Call {tool}", 1, **{"acme.tool_name": "run_shell"}),
        raw(4, "chat gpt", 1, **{"gen_ai.request.model": "gpt"}),
    )
    contract = tmp_path / "c.json"
    contract.write_text(json.dumps({"name": "c", "tools": {"forbidden": ["run_shell"]}}))
    assert main(["check", trace, "--contract", str(contract)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "  note: 1 span looks like a tool or model call that no convention maps" in out
    assert main(["check", trace, "--contract", str(contract), "--strict-capture"]) == (
        ExitCode.USAGE
    )
    out = capsys.readouterr().out
    assert "! tools.forbidden[run_shell]: could not be evaluated: 1 span looks like" in out
    report = tmp_path / "r.json"
    main(["check", trace, "--contract", str(contract), "--json", str(report)])
    result = json.loads(report.read_text())["results"][0]
    assert result["reading_notes"][0].startswith("1 span looks like a tool or model call")
    assert result["conventions"] == {"generic": 1, "otel-genai": 3}


def test_show_json_names_the_convention_of_every_span(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = otlp_file(
        tmp_path,
        raw(1, "run", None, **{"gen_ai.operation.name": "invoke_agent"}),
        raw(3, "Call {tool}", 1, **{"acme.tool_name": "run_shell"}),
    )
    assert main(["show", trace, "--json"]) == ExitCode.OK
    (facts,) = json.loads(capsys.readouterr().out)["traces"]
    assert [s["convention"] for s in facts["spans"]] == ["otel-genai", "generic"]
    assert facts["reading_notes"][0].startswith("1 span looks like a tool or model call")


def test_spans_with_no_name_and_no_time_are_a_misread_never_a_silent_pass() -> None:
    blank = [Span(TRACE, f"{i:016x}", attributes={"x": i}) for i in range(1, 4)]
    verdict = check(
        Trace(TRACE, tuple(blank)),
        compile_contract(
            {"name": "r", "run": {"allowedStatuses": ["completed", "running", "failed", "aborted"]}}
        ),
    )
    assert "no span has a name or a time: the file may not be the format it was read as" in (
        verdict.reading_notes
    )
    strict = check(Trace(TRACE, tuple(blank)), CONTRACT, strict_capture=True)
    assert {r.label: r.status for r in strict.rules}["llm.maxCalls"] == "error"


def test_the_readers_notes_ride_with_the_verdict() -> None:
    note = ReadNote("run.jsonl", f"trace {TRACE}", "span 02 is recorded more than once", TRACE)
    trace = Trace(TRACE, (ROOT, KNOWN_TOOL, MODEL_CALL), (note,))
    assert check(trace, CONTRACT).reading_notes == (
        f"run.jsonl: trace {TRACE}: span 02 is recorded more than once",
    )
