"""`tracecheck check`: every trace against every contract, each rule's verdict reported as text,
and as JSON, JUnit XML, GitHub annotations and a job summary when asked (or when run by GitHub
Actions)."""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from tracecheck.cli.arguments import jobs_count, trace_arguments
from tracecheck.cli.codes import EPILOG, PRECEDENCE, ExitCode, Stop, internal_error
from tracecheck.cli.environment import Environment

if TYPE_CHECKING:
    from tracecheck.cli.inputs import Read
    from tracecheck.contract import Contract
    from tracecheck.report.model import CheckedTrace, ReadFailure
    from tracecheck.report.spool import Records, Spool
    from tracecheck.rules.capture import CaptureMode
    from tracecheck.verdict import Verdict

__all__ = ["add_parser", "html_arguments", "run", "timeline_profile", "visitor"]

SUMMARY = "check traces against contracts"
DESCRIPTION = (
    "Check every trace against every contract and report each rule's verdict. "
    "TRACE is a file, a directory, or - for standard input."
)


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG + PRECEDENCE
    trace_arguments(parser)
    parser.add_argument(
        "--contract", action="append", required=True, metavar="FILE", help="contract (repeatable)"
    )
    parser.add_argument("--junit", metavar="PATH", help="write JUnit XML to PATH")
    parser.add_argument(
        "--json", metavar="PATH", help="write the JSON report (version 1) to PATH, or - for stdout"
    )
    parser.add_argument(
        "--sarif",
        metavar="PATH",
        help="write a SARIF 2.1.0 log (for GitHub code scanning) to PATH, or - for stdout",
    )
    html_arguments(parser)
    parser.add_argument(
        "--annotations",
        action="store_true",
        help="print GitHub workflow annotations (on by default when GITHUB_ACTIONS=true)",
    )
    capture_arguments(parser)
    prices_argument(parser)
    parser.add_argument(
        "-j",
        "--jobs",
        type=jobs_count,
        default=1,
        metavar="N",
        help="read and check with N processes (0 or auto: one per available core; default 1); "
        "the reports are those of one process",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="read and check on the Dask scheduler at ADDRESS (tcp://HOST:8786; the fleet "
        "extra); the reports are those of one process",
    )
    parser.add_argument(
        "--storage-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an fsspec storage option for s3://, gs://, https:// inputs (repeatable)",
    )
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="one line per verdict")
    verbosity.add_argument("-v", "--verbose", action="store_true", help="list passing rules too")


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    from tracecheck.report.spool import Records, Spool

    if args.json == "-" and args.junit == "-":
        env.error("--json - and --junit - both want stdout: send one of them to a file")
        raise Stop(ExitCode.USAGE)
    if args.sarif == "-" and "-" in (args.json, args.junit):
        other = "--json" if args.json == "-" else "--junit"
        env.error(f"--sarif - and {other} - both want stdout: send one of them to a file")
        raise Stop(ExitCode.USAGE)
    if args.html is not None:  # before any reading: the page needs matplotlib
        from tracecheck.cli.report import refuse_stdout, require_report_extra

        refuse_stdout(env, args.html)
        require_report_extra(env, "--html")
    contracts = load_contracts(env, args.contract, args.prices)
    spool = Spool()
    verdicts = Records()
    try:
        return _check_all(args, env, contracts, spool, verdicts)
    finally:
        verdicts.close()
        spool.close()


