"""Reading contracts from files, JSON text and YAML text; a file's errors name the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracecheck.contract import compile_contract
from tracecheck.contract.section_spec import TOOLS_KEYS
from tracecheck.errors import ContractError

DOC = {"name": "refund-desk", "tools": {"required": ["Read"], "forbidden": ["Bash"]}}
YAML = """\
name: refund-desk
tools:
  required: [Read]
  forbidden:
    - Bash
"""


def labels(source: object) -> list[str]:
    return [rule.label for rule in compile_contract(source).rules]


def error(source: object) -> ContractError:
    with pytest.raises(ContractError) as info:
        compile_contract(source)
    return info.value


def test_json_file(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(DOC))
    contract = compile_contract(path)
    assert contract.source == str(path)
    assert [r.label for r in contract.rules] == ["tools.required[Read]", "tools.forbidden[Bash]"]
    assert labels(str(path)) == ["tools.required[Read]", "tools.forbidden[Bash]"]


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".contract"])
def test_yaml_file(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"c{suffix}"
    path.write_text(YAML)
    assert labels(path) == ["tools.required[Read]", "tools.forbidden[Bash]"]


def test_yaml_flow_style_file(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("{name: flow, tools: {required: [Read]}}")
    assert labels(path) == ["tools.required[Read]"]


def test_text_and_bytes() -> None:
    assert labels(json.dumps(DOC)) == ["tools.required[Read]", "tools.forbidden[Bash]"]
    assert labels(YAML) == ["tools.required[Read]", "tools.forbidden[Bash]"]
    assert labels(YAML.encode()) == ["tools.required[Read]", "tools.forbidden[Bash]"]
    assert compile_contract(json.dumps(DOC)).source is None


def test_problems_name_the_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("name: x\ntools:\n  requird: [Read]\n")
    err = error(path)
    assert err.source == str(path)
    assert (err.problems[0].line, err.problems[0].column) == (2, 1)
    assert str(err) == (
        f'{path}:2:1: tools: unknown key "requird" — did you mean "required"? (allowed: '
        f"{', '.join(TOOLS_KEYS)})"
    )


def test_a_place_in_json_is_its_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{\n  "name": "x",\n  "rules": [\n    {},\n\t{"id": 1}\n  ]\n}\n')
    lines = str(error(path)).splitlines()
    assert lines and all(line.startswith(f"{path}:") for line in lines)
    assert any(line.startswith(f"{path}:4:5: rules[0]: ") for line in lines)
    assert any(line.startswith(f"{path}:5:2: rules[1]") for line in lines)


def test_a_contract_that_is_no_file_has_no_line(tmp_path: Path) -> None:
    err = error('{"name": "x", "tools": {"requird": ["Read"]}}')
    assert err.problems[0].line is None
    assert str(err).startswith('tools: unknown key "requird"')


def test_json_syntax_error_has_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{\n  "name": "x",\n  "tools": {"required": ["Read",]}\n}\n')
    err = error(path)
    assert str(err) == f"{path}: line 3, column 32: malformed JSON: trailing comma is not allowed"


def test_json_looking_text_reports_the_json_error() -> None:
    err = error('{"name": "x",\n "tools": }')
    assert err.source is None
    (problem,) = err.problems
    assert problem.path == "line 2, column 11"
    assert problem.message.startswith("malformed JSON: ")


def test_yaml_syntax_error_has_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("name: x\ntools: [a\n")
    err = error(path)
    (problem,) = err.problems
    assert err.source == str(path)
    assert problem.path == "line 3, column 1"
    assert problem.message.startswith("malformed YAML: ")


def test_missing_file_and_directory(tmp_path: Path) -> None:
    missing = tmp_path / "absent.json"
    assert str(error(missing)) == f"{missing}: cannot be read: No such file or directory"
    assert str(error(str(missing))) == f"{missing}: cannot be read: No such file or directory"
    assert error(tmp_path).source == str(tmp_path)


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b'{"name": "\xff"}')
    assert str(error(path)) == f"{path}: is not UTF-8 text (byte 10)"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "a contract must be an object, not null"),
        ("- a\n- b\n", "a contract must be an object, not an array"),
        ("just words", "a contract must be an object, not a string"),
        ("a: 2024-13-45", None),
    ],
)
def test_yaml_values_that_are_not_contracts(text: str, message: str | None) -> None:
    err = error(text)
    if message is not None:
        assert [str(p) for p in err.problems] == [message]


def test_yaml_dates_are_strings_as_in_yaml_1_2() -> None:
    # YAML 1.1 (PyYAML's default) reads 2024-05-01 as a date; YAML 1.2 has no implicit dates.
    assert compile_contract("name: 2024-05-01\ntools: {required: [Read]}\n").name == "2024-05-01"
