"""More real producers' recordings (fixtures/producers/) read true through their conventions.

DSPy under OpenInference, Google ADK as a collector delivered it, LiteLLM's own OpenTelemetry
callback, the contrib google-genai instrumentation's argument attributes and BeeAI's 2025
releases: each recording played a known refund-desk script (see each folder's README), so the
tool calls, their arguments and the model calls' counts are known and every reading must give
exactly those. The verdict tests are the false PASSes each convention closes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracecheck import Kind, Span, Trace, check, compile_contract, read_traces
from tracecheck.reading import read_subject
from tracecheck.rules.subject import Subject
from tracecheck.spans import Scope

PRODUCERS = Path(__file__).resolve().parent.parent / "fixtures" / "producers"
LOOKUP = {"order_id": "A-1001"}
REFUND = {"order_id": "A-1001", "amount": 42.5, "idempotency_key": "refund-A-1001-01"}
SHELL = {"command": "grep A-1001 /var/log/payments.log"}
RUNS = ("clean", "forbidden", "tool-error", "cache")
NO_SHELL = compile_contract(
    {
        "name": "no-shell",
        "tools": {"forbidden": ["run_shell"], "required": ["lookup_order"]},
        "llm": {"maxCalls": 6},
    }
)


def only_trace(path: Path) -> Trace:
    (trace,) = read_traces(path)
    return trace


def by_start(trace: Trace, kind: Kind) -> list[Span]:
    spans = [span for span in trace.spans if span.kind == kind]
    return sorted(spans, key=lambda span: (span.start_ns or 0, span.span_id or ""))


def tool_calls(trace: Trace) -> list[str]:
    return [f"{s.tool_name}{'!' if s.is_error else ''}" for s in by_start(trace, Kind.TOOL)]


def facts(trace: Trace) -> list[tuple[object, ...]]:
    return sorted(
        (s.span_id, s.kind, s.tool_name, s.model, s.tokens, s.arguments, s.convention.name)
        for s in trace.spans
    )


# --- DSPy under OpenInference ------------------------------------------------------------------

DSPY = PRODUCERS / "dspy-openinference"
DSPY_TOOLS = {
    "clean": ["lookup_order", "issue_refund", "finish"],
    "forbidden": ["lookup_order", "run_shell", "issue_refund", "finish"],
    "tool-error": ["lookup_order", "issue_refund!", "finish"],
    "cache": ["lookup_order", "finish"],
}
# Each model call's total as the fake server served it: the tool loop, then ReAct's extract.
DSPY_TOTALS = {
    "clean": [430, 530, 590, 675],
    "forbidden": [430, 513, 588, 648, 733],
    "tool-error": [430, 530, 608, 694],
    "cache": [1630, 1716, 1790],
}


@pytest.mark.parametrize("variant", ["dspy", "dspy-litellm"])
@pytest.mark.parametrize("run", RUNS)
def test_dspy_tools_are_named_by_their_callable_with_their_keyword_arguments(
    variant: str, run: str
) -> None:
    trace = only_trace(DSPY / variant / f"{run}.otlp.jsonl")
    assert tool_calls(trace) == DSPY_TOOLS[run]
    arguments = {s.tool_name: s.arguments.value for s in by_start(trace, Kind.TOOL)}
    assert arguments["lookup_order"] == LOOKUP
    assert arguments.get("issue_refund", REFUND) == REFUND
    assert arguments.get("run_shell", SHELL) == SHELL
    assert arguments["finish"] == {}
    assert facts(trace) == facts(only_trace(DSPY / variant / f"{run}.otlp.pb"))


@pytest.mark.parametrize("run", RUNS)
def test_dspy_alone_records_each_model_call_once_and_without_counts(run: str) -> None:
    trace = only_trace(DSPY / "dspy" / f"{run}.otlp.jsonl")
    assert {s.convention.name for s in trace.spans} == {"dspy"}
    assert read_subject(Subject(trace.spans)).notes == ()
    calls = by_start(trace, Kind.LLM)
    assert [s.name for s in calls] == ["LM.__call__"] * len(DSPY_TOTALS[run])
    assert {(s.model, s.tokens.total) for s in calls} == {("gpt-4.1-mini", None)}
    # Modules and adapters are steps, not calls.
    others = {s.name: s.kind for s in trace.spans if s.kind not in (Kind.LLM, Kind.TOOL)}
    assert set(others.values()) == {Kind.CHAIN}
    assert {"ReAct.forward", "ChainOfThought.forward", "ChatAdapter.__call__"} <= set(others)


@pytest.mark.parametrize("run", RUNS)
def test_dspy_with_litellm_records_each_call_twice_nested_and_the_inner_one_counts(
    run: str,
) -> None:
    trace = only_trace(DSPY / "dspy-litellm" / f"{run}.otlp.jsonl")
    ids = {s.span_id: s for s in trace.spans}
    inner = [s for s in by_start(trace, Kind.LLM) if s.name == "completion"]
    assert [s.tokens.total for s in inner] == DSPY_TOTALS[run]
    assert all(ids[s.parent_span_id].name == "LM.__call__" for s in inner)
    assert {s.convention.name for s in inner} == {"openinference"}
    if run == "cache":
        assert [s.tokens.cache_read for s in inner] == [0, 1536, 0]


def test_dspy_forbidden_tool_and_per_tool_counts_are_judged_on_the_tools_name() -> None:
    # Both passed before: the tools read as `run_shell.__call__`, `lookup_order.__call__`.
    contract = compile_contract(
        {
            "name": "dspy",
            "tools": {"forbidden": ["run_shell"], "maxCallsPerTool": {"lookup_order": 0}},
        }
    )
    verdict = check(only_trace(DSPY / "dspy" / "forbidden.otlp.jsonl"), contract)
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.forbidden[run_shell]", "fail"),
        ("tools.maxCallsPerTool[lookup_order]", "fail"),
    ]
    clean = check(only_trace(DSPY / "dspy" / "clean.otlp.jsonl"), NO_SHELL)
    assert clean.status == "pass", [(r.label, r.error) for r in clean.rules]


def _dspy_span(name: str, attributes: dict[str, object] | None = None) -> Span:
    return Span(
        "a" * 32,
        "1" * 16,
        None,
        name,
        attributes={"openinference.span.kind": "TOOL", **(attributes or {})},
        scope=Scope("openinference.instrumentation.dspy", "0.1.48"),
    )


_TOOL_NAMES = st.text(
    st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=30
)


@given(_TOOL_NAMES, st.sampled_from(["__call__", "acall"]))
def test_a_dspy_tool_span_is_named_by_the_part_before_its_call_suffix(
    tool: str, suffix: str
) -> None:
    span = _dspy_span(f"{tool}.{suffix}")
    assert span.convention.name == "dspy"
    assert span.tool_name == tool


@given(_TOOL_NAMES.filter(lambda name: not name.endswith((".__call__", ".acall"))))
def test_a_dspy_tool_span_of_another_shape_names_no_tool(name: str) -> None:
    # Never a guess: a TOOL span the documented shape does not name has no tool name.
    assert _dspy_span(name).tool_name is None


def test_a_dspy_tool_name_attribute_outranks_the_span_name() -> None:
    assert _dspy_span("x.__call__", {"tool.name": "lookup_order"}).tool_name == "lookup_order"


# --- LiteLLM's own OpenTelemetry callback ------------------------------------------------------

LITELLM = PRODUCERS / "litellm-otel"
TOOLS = {
    "clean": ["lookup_order", "issue_refund"],
    "forbidden": ["lookup_order", "run_shell", "issue_refund"],
    "tool-error": ["lookup_order", "issue_refund!"],
    "cache": ["lookup_order"],
}
TOTALS = {
    "clean": [430, 530, 590],
    "forbidden": [430, 513, 588, 648],
    "tool-error": [430, 530, 608],
    "cache": [1630, 1716],
}
OFFERED = ("lookup_order", "issue_refund", "run_shell")


@pytest.mark.parametrize("run", RUNS)
def test_litellm_request_spans_are_the_model_calls_and_each_counts_once(run: str) -> None:
    trace = only_trace(LITELLM / "request-span" / f"{run}.otlp.jsonl")
    assert {s.convention.name for s in trace.spans} == {"litellm", "otel-genai"}
    assert read_subject(Subject(trace.spans)).notes == ()
    calls = by_start(trace, Kind.LLM)
    assert {s.name for s in calls} == {"litellm_request"}
    assert [s.tokens.total for s in calls] == TOTALS[run]
    assert [s.tokens.recorded_total for s in calls] == TOTALS[run]
    assert {s.model for s in calls} == {"gpt-4.1-mini-2025-04-14"}
    # The cached count is only inside Python reprs: unknown, never a guess of 0.
    assert {s.tokens.cache_read for s in calls} == {None}
    # The raw request below each call is the same call, not another.
    raw = [s for s in trace.spans if s.name == "raw_gen_ai_request"]
    assert len(raw) == len(calls) and {s.kind for s in raw} == {Kind.UNKNOWN}
    assert [s.offered_tools.names for s in calls if s.offered_tools] == [OFFERED] * len(calls)
    assert tool_calls(trace) == TOOLS[run]
    assert facts(trace) == facts(only_trace(LITELLM / "request-span" / f"{run}.otlp.pb"))


def test_litellm_offered_tools_are_judged() -> None:
    def enforced(allowed: list[str]) -> list[tuple[str, str]]:
        contract = {"name": "e", "tools": {"allowed": allowed, "enforced": True}}
        trace = only_trace(LITELLM / "request-span" / "clean.otlp.jsonl")
        return [(r.label, r.status) for r in check(trace, compile_contract(contract)).rules]

    # `tools.enforced` was an error before: no offered tools were read.
    assert enforced(list(OFFERED)) == [("tools.allowed", "pass"), ("tools.enforced", "pass")]
    assert enforced(["lookup_order", "issue_refund"]) == [
        ("tools.allowed", "pass"),
        ("tools.enforced", "fail"),  # run_shell was offered to the model
    ]


def test_litellm_forbidden_tool_fails_and_the_clean_run_passes() -> None:
    forbidden = check(only_trace(LITELLM / "request-span" / "forbidden.otlp.jsonl"), NO_SHELL)
    assert [(r.label, r.status) for r in forbidden.rules] == [
        ("tools.required[lookup_order]", "pass"),
        ("tools.forbidden[run_shell]", "fail"),
        ("llm.maxCalls", "pass"),
    ]
    clean = check(only_trace(LITELLM / "request-span" / "clean.otlp.jsonl"), NO_SHELL)
    assert clean.status == "pass"


@pytest.mark.parametrize("run", RUNS)
def test_litellm_writing_over_the_current_span_leaves_model_rules_unjudged(run: str) -> None:
    # Without USE_OTEL_LITELLM_REQUEST_SPAN, LiteLLM writes each call onto the span that is
    # current (the application's agent span): one span stands for every call.
    trace = only_trace(LITELLM / "default" / f"{run}.otlp.jsonl")
    (call,) = by_start(trace, Kind.LLM)
    assert call.name == "invoke_agent refund-desk" and call.convention.name == "litellm"
    assert call.offered_tools is not None and call.offered_tools.names == OFFERED
    assert tool_calls(trace) == TOOLS[run]
    verdict = check(trace, NO_SHELL)
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.required[lookup_order]", "pass"),
        ("tools.forbidden[run_shell]", "fail" if run == "forbidden" else "pass"),
        ("llm.maxCalls", "error"),
    ]


@pytest.mark.parametrize("run", RUNS)
def test_dspy_with_litellm_counts_each_model_call_once_with_its_tokens(run: str) -> None:
    # `LM.__call__` (no counts) and its LiteLLM `completion` child are one call, merged.
    trace = only_trace(DSPY / "dspy-litellm" / f"{run}.otlp.jsonl")
    calls, total = len(DSPY_TOTALS[run]), sum(DSPY_TOTALS[run])

    def statuses(max_calls: int, max_tokens: int) -> list[str]:
        budget = {"name": "b", "llm": {"maxCalls": max_calls, "maxTotalTokens": max_tokens}}
        return [r.status for r in check(trace, compile_contract(budget)).rules]

    assert statuses(calls, total) == ["pass", "pass"]
    assert statuses(calls - 1, total - 1) == ["fail", "fail"]


# --- Google ADK 1.4 under OpenInference, and as a collector delivered it ------------------------

ADK = PRODUCERS / "google-adk"
ADK_RECORDINGS = ["openinference-adk-1.4", "openinference-adk-1.4-collector"]


@pytest.mark.parametrize("folder", ADK_RECORDINGS)
@pytest.mark.parametrize("run", ["clean", "forbidden", "cache"])
def test_adk_tool_spans_marked_with_adks_system_read_as_tool_calls(folder: str, run: str) -> None:
    # ADK 1.4 writes `gen_ai.system: gcp.vertex.agent` on its tool spans: they read as model
    # calls before, so the run had no tool call and one model call too many per tool.
    trace = only_trace(ADK / folder / f"{run}.otlp.jsonl")
    assert read_subject(Subject(trace.spans)).notes == ()
    assert tool_calls(trace) == TOOLS[run]
    arguments = {s.tool_name: s.arguments.value for s in by_start(trace, Kind.TOOL)}
    assert arguments["lookup_order"] == LOOKUP
    assert arguments.get("issue_refund", REFUND) == REFUND
    assert arguments.get("run_shell", SHELL) == SHELL
    calls = by_start(trace, Kind.LLM)
    assert [s.tokens.total for s in calls] == TOTALS[run]
    assert {s.name for s in calls} == {"call_llm"}
    if run == "cache":
        assert calls[-1].tokens.cache_read == 1536


def test_the_collector_delivered_adk_run_is_the_recording_without_openinference() -> None:
    for run in ("clean", "forbidden", "tool-error", "cache", "parallel"):
        real = only_trace(ADK / "openinference-adk-1.4" / f"{run}.otlp.jsonl")
        derived = only_trace(ADK / "openinference-adk-1.4-collector" / f"{run}.otlp.jsonl")
        assert [s.span_id for s in derived.spans] == [s.span_id for s in real.spans]
        assert not any("openinference.span.kind" in s.attributes for s in derived.spans)
        tools = [s for s in derived.spans if "gen_ai.tool.name" in s.attributes]
        assert tools and all(s.attributes["gen_ai.system"] == "gcp.vertex.agent" for s in tools)


@pytest.mark.parametrize("folder", ADK_RECORDINGS)
def test_adk_forbidden_tool_fails_and_required_tool_passes(folder: str) -> None:
    forbidden = check(only_trace(ADK / folder / "forbidden.otlp.jsonl"), NO_SHELL)
    assert [(r.label, r.status) for r in forbidden.rules] == [
        ("tools.required[lookup_order]", "pass"),  # it failed: no tool call was read
        ("tools.forbidden[run_shell]", "fail"),
        ("llm.maxCalls", "pass"),  # 7 model calls were counted, over the 6 allowed
    ]
    assert check(only_trace(ADK / folder / "clean.otlp.jsonl"), NO_SHELL).status == "pass"


@pytest.mark.parametrize("folder", ADK_RECORDINGS)
def test_an_adk_1_4_tool_that_raised_is_read_by_its_span_name_as_the_conventions_name_it(
    folder: str,
) -> None:
    # ADK 1.4 writes a tool span's attributes only when the tool returns: the raising
    # `issue_refund` is a bare `execute_tool issue_refund` span, which the GenAI conventions'
    # span name says is a call of issue_refund; its arguments are unknown.
    trace = only_trace(ADK / folder / "tool-error.otlp.jsonl")
    (bare,) = [s for s in trace.spans if s.name == "execute_tool issue_refund"]
    assert bare.is_error and not bare.attributes.get("gen_ai.tool.name")
    assert (bare.kind, bare.tool_name, bare.arguments.known) == (Kind.TOOL, "issue_refund", False)
    verdict = check(trace, NO_SHELL)
    assert [r.status for r in verdict.rules] == ["pass", "pass", "pass"]
    assert verdict.reading_notes == ()


# --- OpenTelemetry contrib's google-genai instrumentation: one attribute per parameter ----------

GENAI = PRODUCERS / "google-genai" / "instrumentation-0.7b2"
GENAI_SCOPE = Scope("opentelemetry.instrumentation.google_genai", "0.7b2")


@pytest.mark.parametrize("run", RUNS)
def test_google_genai_arguments_are_assembled_from_their_parameters(run: str) -> None:
    trace = only_trace(GENAI / "content" / f"{run}.otlp.jsonl")
    assert [s.tool_name for s in by_start(trace, Kind.TOOL)] == [
        name.rstrip("!") for name in TOOLS[run]
    ]
    arguments = {s.tool_name: s.arguments.value for s in by_start(trace, Kind.TOOL)}
    assert arguments["lookup_order"] == LOOKUP  # it read as unknown before
    assert arguments.get("issue_refund", REFUND) == REFUND
    assert arguments.get("run_shell", SHELL) == SHELL
    ours = {s.convention.name for s in trace.spans if s.scope and s.scope.name == GENAI_SCOPE.name}
    assert ours == {"google-genai"}
    assert facts(trace) == facts(only_trace(GENAI / "content" / f"{run}.otlp.pb"))


def test_google_genai_parameter_types_without_values_are_arguments_not_captured() -> None:
    trace = only_trace(GENAI / "no-content" / "clean.otlp.jsonl")
    calls = by_start(trace, Kind.TOOL)
    assert [s.tool_name for s in calls] == ["lookup_order", "issue_refund"]
    assert {(s.arguments.known, s.arguments.reason) for s in calls} == {
        (False, "arguments were not captured")
    }


def _genai_tool(attributes: dict[str, object]) -> Span:
    return Span(
        "a" * 32,
        "1" * 16,
        None,
        "execute_tool issue_refund",
        attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "issue_refund"}
        | attributes,
        scope=GENAI_SCOPE,
    )


def test_google_genai_1x_parameter_keys_inside_the_arguments_object_are_assembled() -> None:
    # 1.0b1–1.2b0 (read from the released wheels' tool_call_wrapper.py): the parameters'
    # keys are the members of `gen_ai.tool.call.arguments`, values as JSON values.
    recorded = {
        "code.function.parameters.order_id.type": "str",
        "code.function.parameters.order_id.value": "A-1001",
        "code.function.parameters.amount.type": "float",
        "code.function.parameters.amount.value": 42.5,
        "code.function.parameters.idempotency_key.type": "str",
        "code.function.parameters.idempotency_key.value": "refund-A-1001-01",
    }
    import json

    span = _genai_tool({"gen_ai.tool.call.arguments": json.dumps(recorded)})
    assert span.arguments.known and span.arguments.value == REFUND


_JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_JSON = st.recursive(
    _JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
_PARAMETER = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)


@given(st.dictionaries(_PARAMETER, _JSON, min_size=1, max_size=4))
def test_google_genai_parameters_read_back_as_recorded(arguments: dict[str, object]) -> None:
    # As 0.7b2's `_to_otel_attribute` writes them: strings, numbers and booleans as they are,
    # everything else as JSON text, with the Python type's name beside each.
    import json

    attributes: dict[str, object] = {}
    for name, value in arguments.items():
        prefix = f"code.function.parameters.{name}"
        attributes[f"{prefix}.type"] = type(value).__name__
        plain = isinstance(value, (str, int, float, bool))
        attributes[f"{prefix}.value"] = value if plain else json.dumps(value)
    span = _genai_tool(attributes)
    assert span.arguments.known and span.arguments.value == arguments


# --- BeeAI under OpenInference, 2025 releases ---------------------------------------------------

BEEAI = PRODUCERS / "beeai-openinference"


def beeai_run(release: str, run: str) -> Trace:
    """The agent's trace (0.1.9 also exports every call again as a trace of its own)."""
    traces = read_traces(
        BEEAI / f"instrumentation-{release}" / "tool-calling" / f"{run}.otlp.jsonl"
    )
    return max(traces, key=lambda trace: len(trace.spans))


