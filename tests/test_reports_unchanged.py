"""Every fixture checked against every bundled contract writes the verdicts, reports (text, JSON,
JUnit, SARIF, GitHub annotations and job summary, HTML, Parquet) and exit codes it wrote before,
byte for byte where a run is deterministic (`report_snapshots`: what is blanked and why); and
redacted under each profile, it writes the copy and the verdict it wrote before.

When this fails after a change meant to keep behaviour, `python tests/report_snapshots.py --diff
HEAD` shows what changed; when the change is meant, `python tests/report_snapshots.py` writes the
digests anew and the commit says why the reports changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("matplotlib", reason="the report extra is not installed")
pytest.importorskip("pyarrow", reason="the fleet extra is not installed")

import report_snapshots


@pytest.fixture(scope="module")
def expected() -> dict[str, dict[str, object]]:
    return dict(json.loads(report_snapshots.SNAPSHOTS.read_text(encoding="utf-8")))


def _differences(
    written: dict[str, str], expected: dict[str, dict[str, object]], group: str
) -> list[str]:
    now = {
        name: digest
        for name, digest in report_snapshots.digests(written).items()
        if name.startswith(f"{group}.")
    }
    wanted = {name: digest for name, digest in expected.items() if name.startswith(f"{group}.")}
    return [
        f"{name}: {now.get(name, {}).get('lines')} lines, before {wanted.get(name, {}).get('lines')}"
        for name in sorted(now.keys() | wanted.keys())
        if now.get(name) != wanted.get(name)
    ]


def test_check_writes_what_it_wrote(tmp_path: Path, expected: dict[str, dict[str, object]]) -> None:
    written = report_snapshots.check_reports(tmp_path)
    assert {"check.report.json", "check.junit.xml", "check.report.sarif"} <= written.keys()
    assert _differences(written, expected, "check") == []


def test_folders_and_standard_input_read_as_they_did(
    tmp_path: Path, expected: dict[str, dict[str, object]]
) -> None:
    assert _differences(report_snapshots.folder_reports(tmp_path), expected, "folders") == []


def test_the_page_draws_what_it_drew(
    tmp_path: Path, expected: dict[str, dict[str, object]]
) -> None:
    assert _differences(report_snapshots.page_reports(tmp_path), expected, "page") == []


def test_fleet_check_writes_what_it_wrote(
    tmp_path: Path, expected: dict[str, dict[str, object]]
) -> None:
    assert _differences(report_snapshots.fleet_reports(tmp_path), expected, "fleet") == []


def test_every_fixture_is_an_input() -> None:
    inputs = report_snapshots.fixture_inputs()
    assert len(inputs) > 800
    assert "fixtures/otel-genai/clean.otlp.jsonl" in inputs
    assert not any(name.startswith("fixtures/redaction/") for name in inputs)


def test_redact_writes_what_it_wrote(
    tmp_path: Path, expected: dict[str, dict[str, object]]
) -> None:
    written = report_snapshots.redaction_reports(tmp_path)
    # The gate never refuses what the redactor made of a fixture under a profile that keeps
    # raw content: redact and assess judge each value alike.
    refused = [
        name
        for name, text in written.items()
        if not name.startswith("redact.strict.") and "redacted trace is UNSAFE" in text
    ]
    assert refused == []
    assert _differences(written, expected, "redact") == []
    assert _differences(written, expected, "verify") == []
