"""`tracecheck diff BASELINE RUN`: how a run differs from a baseline (golden) run, reported as
text, and as JSON, JUnit XML, SARIF and a job summary when asked (or when run by GitHub
Actions)."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from tracecheck.cli.arguments import CAPTURE_DOUBT, capture_arguments
from tracecheck.cli.codes import EPILOG, ExitCode, Stop
from tracecheck.cli.environment import Environment
from tracecheck.formats import FORMATS

if TYPE_CHECKING:
    from tracecheck.diff import ArgumentMatch, Tolerances
    from tracecheck.report.diff_model import DiffReport
    from tracecheck.report.model import ReadFailure
    from tracecheck.spans import Trace

__all__ = ["add_parser", "run"]

SUMMARY = "compare a run with a baseline (golden) run, step by step"
DESCRIPTION = (
    "Align the tool calls of RUN with those of BASELINE (by tool, position in the tree, "
    "arguments and order; the calls of a parallel step in any order) and report the first "
    "divergence, the calls added, missing, reordered or otherwise changed, argument "
    "differences as JSON Pointers, models one run uses and the other does not, and tokens and "
    "duration against their tolerances. BASELINE and RUN are each one trace: a file, a "
    "directory read as one input, or - for standard input (one of them)."
)
CODES = """\
diff exits 0 when the runs are the same within the tolerances, 1 when they differ (a
divergence, a model, a total past its tolerance), 2 on a usage error or when the diff cannot
vouch for the runs (calls in doubt without --lenient-capture, a total that cannot be held to
its tolerance, model calls that name no model, tool calls with no start time), 3 when an input
cannot be read, 4 when an input's format is ambiguous.
"""


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG + CODES
    parser.add_argument("baseline", metavar="BASELINE", help="the baseline (golden) run")
    # `run_input`: `args.run` is the command's own function (tracecheck.cli.app)
    parser.add_argument("run_input", metavar="RUN", help="the run to compare with it")
    parser.add_argument(
        "--format", choices=FORMATS, help="read both as this format instead of sniffing"
    )
    parser.add_argument(
        "--baseline-trace-id",
        metavar="ID",
        help="the baseline's trace, when BASELINE holds several",
    )
    parser.add_argument(
        "--run-trace-id", metavar="ID", help="the run's trace, when RUN holds several"
    )
    parser.add_argument(
        "--tokens-tolerance",
        metavar="T",
        help="how far the run's tokens may stray from the baseline's, either way: a percentage "
        "(10%%), a count (500), both (10%%,500: whichever allows more), or off (default: 10%%)",
    )
    parser.add_argument(
        "--duration-tolerance",
        metavar="T",
        help="how far the run's duration may stray: a percentage, a time (1500ms, 2s), both, "
        "or off (default: 50%%,1s)",
    )
    parser.add_argument(
        "--match-arguments",
        action="append",
        default=[],
        metavar="MODE",
        help="which argument differences count as a divergence: ignore (the default: reported "
        "only) or exact, for every tool; TOOL=exact, TOOL=ignore or TOOL=/pointer,/pointer for "
        "one tool (repeatable)",
    )
    parser.add_argument(
        "--json", metavar="PATH", help="write the JSON diff (version 1) to PATH, or - for stdout"
    )
    parser.add_argument("--junit", metavar="PATH", help="write JUnit XML to PATH, or - for stdout")
    parser.add_argument(
        "--sarif", metavar="PATH", help="write a SARIF 2.1.0 log to PATH, or - for stdout"
    )
    # No --strict-capture: no contract is read that could ask for lenient capture, so strict
    # is the only other setting, and the default.
    capture_arguments(
        parser,
        lenient="compare runs even when one gives reason to doubt that every call was "
        f"recognised ({CAPTURE_DOUBT}), or neither records a tool call; by default such a diff "
        "cannot vouch for the runs (exit 2)",
        strict=False,
    )
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="the status line only")
    verbosity.add_argument(
        "-v", "--verbose", action="store_true", help="every line, and the calls that match"
    )


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    outputs = [(option, path) for option, path in _outputs(args) if path == "-"]
    if len(outputs) > 1:
        env.error(f"{outputs[0][0]} - and {outputs[1][0]} - both want stdout: send one to a file")
        raise Stop(ExitCode.USAGE)
    if args.baseline == "-" and args.run_input == "-":
        env.error("- (standard input) can be read only once: name one of the runs by its file")
        raise Stop(ExitCode.USAGE)
    tolerances = _tolerances(env, args)
    match = _argument_match(env, args.match_arguments)
    started = time.perf_counter()
    baseline, failures = _read(env, args.baseline, args.format, args.baseline_trace_id, "baseline")
    again, more = _read(env, args.run_input, args.format, args.run_trace_id, "run")
    failures += more
    report = _report(args, baseline, again, failures, tolerances, match, started)
    _write(args, env, report)
    from tracecheck.cli.inputs import failure_code

    code = {"same": ExitCode.OK, "different": ExitCode.FAILED, "error": ExitCode.USAGE}
    return max([code[report.status], *(failure_code(failure) for failure in failures)])


def _outputs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    return [("--json", args.json), ("--junit", args.junit), ("--sarif", args.sarif)]


def _tolerances(env: Environment, args: argparse.Namespace) -> Tolerances:
    from tracecheck.diff.tolerance import ToleranceError, Tolerances

    try:
        return Tolerances.parse(args.tokens_tolerance, args.duration_tolerance)
    except ToleranceError as exc:
        env.error(f"--{exc.total}-tolerance: {exc}")
        raise Stop(ExitCode.USAGE) from None


def _argument_match(env: Environment, modes: list[str]) -> ArgumentMatch:
    """`--match-arguments`: a bare mode for every tool, `TOOL=MODE` or `TOOL=/p,/q` for one;
    the modes and pointers are checked by the library (`diff.runs.argument_match`)."""
    from tracecheck.diff.model import ArgumentMatch
    from tracecheck.diff.runs import argument_match
    from tracecheck.rules.predicates import RuleError

    default = "ignore"
    tools: dict[str, str | tuple[str, ...]] = {}
    for mode in modes:
        tool, equals, how = mode.partition("=")
        if not equals:
            default = mode
        elif not tool:
            env.error(f"--match-arguments: {mode!r} names no tool before =")
            raise Stop(ExitCode.USAGE)
        elif how in ("ignore", "exact"):
            tools[tool] = how
        else:
            tools[tool] = tuple(pointer.strip() for pointer in how.split(","))
    try:
        return argument_match(ArgumentMatch(default, tools))  # type: ignore[arg-type]
    except (ValueError, RuleError) as exc:
        env.error(f"--match-arguments: {exc}")
        raise Stop(ExitCode.USAGE) from None


def _read(
    env: Environment, source: str, format: str | None, trace_id: str | None, side: str
) -> tuple[Trace | None, list[ReadFailure]]:
    """The one trace of `source` (the one with `trace_id`), or the failures that left none."""
    from tracecheck.cli.inputs import Read, read_sources
    from tracecheck.report.safe import printable
    from tracecheck.report.spool import Records

    traces: list[Trace] = []
    kept = Records()

    def visit(read: Read) -> None:  # a reader that starts over takes back what it kept
        kept.append(str(len(traces)).encode())
        traces.append(read.trace)

    try:
        failures = read_sources(env, [source], format, trace_id, visit, kept)
        found = [traces[int(record)] for record in kept]
    finally:
        kept.close()
    if failures or not found:
        return None, failures
    if len(found) > 1:
        ids = ", ".join(printable(trace.trace_id or "(no trace id)") for trace in found[:3])
        more = ", …" if len(found) > 3 else ""
        env.error(
            f"{printable(source)}: holds {len(found)} traces ({ids}{more}): choose the "
            f"{side}'s with --{side}-trace-id"
        )
        raise Stop(ExitCode.USAGE)
    return found[0], []


def _report(
    args: argparse.Namespace,
    baseline: Trace | None,
    run: Trace | None,
    failures: list[ReadFailure],
    tolerances: Tolerances,
    match: ArgumentMatch,
    started: float,
) -> DiffReport:
    from tracecheck.report.diff_model import DiffReport

    names = ["<stdin>" if name == "-" else name for name in (args.baseline, args.run_input)]
    diff = None
    if baseline is not None and run is not None:
        from tracecheck.diff.runs import diff_runs

        diff = diff_runs(
            baseline,
            run,
            tolerances=tolerances,
            match_arguments=match,
            capture=args.capture,
        )
    seconds = time.perf_counter() - started
    return DiffReport(names[0], names[1], diff, tuple(failures), seconds)


def _write(args: argparse.Namespace, env: Environment, report: DiffReport) -> None:
    from tracecheck.cli.output import append_summary, joined, print_parts, use_color, write_parts
    from tracecheck.report.diff_text import diff_text_lines

    machine_on_stdout = "-" in (args.json, args.junit, args.sarif)
    human = env.stderr if machine_on_stdout else env.stdout
    verbosity = -1 if args.quiet or machine_on_stdout else (1 if args.verbose else 0)
    lines = diff_text_lines(report, color=use_color(human, env.environ), verbosity=verbosity)
    print_parts(joined(lines, "\n"), human, env.stdout)
    if args.json:
        from tracecheck.report.diff_json import render_diff_json

        write_parts(env, args.json, [_json_bytes(render_diff_json(report))])
    if args.junit:
        from tracecheck.report.diff_junit import render_diff_junit

        write_parts(env, args.junit, [render_diff_junit(report)])
    if args.sarif:
        from tracecheck.report.diff_sarif import render_diff_sarif

        write_parts(env, args.sarif, [_json_bytes(render_diff_sarif(report))])
    summary = env.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        from tracecheck.report.diff_github import render_diff_summary

        append_summary(env, summary, [render_diff_summary(report)])


def _json_bytes(document: object) -> bytes:
    import json

    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return text.encode("utf-8", "backslashreplace")
