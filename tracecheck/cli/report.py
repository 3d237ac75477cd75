"""`tracecheck report`: the visual verdict, one self-contained HTML page for people; and the
page `check --html` writes beside its other reports.

`report` is `check -q --html PATH`: the same reading, checking and exit codes, one line per
verdict on stdout, and the page. It needs the `report` extra (matplotlib draws the charts).
"""

from __future__ import annotations

import argparse

from tracecheck.cli import check
from tracecheck.cli.arguments import PROFILES, prices_argument, trace_arguments
from tracecheck.cli.codes import EPILOG, PRECEDENCE, ExitCode, Stop
from tracecheck.cli.environment import Environment
from tracecheck.cli.page import require_report_extra

__all__ = ["add_parser", "run"]

SUMMARY = "write the verdicts as a self-contained HTML page"
DESCRIPTION = (
    "Check every trace against every contract, as check does, and write one HTML page that "
    "works offline: the rules' outcomes as a table and a chart, and each trace's spans as a "
    "timeline with every violation marked on its span. Names from the traces are redacted "
    "(--profile). TRACE is a file, a directory, or - for standard input."
)


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG + PRECEDENCE
    trace_arguments(parser)
    parser.add_argument(
        "--contract", action="append", required=True, metavar="FILE", help="contract (repeatable)"
    )
    parser.add_argument(
        "-o", "--output", required=True, metavar="PATH", help="write the HTML page to PATH"
    )
    parser.add_argument(
        "--profile",
        choices=PROFILES,
        default="default",
        help="redaction profile of the names drawn from the traces (default: default)",
    )
    prices_argument(parser)


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    """`check` of the same inputs with `-q --html`, its GitHub outputs left to `check`."""
    require_report_extra(env, "report")
    if args.output == "-":
        env.error("-o needs a file: the page is read in a browser, not on stdout")
        raise Stop(ExitCode.USAGE)
    parser = argparse.ArgumentParser(prog="tracecheck report", add_help=False)
    check.add_parser(parser)
    argv = [f"--contract={path}" for path in args.contract]
    argv += [f"--html={args.output}", f"--html-profile={args.profile}", "-q"]
    if args.format:
        argv.append(f"--format={args.format}")
    if args.trace_id is not None:
        argv.append(f"--trace-id={args.trace_id}")
    if args.prices is not None:
        argv.append(f"--prices={args.prices}")
    checked = parser.parse_args([*argv, "--", *args.traces])
    quiet = {k: v for k, v in env.environ.items() if k not in _GITHUB}
    return check.run(checked, env._replace(environ=quiet))


# What `check` does under GitHub Actions; `report` leaves annotations and summaries to it.
_GITHUB = ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY")
