"""Lint findings (contracts.md §7.2): each code, its level, path and message."""

from __future__ import annotations

from typing import Any

import pytest

from tracecheck.contract import LintFinding, lint_contract
from tracecheck.contract.lint import CODES
from tracecheck.errors import ContractError


def findings(**keys: Any) -> list[tuple[str, str, str, str]]:
    return [(f.level, f.code, f.path, f.message) for f in lint_contract({"name": "x", **keys})]


CASES: list[tuple[dict[str, Any], list[tuple[str, str, str, str]]]] = [
    (
        {"tools": {"required": ["Bash"], "forbidden": ["Bash"]}},
        [
            (
                "error",
                "tools.required-and-forbidden",
                "tools.required[0]",
                '"Bash" is both required and forbidden',
            )
        ],
    ),
    (
        {
            "tools": {
                "requiredOrder": ["Read", "Bash"],
                "orderMode": "start-order",
                "forbidden": ["Bash"],
            }
        },
        [
            (
                "error",
                "tools.required-and-forbidden",
                "tools.requiredOrder[1]",
                '"Bash" is both required and forbidden',
            )
        ],
    ),
    (
        {"tools": {"required": ["Read", "Grep"], "allowed": ["Read"]}},
        [
            (
                "error",
                "tools.required-not-allowed",
                "tools.required[1]",
                '"Grep" is required but not in tools.allowed',
            )
        ],
    ),
    (
        {"tools": {"required": ["Read"], "maxCallsPerTool": {"Read": 0}}},
        [
            (
                "error",
                "tools.required-capped-at-zero",
                'tools.maxCallsPerTool["Read"]',
                '"Read" is required but capped at 0 calls',
            )
        ],
    ),
    (
        {"tools": {"required": ["Read"], "maxCalls": 0}},
        [
            (
                "error",
                "tools.required-but-max-calls-zero",
                "tools.maxCalls",
                "tools.maxCalls is 0 but 1 tool(s) are required",
            )
        ],
    ),
    (
        {"tools": {"required": ["A", "B", "C"], "maxCalls": 2}},
        [
            (
                "error",
                "tools.required-exceeds-max-calls",
                "tools.maxCalls",
                "3 distinct tools are required but tools.maxCalls is 2",
            )
        ],
    ),
    (
        {"tools": {"allowed": ["Read", "Bash"], "forbidden": ["Bash"]}},
        [
            (
                "error",
                "tools.allowed-and-forbidden",
                "tools.allowed[1]",
                '"Bash" is both allowed and forbidden',
            )
        ],
    ),
    (
        {
            "tools": {
                "forbidden": ["Bash"],
                "arguments": [{"tool": "Bash", "pointer": "/cmd", "exists": True}],
            }
        },
        [
            (
                "error",
                "tools.argument-on-forbidden",
                "tools.arguments[0].tool",
                'checks the arguments of "Bash", which is forbidden',
            )
        ],
    ),
    (
        {"run": {"requireCompleted": True, "allowedStatuses": ["failed"]}},
        [
            (
                "error",
                "run.completed-not-allowed",
                "run.allowedStatuses",
                "run.requireCompleted is true but run.allowedStatuses excludes completed",
            )
        ],
    ),
    (
        {
            "alternatives": {
                "anyOf": [
                    {"id": "a", "tools": {"required": ["R"]}},
                    {"id": "a", "tools": {"required": ["S"]}},
                ]
            }
        },
        [
            (
                "error",
                "alternatives.duplicate-id",
                "alternatives.anyOf[1].id",
                'duplicate alternative id "a", already at alternatives.anyOf[0].id',
            )
        ],
    ),
    (
        {"tools": {"forbidden": ["Bash"], "maxCallsPerTool": {"Bash": 1}}},
        [
            (
                "warning",
                "tools.cap-on-forbidden",
                'tools.maxCallsPerTool["Bash"]',
                'caps "Bash" at 1 call(s), but it is forbidden',
            )
        ],
    ),
    (
        {"tools": {"allowed": ["Read"], "maxCallsPerTool": {"Grep": 2}}},
        [
            (
                "warning",
                "tools.cap-on-disallowed",
                'tools.maxCallsPerTool["Grep"]',
                'caps "Grep" at 2 call(s), but it is not in tools.allowed',
            )
        ],
    ),
    (
        {"tools": {"arguments": [{"tool": "Read", "pointer": "/p", "type": "string"}]}},
        [
            (
                "warning",
                "tools.argument-not-required",
                "tools.arguments[0].tool",
                'checks the arguments of "Read", which is not required: a run that never calls it fails for missing evidence',
            )
        ],
    ),
    (
        {"tools": {"enforced": True}},
        [
            (
                "warning",
                "tools.enforced-without-allowed",
                "tools.enforced",
                "enforced without tools.allowed checks only that every call was offered, not which tools were offered",
            )
        ],
    ),
    (
        {
            "tools": {"forbidden": ["a", "w"]},
            "retries": {"reads": ["a"], "writes": [{"tool": "w"}]},
        },
        [
            (
                "warning",
                "retries.forbidden-tool",
                "retries.reads[0]",
                'declares a retry rule for "a", which is forbidden',
            ),
            (
                "warning",
                "retries.forbidden-tool",
                "retries.writes[0].tool",
                'declares a retry rule for "w", which is forbidden',
            ),
        ],
    ),
    (
        {"tools": {"requiredOrder": ["retrieve", "answer"]}},
        [
            (
                "warning",
                "tools.order-default-mode",
                "tools.requiredOrder",
                "orders tools without orderMode: the default start-order passes overlapping calls; set orderMode (finish-before-start to require each call to finish first)",
            )
        ],
    ),
    (
        {"run": {"requireCompleted": True, "allowedStatuses": ["completed", "failed"]}},
        [
            (
                "warning",
                "run.completed-beside-other-statuses",
                "run.allowedStatuses",
                "also allows failed, but run.requireCompleted accepts only completed",
            )
        ],
    ),
    (
        {"llm": {"maxCalls": 0, "maxTotalTokens": 10, "allowedModels": ["m"]}},
        [
            (
                "warning",
                "llm.max-calls-zero-with-limits",
                "llm.maxCalls",
                "is 0, so no model may be called, yet llm.maxTotalTokens and llm.allowedModels limit model calls",
            )
        ],
    ),
    (
        {"alternatives": {"anyOf": [{"id": "a", "tools": {"required": ["R"]}}]}},
        [
            (
                "warning",
                "alternatives.single",
                "alternatives.anyOf",
                "there is a single alternative, so it is simply required: move its rules into the base contract, or add the other path",
            )
        ],
    ),
    (
        {
            "trajectory": {
                "mode": "exact",
                "calls": ["Grep", {"parallel": ["Read", "Glob"]}],
                "ignore": ["Glob"],
            }
        },
        [
            (
                "error",
                "trajectory.ignored-tool",
                "trajectory.calls[1].parallel[1]",
                '"Glob" is expected but also ignored, so no call can match it',
            )
        ],
    ),
    (
        {"tools": {"forbidden": ["Bash"]}, "trajectory": {"mode": "in-order", "calls": ["Bash"]}},
        [
            (
                "error",
                "trajectory.forbidden-tool",
                "trajectory.calls[0]",
                '"Bash" is expected in the trajectory but forbidden by tools.forbidden',
            )
        ],
    ),
    (
        {"tools": {"forbidden": ["Bash"]}, "capture": "lenient"},
        [
            (
                "warning",
                "capture.lenient",
                "capture",
                "lenient capture judges rules about tools and models on traces that give reason to doubt every call was recorded, so a forbidden call no convention recognised passes with only a note",
            )
        ],
    ),
    # Argument matchers and preconditions (issue 28).
    (
        {
            "tools": {
                "required": ["pay"],
                "arguments": [
                    {
                        "tool": "pay",
                        "pointer": "/n",
                        "range": {"min": 5, "max": 5, "minExclusive": True},
                    }
                ],
            }
        },
        [
            (
                "error",
                "tools.argument-empty-range",
                "tools.arguments[0].range",
                "admits no number ((5, 5]), so every call fails",
            )
        ],
    ),
    (
        {
            "tools": {
                "required": ["pay"],
                "forbidden": ["look"],
                "arguments": [
                    {"tool": "pay", "pointer": "/id", "sameAs": {"tool": "look", "pointer": "/id"}}
                ],
            }
        },
        [
            (
                "error",
                "tools.same-as-forbidden",
                "tools.arguments[0].sameAs.tool",
                'takes the value from "look", which is forbidden, so every call fails',
            )
        ],
    ),
    (
        {"tools": {"required": ["pay"], "requires": [{"tool": "pay", "after": "pay"}]}},
        [
            (
                "error",
                "tools.requires-itself",
                "tools.requires[0].after",
                '"pay" must follow a successful call of itself, so its first call always fails',
            )
        ],
    ),
    (
        {
            "tools": {
                "required": ["pay"],
                "allowed": ["pay"],
                "requires": [{"tool": "pay", "after": "look"}],
            }
        },
        [
            (
                "error",
                "tools.requires-unreachable",
                "tools.requires[0].after",
                '"pay" is required but may run only after "look", which is forbidden or not allowed',
            )
        ],
    ),
    (
        {
            "tools": {
                "required": ["pay"],
                "arguments": [{"tool": "pay", "pointer": "", "schema": {}}],
            }
        },
        [
            (
                "warning",
                "tools.argument-schema-vacuous",
                "tools.arguments[0].schema",
                "accepts every value, so it checks only that the argument exists",
            )
        ],
    ),
]


