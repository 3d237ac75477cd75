"""`tracecheck check`: every trace against every contract, each rule's verdict reported as text,
and as JSON, JUnit XML, GitHub annotations and a job summary when asked (or when run by GitHub
Actions)."""

from __future__ import annotations

import argparse
import itertools
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from tracecheck.cli.arguments import (
    capture_arguments,
    html_arguments,
    jobs_count,
    prices_argument,
    storage_option,
    timeline_profile,
    trace_arguments,
)
from tracecheck.cli.codes import EPILOG, PRECEDENCE, ExitCode, Stop
from tracecheck.cli.environment import Environment

if TYPE_CHECKING:
    from tracecheck.contract import Contract
    from tracecheck.report.model import CheckedTrace, ReadFailure
    from tracecheck.report.spool import Kept, Spool

__all__ = ["add_parser", "load_contracts", "run"]

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
    storage_option(
        parser, "an fsspec storage option for s3://, gs://, https:// inputs (repeatable)"
    )
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="one line per verdict")
    verbosity.add_argument("-v", "--verbose", action="store_true", help="list passing rules too")


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    from tracecheck.report.spool import Kept, Spool

    if args.json == "-" and args.junit == "-":
        env.error("--json - and --junit - both want stdout: send one of them to a file")
        raise Stop(ExitCode.USAGE)
    if args.sarif == "-" and "-" in (args.json, args.junit):
        other = "--json" if args.json == "-" else "--junit"
        env.error(f"--sarif - and {other} - both want stdout: send one of them to a file")
        raise Stop(ExitCode.USAGE)
    if args.html is not None:  # before any reading: the page needs matplotlib
        from tracecheck.cli.page import refuse_stdout, require_report_extra

        refuse_stdout(env, args.html)
        require_report_extra(env, "--html")
    contracts = load_contracts(env, args.contract, args.prices)
    spool = Spool()
    verdicts = Kept()
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
    verdicts: Kept,
) -> ExitCode:
    """Each trace checked as it is read (by `--jobs` processes or on `--scheduler`, when
    asked); the verdicts wait in order, past the first few on disk (pickled, with no handle
    kept per trace), so memory holds one input's verdicts and a few more, and the reports are
    written one verdict at a time."""
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

    machine_on_stdout = "-" in (args.json, args.junit, args.sarif)
    human = env.stderr if machine_on_stdout else env.stdout
    verbosity = -1 if args.quiet or machine_on_stdout else (1 if args.verbose else 0)
    args.traces = expanded_globs(args.traces)
    # A reading note the text report prints under its trace's verdict is not printed again.
    failures = _read(env, args, contracts, verdicts, notes_shown=verbosity >= 0)

    def checked() -> Iterator[CheckedTrace]:
        yield from verdicts

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
        from tracecheck.cli.page import write_page

        names = [c.source or c.name for c in contracts]
        write_page(env, args.html, checked, failures, args.traces, names, status, args.html_profile)
    code = {"pass": ExitCode.OK, "fail": ExitCode.FAILED, "error": ExitCode.USAGE}[status]
    return max([code, *(failure_code(failure) for failure in failures)])


def _read(
    env: Environment,
    args: argparse.Namespace,
    contracts: list[Contract],
    kept: Kept,
    *,
    notes_shown: bool,
) -> list[ReadFailure]:
    """Every input read and checked (`tracecheck.run`), the verdicts kept in `kept` in
    input order; failures and notes printed once every input was read, but for the notes the
    verdicts carry when the text report shows them (`notes_shown`). With `--jobs`, inputs too
    small to repay starting the workers are read here all the same."""
    from tracecheck.cli.inputs import SourceRead, finish_reads, input_size, wanted_trace
    from tracecheck.cli.running import WORTH_BYTES, outcomes

    wanted_trace(env, args.traces, args.trace_id)
    jobs = args.jobs
    if jobs > 1 and sum(map(input_size, args.traces)) < WORTH_BYTES:
        jobs = 1
    # A large file is read in a part per worker once it is worth starting them.
    parts = max(1, WORTH_BYTES // 2)
    reads = []
    checks = outcomes(
        env, args, contracts, jobs=jobs, timelines=timeline_profile(args), part_bytes=parts
    )
    for outcome in checks:
        carried: set[str] = set()
        for checked in outcome.checked():
            kept.append(checked)
            if notes_shown:
                carried.update(checked.verdict.reading_notes)
        notes = dict.fromkeys(note for note in outcome.notes if note not in carried)
        visited = len(outcome.traces)
        reads.append(
            SourceRead(outcome.read, visited, notes, outcome.spans, list(outcome.failures))
        )
    return finish_reads(env, reads, args.trace_id)


def expanded_globs(sources: Sequence[str]) -> list[str]:
    """`check`'s inputs with each local glob pattern that names no file itself (one a shell
    left as it was: quoted, or a shell that does not expand) replaced by its matches in sorted
    order, as the fleet reads a glob; a pattern that matches nothing stays, to be reported."""
    expanded: list[str] = []
    for source in sources:
        if "://" not in source and not _GLOB.isdisjoint(source) and not os.path.lexists(source):
            from tracecheck.run.storage import glob_matches

            matches = glob_matches(source)
            if matches:
                expanded.extend(matches)
                continue
        expanded.append(source)
    return expanded


_GLOB = frozenset("*?[")


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
