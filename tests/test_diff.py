"""`diff_runs`: what differs between two runs, on recorded runs of real producers and on runs
built in code, and the properties that make the diff trustworthy: a run against itself is the
same, added and missing swap when the runs do, calls of different tools are never aligned."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from diff_support import Call, agent_run, calls, span_id
from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck import read_traces
from tracecheck.diff import (
    ArgumentMatch,
    RunDiff,
    ToleranceError,
    Tolerances,
    diff_runs,
    parse_tolerance,
)
from tracecheck.spans import Span

ROOT = Path(__file__).resolve().parent.parent
GENAI = ROOT / "fixtures" / "otel-genai"
ADK = ROOT / "fixtures" / "producers" / "google-adk" / "schema-v2"


def trace(path: Path) -> object:
    (found,) = read_traces(path)
    return found


def tools(refs: object) -> list[str | None]:
    return [ref.tool for ref in refs]  # type: ignore[attr-defined]


def assert_same(diff: RunDiff) -> None:
    assert diff.status == "same", diff
    assert diff.first_divergence is None
    assert not diff.added and not diff.missing and not diff.changed
    assert not diff.model_changes and not diff.problems


# --- recorded runs -----------------------------------------------------------------------


def test_a_forbidden_call_is_added_at_step_two() -> None:
    diff = diff_runs(trace(GENAI / "clean.otlp.jsonl"), trace(GENAI / "forbidden.otlp.jsonl"))
    assert diff.status == "different"
    assert [(ref.tool, ref.step, ref.span) for ref in diff.added] == [
        ("run_shell", 2, "4b1b907d90c3da97")
    ]
    assert not diff.missing and not diff.changed
    divergence = diff.first_divergence
    assert divergence is not None
    assert (divergence.kind, divergence.side) == ("added", "run")
    assert (divergence.baseline_step, divergence.run_step) == (2, 2)
    assert divergence.baseline is not None and divergence.baseline.tool == "issue_refund"
    # The extra step cost a model call: the tokens are past 10%, the models are the same.
    assert diff.tokens.status == "over" and (diff.tokens.baseline, diff.tokens.run) == (1550, 2179)
    assert [(m.model, m.baseline_calls, m.run_calls) for m in diff.models] == [
        ("gpt-4.1-mini", 3, 4)
    ]
    assert not diff.model_changes


def test_the_same_run_exported_in_batches_is_the_same() -> None:
    diff = diff_runs(trace(GENAI / "clean.otlp.jsonl"), trace(GENAI / "clean-batched.otlp.jsonl"))
    assert_same(diff)
    assert len(diff.pairs) == 2
    # 93 ms against 47 ms: within the default 50% or one second.
    assert diff.duration.status == "within"


def test_every_fixture_run_is_the_same_as_itself_and_as_its_protobuf() -> None:
    for name in ("clean", "forbidden", "repeated-write", "timeout", "cache"):
        json_run = trace(GENAI / f"{name}.otlp.jsonl")
        assert_same(diff_runs(json_run, json_run))
        assert_same(diff_runs(json_run, trace(GENAI / f"{name}.otlp.pb")))


def test_a_parallel_step_against_the_same_calls_one_by_one_is_regrouped() -> None:
    # ADK ran lookup_order and run_shell from one model response; the sequential run asked
    # for them in two responses. The same calls, in another grouping.
    parallel = trace(ADK / "parallel.otlp.jsonl")
    sequential = trace(ADK / "forbidden.otlp.jsonl")
    assert_same(diff_runs(parallel, parallel))
    diff = diff_runs(sequential, parallel)
    assert diff.status == "different"
    assert not diff.added and not diff.missing
    regrouped = diff.with_change("regrouped")
    assert [(p.baseline.tool, p.baseline.step, p.run.step, p.run.parallel) for p in regrouped] == [
        ("lookup_order", 1, 1, True),
        ("run_shell", 2, 1, True),
    ]
    assert not diff.with_change("reordered")
    assert diff.first_divergence is not None and diff.first_divergence.kind == "regrouped"
    # The other way round, the same finding.
    back = diff_runs(parallel, sequential)
    assert [p.run.tool for p in back.with_change("regrouped")] == ["lookup_order", "run_shell"]


def test_a_run_of_another_model_is_a_model_change() -> None:
    diff = diff_runs(trace(GENAI / "clean.otlp.jsonl"), trace(ADK / "clean.otlp.jsonl"))
    assert not diff.added and not diff.missing and diff.first_divergence is None
    assert [(m.model, m.baseline_calls, m.run_calls) for m in diff.model_changes] == [
        ("gpt-4.1-mini", 3, 0),
        ("gemini-2.5-flash", 0, 3),
    ]
    assert diff.status == "different"


def test_a_run_whose_calls_are_in_doubt_cannot_be_vouched_for() -> None:
    # AutoGen's own tracing records tool calls and no model call: doubt about model calls.
    recorded = ROOT / "fixtures" / "producers" / "autogen" / "assistant" / "clean.otlp.jsonl"
    doubtful = max(read_traces(recorded), key=lambda found: len(found.spans))
    diff = diff_runs(doubtful, doubtful)
    assert diff.status == "error"
    assert diff.problems and diff.problems[0].startswith("baseline: ")
    assert any("recorded but no model call" in problem for problem in diff.problems)
    lenient = diff_runs(doubtful, doubtful, capture="lenient")
    # Lenient about capture, not about totals: tokens neither run records cannot be held to a
    # tolerance.
    assert lenient.status == "error"
    assert lenient.problems == (
        "tokens cannot be compared: the baseline records no model call, and so does the run",
    )
    untolled = diff_runs(doubtful, doubtful, capture="lenient", tolerances=Tolerances(tokens=None))
    assert untolled.status == "same" and not untolled.problems
    assert untolled.tokens.status == "unrecorded"


# --- runs built in code --------------------------------------------------------------------


def test_a_call_that_moved_is_reordered_not_added_and_missing() -> None:
    diff = diff_runs(agent_run(calls("a", "b", "c")), agent_run(calls("c", "a", "b")))
    assert not diff.added and not diff.missing
    (moved,) = diff.with_change("reordered")
    assert (moved.baseline.tool, moved.baseline.step, moved.run.step) == ("c", 3, 1)
    divergence = diff.first_divergence
    assert divergence is not None and divergence.kind == "reordered"
    assert (divergence.baseline_step, divergence.run_step) == (1, 1)


def test_a_parallel_group_matches_in_any_order() -> None:
    one = agent_run([[Call("a"), Call("b"), Call("c")], [Call("d")]])
    other = agent_run([[Call("c"), Call("a"), Call("b")], [Call("d")]])
    assert_same(diff_runs(one, other))


def test_a_missing_call_and_the_step_it_was_at() -> None:
    diff = diff_runs(
        agent_run(calls("lookup", "refund", "notify")), agent_run(calls("lookup", "notify"))
    )
    assert tools(diff.missing) == ["refund"] and not diff.added
    divergence = diff.first_divergence
    assert divergence is not None
    assert (divergence.kind, divergence.baseline_step, divergence.run_step) == ("missing", 2, 2)
    assert divergence.run is not None and divergence.run.tool == "notify"


def test_a_repeated_call_is_added_once() -> None:
    diff = diff_runs(
        agent_run(calls("lookup", "refund")), agent_run(calls("lookup", "lookup", "refund"))
    )
    assert tools(diff.added) == ["lookup"] and len(diff.pairs) == 2


def test_argument_differences_are_pointers_with_values_only_where_redaction_keeps_them() -> None:
    before = agent_run([[Call("refund", {"order": "A-1", "amount": 42.5, "note": "ok", "x": [1]})]])
    after = agent_run(
        [
            [
                Call(
                    "refund",
                    {"order": "A-1", "amount": "42.5", "note": "mail bob@example.com", "y": True},
                )
            ]
        ]
    )
    diff = diff_runs(before, after)
    (pair,) = diff.changed
    assert pair.changes == ("arguments",) and not pair.gated
    found = {change.pointer: change for change in pair.arguments}
    assert list(found) == ["/amount", "/note", "/x", "/y"]
    amount = found["/amount"]
    assert (amount.change, amount.baseline_type, amount.run_type) == ("changed", "number", "string")
    assert amount.shown and (amount.baseline_value, amount.run_value) == (42.5, "42.5")
    note = found["/note"]  # an e-mail address: the default profile removes it
    assert not note.shown and note.baseline_value is None and note.run_value is None
    assert (found["/x"].change, found["/x"].baseline_type, found["/x"].shown) == (
        "removed",
        "array",
        False,
    )
    assert (found["/y"].change, found["/y"].run_value) == ("added", True)
    # Ignored by default: the runs take the same path.
    assert diff.status == "same" and diff.first_divergence is None


def test_a_value_under_a_credential_key_is_never_shown() -> None:
    key = "sk-" + "a1B2" * 10  # built here: a scanner must not trip on a literal
    diff = diff_runs(
        agent_run([[Call("login", {"password": "hunter2", "api_key": key, "user": "bob"})]]),
        agent_run([[Call("login", {"password": "hunter3", "api_key": key + "x", "user": "al"})]]),
    )
    found = {change.pointer: change for change in diff.changed[0].arguments}
    assert not found["/password"].shown and not found["/api_key"].shown
    assert found["/user"].shown and found["/user"].run_value == "al"
    assert "hunter" not in repr(diff) and key not in repr(diff)


def test_matched_arguments_count_as_a_divergence() -> None:
    before = agent_run([[Call("lookup", {"id": 1})], [Call("refund", {"id": 1, "amount": 5})]])
    after = agent_run([[Call("lookup", {"id": 2})], [Call("refund", {"id": 1, "amount": 6})]])
    assert diff_runs(before, after).status == "same"
    exact = diff_runs(before, after, match_arguments="exact")
    assert exact.status == "different"
    divergence = exact.first_divergence
    assert divergence is not None and (divergence.kind, divergence.baseline_step) == (
        "arguments",
        1,
    )
    # Only refund's /amount counts: the divergence is at step 2.
    some = diff_runs(before, after, match_arguments={"refund": ["/amount"]})
    divergence = some.first_divergence
    assert divergence is not None and (divergence.kind, divergence.baseline_step) == (
        "arguments",
        2,
    )
    refund = some.pairs[1]
    assert [(c.pointer, c.counted) for c in refund.arguments] == [("/amount", True)]
    assert not some.pairs[0].gated
    only_ids = diff_runs(
        before, after, match_arguments=ArgumentMatch("ignore", {"refund": ("/id",)})
    )
    assert only_ids.status == "same"


def test_a_call_that_fails_in_one_run_only_is_a_status_change() -> None:
    diff = diff_runs(agent_run(calls("a", "b")), agent_run([[Call("a")], [Call("b", failed=True)]]))
    (pair,) = diff.changed
    assert pair.changes == ("status",) and pair.gated and pair.run.failed
    assert diff.first_divergence is not None and diff.first_divergence.kind == "status"


def test_a_call_made_inside_another_tool_keeps_its_order_and_its_position() -> None:
    # An agent called as a tool makes x then y inside it: its calls overlap it in time, yet
    # their order counts.
    one = agent_run([[Call("plan")], [Call("x", inside=("agent",))]])
    assert [p.run.tool for p in diff_runs(one, one).pairs] == ["plan", "agent", "x"]
    moved_out = agent_run([[Call("plan")], [Call("x")]])
    diff = diff_runs(one, moved_out)
    assert tools(diff.missing) == ["agent"]
    (pair,) = diff.with_change("position")
    assert pair.baseline.within == ("agent",) and pair.run.within == ()


def test_tokens_and_duration_against_their_tolerances() -> None:
    before = agent_run(calls("a", "b"), tokens=(1000, 100))  # 3 model calls: 3300 tokens
    after = agent_run(calls("a", "b"), tokens=(1100, 100), step_ms=40)
    diff = diff_runs(before, after)
    assert (diff.tokens.baseline, diff.tokens.run, diff.tokens.status) == (3300, 3600, "within")
    assert diff.tokens.delta == 300 and diff.tokens.relative == pytest.approx(300 / 3300)
    # 30 ms against 120 ms: 300% more, but within the absolute second.
    assert diff.duration.status == "within"
    tight = Tolerances(parse_tolerance("5%", "tokens"), parse_tolerance("50ms", "ms"))
    strict = diff_runs(before, after, tolerances=tight)
    assert strict.tokens.status == "over" and strict.duration.status == "over"
    assert strict.status == "different" and strict.first_divergence is None
    off = diff_runs(before, after, tolerances=Tolerances(None, None))
    assert (off.tokens.status, off.duration.status, off.status) == ("off", "off", "same")


def test_tokens_one_run_does_not_record_cannot_be_compared() -> None:
    before = agent_run(calls("a"))
    after = agent_run(calls("a"), tokens=(None, None))
    diff = diff_runs(before, after)
    assert diff.tokens.status == "unknown" and diff.status == "error"
    assert diff.problems == (
        "tokens cannot be compared: the run has 2 model calls that record no token counts "
        f"(span {span_id('sm0')}…)",
    )
    # Neither run records them: against a tolerance that cannot be compared either.
    neither = diff_runs(after, after)
    assert neither.tokens.status == "unknown" and neither.status == "error"
    assert neither.problems == (
        "tokens cannot be compared: the baseline has 2 model calls that record no token counts "
        f"(span {span_id('sm0')}…), and so does the run",
    )
    untolled = diff_runs(after, after, tolerances=Tolerances(tokens=None))
    assert untolled.tokens.status == "unrecorded" and untolled.status == "same"


def test_neither_run_recording_its_duration_cannot_be_held_to_a_tolerance() -> None:
    run = [
        span.replace(end_ns=None) if span.parent_span_id is None else span
        for span in agent_run(calls("a"))
    ]
    diff = diff_runs(run, run)
    assert (diff.duration.status, diff.status) == ("unknown", "error")
    assert diff.problems == (
        "the duration cannot be compared: the baseline records no start and end time on its "
        "root span, and so does the run",
    )
    untolled = diff_runs(run, run, tolerances=Tolerances(duration=None))
    assert (untolled.duration.status, untolled.status) == ("unrecorded", "same")


def test_model_calls_that_name_no_model_cannot_be_compared() -> None:
    """Two unnamed models may be two models: a gpt run and a claude run with the model
    stripped are not the same run."""

    def unnamed(spans: list[Span]) -> list[Span]:
        return [
            span.replace(
                attributes={k: v for k, v in span.attributes.items() if k != "gen_ai.request.model"}
            )
            if span.name.startswith("chat")
            else span
            for span in spans
        ]

    gpt = unnamed(agent_run(calls("a"), model="gpt-4.1-mini", prefix="g"))
    claude = unnamed(agent_run(calls("a"), model="claude-opus-4", prefix="c"))
    diff = diff_runs(gpt, claude)
    assert diff.status == "error"
    assert diff.problems == (
        f"baseline: 2 model calls name no model (span {span_id('gm0')}…), so its models "
        "cannot be compared",
        f"run: 2 model calls name no model (span {span_id('cm0')}…), so its models cannot "
        "be compared",
    )
    named = agent_run(calls("a"), prefix="n")
    one_side = diff_runs(named, claude)
    assert one_side.status == "error"
    assert one_side.problems == (
        f"run: 2 model calls name no model (span {span_id('cm0')}…), so its models cannot "
        "be compared",
    )


def test_tool_calls_with_no_start_time_have_no_order_to_compare() -> None:
    def untimed(spans: list[Span], *tools: str) -> list[Span]:
        return [span.replace(start_ns=None) if span.tool_name in tools else span for span in spans]

    before = untimed(agent_run(calls("a", "b"), prefix="x"), "b")
    after = untimed(agent_run(calls("b", "a"), prefix="y"), "a", "b")
    diff = diff_runs(before, after)
    assert diff.status == "error"
    assert diff.problems == (
        f"baseline: 1 tool call has no start time (span {span_id('x1-0')}), so the order of "
        "its tool calls is unknown",
        f"run: 2 tool calls have no start time (span {span_id('y0-0')}, span "
        f"{span_id('y1-0')}), so the order of its tool calls is unknown",
    )
    # One call alone has an order, timed or not.
    single = untimed(agent_run(calls("a")), "a")
    assert diff_runs(single, single).status == "same"


def test_runs_with_no_tool_call_cannot_vouch_for_a_trajectory() -> None:
    empty = agent_run([])
    diff = diff_runs(empty, empty)
    assert diff.status == "error"
    assert diff.problems == (
        "neither run records a tool call or the tools offered to the model, so tool capture "
        "cannot be confirmed",
    )
    assert diff_runs(empty, empty, capture="lenient").status == "same"


def test_a_bad_match_arguments_is_refused() -> None:
    run = agent_run(calls("a"))
    with pytest.raises(ValueError, match="ignore or exact"):
        diff_runs(run, run, match_arguments="some")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^refund: 'all' is not ignore, exact or JSON Pointers$"):
        diff_runs(run, run, match_arguments={"refund": "all"})  # type: ignore[dict-item]


def test_tolerances_are_parsed_in_one_place() -> None:
    assert Tolerances.parse() == Tolerances()
    assert Tolerances.parse("5%", None) == Tolerances(tokens=parse_tolerance("5%", "tokens"))
    assert Tolerances.parse(None, "off") == Tolerances(duration=None)
    with pytest.raises(ToleranceError) as raised:
        Tolerances.parse("10%", "2 lots")
    assert raised.value.total == "duration" and "'2 lots' is not a tolerance" in str(raised.value)


# --- properties ----------------------------------------------------------------------------

TOOLS = ("lookup", "refund", "notify", "search")
call = st.builds(
    Call,
    st.sampled_from(TOOLS),
    st.dictionaries(st.sampled_from(["id", "q"]), st.integers(0, 2), max_size=2),
    st.booleans(),
    st.sampled_from([(), ("agent",)]),
)
steps = st.lists(st.lists(call, min_size=1, max_size=3), min_size=1, max_size=6)


def built(run_steps: list[list[Call]], prefix: str = "s") -> list[Span]:
    return agent_run(run_steps, prefix=prefix)


@given(steps)
@settings(max_examples=150, deadline=None)
def test_a_run_against_itself_is_the_same(run_steps: list[list[Call]]) -> None:
    run = built(run_steps)
    assert_same(diff_runs(run, run))
    # Recorded again with other span ids, and listed in another order: still the same.
    again = list(reversed(built(run_steps, prefix="r")))
    assert_same(diff_runs(run, again))


@given(steps, steps)
@settings(max_examples=150, deadline=None)
def test_added_and_missing_swap_when_the_runs_do(
    one_steps: list[list[Call]], other_steps: list[list[Call]]
) -> None:
    one, other = built(one_steps), built(other_steps, prefix="r")
    forward, backward = diff_runs(one, other), diff_runs(other, one)
    assert Counter(tools(forward.added)) == Counter(tools(backward.missing))
    assert Counter(tools(forward.missing)) == Counter(tools(backward.added))
    assert len(forward.pairs) == len(backward.pairs)


@given(steps, steps)
@settings(max_examples=150, deadline=None)
def test_calls_of_different_tools_are_never_aligned_and_every_call_is_accounted_for(
    one_steps: list[list[Call]], other_steps: list[list[Call]]
) -> None:
    one, other = built(one_steps), built(other_steps, prefix="r")
    diff = diff_runs(one, other)
    assert all(pair.baseline.tool == pair.run.tool for pair in diff.pairs)
    assert len(diff.pairs) + len(diff.missing) == diff.baseline.calls
    assert len(diff.pairs) + len(diff.added) == diff.run.calls
    # Each tool: as many aligned as the fewer of the runs made.
    made = Counter(tools(p.baseline for p in diff.pairs))
    before = Counter(tools(p.baseline for p in diff.pairs)) + Counter(tools(diff.missing))
    after = Counter(tools(p.run for p in diff.pairs)) + Counter(tools(diff.added))
    assert made == before & after
    # The diff finds a divergence exactly when the trajectories differ.
    same_path = not (diff.added or diff.missing or any(p.gated for p in diff.pairs))
    assert (diff.first_divergence is None) == same_path


# --- the tolerance parser and the public names -------------------------------------------


@given(st.text(max_size=20))
def test_any_text_is_a_tolerance_or_a_tolerance_error(text: str) -> None:
    for unit in ("tokens", "ms"):
        try:
            found = parse_tolerance(text, unit)  # type: ignore[arg-type]
        except ToleranceError as exc:
            assert repr(text) in str(exc) or "tolerance" in str(exc)
            continue
        if found is not None:  # what it reads back as is what it was
            assert parse_tolerance(str(found), unit) == found  # type: ignore[arg-type]


@given(
    st.one_of(st.none(), st.integers(0, 500)),
    st.one_of(st.none(), st.integers(0, 10_000)),
    st.integers(0, 10**6),
    st.integers(0, 10**6),
)
def test_a_tolerance_allows_a_difference_either_way_within_the_larger_allowance(
    percent: int | None, amount: int | None, baseline: int, run: int
) -> None:
    parts = [
        f"{percent}%" if percent is not None else "",
        str(amount) if amount is not None else "",
    ]
    written = ",".join(part for part in parts if part) or "off"
    tolerance = parse_tolerance(written, "tokens")
    if tolerance is None:
        assert written == "off"
        return
    allowance = max((percent or 0) / 100 * baseline, amount or 0)
    assert tolerance.allows(baseline, run) == (abs(run - baseline) <= allowance)
    assert tolerance.allows(baseline, run) == tolerance.allows(baseline, 2 * baseline - run)


def test_the_public_names_exist() -> None:
    import tracecheck.diff

    assert sorted(set(tracecheck.diff.__all__)) == sorted(tracecheck.diff.__all__)
    for name in tracecheck.diff.__all__:
        assert hasattr(tracecheck.diff, name), name
