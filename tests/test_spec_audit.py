"""An independent audit of contracts.md §1.7–§9: one table row per normative statement.

Every expected string is the spec's template filled in, word for word.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_rules_support import TRACE, llm, span, tool

from tracecheck import (
    Contract,
    ContractError,
    LintFinding,
    check,
    check_all,
    compile_contract,
    explain_contract,
    lint_contract,
)
from tracecheck.contract.section_spec import TOOLS_KEYS
from tracecheck.contract.spec import did_you_mean
from tracecheck.spans import RunRecord, Span
from tracecheck.verdict import Verdict

MS = 1_000_000


def contract(**keys: Any) -> Contract:
    return compile_contract({"name": "audit", **keys})


def low(kind: str, **keys: Any) -> Contract:
    return contract(rules=[{"kind": kind, "label": "r", **keys}])


def outcome(verdict: Verdict) -> list[tuple[str | None, str, str, list[tuple[str | None, str]]]]:
    return [
        (
            r.alternative,
            r.label,
            r.status,
            [(v.span_id, v.detail) for v in r.violations] or ([(None, r.error)] if r.error else []),
        )
        for r in verdict.rules
    ]


def details(verdict: Verdict) -> list[str]:
    return [v.detail for r in verdict.rules for v in r.violations]


def problems(doc: Any) -> list[str]:
    with pytest.raises(ContractError) as caught:
        compile_contract(doc)
    return [str(problem) for problem in caught.value.problems]


def agent(
    span_id: str, parent: str | None = None, start: float = 0, end: float | None = 10, **attrs: Any
) -> Span:
    attributes = {"gen_ai.operation.name": "invoke_agent", **attrs}
    return Span(
        TRACE,
        span_id,
        parent,
        f"agent {span_id}",
        int(start * MS),
        None if end is None else int(end * MS),
        attributes=attributes,
    )


# ---------------------------------------------------------------------------------------------
# §2.1 labels and compile order


FULL = {
    "name": "full",
    "rules": [{"kind": "eventually", "label": "mine", "p": {"kind": "AGENT"}}],
    "llm": {"allowedModels": ["m"], "maxTotalTokens": 9, "maxCalls": 3},
    "retries": {"reads": ["Read"]},
    "tools": {
        "enforced": True,
        "arguments": [
            {"tool": "Read", "pointer": "/file_path", "type": "string"},
            {"tool": "Read", "pointer": "", "exists": True},
        ],
        "orderMode": "finish-before-start",
        "requiredOrder": ["Read", "Grep", "Glob"],
        "maxCallsPerTool": {"Read": 2, "Grep": 1},
        "maxCalls": 5,
        "allowed": ["Read", "Grep", "Glob"],
        "forbidden": ["Bash", "Write"],
        "required": ["Read", "Glob"],
    },
    "run": {"maxDurationMs": 1000, "requireCompleted": True},
}


def test_labels_exactly_as_shown_in_compile_order() -> None:
    labels = [rule.label for rule in compile_contract(FULL).rules]
    assert labels == [
        "run",
        "tools.required[Read]",
        "tools.required[Glob]",
        "tools.forbidden[Bash]",
        "tools.forbidden[Write]",
        "tools.allowed",
        "tools.maxCalls",
        "tools.maxCallsPerTool[Read]",
        "tools.maxCallsPerTool[Grep]",
        "tools.requiredOrder[Read->Grep]",
        "tools.requiredOrder[Grep->Glob]",
        "tools.arguments[0] Read /file_path type string",
        "tools.arguments[1] Read (whole value) exists",
        "tools.enforced",
        "retries",
        "llm.maxCalls",
        "llm.maxTotalTokens",
        "llm.allowedModels",
        "mine",
    ]


def test_a_single_required_order_name_compiles_to_eventually() -> None:
    (rule,) = contract(tools={"requiredOrder": ["A"]}).rules
    assert rule.label == "tools.requiredOrder[A]"
    assert rule.describe() == "some span matches kind=TOOL,tool=A"
    verdict = check([tool("t", "B")], contract(tools={"requiredOrder": ["A"]}))
    assert details(verdict) == ["no span matches eventually(kind=TOOL,tool=A) over 1 span(s)"]


def test_alternative_rules_carry_their_id() -> None:
    built = contract(
        alternatives={
            "anyOf": [
                {"id": "cache", "tools": {"required": ["x"]}},
                {"id": "b", "tools": {"required": ["y"]}},
            ]
        }
    )
    verdict = check([tool("t", "x")], built)
    assert [r.label for r in verdict.rules] == [
        "cache/tools.required[x]",
        "b/tools.required[y]",
    ]


@pytest.mark.parametrize(
    ("keys", "spans", "expected"),
    [
        (
            {"tools": {"allowed": ["Read"]}},
            [tool("t0", None)],
            'span t0 ("execute_tool") matches never(kind=TOOL,not(tool=oneOf(Read)))',
        ),
        (
            {"llm": {"allowedModels": ["m"]}},
            [llm("l0", model=None)],
            'span l0 ("chat None") matches never(kind=LLM,not(model=oneOf(m)))',
        ),
    ],
)
def test_a_call_without_a_tool_name_or_model_fails(
    keys: dict[str, Any], spans: list[Span], expected: str
) -> None:
    assert details(check(spans, contract(**keys))) == [expected]


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (
            {"name": "x"},
            [
                "the contract has no rules and no alternatives: an empty contract would vacuously pass"
            ],
        ),
        (
            {"name": "x", "run": {}},
            [
                "run: run rule checks nothing: give requireCompleted, allowedStatuses or maxDurationMs"
            ],
        ),
        (
            {
                "name": "x",
                "alternatives": {"anyOf": [{"id": "a", "tools": {"required": ["x"]}}, {"id": "b"}]},
            },
            [
                'alternatives.anyOf[1]: alternative "b" has no rules: every alternative needs at least one'
            ],
        ),
        (
            {
                "name": "x",
                "tools": {"allowed": ["a"]},
                "rules": [{"kind": "never", "label": "tools.allowed", "p": {"kind": "TOOL"}}],
            },
            ['rules[0].label: duplicate label "tools.allowed", already used by tools.allowed'],
        ),
        (
            {
                "name": "x",
                "tools": {"orderMode": "start-order", "requiredOrder": ["a"]},
                "retries": {"reads": ["a"], "writes": [{"tool": "a"}]},
            },
            ['retries.writes[0].tool: "a" is also in reads; a tool is either a read or a write'],
        ),
        (
            {"name": "x", "retries": {"writes": [{"tool": "w", "idempotencyKey": ""}]}},
            [
                'retries.writes[0].idempotencyKey: must point inside the arguments, not be "" (the whole value)'
            ],
        ),
        (
            {"name": "x", "tools": {"arguments": [{"tool": "a", "pointer": "x", "exists": False}]}},
            [
                'tools.arguments[0].pointer: "x" is not a JSON Pointer: it must be "" or start with "/"',
                "tools.arguments[0].exists: must be true, not false",
            ],
        ),
        (
            {"name": "x", "tools": {"arguments": [{"tool": "a", "pointer": "/~2", "oneOf": []}]}},
            [
                'tools.arguments[0].pointer: "/~2" is not a JSON Pointer: "~" must be followed by 0 or 1',
                "tools.arguments[0].oneOf: must not be empty",
            ],
        ),
        (
            {
                "name": "x",
                "tools": {
                    "arguments": [{"tool": "a", "pointer": "/a", "equals": None, "type": "strin"}]
                },
            },
            ["tools.arguments[0]: has 2 checks (equals, type); give exactly one"],
        ),
    ],
)
def test_compile_time_checks(doc: dict[str, Any], expected: list[str]) -> None:
    assert problems(doc) == expected


def test_equals_null_is_a_check() -> None:
    (rule,) = contract(tools={"arguments": [{"tool": "a", "pointer": "/a", "equals": None}]}).rules
    assert rule.label == "tools.arguments[0] a /a equals"


# ---------------------------------------------------------------------------------------------
# §3.1 predicates


@pytest.mark.parametrize(
    ("p", "described"),
    [
        (
            {"kind": "TOOL", "not": {"tool": {"oneOf": ["Read", "Grep"]}}},
            "kind=TOOL,not(tool=oneOf(Read|Grep))",
        ),
        (
            {
                "not": {"kind": "LLM"},
                "attr": {"a": 1, "b": {"$regex": "x", "flags": "i"}},
                "model": "m",
                "tool": {"$regex": "^R", "flags": "gi"},
                "name": "n",
                "kind": "TOOL",
            },
            "kind=TOOL,name=n,tool=/^R/gi,model=m,attr.a=1,attr.b=/x/i,not(kind=LLM)",
        ),
        (
            {"attr": {"s": "500", "o": {"k": [1, True, None]}}},
            'attr.s="500",attr.o={"k":[1,true,null]}',
        ),
    ],
)
def test_predicate_description_order_and_matchers(p: dict[str, Any], described: str) -> None:
    (rule,) = low("never", p=p).rules
    assert rule.describe() == f"no span matches {described}"


ATTRS = {"n": 500, "s": "500", "t": True, "f": 1.0, "text": "Line1\nline2", "arr": [1, {"x": 1}]}


@pytest.mark.parametrize(
    ("p", "matches"),
    [
        ({"name": {"$regex": "sea"}}, True),  # search anywhere
        ({"name": {"$regex": "^sea"}}, False),
        ({"name": {"$regex": "SEA", "flags": "i"}}, True),
        ({"name": {"$regex": "sea", "flags": "gyd"}}, True),  # accepted and ignored
        ({"name": {"$regex": "sea", "flags": "u"}}, True),
        ({"attr": {"text": {"$regex": "^line2", "flags": "m"}}}, True),
        ({"attr": {"text": {"$regex": "^line2"}}}, False),
        ({"attr": {"text": {"$regex": "1.l", "flags": "s"}}}, True),
        ({"attr": {"text": {"$regex": "L ine 1", "flags": "x"}}}, True),
        ({"name": {"oneOf": ["research", "x"]}}, True),
        ({"name": "research"}, True),
        ({"name": "resea"}, False),
        ({"not": {"tool": {"oneOf": ["a"]}}}, True),  # no tool name: the matcher never matches
        ({"tool": {"$regex": ""}}, False),
        ({"attr": {"n": 500}}, True),
        ({"attr": {"n": "500"}}, False),
        ({"attr": {"s": 500}}, False),
        ({"attr": {"t": 1}}, False),
        ({"attr": {"f": 1}}, True),
        ({"attr": {"n": 500.0}}, True),
        ({"attr": {"n": {"$regex": "5"}}}, False),  # a regex needs a string attribute
        ({"attr": {"s": {"$regex": "5"}}}, True),
        ({"attr": {"missing": None}}, False),
        ({"attr": {"arr": [1.0, {"x": 1}]}}, True),
        ({"kind": "UNKNOWN"}, True),
    ],
)
def test_predicate_matching(p: dict[str, Any], matches: bool) -> None:
    verdict = check([span("s", "research", extra=ATTRS)], low("eventually", p=p))
    assert verdict.status == ("pass" if matches else "fail")


def test_kind_must_be_upper_case_with_a_suggestion() -> None:
    assert problems(
        {"name": "x", "rules": [{"kind": "never", "label": "a", "p": {"kind": "tool"}}]}
    ) == [
        'rules[0].p.kind: unknown value "tool" — did you mean "TOOL"? (allowed: AGENT, CHAIN, LLM, '
        "TOOL, EVALUATOR, RETRIEVER, EMBEDDING, RERANKER, GUARDRAIL, PROMPT, UNKNOWN)"
    ]


def test_only_the_scope_root_kind_is_upper_cased() -> None:
    built = contract(scope={"root": {"kind": "agent"}}, tools={"required": ["x"]})
    assert built.scope is not None and built.scope.describe() == "kind=AGENT"
    assert [
        p.split(":")[0]
        for p in problems(
            {
                "name": "x",
                "scope": {"root": {"kind": "agent", "not": {"kind": "tool"}}},
                "tools": {"required": ["x"]},
            }
        )
    ] == ["scope.root.not.kind"]


def test_an_invalid_regex_and_invalid_flags_are_both_reported() -> None:
    assert problems(
        {
            "name": "x",
            "rules": [
                {"kind": "never", "label": "a", "p": {"name": {"$regex": "(", "flags": "q"}}}
            ],
        }
    ) == [
        "rules[0].p.name.flags: unknown flag(s) q (allowed: i, m, s, x, u, g, y, d)",
        "rules[0].p.name.$regex: is not a valid regular expression: missing ) at position 1",
    ]


def test_a_slow_pattern_is_an_evaluation_error_not_a_hang() -> None:
    verdict = check(
        [span("s", "a" * 60 + "b")], low("eventually", p={"name": {"$regex": "(a|aa)+$"}})
    )
    assert verdict.status == "error" and verdict.rules[0].status == "error"
    assert verdict.rules[0].error is not None and "took longer than" in verdict.rules[0].error


# ---------------------------------------------------------------------------------------------
# §4.1–4.6 messages


@pytest.mark.parametrize(
    ("rule", "spans", "expected"),
    [
        (
            low("always", p={"kind": "TOOL"}),
            [tool("t", "R"), llm("l")],
            [("l", 'span l ("chat m") fails always(kind=TOOL)')],
        ),
        (low("always", p={"kind": "TOOL"}), [], []),
        (
            low("never", p={"kind": "LLM"}),
            [tool("t", "R"), llm("l")],
            [("l", 'span l ("chat m") matches never(kind=LLM)')],
        ),
        (low("never", p={"kind": "LLM"}), [], []),
        (
            low("eventually", p={"kind": "LLM"}),
            [],
            [(None, "no span matches eventually(kind=LLM) over 0 span(s)")],
        ),
        (
            low("precedes", a={"tool": "A"}, b={"tool": "B"}),
            [],
            [
                (None, "required predecessor tool=A never occurred"),
                (None, "required successor tool=B never occurred"),
            ],
        ),
        (
            low("precedes", a={"tool": "A"}, b={"tool": "B"}),
            [tool("b", "B", 0, 1), tool("a", "A", 5, 6)],
            [("b", "tool=B is not preceded by tool=A: span b has no match that started before it")],
        ),
        (
            low("neverUnless", p={"tool": "W"}, prior={"tool": "R"}),
            [tool("w", "W", 0, 1)],
            [("w", "tool=W without an earlier tool=R: span w has no earlier match")],
        ),
        (low("neverUnless", p={"tool": "W"}, prior={"tool": "R"}), [tool("r", "R", 0, 1)], []),
        (
            low("neverUnless", p={"kind": "TOOL"}, prior={"kind": "TOOL"}),
            [tool("w", "W", 0, 1)],
            [("w", "kind=TOOL without an earlier kind=TOOL: span w has no earlier match")],
        ),
        (
            low("atMost", p={"kind": "TOOL"}, max=1),
            [tool("a", "x"), llm("l"), tool("b", "x"), tool("c", "x")],
            [("b", "3 span(s) match kind=TOOL, over the limit of 1")],
        ),
        (
            low("tokensAtMost", p={"kind": "LLM"}, max=10),
            [llm("l1", input_tokens=5, output_tokens=1), llm("l2"), llm("l3")],
            [
                (
                    "l2",
                    "span l2 has no recorded input and output token counts, so the total is unknown",
                )
            ],
        ),
        (
            low("tokensAtMost", p={"kind": "LLM"}, max=10),
            [
                llm("l1", input_tokens=5, output_tokens=1),
                llm("l2", input_tokens=4, output_tokens=1),
            ],
            [(None, "11 tokens across 2 span(s) matching kind=LLM, over the limit of 10")],
        ),
        (low("tokensAtMost", p={"kind": "LLM"}, max=0), [tool("t", "x")], []),
    ],
)
def test_rule_messages(
    rule: Contract, spans: list[Span], expected: list[tuple[str | None, str]]
) -> None:
    verdict = check(spans, rule)
    assert [(v.span_id, v.detail) for r in verdict.rules for v in r.violations] == expected


# §4.4 witnessing, and the §8 overlap example

ORDER = ("start-order", "finish-before-start", "all-occurrences")


def ordered(mode: str) -> Contract:
    return contract(tools={"requiredOrder": ["retrieve", "answer"], "orderMode": mode})


NOT_PRECEDED = "kind=TOOL,tool=answer is not preceded by kind=TOOL,tool=retrieve: "


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        # overlapping 0–50 and 10–60
        (
            [tool("r", "retrieve", 0, 50), tool("a", "answer", 10, 60)],
            (
                None,
                "span a has no match that finished before it started",
                "span r ends after span a starts",
            ),
        ),
        # retrieve ends exactly when answer starts: equality passes
        ([tool("r", "retrieve", 0, 10), tool("a", "answer", 10, 60)], (None, None, None)),
        # equal starts: strictly before is needed
        (
            [tool("r", "retrieve", 10, 10), tool("a", "answer", 10, 60)],
            ("span a has no match that started before it", None, None),
        ),
        # array position is never evidence
        (
            [tool("r", "retrieve"), tool("a", "answer", 10, 60)],
            (
                "span r has no start time, so its order cannot be proven",
                "span r has no end time, so its order cannot be proven",
                "span r has no end time, so its order cannot be proven",
            ),
        ),
        (
            [tool("r", "retrieve", 0, 5), tool("a", "answer")],
            ("span a has no start time, so its order cannot be proven",) * 3,
        ),
        # all-occurrences: a later candidate counts
        (
            [
                tool("r", "retrieve", 0, 5),
                tool("a", "answer", 10, 60),
                tool("r2", "retrieve", 70, 80),
            ],
            (None, None, "span r2 ends after span a starts"),
        ),
        (
            [tool("r", "retrieve", 0, 5), tool("a", "answer", 10, 60), tool("r2", "retrieve", 70)],
            (None, None, "span r2 has no end time, so its order cannot be proven"),
        ),
        # mixed timed and untimed spans never raise; only the stamp a mode needs matters
        (
            [
                tool("r", "retrieve", 0, None),
                tool("r2", "retrieve", None, 5),
                tool("a", "answer", 10, 60),
            ],
            (None, None, "span r has no end time, so its order cannot be proven"),
        ),
    ],
)
def test_witnessing_by_mode(spans: list[Span], expected: tuple[str | None, ...]) -> None:
    for mode, reason in zip(ORDER, expected, strict=True):
        found = details(check(spans, ordered(mode)))
        assert found == ([] if reason is None else [NOT_PRECEDED + reason]), mode


def test_a_span_never_witnesses_itself() -> None:
    rule = low("precedes", a={"kind": "TOOL"}, b={"tool": "B"})
    assert details(check([tool("b", "B", 0, 1)], rule)) == [
        "tool=B is not preceded by kind=TOOL: span b has no earlier match"
    ]


# ---------------------------------------------------------------------------------------------
# §1.7 and §4.7 run


RUN = {"requireCompleted": True, "allowedStatuses": ["failed", "aborted"], "maxDurationMs": 5}


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        (
            RunRecord(None, None, None),
            [
                "run status is unknown, not completed",
                "run status unknown is not one of failed, aborted",
                "run duration is unknown: start or end time is missing",
            ],
        ),
        (
            RunRecord("completed", 0, 10 * MS),
            ["run status completed is not one of failed, aborted", "run took 10 ms, over 5 ms"],
        ),
        (
            RunRecord("completed", 0, None),
            [
                "run status is completed but no end time was recorded",
                "run status completed is not one of failed, aborted",
                "run duration is unknown: start or end time is missing",
            ],
        ),
        (RunRecord("aborted", 0, 5 * MS), ["run status is aborted, not completed"]),
        (
            RunRecord("running", 0, 5 * MS + 1),
            [
                "run status is running, not completed",
                "run status running is not one of failed, aborted",
                "run took 5.000001 ms, over 5 ms",
            ],
        ),
    ],
)
def test_run_violations_in_order(run: RunRecord, expected: list[str]) -> None:
    assert details(check([], contract(run=RUN), run=run)) == expected


def test_run_duration_equal_to_the_limit_passes() -> None:
    verdict = check([], contract(run={"maxDurationMs": 5}), run=RunRecord("completed", 0, 5 * MS))
    assert verdict.status == "pass"


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        (
            [agent("a"), agent("b")],
            "run record unavailable: the trace has 2 root spans and no run record was passed",
        ),
        ([], "run record unavailable: the trace has no root span and no run record was passed"),
        (
            [agent("a", "b"), agent("b", "a")],
            "run record unavailable: the trace has no root span and no run record was passed",
        ),
        # a root that simply ended OK is not evidence that the run completed
        ([agent("a", status=None)], "run status is unknown, not completed"),
        ([agent("a", **{"run.status": "done"})], "run status is unknown, not completed"),
        ([agent("a", **{"run.status": "failed"})], "run status is failed, not completed"),
        # a root whose parent is not in the trace is a root
        ([agent("a", "elsewhere", **{"run.status": "completed"})], None),
    ],
)
def test_run_record_from_the_single_root(spans: list[Span], expected: str | None) -> None:
    found = details(check(spans, contract(run={"requireCompleted": True})))
    assert found == ([] if expected is None else [expected])


def test_an_errored_root_is_a_failed_run() -> None:
    root = Span(TRACE, "a", None, "agent", 0, MS, "error")
    assert details(check([root], contract(run={"requireCompleted": True}))) == [
        "run status is failed, not completed"
    ]


def test_run_record_priority_scope_root_then_passed_run_then_single_root() -> None:
    root = agent("root", **{"run.status": "failed"})
    inner = agent("inner", "root", **{"run.status": "completed"})
    scoped = contract(scope={"root": {"name": "agent inner"}}, run={"requireCompleted": True})
    assert check([root, inner], scoped, run=RunRecord("aborted", 0, 1)).status == "pass"
    plain = contract(run={"requireCompleted": True})
    assert details(check([root, inner], plain, run=RunRecord("aborted", 0, 1))) == [
        "run status is aborted, not completed"
    ]
    assert details(check([root, inner], plain)) == ["run status is failed, not completed"]


# ---------------------------------------------------------------------------------------------
# §4.8 argument


ARGS = {"a": [1, {"b/c": None, "m~n": "v"}], "s": "x", "n": 1.0, "t": True, "o": {"y": 1, "x": 2}}


def argument(pointer: str, occurrence: str | None = None, **check_: Any) -> Contract:
    entry: dict[str, Any] = {"tool": "R", "pointer": pointer, **check_}
    if occurrence is not None:
        entry["occurrence"] = occurrence
    return contract(tools={"arguments": [entry]})


@pytest.mark.parametrize(
    ("pointer", "check_", "problem"),
    [
        ("/a/1/b~1c", {"exists": True}, None),  # exists passes for a resolved null
        ("/a/1/m~0n", {"equals": "v"}, None),
        ("/a/-", {"exists": True}, "argument /a/- is absent"),
        ("/a/01", {"exists": True}, "argument /a/01 is absent"),
        ("/a/2", {"exists": True}, "argument /a/2 is absent"),
        ("/s/0", {"exists": True}, "argument /s/0 is absent"),
        ("/n", {"equals": 1}, None),
        ("/o", {"equals": {"x": 2, "y": 1}}, None),
        ("/t", {"equals": 1}, "argument /t (a boolean) does not equal the expected value"),
        ("/s", {"equals": "secret"}, "argument /s (a string) does not equal the expected value"),
        ("/n", {"oneOf": ["1", 2]}, "argument /n (a number) is not one of the expected values"),
        ("/n", {"oneOf": [2, 1]}, None),
        ("/s", {"type": "number"}, "argument /s is a string, not a number"),
        ("", {"type": "object"}, None),
        ("/a/1/b~1c", {"type": "null"}, None),
    ],
)
def test_argument_checks(pointer: str, check_: dict[str, Any], problem: str | None) -> None:
    found = details(check([tool("t", "R", 0, 1, args=ARGS)], argument(pointer, **check_)))
    assert found == ([] if problem is None else [f"span t: {problem}"])


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        ([llm("l")], "no span matches kind=TOOL,tool=R, so there is no argument evidence to check"),
        ([tool("t", "R")], "span t: the span carries no argument evidence"),
        (
            [tool("t", "R", args={"a": 1}, **{"tool.args_captured": False})],
            "span t: arguments were not captured",
        ),
        ([tool("t", "R", raw_args="not json")], "span t: argument /a is absent"),
    ],
)
def test_argument_evidence(spans: list[Span], expected: str) -> None:
    assert details(check(spans, argument("/a", exists=True))) == [expected]


CALLS = [
    tool("t1", "R", 5, 6, args={"a": 1}),
    tool("t3", "R", 1, 2, args={"a": 3}),
    tool("t4", "R", 1, 2, args={"a": 4}),
]


@pytest.mark.parametrize(
    ("occurrence", "spans", "expected"),
    [
        (
            "first",
            CALLS,
            ["span t3: argument /a (a number) does not equal the expected value"],
        ),  # ties keep array order
        ("last", CALLS, []),
        ("any", CALLS, []),
        (
            "all",
            CALLS,
            [
                "span t3: argument /a (a number) does not equal the expected value",
                "span t4: argument /a (a number) does not equal the expected value",
            ],
        ),
        (
            "first",
            [*CALLS, tool("t5", "R", args={"a": 1})],
            ["span t5 has no start time, so the first call cannot be chosen"],
        ),
        (
            "last",
            [*CALLS, tool("t5", "R", args={"a": 1})],
            ["span t5 has no start time, so the last call cannot be chosen"],
        ),
        ("first", [tool("t5", "R", args={"a": 1})], []),  # one match needs no start time
    ],
)
def test_argument_occurrence(occurrence: str, spans: list[Span], expected: list[str]) -> None:
    assert details(check(spans, argument("/a", occurrence, equals=1))) == expected


# ---------------------------------------------------------------------------------------------
# §4.9 toolsOffered


ENFORCED = {"tools": {"allowed": ["Read", "Grep"], "enforced": True}}


def offering(span_id: str, definitions: Any) -> Span:
    return llm(span_id, **{"gen_ai.tool.definitions": definitions})


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        (
            [
                offering("l", ["Read", "Grep", *(f"mcp{i}" for i in range(8))]),
                tool("t", "Read"),
                tool("u", None),
            ],
            [
                "span l offered the model 8 undeclared tool(s): mcp0, mcp1, mcp2, mcp3, mcp4, mcp5 and 2 more",
                "span u has no tool name, so it cannot be matched to an offered tool",
            ],
        ),
        ([offering("l", ["Read", "Grep"]), tool("t", "Read")], []),
        (
            [
                offering("l", {"a": 1}),
                offering("m", [{"x": 1}, "Read", {"function": {"name": "Grep"}}]),
                tool("t", "Grep"),
                tool("b", "Bash"),
            ],
            [
                "span l: gen_ai.tool.definitions is not a list",
                "span m: gen_ai.tool.definitions has an entry without a tool name",
                "span b called Bash, which was never offered: the harness did not enforce its tool set",
            ],
        ),
        (
            [tool("t", "Read")],
            [
                "no span records the tools offered to the model (gen_ai.tool.definitions), so what the "
                "harness enforced is unknown"
            ],
        ),
        ([offering("l", "[]")], []),  # an empty offered list is a record: no calls pass
        (
            [offering("l", []), tool("t", "Read")],
            [
                "span t called Read, which was never offered: the harness did not enforce its tool set"
            ],
        ),
    ],
)
def test_tools_offered(spans: list[Span], expected: list[str]) -> None:
    verdict = check(spans, contract(**ENFORCED))
    assert [
        v.detail for r in verdict.rules if r.label == "tools.enforced" for v in r.violations
    ] == expected


# ---------------------------------------------------------------------------------------------
# §4.10 retrySafe, and the §8 charge_card example


def payments(key: bool) -> Contract:
    write: dict[str, Any] = {"tool": "charge_card"}
    if key:
        write["idempotencyKey"] = "/idempotency_key"
    return contract(retries={"reads": ["lookup_order"], "writes": [write]})


def charge(span_id: str, status: str | None = None, **args: Any) -> Span:
    return tool(span_id, "charge_card", args=args, status=status)


def test_charge_card_example() -> None:
    spans = [
        charge("c1", "error", amount=1, idempotency_key="k"),
        charge("c2", idempotency_key="k", amount=1.0),
    ]
    assert check(spans, payments(key=True)).status == "pass"
    assert details(check(spans, payments(key=False))) == [
        "write charge_card was called 2 times with the same arguments (spans c1, c2) and declares no "
        "idempotency key, so it may have applied more than once",
        "write charge_card (span c1) errored and declares no idempotency key; its outcome is unknown, "
        "so a retry cannot be proven safe",
    ]


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        (
            [
                charge("c1", amount=1, idempotency_key="k1"),
                charge("c2", amount=1, idempotency_key="k2"),
                charge("c3", amount=1),
            ],
            [
                "write charge_card was called 3 times with the same arguments (spans c1, c2, c3); span c3 has "
                "no idempotency key at /idempotency_key, so it may have applied more than once",
                "write charge_card was called 3 times with the same arguments (spans c1, c2, c3) under 2 "
                "different idempotency keys, so the target cannot tell they are one operation",
            ],
        ),
        (
            [
                charge("c1", amount=1, idempotency_key=42),
                charge("c2", amount=1, idempotency_key="42"),
            ],
            [],
        ),
        (
            [charge("c1", "error", amount=1)],
            [
                "write charge_card (span c1) errored and has no idempotency key at /idempotency_key; its "
                "outcome is unknown, so a retry cannot be proven safe"
            ],
        ),
        (
            [charge("c1", "error", amount=1, idempotency_key="")],
            [
                "write charge_card (span c1) errored and has no idempotency key at /idempotency_key; its "
                "outcome is unknown, so a retry cannot be proven safe"
            ],
        ),
        # reads are skipped entirely, errors included
        (
            [
                tool("r1", "lookup_order", args={}, status="error"),
                tool("r2", "lookup_order", args={}),
            ],
            [],
        ),
        (
            [
                *(
                    tool(f"s{i}", "x", args={"a": 1, "b": 2} if i % 2 else {"b": 2, "a": 1.0})
                    for i in range(8)
                )
            ],
            [
                "x was called 8 times with the same arguments (spans s0, s1, s2, s3, s4, s5 and 2 more) and "
                "its side effect is not declared, so the repeat is not proven safe"
            ],
        ),
        ([tool("a", "x", args={"n": 42.5}), tool("b", "x", args={"n": "42.50"})], []),
        (
            [tool(None, None), tool("u1", "y"), tool("u2", "y", args={"a": 2})],
            [
                "span #0 has no tool name, so whether it repeats a call is unknown",
                "y was called 2 times and span u1 has no captured arguments, so whether a call repeats "
                "another is unknown",
            ],
        ),
        ([tool("u1", "y")], []),
    ],
)
def test_retry_safe(spans: list[Span], expected: list[str]) -> None:
    assert details(check(spans, payments(key=True))) == expected


# ---------------------------------------------------------------------------------------------
# §4.11 capture evidence


NO_CAPTURE = (
    "the trace records no tool calls and no offered tools, so tool capture cannot be confirmed"
)


def test_capture_evidence_errors_only_for_the_listed_keys() -> None:
    built = contract(
        tools={
            "required": ["R"],
            "forbidden": ["B"],
            "allowed": ["R"],
            "maxCalls": 1,
            "maxCallsPerTool": {"R": 1},
            "requiredOrder": ["R"],
            "arguments": [{"tool": "R", "pointer": "", "exists": True}],
        },
        retries={"reads": ["R"]},
        rules=[
            {"kind": "never", "label": "low never", "p": {"kind": "TOOL"}},
            {"kind": "atMost", "label": "low atMost", "p": {"kind": "TOOL"}, "max": 0},
            {"kind": "retrySafe", "label": "low retrySafe", "reads": ["R"]},
        ],
    )
    verdict = check([llm("l")], built)
    errored = [r.label for r in verdict.rules if r.status == "error"]
    assert errored == [
        "tools.forbidden[B]",
        "tools.allowed",
        "tools.maxCalls",
        "tools.maxCallsPerTool[R]",
        "retries",
    ]
    assert {r.error for r in verdict.rules if r.status == "error"} == {NO_CAPTURE}
    assert verdict.status == "error"
    offered = check([offering("l", [])], built)
    assert [r.label for r in offered.rules if r.status != "pass"] == [
        "tools.required[R]",
        "tools.requiredOrder[R]",
        "tools.arguments[0] R (whole value) exists",
    ]


# ---------------------------------------------------------------------------------------------
# §5 scope and alternatives


@pytest.mark.parametrize("count", [0, 2])
def test_scope_root_must_match_exactly_one_span(count: int) -> None:
    built = contract(
        scope={"root": {"kind": "agent"}},
        tools={"required": ["R"]},
        alternatives={
            "anyOf": [
                {"id": "a", "tools": {"required": ["x"]}},
                {"id": "b", "tools": {"required": ["y"]}},
            ]
        },
    )
    spans = [agent(f"a{i}") for i in range(count)] + [tool("t", "R")]
    verdict = check(spans, built)
    reason = f"scope root kind=AGENT matched {count} spans; exactly one is required"
    assert verdict.status == "error"
    assert outcome(verdict) == [
        (None, "tools.required[R]", "error", [(None, reason)]),
        ("a", "a/tools.required[x]", "error", [(None, reason)]),
        ("b", "b/tools.required[y]", "error", [(None, reason)]),
    ]


def test_scope_subject_is_the_root_and_its_descendants_in_array_order() -> None:
    spans = [
        tool("outside", "B"),
        Span(TRACE, "deep", "child", "execute_tool D", attributes={"gen_ai.tool.name": "D"}),
        agent("root"),
        Span(TRACE, "child", "root", "execute_tool C", attributes={"gen_ai.tool.name": "C"}),
    ]
    built = contract(
        scope={"root": {"kind": "AGENT"}},
        rules=[{"kind": "always", "label": "r", "p": {"kind": "TOOL"}}],
    )
    assert details(check(spans, built)) == ['span root ("agent root") fails always(kind=TOOL)']
    forbidden = contract(scope={"root": {"kind": "AGENT"}}, tools={"forbidden": ["B", "D"]})
    assert details(check(spans, forbidden)) == [
        'span deep ("execute_tool D") matches never(kind=TOOL,tool=D)'
    ]


PASS = {"kind": "eventually", "label": "P", "p": {"kind": "TOOL"}}
FAIL = {"kind": "eventually", "label": "F", "p": {"tool": "nothing"}}
ERROR = {"kind": "eventually", "label": "E", "p": {"name": {"$regex": "(a|aa)+$"}}}
SLOW = "a" * 60 + "b"  # a name ERROR's pattern cannot settle within the time limit


@pytest.mark.parametrize(
    ("base", "alternatives", "status", "statuses"),
    [
        ([PASS], [[FAIL], [ERROR]], "error", ["pass", "fail", "error"]),
        ([PASS], [[FAIL], [FAIL]], "fail", ["pass", "fail", "fail"]),
        ([PASS], [[FAIL], [PASS]], "pass", ["pass", "skipped", "pass"]),
        ([PASS], [[ERROR], [PASS]], "pass", ["pass", "skipped", "pass"]),
        ([FAIL], [[ERROR]], "fail", ["fail", "error"]),
        ([FAIL], [[PASS]], "fail", ["fail", "pass"]),
        ([ERROR], [[PASS]], "error", ["error", "pass"]),
        ([ERROR], [[FAIL]], "error", ["error", "fail"]),
        ([], [[FAIL], [PASS]], "pass", ["skipped", "pass"]),
        ([], [[FAIL], [FAIL]], "fail", ["fail", "fail"]),
        ([PASS, FAIL], [], "fail", ["pass", "fail"]),
    ],
)
def test_status_table(
    base: list[Any], alternatives: list[list[Any]], status: str, statuses: list[str]
) -> None:
    doc: dict[str, Any] = {"name": "x"}
    if base:
        doc["rules"] = base
    if alternatives:
        doc["alternatives"] = {
            "anyOf": [{"id": f"a{i}", "rules": rules} for i, rules in enumerate(alternatives)]
        }
    verdict = check([tool("t", "R"), span(None, SLOW)], compile_contract(doc))
    assert verdict.status == status
    assert [r.status for r in verdict.rules] == statuses
    if status == "pass":
        assert all(not r.violations for r in verdict.rules if r.status == "skipped")


# ---------------------------------------------------------------------------------------------
# §6 the verdict


@pytest.mark.parametrize(
    ("doc", "score", "notes"),
    [
        ({"rules": [PASS, FAIL]}, 0.5, "1/2 rules passed"),
        ({"rules": [PASS, FAIL, ERROR]}, 1 / 3, "1/3 rules passed; 1 could not be evaluated"),
        (
            {
                "rules": [PASS],
                "alternatives": {
                    "anyOf": [{"id": "a", "rules": [PASS]}, {"id": "b", "rules": [FAIL]}]
                },
            },
            1.0,
            "2/2 rules passed",
        ),
        (
            {
                "rules": [PASS],
                "alternatives": {
                    "anyOf": [{"id": "a", "rules": [FAIL]}, {"id": "b", "rules": [FAIL]}]
                },
            },
            0.5,
            "1/2 rules passed",
        ),
    ],
)
def test_score_and_notes(doc: dict[str, Any], score: float, notes: str) -> None:
    verdict = check([tool("t", "R"), span("s", SLOW)], compile_contract({"name": "x", **doc}))
    assert (verdict.score, verdict.notes) == (pytest.approx(score), notes)
    assert verdict.contract == "x" and verdict.trace_id == TRACE
    assert verdict.ok is (verdict.status == "pass")


def test_check_all_gives_one_verdict_each_and_refuses_an_empty_list() -> None:
    verdicts = check_all(
        [tool("t", "R")], [low("always", p={"kind": "TOOL"}), low("never", p={"kind": "TOOL"})]
    )
    assert [v.status for v in verdicts] == ["pass", "fail"]
    with pytest.raises(ValueError):
        check_all([tool("t", "R")], [])


# ---------------------------------------------------------------------------------------------
# §7.1 errors


def test_every_problem_is_reported_with_its_location() -> None:
    assert problems(
        {
            "name": "x",
            "tools": {"requird": ["Read"], "maxCalls": -1},
            "rules": [{"kind": "never", "label": "a", "p": {"kind": "tool"}}],
            "alternatives": {
                "anyOf": [
                    {"id": "a", "tools": {"required": [""]}},
                    {"id": "b", "tools": {"required": ["x"]}},
                ]
            },
        }
    ) == [
        "alternatives.anyOf[0].tools.required[0]: must be a non-empty string, not an empty string",
        'tools: unknown key "requird" — did you mean "required"? '
        f"(allowed: {', '.join(TOOLS_KEYS)})",
        "tools.maxCalls: must be an integer ≥ 0, not -1",
        'rules[0].p.kind: unknown value "tool" — did you mean "TOOL"? (allowed: AGENT, CHAIN, LLM, TOOL, '
        "EVALUATOR, RETRIEVER, EMBEDDING, RERANKER, GUARDRAIL, PROMPT, UNKNOWN)",
    ]


@pytest.mark.parametrize(
    ("word", "candidates", "suggestion"),
    [
        ("requird", ("required", "forbidden"), "required"),
        ("REQUIRED", ("required",), "required"),
        ("maxcalls", ("maxCalls", "maxCallsPerTool"), "maxCalls"),
        ("ab", ("ax", "ay"), "ax"),  # ties go to the first candidate
        ("abcd", ("xycd", "abxy"), "xycd"),
        ("abcde", ("xyzde",), None),  # distance 3
        ("start_order", ("start-order", "finish-before-start", "all-occurrences"), "start-order"),
    ],
)
def test_did_you_mean(word: str, candidates: tuple[str, ...], suggestion: str | None) -> None:
    assert did_you_mean(word, candidates) == suggestion


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (
            {"name": "x", "tools": {"orderMode": "start_order", "requiredOrder": ["a", "b"]}},
            'tools.orderMode: unknown value "start_order" — did you mean "start-order"?',
        ),
        (
            {"name": "x", "run": {"allowedStatuses": ["complete"]}},
            'run.allowedStatuses[0]: unknown value "complete" — did you mean "completed"?',
        ),
        ({"name": "x", "tool": {"required": ["a"]}}, 'unknown key "tool" — did you mean "tools"?'),
    ],
)
def test_unknown_enum_values_name_the_closest_word(doc: dict[str, Any], expected: str) -> None:
    assert any(problem.startswith(expected) for problem in problems(doc))


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_file_problems_name_the_file(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"c{suffix}"
    path.write_text('{"name": "x", "tools": {"requird": ["Read"]}}')
    with pytest.raises(ContractError) as caught:
        compile_contract(path)
    assert caught.value.source == str(path)
    assert str(caught.value).startswith(
        f'{path}:1:15: tools: unknown key "requird" — did you mean "required"?'
    )
    with pytest.raises(ContractError) as again:
        compile_contract(str(path))
    assert str(again.value) == str(caught.value)


# ---------------------------------------------------------------------------------------------
# §7.2 lint


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (
            {"tools": {"required": ["A"], "forbidden": ["A"]}},
            [("error", "tools.required-and-forbidden", "tools.required[0]")],
        ),
        (
            {"tools": {"required": ["A"], "allowed": ["B"]}},
            [("error", "tools.required-not-allowed", "tools.required[0]")],
        ),
        (
            {"tools": {"required": ["A"], "maxCallsPerTool": {"A": 0}}},
            [("error", "tools.required-capped-at-zero", 'tools.maxCallsPerTool["A"]')],
        ),
        (
            {"tools": {"required": ["A"], "maxCalls": 0}},
            [("error", "tools.required-but-max-calls-zero", "tools.maxCalls")],
        ),
        (
            {"tools": {"required": ["A", "B"], "maxCalls": 1}},
            [("error", "tools.required-exceeds-max-calls", "tools.maxCalls")],
        ),
        (
            {"tools": {"allowed": ["A"], "forbidden": ["A"]}},
            [("error", "tools.allowed-and-forbidden", "tools.allowed[0]")],
        ),
        (
            {
                "tools": {
                    "forbidden": ["A"],
                    "arguments": [{"tool": "A", "pointer": "", "exists": True}],
                }
            },
            [("error", "tools.argument-on-forbidden", "tools.arguments[0].tool")],
        ),
        (
            {"run": {"requireCompleted": True, "allowedStatuses": ["failed"]}},
            [("error", "run.completed-not-allowed", "run.allowedStatuses")],
        ),
        (
            {
                "alternatives": {
                    "anyOf": [
                        {"id": "a", "tools": {"required": ["x"]}},
                        {"id": "a", "tools": {"required": ["y"]}},
                    ]
                }
            },
            [("error", "alternatives.duplicate-id", "alternatives.anyOf[1].id")],
        ),
        (
            {"tools": {"forbidden": ["A"], "maxCallsPerTool": {"A": 1}}},
            [("warning", "tools.cap-on-forbidden", 'tools.maxCallsPerTool["A"]')],
        ),
        (
            {"tools": {"allowed": ["B"], "maxCallsPerTool": {"A": 1}}},
            [("warning", "tools.cap-on-disallowed", 'tools.maxCallsPerTool["A"]')],
        ),
        (
            {"tools": {"arguments": [{"tool": "A", "pointer": "", "exists": True}]}},
            [("warning", "tools.argument-not-required", "tools.arguments[0].tool")],
        ),
        (
            {"tools": {"enforced": True}},
            [("warning", "tools.enforced-without-allowed", "tools.enforced")],
        ),
        (
            {"tools": {"forbidden": ["A"]}, "retries": {"reads": ["A"]}},
            [("warning", "retries.forbidden-tool", "retries.reads[0]")],
        ),
        (
            {"tools": {"requiredOrder": ["A", "B"]}},
            [("warning", "tools.order-default-mode", "tools.requiredOrder")],
        ),
        ({"tools": {"requiredOrder": ["A"]}}, []),
        ({"tools": {"requiredOrder": ["A", "B"], "orderMode": "start-order"}}, []),
        (
            {"run": {"requireCompleted": True, "allowedStatuses": ["completed", "failed"]}},
            [("warning", "run.completed-beside-other-statuses", "run.allowedStatuses")],
        ),
        (
            {"llm": {"maxCalls": 0, "maxTotalTokens": 5}},
            [("warning", "llm.max-calls-zero-with-limits", "llm.maxCalls")],
        ),
        (
            {"llm": {"maxCalls": 0, "allowedModels": ["m"]}},
            [("warning", "llm.max-calls-zero-with-limits", "llm.maxCalls")],
        ),
        (
            {"alternatives": {"anyOf": [{"id": "a", "tools": {"required": ["x"]}}]}},
            [("warning", "alternatives.single", "alternatives.anyOf")],
        ),
    ],
)
def test_lint_findings(doc: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    findings = lint_contract({"name": "x", **doc})
    assert all(isinstance(f, LintFinding) and f.message for f in findings)
    assert [(f.level, f.code, f.path) for f in findings] == expected


def test_lint_refuses_a_malformed_contract() -> None:
    with pytest.raises(ContractError):
        lint_contract({"name": "x", "tools": {"requird": ["a"]}})


# ---------------------------------------------------------------------------------------------
# §7.3 explain


def test_explain_layout() -> None:
    """One line per compiled rule; an alternative's rules are labelled `<id>/<label>` (§2.1)."""
    built = compile_contract(
        {
            "name": "refund-desk",
            "description": "Answer refund questions",
            "scope": {"root": {"kind": "agent"}},
            "run": {
                "requireCompleted": True,
                "allowedStatuses": ["completed"],
                "maxDurationMs": 100,
            },
            "tools": {
                "forbidden": ["Bash"],
                "requiredOrder": ["A", "B"],
                "orderMode": "finish-before-start",
                "maxCalls": 3,
            },
            "llm": {"maxTotalTokens": 10},
            "rules": [
                {"kind": "always", "label": "all", "p": {"kind": "TOOL"}},
                {"kind": "eventually", "label": "some", "p": {"kind": "LLM"}},
                {"kind": "neverUnless", "label": "nu", "p": {"tool": "W"}, "prior": {"tool": "R"}},
            ],
            "alternatives": {
                "anyOf": [
                    {"id": "cache", "tools": {"required": ["c"]}},
                    {"id": "live", "tools": {"required": ["l"]}},
                ]
            },
        }
    )
    lines = explain_contract(built).splitlines()
    assert lines[0] == 'Contract "refund-desk" — Answer refund questions'
    assert "kind=AGENT" in lines[1]
    assert lines[2:] == [
        "Every rule must pass:",
        "  - run: the run completed with an end time recorded; run status is one of completed; the run takes at most 100 ms",
        "  - tools.forbidden[Bash]: no span matches kind=TOOL,tool=Bash",
        "  - tools.maxCalls: at most 3 span(s) match kind=TOOL",
        "  - tools.requiredOrder[A->B]: kind=TOOL,tool=A and kind=TOOL,tool=B both occur, and the first comes before the second (finish-before-start)",
        "  - llm.maxTotalTokens: spans matching kind=LLM use at most 10 tokens in total",
        "  - all: every span matches kind=TOOL",
        "  - some: some span matches kind=LLM",
        "  - nu: every tool=W has an earlier tool=R (start-order)",
        "And at least one alternative must pass completely:",
        "  - cache/tools.required[c]: some span matches kind=TOOL,tool=c",
        "  - live/tools.required[l]: some span matches kind=TOOL,tool=l",
    ]


