"""The worked example of docs/fleet.md ("Worked example: 20 tasks × 8 runs") is what the
commands print now: its runs are made afresh by examples/reliability/make_runs.py, its commands
run as the page spells them (from a folder holding `contracts/` and `examples/`, as a checkout
does), each output block is exactly what its command prints, and each DuckDB query gives the
figures of tracecheck's own JSON reports."""

from __future__ import annotations

import io
import json
import math
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import duckdb  # the test extra: the page's queries are run, never skipped
import pytest

from tracecheck.cli import Environment, ExitCode, main

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "fleet.md"
HEADING = "## Worked example: 20 tasks × 8 runs"
# Each command of the example and the exit code the page says it gives.
EXITS = {
    "make_runs.py": ExitCode.OK,  # the runs are written
    "check": ExitCode.FAILED,  # rules failed
    "summarize": ExitCode.FAILED,
    "compare": ExitCode.FAILED,  # a rule regressed
}
TOLERANCE = 1e-4  # the queries round to four places, the JSON to six


def section() -> str:
    page = PAGE.read_text(encoding="utf-8")
    start = page.index(f"\n{HEADING}\n")
    end = page.index("\n## ", start + 1)
    return page[start:end]


def blocks() -> list[tuple[str, str]]:
    """The section's fenced blocks in order, as (language, text)."""
    return re.findall(r"^```(\w+)\n(.*?)^```$", section(), re.S | re.M)


def commands(block: str) -> list[list[str]]:
    """The argument lists of a `sh` block, its lines continued by a backslash joined."""
    return [shlex.split(line) for line in block.replace("\\\n", " ").splitlines() if line]


def run(words: list[str], where: Path) -> tuple[int, str]:
    """A command of the page run in `where`: its exit code and its standard output."""
    if words[0] == "python":
        done = subprocess.run(
            [sys.executable, *words[1:]], cwd=where, capture_output=True, text=True, timeout=120
        )
        assert not done.stderr, done.stderr
        return done.returncode, done.stdout
    assert words[0] == "tracecheck", words
    out, err = io.StringIO(), io.StringIO()
    code = main(words[1:], env=Environment(io.StringIO(), out, err, {}))
    assert not err.getvalue(), err.getvalue()
    return code, out.getvalue()


def named(words: list[str]) -> str:
    return Path(words[1]).name if words[0] == "python" else words[2]


class Example(NamedTuple):
    where: Path  # the folder the example ran in
    codes: list[tuple[str, int]]  # each command's name and exit code, in order
    printed: list[tuple[str, str]]  # each output block shown, and what its command printed


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Example:
    """Every command of the page run in order, in a folder of its own."""
    where = tmp_path_factory.mktemp("worked-example")
    for name in ("contracts", "examples"):
        (where / name).symlink_to(ROOT / name)
    found = blocks()
    ran = Example(where, [], [])
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(where)  # the page's paths are relative, as its reader types them
        for index, (language, text) in enumerate(found):
            if language != "sh":
                continue
            output = ""
            for words in commands(text):
                code, output = run(words, where)
                ran.codes.append((named(words), code))
            following = found[index + 1] if index + 1 < len(found) else None
            if following is not None and following[0] == "text":
                ran.printed.append((following[1], output))
    return ran


def test_each_command_gives_the_exit_code_the_page_says(example: Example) -> None:
    assert [name for name, _ in example.codes] == [
        "make_runs.py",
        "check",
        "check",
        "summarize",
        "compare",
    ]
    assert [code for _, code in example.codes] == [EXITS[name] for name, _ in example.codes]
    assert len(list((example.where / "runs" / "v1").iterdir())) == 20 * 8
    assert len(list((example.where / "runs" / "v2").iterdir())) == 20 * 8


def test_each_output_block_is_what_its_command_prints(example: Example) -> None:
    assert len(example.printed) == 2  # the summary and the comparison
    for shown, printed in example.printed:
        # A blank line after the output is no part of what a block can show.
        assert shown.rstrip("\n") == printed.rstrip("\n")


def test_the_runs_are_the_same_every_time(example: Example, tmp_path: Path) -> None:
    again = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "reliability" / "make_runs.py"), "runs"],
        cwd=tmp_path,
        check=True,
    )
    assert again.returncode == 0
    for version in ("v1", "v2"):
        made = sorted((example.where / "runs" / version).iterdir())
        assert [path.read_bytes() for path in made] == [
            (tmp_path / "runs" / version / path.name).read_bytes() for path in made
        ]


