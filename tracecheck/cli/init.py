"""`tracecheck init`: a contract draft from good runs, or from an MCP `tools/list` answer."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracecheck.cli.codes import EPILOG, ExitCode, Stop
from tracecheck.cli.environment import Environment
from tracecheck.formats import FORMATS

if TYPE_CHECKING:
    from tracecheck.init import Draft
    from tracecheck.spans import Trace

__all__ = ["add_parser", "run"]

SUMMARY = "write a contract draft from good runs or an MCP tools/list answer"
DESCRIPTION = """\
Write a contract draft, YAML with comments, from one or more good runs (RUN is a file, a
directory, or - for standard input; each trace with a tool or model call is a run): the tools
every run called, the trajectory they share, their arguments' types (never values), the
models, a token budget with headroom, and repeated calls and writes marked for review. Every
rule of the draft holds on the runs it came from.

With --from-mcp, from an MCP server's tools/list answer instead: its tools allowed, reads and
writes from their annotations, argument checks from their input schemas."""
_EPILOG = (
    EPILOG
    + """
A draft states what the runs did, not what the agent must do: review it (the lines marked
"review:" first), then check with it. The draft passes `tracecheck lint`; it never writes
`capture: lenient` for runs whose capture is in doubt (its header says which).
"""
)


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.epilog = _EPILOG
    parser.add_argument(
        "traces", nargs="*", metavar="RUN", help="trace file or directory of a good run"
    )
    parser.add_argument("--format", choices=FORMATS, help="read as this format instead of sniffing")
    parser.add_argument("--trace-id", help="only the trace with this id")
    parser.add_argument(
        "--from-mcp",
        metavar="TOOLS.json",
        help="draft from an MCP tools/list answer (the result, or the whole JSON-RPC response; "
        "- for stdin) instead of runs",
    )
    parser.add_argument("--name", default="draft", help="the contract's name (default: draft)")
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write the draft to FILE instead of stdout"
    )
    parser.add_argument("--force", action="store_true", help="overwrite FILE if it exists")


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    if args.from_mcp is not None and args.traces:
        env.error("give runs or --from-mcp, not both")
        return ExitCode.USAGE
    if args.from_mcp is None and not args.traces:
        env.error("give one or more runs, or --from-mcp TOOLS.json")
        return ExitCode.USAGE
    if args.from_mcp is not None and (args.format or args.trace_id):
        env.error("--format and --trace-id read runs; --from-mcp reads no run")
        return ExitCode.USAGE
    if not args.name.strip():
        env.error("--name needs a name")
        return ExitCode.USAGE
    output = _output(args, env)
    draft = _from_mcp(args, env) if args.from_mcp is not None else _from_runs(args, env)
    text = draft.yaml()
    from tracecheck.cli.output import print_parts, write_parts

    if output is None:
        # Bytes, as UTF-8 whatever stdout's encoding (the draft is a UTF-8 YAML file); a
        # reader that goes away ends it quietly.
        write_parts(env, "-", [text.encode("utf-8")])
    else:
        _write(output, text, env)
        print_parts([f"wrote {_printable(str(output))}"], env.stderr)
    for note in draft.notes:
        print_parts([f"note: {_printable(note)}"], env.stderr)
    return ExitCode.OK


def _output(args: argparse.Namespace, env: Environment) -> Path | None:
    """Where the draft goes (None: stdout), refused before anything is read when it would
    overwrite a file unasked."""
    if args.output is None or args.output == "-":
        return None
    path = Path(args.output)
    if path.is_dir():
        env.error(f"{args.output} is a directory")
        raise Stop(ExitCode.USAGE)
    if path.exists() and not args.force:
        env.error(f"{args.output} exists: pass --force to overwrite it")
        raise Stop(ExitCode.USAGE)
    return path


def _from_runs(args: argparse.Namespace, env: Environment) -> Draft:
    from tracecheck.cli.inputs import Read, failure_code, read_sources
    from tracecheck.init import NothingToDraft, draft_from_runs
    from tracecheck.report.spool import Records

    traces: list[Trace] = []

    def keep(read: Read) -> None:
        traces.append(read.trace)

    kept = Records()
    try:
        failures = read_sources(env, args.traces, args.format, args.trace_id, keep, kept)
    finally:
        kept.close()
    if failures:
        # A draft from some of the runs named would claim what the others never showed.
        env.error("no draft written: every run must be read")
        raise Stop(max(failure_code(failure) for failure in failures))
    try:
        return draft_from_runs(traces, name=args.name)
    except NothingToDraft as exc:
        env.error(str(exc))
        raise Stop(ExitCode.UNREADABLE) from None


def _from_mcp(args: argparse.Namespace, env: Environment) -> Draft:
    from tracecheck.init import ToolListError, draft_from_mcp

    source = args.from_mcp
    answer = _read_json(source, env)
    try:
        return draft_from_mcp(answer, name=args.name)
    except ToolListError as exc:
        for where, what in exc.problems:
            env.error(
                f"{_label(source)}: {where}: {what}" if where else f"{_label(source)}: {what}"
            )
        raise Stop(ExitCode.UNREADABLE) from None


def _read_json(source: str, env: Environment) -> Any:
    import json

    label = _label(source)
    try:
        text = env.stdin.read() if source == "-" else Path(source).read_text("utf-8-sig")
    except OSError as exc:
        env.error(f"{label}: cannot be read: {exc.strerror or exc}")
        raise Stop(ExitCode.UNREADABLE) from None
    except UnicodeDecodeError as exc:
        env.error(f"{label}: is not UTF-8 text (byte {exc.start})")
        raise Stop(ExitCode.UNREADABLE) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        env.error(f"{label}: line {exc.lineno}, column {exc.colno}: malformed JSON: {exc.msg}")
        raise Stop(ExitCode.UNREADABLE) from None
    except RecursionError:
        env.error(f"{label}: malformed JSON: nested too deeply")
        raise Stop(ExitCode.UNREADABLE) from None


def _write(path: Path, text: str, env: Environment) -> None:
    """The draft written whole or not at all: staged beside the file, then moved over it."""
    staged = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        staged.write_text(text, "utf-8")
        staged.replace(path)
    except OSError as exc:
        staged.unlink(missing_ok=True)
        env.error(f"{path}: cannot be written: {exc.strerror or exc}")
        raise Stop(ExitCode.USAGE) from None


def _label(source: str) -> str:
    return "<stdin>" if source == "-" else source


def _printable(text: str) -> str:
    from tracecheck.report.safe import printable

    return printable(text)
