"""The command line as a package: one module per command, the parser built without loading
what the commands run, `ExitCode` everywhere, and every way of starting it."""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tracecheck.cli import ExitCode, main
from tracecheck.cli.app import COMMANDS, build_parser
from tracecheck.distribution import DISTRIBUTION, version

ROOT = Path(__file__).resolve().parent.parent
CLI = ROOT / "tracecheck" / "cli"
CLEAN = str(ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl")
CONTRACT = str(ROOT / "contracts" / "refund-desk.json")

# What building the parser must not load: readers, contracts, rules, the checker, reporters,
# the redactor, servers and HTTP clients, YAML and protobuf.
HEAVY = (
    "tracecheck.readers",
    "tracecheck.contract",
    "tracecheck.rules",
    "tracecheck.check",
    "tracecheck.conventions",
    "tracecheck.spans",
    "tracecheck.report",
    "tracecheck.show",
    "tracecheck.sharing",
    "tracecheck.writers",
    "redact",
    "uvicorn",
    "httpx",
    "starlette",
    "yaml",
    "google.protobuf",
    "importlib.metadata",
)


def loaded_after(code: str) -> list[str]:
    """The modules a fresh interpreter holds after running `code` (which must not exit)."""
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return list(json.loads(done.stdout.splitlines()[-1]))


def heavy(modules: list[str], allowed: tuple[str, ...] = ()) -> list[str]:
    return [
        name
        for name in modules
        if name.startswith(HEAVY) and not name.startswith(allowed) and name != "tracecheck"
    ]


def test_building_the_parser_loads_nothing_a_command_runs() -> None:
    modules = loaded_after(
        "from tracecheck.cli import main\n"
        "from tracecheck.cli.app import build_parser\n"
        "build_parser()\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
    )
    assert heavy(modules) == []
    for name, _ in COMMANDS:
        modules = loaded_after(
            "import contextlib, io\n"
            "from tracecheck.cli import main\n"
            f"with contextlib.redirect_stdout(io.StringIO()):\n    main([{name!r}, '--help'])\n"
        )
        assert heavy(modules) == [], name


def test_check_on_a_small_file_loads_only_what_checking_needs() -> None:
    modules = loaded_after(
        "import contextlib, io\n"
        "from tracecheck.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['check', {CLEAN!r}, '--contract', {CONTRACT!r}]) == 0\n"
    )
    assert "tracecheck.check" in modules
    # The text report is what check prints; the JSON, JUnit and GitHub reporters wait to be
    # asked, and nothing of redaction, serving, shipping or writing is loaded.
    unneeded = (
        "tracecheck.report.json",
        "tracecheck.report.junit",
        "tracecheck.report.github",
        "tracecheck.show",
        "tracecheck.sharing",
        "tracecheck.writers",
        "redact",
        "uvicorn",
        "httpx",
        "starlette",
        "importlib.metadata",
    )
    assert [name for name in modules if name.startswith(unneeded)] == []


def test_every_command_is_a_module_with_options_and_a_run() -> None:
    names = [name for name, _ in COMMANDS]
    assert names == [
        "check",
        "diff",
        "report",
        "fleet",
        "show",
        "lint",
        "explain",
        "contracts",
        "init",
        "redact",
        "verify-safe",
        "proxy",
        "ship",
        "ingest-server",
    ]
    for _, module in COMMANDS:
        assert module.__name__.startswith("tracecheck.cli.")
        assert module.SUMMARY and module.DESCRIPTION
        assert callable(module.add_parser) and callable(module.run)
    parser = build_parser()
    for name, module in COMMANDS:
        args = parser.parse_args(_minimal(name))
        assert args.command == name and args.run is module.run


def _minimal(name: str) -> list[str]:
    """Arguments that parse for each command."""
    return {
        "check": ["check", "t.jsonl", "--contract", "c.json"],
        "diff": ["diff", "baseline.jsonl", "run.jsonl"],
        "init": ["init", "run.jsonl"],
        "report": ["report", "t.jsonl", "--contract", "c.json", "-o", "report.html"],
        "fleet": ["fleet", "summarize", "verdicts.parquet"],
        "show": ["show", "t.jsonl"],
        "lint": ["lint", "c.json"],
        "explain": ["explain", "c.json"],
        "contracts": ["contracts"],
        "redact": ["redact", "t.jsonl", "-o", "out.jsonl"],
        "verify-safe": ["verify-safe", "t.jsonl"],
        "proxy": ["proxy", "--upstream", "http://collector:4318"],
        "ship": ["ship", "t.jsonl"],
        "ingest-server": ["ingest-server", "--db", "t.db"],
    }[name]


def test_the_defaults_help_shows_are_the_servers_own() -> None:
    import redact.shipping.ingest
    import redact.shipping.settings
    from tracecheck.cli import ingest, proxy

    assert proxy.DEFAULT_MAX_BODY_BYTES == redact.shipping.settings.DEFAULT_MAX_BODY_BYTES
    assert proxy.DEFAULT_QUEUE_SIZE == redact.shipping.settings.DEFAULT_QUEUE_SIZE
    assert proxy.DEFAULT_UPSTREAM_TIMEOUT == redact.shipping.settings.DEFAULT_UPSTREAM_TIMEOUT
    assert ingest.DEFAULT_MAX_BODY_BYTES == redact.shipping.ingest.DEFAULT_MAX_BODY_BYTES


def test_the_format_names_are_the_readers_and_writers_own() -> None:
    from tracecheck.formats import FORMATS, OUTPUT_FORMATS
    from tracecheck.readers import FORMATS as READ
    from tracecheck.readers.tracers import TRACER_READERS
    from tracecheck.writers.layout import OUTPUT_FORMATS as WRITTEN

    assert FORMATS == READ and OUTPUT_FORMATS == WRITTEN
    assert set(TRACER_READERS) <= set(FORMATS)


def test_version_is_what_importlib_metadata_says() -> None:
    assert version() == importlib.metadata.version(DISTRIBUTION)


CODE_TAKERS = ("Stop", "ExitCode", "sys.exit")


def test_exit_codes_are_named_never_bare_integers() -> None:
    """No `return 2`, `Stop(3)` or `sys.exit(1)` in the command modules: `ExitCode` names
    every code (the shell's 130 for an interrupt is `codes.INTERRUPTED`)."""
    bare: list[str] = []
    for path in sorted(CLI.glob("*.py")):
        tree = ast.parse(path.read_text())
        returns = [
            node
            for function in ast.walk(tree)
            if isinstance(function, ast.FunctionDef)
            and (function.name in ("main", "run") or "ExitCode" in ast.unparse(function.returns))
            for node in ast.walk(function)
            if isinstance(node, ast.Return)
        ]
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
        for node in [*returns, *calls]:
            values: list[ast.expr | None] = []
            if isinstance(node, ast.Return):
                values.append(node.value)
            elif isinstance(node, ast.Call) and ast.unparse(node.func) in CODE_TAKERS:
                values.extend(node.args)
            for value in values:
                if isinstance(value, ast.Constant) and type(value.value) is int:
                    bare.append(f"{path.name}:{node.lineno}")
    assert bare == []


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "tracecheck"],
        [sys.executable, "-m", "tracecheck.cli"],
        [str(Path(sys.executable).parent / "tracecheck")],
    ],
    ids=["python -m tracecheck", "python -m tracecheck.cli", "console script"],
)
def test_every_way_of_starting_it_runs_a_command(command: list[str]) -> None:
    if not Path(command[0]).exists():
        pytest.skip("no console script beside this interpreter")
    done = subprocess.run(
        [*command, "--version"], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert (done.returncode, done.stdout) == (0, f"tracecheck {version()}\n")
    done = subprocess.run(
        [*command, "check", CLEAN, "--contract", CONTRACT, "-q"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == ExitCode.OK, done.stderr
    assert done.stdout.endswith('contract "refund-desk" PASS (9/9 rules passed)\n')


def test_the_console_script_names_main() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, name = scripts["tracecheck"].partition(":")
    assert getattr(importlib.import_module(module), name) is main


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == ExitCode.USAGE
    assert "commands:" in capsys.readouterr().err
