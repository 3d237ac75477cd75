"""The `--json` report against its JSON Schema (`tracecheck/report/report.schema.json`, draft
2020-12): real reports of `check` over the bundled fixtures and contracts validate, and the
report names its schema revision, the tool and its version, and carries each violation as data
(rule kind, label, span id, tool, argument pointer) beside the prose."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from jsonschema import Draft202012Validator

from tracecheck.cli import ExitCode, main
from tracecheck.distribution import version
from tracecheck.report.json import SCHEMA_FILE, SCHEMA_VERSION, report_schema

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_PATH = ROOT / "tracecheck" / "report" / SCHEMA_FILE
CONTRACTS = sorted(
    str(path)
    for path in (ROOT / "contracts").iterdir()
    if path.suffix == ".json" and path.name != "contract.schema.json"
)
VALIDATOR = Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))


def errors(report: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in VALIDATOR.iter_errors(report)
    ]


def checked(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    target = tmp_path / "report.json"
    code = main(["check", *args, "--json", str(target), "-q"])
    report: dict[str, Any] = json.loads(target.read_text())
    return code, report


def test_the_schema_is_draft_2020_12_with_a_relative_id() -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == SCHEMA_FILE  # relative: resolved against where it is served
    assert schema["properties"]["schemaVersion"] == {"const": SCHEMA_VERSION}
    assert report_schema() == schema  # shipped with the package


def test_every_fixture_against_every_contract_gives_a_valid_report(tmp_path: Path) -> None:
    contracts = [arg for contract in CONTRACTS for arg in ("--contract", contract)]
    missing = str(tmp_path / "gone.jsonl")
    code, report = checked(tmp_path, str(ROOT / "fixtures"), missing, *contracts)
    assert code >= ExitCode.FAILED
    assert errors(report) == []
    assert len(report["results"]) > 100 and report["unread"][0]["source"] == missing
    rules = [rule for result in report["results"] for rule in result["rules"]]
    assert {rule["status"] for rule in rules} == {"pass", "fail", "error"}
    assert {"never", "eventually", "argument", "precedes", "retrySafe"} <= {
        rule["kind"] for rule in rules
    }
    violations = [v for rule in rules for v in rule["violations"]]
    assert any(v["tool"] for v in violations) and any(v["pointer"] for v in violations)


@pytest.mark.parametrize(
    "folder",
    sorted(path.name for path in (ROOT / "fixtures").iterdir() if path.is_dir()),
)
def test_each_producer_family_gives_a_valid_report(tmp_path: Path, folder: str) -> None:
    """Each folder of recorded runs on its own (every format and producer, one report each)."""
    contracts = [arg for contract in CONTRACTS for arg in ("--contract", contract)]
    _, report = checked(tmp_path, str(ROOT / "fixtures" / folder), *contracts)
    assert errors(report) == []
    assert report["results"] or report["unread"]


def test_the_report_names_its_schema_and_the_tool(tmp_path: Path) -> None:
    forbidden = str(ROOT / "fixtures" / "otel-genai" / "forbidden.otlp.jsonl")
    code, report = checked(
        tmp_path, forbidden, "--contract", str(ROOT / "contracts/refund-desk.json")
    )
    assert code == ExitCode.FAILED
    assert list(report)[:4] == ["version", "schemaVersion", "tool", "status"]
    assert report["version"] == 1 and report["schemaVersion"] == SCHEMA_VERSION
    assert report["tool"] == {"name": "tracecheck", "version": version()}
    (failed,) = [rule for rule in report["results"][0]["rules"] if rule["status"] == "fail"]
    assert failed["label"] == "tools.forbidden[run_shell]" and failed["kind"] == "never"
    (violation,) = failed["violations"]
    assert violation == {
        "span_id": "4b1b907d90c3da97",
        "tool": "run_shell",
        "pointer": None,
        "detail": 'span 4b1b907d90c3da97 ("execute_tool run_shell") matches '
        "never(kind=TOOL,tool=run_shell)",
    }


def test_an_argument_violation_carries_its_pointer_never_the_value(tmp_path: Path) -> None:
    value = "acct-7731-PRIVATE"
    span = {
        "traceId": "a" * 32,
        "spanId": "b" * 16,
        "name": "execute_tool transfer",
        "kind": 1,
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "transfer"}},
            {
                "key": "gen_ai.tool.call.arguments",
                "value": {"stringValue": json.dumps({"to": {"account": value}})},
            },
        ],
    }
    trace = tmp_path / "run.json"
    trace.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    contract = tmp_path / "c.json"
    contract.write_text(
        json.dumps(
            {
                "name": "typed",
                "tools": {
                    "arguments": [{"tool": "transfer", "pointer": "/to/account", "type": "number"}]
                },
            }
        )
    )
    code, report = checked(tmp_path, str(trace), "--contract", str(contract))
    assert code == ExitCode.FAILED
    assert errors(report) == []
    (rule,) = report["results"][0]["rules"]
    assert rule["kind"] == "argument"
    (violation,) = rule["violations"]
    assert violation["pointer"] == "/to/account" and violation["tool"] == "transfer"
    assert value not in json.dumps(report)


def test_a_report_that_breaks_the_schema_is_refused() -> None:
    """The schema is strict enough to catch a report that lost or garbled a member."""
    report = {
        "version": 1,
        "schemaVersion": SCHEMA_VERSION,
        "tool": {"name": "tracecheck", "version": "0.1.0"},
        "status": "fail",
        "results": [],
        "unread": [],
    }
    assert errors(report) == []
    for broken in (
        {**report, "schemaVersion": "1.0"},
        {**report, "status": "FAIL"},
        {k: v for k, v in report.items() if k != "tool"},
        {**report, "unread": [{"source": "a", "kind": "gone", "error": "x"}]},
    ):
        assert errors(broken), broken
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**report, "extra": True}, report_schema(), cls=Draft202012Validator)
