"""The `tracecheck` command line: parse arguments, run one command, return an exit code."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from enum import IntEnum
from typing import TextIO

import orjson

from tracecheck.errors import AmbiguousFormatError, TraceReadError
from tracecheck.readers import FORMATS, read_traces
from tracecheck.show import render_trace, trace_facts

__all__ = ["ExitCode", "main"]


class ExitCode(IntEnum):
    """Stable exit codes, listed in `--help`."""

    OK = 0
    FAILED = 1
    USAGE = 2
    UNREADABLE = 3
    AMBIGUOUS = 4


_EPILOG = """\
exit codes:
  0  success (every verdict passes; input is safe)
  1  a rule failed (input is not safe to share)
  2  usage error, malformed contract, or a rule that could not be evaluated
  3  a trace could not be read
  4  a trace's format is ambiguous: pass --format
"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help(sys.stderr)
        return ExitCode.USAGE
    return int(args.run(args))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tracecheck",
        description="Prove which path an AI agent took, from its OpenTelemetry traces.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(command=None)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    show = commands.add_parser(
        "show",
        help="print each trace as a tree of spans",
        description="Print each trace as a tree: one line per span with its kind, tool or "
        "model, tokens, duration and status.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    show.add_argument("traces", nargs="+", metavar="TRACE", help="trace file or directory")
    show.add_argument("--format", choices=FORMATS, help="read as this format instead of sniffing")
    show.add_argument("--trace-id", help="show only this trace")
    show.add_argument("--json", action="store_true", help="print JSON (version 1) on stdout")
    show.set_defaults(command="show", run=_show)
    return parser


def _show(args: argparse.Namespace) -> ExitCode:
    traces = []
    for source in args.traces:
        try:
            traces.extend(read_traces(source, format=args.format))
        except AmbiguousFormatError as exc:
            _error(str(exc))
            return ExitCode.AMBIGUOUS
        except TraceReadError as exc:
            _error(str(exc))
            return ExitCode.UNREADABLE
    if args.trace_id:
        wanted = args.trace_id.lower()
        traces = [trace for trace in traces if trace.trace_id == wanted]
        if not traces:
            _error(f"no trace has id {args.trace_id}")
            return ExitCode.USAGE
    notes = dict.fromkeys(str(note) for trace in traces for note in trace.notes)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        document = {"version": 1, "traces": [trace_facts(trace) for trace in traces]}
        sys.stdout.write(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        color = _use_color(sys.stdout)
        print("\n\n".join(render_trace(trace, color=color) for trace in traces))
    return ExitCode.OK


def _use_color(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty()


def _error(message: str) -> None:
    print(f"tracecheck: error: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
