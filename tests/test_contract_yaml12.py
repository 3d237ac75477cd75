"""Contracts in YAML are read as YAML 1.2 (the core schema editors validate with), not PyYAML's
YAML 1.1; a contract written as JSON and as YAML compiles the same."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracecheck.contract import compile_contract
from tracecheck.contract import spec as names
from tracecheck.errors import ContractError
from tracecheck.yaml12 import Yaml12Dumper, load_yaml


@pytest.mark.parametrize(
    ("plain", "value"),
    [
        # YAML 1.1 surprises: strings (or a decimal integer) in YAML 1.2.
        ("yes", "yes"),
        ("No", "No"),
        ("on", "on"),
        ("OFF", "OFF"),
        ("y", "y"),
        ("010", 10),
        ("08", 8),
        ("1:20", "1:20"),
        ("2024-05-01", "2024-05-01"),
        ("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"),
        ("=", "="),
        ("0b11", "0b11"),
        ("1_000", "1_000"),
        # The core schema's own types.
        ("true", True),
        ("False", False),
        ("TRUE", True),
        ("tRUE", "tRUE"),
        ("null", None),
        ("Null", None),
        ("~", None),
        ("", None),
        ("nULL", "nULL"),
        ("0", 0),
        ("-7", -7),
        ("+5", 5),
        ("0o17", 15),
        ("0x1F", 31),
        ("0X1F", "0X1F"),
        ("1.5", 1.5),
        ("1.", 1.0),
        (".5", 0.5),
        ("-.5", -0.5),
        ("1e3", 1000.0),
        ("1E-2", 0.01),
        ("-.inf", -math.inf),
        (".Inf", math.inf),
        ("+.INF", math.inf),
    ],
)
def test_plain_scalars_resolve_by_the_yaml_1_2_core_schema(plain: str, value: Any) -> None:
    loaded = load_yaml(f"k: {plain}\n")["k"]
    assert loaded == value and type(loaded) is type(value)


def test_nan_is_a_float() -> None:
    assert math.isnan(load_yaml("k: .NaN\n")["k"])


def test_a_merge_key_still_merges() -> None:
    assert load_yaml("a: &b {x: 1}\nc:\n  <<: *b\n  y: 2\n")["c"] == {"x": 1, "y": 2}


@pytest.mark.parametrize(("tag", "text"), [("bool", "yes"), ("int", "1:20"), ("float", "abc")])
def test_an_explicit_tag_takes_only_its_yaml_1_2_forms(tmp_path: Path, tag: str, text: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(f"name: c\ntools:\n  maxCalls: !!{tag} {text}\n")
    with pytest.raises(ContractError) as caught:
        compile_contract(path)
    assert str(caught.value) == (
        f"{path}: line 3, column 13: malformed YAML: an explicit !!{tag} must be written in "
        "its YAML 1.2 form"
    )


def test_explicit_tags_in_their_yaml_1_2_forms() -> None:
    assert load_yaml('a: !!int "010"\nb: !!float "1"\nc: !!bool "True"\nd: !!str 1\n') == {
        "a": 10,
        "b": 1.0,
        "c": True,
        "d": "1",
    }


def test_yaml_1_1_surprises_in_a_contract(tmp_path: Path) -> None:
    path = tmp_path / "contract.yaml"
    path.write_text("name: yes\ntools:\n  maxCalls: 010\n  required: [on, off]\n")
    contract = compile_contract(path)
    assert contract.name == "yes"
    assert [rule.label for rule in contract.rules] == [
        "tools.required[on]",
        "tools.required[off]",
        "tools.maxCalls",
    ]
    assert contract.rules[2].max == 10  # type: ignore[attr-defined]


def test_a_yaml_1_1_boolean_word_is_refused_with_a_hint(tmp_path: Path) -> None:
    path = tmp_path / "contract.yaml"
    path.write_text(
        "name: c\nrun:\n  requireCompleted: yes\ntools:\n  enforced: On\n  maxCalls: 1:20\n"
    )
    with pytest.raises(ContractError) as caught:
        compile_contract(path)
    assert str(caught.value).splitlines() == [
        f'{path}:3:3: run.requireCompleted: must be true or false, not a string ("yes" is a '
        "string in YAML 1.2: write true or false)",
        f"{path}:6:3: tools.maxCalls: must be an integer ≥ 0, not a string",
        f'{path}:5:3: tools.enforced: must be true, not a string ("On" is a string in YAML 1.2: '
        "write true or false)",
    ]


@pytest.mark.parametrize(
    "text", ["0o17", "1e3", "-.5", "08", ".inf", "yes", "010", "1:20", "=", "<<", "", "Null"]
)
def test_the_dumper_quotes_what_either_version_reads_as_another_type(text: str) -> None:
    dumped = yaml.dump({"k": text}, Dumper=Yaml12Dumper)
    assert load_yaml(dumped) == {"k": text}
    assert yaml.safe_load(dumped) == {"k": text}


# ---------------------------------------------------------------------------------------------
# Property: a document dumped as JSON and as YAML compiles to the same contract or refusal.

TRICKY = [
    *("yes", "No", "on", "OFF", "y", "010", "08", "0o17", "0x1F", "1:20", "1e3", "-.5", ".inf"),
    *(".nan", "null", "~", "", "true", "True", "2024-05-01", "=", "<<", "1_000", "+5", "1."),
    *(" a", "a:", "#x", "- x", "&a", "*a", "!x", "%x", "@x", "|", ">", "'", '"', "a\nb", "\t"),
]
WORDS = sorted(
    {
        *names.TOP_KEYS,
        *names.TOOLS_KEYS,
        *names.RUN_KEYS,
        *names.LLM_KEYS,
        *names.RETRIES_KEYS,
        *names.WRITE_KEYS,
        *names.ARGUMENT_KEYS,
        *names.PREDICATE_KEYS,
        *names.RUN_STATUSES,
        *names.ORDER_MODES,
        *names.KINDS,
        *names.RULE_KEYS,
        *("kind", "label", "op", "value", "values", "anyOf", "id", "root", "$regex", "flags"),
        *("p", "a", "b", "prior", "order", "max", "check", "declared", "/x", "Read", "$schema"),
    }
)
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)
SCALARS = (
    st.sampled_from(WORDS)
    | st.sampled_from(TRICKY)
    | TEXT
    | st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([0, 1, 2, 3, 10])
    | st.floats(allow_nan=False, allow_infinity=False)  # JSON has no NaN or infinity
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(WORDS) | st.sampled_from(TRICKY) | TEXT, inner, max_size=4
        )
    ),
    max_leaves=25,
)
NAME = st.sampled_from(["c", "yes", "010", "", 3]) | TEXT
NAMES = st.lists(st.sampled_from(TRICKY) | TEXT, min_size=1, max_size=3, unique=True)
COUNT = st.integers(min_value=0, max_value=2**70) | st.sampled_from([1.0, 1e3, "010", "1:20"])
BOOLEAN = st.booleans() | st.sampled_from(["yes", "on", "true"])
# Documents shaped like contracts, so that most compile and the contracts themselves compare.
SHAPED = st.fixed_dictionaries(
    {"name": NAME},
    optional={
        "description": st.sampled_from(TRICKY) | TEXT,
        "run": st.fixed_dictionaries(
            {"requireCompleted": BOOLEAN},
            optional={"maxDurationMs": st.floats(min_value=0.001, max_value=1e9) | COUNT},
        ),
        "tools": st.fixed_dictionaries(
            {"required": NAMES},
            optional={
                "forbidden": NAMES,
                "maxCalls": COUNT,
                "maxCallsPerTool": st.dictionaries(st.sampled_from(TRICKY) | TEXT, COUNT),
                "enforced": BOOLEAN,
            },
        ),
        "llm": st.fixed_dictionaries(
            {}, optional={"maxTotalTokens": COUNT, "allowedModels": NAMES}
        ),
        "rules": st.lists(
            st.fixed_dictionaries(
                {
                    "kind": st.just("never"),
                    "label": st.sampled_from(TRICKY) | TEXT,
                    "p": st.fixed_dictionaries(
                        {"tool": st.sampled_from(TRICKY) | TEXT},
                        optional={"attr": st.dictionaries(TEXT, SCALARS, min_size=1)},
                    ),
                }
            ),
            min_size=1,
            max_size=2,
        ),
        "$schema": st.sampled_from(["contract.schema.json", "yes", ""]) | st.integers(),
    },
)
DOCUMENTS = SHAPED | st.fixed_dictionaries(
    {"name": NAME}, optional={key: VALUES for key in (*names.TOP_KEYS[1:], "$schema")}
)


def outcome(text: str) -> Any:
    try:
        return compile_contract(text)
    except ContractError as exc:
        return [(problem.path, problem.message) for problem in exc.problems]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS)
def test_json_and_yaml_forms_compile_alike(doc: dict[str, Any]) -> None:
    as_json = json.dumps(doc)
    as_yaml = yaml.dump(doc, Dumper=Yaml12Dumper, sort_keys=False)
    assert outcome(as_json) == outcome(as_yaml)