# ---------------------------------------------------------------------------------------------
# §8 examples not covered above


def test_cache_token_examples() -> None:
    openai = llm(
        "o", input_tokens=100, output_tokens=7, **{"gen_ai.usage.cache_read.input_tokens": 40}
    )
    anthropic = Span(
        TRACE,
        "a",
        None,
        "chat",
        attributes={
            "gen_ai.operation.name": "chat",
            "llm.token_count.prompt": 10,
            "llm.token_count.prompt_cache_write": 19004,
            "llm.token_count.completion": 7,
        },
    )
    assert (openai.tokens.total, anthropic.tokens.total) == (107, 19021)
    assert details(check([openai, anthropic], contract(llm={"maxTotalTokens": 19127}))) == [
        "19128 tokens across 2 span(s) matching kind=LLM, over the limit of 19127"
    ]


def test_a_typo_is_refused_never_checked_as_absent() -> None:
    with pytest.raises(ContractError, match='did you mean "required"'):
        compile_contract('{"name": "x", "tools": {"requird": ["Read"]}}')


# ---------------------------------------------------------------------------------------------
# Public API: the builder makes the compiler's rule objects


def test_builder_produces_the_compilers_rules() -> None:
    built = (
        Contract.builder("b")
        .tools(required=["Read"], forbidden=["Bash"], required_order=["A"])
        .never(tool="Bash")
        .precedes(
            a={"kind": "TOOL", "tool": "A"},
            b={"kind": "TOOL", "tool": "B"},
            order="finish-before-start",
            label="p",
        )
        .build()
    )
    compiled = compile_contract(
        {
            "name": "b",
            "tools": {"required": ["Read"], "forbidden": ["Bash"], "requiredOrder": ["A"]},
            "rules": [
                {"kind": "never", "label": "never(tool=Bash)", "p": {"tool": "Bash"}},
                {
                    "kind": "precedes",
                    "label": "p",
                    "a": {"kind": "TOOL", "tool": "A"},
                    "b": {"kind": "TOOL", "tool": "B"},
                    "order": "finish-before-start",
                },
            ],
        }
    )
    assert built.rules == compiled.rules
