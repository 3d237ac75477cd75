"""docs/diff.md shows what the code does: every `tracecheck diff` command it shows prints the
text under it and exits with the code its comment gives, and its library example runs."""

from __future__ import annotations

import io
import os
import re
import shlex
from pathlib import Path

import pytest
from diff_support import agent_run, calls

from tracecheck.cli import Environment, main
from tracecheck.diff import diff_runs
from tracecheck.testing.golden import golden_failure

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
SHOWN = re.findall(r"```sh\n(tracecheck diff [^\n]*)\n```\n\n```text\n(.*?)\n```", PAGE, re.S)


def test_the_page_shows_commands() -> None:
    assert len(SHOWN) >= 4


@pytest.mark.parametrize(("command", "text"), SHOWN, ids=[c for c, _ in SHOWN])
def test_each_command_prints_what_the_page_shows(
    command: str, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    (code,) = re.findall(r"# exit (\d)$", command)
    out, err = io.StringIO(), io.StringIO()
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env = Environment(io.StringIO(), out, err, {**environ, "NO_COLOR": "1"})
    words = shlex.split(command, comments=True)
    assert main(words[1:], env=env) == int(code), err.getvalue()
    assert out.getvalue() == text + "\n"


def test_the_library_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    (example,) = re.findall(r"## In a library\n\n```python\n(.*?)```", PAGE, re.S)
    monkeypatch.chdir(ROOT)
    exec(compile(example, "docs/diff.md", "exec"), {})


def test_the_pytest_failure_on_the_page_is_the_plugins() -> None:
    """The page's failure, its ids and times elided (…), is what the plugin says of a run that
    calls run_shell where its golden (lookup_order, issue_refund) does not."""
    (shown,) = re.findall(r"with the diff:\n\n```text\n(.*?)\n```", PAGE, re.S)
    golden = agent_run(calls("lookup_order", "issue_refund"))
    run = agent_run(calls("lookup_order", "run_shell", "issue_refund"), prefix="r")
    said = golden_failure("goldens/refund.otlp.json", diff_runs(golden, run)).splitlines()
    patterns = [re.escape(line).replace("…", ".*") for line in shown.splitlines()]
    assert len(said) == len(patterns)
    for line, pattern in zip(said, patterns, strict=True):
        assert re.fullmatch(pattern, line), (line, pattern)
