"""The `tracecheck` command line: parse arguments, run one command, return an exit code.

Building the parser imports each command module's options and nothing they run: no reader,
checker, reporter, redactor or server is loaded until a command's `run` asks for it, so
`tracecheck --version` and `--help` start about as fast as Python does.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from tracecheck.cli import (
    check,
    explain,
    ingest,
    lint,
    proxy,
    redact,
    ship,
    show,
    verify_safe,
)
from tracecheck.cli.codes import EPILOG, INTERRUPTED, ExitCode, Stop, internal_error
from tracecheck.cli.environment import Environment
from tracecheck.cli.output import silence

__all__ = ["build_parser", "main", "version"]

# Each command: its name and the module holding its `SUMMARY`, `DESCRIPTION`, `add_parser`
# and `run`, in the order `--help` lists them.
COMMANDS: tuple[tuple[str, ModuleType], ...] = (
    ("check", check),
    ("show", show),
    ("lint", lint),
    ("explain", explain),
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


def version() -> str:
    """The installed distribution's version, as `importlib.metadata.version("tracecheck")`
    gives it: read from the metadata of the first `sys.path` entry that holds tracecheck's
    (`tracecheck-<version>.dist-info/METADATA`, `tracecheck.egg-info/PKG-INFO`), without
    importing `importlib.metadata`, which costs more than the rest of `--version`. Metadata
    it cannot read is left to `importlib.metadata`."""
    for entry in sys.path:
        try:
            found = list(Path(entry or ".").iterdir())
        except OSError:  # missing, or not a folder (a zip holds no tracecheck)
            continue
        names = [name for name in found if name.suffix in (".dist-info", ".egg-info")]
        for path in names:
            project = path.name.rsplit(".", 1)[0].partition("-")[0]
            if project.replace("-", "_").replace(".", "_").lower() != "tracecheck":
                continue
            metadata = path / ("METADATA" if path.suffix == ".dist-info" else "PKG-INFO")
            try:
                with metadata.open(encoding="utf-8") as lines:
                    for line in lines:
                        if line.startswith("Version:"):
                            return line.partition(":")[2].strip()
                        if not line.strip():  # the headers end
                            break
            except OSError:
                pass
            return _metadata_version()
    return _metadata_version()


def _metadata_version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version("tracecheck")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree
        return "unknown"
