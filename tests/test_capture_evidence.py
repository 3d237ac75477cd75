"""No false PASS on doubtful capture: spans no convention maps and tool calls that do not say
which tool ran stop the rules they concern by default, with a note; lenient capture only notes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracecheck import compile_contract
from tracecheck.check import check
from tracecheck.cli import ExitCode, main
from tracecheck.conventions.evidence import requested_tools, tool_name_doubt, unmapped_evidence
from tracecheck.reading import read_subject
from tracecheck.rules.subject import Subject
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
CONTRACT_DOC = {
    "name": "c",
    "tools": {"forbidden": ["run_shell"]},
    "llm": {"maxCalls": 5},
    "rules": [{"kind": "eventually", "label": "named", "p": {"name": "run"}}],
}
CONTRACT = compile_contract(CONTRACT_DOC)


@pytest.mark.parametrize(
    ("name", "attributes", "reason"),
    [
        ("Function: {name}", {}, "a message-template name"),
        ("processing {item}", {}, None),  # an application's own template
        ("x", {"vendor.model_name": "gpt"}, "attributes vendor.model_name"),
        ("x", {"ai.toolCall.name": "t"}, "attributes ai.toolCall.name"),
        ("x", {"vendor.usage": "{}"}, "attributes vendor.usage"),
        ("tool_call lookup", {}, "a tool- or model-like name"),
        # Traceloop's tool spans, in an instrumentation whose kinds no convention describes.
        ("run_shell.tool", {}, "a tool- or model-like name"),
        ("tools.task", {}, None),
        ("unknown", {"gen_ai.agent.name": "a", "service.name": "svc"}, None),
        ("handler", {"code.function": "main", "http.route": "/"}, None),
    ],
)
def test_what_counts_as_evidence_of_an_unmapped_call(
    name: str, attributes: dict[str, object], reason: str | None
) -> None:
    assert unmapped_evidence(name, attributes) == reason


@pytest.mark.parametrize(
    ("name", "attributes", "tool", "reason"),
    [
        ("execute_tool", {}, None, "no tool name"),
        ("Function: {name}", {"name": "random_number"}, None, "no tool name"),
        ("execute_tool x", {}, "x", None),
        ("lookup_order", {}, "lookup_order", None),  # a span named for its tool (OpenInference)
        ("mcp__github__get_issue", {}, "mcp__github__get_issue", None),
        ("files/read.v2", {}, "files/read.v2", None),  # MCP and Gemini names have these
        # The span name taken for a tool name, when no tool has such a name: a guess.
        (
            "run_shell.__call__",
            {},
            "run_shell.__call__",
            "its span name is taken for its tool name, and is no tool name",
        ),
        (
            "Call the shell",
            {},
            "Call the shell",
            "its span name is taken for its tool name, and is no tool name",
        ),
        (
            "execute_tool run it",
            {},
            "run it",
            "its span name is taken for its tool name, and is no tool name",
        ),
        # A name an attribute records is the producer's word, whatever its shape.
        ("Search the web", {"tool.name": "Search the web"}, "Search the web", None),
    ],
)
def test_which_tool_calls_do_not_say_which_tool_ran(
    name: str, attributes: dict[str, object], tool: str | None, reason: str | None
) -> None:
    assert tool_name_doubt(name, attributes, tool) == reason


def test_a_verdict_names_the_unmapped_spans_and_stops_the_rules_about_calls() -> None:
    verdict = check(Trace(TRACE, (ROOT, KNOWN_TOOL, MODEL_CALL, UNKNOWN_TOOL)), CONTRACT)
    assert verdict.status == "error"
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.forbidden[run_shell]", "error"),
        ("llm.maxCalls", "error"),
        ("named", "pass"),  # a rule about names alone does not depend on capture
    ]
    (note,) = verdict.reading_notes
    assert note == (
        "1 span looks like a tool or model call that no convention maps, so rules about tools "
        'and models may not see it: 0000000000000003 ("Call {tool}") (a message-template name)'
    )
    assert verdict.rules[0].error == verdict.rules[1].error == note
    assert "run_shell" not in note  # attribute values are never quoted


def test_lenient_capture_judges_the_rules_and_keeps_the_note() -> None:
    trace = Trace(TRACE, (ROOT, KNOWN_TOOL, MODEL_CALL, UNKNOWN_TOOL))
    verdict = check(trace, CONTRACT, capture="lenient")
    assert verdict.status == "pass"
    assert verdict.reading_notes == check(trace, CONTRACT).reading_notes
    lenient = compile_contract({**CONTRACT_DOC, "capture": "lenient"})
    assert check(trace, lenient).status == "pass"
    # Held to the default whatever the contract says.
    assert check(trace, lenient, capture="strict").status == "error"


def test_a_rule_that_already_fails_stays_failed_whatever_is_in_doubt() -> None:
    shell = span(5, "execute_tool run_shell", **{"gen_ai.tool.name": "run_shell"})
    verdict = check(Trace(TRACE, (ROOT, KNOWN_TOOL, MODEL_CALL, UNKNOWN_TOOL, shell)), CONTRACT)
    first = verdict.rules[0]
    assert (first.label, first.status) == ("tools.forbidden[run_shell]", "fail")
    assert verdict.status == "error"  # the model rule still could not be evaluated


def test_a_tool_call_that_does_not_say_which_tool_ran_stops_only_the_rules_about_tools() -> None:
    # Logfire before 5.x: the span is named by its template, the tool only in `name`.
    unnamed = span(3, "Function: {name}", **{"gen_ai.operation.name": "execute_tool"})
    verdict = check(Trace(TRACE, (ROOT, KNOWN_TOOL, MODEL_CALL, unnamed)), CONTRACT)
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.forbidden[run_shell]", "error"),
        ("llm.maxCalls", "pass"),
        ("named", "pass"),
    ]
    assert verdict.rules[0].error == (
        "1 tool call does not record which tool ran, so rules about tools cannot tell it apart: "
        '0000000000000003 ("Function: {name}") (no tool name)'
    )


def test_doubt_changes_nothing_when_every_call_is_mapped() -> None:
    trace = Trace(TRACE, (ROOT, KNOWN_TOOL, MODEL_CALL))
    assert check(trace, CONTRACT, capture="lenient") == check(trace, CONTRACT)
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
    verdict = check(trace, CONTRACT)
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.forbidden[run_shell]", "pass"),
        ("llm.maxCalls", "error"),
        ("named", "pass"),
    ]
    assert verdict.rules[1].error == note
    assert check(trace, CONTRACT, capture="lenient").status == "pass"


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


def test_the_cli_exits_2_on_doubt_and_0_with_lenient_capture(
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
    assert main(["check", trace, "--contract", str(contract)]) == ExitCode.USAGE
    out = capsys.readouterr().out
    assert "! tools.forbidden[run_shell]: could not be evaluated: 1 span looks like" in out
    lenient = ["check", trace, "--contract", str(contract), "--lenient-capture"]
    assert main(lenient) == ExitCode.OK
    out = capsys.readouterr().out
    assert "  note: 1 span looks like a tool or model call that no convention maps" in out
    relaxed = tmp_path / "lenient.json"
    relaxed.write_text(json.dumps({**json.loads(contract.read_text()), "capture": "lenient"}))
    assert main(["check", trace, "--contract", str(relaxed)]) == ExitCode.OK
    assert main(["check", trace, "--contract", str(relaxed), "--strict-capture"]) == (
        ExitCode.USAGE
    )
    capsys.readouterr()
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
    verdict = check(Trace(TRACE, tuple(blank)), CONTRACT)
    assert {r.label: r.status for r in verdict.rules}["llm.maxCalls"] == "error"


def test_the_readers_notes_ride_with_the_verdict() -> None:
    note = ReadNote("run.jsonl", f"trace {TRACE}", "span 02 is recorded more than once", TRACE)
    trace = Trace(TRACE, (ROOT, KNOWN_TOOL, MODEL_CALL), (note,))
    assert check(trace, CONTRACT).reading_notes == (
        f"run.jsonl: trace {TRACE}: span 02 is recorded more than once",
    )


def test_logfires_function_template_without_its_scope_names_its_tool_by_the_rendered_message() -> (
    None
):
    # The Logfire span: named by its template, the tool in `name` and in `logfire.msg`,
    # no `gen_ai.tool.name`, and no scope (as exported without it): the forbidden call fails.
    bare = {"logfire.msg_template": "Function: {name}", "name": "random_number"}
    rendered = {**bare, "logfire.msg": "Function: random_number"}
    call = Span(TRACE, f"{3:016x}", f"{1:016x}", "Function: {name}", attributes=rendered)
    contract = compile_contract({"name": "c", "tools": {"forbidden": ["random_number"]}})
    verdict = check(Trace(TRACE, (ROOT, MODEL_CALL, call)), contract)
    assert (call.kind, call.tool_name) == ("TOOL", "random_number")
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.forbidden[random_number]", "fail")
    ]
    # With no rendered message to read it from, the call's tool is in doubt: never a pass.
    unrendered = Span(TRACE, f"{3:016x}", f"{1:016x}", "Function: {name}", attributes=bare)
    (rule,) = check(Trace(TRACE, (ROOT, MODEL_CALL, unrendered)), contract).rules
    assert rule.status == "error"


def test_a_note_names_a_span_without_a_credential_pasted_into_its_name() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" + "K1l2M3n4O5p6Q7r8S9t0"  # built at run time
    leaky = span(3, f"curl -H 'Authorization: token {token}'", **{"acme.tool_name": "x"})
    notes = check(Trace(TRACE, (ROOT, KNOWN_TOOL, MODEL_CALL, leaky)), CONTRACT).reading_notes
    assert notes and all(token not in note for note in notes)
    assert (
        read_subject(Subject((ROOT, KNOWN_TOOL, MODEL_CALL, leaky))).notes[0].count("[REDACTED")
        == 1
    )
