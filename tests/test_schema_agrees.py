"""contracts/contract.schema.json and the compiler give the same answer on every contract, except
for the few rules JSON Schema cannot state (COMPILER_ONLY), which the schema's `$comment` lists.

The corpus (tests/contract_corpus.py) is valid and subtly invalid contracts in JSON and YAML;
a property then mutates a contract that uses every key and asks both again.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from contract_corpus import COMPILER_ONLY_CASES, INVALID, VALID
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracecheck.contract import compile_contract
from tracecheck.errors import ContractError
from tracecheck.yaml12 import Yaml12Loader

jsonschema = pytest.importorskip("jsonschema")

CONTRACTS = Path(__file__).resolve().parent.parent / "contracts"
SCHEMA_PATH = CONTRACTS / "contract.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

# The rules only the compiler checks: why JSON Schema cannot state each, the words the schema's
# `$comment` names it with, and what the compiler's refusal says.
COMPILER_ONLY: dict[str, tuple[str, str, str]] = {
    "unique-labels": (
        "uniqueItems compares whole items, not one member, and labels also come from keys",
        "labels are unique",
        r"duplicate label ",
    ),
    "unique-alternative-ids": (
        "uniqueItems compares whole items, not one member",
        "alternative ids are unique",
        r"duplicate alternative id ",
    ),
    "distinct-writes": (
        "uniqueItems compares whole items, not one member",
        "name distinct tools",
        r"writes\[\d+\]\.tool: duplicate ",
    ),
    "write-not-read": (
        "a value in one array may not appear in another: a cross-field check",
        "none also a read",
        r"is also in reads; a tool is either a read or a write",
    ),
    "regex-syntax": (
        "format: regex is an annotation, and means ECMA-262, not Python's regex module",
        "$regex compiles",
        r"(\$regex|\.regex): is not a valid regular expression",
    ),
    "argument-schema": (
        "a meta-schema $ref would not check the regex format, nor the draft a schema names",
        "schema is a valid JSON Schema",
        r"\.schema: is not a valid JSON Schema",
    ),
    "duplicate-keys": (
        "a validator sees the parsed value, in which the last of two equal keys has won",
        "a key is written once",
        r"duplicate key ",
    ),
    "unpaired-surrogates": (
        "a validator sees the parsed string; I-JSON (RFC 7493) forbids unpaired surrogates",
        "no unpaired surrogate",
        r"malformed JSON: (no low|invalid high) surrogate",
    ),
    "non-finite": (
        "1e400, .inf and .nan are not finite JSON numbers: JSON Schema says nothing of them",
        "numbers are finite",
        r"must be a finite number|must be a JSON value|malformed JSON: number is infinity",
    ),
    "min-not-above-max": (
        "a value may not be compared with another value: a cross-field check",
        "a minimum is not above its maximum",
        r"min .* is above max .*, so nothing can meet it",
    ),
    "yaml-keys": (
        "JSON has only string keys, and a validator of YAML turns other keys into strings",
        "mapping keys are strings",
        r"must be a non-empty tool name|a key is .*, not a string",
    ),
}


def parsed(source: Any) -> Any:
    """The value a validator (an editor) sees: a document as is, JSON text as JSON (the last of
    two equal keys wins), other text as YAML 1.2 (likewise)."""
    if not isinstance(source, str):
        return source
    if source.lstrip().startswith(("{", "[")):
        return json.loads(source)
    return yaml.load(source, Loader=Yaml12Loader)


def refusal(source: Any) -> list[str] | None:
    """The compiler's problems, or None when it compiles; a document is written out as JSON."""
    text = source if isinstance(source, str) else json.dumps(source)
    try:
        compile_contract(text)
    except ContractError as exc:
        return [str(problem) for problem in exc.problems]
    return None


def schema_errors(source: Any) -> list[str]:
    return [error.message for error in VALIDATOR.iter_errors(parsed(source))]


@pytest.mark.parametrize(("name", "source"), VALID, ids=[case[0] for case in VALID])
def test_both_accept(name: str, source: Any) -> None:
    assert schema_errors(source) == []
    assert refusal(source) is None


@pytest.mark.parametrize(("name", "source"), INVALID, ids=[case[0] for case in INVALID])
def test_both_refuse(name: str, source: Any) -> None:
    assert refusal(source)
    assert schema_errors(source) != []


@pytest.mark.parametrize(
    ("rule", "name", "source"), COMPILER_ONLY_CASES, ids=[case[1] for case in COMPILER_ONLY_CASES]
)
def test_only_the_compiler_refuses_what_json_schema_cannot_state(
    rule: str, name: str, source: Any
) -> None:
    assert schema_errors(source) == []
    problems = refusal(source)
    assert problems
    assert all(re.search(COMPILER_ONLY[rule][2], problem) for problem in problems), problems


