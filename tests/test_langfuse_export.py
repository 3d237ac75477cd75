"""Langfuse's exports (its public API's traces and observations, its UI's downloads) read as spans."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracecheck import check, compile_contract, read_traces
from tracecheck.cli import main
from tracecheck.errors import TraceReadError
from tracecheck.formats import FORMATS, OUTPUT_FORMATS
from tracecheck.readers import detect_format
from tracecheck.readers.langfuse_export import token_counts
from tracecheck.spans import Kind, Span

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
EXPORTS = FIXTURES / "langfuse-export"
RECORDED = FIXTURES / "producers" / "langfuse-v3"
RUNS = ("clean", "forbidden", "tool-error", "cache")
CONTRACT = {
    "name": "refund-desk",
    "tools": {
        "required": ["lookup_order", "issue_refund"],
        "forbidden": ["run_shell"],
        "arguments": [
            {"tool": "issue_refund", "pointer": "/order_id", "type": "string"},
            {"tool": "issue_refund", "pointer": "/amount", "type": "number"},
        ],
    },
}
TRACE = "7546ca8a46684767598a5fd52c572722"


def outcome(path: Path, contract: dict[str, Any] = CONTRACT) -> dict[str, str]:
    (trace,) = read_traces(path)
    return {rule.label: rule.status for rule in check(trace, compile_contract(contract)).rules}


def calls(span: Span) -> tuple[Any, ...]:
    """What contracts read of a span: the export holds milliseconds and Langfuse's own token
    sums (cache counted in input), so times and input counts are compared apart."""
    return (
        span.span_id,
        span.parent_span_id,
        span.name,
        span.kind,
        span.tool_name,
        span.model,
        span.tokens.output,
        span.tokens.cache_read,
        span.tokens.cache_write,
        span.arguments.known,
        span.arguments.value,
        span.status,
    )


# --- the refund-desk runs, exported as Langfuse's API and UI write them -------------------------


@pytest.mark.parametrize(
    "name",
    [
        *(f"{run}.trace.json" for run in RUNS),
        "cache.trace-sdk.json",
        "forbidden.observations.json",
        "clean.observations-v2.json",
        "tool-error.ui-trace.json",
    ],
)
def test_every_export_is_recognised_and_reads_without_notes(name: str) -> None:
    path = EXPORTS / name
    assert detect_format(path) == "langfuse-export"
    (trace,) = read_traces(path)
    assert not trace.notes
    assert {span.convention.name for span in trace.spans} == {"langfuse-export"}
    assert trace.run_record is not None and trace.run_record.start_ns is not None


@pytest.mark.parametrize("run", RUNS)
def test_an_api_trace_reads_the_true_tools_arguments_models_and_tokens(run: str) -> None:
    (exported,) = read_traces(EXPORTS / f"{run}.trace.json")
    (recorded,) = read_traces(RECORDED / f"{run}.otlp.jsonl")
    assert exported.trace_id == recorded.trace_id
    assert [calls(s) for s in exported.spans] == [calls(s) for s in recorded.spans]
    for span, original in zip(exported.spans, recorded.spans, strict=True):
        assert original.start_ns is not None and span.start_ns is not None
        assert span.start_ns == original.start_ns // 1_000_000 * 1_000_000
        # Langfuse counts cache beside a reduced input; its sums put it back in.
        tokens, was = span.tokens, original.tokens
        if was.input is not None:
            assert tokens.input == was.input + was.cache_outside_input
            # Langfuse totals what the embedding's usage gave (input alone) itself.
            assert tokens.total == (was.total if was.output is not None else was.input)


def test_the_tools_and_their_arguments() -> None:
    (trace,) = read_traces(EXPORTS / "forbidden.trace.json")
    tools = [(s.tool_name, s.arguments.value) for s in trace.spans if s.kind == Kind.TOOL]
    assert tools == [
        ("lookup_order", {"order_id": "A-1001"}),
        ("run_shell", {"command": "grep A-1001 /var/log/payments.log"}),
        (
            "issue_refund",
            {"order_id": "A-1001", "amount": 42.5, "idempotency_key": "refund-A-1001-01"},
        ),
    ]


def test_models_and_tokens_of_the_cache_run() -> None:
    (trace,) = read_traces(EXPORTS / "cache.trace.json")
    llm = [s for s in trace.spans if s.kind == Kind.LLM]
    assert [(s.model, s.tokens.input, s.tokens.output, s.tokens.cache_read) for s in llm] == [
        ("claude-haiku-4-5", 1369, 12, 1200),
        ("gpt-4.1-mini-2025-04-14", 1612, 18, 0),
        ("gpt-4.1-mini-2025-04-14", 1689, 27, 1536),
    ]
    assert [s.tokens.total for s in llm] == [1381, 1630, 1716]
    offered = [s.offered_tools for s in llm[1:]]
    assert all(o.names == ("lookup_order", "issue_refund", "run_shell") for o in offered)


def test_the_forbidden_run_fails_and_the_clean_run_passes() -> None:
    forbidden = outcome(EXPORTS / "forbidden.trace.json")
    assert forbidden["tools.forbidden[run_shell]"] == "fail"
    assert outcome(EXPORTS / "forbidden.observations.json") == forbidden
    clean = outcome(EXPORTS / "clean.trace.json")
    assert set(clean.values()) == {"pass"}
    assert outcome(EXPORTS / "clean.observations-v2.json") == clean
    assert outcome(RECORDED / "clean.otlp.jsonl") == clean


def test_the_failed_tool_call_is_an_error() -> None:
    (trace,) = read_traces(EXPORTS / "tool-error.trace.json")
    (failed,) = [s for s in trace.spans if s.status == "error"]
    assert (failed.tool_name, failed.attributes["langfuse.observation.level"]) == (
        "issue_refund",
        "ERROR",
    )
    assert failed.status_message


def test_token_budgets_see_langfuse_totals() -> None:
    budget = {"name": "budget", "llm": {"maxTotalTokens": 1381 + 1630 + 1716}}  # LLM calls
    assert set(outcome(EXPORTS / "cache.trace.json", budget).values()) == {"pass"}
    budget["llm"]["maxTotalTokens"] -= 1  # type: ignore[index]
    assert set(outcome(EXPORTS / "cache.trace.json", budget).values()) == {"fail"}


def test_the_ui_download_has_tool_names_but_no_arguments() -> None:
    (trace,) = read_traces(EXPORTS / "tool-error.ui-trace.json")
    tools = [s for s in trace.spans if s.kind == Kind.TOOL]
    assert [(s.tool_name, s.arguments.known) for s in tools] == [
        ("lookup_order", False),
        ("issue_refund", False),
    ]
    verdict = outcome(EXPORTS / "tool-error.ui-trace.json")
    assert verdict["tools.required[issue_refund]"] == "pass"
    assert verdict["tools.forbidden[run_shell]"] == "pass"
    # Missing evidence is never a pass.
    assert {status for label, status in verdict.items() if "argument" in label} == {"fail"}


def test_the_trace_is_the_run_record_on_its_root_observation() -> None:
    (trace,) = read_traces(EXPORTS / "clean.trace.json")
    (root,) = trace.roots
    assert (root.name, root.kind) == ("refund-desk", Kind.AGENT)
    assert root.attributes["langfuse.trace.id"] == TRACE
    assert root.attributes["langfuse.trace.name"] == "refund-desk"
    record = trace.run_record
    assert record is not None
    assert (record.start_ns, record.end_ns) == (root.start_ns, root.end_ns)


# --- Langfuse's usage details -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("details", "counts"),
    [
        (  # OpenAI, as Langfuse normalises it: cached and audio counts beside a reduced input
            {"input": 153, "input_cached_tokens": 1536, "output": 27, "total": 1716},
            (1689, 27, 1536, None),
        ),
        (  # Anthropic's keys, as given
            {
                "input": 100,
                "output": 12,
                "cache_read_input_tokens": 1200,
                "cache_creation_input_tokens": 69,
            },
            (1369, 12, 1200, 69),
        ),
        (  # Bedrock and Anthropic through the AI SDK, with the write split by lifetime
            {
                "input": 7,
                "input_cache_read": 4482,
                "input_cache_creation": 10,
                "input_cache_creation_5m": 20,
                "input_cache_creation_1h": 30,
                "output": 445,
                "output_reasoning_tokens": 40,
            },
            (4549, 485, 4482, 60),
        ),
        ({"total": 12}, (None, None, None, None)),
        ({"prompt_token_count": 5}, (None, None, None, None)),
    ],
)
def test_usage_details_are_summed_as_langfuse_sums_them(
    details: dict[str, int], counts: tuple[int | None, ...]
) -> None:
    found = token_counts(details)
    names = (
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_creation.input_tokens",
    )
    assert tuple(found.get(name) for name in names) == counts


# --- shapes made by hand from Langfuse's API reference --------------------------------------------


def observation(**fields: Any) -> dict[str, Any]:
    row = {
        "id": "obs-1",
        "traceId": "trace-1",
        "type": "SPAN",
        "name": "step",
        "startTime": "2025-05-01T12:00:00.000Z",
        "endTime": "2025-05-01T12:00:01.000Z",
        "parentObservationId": None,
        "level": "DEFAULT",
        "statusMessage": None,
        "input": None,
        "usageDetails": {},
    }
    row.update(fields)
    return row


def legacy_trace(*observations: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "trace-1",
        "timestamp": "2025-05-01T12:00:00.000Z",
        "name": "support-run",
        "userId": "user-7",
        "observations": list(observations),
        "htmlPath": "/project/p/traces/trace-1",
        "scores": [],
    }


def test_free_text_ids_become_stable_span_ids_and_the_trace_is_the_root() -> None:
    """SDKs before OpenTelemetry let callers name traces and observations freely; such a trace
    has its observations at the top, so the trace itself is the run's root."""
    document = legacy_trace(
        observation(type="GENERATION", name="chat", model="gpt-4o", id="gen-1"),
        observation(type="SPAN", name="lookup_order", id="tool-1", input={"order_id": "A-1"}),
    )
    data = json.dumps(document).encode()
    (trace,) = read_traces(data)
    assert trace.spans == read_traces(data)[0].spans
    (root,) = trace.roots
    assert (root.name, root.start_ns, root.end_ns) == ("support-run", 1746100800000000000, None)
    assert root.attributes["user.id"] == "user-7"
    assert [s.parent_span_id for s in trace.spans[1:]] == [root.span_id, root.span_id]
    assert all(len(s.span_id or "") == 16 for s in trace.spans)
    assert len(trace.trace_id or "") == 32
    assert [s.attributes["langfuse.observation.id"] for s in trace.spans[1:]] == ["gen-1", "tool-1"]