# Status, timing and loops (issue 28).
CASES += [
    (
        {"tools": {"required": ["a", "b"]}, "steps": {"TOOL": {"max": 1}}},
        [
            (
                "error",
                "steps.required-exceeds-max",
                'steps["TOOL"].max',
                "steps[TOOL].max is 1 but 2 distinct tool(s) are required",
            )
        ],
    ),
    (
        {"llm": {"maxCalls": 2}, "steps": {"LLM": {"min": 3}}},
        [
            (
                "error",
                "steps.min-exceeds-max-calls",
                'steps["LLM"].min',
                "steps[LLM].min is 3 but llm.maxCalls is 2",
            )
        ],
    ),
    (
        {"tools": {"forbidden": ["z"], "durations": {"z": {"p95": 10}}}},
        [
            (
                "warning",
                "tools.duration-on-forbidden",
                'tools.durations["z"].p95',
                'times the calls of "z", which is forbidden',
            )
        ],
    ),
    (
        {"errors": {"LLM": {"maxPercent": 100}}},
        [
            (
                "warning",
                "errors.percent-allows-all",
                'errors["LLM"].maxPercent',
                "maxPercent 100 lets every LLM span fail, so it checks nothing",
            )
        ],
    ),
]


# llm.maxCostUsd and prices (issue 28).
CASES += [
    (
        {"llm": {"maxCostUsd": 0.5}},
        [
            (
                "warning",
                "llm.cost-without-prices",
                "llm.maxCostUsd",
                "has no prices to use: the contract gives none, so the rule could not be "
                "evaluated unless the check is given a table (--prices FILE)",
            )
        ],
    ),
    (
        {
            "llm": {"maxCostUsd": 0.5, "allowedModels": ["gpt-4.1-mini-2025-04-14", "o3"]},
            "prices": {"gpt-4.1-mini*": {"input": 0.4, "output": 1.6}},
        },
        [
            (
                "warning",
                "llm.allowed-model-unpriced",
                "llm.allowedModels[1]",
                '"o3" is allowed but has no price in prices: a run that calls it makes '
                "llm.maxCostUsd could not be evaluated",
            )
        ],
    ),
    (
        {"tools": {"required": ["a"]}, "prices": {"m": {"input": 1, "output": 2}}},
        [
            (
                "warning",
                "prices.unused",
                "prices",
                "prices are given, but no llm.maxCostUsd uses them",
            )
        ],
    ),
]


