"""The `tracecheck` command line: parse arguments, run one command, return an exit code.

Building the parser imports each command module's options and nothing they run: no reader,
checker, reporter, redactor or server is loaded until a command's `run` asks for it, so
`tracecheck --version` and `--help` start about as fast as Python does.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from tracecheck.cli import (
    check,
    contracts,
    explain,
    fleet,
    ingest,
    lint,
    proxy,
    redact,
    report,
    ship,
    show,
    verify_safe,
)
from tracecheck.cli.codes import EPILOG, INTERRUPTED, ExitCode, Stop, internal_error
from tracecheck.cli.environment import Environment
from tracecheck.cli.output import silence
from tracecheck.distribution import version

__all__ = ["build_parser", "main"]

# Each command: its name and the module holding its `SUMMARY`, `DESCRIPTION`, `add_parser`
# and `run`, in the order `--help` lists them.
COMMANDS: tuple[tuple[str, ModuleType], ...] = (
    ("check", check),
    ("report", report),
    ("fleet", fleet),
    ("show", show),
    ("lint", lint),
    ("explain", explain),
    ("contracts", contracts),
    ("redact", redact),
    ("verify-safe", verify_safe),
    ("proxy", proxy),
    ("ship", ship),
    ("ingest-server", ingest),
)


def main(argv: Sequence[str] | None = None, *, env: Environment | None = None) -> int:
    """Run the command `argv` names (default: the process's arguments) and return its exit
    code. `env` is what the command reads and writes (default: this process's streams and
    environment)."""
    env = env if env is not None else Environment.current()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
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
        silence(env.stdout)
        return ExitCode.FAILED
    except Exception as exc:  # a bug must not reach the user as a traceback
        if env.environ.get("TRACECHECK_DEBUG"):
            import traceback

            traceback.print_exc(file=env.stderr)
        env.error(internal_error(exc) + " (TRACECHECK_DEBUG=1 shows where)")
        return ExitCode.USAGE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tracecheck",
        description="Prove which path an AI agent took, from its OpenTelemetry traces.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, help="show program's version number and exit")
    parser.set_defaults(command=None)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name, module in COMMANDS:
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
        print(f"tracecheck {version()}", file=sys.stdout)
        parser.exit()