def test_a_span_of_a_trace_without_the_newer_types_may_be_a_tool_call() -> None:
    document = legacy_trace(
        observation(type="GENERATION", name="chat", model="gpt-4o", id="gen-1"),
        observation(type="SPAN", name="run_shell", id="tool-1", input={"command": "ls"}),
    )
    (trace,) = read_traces(json.dumps(document).encode())
    shell = trace.spans[-1]
    assert (shell.convention.name, shell.kind) == ("langfuse-export-untyped", Kind.UNKNOWN)
    contract = compile_contract({"name": "no-shell", "tools": {"forbidden": ["run_shell"]}})
    verdict = check(trace, contract)
    assert {r.label: r.status for r in verdict.rules}["tools.forbidden[run_shell]"] == "error"
    assert '("run_shell")' in verdict.reading_notes[0]


def test_a_trace_s_types_are_judged_over_every_page_of_the_file() -> None:
    """A SPAN on one page and a TOOL of the same trace on the next: the trace has the newer
    types, so both pages are read under one convention (the first page was read untyped)."""
    pages = [
        {
            "data": [observation(id="step-1", name="format_answer")],
            "meta": {"page": 1, "totalPages": 2},
        },
        {
            "data": [observation(id="tool-1", type="TOOL", name="lookup_order")],
            "meta": {"page": 2, "totalPages": 2},
        },
    ]
    text = "\n".join(json.dumps(page) for page in pages).encode()
    (trace,) = read_traces(text, format="langfuse-export")
    assert [(s.convention.name, s.kind) for s in trace.spans] == [
        ("langfuse-export", Kind.CHAIN),
        ("langfuse-export", Kind.TOOL),
    ]


