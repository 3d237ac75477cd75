"""`tracecheck verify-safe`: whether files are safe to share under a profile, judged on every
byte (every layer and archive member, every entry of a directory and its name); what cannot be
read is UNKNOWN. `--baseline` accepts findings a team has looked at, by fingerprint;
`--write-baseline` writes the fingerprints of the findings found. The redactor is imported
when the command runs."""

from __future__ import annotations

import argparse
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from tracecheck.cli.codes import ExitCode, Stop
from tracecheck.cli.environment import Environment
from tracecheck.cli.redaction import add_redaction_arguments, options_or_stop, print_findings
from tracecheck.formats import FORMATS

if TYPE_CHECKING:
    from tracecheck.sharing.baseline import Ledger

__all__ = ["add_parser", "run"]

SUMMARY = "say whether files are safe to share"
DESCRIPTION = (
    "Assess traces (or any JSON, JSON Lines or text file, or a directory: every entry below "
    "it, hidden ones included) under a profile. Findings are listed by path and detector, "
    "never by value; what cannot be read (a special file, binary data) makes the verdict "
    "UNKNOWN."
)


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument("--format", choices=FORMATS, help="read traces as this format")
    parser.add_argument(
        "--baseline",
        metavar="FILE",
        help="accept the findings FILE lists (by fingerprint, never by value): they are "
        "counted but no longer make the verdict UNSAFE; entries that match nothing are reported",
    )
    parser.add_argument(
        "--write-baseline",
        metavar="FILE",
        help="write the fingerprints of the findings found to FILE (keyed by "
        "$TRACECHECK_BASELINE_KEY when it is set)",
    )
    add_redaction_arguments(parser, pseudonyms=False)


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    options = options_or_stop(args, env)
    from redact import share_allowed
    from redact.walk import observing
    from tracecheck.sharing.gate import GateError, verdict_of_path

    profile, known = options.profile, options.known_secrets
    ledger = _ledger_or_stop(args, env)
    code = ExitCode.OK
    with observing(ledger) if ledger is not None else nullcontext():
        for path in args.paths:
            try:
                # Every file, layer and archive member; what cannot be read is UNKNOWN.
                verdict = verdict_of_path(path, args.format, profile, known, ledger)
            except GateError as exc:
                env.error(str(exc))
                code = max(code, ExitCode.UNREADABLE)
                continue
            print(f"{path}: {verdict.status.value}", file=env.stdout)
            print_findings(verdict, env.stdout)
            accepted = ledger.accepted() if ledger is not None and ledger.baseline else 0
            if accepted:
                noun = "finding" if accepted == 1 else "findings"
                print(f"  {accepted} {noun} accepted by the baseline", file=env.stdout)
            if not share_allowed(verdict):
                code = max(code, ExitCode.FAILED)
    if ledger is not None:
        _report_baseline(ledger, args, env)
    return code


def _ledger_or_stop(args: argparse.Namespace, env: Environment) -> Ledger | None:
    """The ledger the gate tells its findings to, when a baseline is read or written; a
    baseline that cannot be read or written stops the command (exit 2)."""
    if args.baseline is None and args.write_baseline is None:
        return None
    from tracecheck.sharing.baseline import BaselineError, Ledger, read_baseline

    try:
        baseline = read_baseline(args.baseline, env.environ) if args.baseline else None
        target = Path(args.write_baseline) if args.write_baseline else None
        return Ledger(baseline, record_to=target, environ=env.environ)
    except BaselineError as exc:
        env.error(str(exc))
        raise Stop(ExitCode.USAGE) from None


def _report_baseline(ledger: Ledger, args: argparse.Namespace, env: Environment) -> None:
    from tracecheck.sharing.baseline import BaselineError

    stale = ledger.stale()
    if stale:
        noun, them = ("entry matches", "it") if len(stale) == 1 else ("entries match", "them")
        print(
            f"{args.baseline}: {len(stale)} {noun} no finding (stale); "
            f"remove {them} from the baseline:",
            file=env.stdout,
        )
        for entry in stale:
            print(f"  {entry.shown()}", file=env.stdout)
    if ledger.record_to is None:
        return
    try:
        written = ledger.write()
    except BaselineError as exc:
        env.error(str(exc))
        raise Stop(ExitCode.USAGE) from None
    noun = "finding" if written == 1 else "findings"
    print(f"wrote {args.write_baseline} ({written} {noun})", file=env.stderr)
