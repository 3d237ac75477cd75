"""always, never, eventually, atMost, tokensAtMost and run (contracts.md §4.1, §4.5–4.7)."""

from __future__ import annotations

from typing import Any

import pytest
from test_rules_support import LLM_P, TOOL_P, llm, pairs, span, subject, tool, tool_p

from tracecheck.rules import (
    Always,
    AtMost,
    Eventually,
    Never,
    OneOf,
    Pattern,
    Predicate,
    RuleError,
    RunCheck,
    TokensAtMost,
)
from tracecheck.spans import RunRecord, Span

READ = tool("r1", "Read")
BASH = tool("b1", "Bash")
ANON = tool(None, "Bash")
CHAT = llm("c1")

# ---------------------------------------------------------------------------------------- 4.1


@pytest.mark.parametrize(
    ("rule", "spans", "expected"),
    [
        (Always("a", TOOL_P), (), []),
        (Always("a", TOOL_P), (READ, BASH), []),
        (
            Always("a", TOOL_P),
            (READ, CHAT, BASH),
            [("c1", 'span c1 ("chat m") fails always(kind=TOOL)')],
        ),
        (Never("n", tool_p("Bash")), (), []),
        (Never("n", tool_p("Bash")), (READ, CHAT), []),
        (
            Never("n", tool_p("Bash")),
            (READ, BASH, CHAT, ANON),
            [
                ("b1", 'span b1 ("execute_tool Bash") matches never(kind=TOOL,tool=Bash)'),
                (None, 'span #3 ("execute_tool Bash") matches never(kind=TOOL,tool=Bash)'),
            ],
        ),
        (
            Never("allowed", Predicate(kind="TOOL", not_=Predicate(tool=OneOf(("Read", "Grep"))))),
            (READ, tool("x", None), BASH),
            [
                (
                    "x",
                    'span x ("execute_tool") matches never(kind=TOOL,not(tool=oneOf(Read|Grep)))',
                ),
                (
                    "b1",
                    'span b1 ("execute_tool Bash") matches never(kind=TOOL,not(tool=oneOf(Read|Grep)))',
                ),
            ],
        ),
        (Eventually("e", tool_p("Read")), (CHAT, READ), []),
        (
            Eventually("e", tool_p("Read")),
            (),
            [(None, "no span matches eventually(kind=TOOL,tool=Read) over 0 span(s)")],
        ),
        (
            Eventually("e", tool_p("Read")),
            (CHAT, BASH),
            [(None, "no span matches eventually(kind=TOOL,tool=Read) over 2 span(s)")],
        ),
        # An LLM span named like a tool is never a TOOL span.
        (
            Eventually("e", tool_p("Read")),
            (span("c3", "Read", extra={"gen_ai.operation.name": "chat"}),),
            [(None, "no span matches eventually(kind=TOOL,tool=Read) over 1 span(s)")],
        ),
    ],
)
def test_always_never_eventually(
    rule: object, spans: tuple[Span, ...], expected: list[Any]
) -> None:
    assert pairs(rule.evaluate(subject(*spans))) == expected  # type: ignore[attr-defined]


def test_a_regex_timeout_propagates_as_a_rule_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tracecheck.rules.predicates.REGEX_TIMEOUT_SECONDS", 1e-9)
    slow = Predicate(name=Pattern(r"(\w+\s?)+x"))
    victim = span("s", "word " * 20_000)
    with pytest.raises(RuleError, match="took longer than"):
        Never("n", slow).evaluate(subject(victim))


# ---------------------------------------------------------------------------------------- 4.5


@pytest.mark.parametrize(
    ("limit", "spans", "expected"),
    [
        (0, (), []),
        (0, (CHAT,), []),
        (2, (READ, CHAT, BASH), []),
        (0, (CHAT, READ, BASH), [("r1", "2 span(s) match kind=TOOL, over the limit of 0")]),
        (
            2,
            (tool("t1", "A"), CHAT, tool("t2", "B"), tool("t3", "C"), tool("t4", "D")),
            [("t3", "4 span(s) match kind=TOOL, over the limit of 2")],
        ),
    ],
)
def test_at_most_names_the_match_past_the_limit_in_array_order(
    limit: int, spans: tuple[Span, ...], expected: list[Any]
) -> None:
    assert pairs(AtMost("m", TOOL_P, limit).evaluate(subject(*spans))) == expected


# ---------------------------------------------------------------------------------------- 4.6