def test_an_observation_of_another_trace_inside_a_trace_is_refused() -> None:
    document = legacy_trace(observation(id="a"), observation(id="b", traceId="trace-2"))
    assert refusal(document) == (
        "<bytes>: observations[1].traceId: names another trace than the one whose observations "
        "it is listed in: its place in that trace is unknown"
    )


def test_a_span_beside_a_tool_observation_is_a_step() -> None:
    document = legacy_trace(
        observation(type="TOOL", name="lookup_order", id="tool-1", input={"order_id": "A-1"}),
        observation(type="SPAN", name="format_answer", id="step-1"),
    )
    (trace,) = read_traces(json.dumps(document).encode())
    assert [s.kind for s in trace.spans[1:]] == [Kind.TOOL, Kind.CHAIN]
    assert trace.spans[1].arguments.value == {"order_id": "A-1"}


@pytest.mark.parametrize(
    "kept",
    [
        {"gen_ai.tool.name": "run_shell", "gen_ai.operation.name": "execute_tool"},
        {"tool.name": "run_shell"},
        {"gen_ai.operation.name": "execute_tool"},
    ],
)
@pytest.mark.parametrize("typed", [True, False])
def test_a_span_another_instrumentation_recorded_as_a_tool_call_is_one(
    kept: dict[str, str], typed: bool
) -> None:
    """Langfuse keeps a foreign span's attributes in `metadata.attributes` and may type it SPAN:
    the recorded tool name or operation decides before the type (it read as a step, and a
    forbidden tool passed)."""
    document = legacy_trace(
        observation(type="TOOL" if typed else "GENERATION", name="lookup_order", id="tool-1"),
        observation(
            type="SPAN",
            name="execute_tool run_shell",
            id="tool-2",
            input={"command": "ls"},
            metadata={"attributes": kept},
        ),
    )
    (trace,) = read_traces(json.dumps(document).encode())
    shell = trace.spans[-1]
    assert shell.convention.name == ("langfuse-export" if typed else "langfuse-export-untyped")
    assert (shell.kind, shell.tool_name) == (Kind.TOOL, "run_shell")
    contract = compile_contract({"name": "no-shell", "tools": {"forbidden": ["run_shell"]}})
    assert {r.label: r.status for r in check(trace, contract).rules} == {
        "tools.forbidden[run_shell]": "fail"
    }


