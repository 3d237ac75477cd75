"""`tracecheck fleet`: check many runs on Dask or local worker processes and write their
verdicts as Parquet (`fleet check`), or summarize such verdicts and compare two runs of a suite
(`fleet summarize`)."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from tracecheck.cli import fleet_compare
from tracecheck.cli.arguments import (
    capture_arguments,
    html_arguments,
    jobs_count,
    positive_int,
    prices_argument,
    storage_option,
    trace_arguments,
)
from tracecheck.cli.codes import EPILOG, PRECEDENCE, ExitCode, Stop
from tracecheck.cli.environment import Environment
from tracecheck.cli.fleet_compare import verdict_table
from tracecheck.cli.running import require_fleet, storage_options

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pyarrow

    from tracecheck.cli.progress import RunProgress
    from tracecheck.fleet.reliability import RuleReliability, TaskGrouping
    from tracecheck.fleet.summary import FleetSummary, RuleChange
    from tracecheck.fleet.verdicts import VerdictWriter
    from tracecheck.report.html import TraceView
    from tracecheck.report.model import CheckedTrace, ReadFailure
    from tracecheck.run import TraceResult
    from tracecheck.run.task_key import TaskKey

__all__ = ["add_parser", "run"]

SUMMARY = "check many runs on Dask; summarize and compare their verdicts"
DESCRIPTION = (
    "fleet check: every trace of many inputs (files, directories, globs, s3:// gs:// https:// "
    "URLs) against every contract, on local worker processes or a Dask cluster, the verdicts "
    "written as Parquet (one row per trace, contract and rule) and summarized by rule. "
    "fleet summarize: the summary of such verdicts, compared with an earlier run's."
)
CHECK_DESCRIPTION = """\
Check every trace of many inputs (files, directories, globs, s3:// gs:// https:// URLs)
against every contract, on local worker processes or a Dask cluster (--scheduler). The
verdicts are written as Parquet, one row per trace, contract and rule (-o), and summarized
by rule on stdout (and as JSON, HTML or SARIF when asked)."""
SUMMARIZE_DESCRIPTION = """\
Summarize Parquet verdicts written by `fleet check`: pass rates by rule and contract, the
rules that started failing against a baseline's verdicts (--baseline), and with
--reliability, how reliable each rule is over repeated runs of the same tasks."""
SUMMARIZE_CODES = """\
exit codes:
  0  every verdict passes
  1  a rule failed, or started failing against the baseline
  2  usage error, or a rule that could not be evaluated
  3  a verdicts file, or an input the verdicts record as not read, could not be read
  4  an input the verdicts record as not read had an ambiguous format
"""
STARTED_FAILING = "started failing"
NOTES_SHOWN = 20


def add_parser(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(title="fleet commands", metavar="COMMAND", dest="fleet")
    checking = commands.add_parser(
        "check",
        help="check many inputs; verdicts as Parquet",
        description=CHECK_DESCRIPTION,
        epilog=EPILOG + PRECEDENCE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    trace_arguments(checking)
    checking.add_argument(
        "--contract", action="append", required=True, metavar="FILE", help="contract (repeatable)"
    )
    checking.add_argument(
        "-o", "--verdicts", metavar="PATH", help="write the verdicts as Parquet to PATH (or URL)"
    )
    place = checking.add_mutually_exclusive_group()
    place.add_argument(
        "-j",
        "--jobs",
        type=jobs_count,
        default=0,
        metavar="N",
        help="local worker processes (0 or auto: one per available core; 1: this process)",
    )
    place.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on the Dask scheduler at ADDRESS (tcp://HOST:8786)",
    )
    _storage_option(checking)
    capture_arguments(checking)
    prices_argument(checking)
    _summary_arguments(checking)
    checking.add_argument(
        "--sarif",
        metavar="PATH",
        help="write every violation as a SARIF 2.1.0 log (for code scanning) to PATH, or - for stdout",
    )
    checking.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="say nothing while the run goes (by default: traces read, how fast, inputs not "
        "read, on stderr: redrawn on a terminal, every 10 seconds elsewhere)",
    )
    checking.set_defaults(fleet_run=_check)
    summarizing = commands.add_parser(
        "summarize",
        help="summarize Parquet verdicts, compared with a baseline's",
        description=SUMMARIZE_DESCRIPTION,
        epilog=SUMMARIZE_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    summarizing.add_argument("verdicts", metavar="VERDICTS", help="Parquet verdicts (file or URL)")
    _storage_option(summarizing)
    _summary_arguments(summarizing)
    summarizing.set_defaults(fleet_run=_summarize)
    fleet_compare.add_parser(commands)


def _storage_option(parser: argparse.ArgumentParser) -> None:
    storage_option(
        parser, "an fsspec storage option for URLs (repeatable; e.g. endpoint_url=http://…)"
    )


def _summary_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--reliability",
        action="store_true",
        help="also say how reliable each rule is over repeated runs of the same tasks: pass "
        "rate with its 95%% Wilson interval, pass^k, stable or flaky, a failing run's example",
    )
    parser.add_argument(
        "--group-by",
        type=_grouping,
        default="directory",
        metavar="TASKS",
        help="with --reliability: the runs of one task are those of a directory (default), of "
        'a file, or with the same value of an attribute: resource.attributes["KEY"] or '
        'span.attributes["KEY"] (recorded by fleet check in the verdicts\' task column; '
        "fleet summarize takes the attribute the verdicts recorded, or: task)",
    )
    parser.add_argument(
        "--reliability-parquet",
        metavar="PATH",
        help="write each rule's reliability as Parquet to PATH (or URL); implies --reliability",
    )
    parser.add_argument(
        "-k",
        type=positive_int,
        metavar="K",
        help="with --reliability: pass^k of K runs (default: the fewest runs any task has)",
    )
    parser.add_argument(
        "--baseline",
        metavar="VERDICTS",
        help="compare with these earlier verdicts: which rules started or stopped failing "
        "(a rule that started failing makes the exit code at least 1)",
    )
    parser.add_argument(
        "--json",
        metavar="PATH",
        help="write the summary as JSON (version 1) to PATH, or - for stdout",
    )
    html_arguments(parser)


def _grouping(text: str) -> str | TaskKey:
    """`--group-by`: a folder, a file, the recorded task, or the attribute to record."""
    from tracecheck.run.task_key import parse_task_key

    if text in ("directory", "file", "task"):
        return text
    try:
        return parse_task_key(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not directory, file, task or an attribute path "
            '(resource.attributes["KEY"] or span.attributes["KEY"])'
        ) from None


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    if args.fleet is None:
        env.error("fleet needs a command: check, summarize or compare")
        raise Stop(ExitCode.USAGE)
    require_fleet(env, f"tracecheck fleet {args.fleet}")
    code: ExitCode = args.fleet_run(args, env)
    return code


def _check(args: argparse.Namespace, env: Environment) -> ExitCode:
    import pickle
    import tempfile
    from contextlib import closing
    from dataclasses import replace
    from pathlib import Path

    from tracecheck.cli.arguments import available_cores, timeline_profile
    from tracecheck.cli.check import load_contracts
    from tracecheck.cli.running import outcomes
    from tracecheck.fleet.verdicts import rows_table
    from tracecheck.report.safe import printable
    from tracecheck.report.spool import Records

    if args.sarif == "-" and args.json == "-":
        env.error("--sarif - and --json - both want stdout: send one of them to a file")
        raise Stop(ExitCode.USAGE)
    _require_page(env, args)
    if args.group_by == "task":
        env.error(
            "fleet check --group-by task: name the attribute to record, as in "
            "--group-by 'resource.attributes[\"agent.task.id\"]'"
        )
        raise Stop(ExitCode.USAGE)
    task_key = None if isinstance(args.group_by, str) else args.group_by
    contracts = load_contracts(env, args.contract, args.prices)
    options = storage_options(env, args.storage_option)
    failures: list[ReadFailure] = []
    notes: dict[str, None] = {}
    worst = _Worst()
    kept = Records()  # with --sarif: every verdict, pickled, in order
    progress = _progress(env, args)
    with tempfile.TemporaryDirectory(prefix="tracecheck-fleet-") as spare, closing(kept):
        target = args.verdicts or str(Path(spare) / "verdicts.parquet")
        with _writer(env, target, options, task_key) as writer:
            for outcome in outcomes(
                env,
                args,
                contracts,
                jobs=args.jobs or available_cores(),
                timelines=timeline_profile(args),
                failing_only=True,
                rows=None if args.sarif else rows_table,
                task_key=task_key,
                each_input=False,
            ):
                writer.add(outcome)
                if outcome.failures and progress is not None:
                    progress.clear()
                for failure in outcome.failures:
                    env.error(printable(failure.message))
                if progress is not None:
                    progress.add(outcome.read, len(outcome.failures))
                failures.extend(outcome.failures)
                notes.update(dict.fromkeys(outcome.notes))
                worst.offer(outcome.traces)
                for checked in outcome.checked() if args.sarif else ():
                    kept.append(
                        pickle.dumps(replace(checked, timeline=None), pickle.HIGHEST_PROTOCOL)
                    )
        if progress is not None:
            progress.done()
        summary, reliable = _summarized(env, args, target, options)  # while they are there
        if args.trace_id is not None and not summary.traces:  # as `check` stops
            env.error(f"no trace has id {printable(args.trace_id)}")
            raise Stop(max(ExitCode.USAGE, _code(summary)))
        if args.sarif:
            from tracecheck.cli.output import write_parts
            from tracecheck.report.sarif import sarif_parts

            def spooled() -> Iterator[CheckedTrace]:
                return (pickle.loads(data) for data in kept)

            write_parts(env, args.sarif, sarif_parts(spooled, failures, contracts))
    _print_notes(env, list(notes))
    code = max(_code(summary), _report(env, args, summary, options, reliable))
    contract_names = [c.source or c.name for c in contracts]
    _page(env, args, summary, worst.views(), contract_names, reliable)
    return code


def _progress(env: Environment, args: argparse.Namespace) -> RunProgress | None:
    """How far the run has got, on stderr, unless `-q`: a line every five progress intervals
    of `check` (10 s) elsewhere than on a terminal."""
    if args.quiet:
        return None
    from tracecheck.cli.progress import RunProgress

    tty = bool(getattr(env.stderr, "isatty", lambda: False)())
    return RunProgress(env.stderr, env.progress_seconds * 5, tty=tty)


def _print_notes(env: Environment, notes: Sequence[str]) -> None:
    """The readers' notes on stderr, as `check` prints them, the first `NOTES_SHOWN` of a
    fleet's (a fleet of runs from one producer repeats the same note run after run)."""
    from tracecheck.report.safe import printable
    from tracecheck.unquoted import without_credentials

    for note in notes[:NOTES_SHOWN]:
        print(f"note: {printable(without_credentials(str(note)))}", file=env.stderr)
    if len(notes) > NOTES_SHOWN:
        print(f"note: and {len(notes) - NOTES_SHOWN} more notes", file=env.stderr)


class _Worst:
    """The traces a fleet's page draws: the `WORST` with the most rules failed (then the most
    violations), of those whose first verdict carries a timeline; earlier ones win ties."""

    def __init__(self) -> None:
        self.kept: list[tuple[tuple[int, int, int], TraceResult]] = []
        self.seen = 0

    def offer(self, traces: Iterable[TraceResult]) -> None:
        import heapq

        from tracecheck.fleet.summary import WORST

        for trace in traces:
            self.seen += 1
            if not trace.checked or trace.checked[0].timeline is None:
                continue
            rules = [rule for c in trace.checked for rule in c.verdict.rules]
            bad = sum(rule.status in ("fail", "error") for rule in rules)
            violations = sum(len(rule.violations) for rule in rules)
            item = ((bad, violations, -self.seen), trace)
            if len(self.kept) < WORST:
                heapq.heappush(self.kept, item)
            else:
                heapq.heappushpop(self.kept, item)

    def views(self) -> list[TraceView]:
        from tracecheck.report.html import TraceView

        views = []
        for _, trace in sorted(self.kept, key=lambda item: item[0], reverse=True):
            first = trace.checked[0]
            if first.timeline is not None:  # as `offer` kept only these
                views.append(
                    TraceView(first.timeline, first.files, tuple(c.verdict for c in trace.checked))
                )
        return views


def _require_page(env: Environment, args: argparse.Namespace) -> None:
    if args.html is not None:
        from tracecheck.cli.page import refuse_stdout, require_report_extra

        refuse_stdout(env, args.html)
        require_report_extra(env, "--html")


def _page(
    env: Environment,
    args: argparse.Namespace,
    summary: FleetSummary,
    traces: Sequence[TraceView],
    contracts: Sequence[str],
    reliable: Reliable | None,
) -> None:
    """The fleet's page: its rules as a table and a chart, each rule's reliability when it
    was asked for, then the worst traces drawn."""
    if args.html is None:
        return
    from tracecheck.cli.output import encoded, write_parts
    from tracecheck.cli.page import created
    from tracecheck.report.html import PageHeader, html_parts

    header = PageHeader(
        status=summary.status,
        inputs=tuple(getattr(args, "traces", None) or [args.verdicts]),
        contracts=tuple(contracts),
        traces=summary.traces,
        verdicts=tuple(
            (s, summary.verdicts[s]) for s in ("pass", "fail", "error") if summary.verdicts.get(s)
        ),
        unread=tuple(item.message for item in summary.not_read),
        created=created(env),
    )
    parts = html_parts(
        header,
        summary.tallies,
        traces,
        profile=args.html_profile,
        reliability=reliable.rules if reliable is not None else None,
    )
    write_parts(env, args.html, encoded(parts))


def _summarize(args: argparse.Namespace, env: Environment) -> ExitCode:
    _require_page(env, args)
    options = storage_options(env, args.storage_option)
    summary, reliable = _summarized(env, args, args.verdicts, options)
    code = max(_code(summary), _report(env, args, summary, options, reliable))
    contracts = sorted({tally.contract for tally in summary.tallies})
    _page(env, args, summary, (), contracts, reliable)  # verdict rows hold no spans to draw
    return code


def _code(summary: FleetSummary) -> ExitCode:
    """The exit code `check` gives for the same verdicts and inputs not read."""
    code = {"pass": ExitCode.OK, "fail": ExitCode.FAILED, "error": ExitCode.USAGE}[summary.status]
    for item in summary.not_read:
        code = max(code, ExitCode.AMBIGUOUS if item.failure == "ambiguous" else ExitCode.UNREADABLE)
    return code


def _report(
    env: Environment,
    args: argparse.Namespace,
    summary: FleetSummary,
    options: dict[str, Any],
    reliable: Reliable | None,
) -> ExitCode:
    """The summary printed (and written as JSON when asked), compared with the baseline when
    one is given, with each rule's reliability over repeated runs when it was asked for: exit
    1 at least when a rule started failing."""
    from tracecheck.cli.output import encoded, print_parts, write_parts
    from tracecheck.fleet.render import (
        reliability_json,
        reliability_lines,
        summary_json,
        summary_lines,
    )
    from tracecheck.fleet.summary import compare

    changes: list[RuleChange] | None = None
    if args.baseline:
        changes = compare(summary, _summary(env, args.baseline, options))
    human = env.stderr if args.json == "-" else env.stdout
    lines = summary_lines(summary, changes, args.baseline or "")
    if reliable is not None and reliable.rules:
        lines += ["", *reliability_lines(reliable.rules, reliable.tasks_by, reliable.untasked)]
    print_parts(["\n".join(lines)], human)
    if args.json:
        import json

        report = summary_json(summary, changes)
        if reliable is not None:
            report["reliability"] = reliability_json(*reliable)
        text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
        write_parts(env, args.json, encoded([text]))
    if args.reliability_parquet and reliable is not None:
        _write_reliability(env, args.reliability_parquet, reliable, options)
    started = any(change.change == STARTED_FAILING for change in changes or ())
    return ExitCode.FAILED if started else ExitCode.OK


def _summarized(
    env: Environment, args: argparse.Namespace, path: str, options: dict[str, Any]
) -> tuple[FleetSummary, Reliable | None]:
    """The summary of the verdicts at `path`, and each rule's reliability over repeated runs
    when `--reliability` asks for it, from one reading of them."""
    from tracecheck.fleet.reliability import reliability, runs_without_task
    from tracecheck.fleet.summary import summarize

    table = verdict_table(env, path, options)
    if not (args.reliability or args.reliability_parquet):
        return summarize(table), None
    grouping, tasks_by = _tasks_by(env, args.group_by, table, path)
    untasked = runs_without_task(table) if grouping == "task" else 0
    found = reliability(table, grouping, args.k)
    return summarize(table), Reliable(found, tasks_by, untasked)


class Reliable(NamedTuple):
    """Each rule's reliability, what its tasks are, and how many runs did not say theirs."""

    rules: list[RuleReliability]
    tasks_by: str
    untasked: int


def _tasks_by(
    env: Environment, group_by: str | TaskKey, table: pyarrow.Table, path: str
) -> tuple[TaskGrouping, str]:
    """How the verdicts at `path` are grouped into tasks, and how that is said: by the
    attribute their `task` column holds, which must be the one `group_by` names."""
    from tracecheck.fleet.verdicts import task_key_of
    from tracecheck.report.safe import printable

    if group_by in ("directory", "file"):
        return ("file" if group_by == "file" else "directory"), str(group_by)
    recorded, asked = task_key_of(table), str(group_by)
    if recorded is not None and asked in ("task", recorded):
        return "task", recorded
    if recorded is None:
        env.error(
            f"{printable(path)}: records no task of its runs, so --group-by {printable(asked)} "
            "has nothing to group by: fleet check --group-by 'resource.attributes[\"KEY\"]' "
            "records one"
        )
    else:
        env.error(
            f"{printable(path)}: records its runs' tasks by {printable(recorded)}, not by "
            f"{printable(asked)}: group by that, or by task"
        )
    raise Stop(ExitCode.USAGE)


def _summary(env: Environment, path: str, options: dict[str, Any]) -> FleetSummary:
    from tracecheck.fleet.summary import summarize

    return summarize(verdict_table(env, path, options))


def _write_reliability(
    env: Environment, target: str, reliable: Reliable, options: dict[str, Any]
) -> None:
    from tracecheck.fleet.reliability_file import write_reliability
    from tracecheck.report.safe import printable

    try:
        write_reliability(target, reliable.rules, reliable.tasks_by, options)
    except OSError as exc:
        env.error(f"{printable(target)}: cannot write: {exc.strerror or type(exc).__name__}")
        raise Stop(ExitCode.USAGE) from None


def _writer(
    env: Environment, target: str, options: dict[str, Any], task_key: TaskKey | None
) -> VerdictWriter:
    from tracecheck.fleet.verdicts import VerdictWriter
    from tracecheck.report.safe import printable

    try:
        return VerdictWriter(target, options, task_key)
    except OSError as exc:
        env.error(f"{printable(target)}: cannot write: {exc.strerror or type(exc).__name__}")
        raise Stop(ExitCode.USAGE) from None