@pytest.mark.parametrize("release", ["0.1.6", "0.1.9"])
@pytest.mark.parametrize("run", RUNS)
def test_beeai_2025_tool_and_model_calls_read_once_with_exact_names(release: str, run: str) -> None:
    trace = beeai_run(release, run)
    assert {s.convention.name for s in trace.spans} == {"beeai"}
    assert read_subject(Subject(trace.spans)).notes == ()
    expected = [*TOOLS[run], "final_answer"]
    if release == "0.1.6":  # a failed tool is only an `error` event span
        expected = [name.rstrip("!") for name in expected]
    assert tool_calls(trace) == expected  # 0.1.6 read `tool.custom.lookup_order.start-1`, …
    arguments = {s.tool_name: s.arguments.value for s in by_start(trace, Kind.TOOL)}
    assert arguments["lookup_order"] == LOOKUP
    assert arguments.get("issue_refund", REFUND) == REFUND
    assert arguments.get("run_shell", SHELL) == SHELL
    # 0.1.6 records start, success and finish of each model call: the success is the call.
    assert [s.tokens.total for s in by_start(trace, Kind.LLM)] == TOTALS[run]
    assert {s.model for s in by_start(trace, Kind.LLM)} == {"gpt-4.1-mini"}


def test_beeai_0_1_6_event_spans_are_steps_and_its_forbidden_tool_fails() -> None:
    trace = beeai_run("0.1.6", "forbidden")
    kinds = {
        s.name.rsplit("-", 1)[0] if s.name[-1:].isdigit() else s.name: s.kind for s in trace.spans
    }
    assert kinds["backend.openai.chat.start"] == Kind.UNKNOWN
    assert kinds["backend.openai.chat.finish"] == Kind.UNKNOWN
    assert kinds["tool.custom.run_shell.success"] == Kind.UNKNOWN
    assert kinds["agent.tool_calling.start"] == Kind.CHAIN
    assert kinds["beeai-framework-main"] == Kind.AGENT
    verdict = check(trace, NO_SHELL)
    assert [(r.label, r.status) for r in verdict.rules] == [
        ("tools.required[lookup_order]", "pass"),
        ("tools.forbidden[run_shell]", "fail"),
        ("llm.maxCalls", "pass"),  # it failed: twelve model calls were counted
    ]
    assert check(beeai_run("0.1.6", "clean"), NO_SHELL).status == "pass"