def test_an_error_level_is_the_error_status() -> None:
    row = observation(type="TOOL", level="ERROR", statusMessage="refund service down")
    (trace,) = read_traces(json.dumps([row]).encode())
    (span,) = trace.spans
    assert (span.status, span.status_message) == ("error", "refund service down")
    warning = observation(type="TOOL", level="WARNING", statusMessage="slow")
    (trace,) = read_traces(json.dumps([warning]).encode())
    assert trace.spans[0].status is None


def test_the_older_usage_object_stands_in_for_usage_details() -> None:
    row = observation(type="GENERATION", model="gpt-4o", usage={"input": 10, "output": 5})
    del row["usageDetails"]
    (trace,) = read_traces(json.dumps([row]).encode())
    assert (trace.spans[0].tokens.input, trace.spans[0].tokens.output) == (10, 5)


def test_observations_one_per_line_and_pages_one_after_another() -> None:
    rows = [observation(id="a"), observation(id="b", parentObservationId="a")]
    lines = "\n".join(json.dumps(row) for row in rows).encode()
    assert detect_format(lines) == "langfuse-export"
    (trace,) = read_traces(lines)
    assert trace.spans[1].parent_span_id == trace.spans[0].span_id
    pages = [
        {"data": [rows[0]], "meta": {"page": 1, "limit": 1, "totalItems": 2, "totalPages": 2}},
        {"data": [rows[1]], "meta": {"page": 2, "limit": 1, "totalItems": 2, "totalPages": 2}},
    ]
    text = "\n".join(json.dumps(page, indent=2) for page in pages).encode()
    (paged,) = read_traces(text, format="langfuse-export")
    assert [s.span_id for s in paged.spans] == [s.span_id for s in trace.spans]


