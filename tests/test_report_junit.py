"""JUnit XML validates against the Jenkins xUnit plugin's schema (`tests/schemas/junit-10.xsd`,
copied as it is under its MIT licence): for real runs over the bundled fixtures and contracts,
with failures, rule errors, skipped alternatives and unread inputs, and for any verdicts a
reporter may be handed. Suites are named by file and contract."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

import pytest
import xmlschema
from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck.cli import ExitCode, main
from tracecheck.report import CheckedTrace, ReadFailure, junit_parts, render_junit
from tracecheck.verdict import RuleResult, Verdict, Violation

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = xmlschema.XMLSchema10(ROOT / "tests" / "schemas" / "junit-10.xsd")
CONTRACTS = sorted(
    str(path)
    for path in (ROOT / "contracts").iterdir()
    if path.suffix in (".json", ".yaml") and not path.name.endswith(".schema.json")
)
CLEAN = str(ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl")
FORBIDDEN = str(ROOT / "fixtures" / "otel-genai" / "forbidden.otlp.jsonl")


def assert_valid(document: bytes) -> ET.Element:
    SCHEMA.validate(document.decode())
    return ET.fromstring(document)


def test_the_schema_is_the_plugins() -> None:
    text = (ROOT / "tests" / "schemas" / "junit-10.xsd").read_text()
    assert "The MIT License (MIT)" in text and "Gregory Boissinot" in text
    assert "testsuites" in SCHEMA.elements and "testsuite" in SCHEMA.elements
    # What the root may carry: no `skipped` count there (only on each testsuite).
    assert set(SCHEMA.elements["testsuites"].attributes) == {
        "name",
        "time",
        "tests",
        "failures",
        "errors",
    }


def test_every_fixture_against_every_contract_validates(tmp_path: Path) -> None:
    target = tmp_path / "all.xml"
    missing = str(tmp_path / "gone.jsonl")
    args = ["check", str(ROOT / "fixtures"), missing, "--junit", str(target), "-q"]
    for contract in CONTRACTS:
        args += ["--contract", contract]
    assert main(args) >= ExitCode.FAILED
    root = assert_valid(target.read_bytes())
    suites = root.findall("testsuite")
    assert len(suites) > 100
    statuses = {child.tag for case in root.iter("testcase") for child in case}
    assert {"failure", "error"} <= statuses
    assert root.get("skipped") is None
    assert suites[-1].get("name") == missing  # the unread input's own suite


def test_skipped_alternatives_and_suite_names(tmp_path: Path) -> None:
    contract = tmp_path / "alt.json"
    contract.write_text(
        json.dumps(
            {
                "name": "alt",
                "tools": {"required": ["lookup_order"]},
                "alternatives": {
                    "anyOf": [
                        {"id": "refund", "tools": {"required": ["issue_refund"]}},
                        {"id": "shell", "tools": {"required": ["run_shell"]}},
                    ]
                },
            }
        )
    )
    target = tmp_path / "out.xml"
    args = ["check", CLEAN, FORBIDDEN, "--contract", str(contract), "--junit", str(target)]
    main([*args, "--contract", str(ROOT / "contracts" / "refund-desk.json")])
    root = assert_valid(target.read_bytes())
    names = [suite.get("name") for suite in root.findall("testsuite")]
    # One trace per file: a suite is named by its file and contract.
    assert names == [
        f"{CLEAN}: alt",
        f"{CLEAN}: refund-desk",
        f"{FORBIDDEN}: alt",
        f"{FORBIDDEN}: refund-desk",
    ]
    assert any(case.find("skipped") is not None for case in root.iter("testcase"))


def test_a_file_of_several_traces_names_each_suite_by_its_trace_too(tmp_path: Path) -> None:
    lines = [Path(CLEAN).read_text().strip(), Path(FORBIDDEN).read_text().strip()]
    both = tmp_path / "both.otlp.jsonl"
    both.write_text("\n".join(lines) + "\n")
    target = tmp_path / "out.xml"
    contract = str(ROOT / "contracts" / "refund-desk.json")
    main(["check", str(both), "--contract", contract, "--junit", str(target), "-q"])
    root = assert_valid(target.read_bytes())
    names = [suite.get("name") for suite in root.findall("testsuite")]
    assert names == [
        f"{both}: refund-desk @ bdfc178765b50e0a8be66e350728be0e",
        f"{both}: refund-desk @ 168b0270d96edde63163f0a84510227f",
    ]


TEXT = st.text(
    st.one_of(st.characters(), st.sampled_from(["\ud800", "\x00", "\x1b", "\n", "é", "😀"])),
    max_size=12,
)


@st.composite
def rules(draw: st.DrawFn) -> RuleResult:
    status = draw(st.sampled_from(["pass", "fail", "error", "skipped"]))
    violations: tuple[Violation, ...] = ()
    if status == "fail":
        violations = tuple(
            Violation(draw(st.none() | st.just("ab" * 8)), draw(TEXT), draw(st.none() | TEXT))
            for _ in range(draw(st.integers(0, 3)))
        )
    error = draw(TEXT) if status == "error" else None
    return RuleResult(draw(TEXT), draw(st.none() | TEXT), status, violations, error)


@st.composite
def verdicts(draw: st.DrawFn) -> CheckedTrace:
    drawn = tuple(draw(st.lists(rules(), max_size=4)))
    status = draw(st.sampled_from(["pass", "fail", "error"]))
    verdict = Verdict(draw(TEXT), draw(st.none() | TEXT), status, drawn, 0.5, draw(TEXT))
    sources = tuple(draw(st.lists(TEXT, max_size=3)))
    return CheckedTrace(
        draw(TEXT), draw(st.none() | TEXT), verdict, draw(st.floats(0, 1e6)), sources
    )


@settings(max_examples=100, deadline=None)
@given(
    st.lists(verdicts(), max_size=4),
    st.lists(
        st.builds(ReadFailure, TEXT, st.sampled_from(["unreadable", "ambiguous"]), TEXT),
        max_size=2,
    ),
)
def test_any_verdicts_validate(items: list[CheckedTrace], failures: list[ReadFailure]) -> None:
    stamp = datetime(2026, 12, 3, 12, 0, 0)
    whole = render_junit(items, failures, timestamp=stamp)
    assert_valid(whole)
    assert b"".join(junit_parts(lambda: iter(items), failures, timestamp=stamp)) == whole


@pytest.mark.parametrize("seconds", [0.0, 0.0004, 12.5, 86_400.25, 1e7])
def test_times_fit_the_schemas_pattern(seconds: float) -> None:
    verdict = Verdict("c", "t", "pass", (RuleResult("r", None, "pass"),), 1.0, "1/1 rules passed")
    assert_valid(render_junit([CheckedTrace("a", None, verdict, seconds)]))
