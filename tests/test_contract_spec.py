"""Strict validation of contract documents (contracts.md §2, §3, §7.1): exact problem strings."""

from __future__ import annotations

from typing import Any

import pytest

from tracecheck.contract import predicate_spec, section_spec
from tracecheck.contract.model import compile_contract
from tracecheck.contract.spec import TOP_KEYS, did_you_mean
from tracecheck.errors import ContractError

KINDS = (
    "AGENT, CHAIN, LLM, TOOL, EVALUATOR, RETRIEVER, EMBEDDING, RERANKER, GUARDRAIL, PROMPT, UNKNOWN"
)
# The allowed keys as messages list them, in the order the code declares them.
TOP = ", ".join(TOP_KEYS)
TOOLS_KEYS = ", ".join(section_spec.TOOLS_KEYS)
PREDICATE_KEYS = ", ".join(predicate_spec.PREDICATE_KEYS)
REQUIRED = {"tools": {"required": ["Read"]}}


def problems(doc: Any) -> list[str]:
    with pytest.raises(ContractError) as info:
        compile_contract(doc)
    return [str(problem) for problem in info.value.problems]


def with_name(**keys: Any) -> dict[str, Any]:
    return {"name": "c", **keys}


CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    # top level
    ("not-an-object", [], ["a contract must be an object, not an array"]),  # type: ignore[list-item]
    (
        "missing-name",
        REQUIRED,
        ['missing required key "name"'],
    ),
    ("blank-name", {"name": "  ", **REQUIRED}, ["name: must not be blank"]),
    ("name-type", {"name": 3, **REQUIRED}, ["name: must be a non-blank string, not 3"]),
    (
        "description-type",
        with_name(description=None, **REQUIRED),
        ["description: must be a string, not null"],
    ),
    (
        "unknown-top-key",
        with_name(tool={"required": ["Read"]}, **REQUIRED),
        [f'unknown key "tool" — did you mean "tools"? (allowed: {TOP})'],
    ),
    (
        "empty",
        with_name(),
        ["the contract has no rules and no alternatives: an empty contract would vacuously pass"],
    ),
    # run
    (
        "run-empty",
        with_name(run={}),
        ["run: run rule checks nothing: give requireCompleted, allowedStatuses or maxDurationMs"],
    ),
    (
        "run-types",
        with_name(run={"requireCompleted": 1, "allowedStatuses": [], "maxDurationMs": "5"}),
        [
            "run.requireCompleted: must be true or false, not 1",
            "run.allowedStatuses: must not be empty",
            "run.maxDurationMs: must be a number > 0, not a string",
        ],
    ),
    (
        "run-statuses",
        with_name(run={"allowedStatuses": ["complete", "failed", "failed", 2]}),
        [
            'run.allowedStatuses[0]: unknown value "complete" — did you mean "completed"? '
            "(allowed: running, completed, failed, aborted)",
            'run.allowedStatuses[2]: duplicate "failed", already at run.allowedStatuses[1]',
            "run.allowedStatuses[3]: must be one of running, completed, failed, aborted, not 2",
        ],
    ),
    (
        "run-duration-zero",
        with_name(run={"maxDurationMs": 0}),
        ["run.maxDurationMs: must be a number > 0, not 0"],
    ),
    (
        "run-duration-bool",
        with_name(run={"maxDurationMs": True}),
        ["run.maxDurationMs: must be a number > 0, not true"],
    ),
    # tools
    (
        "tools-typo",
        with_name(tools={"requird": ["Read"]}),
        [f'tools: unknown key "requird" — did you mean "required"? (allowed: {TOOLS_KEYS})'],
    ),
    ("tools-type", with_name(tools=["Read"]), ["tools: must be an object, not an array"]),
    ("required-empty", with_name(tools={"required": []}), ["tools.required: must not be empty"]),
    (
        "required-type",
        with_name(tools={"required": "Read"}),
        ["tools.required: must be a non-empty array of distinct names, not a string"],
    ),
    (
        "required-items",
        with_name(tools={"required": ["Read", "", 3, "Read"]}),
        [
            "tools.required[1]: must be a non-empty string, not an empty string",
            "tools.required[2]: must be a non-empty string, not 3",
            'tools.required[3]: duplicate "Read", already at tools.required[0]',
        ],
    ),
    ("forbidden-empty", with_name(tools={"forbidden": []}), ["tools.forbidden: must not be empty"]),
    (
        "allowed-null",
        with_name(tools={"allowed": None}),
        ["tools.allowed: must be a non-empty array of distinct names, not null"],
    ),
    (
        "maxCalls-negative",
        with_name(tools={"maxCalls": -1}),
        ["tools.maxCalls: must be an integer ≥ 0, not -1"],
    ),
    (
        "maxCalls-float",
        with_name(tools={"maxCalls": 1.5}),
        ["tools.maxCalls: must be an integer ≥ 0, not 1.5"],
    ),
    (
        "maxCalls-bool",
        with_name(tools={"maxCalls": True}),
        ["tools.maxCalls: must be an integer ≥ 0, not true"],
    ),
    (
        "maxCalls-string",
        with_name(tools={"maxCalls": "1"}),
        ["tools.maxCalls: must be an integer ≥ 0, not a string"],
    ),
    (
        "maxCallsPerTool",
        with_name(tools={"maxCallsPerTool": {"Read": 1.5, "": 2}}),
        [
            'tools.maxCallsPerTool["Read"]: must be an integer ≥ 0, not 1.5',
            'tools.maxCallsPerTool: key "" must be a non-empty tool name',
        ],
    ),
    (
        "maxCallsPerTool-type",
        with_name(tools={"maxCallsPerTool": [1]}),
        ["tools.maxCallsPerTool: must be an object of tool name → integer ≥ 0, not an array"],
    ),
    (
        "requiredOrder-dup",
        with_name(tools={"requiredOrder": ["A", "A"]}),
        ['tools.requiredOrder[1]: duplicate "A", already at tools.requiredOrder[0]'],
    ),
    (
        "orderMode-alone",
        with_name(tools={"required": ["A"], "orderMode": "start-order"}),
        ["tools.orderMode: is allowed only together with requiredOrder"],
    ),
    (
        "orderMode-typo",
        with_name(tools={"requiredOrder": ["A", "B"], "orderMode": "finish_before_start"}),
        [
            'tools.orderMode: unknown value "finish_before_start" — did you mean '
            '"finish-before-start"? (allowed: start-order, finish-before-start, all-occurrences)'
        ],
    ),
    (
        "orderMode-type",
        with_name(tools={"requiredOrder": ["A", "B"], "orderMode": 3}),
        [
            "tools.orderMode: must be one of start-order, finish-before-start, all-occurrences, not 3"
        ],
    ),
    (
        "enforced-false",
        with_name(tools={"enforced": False}),
        ["tools.enforced: must be true, not false"],
    ),
    (
        "enforced-string",
        with_name(tools={"enforced": "true"}),
        ["tools.enforced: must be true, not a string"],
    ),
    ("arguments-empty", with_name(tools={"arguments": []}), ["tools.arguments: must not be empty"]),
    (
        "arguments-shape",
        with_name(
            tools={
                "arguments": [
                    {"tool": "Read", "pointer": "file_path"},
                    {"tool": "Read", "pointer": "/a~2", "equals": 1, "type": "str"},
                    {"tool": "", "pointer": "", "exists": False, "occurrence": "every"},
                    {"tool": "R", "pointer": "/x", "oneOf": []},
                    {"tool": "R", "pointer": "/x", "type": "integer"},
                    {"pointer": 3, "exists": True, "equal": 1},
                    "Read",
                ]
            }
        ),
        [
            'tools.arguments[0].pointer: "file_path" is not a JSON Pointer: it must be "" or start with "/"',
            "tools.arguments[0]: needs one check: exists, equals, oneOf, type, regex, range, contains, "
            "partial, schema or sameAs",
            'tools.arguments[1].pointer: "/a~2" is not a JSON Pointer: "~" must be followed by 0 or 1',
            "tools.arguments[1]: has 2 checks (equals, type); give exactly one",
            "tools.arguments[2].tool: must be a non-empty string, not an empty string",
            'tools.arguments[2].occurrence: unknown value "every" (allowed: first, last, any, all)',
            "tools.arguments[2].exists: must be true, not false",
            "tools.arguments[3].oneOf: must not be empty",
            'tools.arguments[4].type: unknown value "integer" (allowed: string, number, boolean, '
            "object, array, null)",
            'tools.arguments[5]: unknown key "equal" — did you mean "equals"? (allowed: tool, '
            "pointer, occurrence, exists, equals, oneOf, type, regex, range, contains, partial, "
            "schema, sameAs, ignore)",
            'tools.arguments[5]: missing required key "tool"',
            'tools.arguments[5].pointer: must be a JSON Pointer ("" or starting with "/"), not 3',
            "tools.arguments[6]: must be an object, not a string",
        ],
    ),
    # retries
    (
        "retries-empty",
        with_name(retries={}),
        ["retries: retries rule checks nothing: give reads or writes"],
    ),
    (
        "retries-writes",
        with_name(
            retries={
                "reads": ["a"],
                "writes": [
                    {"tool": "a"},
                    {"tool": "b", "idempotencyKey": ""},
                    {"tool": "b"},
                    {"tol": "c"},
                ],
            }
        ),
        [
            'retries.writes[0].tool: "a" is also in reads; a tool is either a read or a write',
            'retries.writes[1].idempotencyKey: must point inside the arguments, not be "" (the whole value)',
            'retries.writes[2].tool: duplicate "b", already at retries.writes[1].tool',
            'retries.writes[3]: unknown key "tol" — did you mean "tool"? (allowed: tool, idempotencyKey)',
            'retries.writes[3]: missing required key "tool"',
        ],
    ),
    (
        "retries-key-pointer",
        with_name(retries={"writes": [{"tool": "w", "idempotencyKey": "key"}]}),
        [
            'retries.writes[0].idempotencyKey: "key" is not a JSON Pointer: it must be "" or start with "/"'
        ],
    ),
    # llm
    (
        "llm",
        with_name(
            llm={"maxCalls": "3", "maxTotalTokens": 1e3 + 0.5, "allowedModels": [], "maxTokens": 1}
        ),
        [
            'llm: unknown key "maxTokens" (allowed: maxCalls, maxTotalTokens, allowedModels, '
            "maxCostUsd)",
            "llm.maxCalls: must be an integer ≥ 0, not a string",
            "llm.maxTotalTokens: must be an integer ≥ 0, not 1000.5",
            "llm.allowedModels: must not be empty",
        ],
    ),
    # scope and alternatives
    ("scope-missing-root", with_name(scope={}, **REQUIRED), ['scope: missing required key "root"']),
    (
        "scope-kind-typo",
        with_name(scope={"root": {"kind": "agnt"}}, **REQUIRED),
        [f'scope.root.kind: unknown value "agnt" — did you mean "AGENT"? (allowed: {KINDS})'],
    ),
    (
        "scope-nested-kind-not-upper-cased",
        with_name(scope={"root": {"kind": "agent", "not": {"kind": "tool"}}}, **REQUIRED),
        [f'scope.root.not.kind: unknown value "tool" — did you mean "TOOL"? (allowed: {KINDS})'],
    ),
    (
        "alternatives-empty",
        with_name(alternatives={"anyOf": []}),
        ["alternatives.anyOf: must not be empty"],
    ),
    (
        "alternatives-typo",
        with_name(alternatives={"anyof": [{"id": "a", **REQUIRED}]}),
        [
            'alternatives: unknown key "anyof" — did you mean "anyOf"? (allowed: anyOf)',
            'alternatives: missing required key "anyOf"',
        ],
    ),
    (
        "alternatives-entries",
        with_name(
            alternatives={
                "anyOf": [
                    {"id": "a"},
                    {"id": "b", "tools": {"required": ["x"], "forbiden": ["y"]}},
                    {"tools": {"required": ["x"]}},
                    {"id": "", **REQUIRED},
                    3,
                ]
            }
        ),
        [
            'alternatives.anyOf[1].tools: unknown key "forbiden" — did you mean "forbidden"? '
            f"(allowed: {TOOLS_KEYS})",
            'alternatives.anyOf[2]: missing required key "id"',
            "alternatives.anyOf[3].id: must not be blank",
            "alternatives.anyOf[4]: must be an object, not 3",
            'alternatives.anyOf[0]: alternative "a" has no rules: every alternative needs at least one',
        ],
    ),
    (
        "alternatives-deep-path",
        with_name(
            alternatives={
                "anyOf": [{"id": "a", **REQUIRED}, {"id": "b", "tools": {"required": [1]}}]
            }
        ),
        ["alternatives.anyOf[1].tools.required[0]: must be a non-empty string, not 1"],
    ),
    (
        "alternative-ids",
        with_name(alternatives={"anyOf": [{"id": "a", **REQUIRED}, {"id": "a", **REQUIRED}]}),
        [
            'alternatives.anyOf[1].id: duplicate alternative id "a", already at alternatives.anyOf[0].id'
        ],
    ),
    # rules and predicates
    ("rules-empty", with_name(rules=[]), ["rules: must not be empty"]),
    (
        "rule-kind-label",
        with_name(
            rules=[
                {"label": "u"},
                {"kind": "nevr", "p": {"tool": "a"}},
                {"kind": "never", "label": "", "p": {"tool": "a"}},
            ]
        ),
        [
            'rules[0]: missing required key "kind"',
            'rules[1]: missing required key "label"',
            'rules[1].kind: unknown value "nevr" — did you mean "never"? (allowed: always, never, '
            "eventually, precedes, neverUnless, atMost, tokensAtMost, run, argument, toolsOffered, retrySafe)",
            "rules[2].label: must not be blank",
        ],
    ),
    (
        "rule-kind-lower-case",
        with_name(rules=[{"kind": "never", "label": "a", "p": {"kind": "tool"}}]),
        [f'rules[0].p.kind: unknown value "tool" — did you mean "TOOL"? (allowed: {KINDS})'],
    ),
    (
        "rule-unknown-key",
        with_name(
            rules=[{"kind": "never", "label": "a", "p": {"tool": "a"}, "prior": {"tool": "b"}}]
        ),
        ['rules[0]: unknown key "prior" (allowed: kind, label, p)'],
    ),
    (
        "predicate-shapes",
        with_name(
            rules=[
                {"kind": "always", "label": "a", "p": {}},
                {"kind": "always", "label": "b", "p": "tool"},
                {"kind": "always", "label": "c", "p": {"tol": "x"}},
                {"kind": "never", "label": "d", "p": {"attr": {}}},
                {"kind": "never", "label": "e", "p": {"attr": {"k": {"$regex": "a", "x": 1}}}},
                {"kind": "never", "label": "f", "p": {"attr": []}},
            ]
        ),
        [
            f"rules[0].p: must have at least one of {PREDICATE_KEYS}",
            "rules[1].p: must be an object (a predicate), not a string",
            f'rules[2].p: unknown key "tol" — did you mean "tool"? (allowed: {PREDICATE_KEYS})',
            f"rules[2].p: must have at least one of {PREDICATE_KEYS}",
            "rules[3].p.attr: must name at least one attribute",
            'rules[4].p.attr["k"]: unknown key "x" (allowed: $regex, flags)',
            "rules[5].p.attr: must be an object of attribute → expected value, not an array",
        ],
    ),
    (
        "matchers",
        with_name(
            rules=[
                {"kind": "never", "label": "a", "p": {"tool": {"$regex": "a", "flags": "iq"}}},
                {"kind": "never", "label": "b", "p": {"tool": {"$regex": "("}}},
                {"kind": "never", "label": "c", "p": {"name": {"$regex": "a", "oneOf": ["a"]}}},
                {"kind": "never", "label": "d", "p": {"tool": {"oneOf": [1]}}},
                {"kind": "never", "label": "e", "p": {"model": 3}},
                {"kind": "never", "label": "f", "p": {"model": {"oneOf": []}}},
                {"kind": "never", "label": "g", "p": {"model": {}}},
                {"kind": "never", "label": "h", "p": {"model": {"$regex": 1, "flags": 2}}},
            ]
        ),
        [
            "rules[0].p.tool.flags: unknown flag(s) q (allowed: i, m, s, x, u, g, y, d)",
            "rules[1].p.tool.$regex: is not a valid regular expression: missing ) at position 1",
            'rules[2].p.name: must have either "$regex" or "oneOf", not both',
            "rules[3].p.tool.oneOf[0]: must be a string, not 1",
            'rules[4].p.model: must be a string, {"$regex": …} or {"oneOf": […]}, not 3',
            "rules[5].p.model.oneOf: must not be empty",
            'rules[6].p.model: must have "$regex" or "oneOf"',
            "rules[7].p.model.$regex: must be a string, not 1",
            "rules[7].p.model.flags: must be a string, not 2",
        ],
    ),
    (
        "rule-fields",
        with_name(
            rules=[
                {"kind": "atMost", "label": "m", "p": {"kind": "TOOL"}, "max": 1.5},
                {"kind": "precedes", "label": "p", "a": {"tool": "A"}, "order": "x"},
                {
                    "kind": "argument",
                    "label": "g",
                    "p": {"tool": "A"},
                    "pointer": "/a",
                    "check": {"op": "equals"},
                },
                {
                    "kind": "argument",
                    "label": "h",
                    "p": {"tool": "A"},
                    "pointer": "/a",
                    "check": {"op": "exist"},
                },
                {
                    "kind": "argument",
                    "label": "i",
                    "p": {"tool": "A"},
                    "pointer": "/a",
                    "check": {"op": "exists", "value": 1},
                },
                {"kind": "run", "label": "r"},
                {"kind": "retrySafe", "label": "s"},
                {"kind": "toolsOffered", "label": "t", "declared": [""]},
                {"kind": "tokensAtMost", "label": "u", "p": {"kind": "LLM"}},
            ]
        ),
        [
            "rules[0].max: must be an integer ≥ 0, not 1.5",
            'rules[1]: missing required key "b"',
            'rules[1].order: unknown value "x" (allowed: start-order, finish-before-start, all-occurrences)',
            'rules[2].check: missing required key "value" for op "equals"',
            'rules[3].check.op: unknown value "exist" — did you mean "exists"? (allowed: exists, equals, oneOf, type)',
            'rules[4].check: key "value" does not apply to op "exists" (allowed: op)',
            "rules[5]: run rule checks nothing: give requireCompleted, allowedStatuses or maxDurationMs",
            "rules[6]: retrySafe rule checks nothing: give reads or writes",
            "rules[7].declared[0]: must be a non-empty string, not an empty string",
            'rules[8]: missing required key "max"',
        ],
    ),
    (
        "labels",
        with_name(
            tools={"allowed": ["a"]},
            rules=[
                {"kind": "never", "label": "tools.allowed", "p": {"tool": "a"}},
                {"kind": "never", "label": "x", "p": {"tool": "a"}},
                {"kind": "never", "label": "x", "p": {"tool": "b"}},
            ],
        ),
        [
            'rules[0].label: duplicate label "tools.allowed", already used by tools.allowed',
            'rules[2].label: duplicate label "x", already used by rules[1]',
        ],
    ),
]