# --- refusals name the format, the place and what is wrong ---------------------------------------


def refusal(document: Any) -> str:
    with pytest.raises(TraceReadError) as info:
        read_traces(json.dumps(document, indent=2).encode(), format="langfuse-export")
    return str(info.value)


def test_a_page_without_the_pages_after_it_is_refused() -> None:
    page = {"data": [observation()], "meta": {"page": 1, "totalPages": 3, "totalItems": 3}}
    assert refusal(page) == (
        "<bytes>: holds page 1 of 3 of a Langfuse observations list (meta.totalPages): the "
        "observations of the other pages are missing; save every page in the file, one after "
        "another"
    )
    cursor = {"data": [observation()], "meta": {"cursor": "eyJsYXN0Ijo1fQ=="}}
    assert "meta.cursor says more follow" in refusal(cursor)


def test_a_page_count_is_counted_not_enumerated() -> None:
    """`meta.totalPages` is the file's word: a huge count is refused without building a set of
    every page it names (1e300 ran out of memory; 10**6 took a hundred megabytes)."""
    page = {"data": [observation()], "meta": {"page": 1, "totalPages": 1e300}}
    assert refusal(page).startswith(f"<bytes>: holds page 1 of {int(1e300)} of a Langfuse")
    page["meta"] = {"page": 1, "totalPages": 10**6}
    tracemalloc.start()
    try:
        assert "holds page 1 of 1000000 " in refusal(page)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000
    pages = [
        {"data": [observation(id=f"o{n}")], "meta": {"page": n, "totalPages": 2}} for n in (1, 5)
    ]
    text = "\n".join(json.dumps(p) for p in pages).encode()
    with pytest.raises(TraceReadError, match="holds page 1, 5 of 2 "):
        read_traces(text, format="langfuse-export")


def test_a_trace_list_is_refused_with_what_to_fetch_instead() -> None:
    row = {"id": "t", "timestamp": "2025-05-01T12:00:00Z", "htmlPath": "/p", "observations": []}
    document = {"data": [row], "meta": {"page": 1, "totalPages": 1}}
    assert refusal(document) == (
        "<bytes>: is a page of Langfuse's trace list, whose traces name their observations by "
        "id only: save each trace with GET /api/public/traces/{id}"
    )


def test_a_trace_fetched_without_observations_is_refused() -> None:
    assert refusal(legacy_trace()) == (
        "<bytes>: holds no Langfuse observations (a trace fetched without observations in its "
        "fields?): there is nothing to check"
    )


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"type": "LLM"},
            "observations[0].type: is a string of 3 character(s), not a Langfuse observation "
            "type (AGENT, CHAIN, EMBEDDING, EVALUATOR, EVENT, GENERATION, GUARDRAIL, RETRIEVER, "
            "SPAN, TOOL)",
        ),
        ({"id": 7}, "observations[0].id: is an integer, not an observation id"),
        ({"startTime": "yesterday"}, "observations[0].startTime: a string of 9 character(s)"),
        ({"startTime": None}, "observations[0].startTime: is missing: every observation"),
        ({"level": "FATAL"}, "observations[0].level: is a string of 5 character(s), not a"),
        (
            {"usageDetails": {"input": "many"}},
            "observations[0].usageDetails.input: is a string of 4 character(s), not a count",
        ),
        ({"usageDetails": [1]}, "observations[0].usageDetails: is a list, not a map"),
        ({"name": 3}, "observations[0].name: is an integer, not a string"),
    ],
)
def test_a_malformed_observation_is_refused_at_its_place(
    fields: dict[str, Any], message: str
) -> None:
    assert refusal(legacy_trace(observation(**fields))).startswith(f"<bytes>: {message}")