def test_the_example_shows_each_kind_of_finding(example: Example) -> None:
    """What the page says of the figures: stable passes, two flaky rules, a stable fail, one
    regression, one improvement and a difference too small to be one."""
    rules = {r["rule"]: r for r in reliability(example)["rules"]}
    assert {r["stability"] for r in rules.values()} == {"stable pass", "flaky", "stable fail"}
    assert rules["tools.forbidden[run_shell]"]["flaky_tasks"] == 3
    assert rules["tools.requiredOrder[lookup_order->issue_refund]"]["flaky_tasks"] == 4
    stable_fail = rules["tools.arguments[1] issue_refund /amount type number"]
    assert (stable_fail["stability"], stable_fail["pass_hat_k"]) == ("stable fail", 0.95)
    changes = {r["rule"]: r for r in comparison(example)["rules"]}
    assert changes["tools.requiredOrder[lookup_order->issue_refund]"]["change"] == "regressed"
    assert changes["llm.maxTotalTokens"]["change"] == "improved"
    shell = changes["tools.forbidden[run_shell]"]
    assert shell["change"] == "no significant change"
    assert shell["before"] != shell["after"]
    assert f"p = {shell['p_value']:.3g}" in section()


def reliability(example: Example) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((example.where / "v2.json").read_text())["reliability"]
    return found


def comparison(example: Example) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((example.where / "compare.json").read_text())
    return found


# A column of a query's result and the figure of tracecheck's JSON it reproduces.
RELIABILITY_COLUMNS: dict[str, Callable[[dict[str, Any]], object]] = {
    "passes": lambda rule: rule["passes"],
    "runs": lambda rule: rule["runs"],
    "pass_rate": lambda rule: rule["pass_rate"],
    "low": lambda rule: rule["interval_95"][0],
    "high": lambda rule: rule["interval_95"][1],
    "pass_hat_4": lambda rule: rule["pass_hat_k"],
    "stability": lambda rule: rule["stability"],
    "flaky_tasks": lambda rule: rule["flaky_tasks"],
    "tasks": lambda rule: rule["tasks"],
}
COMPARISON_COLUMNS: dict[str, Callable[[dict[str, Any]], object]] = {
    "v1": lambda rule: f"{rule['before']['pass']}/{rule['before']['runs']}",
    "v2": lambda rule: f"{rule['after']['pass']}/{rule['after']['runs']}",
    "p": lambda rule: rule["p_value"],
    "change": lambda rule: rule["change"],
}


def test_each_query_gives_tracecheck_s_figures(
    example: Example, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(example.where)  # the queries read v1.parquet and v2.parquet where they are
    queries = [text for language, text in blocks() if language == "sql"]
    assert len(queries) == 4
    rules = {r["rule"]: r for r in reliability(example)["rules"]}
    assert reliability(example)["rules"][0]["k"] == 4  # the queries' pass^4
    changes = {r["rule"]: r for r in comparison(example)["rules"]}
    connection = duckdb.connect()
    checked: list[set[str]] = []
    for query in queries:
        result = connection.execute(query)
        if result.description is None or not query.lstrip().upper().startswith(("WITH", "SELECT")):
            continue  # the view the queries share
        names = [column[0] for column in result.description]
        rows = [dict(zip(names, row, strict=True)) for row in result.fetchall()]
        expected, columns = (
            (changes, COMPARISON_COLUMNS) if "change" in names else (rules, RELIABILITY_COLUMNS)
        )
        assert sorted(row["rule"] for row in rows) == sorted(expected)
        compared = set(names) & set(columns)
        assert compared == set(names) - {"rule"}, names  # every figure a query gives is checked
        for row in rows:
            for name in compared:
                agree(row[name], columns[name](expected[row["rule"]]), (row["rule"], name))
        checked.append(compared)
    assert checked == [
        {"passes", "runs", "pass_rate", "low", "high"},
        {"pass_hat_4", "stability", "flaky_tasks", "tasks"},
        {"v1", "v2", "p", "change"},
    ]


def agree(got: object, expected: object, where: object) -> None:
    if isinstance(expected, float) and not isinstance(got, str):
        assert isinstance(got, (int, float)), where
        if expected and expected < 0.01:  # a p-value: to its own precision
            assert math.isclose(got, expected, rel_tol=1e-6), (where, got, expected)
        else:
            assert abs(got - expected) <= TOLERANCE, (where, got, expected)
    else:
        assert got == expected, (where, got, expected)