def test_every_compiler_only_rule_has_a_case_and_is_listed_in_the_schema() -> None:
    assert {case[0] for case in COMPILER_ONLY_CASES} == set(COMPILER_ONLY)
    for _why, named, _says in COMPILER_ONLY.values():
        assert named in SCHEMA["$comment"]


# ---------------------------------------------------------------------------------------------
# Property: any one or two edits of a contract that uses every key get the same answer from
# both, or a refusal made only of compiler-only problems.

P = {"tool": "A"}
FULL: dict[str, Any] = {
    "$schema": "contract.schema.json",
    "name": "c",
    "description": "d",
    "scope": {
        "root": {
            "kind": "agent",
            "name": {"$regex": "^x", "flags": "i"},
            "tool": {"oneOf": ["a"]},
            "attr": {"k": 1, "r": {"$regex": "a"}},
            "not": {"kind": "TOOL", "model": "m"},
        }
    },
    "run": {"requireCompleted": True, "allowedStatuses": ["completed"], "maxDurationMs": 5},
    "tools": {
        "required": ["R"],
        "forbidden": ["B"],
        "allowed": ["R", "G"],
        "maxCalls": 3,
        "maxCallsPerTool": {"R": 2},
        "requiredOrder": ["R", "G"],
        "orderMode": "start-order",
        "arguments": [
            {"tool": "R", "pointer": "/p", "type": "string", "occurrence": "first"},
            {"tool": "R", "pointer": "", "equals": None},
            {"tool": "R", "pointer": "/a~1b", "oneOf": [1, "x"]},
            {"tool": "R", "pointer": "/x", "exists": True},
            {"tool": "R", "pointer": "/r", "regex": "^a"},
            {"tool": "R", "pointer": "/n", "range": {"min": 0, "max": 5, "maxExclusive": True}},
            {"tool": "R", "pointer": "/t", "contains": "x"},
            {"tool": "R", "pointer": "", "partial": {"a": [1]}, "ignore": ["*_id"]},
            {"tool": "R", "pointer": "", "schema": {"type": "object", "required": ["a"]}},
            {"tool": "R", "pointer": "", "schema": "offered"},
            {"tool": "R", "pointer": "/o", "sameAs": {"tool": "G", "pointer": "/o"}},
            {"tool": "R", "pointer": "/m", "sameAs": {"tool": "G", "result": "/m"}},
        ],
        "requires": [{"tool": "R", "after": "G", "same": ["/o"]}],
        "enforced": True,
        "durations": {"R": {"p95": 2000, "max": 5000}, "G": {"p50": 0.5}},
    },
    "retries": {"reads": ["G"], "writes": [{"tool": "w", "idempotencyKey": "/k"}, {"tool": "v"}]},
    "llm": {"maxCalls": 3, "maxTotalTokens": 10, "allowedModels": ["m"], "maxCostUsd": 0.5},
    "prices": {
        "m": {"input": 0.4, "output": 1.6, "cacheRead": 0.1, "cacheWrite": 0},
        "g*": {"input": 1, "output": 2},
    },
    "rules": [
        {"kind": "always", "label": "a", "p": {"kind": "TOOL"}},
        {"kind": "never", "label": "b", "p": {"attr": {"k": [1, {"a": None}]}}},
        {"kind": "eventually", "label": "c", "p": P},
        {"kind": "precedes", "label": "d", "a": P, "b": {"tool": "B"}, "order": "all-occurrences"},
        {"kind": "neverUnless", "label": "e", "p": P, "prior": {"tool": "B"}},
        {"kind": "atMost", "label": "f", "p": P, "max": 0},
        {
            "kind": "atMost",
            "label": "slow",
            "p": {"kind": "TOOL", "status": "error", "durationMs": {"min": 1, "max": 100}},
            "max": 0,
        },
        {"kind": "tokensAtMost", "label": "g", "p": {"kind": "LLM"}, "max": 5},
        {"kind": "run", "label": "h", "requireCompleted": False, "maxDurationMs": 0.5},
        {"kind": "argument", "label": "i", "p": P, "pointer": "/x", "check": {"op": "exists"}},
        {
            "kind": "argument",
            "label": "j",
            "p": P,
            "pointer": "/x",
            "check": {"op": "equals", "value": {"a": 1}},
            "occurrence": "any",
        },
        {
            "kind": "argument",
            "label": "k",
            "p": P,
            "pointer": "",
            "check": {"op": "oneOf", "values": [1]},
        },
        {
            "kind": "argument",
            "label": "l",
            "p": P,
            "pointer": "/x",
            "check": {"op": "type", "type": "null"},
        },
        {"kind": "toolsOffered", "label": "m", "declared": []},
        {"kind": "toolsOffered", "label": "n"},
        {"kind": "retrySafe", "label": "o", "reads": ["x"], "writes": [{"tool": "y"}]},
    ],
    "trajectory": {
        "mode": "in-order",
        "ignore": ["G"],
        "calls": [
            "R",
            {"tool": "R", "status": "ok", "arguments": [{"pointer": "/p", "type": "string"}]},
            {"parallel": ["R", {"tool": "B"}]},
        ],
    },
    "errors": {"TOOL": {"max": 0}, "LLM": {"maxPercent": 10, "max": 3}},
    "steps": {"TOOL": {"max": 12}, "LLM": {"min": 1, "max": 6}},
    "loops": {"maxRepeats": 1, "maxConsecutive": 3, "maxCycles": 2},
    "alternatives": {
        "anyOf": [
            {"id": "a", "tools": {"required": ["x"]}},
            {"id": "b", "rules": [{"kind": "never", "label": "a", "p": P}]},
            {"id": "c", "trajectory": {"mode": "exact", "calls": ["x"]}},
        ]
    },
}
REPLACEMENTS = st.sampled_from(
    [
        *(None, True, False, 0, 1, -1, 1.0, 1.5, -0.5, 2**64, "", " ", "\n", "x", "x\n", "/x"),
        *("/", "~", "/~2", "i", "i\n", "q", "TOOL", "tool", "agent", "agent\n", "\u00a0", "\x1c"),
        *("\ufeff", "(", "a", "R", "start-order", "completed", "string", "first", "exists"),
        *("equals", "oneOf", "type", "never", "label", "kind", "exact", "ok", "parallel"),
        *([], {}, ["x"], ["x", "x"], [""], [1], {"a": 1}, {"$regex": "a"}, {"oneOf": ["a"]}),
        *({"oneOf": []}, {"$regex": "("}, {"kind": "TOOL"}, {"tool": "x"}),
        *("offered", "*_id", {"min": 1}, {"tool": "x", "result": ""}),
        *(100, 101, 1e-3, "error", "unset", "LLM", {"max": 0}, {"min": 5, "max": 1}),
    ]
)
NEW_KEYS = st.sampled_from(
    [
        *("x", "kind", "flags", "oneOf", "$regex", "not", "id", "order", "p", "tool", "value"),
        *("$schema", "min", "maxExclusive", "ignore", "result", "pointer", "same", "partial"),
        "regex",
    ]
)