def test_other_json_read_as_a_langfuse_export_is_refused_by_name() -> None:
    assert refusal({"spans": []}) == (
        '<bytes>: is not a Langfuse export: expected a trace with "observations", {"trace", '
        '"observations"}, {"observations", "scores"}, or an observations page {"data", "meta"}'
    )


def test_the_format_is_offered_on_the_command_line_but_not_written(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert "langfuse-export" in FORMATS
    assert "langfuse-export" not in OUTPUT_FORMATS
    assert main(["check", "--help"]) == 0
    assert "langfuse-export" in capsys.readouterr().out


def test_redact_writes_a_langfuse_export_only_in_a_format_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = EXPORTS / "clean.trace.json"
    out = tmp_path / "out.json"
    assert main(["redact", str(source), "-o", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"tracecheck: error: {source}: is a langfuse-export file, which tracecheck reads but "
        "does not write: pass --output-format (otlp-json, for one) to write its spans redacted\n"
    )
    assert not out.exists()
    asked = ["redact", str(source), "-o", str(out), "--output-format", "otlp-json"]
    assert main(asked) == 0
    assert [len(t.spans) for t in read_traces(out)] == [len(t.spans) for t in read_traces(source)]


def test_a_large_pretty_printed_export_is_recognised_by_its_keys(tmp_path: Path) -> None:
    document = json.loads((EXPORTS / "clean.trace.json").read_text())
    document["input"] = {"history": ["x" * 100] * 1000}  # the head holds no observation
    document = {"trace": document, "observations": document.pop("observations")}
    path = tmp_path / "trace-7546.json"
    path.write_text(json.dumps(document, indent=2))
    assert path.stat().st_size > 1 << 16
    assert detect_format(path) == "langfuse-export"


# --- properties ---------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
FIELD_VALUES = st.one_of(
    JSON,
    st.sampled_from(["SPAN", "TOOL", "GENERATION", "ERROR", "2025-05-01T12:00:00Z", "abc"]),
)
OBSERVATIONS = st.dictionaries(
    st.sampled_from(
        [
            "id",
            "traceId",
            "type",
            "name",
            "startTime",
            "endTime",
            "parentObservationId",
            "level",
            "statusMessage",
            "model",
            "input",
            "output",
            "metadata",
            "usageDetails",
            "usage",
            "costDetails",
        ]
    ),
    FIELD_VALUES,
)
DOCUMENTS = st.one_of(
    JSON,
    OBSERVATIONS.map(
        lambda row: {"id": "t", "timestamp": "2025-05-01T12:00:00Z", "observations": [row]}
    ),
    st.lists(OBSERVATIONS, max_size=3).map(
        lambda rows: {"trace": {"id": "t"}, "observations": rows}
    ),
    st.tuples(st.lists(OBSERVATIONS, max_size=3), JSON).map(
        lambda pair: {"data": pair[0], "meta": pair[1] if isinstance(pair[1], dict) else {}}
    ),
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS)
def test_any_json_reads_as_a_langfuse_export_or_is_refused(document: Any) -> None:
    data = json.dumps(document).encode()
    try:
        traces = read_traces(data, format="langfuse-export")
    except TraceReadError as exc:
        assert str(exc).startswith("<bytes>: ")
    else:
        assert all(
            span.trace_id is None or len(span.trace_id) == 32 for t in traces for span in t.spans
        )
