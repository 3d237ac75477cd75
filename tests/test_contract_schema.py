"""contracts/contract.schema.json agrees with the parser on a corpus of valid and invalid specs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tracecheck.contract import compile_contract
from tracecheck.errors import ContractError

jsonschema = pytest.importorskip("jsonschema")

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "contracts" / "contract.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

TOOL = {"tools": {"required": ["Read"]}}


def c(**keys: Any) -> dict[str, Any]:
    return {"name": "c", **keys}


VALID: list[dict[str, Any]] = [
    c(**TOOL),
    c(description="", run={"requireCompleted": False}),
    c(run={"allowedStatuses": ["running", "completed"], "maxDurationMs": 0.5}),
    c(
        tools={
            "required": ["Read"],
            "forbidden": ["Bash"],
            "allowed": ["Read", "Grep"],
            "maxCalls": 0,
            "maxCallsPerTool": {"Read": 2, "a b": 0},
            "requiredOrder": ["Read", "Grep"],
            "orderMode": "all-occurrences",
            "arguments": [
                {"tool": "Read", "pointer": "", "exists": True},
                {"tool": "Read", "pointer": "/a/~0~1/0", "equals": None, "occurrence": "last"},
                {"tool": "Read", "pointer": "/x", "oneOf": [1, "1", None, {"a": [1]}]},
                {"tool": "Read", "pointer": "/x", "type": "null"},
            ],
            "enforced": True,
        }
    ),
    c(retries={"reads": ["a"]}),
    c(retries={"writes": [{"tool": "w", "idempotencyKey": "/k"}, {"tool": "v"}]}),
    c(llm={"maxCalls": 3, "maxTotalTokens": 0, "allowedModels": ["m"]}),
    c(scope={"root": {"kind": "Agent"}}, **TOOL),
    c(scope={"root": {"name": {"$regex": "^x", "flags": "ig"}, "not": {"kind": "TOOL"}}}, **TOOL),
    c(alternatives={"anyOf": [{"id": "a", **TOOL}, {"id": "b", "llm": {"maxCalls": 1}}]}),
    c(
        rules=[
            {
                "kind": "always",
                "label": "a",
                "p": {"attr": {"k": 1, "r": {"$regex": "x"}, "o": {"a": 1}}},
            },
            {"kind": "never", "label": "b", "p": {"tool": {"oneOf": ["x", "y"]}, "model": "m"}},
            {"kind": "eventually", "label": "c", "p": {"kind": "UNKNOWN"}},
            {
                "kind": "precedes",
                "label": "d",
                "a": {"tool": "A"},
                "b": {"tool": "B"},
                "order": "start-order",
            },
            {"kind": "neverUnless", "label": "e", "p": {"tool": "A"}, "prior": {"tool": "B"}},
            {"kind": "atMost", "label": "f", "p": {"kind": "TOOL"}, "max": 0},
            {"kind": "tokensAtMost", "label": "g", "p": {"kind": "LLM"}, "max": 10},
            {"kind": "run", "label": "h", "maxDurationMs": 1},
            {
                "kind": "argument",
                "label": "i",
                "p": {"tool": "A"},
                "pointer": "/x",
                "check": {"op": "exists"},
            },
            {
                "kind": "argument",
                "label": "j",
                "p": {"tool": "A"},
                "pointer": "",
                "check": {"op": "equals", "value": None},
            },
            {
                "kind": "argument",
                "label": "k",
                "p": {"tool": "A"},
                "pointer": "/x",
                "check": {"op": "oneOf", "values": [1]},
                "occurrence": "any",
            },
            {
                "kind": "argument",
                "label": "l",
                "p": {"tool": "A"},
                "pointer": "/x",
                "check": {"op": "type", "type": "array"},
            },
            {"kind": "toolsOffered", "label": "m"},
            {"kind": "toolsOffered", "label": "n", "declared": ["A"]},
            {"kind": "retrySafe", "label": "o", "reads": ["A"]},
        ]
    ),
]

# (spec, whether JSON Schema can express the constraint it breaks)
INVALID: list[tuple[dict[str, Any] | list[Any], bool]] = [
    ([], True),
    ({"tools": {"required": ["Read"]}}, True),
    (c(name="  ", **TOOL), True),
    (c(nmae="x", **TOOL), True),
    (c(tools={"requird": ["Read"]}), True),
    (c(tools={"required": []}), True),
    (c(tools={"required": ["a", "a"]}), True),
    (c(tools={"required": [""]}), True),
    (c(tools={"maxCalls": -1}), True),
    (c(tools={"maxCalls": True}), True),
    (c(tools={"maxCalls": "1"}), True),
    (c(tools={"maxCallsPerTool": {"a": -1}}), True),
    (c(tools={"maxCallsPerTool": {"": 1}}), True),
    (c(tools={"required": ["a"], "orderMode": "start-order"}), True),
    (c(tools={"requiredOrder": ["a", "b"], "orderMode": "start_order"}), True),
    (c(tools={"enforced": False}), True),
    (c(tools={"arguments": [{"tool": "a", "pointer": "/x"}]}), True),
    (
        c(tools={"arguments": [{"tool": "a", "pointer": "/x", "exists": True, "type": "string"}]}),
        True,
    ),
    (c(tools={"arguments": [{"tool": "a", "pointer": "/x", "exists": False}]}), True),
    (c(tools={"arguments": [{"tool": "a", "pointer": "x", "exists": True}]}), True),
    (c(tools={"arguments": [{"tool": "a", "pointer": "/~2", "exists": True}]}), True),
    (c(tools={"arguments": [{"tool": "a", "pointer": "/x", "type": "integer"}]}), True),
    (c(tools={"arguments": [{"tool": "a", "pointer": "/x", "oneOf": []}]}), True),
    (c(run={}), True),
    (c(run={"maxDurationMs": 0}), True),
    (c(run={"allowedStatuses": ["done"]}), True),
    (c(retries={}), True),
    (c(retries={"writes": [{"tool": "w", "idempotencyKey": ""}]}), True),
    (c(llm={"allowedModels": []}), True),
    (c(scope={"root": {}}, **TOOL), True),
    (c(scope={"root": {"kind": "agnt"}}, **TOOL), True),
    (c(scope={"root": {"kind": "AGENT", "not": {"kind": "tool"}}}, **TOOL), True),
    (c(alternatives={"anyOf": []}), True),
    (c(alternatives={"anyOf": [{"tools": {"required": ["a"]}}]}), True),
    (c(rules=[]), True),
    (c(rules=[{"kind": "never", "p": {"tool": "a"}}]), True),
    (c(rules=[{"kind": "never", "label": "a", "p": {"kind": "tool"}}]), True),
    (c(rules=[{"kind": "nevr", "label": "a", "p": {"tool": "a"}}]), True),
    (
        c(rules=[{"kind": "never", "label": "a", "p": {"tool": {"$regex": "a", "flags": "q"}}}]),
        True,
    ),
    (c(rules=[{"kind": "never", "label": "a", "p": {"attr": {"k": {"$regex": 1}}}}]), True),
    (
        c(rules=[{"kind": "never", "label": "a", "p": {"tool": {"$regex": "a", "oneOf": ["a"]}}}]),
        True,
    ),
    (c(rules=[{"kind": "run", "label": "a"}]), True),
    (
        c(
            rules=[
                {
                    "kind": "argument",
                    "label": "a",
                    "p": {"tool": "A"},
                    "pointer": "/x",
                    "check": {"op": "equals"},
                }
            ]
        ),
        True,
    ),
    # Beyond JSON Schema: the parser alone refuses these.
    (c(tools={"maxCalls": 1.0}), False),  # JSON Schema counts 1.0 as an integer
    (c(rules=[{"kind": "never", "label": "a", "p": {"tool": {"$regex": "("}}}]), False),
    (c(retries={"writes": [{"tool": "w"}, {"tool": "w", "idempotencyKey": "/k"}]}), False),
    (c(retries={"reads": ["w"], "writes": [{"tool": "w"}]}), False),
    (c(), False),
    (c(tools={}), False),
    (c(alternatives={"anyOf": [{"id": "a"}]}), False),
    (c(alternatives={"anyOf": [{"id": "a", **TOOL}, {"id": "a", **TOOL}]}), False),
    (
        c(
            tools={"allowed": ["a"]},
            rules=[{"kind": "never", "label": "tools.allowed", "p": {"tool": "a"}}],
        ),
        False,
    ),
]


@pytest.mark.parametrize("spec", VALID, ids=range(len(VALID)))
def test_valid_specs_validate_and_compile(spec: dict[str, Any]) -> None:
    assert [e.message for e in VALIDATOR.iter_errors(spec)] == []
    compile_contract(spec)


@pytest.mark.parametrize(("spec", "expressible"), INVALID, ids=range(len(INVALID)))
def test_invalid_specs_are_rejected(spec: Any, expressible: bool) -> None:
    with pytest.raises(ContractError):
        compile_contract(spec)
    assert VALIDATOR.is_valid(spec) is not expressible


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


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


def test_every_property_is_described_and_objects_are_closed() -> None:
    for where, node in _objects(SCHEMA):
        for name, prop in node.get("properties", {}).items():
            assert "description" in prop, f"{where}/properties/{name}"
        if "properties" in node:
            assert node.get("additionalProperties") is False, where


def test_ready_made_contracts_validate() -> None:
    for path in sorted(SCHEMA_PATH.parent.glob("*.json")):
        if path != SCHEMA_PATH:
            doc = json.loads(path.read_text())
            assert VALIDATOR.is_valid(doc), path
            compile_contract(path)