def _places(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    places = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            places += _places(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            places += _places(item, (*at, index))
    return places


@st.composite
def edited_contracts(draw: st.DrawFn) -> dict[str, Any]:
    doc = copy.deepcopy(FULL)
    for key in list(doc):
        if key != "name" and draw(st.booleans()):
            del doc[key]
    for _ in range(draw(st.integers(min_value=1, max_value=2))):
        place = draw(st.sampled_from(_places(doc)[1:]))
        parent = doc
        for key in place[:-1]:
            parent = parent[key]
        last = place[-1]
        edit = draw(st.sampled_from(["replace", "delete", "repeat", "add a key"]))
        if edit == "replace":
            parent[last] = copy.deepcopy(draw(REPLACEMENTS))
        elif edit == "delete":
            del parent[last]
        elif edit == "repeat" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[last]))
        elif edit == "add a key" and isinstance(parent[last], dict):
            parent[last][draw(NEW_KEYS)] = copy.deepcopy(draw(REPLACEMENTS))
    return doc


def compiler_only(problem: str) -> bool:
    return any(re.search(says, problem) for _why, _named, says in COMPILER_ONLY.values())


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_contracts())
def test_edited_contracts_get_the_same_answer(doc: dict[str, Any]) -> None:
    problems = refusal(doc)
    if VALIDATOR.is_valid(doc):
        assert problems is None or all(compiler_only(p) for p in problems), problems
    else:
        assert problems, schema_errors(doc)


# ---------------------------------------------------------------------------------------------
# The schema itself


def test_the_schema_is_a_valid_draft_2020_12_schema_with_a_relative_id() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["$id"] == "contract.schema.json"


def _objects(node: Any, where: str = "#") -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        found.append((where, node))
        for key, value in node.items():
            found += _objects(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _objects(value, f"{where}/{i}")
    return found


def test_every_object_shape_is_closed_and_its_properties_described() -> None:
    """A node that declares an object's shape (`"type": "object"`) names every key it allows,
    each with a description; the nodes that only add a condition (hasRule) declare no type."""
    for where, node in _objects(SCHEMA):
        if node.get("type") == "object" and "properties" in node:
            assert node.get("additionalProperties") is False, where
            for name, prop in node["properties"].items():
                assert "description" in prop, f"{where}/properties/{name}"


def test_patterns_end_the_same_in_every_regex_dialect() -> None:
    """`$` also matches before a final newline in Python's re (which validates here)."""
    for where, node in _objects(SCHEMA):
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            assert not pattern.endswith("$"), where


def test_ready_made_contracts_validate_and_compile() -> None:
    paths = sorted(p for p in CONTRACTS.iterdir() if p.suffix in (".json", ".yaml", ".yml"))
    assert len(paths) > 3
    for path in paths:
        if path != SCHEMA_PATH:
            assert schema_errors(path.read_text(encoding="utf-8")) == [], path
            compile_contract(path)
