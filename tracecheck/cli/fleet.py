"""`tracecheck fleet`: check many runs on Dask and write their verdicts as Parquet (`fleet
check`), or summarize such verdicts and compare two runs of a suite (`fleet summarize`). Also
what `check --scheduler` (and `check` of an `s3://`, `gs://` or `https://` input) reads with."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from tracecheck.cli.arguments import jobs_count, trace_arguments
from tracecheck.cli.codes import EPILOG, PRECEDENCE, ExitCode, Stop
from tracecheck.cli.environment import Environment

if TYPE_CHECKING:
    from tracecheck.contract import Contract
    from tracecheck.fleet.engine import InputOutcome
    from tracecheck.fleet.summary import FleetSummary, RuleChange
    from tracecheck.fleet.verdicts import VerdictWriter
    from tracecheck.report.model import ReadFailure
    from tracecheck.report.spool import Records

__all__ = ["add_parser", "fleet_inputs", "read_on_fleet", "run"]

SUMMARY = "check many runs on Dask; summarize and compare their verdicts"
DESCRIPTION = (
    "fleet check: every trace of many inputs (files, directories, globs, s3:// gs:// https:// "
    "URLs) against every contract, on local worker processes or a Dask cluster, the verdicts "
    "written as Parquet (one row per trace, contract and rule) and summarized by rule. "
    "fleet summarize: the summary of such verdicts, compared with an earlier run's."
)
FLEET = ("dask", "distributed", "pyarrow", "fsspec")
STARTED_FAILING = "started failing"


def add_parser(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(title="fleet commands", metavar="COMMAND", dest="fleet")
    checking = commands.add_parser(
        "check", help="check many inputs; verdicts as Parquet", epilog=EPILOG + PRECEDENCE
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
        help="local Dask worker processes (0 or auto: one per available core; 1: this process)",
    )
    place.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on the Dask scheduler at ADDRESS (tcp://HOST:8786)",
    )
    _storage_option(checking)
    checking.add_argument(
        "--strict-capture",
        action="store_true",
        help="report rules about tools or models as could not be evaluated when spans look "
        "like calls no convention maps",
    )
    _summary_arguments(checking)
    checking.set_defaults(fleet_run=_check)
    summarizing = commands.add_parser(
        "summarize", help="summarize Parquet verdicts, compared with a baseline's"
    )
    summarizing.add_argument("verdicts", metavar="VERDICTS", help="Parquet verdicts (file or URL)")
    _storage_option(summarizing)
    _summary_arguments(summarizing)
    summarizing.set_defaults(fleet_run=_summarize)


def _storage_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--storage-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an fsspec storage option for URLs (repeatable; e.g. endpoint_url=http://…)",
    )


def _summary_arguments(parser: argparse.ArgumentParser) -> None:
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


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    if args.fleet is None:
        env.error("fleet needs a command: check or summarize")
        raise Stop(ExitCode.USAGE)
    _require(env, f"tracecheck fleet {args.fleet}")
    code: ExitCode = args.fleet_run(args, env)
    return code


def _require(env: Environment, subject: str) -> None:
    from tracecheck.cli.extras import require_extra

    require_extra(env, subject, "fleet", FLEET)


def _check(args: argparse.Namespace, env: Environment) -> ExitCode:
    import tempfile
    from pathlib import Path

    from tracecheck.cli.check import load_contracts
    from tracecheck.report.safe import printable

    contracts = load_contracts(env, args.contract)
    options = _options(env, args.storage_option)
    with tempfile.TemporaryDirectory(prefix="tracecheck-fleet-") as spare:
        target = args.verdicts or str(Path(spare) / "verdicts.parquet")
        with _writer(env, target, options) as writer:
            for outcome in _fleet(env, args, contracts, options):
                writer.add(outcome)
                for failure in outcome.failures:
                    env.error(printable(failure.message))
        summary = _summary(env, target, options)
    return max(_code(summary), _report(env, args, summary, options))


def _summarize(args: argparse.Namespace, env: Environment) -> ExitCode:
    options = _options(env, args.storage_option)
    summary = _summary(env, args.verdicts, options)
    return max(_code(summary), _report(env, args, summary, options))


def _code(summary: FleetSummary) -> ExitCode:
    """The exit code `check` gives for the same verdicts and inputs not read."""
    code = {"pass": ExitCode.OK, "fail": ExitCode.FAILED, "error": ExitCode.USAGE}[summary.status]
    for item in summary.not_read:
        code = max(code, ExitCode.AMBIGUOUS if item.failure == "ambiguous" else ExitCode.UNREADABLE)
    return code


def _report(
    env: Environment, args: argparse.Namespace, summary: FleetSummary, options: dict[str, Any]
) -> ExitCode:
    """The summary printed (and written as JSON when asked), compared with the baseline when
    one is given: exit 1 at least when a rule started failing."""
    from tracecheck.cli.output import encoded, print_parts, write_parts
    from tracecheck.fleet.render import summary_json, summary_lines
    from tracecheck.fleet.summary import compare

    changes: list[RuleChange] | None = None
    if args.baseline:
        changes = compare(summary, _summary(env, args.baseline, options))
    human = env.stderr if args.json == "-" else env.stdout
    print_parts(["\n".join(summary_lines(summary, changes, args.baseline or "")), "\n"], human)
    if args.json:
        import json

        text = json.dumps(summary_json(summary, changes), indent=2, ensure_ascii=False) + "\n"
        write_parts(env, args.json, encoded([text]))
    started = any(change.change == STARTED_FAILING for change in changes or ())
    return ExitCode.FAILED if started else ExitCode.OK


def _summary(env: Environment, path: str, options: dict[str, Any]) -> FleetSummary:
    from tracecheck.fleet.summary import summarize
    from tracecheck.fleet.verdicts import read_verdicts
    from tracecheck.report.safe import printable

    try:
        return summarize(read_verdicts(path, options))
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


def _writer(env: Environment, target: str, options: dict[str, Any]) -> VerdictWriter:
    from tracecheck.fleet.verdicts import VerdictWriter
    from tracecheck.report.safe import printable

    try:
        return VerdictWriter(target, options)
    except OSError as exc:
        env.error(f"{printable(target)}: cannot write: {exc.strerror or type(exc).__name__}")
        raise Stop(ExitCode.USAGE) from None


def _fleet(
    env: Environment,
    args: argparse.Namespace,
    contracts: list[Contract],
    options: dict[str, Any],
) -> Iterator[InputOutcome]:
    """The outcomes of `args.traces`, on the cluster `args` names; a scheduler that cannot be
    reached stops the command (exit 2)."""
    from tracecheck.cli.arguments import available_cores
    from tracecheck.fleet.engine import check_many
    from tracecheck.report.safe import printable

    scheduler = getattr(args, "scheduler", None)
    jobs = args.jobs or available_cores()
    try:
        yield from check_many(
            args.traces,
            contracts,
            scheduler=scheduler,
            jobs=jobs,
            format=args.format,
            strict_capture=args.strict_capture,
            trace_id=args.trace_id,
            storage_options=options,
        )
    except (OSError, TimeoutError) as exc:
        if scheduler is None:
            raise
        env.error(
            f"the Dask scheduler at {printable(scheduler)} cannot be reached "
            f"({exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__})"
        )
        raise Stop(ExitCode.USAGE) from None


def _options(env: Environment, pairs: Iterable[str]) -> dict[str, Any]:
    """`--storage-option KEY=VALUE` as fsspec takes them (values as JSON when they parse:
    `anon=true`, `client_kwargs={"region_name": "eu-west-1"}`)."""
    import json

    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            env.error(f"--storage-option needs KEY=VALUE, not {pair.partition('=')[0]!r}…")
            raise Stop(ExitCode.USAGE)
        try:
            options[key.strip()] = json.loads(value)
        except ValueError:
            options[key.strip()] = value
    return options


def fleet_inputs(sources: Iterable[str]) -> bool:
    """Whether `check` must read these inputs on the fleet: some are URLs only fsspec opens."""
    from tracecheck.fleet.storage import is_remote

    return any(is_remote(source) for source in sources)


def read_on_fleet(
    env: Environment, args: argparse.Namespace, contracts: list[Contract], kept: Records
) -> list[ReadFailure]:
    """`check`'s reading done by the fleet (`--scheduler`, or inputs in object storage): the
    verdicts pickled into `kept` in input order, failures and notes printed as `check` prints
    them."""
    import pickle

    from tracecheck.cli.inputs import SourceRead, finish_reads, wanted_trace

    _require(env, "check --scheduler" if args.scheduler else "check of an fsspec URL")
    wanted_trace(env, args.traces, args.trace_id)
    fleet_args = argparse.Namespace(**{**vars(args), "jobs": args.jobs})
    reads = []
    for outcome in _fleet(env, fleet_args, contracts, _options(env, args.storage_option)):
        for checked in outcome.checked():
            kept.append(pickle.dumps(checked, pickle.HIGHEST_PROTOCOL))
        visited = len(outcome.traces)
        notes = dict.fromkeys(outcome.notes)
        reads.append(
            SourceRead(outcome.read, visited, notes, outcome.spans, list(outcome.failures))
        )
    return finish_reads(env, reads, args.trace_id)