def test_beeai_0_1_9_offers_its_tools_on_each_model_call() -> None:
    trace = beeai_run("0.1.9", "clean")
    offered = [s.offered_tools.names for s in by_start(trace, Kind.LLM) if s.offered_tools]
    assert offered == [(*OFFERED, "final_answer")] * 3


def test_a_beeai_0_1_6_react_update_naming_a_tool_is_a_step_not_a_second_call() -> None:
    # From 0.1.6's source (`get_serialized_object_safe.py`): ReAct's `update` event span is
    # an AGENT span carrying the tool it chose; its `tool.<ns>.<tool>.start` span is the call.
    scope = Scope("openinference.instrumentation.beeai", "0.1.31")
    update = Span(
        "a" * 32,
        "1" * 16,
        None,
        "agent.react.update-3",
        attributes={"openinference.span.kind": "AGENT", "tool.name": "Wikipedia"},
        scope=scope,
    )
    start = Span(
        "a" * 32,
        "2" * 16,
        None,
        "tool.search.wikipedia.start-12",
        attributes={"openinference.span.kind": "TOOL", "tool.parameters": '{"query": "x"}'},
        scope=scope,
    )
    assert update.kind == Kind.CHAIN
    assert (start.kind, start.tool_name, start.arguments.value) == (
        Kind.TOOL,
        "wikipedia",
        {"query": "x"},
    )
