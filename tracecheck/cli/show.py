"""`tracecheck show`: each trace as a tree of spans, or their facts as JSON."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from tracecheck.cli.arguments import trace_arguments
from tracecheck.cli.codes import EPILOG, PRECEDENCE, ExitCode
from tracecheck.cli.environment import Environment

if TYPE_CHECKING:
    from tracecheck.cli.inputs import Read

__all__ = ["add_parser", "run"]

SUMMARY = "print each trace as a tree of spans"
DESCRIPTION = (
    "Print each trace as a tree: one line per span with its kind, tool or model, tokens, "
    "duration and status."
)


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG + PRECEDENCE
    trace_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON (version 1) on stdout")


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    from tracecheck.cli.inputs import failure_code, read_sources
    from tracecheck.cli.output import joined, print_parts, use_color
    from tracecheck.report.spool import JsonPieces, Records, Spool, json_document, json_member
    from tracecheck.show import render_trace, trace_facts

    # Each trace is rendered as it is read; the output waits on disk until every input is read.
    spool = Spool()
    pieces = JsonPieces(spool)
    trees = Records()
    try:
        if args.json:

            def facts(read: Read) -> None:
                pieces.append(_with_files(trace_facts(read.trace), read.files))

            failures = read_sources(
                env, args.traces, args.format, args.trace_id, facts, pieces.items
            )
            head = [json_member("version", "1")]
            print_parts(json_document(head, "traces", pieces.appended()), env.stdout, env.stdout)
        else:
            color = use_color(env.stdout, env.environ)

            def tree(read: Read) -> None:
                trees.add_text(render_trace(read.trace, color=color, files=read.files))

            failures = read_sources(env, args.traces, args.format, args.trace_id, tree, trees)
            if trees:
                print_parts(joined(trees.texts(), "\n\n"), env.stdout, env.stdout)
    finally:
        trees.close()
        pieces.close()
        spool.close()
    return max([ExitCode.OK, *(failure_code(failure) for failure in failures)])


def _with_files(facts: dict[str, Any], files: tuple[str, ...]) -> dict[str, Any]:
    """A trace's facts naming the file it was read from (`source`), and every file when it
    was spread over several (`sources`), after its id; only for traces of a directory."""
    if not files:
        return facts
    named: dict[str, Any] = {"trace_id": facts["trace_id"], "source": files[0]}
    if len(files) > 1:
        named["sources"] = list(files)
    return {**named, **facts}
