"""The `tracecheck` command line: parse arguments, run one command, return an exit code.

Building the parser imports each command module's options and nothing they run: no reader,
checker, reporter, redactor or server is loaded until a command's `run` asks for it, so
`tracecheck --version` and `--help` start about as fast as Python does. A command line that
names its command first builds (and imports) that command's options alone.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from tracecheck.cli.codes import EPILOG, INTERRUPTED, ExitCode, Stop, internal_error
from tracecheck.cli.environment import Environment
from tracecheck.cli.parser import CommandParser

__all__ = ["build_parser", "main"]

# Each command: its name and the module holding its `SUMMARY`, `DESCRIPTION`, `add_parser`
# and `run`, in the order `--help` lists them. A command line that names its command first
# imports only that command's module (`check` need not load the options of `fleet`, `proxy`
# or `ship`); `COMMANDS` gives every (name, module) pair, importing them all.
_COMMANDS: tuple[tuple[str, str], ...] = (
    ("check", "tracecheck.cli.check"),
    ("diff", "tracecheck.cli.diff"),
    ("report", "tracecheck.cli.report"),
    ("fleet", "tracecheck.cli.fleet"),
    ("show", "tracecheck.cli.show"),
    ("lint", "tracecheck.cli.lint"),
    ("explain", "tracecheck.cli.explain"),
    ("contracts", "tracecheck.cli.contracts"),
    ("init", "tracecheck.cli.init"),
    ("redact", "tracecheck.cli.redact"),
    ("verify-safe", "tracecheck.cli.verify_safe"),
    ("proxy", "tracecheck.cli.proxy"),
    ("ship", "tracecheck.cli.ship"),
    ("ingest-server", "tracecheck.cli.ingest"),
)


def __getattr__(name: str) -> Any:
    if name == "COMMANDS":
        return _commands(None)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _commands(only: str | None) -> tuple[tuple[str, ModuleType], ...]:
    """Every command's name and module, or only the command `only` names."""
    return tuple(
        (name, importlib.import_module(module))
        for name, module in _COMMANDS
        if only is None or name == only
    )


def main(argv: Sequence[str] | None = None, *, env: Environment | None = None) -> int:
    """Run the command `argv` names (default: the process's arguments) and return its exit
    code. `env` is what the command reads and writes (default: this process's streams and
    environment)."""
    env = env if env is not None else Environment.current()
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_first_command(words))
    try:
        args = parser.parse_args(words)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or ExitCode.OK)
    if args.command is None:
        parser.print_help(env.stderr)
        return ExitCode.USAGE
    try:
        return int(args.run(args, env))
    except Stop as stop:
        return int(stop.code)
    except KeyboardInterrupt:
        env.error("interrupted")
        return INTERRUPTED
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly
        from tracecheck.cli.output import silence

        silence(env.stdout)
        return ExitCode.FAILED
    except Exception as exc:  # a bug must not reach the user as a traceback
        if env.environ.get("TRACECHECK_DEBUG"):
            import traceback

            traceback.print_exc(file=env.stderr)
        env.error(internal_error(exc) + " (TRACECHECK_DEBUG=1 shows where)")
        return ExitCode.USAGE


def _first_command(words: Sequence[str]) -> str | None:
    """The command a command line names first, when it does: argparse then reads every other
    word with that command's parser alone, so the other commands' parsers need not exist.
    `--version` first is answered before anything else is read, so it needs none of them."""
    if not words:
        return None
    if words[0] == "--version":
        return ""
    return words[0] if any(words[0] == name for name, _ in _COMMANDS) else None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or (`only`) of the one command named, `""` for none."""
    parser = argparse.ArgumentParser(
        prog="tracecheck",
        description="Prove which path an AI agent took, from its OpenTelemetry traces.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, help="show program's version number and exit")
    parser.set_defaults(command=None)
    commands = parser.add_subparsers(
        title="commands", metavar="COMMAND", parser_class=CommandParser
    )
    for name, module in _commands(only):
        sub = commands.add_parser(
            name,
            help=module.SUMMARY,
            description=module.DESCRIPTION,
            epilog=EPILOG,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_parser(sub)
        sub.set_defaults(command=name, run=module.run)
    return parser


class _Version(argparse.Action):
    """`--version`: the installed version, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.pop("nargs", None)
        super().__init__(option_strings, dest=argparse.SUPPRESS, nargs=0, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        from tracecheck.distribution import version  # its `pathlib` only when asked

        print(f"tracecheck {version()}", file=sys.stdout)
        parser.exit()