def _check_all(
    args: argparse.Namespace,
    env: Environment,
    contracts: list[Contract],
    spool: Spool,
    verdicts: Records,
) -> ExitCode:
    """Each trace checked as it is read (by `--jobs` processes, when asked); the verdicts wait
    on disk (pickled, in order, with no handle kept per trace), so memory holds one trace and
    its verdicts, and the reports are written one verdict at a time."""
    import pickle

    from tracecheck.cli.inputs import failure_code
    from tracecheck.cli.output import (
        append_summary,
        encoded,
        joined,
        print_parts,
        use_color,
        write_parts,
    )
    from tracecheck.report.text import text_lines
    from tracecheck.verdict import worst

    timelines = timeline_profile(args)
    visit = visitor(env.checker(), contracts, args.capture, verdicts.append, timelines)
    from tracecheck.cli.fleet import expanded_globs, fleet_inputs, read_on_fleet

    args.traces = expanded_globs(args.traces)
    if args.scheduler or fleet_inputs(args.traces):
        failures = read_on_fleet(env, args, contracts, verdicts)
    else:
        failures = _read_here(env, args, contracts, visit, verdicts)

    def checked() -> Iterator[CheckedTrace]:
        for data in verdicts:
            item: CheckedTrace = pickle.loads(data)
            yield item

    machine_on_stdout = "-" in (args.json, args.junit, args.sarif)
    human = env.stderr if machine_on_stdout else env.stdout
    verbosity = -1 if args.quiet or machine_on_stdout else (1 if args.verbose else 0)
    if verdicts:
        lines = text_lines(checked(), color=use_color(human, env.environ), verbosity=verbosity)
        print_parts(joined(lines, "\n"), human, env.stdout)
    status = worst(list({item.verdict.status: None for item in checked()}))
    if args.json:
        from tracecheck.report.json import json_parts

        parts = json_parts(checked(), failures, status, spool)
        write_parts(env, args.json, encoded(itertools.chain(parts, ["\n"])))
    if args.junit:
        from tracecheck.report.junit import junit_parts

        write_parts(env, args.junit, junit_parts(checked, failures))
    if args.sarif:
        from tracecheck.report.sarif import sarif_parts

        write_parts(env, args.sarif, sarif_parts(checked, failures, contracts))
    if args.annotations or env.environ.get("GITHUB_ACTIONS") == "true":
        from tracecheck.report.github import annotation_lines

        annotations = annotation_lines(checked(), failures)
        first = next(annotations, None)
        if first is not None:
            print_parts(joined(itertools.chain([first], annotations), "\n"), human, env.stdout)
    summary = env.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        from tracecheck.report.github import summary_parts

        names = [c.source or c.name for c in contracts]
        append_summary(env, summary, summary_parts(checked, failures, names))
    if args.html is not None and verdicts:
        from tracecheck.cli.report import write_page

        names = [c.source or c.name for c in contracts]
        write_page(env, args.html, checked, failures, args.traces, names, status, args.html_profile)
    code = {"pass": ExitCode.OK, "fail": ExitCode.FAILED, "error": ExitCode.USAGE}[status]
    return max([code, *(failure_code(failure) for failure in failures)])


def _read_here(
    env: Environment,
    args: argparse.Namespace,
    contracts: list[Contract],
    visit: Callable[[Read], None],
    verdicts: Records,
) -> list[ReadFailure]:
    """Read and check every input on this machine (with `--jobs` processes, when asked), the
    cyclic garbage collector paused meanwhile: a trace of 100k spans is millions of objects in
    no reference cycle, yet every pass of the collector walks all of them (0.15-0.3 s of a 3 s
    check), and checking 2,000 traces leaves fewer than 600 objects in cycles behind. (The
    reports and the page are written with it running: the page's figures are cycles.)"""
    from tracecheck.cli.inputs import read_sources
    from tracecheck.readers.common import collector_paused

    with collector_paused():
        failures = None
        if args.jobs > 1:
            from tracecheck.cli.parallel import read_in_parallel

            failures = read_in_parallel(env, args, contracts, visit, verdicts)
        if failures is None:
            failures = read_sources(env, args.traces, args.format, args.trace_id, visit, verdicts)
    return failures


def visitor(
    check: Callable[..., Verdict],
    contracts: Sequence[Contract],
    capture: CaptureMode | None,
    keep: Callable[[bytes], object],
    timelines: str | None = None,
) -> Callable[[Read], None]:
    """What `check` does with each trace read: every contract's verdict, pickled, to `keep`
    (the spool of verdicts; in a worker of `--jobs`, what it sends back). With `timelines`
    (a redaction profile: `--html`), the first verdict of each trace carries what the page
    draws of it, its names redacted, its spans capped."""
    import dataclasses
    import pickle

    def visit(read: Read) -> None:  # all a trace leaves behind
        for number, contract in enumerate(contracts):
            item = _timed(check, read, contract, capture)
            if timelines is not None and number == 0:
                from tracecheck.report.timeline import timeline_of

                timeline = timeline_of(read.trace, profile=timelines)
                item = dataclasses.replace(item, timeline=timeline)
            keep(pickle.dumps(item, pickle.HIGHEST_PROTOCOL))

    return visit


