"""The CI examples work as shipped: the GitHub Actions workflow in docs/ci/ and the pre-commit
hook in .pre-commit-hooks.yaml run tracecheck commands that exist and succeed on the bundled
contracts and fixtures."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from tracecheck.cli import Environment, ExitCode, main
from tracecheck.cli.app import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "docs" / "ci" / "github-actions.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"


def tracecheck_commands(workflow: dict[str, Any]) -> list[list[str]]:
    """The argument lists of every `tracecheck ...` line the workflow's steps run."""
    commands = []
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            for line in str(step.get("run", "")).splitlines():
                words = shlex.split(line, comments=True)
                if words and words[0] == "tracecheck":
                    commands.append(words[1:])
    return commands


def test_the_workflow_is_a_github_actions_workflow() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    assert workflow["name"]
    trigger = workflow.get("on", workflow.get(True))  # PyYAML reads the key `on` as YAML 1.1's true
    assert "pull_request" in trigger
    (job,) = workflow["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest"
    uses = [step["uses"] for step in job["steps"] if "uses" in step]
    assert all(re.fullmatch(r"actions/[a-z-]+@v\d+", action) for action in uses)
    assert any(step.get("if") == "always()" and "uses" in step for step in job["steps"])
    assert not WORKFLOW.is_relative_to(ROOT / ".github")  # an example, not this repository's CI


def test_the_workflows_commands_exist_and_succeed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Run where the workflow runs: a checkout holding contracts/ and fixtures/ (linked here, so
    # that the reports it writes land in tmp_path).
    for folder in ("contracts", "fixtures"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    monkeypatch.chdir(tmp_path)
    summary = tmp_path / "summary.md"
    environ = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    commands = tracecheck_commands(yaml.safe_load(WORKFLOW.read_text()))
    assert [command[0] for command in commands] == ["lint", "check", "verify-safe"]
    parser = build_parser()
    names = {name for name, _ in COMMANDS}
    for command in commands:
        assert command[0] in names
        parser.parse_args(command)  # every option exists
        assert main(command, env=Environment.current(environ=environ)) == ExitCode.OK, command
    assert (tmp_path / "reports" / "tracecheck.xml").is_file()
    assert (tmp_path / "reports" / "tracecheck.json").is_file()
    assert summary.read_text().startswith("## tracecheck: ✅ PASS")


def test_the_pre_commit_hook_lints_the_bundled_contracts() -> None:
    (hook,) = yaml.safe_load(HOOKS.read_text())
    assert hook["id"] == "tracecheck-lint" and hook["language"] == "python"
    entry = shlex.split(hook["entry"])
    assert entry[0] == "tracecheck" and entry[1] in {name for name, _ in COMMANDS}
    files = re.compile(hook["files"])  # pre-commit matches it with re.search
    tracked = [
        path.relative_to(ROOT).as_posix()
        for folder in ("contracts", "fixtures", "tests", "docs")
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    ]
    matched = sorted(name for name in tracked if files.search(name))
    contracts = sorted(
        path.relative_to(ROOT).as_posix()
        for path in [*(ROOT / "contracts").iterdir(), *ROOT.glob("fixtures/**/*.contract.*")]
        if path.suffix in (".json", ".yaml", ".yml")
    )
    assert "contracts/refund-desk.json" in contracts and len(contracts) > 6
    assert matched == contracts  # every contract, and no trace, test data or workflow
    for name in ("a/contracts/b/x.yml", "refund.contract.json", "x/refund.contract.yaml"):
        assert files.search(name), name
    for name in ("package.json", "contracts.json", "fixtures/run.otlp.json", "my-contracts/x.json"):
        assert not files.search(name), name
    assert set(hook["types_or"]) == {"json", "yaml"}
    assert main([*entry[1:], *(str(ROOT / name) for name in matched)]) == ExitCode.OK