@pytest.mark.parametrize(("doc", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_problem_strings(doc: Any, expected: list[str]) -> None:
    assert problems(doc) == expected


def test_labels_may_repeat_across_paths() -> None:
    rule = {"kind": "never", "label": "x", "p": {"tool": "a"}}
    doc = with_name(rules=[rule], alternatives={"anyOf": [{"id": "a", "rules": [rule]}]})
    assert compile_contract(doc).alternatives[0].rules[0].label == "x"


def test_all_problems_at_once() -> None:
    doc = {
        "nmae": "x",
        "tools": {"requird": ["Read"], "maxCalls": 1.5},
        "llm": {"allowedModels": "m"},
        "rules": [{"kind": "never", "label": "a", "p": {"kind": "tool"}}],
    }
    assert problems(doc) == [
        f'unknown key "nmae" — did you mean "name"? (allowed: {TOP})',
        'missing required key "name"',
        f'tools: unknown key "requird" — did you mean "required"? (allowed: {TOOLS_KEYS})',
        "tools.maxCalls: must be an integer ≥ 0, not 1.5",
        "llm.allowedModels: must be a non-empty array of distinct names, not a string",
        f'rules[0].p.kind: unknown value "tool" — did you mean "TOOL"? (allowed: {KINDS})',
    ]


def test_a_typo_never_silently_removes_a_check() -> None:
    # The only key is misspelled: the contract is refused, not checked as if it were absent.
    assert problems(with_name(tools={"requird": ["Read"]})) == [
        f'tools: unknown key "requird" — did you mean "required"? (allowed: {TOOLS_KEYS})'
    ]


@pytest.mark.parametrize(
    ("word", "candidates", "expected"),
    [
        ("requird", ["required", "forbidden"], "required"),
        ("REQUIRED", ["required"], "required"),
        ("tool", ["AGENT", "TOOL"], "TOOL"),
        ("xyzzy", ["required"], None),
        ("ab", ["ax", "ay"], "ax"),  # a tie goes to the first candidate
        ("maxcall", ["maxCalls", "maxCallsPerTool"], "maxCalls"),
        ("alowed", ["allowed"], "allowed"),
        ("abcd", ["abxyz"], None),  # distance 3
        (3, ["a"], None),
    ],
)
def test_did_you_mean(word: Any, candidates: list[str], expected: str | None) -> None:
    assert did_you_mean(word, candidates) == expected


def test_scope_root_kind_is_upper_cased() -> None:
    contract = compile_contract(
        with_name(scope={"root": {"kind": "agent", "name": "x"}}, **REQUIRED)
    )
    assert contract.scope is not None
    assert contract.scope.kind == "AGENT"


@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        (1, True),
        (0, True),
        (1.0, True),  # one JSON number: 1.0 is 1, as in JSON Schema
        (1e3, True),
        (1.5, False),
        (-1.0, False),
        (True, False),
        (False, False),
        ("1", False),
        (None, False),
    ],
)
def test_integers_are_integers(value: Any, accepted: bool) -> None:
    doc = with_name(llm={"maxCalls": value})
    if accepted:
        count = compile_contract(doc).rules[0].max  # type: ignore[attr-defined]
        assert count == value and type(count) is int
    else:
        with pytest.raises(ContractError):
            compile_contract(doc)


def test_equals_null_is_a_check_and_values_are_copied() -> None:
    expected = {"a": [1]}
    doc = with_name(
        tools={
            "required": ["R"],
            "arguments": [
                {"tool": "R", "pointer": "/x", "equals": None},
                {"tool": "R", "pointer": "/y", "equals": expected},
            ],
        }
    )
    contract = compile_contract(doc)
    expected["a"].append(2)
    first, second = contract.rules[1:]
    assert first.check.op == "equals" and first.check.value is None  # type: ignore[attr-defined]
    assert second.check.value == {"a": [1]}  # type: ignore[attr-defined]


def test_non_json_values_are_refused() -> None:
    doc = with_name(rules=[{"kind": "never", "label": "a", "p": {"attr": {"k": float("nan")}}}])
    assert problems(doc) == [
        'rules[0].p.attr["k"]: must be a JSON value (null, boolean, finite number, string, '
        "array, object with string keys)"
    ]


def test_yaml_keys_that_are_not_strings() -> None:
    assert problems({"name": "x", 1: 2, **REQUIRED}) == [f"unknown key 1 (allowed: {TOP})"]