@pytest.mark.parametrize(
    ("keys", "expected"), CASES, ids=[c[1][0][1] + f"-{i}" for i, c in enumerate(CASES)]
)
def test_finding(keys: dict[str, Any], expected: list[tuple[str, str, str, str]]) -> None:
    assert findings(**keys) == expected


def test_every_code_is_tested() -> None:
    assert {f[1] for _, expected in CASES for f in expected} == set(CODES)


def test_clean_contract_has_no_findings() -> None:
    assert (
        findings(
            tools={
                "required": ["Read"],
                "allowed": ["Read", "Grep"],
                "forbidden": ["Bash"],
                "enforced": True,
                "requiredOrder": ["Read", "Grep"],
                "orderMode": "finish-before-start",
            },
            run={"requireCompleted": True},
        )
        == []
    )


def test_findings_in_alternatives_carry_their_path_and_errors_come_first() -> None:
    doc = {
        "name": "x",
        "tools": {"requiredOrder": ["a", "b"], "forbidden": ["c"], "required": ["c"]},
        "alternatives": {
            "anyOf": [
                {"id": "p", "tools": {"required": ["Bash"], "forbidden": ["Bash"]}},
                {"id": "q", "tools": {"enforced": True}},
            ]
        },
    }
    assert [(f.level, f.code, f.path) for f in lint_contract(doc)] == [
        ("error", "tools.required-and-forbidden", "tools.required[0]"),
        ("warning", "tools.order-default-mode", "tools.requiredOrder"),
        ("error", "tools.required-and-forbidden", "alternatives.anyOf[0].tools.required[0]"),
        ("warning", "tools.enforced-without-allowed", "alternatives.anyOf[1].tools.enforced"),
    ]


def test_malformed_contract_raises() -> None:
    with pytest.raises(ContractError):
        lint_contract({"name": "x", "tools": {"requird": ["a"]}})
    with pytest.raises(ContractError):
        lint_contract({"name": "x"})  # compile refuses an empty contract, so lint does too


def test_finding_is_a_frozen_value() -> None:
    finding = LintFinding("warning", "tools.order-default-mode", "tools.requiredOrder", "m")
    assert str(finding) == "warning: tools.requiredOrder: m [tools.order-default-mode]"
    with pytest.raises(AttributeError):
        finding.level = "error"  # type: ignore[misc]
