"""Property: any JSON value either compiles as a contract or raises ContractError — nothing else."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracecheck.contract import compile_contract, lint_contract
from tracecheck.contract import spec as names
from tracecheck.errors import ContractError

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)

# Words the parser knows: keys and enum values, so that random documents get deep.
WORDS = sorted(
    {
        *names.TOP_KEYS,
        *names.ALTERNATIVE_KEYS,
        *names.RUN_KEYS,
        *names.TOOLS_KEYS,
        *names.LLM_KEYS,
        *names.RETRIES_KEYS,
        *names.WRITE_KEYS,
        *names.ARGUMENT_KEYS,
        *names.PREDICATE_KEYS,
        *names.RUN_STATUSES,
        *names.ORDER_MODES,
        *names.OCCURRENCES,
        *names.JSON_TYPES,
        *names.KINDS,
        *names.RULE_KEYS,
        "kind",
        "label",
        "op",
        "value",
        "values",
        "anyOf",
        "root",
        "$regex",
        "flags",
        "p",
        "a",
        "b",
        "prior",
        "order",
        "max",
        "check",
        "declared",
    }
)
WORD_SCALARS = (
    st.sampled_from(WORDS)
    | st.sampled_from(["/x", "", "/a~1b", "~", "(", "Read", "tool", "i"])
    | st.integers(min_value=-2, max_value=3)
    | st.sampled_from([0.5, 1.0, True, False, None])
)
SHAPED = st.recursive(
    WORD_SCALARS,
    lambda inner: (
        st.lists(inner, min_size=0, max_size=3)
        | st.dictionaries(st.sampled_from(WORDS), inner, max_size=5)
    ),
    max_leaves=30,
)
DOCUMENTS = st.fixed_dictionaries(
    {"name": st.sampled_from(["c", "", 3])},
    optional={key: SHAPED for key in names.TOP_KEYS if key != "name"},
)


def compiles_or_contract_error(value: Any) -> None:
    try:
        compile_contract(value)
    except ContractError as exc:
        assert exc.problems, value
        for problem in exc.problems:
            assert isinstance(problem.path, str) and isinstance(problem.message, str)
        return
    # What compiles also lints without raising.
    lint_contract(value)


SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(JSON)
def test_any_json_value(value: Any) -> None:
    compiles_or_contract_error(value)


@SETTINGS
@given(JSON)
def test_any_json_text(value: Any) -> None:
    compiles_or_contract_error(json.dumps(value))


@SETTINGS
@given(DOCUMENTS)
def test_documents_built_from_real_key_names(doc: dict[str, Any]) -> None:
    compiles_or_contract_error(doc)


@SETTINGS
@given(st.text(max_size=60))
def test_any_text_as_yaml_or_path(text: str) -> None:
    compiles_or_contract_error(text)


VALID_DOC: dict[str, Any] = {
    "name": "c",
    "scope": {"root": {"kind": "agent"}},
    "run": {"requireCompleted": True, "allowedStatuses": ["completed"], "maxDurationMs": 5},
    "tools": {
        "required": ["Read"],
        "allowed": ["Read", "Grep"],
        "maxCallsPerTool": {"Read": 2},
        "requiredOrder": ["Read", "Grep"],
        "orderMode": "start-order",
        "arguments": [{"tool": "Read", "pointer": "/p", "type": "string"}],
    },
    "retries": {"reads": ["Grep"], "writes": [{"tool": "w", "idempotencyKey": "/k"}]},
    "llm": {"maxCalls": 3, "allowedModels": ["m"]},
    "rules": [
        {"kind": "never", "label": "a", "p": {"attr": {"k": {"$regex": "x"}}}},
        {
            "kind": "argument",
            "label": "b",
            "p": {"tool": "A"},
            "pointer": "/x",
            "check": {"op": "oneOf", "values": [1]},
        },
    ],
    "alternatives": {
        "anyOf": [
            {"id": "x", "rules": [{"kind": "atMost", "label": "c", "p": {"kind": "LLM"}, "max": 1}]}
        ]
    },
}


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _leaves(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _leaves(value, (*path, i))
    return found


PLACES = _leaves(VALID_DOC)[1:]


def _replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    copy = json.loads(json.dumps(doc))
    node = copy
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return copy


def test_the_mutated_document_is_valid() -> None:
    compile_contract(VALID_DOC)


@SETTINGS
@given(st.sampled_from(PLACES), JSON | WORD_SCALARS | SHAPED)
def test_valid_document_with_one_value_replaced(path: tuple[Any, ...], value: Any) -> None:
    compiles_or_contract_error(_replace(VALID_DOC, path, value))
