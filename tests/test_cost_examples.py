"""The cost examples docs/cost.md shows (examples/cost/, included by the page): every command
on the page runs and prints what the page says, with the exit code its verdict gives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tracecheck.cli import ExitCode, main

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "cost.md"
EXAMPLES = ROOT / "examples" / "cost"

# Each `sh` block of the page and the `text` block after it, when there is one.
BLOCKS = re.findall(
    r"```sh\n(tracecheck [^\n]+)\n```\n(?:\n```text\n(.*?)```)?",
    PAGE.read_text(encoding="utf-8"),
    re.S,
)
EXITS = {
    "examples/cost/refund-budget.yaml": ExitCode.OK,
    "examples/cost/budget.yaml": ExitCode.FAILED,
}


def test_every_example_is_on_the_page() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for example in EXAMPLES.iterdir():
        assert f'--8<-- "examples/cost/{example.name}"' in page


@pytest.mark.parametrize(("command", "shown"), BLOCKS, ids=[b[0].split()[-1] for b in BLOCKS])
def test_each_command_prints_what_the_page_shows(
    command: str, shown: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    argv = command.split()[1:]
    contract = argv[argv.index("--contract") + 1]
    assert main(argv) == EXITS[contract]
    out = capsys.readouterr().out
    for line in shown.splitlines():
        assert line in out.splitlines()


def test_the_page_shows_two_commands() -> None:
    assert len(BLOCKS) == 2


def test_the_explained_rule_is_the_pages(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(EXAMPLES / "refund-budget.yaml")]) == ExitCode.OK
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "llm.maxCostUsd" in line]
    assert f"```text\n{line}\n```" in PAGE.read_text(encoding="utf-8")


def test_the_python_example_gives_the_totals_the_page_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    (code,) = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    names: dict[str, object] = {}
    exec(compile(code, str(PAGE), "exec"), names)  # the page's own code, as written
    assert names["verdict"].status == "fail"  # type: ignore[attr-defined]
    assert str(names["cost"].total) == "0.04985235"  # type: ignore[attr-defined]
