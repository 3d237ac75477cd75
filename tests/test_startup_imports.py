"""`tracecheck check` on a small file imports what it uses and nothing else (issue 32, item 6):
no report writer it was not asked for, no rule kind its contract does not name, no `decimal`
or `threading`. Each case runs the command in a fresh interpreter and reads `sys.modules`
after it; how long start-up takes is measured in bench/ (bench/cli_startup.py), not here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tracecheck.contract.limits_spec import DURATION_KEYS
from tracecheck.rules.timing import PERCENTILES

ROOT = Path(__file__).resolve().parent.parent
TRACE = "fixtures/otel-genai/clean.otlp.jsonl"
CONTRACT = "contracts/refund-desk.json"

# Run `main` and print the modules loaded, as JSON on the last line of stdout.
_PROGRAM = """
import json, sys
from tracecheck.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

WRITERS = {
    "--json": "tracecheck.report.json",
    "--junit": "tracecheck.report.junit",
    "--sarif": "tracecheck.report.sarif",
    "--annotations": "tracecheck.report.github",
}
# Rule kinds refund-desk.json names no rule of (it has tools, retries and llm sections).
UNNAMED_KINDS = (
    "tracecheck.rules.cost",
    "tracecheck.rules.loops",
    "tracecheck.rules.pricing",
    "tracecheck.rules.requires",
    "tracecheck.rules.run",
    "tracecheck.rules.timing",
    "tracecheck.rules.trajectory",
)


def loaded(*argv: str) -> set[str]:
    """The modules `tracecheck check <argv>` leaves loaded, run in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM, "check", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["code"] == 0, done.stdout
    return set(result["modules"])


@pytest.fixture(scope="module")
def plain() -> set[str]:
    return loaded(TRACE, "--contract", CONTRACT)


@pytest.mark.parametrize("module", ["threading", "decimal", "concurrent.futures", "yaml"])
def test_check_loads_no_module_it_does_not_use(plain: set[str], module: str) -> None:
    assert module not in plain


@pytest.mark.xfail(
    strict=True,
    reason="the in-process engine spills each checked trace pickled (run/task.py `Spilled`)",
)
def test_check_loads_no_pickle(plain: set[str]) -> None:
    assert "pickle" not in plain


def test_check_loads_no_report_writer_it_was_not_asked_for(plain: set[str]) -> None:
    assert {*WRITERS.values(), "tracecheck.report.html"} & plain == set()
    assert "tracecheck.report.text" in plain  # the report it prints


def test_check_loads_only_the_rule_kinds_its_contract_names(plain: set[str]) -> None:
    assert set(UNNAMED_KINDS) & plain == set()
    assert {"tracecheck.rules.presence", "tracecheck.rules.retry"} <= plain
    # Neither the golden-run reader nor JSON Schema: the contract names no golden run, no schema.
    assert "tracecheck.contract.golden" not in plain
    assert "tracecheck.rules.schemas" not in plain


@pytest.mark.parametrize(("option", "module"), sorted(WRITERS.items()))
def test_a_report_asked_for_loads_its_writer(
    tmp_path: Path, plain: set[str], option: str, module: str
) -> None:
    target = [] if option == "--annotations" else [str(tmp_path / "report")]
    modules = loaded(TRACE, "--contract", CONTRACT, option, *target)
    assert module in modules
    assert module not in plain


def test_a_rule_kind_named_is_loaded(tmp_path: Path) -> None:
    contract = tmp_path / "timed.json"
    contract.write_text(json.dumps({"name": "timed", "errors": {"TOOL": {"max": 5}}}))
    modules = loaded(TRACE, "--contract", str(contract))
    assert "tracecheck.rules.timing" in modules
    assert "tracecheck.rules.loops" not in modules


def test_the_duration_keys_are_the_percentiles() -> None:
    # Written out in limits_spec so that parsing a contract does not load the timing rules.
    assert tuple(PERCENTILES) == DURATION_KEYS