@pytest.mark.parametrize(
    ("limit", "spans", "expected"),
    [
        (0, (), []),
        (0, (READ,), []),
        (150, (llm("c1", "m", 100, 50),), []),
        (
            149,
            (llm("c1", "m", 100, 50),),
            [(None, "150 tokens across 1 span(s) matching kind=LLM, over the limit of 149")],
        ),
        (
            200,
            (llm("c1", "m", 100, 50), READ, llm("c2", "m", "30", 40)),
            [(None, "220 tokens across 2 span(s) matching kind=LLM, over the limit of 200")],
        ),
        # Unknown totals fail, naming the first such span, even far under the limit.
        (
            10**9,
            (llm("c1", "m", 100, 50), llm("c2", "m", 100), llm("c3")),
            [
                (
                    "c2",
                    "span c2 has no recorded input and output token counts, so the total is unknown",
                )
            ],
        ),
        # OpenAI-style: cache reads are inside the input count (§8).
        (
            110,
            (llm("c1", "m", 100, 20, **{"gen_ai.usage.cache_read.input_tokens": 40}),),
            [(None, "120 tokens across 1 span(s) matching kind=LLM, over the limit of 110")],
        ),
        # Anthropic-style: cache writes are counted on top (§8).
        (
            19014,
            (
                span(
                    "c1",
                    "chat",
                    extra={
                        "gen_ai.operation.name": "chat",
                        "llm.token_count.prompt": 10,
                        "llm.token_count.completion": 6,
                        "llm.token_count.prompt_cache_write": 19004,
                    },
                ),
            ),
            [(None, "19020 tokens across 1 span(s) matching kind=LLM, over the limit of 19014")],
        ),
        (
            1,
            (llm("c1", "m", 0.5, 0.75), llm("c2", "m", 0.25, 0)),
            [(None, "1.5 tokens across 2 span(s) matching kind=LLM, over the limit of 1")],
        ),
    ],
)
def test_tokens_at_most(limit: int, spans: tuple[Span, ...], expected: list[Any]) -> None:
    assert pairs(TokensAtMost("t", LLM_P, limit).evaluate(subject(*spans))) == expected


# ---------------------------------------------------------------------------------------- 4.7

MS = 1_000_000
DONE = RunRecord("completed", 0, 120_000 * MS)


@pytest.mark.parametrize(
    ("rule", "run", "unknown", "expected"),
    [
        (
            RunCheck("run", require_completed=True),
            None,
            "the trace has 2 root spans and no run record was passed",
            ["run record unavailable: the trace has 2 root spans and no run record was passed"],
        ),
        (RunCheck("run", require_completed=True, max_duration_ms=120000), DONE, None, []),
        (
            RunCheck("run", require_completed=True),
            RunRecord("completed", 0, None),
            None,
            ["run status is completed but no end time was recorded"],
        ),
        (
            RunCheck("run", require_completed=True),
            RunRecord(None, 0, 5),
            None,
            ["run status is unknown, not completed"],
        ),
        (
            RunCheck("run", require_completed=True),
            RunRecord("aborted", 0, 5),
            None,
            ["run status is aborted, not completed"],
        ),
        (RunCheck("run", require_completed=False), RunRecord(None), None, []),
        (
            RunCheck("run", allowed_statuses=("completed", "failed")),
            RunRecord("failed", 0, 5),
            None,
            [],
        ),
        (
            RunCheck("run", allowed_statuses=("completed", "failed")),
            RunRecord("running", 0, None),
            None,
            ["run status running is not one of completed, failed"],
        ),
        (
            RunCheck("run", allowed_statuses=("completed",)),
            RunRecord(None, 0, 5),
            None,
            ["run status unknown is not one of completed"],
        ),
        (
            RunCheck("run", max_duration_ms=120000),
            RunRecord("completed", 0, 132_004 * MS),
            None,
            ["run took 132004 ms, over 120000 ms"],
        ),
        (
            RunCheck("run", max_duration_ms=0.5),
            RunRecord("completed", 10, 10 + 1_500_000),
            None,
            ["run took 1.5 ms, over 0.5 ms"],
        ),
        (
            RunCheck("run", max_duration_ms=120000),
            RunRecord("completed", 0, 120_000 * MS + 1),
            None,
            ["run took 120000.000001 ms, over 120000 ms"],
        ),
        (
            RunCheck("run", max_duration_ms=120000),
            RunRecord("completed", None, 5),
            None,
            ["run duration is unknown: start or end time is missing"],
        ),
        # All three, in order.
        (
            RunCheck(
                "run",
                require_completed=True,
                allowed_statuses=("completed",),
                max_duration_ms=1,
            ),
            RunRecord("failed", 0, None),
            None,
            [
                "run status is failed, not completed",
                "run status failed is not one of completed",
                "run duration is unknown: start or end time is missing",
            ],
        ),
    ],
)
def test_run(
    rule: RunCheck, run: RunRecord | None, unknown: str | None, expected: list[str]
) -> None:
    violations = rule.evaluate(subject(run=run, run_unknown=unknown))
    assert [(v.span_id, v.detail) for v in violations] == [(None, d) for d in expected]


# ---------------------------------------------------------------------------------------- 7.3


@pytest.mark.parametrize(
    ("rule", "text"),
    [
        (Always("a", TOOL_P), "every span matches kind=TOOL"),
        (Never("n", tool_p("Bash")), "no span matches kind=TOOL,tool=Bash"),
        (Eventually("e", tool_p("Read")), "some span matches kind=TOOL,tool=Read"),
        (AtMost("m", TOOL_P, 10), "at most 10 span(s) match kind=TOOL"),
        (
            TokensAtMost("t", LLM_P, 200000),
            "spans matching kind=LLM use at most 200000 tokens in total",
        ),
        (
            RunCheck("run", True, ("completed", "failed"), 120000),
            "the run completed with an end time recorded; run status is one of completed, failed; "
            "the run takes at most 120000 ms",
        ),
        (RunCheck("run", max_duration_ms=1.5), "the run takes at most 1.5 ms"),
    ],
)
def test_describe(rule: object, text: str) -> None:
    assert rule.describe() == text  # type: ignore[attr-defined]