# What gives reason to doubt that every call was recorded, as the options' help says it.
CAPTURE_DOUBT = "a span like a call no convention maps, a tool call with no tool name"


def capture_arguments(
    parser: argparse.ArgumentParser, *, lenient: str | None = None, strict: bool = True
) -> None:
    """`--lenient-capture` (its help `lenient`, default: what it does to a check) and, when
    `strict`, `--strict-capture`, one or the other, into `args.capture`."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--lenient-capture",
        dest="capture",
        action="store_const",
        const="lenient",
        help=lenient
        or "judge rules about tools and models even when the trace gives reason to doubt "
        f"that every call was recorded ({CAPTURE_DOUBT}), with a note only; by default such "
        "rules could not be evaluated (exit 2)",
    )
    if not strict:
        return
    group.add_argument(
        "--strict-capture",
        dest="capture",
        action="store_const",
        const="strict",
        help="hold every contract to the default strict capture, even one that says "
        "`capture: lenient`",
    )


def prices_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--prices",
        metavar="FILE",
        help="price table (JSON or YAML: model → input, output, cacheRead, cacheWrite in USD "
        "per million tokens) for llm.maxCostUsd; replaces the contracts' own prices",
    )


def html_arguments(parser: argparse.ArgumentParser) -> None:
    from tracecheck.cli.report import PROFILES

    parser.add_argument(
        "--html",
        metavar="PATH",
        help="write the verdicts as a self-contained HTML page to PATH (needs the report extra)",
    )
    parser.add_argument(
        "--html-profile",
        choices=PROFILES,
        default="default",
        help="redaction profile of the names the --html page draws (default: default)",
    )


def timeline_profile(args: argparse.Namespace) -> str | None:
    """The redaction profile of the timelines `check` keeps: only with `--html`."""
    return args.html_profile if getattr(args, "html", None) is not None else None


def _timed(
    check: Callable[..., Verdict], read: Read, contract: Contract, capture: CaptureMode | None
) -> CheckedTrace:
    from tracecheck.report.model import CheckedTrace
    from tracecheck.verdict import RuleResult, Verdict

    trace = read.trace
    started = time.perf_counter()
    try:
        verdict = check(trace, contract, capture=capture)
    except Exception as exc:  # a bug in one rule must not hide the other verdicts
        error = internal_error(exc)
        rule = RuleResult("(check)", None, "error", error=error)
        verdict = Verdict(contract.name, trace.trace_id, "error", (rule,), 0.0, "0/1 rules passed")
    seconds = time.perf_counter() - started
    return CheckedTrace(read.source, contract.source, verdict, seconds, read.sources)


def load_contracts(
    env: Environment, paths: Sequence[str], prices_file: str | None = None
) -> list[Contract]:
    """Every contract compiled, or every problem printed: lint errors refuse a contract. A
    price table (`--prices`) replaces the contracts' own prices."""
    from tracecheck.contract.builtin import contract_source
    from tracecheck.contract.lint import lint_contract
    from tracecheck.contract.prices import load_prices, priced
    from tracecheck.errors import ContractError

    compile_contract = env.compiler()
    contracts: list[Contract] = []
    refused = False
    prices = None
    if prices_file is not None:
        try:
            prices = load_prices(prices_file)
        except ContractError as exc:
            env.error(str(exc))
            refused = True
    for path in dict.fromkeys(paths):  # the same file twice is checked once
        try:
            source = contract_source(path)
            findings = lint_contract(source)
            contract = compile_contract(source)
        except ContractError as exc:
            env.error(str(exc))
            refused = True
            continue
        if prices_file is not None:  # the table given stands in for the contract's
            contract = priced(contract, prices)
            findings = [f for f in findings if f.code != "llm.cost-without-prices"]
        for finding in findings:
            where = f"{path}: {finding.path}" if finding.path else path
            print(f"{where}: {finding.level} [{finding.code}] {finding.message}", file=env.stderr)
        if any(finding.level == "error" for finding in findings):
            refused = True
        contracts.append(contract)
    if refused:
        raise Stop(ExitCode.USAGE)
    return contracts
