"""`tracecheck fleet compare BASE NEW`: two fleets' verdicts compared rule by rule with
Fisher's exact test at a stated significance level; exit 1 only when a rule regressed
significantly. Also how the fleet commands read Parquet verdicts (`verdict_table`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from tracecheck.cli.arguments import storage_option
from tracecheck.cli.codes import ExitCode, Stop
from tracecheck.cli.environment import Environment

if TYPE_CHECKING:
    import pyarrow

__all__ = ["add_parser", "verdict_table"]

DESCRIPTION = """\
Compare two fleets' Parquet verdicts (BASE, then NEW) rule by rule: each rule's pass rate in
both, and whether NEW's is significantly lower (a one-sided Fisher's exact test at --alpha).
Rules with too few runs to tell are said to be so, never called regressed."""
CODES = """\
exit codes:
  0  no rule regressed significantly
  1  a rule regressed significantly
  2  usage error
  3  a verdicts file could not be read
"""


def add_parser(commands: Any) -> None:
    comparing = commands.add_parser(
        "compare",
        help="which rules regressed or improved between two fleets' verdicts (Fisher's exact)",
        description=DESCRIPTION,
        epilog=CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    comparing.add_argument("before", metavar="BASE", help="the baseline's Parquet verdicts")
    comparing.add_argument("after", metavar="NEW", help="the new runs' Parquet verdicts")
    comparing.add_argument(
        "--alpha",
        type=_level,
        default=0.05,
        metavar="LEVEL",
        help="significance level of the one-sided test (default 0.05)",
    )
    comparing.add_argument(
        "--json", metavar="PATH", help="write the comparison as JSON (version 1) to PATH, or -"
    )
    storage_option(comparing, "an fsspec storage option for URLs (repeatable)")
    comparing.set_defaults(fleet_run=run)


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    import json

    from tracecheck.cli.output import encoded, print_parts, write_parts
    from tracecheck.cli.running import storage_options
    from tracecheck.fleet.comparison import compare_runs
    from tracecheck.fleet.render import comparison_json, comparison_lines

    options = storage_options(env, args.storage_option)
    before = verdict_table(env, args.before, options).to_pylist()
    after = verdict_table(env, args.after, options).to_pylist()
    compared = compare_runs(before, after, args.alpha)
    human = env.stderr if args.json == "-" else env.stdout
    print_parts(["\n".join(comparison_lines(compared, args.before, args.after))], human)
    if args.json:
        text = json.dumps(comparison_json(compared), indent=2, ensure_ascii=False) + "\n"
        write_parts(env, args.json, encoded([text]))
    regressed = any(item.change == "regressed" for item in compared)
    return ExitCode.FAILED if regressed else ExitCode.OK


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0 and 1")
    return value


def verdict_table(env: Environment, path: str, options: dict[str, Any]) -> pyarrow.Table:
    """The verdict rows at `path`, or the command stopped (exit 3) saying why not."""
    from tracecheck.fleet.verdicts import read_verdicts
    from tracecheck.report.safe import printable

    try:
        return read_verdicts(path, options)
    except FileNotFoundError:
        env.error(f"{printable(path)}: does not exist")
    except (OSError, ValueError) as exc:  # not Parquet, or not ours: named by its kind only
        reason = (
            str(exc)
            if isinstance(exc, ValueError) and str(exc).startswith("has no")
            else (f"cannot be read as Parquet verdicts ({type(exc).__name__})")
        )
        env.error(f"{printable(path)}: {reason}")
    raise Stop(ExitCode.UNREADABLE)
