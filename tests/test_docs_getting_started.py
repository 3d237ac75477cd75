"""Every command docs/getting-started.md shows is run, and what it prints is what the page says
(a `…` in a shown line stands for what the page leaves out of it; a line `...`, for the lines
after it), so the page cannot drift from the command."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "getting-started.md"


def _blocks(kind: str) -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    return [block.split("\n```", 1)[0] for block in text.split(f"```{kind}\n")[1:]]


def _shown() -> list[tuple[str, list[str]]]:
    """Each `$ tracecheck …` command of the page's text blocks, with the lines shown after it."""
    commands: list[tuple[str, list[str]]] = []
    for block in _blocks("text"):
        for part in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
            command, *lines = part.rstrip("\n").split("\n")
            while lines and not lines[-1]:
                lines.pop()
            commands.append((command, lines))
    return commands


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder as the page's reader has it: the repository's fixtures and contracts, the
    contract the page saves as `my-agent.yaml`, a misspelt copy and a run to check."""
    folder = tmp_path_factory.mktemp("getting-started")
    for name in ("fixtures", "contracts"):
        (folder / name).symlink_to(ROOT / name)
    (contract,) = [block for block in _blocks("yaml") if block.startswith("# yaml-language")]
    (folder / "my-agent.yaml").write_text(contract, encoding="utf-8")
    (folder / "typo.yaml").write_text(contract.replace("required:", "requird:"), encoding="utf-8")
    shutil.copy(ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl", folder / "run.otlp.jsonl")
    return folder


def _matches(shown: list[str], printed: list[str]) -> bool:
    for index, line in enumerate(shown):
        if line.strip() == "...":
            return True
        if index >= len(printed):
            return False
        pattern = ".*?".join(re.escape(piece) for piece in line.split("…"))
        if not re.fullmatch(pattern, printed[index]):
            return False
    return len(shown) == len(printed)


COMMANDS = _shown()


def test_the_page_shows_its_commands() -> None:
    assert len(COMMANDS) >= 6
    assert any(command.startswith("tracecheck verify-safe") for command, _ in COMMANDS)


def test_every_command_prints_what_the_page_shows(workdir: Path) -> None:
    # In the page's order: a command reads what an earlier one wrote (`shared.otlp.jsonl`).
    differing = []
    for command, shown in COMMANDS:
        argv = command.split()
        assert argv[0] == "tracecheck"
        done = subprocess.run(
            [sys.executable, "-m", "tracecheck", *argv[1:]],
            cwd=workdir,
            capture_output=True,
            text=True,
            check=False,
        )
        printed = (done.stdout + done.stderr).rstrip("\n").split("\n")
        if not _matches(shown, printed):
            differing.append("\n".join([f"$ {command}", "printed:", *printed, "shown:", *shown]))
    assert differing == []
