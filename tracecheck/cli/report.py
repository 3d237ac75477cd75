"""`tracecheck report`: the visual verdict, one self-contained HTML page for people; and the
page `check --html` writes beside its other reports.

`report` is `check -q --html PATH`: the same reading, checking and exit codes, one line per
verdict on stdout, and the page. It needs the `report` extra (matplotlib draws the charts).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from tracecheck.cli.arguments import trace_arguments
from tracecheck.cli.codes import EPILOG, PRECEDENCE, ExitCode, Stop
from tracecheck.cli.environment import Environment

if TYPE_CHECKING:
    from tracecheck.report.model import CheckedTrace, ReadFailure
    from tracecheck.verdict import VerdictStatus

__all__ = ["PROFILES", "add_parser", "require_report_extra", "run", "write_page"]

SUMMARY = "write the verdicts as a self-contained HTML page"
DESCRIPTION = (
    "Check every trace against every contract, as check does, and write one HTML page that "
    "works offline: the rules' outcomes as a table and a chart, and each trace's spans as a "
    "timeline with every violation marked on its span. Names from the traces are redacted "
    "(--profile). TRACE is a file, a directory, or - for standard input."
)
# The redaction profiles a page's names go through (redact's built-in profiles).
PROFILES = ("default", "share", "strict")


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
    from tracecheck.cli.check import prices_argument

    prices_argument(parser)


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    """`check` of the same inputs with `-q --html`, its GitHub outputs left to `check`."""
    from tracecheck.cli import check

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


def require_report_extra(env: Environment, subject: str) -> None:
    """Stop with exit 2, naming the `report` extra, when matplotlib is not installed."""
    from tracecheck.cli.extras import require_extra

    require_extra(env, subject, "report", ("matplotlib",))


def write_page(
    env: Environment,
    target: str,
    checked: Callable[[], Iterator[CheckedTrace]],
    failures: Sequence[ReadFailure],
    inputs: Sequence[str],
    contracts: Sequence[str],
    status: VerdictStatus,
    profile: str,
) -> None:
    """The page of `checked` (read twice: the tallies, then one trace at a time) to `target`."""
    from tracecheck.cli.output import encoded, write_parts
    from tracecheck.report.html import PageHeader, html_parts, tallies_of, trace_views

    counts: Counter[str] = Counter()
    traces = 0
    for item in checked():
        counts[item.verdict.status] += 1
        traces += item.timeline is not None
    header = PageHeader(
        status=status,
        inputs=tuple(inputs),
        contracts=tuple(contracts),
        traces=traces,
        verdicts=tuple((s, counts[s]) for s in ("pass", "fail", "error") if counts[s]),
        unread=tuple(failure.message for failure in failures),
        created=created(env),
    )
    tallies = tallies_of(checked())
    write_parts(
        env, target, encoded(html_parts(header, tallies, trace_views(checked()), profile=profile))
    )


def created(env: Environment) -> str:
    """When the page is made, in UTC: `SOURCE_DATE_EPOCH` when set (a reproducible build's
    clock, which tests set too), otherwise now."""
    from datetime import UTC, datetime

    epoch = env.environ.get("SOURCE_DATE_EPOCH", "").strip()
    when = datetime.now(UTC)
    if epoch.isdigit():
        when = datetime.fromtimestamp(int(epoch), UTC)
    return when.strftime("%Y-%m-%d %H:%M:%S UTC")


def refuse_stdout(env: Environment, target: str) -> None:
    if target == "-":
        env.error("--html needs a file: the page is read in a browser, not on stdout")
        raise Stop(ExitCode.USAGE)
