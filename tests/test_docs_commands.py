"""Every command the documentation shows after a `$ ` prompt is run, and what it prints is what
the page says (a `…` in a shown line stands for what the page leaves out of it; a line `...`,
for the lines after it), so the pages cannot drift from the commands."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
START = DOCS / "getting-started.md"
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _blocks(page: Path) -> list[str]:
    return FENCE.findall(page.read_text(encoding="utf-8"))


def _shown(page: Path) -> list[tuple[str, list[str]]]:
    """Each `$ tracecheck …` command of the page's code blocks, with the lines shown after it."""
    commands: list[tuple[str, list[str]]] = []
    for block in _blocks(page):
        for part in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
            command, *lines = part.rstrip("\n").split("\n")
            while lines and not lines[-1]:
                lines.pop()
            if command.startswith("tracecheck "):
                commands.append((command, lines))
    return commands


PAGES = sorted(page for page in DOCS.glob("*.md") if _shown(page))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder as the page's reader has it: the repository's fixtures and contracts, the
    contract the page saves as `my-agent.yaml`, a misspelt copy and a run to check."""
    folder = tmp_path_factory.mktemp("docs")
    for name in ("fixtures", "contracts", "examples"):
        (folder / name).symlink_to(ROOT / name)
    (contract,) = [block for block in _blocks(START) if block.startswith("# yaml-language")]
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


def test_the_pages_show_commands() -> None:
    assert START in PAGES and len(_shown(START)) >= 6


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_every_command_prints_what_the_page_shows(workdir: Path, page: Path) -> None:
    # In the page's order: a command reads what an earlier one wrote (`shared.otlp.jsonl`).
    differing = []
    for command, shown in _shown(page):
        done = subprocess.run(
            [sys.executable, "-m", "tracecheck", *command.split()[1:]],
            cwd=workdir,
            capture_output=True,
            text=True,
            check=False,
        )
        printed = (done.stdout + done.stderr).rstrip("\n").split("\n")
        if not _matches(shown, printed):
            differing.append("\n".join([f"$ {command}", "printed:", *printed, "shown:", *shown]))
    assert differing == []


def test_code_blocks_wrap_their_long_lines() -> None:
    # A command's output is wider than the page at 1280 px: it wraps instead of hiding behind
    # a scroll bar (the rule the site's stylesheet adds to MkDocs Material's).
    site = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    (sheet,) = site["extra_css"]
    rules = (DOCS / sheet).read_text(encoding="utf-8")
    block = rules.split(".md-typeset pre > code", 1)[1].split("}", 1)[0]
    assert "white-space: pre-wrap" in block and "overflow-wrap: anywhere" in block
