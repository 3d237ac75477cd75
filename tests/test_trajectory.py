"""`trajectory`: a run's tool calls against a reference in each match mode, parallel steps
honoured, golden runs as references, and the properties every mode keeps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck import check, compile_contract, explain_contract, read_traces
from tracecheck.contract.section_spec import ARGUMENT_CHECKS
from tracecheck.errors import ContractError
from tracecheck.rules.steps import tool_steps
from tracecheck.rules.subject import Subject
from tracecheck.rules.trajectory import MODES, Expected, ExpectedStep, Trajectory
from tracecheck.spans import Span, Trace

ROOT = Path(__file__).resolve().parent.parent
CLEAN = read_traces(ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl")[0]
FORBIDDEN = read_traces(ROOT / "fixtures" / "otel-genai" / "forbidden.otlp.jsonl")[0]
TRACE = "e" * 32


def contract(mode: str, calls: list[Any], **more: Any) -> Any:
    return compile_contract({"name": "t", "trajectory": {"mode": mode, "calls": calls, **more}})


def outcome(trace: Trace, mode: str, calls: list[Any], **more: Any) -> tuple[str, list[str]]:
    (rule,) = check(trace, contract(mode, calls, **more), capture="lenient").rules
    return rule.status, [violation.detail for violation in rule.violations]


def tool(name: str, start: int, end: int, *, error: bool = False, **arguments: Any) -> Span:
    return Span(
        TRACE,
        f"{name}-{start}",
        "root",
        f"execute_tool {name}",
        start,
        end,
        "error" if error else None,
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.arguments": json.dumps(arguments),
        },
    )


def run(*calls: Span) -> Trace:
    root = Span(
        TRACE, "root", None, "invoke_agent", 0, 1000, attributes={"run.status": "completed"}
    )
    return Trace(TRACE, (root, *calls))  # no model call: steps come of the calls' times alone


# --- the modes on a real run ------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_the_clean_run_matches_its_own_calls_in_every_mode(mode: str) -> None:
    assert outcome(CLEAN, mode, ["lookup_order", "issue_refund"]) == ("pass", [])


def test_a_forbidden_call_between_is_a_divergence_for_exact_and_extra_for_the_multisets() -> None:
    shell = "4b1b907d90c3da97"
    reference = ["lookup_order", "issue_refund"]
    assert outcome(FORBIDDEN, "exact", reference) == (
        "fail",
        [
            "trajectory diverges at reference step 2: expected issue_refund, the run called "
            f"run_shell (span {shell})",
            f"extra call: span {shell} calls run_shell",
        ],
    )
    assert outcome(FORBIDDEN, "in-order", reference) == ("pass", [])
    assert outcome(FORBIDDEN, "superset", reference) == ("pass", [])
    for mode in ("any-order", "subset"):
        assert outcome(FORBIDDEN, mode, reference) == (
            "fail",
            [f"extra call: span {shell} calls run_shell"],
        )
    assert outcome(FORBIDDEN, "exact", reference, ignore=["run_shell"]) == ("pass", [])


def test_missing_and_out_of_order_calls_are_told_apart() -> None:
    status, details = outcome(CLEAN, "in-order", ["issue_refund", "lookup_order", "close_case"])
    assert status == "fail"
    assert details[0] == "trajectory diverges at reference step 2: the run ends before lookup_order"
    assert details[1].startswith(
        "out of order: reference step 2 (lookup_order) is not in its place"
    )
    assert details[2] == "missing: reference step 3 (close_case) never happens"
    assert outcome(CLEAN, "superset", ["close_case"]) == (
        "fail",
        ["missing call: close_case"],
    )
    assert outcome(CLEAN, "subset", ["lookup_order", "issue_refund", "close_case"]) == (
        "pass",
        [],
    )


# --- parallel steps ---------------------------------------------------------------------------


def test_a_sequential_reference_is_not_met_by_calls_that_ran_in_parallel() -> None:
    parallel = run(tool("a", 10, 30), tool("b", 15, 25))
    assert outcome(parallel, "in-order", ["a", "b"])[0] == "fail"
    assert outcome(parallel, "exact", ["a", "b"])[0] == "fail"
    assert outcome(parallel, "any-order", ["a", "b"]) == ("pass", [])
    # A parallel group in the reference is met by the calls in either order, at once or not.
    assert outcome(parallel, "exact", [{"parallel": ["b", "a"]}]) == ("pass", [])
    sequential = run(tool("b", 10, 11), tool("a", 20, 21))
    assert outcome(sequential, "exact", [{"parallel": ["a", "b"]}]) == ("pass", [])
    assert outcome(sequential, "in-order", [{"parallel": ["a", "b"]}]) == ("pass", [])


def test_status_and_argument_checks_choose_which_calls_count() -> None:
    trace = run(tool("lookup", 10, 11, error=True, id="A-1"), tool("lookup", 20, 21, id="A-2"))
    ok = {"tool": "lookup", "status": "ok"}
    assert outcome(trace, "superset", [ok]) == ("pass", [])
    assert outcome(trace, "exact", [ok])[0] == "fail"  # the failed call ran: it is a call
    assert outcome(trace, "exact", [{"tool": "lookup", "status": "error"}, ok]) == ("pass", [])
    by_id = {"tool": "lookup", "arguments": [{"pointer": "/id", "equals": "A-2"}]}
    assert outcome(trace, "in-order", [by_id]) == ("pass", [])
    assert outcome(trace, "in-order", [by_id, "lookup"])[0] == "fail"
    # Every argument check of tools.arguments is an entry's too.
    pattern = {"tool": "lookup", "arguments": [{"pointer": "/id", "regex": "^A-[0-9]$"}]}
    assert outcome(trace, "exact", [pattern, pattern]) == ("pass", [])
    partial = {"tool": "lookup", "arguments": [{"pointer": "", "partial": {}, "ignore": ["*_id"]}]}
    assert outcome(trace, "any-order", [partial, partial]) == ("pass", [])


def test_repeated_calls_count_as_many_in_the_multiset_modes() -> None:
    trace = run(tool("a", 10, 11), tool("a", 20, 21))
    assert outcome(trace, "any-order", ["a"]) == (
        "fail",
        ["extra call: span a-20 calls a"],
    )
    assert outcome(trace, "superset", ["a", "a", "a"]) == ("fail", ["missing call: a"])


def test_an_unnamed_tool_call_leaves_the_trajectory_unjudged() -> None:
    unnamed = Span(
        TRACE,
        "u",
        "root",
        "execute_tool",
        5,
        6,
        attributes={"gen_ai.operation.name": "execute_tool"},
    )
    verdict = check(run(unnamed, tool("a", 10, 11)), contract("superset", ["a"]))
    assert [rule.status for rule in verdict.rules] == ["error"]


def test_calls_with_no_start_time_make_an_ordered_trajectory_unjudged() -> None:
    untimed = tool("a", 10, 11).replace(start_ns=None, end_ns=None)
    (rule,) = check(run(untimed), contract("in-order", ["a"]), capture="lenient").rules
    assert (rule.status, rule.error) == (
        "error",
        "1 tool call(s) have no start time (a-10), so their order is unknown",
    )
    assert outcome(run(untimed), "any-order", ["a"]) == ("pass", [])


# --- the document -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trajectory", "problems"),
    [
        ({"calls": ["a"]}, ['trajectory: missing required key "mode"']),
        (
            {"mode": "in order", "calls": ["a"]},
            [
                'trajectory.mode: unknown value "in order" — did you mean "in-order"? '
                "(allowed: exact, in-order, any-order, subset, superset)"
            ],
        ),
        (
            {"mode": "exact"},
            ["trajectory: needs exactly one of calls (the reference) and golden (a run)"],
        ),
        (
            {"mode": "exact", "calls": [{"parallel": ["a"]}]},
            [
                "trajectory.calls[0].parallel: needs two or more calls; one call is a step of its own"
            ],
        ),
        (
            {"mode": "exact", "calls": [{"tool": "a", "arguments": [{"pointer": "/x"}]}]},
            [
                "trajectory.calls[0].arguments[0]: needs one check: "
                + ", ".join(ARGUMENT_CHECKS[:-1])
                + " or sameAs"
            ],
        ),
        (
            {"mode": "exact", "calls": ["a"], "matchArguments": "exact"},
            ["trajectory.matchArguments: is allowed only with golden"],
        ),
    ],
)
def test_a_malformed_trajectory_is_refused_where_it_is_wrong(
    trajectory: dict[str, Any], problems: list[str]
) -> None:
    with pytest.raises(ContractError) as raised:
        compile_contract({"name": "t", "trajectory": trajectory})
    assert [str(problem) for problem in raised.value.problems] == problems


def test_explain_reads_the_reference() -> None:
    text = explain_contract(
        contract(
            "in-order", ["a", {"parallel": ["b", {"tool": "c", "status": "ok"}]}], ignore=["x"]
        )
    )
    assert text.splitlines()[-1] == (
        "  - trajectory: the tool calls match [a; parallel [b, c (succeeding)]] "
        "(in-order, ignoring x)"
    )


# --- golden runs ------------------------------------------------------------------------------


def test_a_golden_run_beside_the_contract_is_the_reference(tmp_path: Path) -> None:
    golden = tmp_path / "golden.otlp.jsonl"
    golden.write_bytes((ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl").read_bytes())
    path = tmp_path / "c.json"
    path.write_text(
        json.dumps({"name": "g", "trajectory": {"mode": "exact", "golden": golden.name}})
    )
    assert check(CLEAN, compile_contract(path)).status == "pass"
    assert check(FORBIDDEN, compile_contract(path)).status == "fail"
    # Arguments compared exactly, or at the pointers given, and never shown.
    doc = {"name": "g", "trajectory": {"mode": "exact", "golden": str(golden)}}
    exact = compile_contract(
        {**doc, "trajectory": {**doc["trajectory"], "matchArguments": "exact"}}
    )
    assert check(CLEAN, exact).status == "pass"
    assert "A-1001" not in explain_contract(exact)
    changed = Trace(
        CLEAN.trace_id,
        tuple(
            s.replace(
                attributes={**s.attributes, "gen_ai.tool.call.arguments": '{"order_id": "B"}'}
            )
            if s.attributes.get("gen_ai.tool.name") == "lookup_order"
            else s
            for s in CLEAN.spans
        ),
    )
    assert check(changed, exact).status == "fail"
    pointers = {**doc["trajectory"], "matchArguments": {"issue_refund": ["/amount"]}}
    assert check(changed, compile_contract({**doc, "trajectory": pointers})).status == "pass"


def test_a_golden_run_that_cannot_be_read_is_a_contract_error(tmp_path: Path) -> None:
    with pytest.raises(ContractError) as raised:
        compile_contract({"name": "g", "trajectory": {"mode": "exact", "golden": "nowhere.jsonl"}})
    (problem,) = raised.value.problems
    assert problem.path == "trajectory.golden"
    assert str(problem).startswith("trajectory.golden: the golden run cannot be read: ")


# --- properties -------------------------------------------------------------------------------

CALLS = st.lists(
    st.tuples(st.sampled_from("abc"), st.integers(0, 30), st.integers(0, 6)), max_size=8
)


def generated(calls: list[tuple[str, int, int]]) -> Trace:
    return run(*(tool(name, start, start + length) for name, start, length in calls))


def own_reference(trace: Trace) -> tuple[ExpectedStep, ...]:
    return tuple(
        ExpectedStep(
            tuple(Expected(call.tool_name or "") for call in step.calls), len(step.calls) > 1
        )
        for step in tool_steps(Subject(trace.spans))
    )


@settings(max_examples=200, deadline=None)
@given(calls=CALLS)
def test_a_run_matches_itself_in_every_mode(calls: list[tuple[str, int, int]]) -> None:
    trace = generated(calls)
    reference = own_reference(trace)
    for mode in MODES:
        assert Trajectory("t", mode, reference).evaluate(Subject(trace.spans)) == [], mode


@settings(max_examples=300, deadline=None)
@given(calls=CALLS, reference=st.lists(st.sampled_from("abc"), max_size=5), grouped=st.booleans())
def test_exact_implies_in_order_and_any_order(
    calls: list[tuple[str, int, int]], reference: list[str], grouped: bool
) -> None:
    trace = generated(calls)
    expected = tuple(ExpectedStep((Expected(name),)) for name in reference)
    if grouped and len(reference) > 1:
        expected = (ExpectedStep(tuple(Expected(name) for name in reference), True),)
    subject = Subject(trace.spans)
    if Trajectory("t", "exact", expected).evaluate(subject) == []:
        assert Trajectory("t", "in-order", expected).evaluate(subject) == []
        assert Trajectory("t", "any-order", expected).evaluate(subject) == []
        assert Trajectory("t", "subset", expected).evaluate(subject) == []
        assert Trajectory("t", "superset", expected).evaluate(subject) == []


def test_a_violation_names_an_entrys_pointers_never_the_values_the_contract_spells_out() -> None:
    secret_shape = "^sk-live-[A-Za-z0-9]{16}$"
    entry = {
        "tool": "pay",
        "arguments": [
            {"pointer": "/key", "regex": secret_shape},
            {"pointer": "/acct", "equals": "ACCT-778812-PRIVATE"},
        ],
    }
    status, details = outcome(run(tool("lookup", 10, 11)), "superset", [entry])
    assert status == "fail"
    assert details == ["missing call: pay (arguments checked at /key, /acct)"]
    # explain, which the contract's author reads, still says what each check asks.
    assert "ACCT-778812-PRIVATE" in explain_contract(contract("superset", [entry]))


def write_run(path: Path, *calls: tuple[str | None, bool]) -> Path:
    """A recorded run of tool calls (tool name or None, arguments recorded), one a millisecond
    apart, in OTLP JSON."""
    from tracecheck.writers import to_otlp_json

    trace_id, epoch = "a" * 32, 1_700_000_000_000_000_000
    spans = [Span(trace_id, "f" * 16, None, "invoke_agent", epoch, epoch + 10**9)]
    for i, (name, recorded) in enumerate(calls, start=1):
        attributes: dict[str, Any] = {"gen_ai.operation.name": "execute_tool"}
        if name is not None:
            attributes["gen_ai.tool.name"] = name
        if recorded:
            attributes["gen_ai.tool.call.arguments"] = "{}"
        start = epoch + i * 10**6
        spans.append(
            Span(
                trace_id,
                f"{i:016x}",
                "f" * 16,
                f"execute_tool {name or ''}".strip(),
                start,
                start + 1000,
                attributes=attributes,
            )
        )
    path.write_bytes(to_otlp_json(spans))
    return path


def test_a_golden_run_that_cannot_serve_as_a_reference_is_a_contract_error(
    tmp_path: Path,
) -> None:
    unrecorded = write_run(tmp_path / "unrecorded.json", ("lookup", False))
    doc = {"mode": "exact", "golden": str(unrecorded)}
    assert compile_contract({"name": "g", "trajectory": doc}).rules  # arguments ignored
    with pytest.raises(ContractError) as raised:
        compile_contract({"name": "g", "trajectory": {**doc, "matchArguments": "exact"}})
    (problem,) = raised.value.problems
    assert str(problem) == (
        "trajectory.golden: span 0000000000000001 of the golden run records no arguments, so "
        "they cannot be matched: the span carries no argument evidence"
    )
    doubtful = write_run(tmp_path / "doubtful.json", (None, True), ("a", True))
    with pytest.raises(ContractError) as raised:
        compile_contract({"name": "g", "trajectory": {"mode": "exact", "golden": str(doubtful)}})
    (problem,) = raised.value.problems
    assert str(problem).startswith(
        "trajectory.golden: the golden run cannot be a reference: 1 tool call does not record "
        "which tool ran"
    )
