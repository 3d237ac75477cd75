"""`draft_from_runs`: a draft from good runs holds what every run did, passes `lint` with no
error, never fails a run it came from (every recorded trace in fixtures/ is tried), copies no
argument value, and says where capture is in doubt instead of writing `capture: lenient`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_fixture_doubt import FILES, FIXTURES, expected

import tracecheck.init.from_runs as from_runs
from tracecheck import check, compile_contract, lint_contract, read_traces
from tracecheck.init import Draft, NothingToDraft, draft_from_runs
from tracecheck.init.budget import ceiling
from tracecheck.init.common_steps import LONGEST, Trajectory
from tracecheck.init.names import idempotency_key, looks_like_write
from tracecheck.init.runs import read_runs
from tracecheck.spans import Span, Trace
from tracecheck.yaml12 import load_yaml

ROOT = FIXTURES.parent
CLEAN = FIXTURES / "otel-genai" / "clean.otlp.jsonl"
FORBIDDEN = FIXTURES / "otel-genai" / "forbidden.otlp.jsonl"
REPEATED = FIXTURES / "otel-genai" / "repeated-write.otlp.jsonl"
LEAKY = FIXTURES / "otel-genai" / "leaky.otlp.jsonl"
PARALLEL = FIXTURES / "producers" / "google-adk" / "schema-v2" / "parallel.otlp.jsonl"
AUTOGEN = FIXTURES / "producers" / "autogen" / "assistant" / "clean.otlp.jsonl"
MCP_RUN = FIXTURES / "producers" / "agent-framework-mcp" / "clean.otlp.jsonl"
EMBED = FIXTURES / "producers" / "vercel-ai-v5" / "embed.otlp.json"


def runs_of(path: Path) -> list[Trace]:
    """The traces of a file that are runs: those with a tool or a model call."""
    return [trace for trace in read_traces(path) if read_runs([trace])[0]]


def assert_sound(draft: Draft, runs: list[Trace]) -> None:
    """The draft reads back as its document, lints with no error, and fails no run."""
    text = draft.yaml()
    assert load_yaml(text) == draft.document()
    assert [f for f in lint_contract(text) if f.level == "error"] == []
    contract = compile_contract(text)
    for trace in runs:
        verdict = check(trace, contract)
        assert [r.label for r in verdict.rules if r.status == "fail"] == [], trace.trace_id
    assert not [note for note in draft.notes if "left out: it fails" in note]


# --- every recorded trace ----------------------------------------------------------------


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(FIXTURES)))
def test_a_draft_from_any_recording_lints_and_never_fails_its_runs(path: Path) -> None:
    traces = read_traces(path)
    runs = [trace for trace in traces if read_runs([trace])[0]]
    if not runs:
        with pytest.raises(NothingToDraft):
            draft_from_runs(traces)
        return
    draft = draft_from_runs(traces)
    assert_sound(draft, runs)
    contract = compile_contract(draft.yaml())
    in_doubt = any(signature != (None, None) for signature in expected(path))
    statuses = {check(trace, contract).status for trace in runs}
    # Runs whose capture nobody doubts pass; the others are could not be evaluated, never failed.
    assert statuses <= ({"pass", "error"} if in_doubt else {"pass"})
    assert "capture" not in draft.document()


def test_only_the_embedding_runs_give_nothing_to_draft() -> None:
    with pytest.raises(NothingToDraft, match="no trace records a tool call or a model call"):
        draft_from_runs(read_traces(EMBED))
    with pytest.raises(ValueError, match="no runs"):
        draft_from_runs([])


# --- what a draft holds ------------------------------------------------------------------


def test_two_runs_give_the_tools_of_every_run_and_their_shared_trajectory() -> None:
    runs = [*read_traces(CLEAN), *read_traces(FORBIDDEN)]
    draft = draft_from_runs(runs, name="refund-desk")
    doc = draft.document()
    assert doc["name"] == "refund-desk"
    assert doc["tools"]["required"] == ["lookup_order", "issue_refund"]
    assert doc["tools"]["allowed"] == ["lookup_order", "issue_refund", "run_shell"]
    assert doc["tools"]["arguments"] == [
        {"tool": "lookup_order", "pointer": "/order_id", "type": "string"},
        {"tool": "issue_refund", "pointer": "/order_id", "type": "string"},
        {"tool": "issue_refund", "pointer": "/amount", "type": "number"},
        {"tool": "issue_refund", "pointer": "/idempotency_key", "type": "string"},
    ]
    assert doc["trajectory"] == {"mode": "in-order", "calls": ["lookup_order", "issue_refund"]}
    assert "# 1 call of the runs is not in every run in this order, so left out." in draft.yaml()
    assert doc["retries"] == {
        "writes": [
            {"tool": "issue_refund", "idempotencyKey": "/idempotency_key"},
            {"tool": "run_shell"},
        ]
    }
    assert doc["llm"]["allowedModels"] == ["gpt-4.1-mini"]
    assert_sound(draft, runs)


def test_the_token_ceiling_is_the_largest_run_times_one_and_a_half_rounded_up() -> None:
    draft = draft_from_runs(read_traces(CLEAN))
    assert draft.document()["llm"]["maxTotalTokens"] == 2400
    assert "# The largest run (run 1) used 1550 tokens: 1550 × 1.5 = 2325, rounded up to 2400." in (
        draft.yaml()
    )


@pytest.mark.parametrize(
    ("used", "budget"), [(1550, 2400), (2184, 3300), (18, 27), (1, 2), (99, 150), (70816, 110000)]
)
def test_ceilings(used: int, budget: int) -> None:
    assert ceiling(used).budget == budget


@given(st.integers(1, 10**12) | st.floats(0.001, 1e12))
def test_a_ceiling_has_headroom_and_two_significant_digits(used: float) -> None:
    found = ceiling(used)
    assert found.budget >= used * 1.5
    assert found.budget < found.raised * 1.1 + 1
    assert len(str(found.budget).rstrip("0")) <= 2


def test_parallel_calls_are_drafted_as_a_parallel_group() -> None:
    runs = runs_of(PARALLEL)
    draft = draft_from_runs(runs)
    calls = draft.document()["trajectory"]["calls"]
    assert any(isinstance(step, dict) and "parallel" in step for step in calls)
    assert_sound(draft, runs)


def test_a_write_repeated_with_equal_arguments_is_a_read_marked_for_review() -> None:
    runs = read_traces(REPEATED)
    draft = draft_from_runs(runs)
    assert draft.document()["retries"] == {"reads": ["issue_refund"]}
    text = draft.yaml()
    assert (
        "# review: named like a write, but listed as a read so that the draft passes its runs"
        in (text)
    )
    assert_sound(draft, runs)


def test_no_argument_value_reaches_the_draft() -> None:
    runs = read_traces(LEAKY)
    text = draft_from_runs(runs).yaml()
    values = [
        value
        for trace in runs
        for span in trace.spans
        if span.kind == "TOOL" and span.arguments.known
        for value in _strings(span.arguments.value)
    ]
    assert values  # the run's calls carry planted values
    assert [value for value in values if value in text] == []


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for member in value.values() for s in _strings(member)]
    if isinstance(value, list):
        return [s for member in value for s in _strings(member)]
    return []


def test_doubt_about_capture_is_said_not_settled() -> None:
    runs = runs_of(AUTOGEN)
    draft = draft_from_runs(runs)
    text = draft.yaml()
    assert "# Capture doubt in run 1: 2 tool calls are recorded but no model call" in text
    assert "check reports the rules about model calls as could not be evaluated (exit 2)" in text
    assert "capture" not in draft.document()
    assert any(note.startswith("Capture doubt in run 1") for note in draft.notes)
    # Its arguments were not recorded: no check is drafted, and the draft says why.
    assert "arguments" not in draft.document()["tools"]
    assert "# tools.arguments: lookup_order: no checks, since a call of it says" in text


def test_traces_with_no_call_are_not_taken_for_runs() -> None:
    traces = read_traces(MCP_RUN)
    draft = draft_from_runs(traces)
    header = draft.yaml().split("\nname:", 1)[0]
    assert "# A contract draft written by `tracecheck init` from 1 run:" in header
    assert header.count(f"{MCP_RUN}") == len(traces)  # the run and each trace left out
    assert "# Not taken for runs (no tool call and no model call):" in header
    assert draft.document()["tools"]["required"] == ["lookup_order", "issue_refund"]


def test_spans_serve_as_runs_too() -> None:
    (trace,) = read_traces(CLEAN)
    assert draft_from_runs([trace.spans]).document() == draft_from_runs([trace]).document()


def test_a_rule_that_would_fail_a_run_is_left_out_with_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """A planning mistake (here: the trajectory reversed) never reaches the draft as a failing
    rule: the draft is checked on its runs, and a failing rule is left out, named."""
    real = from_runs.common_steps

    def reversed_steps(runs: Any) -> Trajectory:
        found = real(runs)
        return Trajectory(tuple(reversed(found.steps)))

    monkeypatch.setattr(from_runs, "common_steps", reversed_steps)
    runs = read_traces(CLEAN)
    draft = draft_from_runs(runs)
    assert "trajectory" not in draft.document()
    (note,) = draft.notes
    assert note.startswith("trajectory left out: it fails run 1: ")
    assert "#   trajectory left out: it fails run 1: " in draft.yaml()
    compiled = compile_contract(draft.yaml())
    assert check(runs[0], compiled).status == "pass"


# --- repeated calls, keys and names, on runs built here --------------------------------------

TRACE = "e" * 32


def _run(*calls: tuple[str, dict[str, Any], bool]) -> list[Span]:
    """A run: a root, then per call a model call asking for it and the tool call itself."""
    spans = [
        Span(
            TRACE,
            "root",
            None,
            "invoke_agent desk",
            0,
            10_000,
            attributes={"gen_ai.operation.name": "invoke_agent"},
        )
    ]
    for i, (tool, arguments, failed) in enumerate(calls):
        start = 100 * (i + 1)
        spans.append(
            Span(
                TRACE,
                f"m{i}",
                "root",
                "chat m",
                start,
                start + 10,
                attributes={
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "m",
                    "gen_ai.usage.input_tokens": 10,
                    "gen_ai.usage.output_tokens": 5,
                },
            )
        )
        spans.append(
            Span(
                TRACE,
                f"t{i}",
                "root",
                f"execute_tool {tool}",
                start + 20,
                start + 30,
                status="error" if failed else None,
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": tool,
                    "gen_ai.tool.call.arguments": json.dumps(arguments),
                },
            )
        )
    return spans


def test_a_write_whose_calls_carry_a_key_is_keyed_by_it() -> None:
    run = _run(
        ("send_email", {"to": "x", "request_id": "r-1"}, True),
        ("send_email", {"to": "x", "request_id": "r-1"}, False),
    )
    draft = draft_from_runs([run])
    assert draft.document()["retries"] == {
        "writes": [{"tool": "send_email", "idempotencyKey": "/request_id"}]
    }
    assert_sound(draft, [Trace(TRACE, run)])


def test_a_read_repeated_is_a_read_and_a_tool_called_once_is_not_named() -> None:
    run = _run(("search", {"q": "a"}, False), ("search", {"q": "a"}, False), ("lookup", {}, False))
    draft = draft_from_runs([run])
    assert draft.document()["retries"] == {"reads": ["search"]}
    assert "# review: listed as a read (a retry may repeat it) because in run 1, search was" in (
        draft.yaml()
    )
    # `lookup` took no argument: its arguments are an empty object.
    assert {"tool": "lookup", "pointer": "", "type": "object"} in draft.document()["tools"][
        "arguments"
    ]


def test_argument_types_the_calls_disagree_on_are_checked_for_presence_only() -> None:
    run = _run(
        ("get", {"id": 1, "a/b~": {"c": True}}, False),
        ("get", {"id": "1", "a/b~": {"c": False}}, False),
    )
    entries = draft_from_runs([run]).document()["tools"]["arguments"]
    assert entries == [
        {"tool": "get", "pointer": "/id", "exists": True},
        {"tool": "get", "pointer": "/a~1b~0", "type": "object"},
        {"tool": "get", "pointer": "/a~1b~0/c", "type": "boolean"},
    ]


def test_an_argument_key_that_holds_a_credential_is_never_drafted() -> None:
    token = "ghp_" + "k7Z2" * 9  # built at run time
    run = _run(
        ("fetch", {"url": "u", "headers": {token: "x", "accept": "y"}}, False),
        ("fetch", {"url": "v", "headers": {token: "z", "accept": "y"}}, False),
    )
    draft = draft_from_runs([run])
    assert token not in draft.yaml()
    assert draft.document()["tools"]["arguments"] == [
        {"tool": "fetch", "pointer": "/url", "type": "string"},
        {"tool": "fetch", "pointer": "/headers", "type": "object"},
        {"tool": "fetch", "pointer": "/headers/accept", "type": "string"},
    ]


def test_the_common_trajectory_of_runs_that_differ() -> None:
    first = _run(("a", {}, False), ("b", {}, False), ("c", {}, False))
    second = _run(("a", {}, False), ("c", {}, False), ("b", {}, False), ("c", {}, False))
    draft = draft_from_runs([first, second])
    calls = draft.document()["trajectory"]["calls"]
    assert calls == ["a", "b", "c"]  # the longest common subsequence
    assert_sound(draft, [Trace(TRACE, first), Trace(TRACE, second)])


def test_the_common_trajectory_is_the_longest_the_runs_share() -> None:
    """difflib's matching blocks are no longest common subsequence: they drafted two of three
    shared calls, and a note that counted three calls left out."""
    first = _run(*[("lookup", {"n": n}, False) for n in range(3)])
    second = _run(
        *[(tool, {"n": n}, False) for n, tool in enumerate(["lookup", "search"] + ["lookup"] * 2)]
    )
    draft = draft_from_runs([first, second])
    assert draft.document()["trajectory"]["calls"] == ["lookup"] * 3
    assert "# 1 call of the runs is not in every run in this order, so left out." in draft.yaml()
    assert_sound(draft, [Trace(TRACE, first), Trace(TRACE, second)])


@pytest.mark.parametrize(
    ("name", "write"),
    [
        ("issue_refund", True),
        ("Write", True),
        ("NotebookEdit", True),
        ("send-email", True),
        ("mcp__refund_desk__cancel_order", True),
        ("lookup_order", False),
        ("get_refund_status", False),
        ("Read", False),
        ("mcp__send_service__lookup", False),
        ("calculator", False),
    ],
)
def test_names_that_suggest_a_write(name: str, write: bool) -> None:
    assert looks_like_write(name) is write


def test_parameters_named_like_an_idempotency_key() -> None:
    assert idempotency_key(["order_id", "Idempotency-Key"]) == "Idempotency-Key"
    assert idempotency_key(["clientRequestId"]) == "clientRequestId"
    assert idempotency_key(["order_id", "key"]) is None


def test_a_trajectory_longer_than_a_draft_lists_is_left_out_with_why() -> None:
    calls = [(f"step_{i % 7}", {"i": i}, False) for i in range(LONGEST + 1)]
    draft = draft_from_runs([_run(*calls)])
    assert "trajectory" not in draft.document()
    assert f"#   trajectory left out: the runs share {LONGEST + 1} steps, more than a draft" in (
        draft.yaml()
    )


def test_a_call_that_does_not_say_which_tool_ran_keeps_the_rules_it_would_fail_out() -> None:
    run = _run(("lookup", {"id": "1"}, False))
    unnamed = Span(
        TRACE,
        "u",
        "root",
        "execute_tool",
        500,
        510,
        attributes={"gen_ai.operation.name": "execute_tool"},
    )
    draft = draft_from_runs([[*run, unnamed]])
    doc = draft.document()
    assert "allowed" not in doc["tools"] and "retries" not in doc
    text = draft.yaml()
    assert (
        "# tools.allowed left out: run 1 has tool calls that do not record which tool ran" in text
    )
    assert "#   retries left out: run 1 has tool calls that do not record which tool ran" in text
    assert "# Capture doubt in run 1: 1 tool call does not record which tool ran" in text
    verdict = check(Trace(TRACE, [*run, unnamed]), compile_contract(text))
    assert verdict.status == "error"  # in doubt: could not be evaluated, never failed


def test_a_blank_name_is_refused() -> None:
    with pytest.raises(ValueError, match="name must not be blank"):
        draft_from_runs(read_traces(CLEAN), name=" ")


def test_a_span_name_that_names_no_tool_is_never_a_drafted_tool() -> None:
    from tracecheck.init import draft_from_runs
    from tracecheck.spans import Span, Trace

    trace_id = "f" * 32

    def span(span_id: str, name: str, start: int, **attributes: object) -> Span:
        return Span(trace_id, span_id, "r", name, start, start + 1, attributes=attributes)

    root = Span(trace_id, "r", None, "invoke_agent", 0, 100, attributes={"run.status": "completed"})
    calls = (
        span("m", "chat m", 1, **{"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}),
        span("a", "lookup_order", 5, **{"openinference.span.kind": "TOOL"}),
        span("b", "curl -H 'Authorization: x'", 9, **{"openinference.span.kind": "TOOL"}),
    )
    document = draft_from_runs([Trace(trace_id, (root, *calls))]).document()
    tools = document.get("tools", {})
    assert tools.get("required") == ["lookup_order"]
    assert "curl -H 'Authorization: x'" not in str(document)
