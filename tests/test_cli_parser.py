"""A misspelt option is named as such, with the option meant, and exits as a usage error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracecheck.cli import ExitCode, main

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = str(ROOT / "contracts" / "refund-desk.json")
TRACE = str(ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl")


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == ExitCode.USAGE
    return capsys.readouterr().err.splitlines()[-1]


def test_a_misspelt_required_option_is_named_not_said_missing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = _error(capsys, ["check", TRACE, "--contracts", CONTRACT])
    assert line == (
        "tracecheck check: error: --contracts is not an option of tracecheck check;"
        " did you mean --contract?"
    )


def test_a_misspelt_option_is_named_with_the_one_meant(capsys: pytest.CaptureFixture[str]) -> None:
    line = _error(capsys, ["check", TRACE, "--contract", CONTRACT, "--jsn=out.json"])
    assert line.endswith("--jsn is not an option of tracecheck check; did you mean --json?")


def test_an_option_far_from_any_is_named_without_a_guess(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = _error(capsys, ["fleet", "check", "--zzzzzz", "x"])
    assert (
        line == "tracecheck fleet check: error: --zzzzzz is not an option of tracecheck fleet check"
    )


def test_an_abbreviation_and_words_after_the_separator_are_no_misspelling(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", TRACE, "--contr", CONTRACT, "-q"]) == ExitCode.OK
    capsys.readouterr()
    # After `--`, a word is a trace path however it is written.
    assert main(["check", "--contract", CONTRACT, "--", "--not-an-option"]) == ExitCode.UNREADABLE
    assert "--not-an-option: no such file or directory" in capsys.readouterr().err


def test_a_missing_required_option_is_still_said_missing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = _error(capsys, ["check", TRACE])
    assert line.endswith("the following arguments are required: --contract")
