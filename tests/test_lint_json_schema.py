"""`tracecheck lint contracts/*.json` skips contract.schema.json with a note: a JSON Schema passed
among contracts is recognised (a json-schema.org `$schema`, no contract key), not refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracecheck.cli import ExitCode, main
from tracecheck.contract.lint import is_json_schema

CONTRACTS = Path(__file__).resolve().parent.parent / "contracts"
SCHEMA = CONTRACTS / "contract.schema.json"


def test_lint_over_the_contracts_folder_skips_the_schema(
    capsys: pytest.CaptureFixture[str],
) -> None:
    paths = sorted(str(path) for path in CONTRACTS.glob("*.json"))
    assert str(SCHEMA) in paths
    assert main(["lint", *paths]) == ExitCode.OK
    out = capsys.readouterr().out.splitlines()
    assert f"{SCHEMA}: skipped: a JSON Schema, not a contract" in out
    assert [line for line in out if "skipped" not in line] == [
        f"{path}: no findings" for path in paths if path != str(SCHEMA)
    ]


@pytest.mark.parametrize(
    ("doc", "schema"),
    [
        ({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}, True),
        ({"$schema": "http://json-schema.org/draft-07/schema#", "description": "d"}, True),
        # A contract naming a schema, even the meta-schema, is a contract.
        ({"$schema": "https://json-schema.org/draft/2020-12/schema", "name": "c"}, False),
        ({"$schema": "http://json-schema.org/draft-07/schema#", "tools": {}}, False),
        ({"$schema": "contract.schema.json", "type": "object"}, False),
        ({"type": "object"}, False),
        ([], False),
    ],
)
def test_what_counts_as_a_json_schema(tmp_path: Path, doc: object, schema: bool) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps(doc))
    assert is_json_schema(path) is schema


def test_an_unreadable_or_malformed_file_is_linted_as_a_contract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    missing = tmp_path / "missing.json"
    assert not is_json_schema(broken) and not is_json_schema(missing)
    assert main(["lint", str(broken), str(missing)]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert f"{broken}: line 1, column 2: malformed JSON" in err
    assert f"{missing}: cannot be read" in err


def test_a_schema_is_still_not_a_contract_to_check(capsys: pytest.CaptureFixture[str]) -> None:
    trace = Path(__file__).resolve().parent.parent / "fixtures/otel-genai/clean.otlp.jsonl"
    assert main(["check", str(trace), "--contract", str(SCHEMA)]) == ExitCode.USAGE
    assert 'missing required key "name"' in capsys.readouterr().err
