"""`tracecheck verify-safe`: whether files are safe to share under a profile, judged on every
byte (every layer and archive member); what cannot be read is UNKNOWN. The redactor is
imported when the command runs."""

from __future__ import annotations

import argparse

from tracecheck.cli.codes import ExitCode
from tracecheck.cli.environment import Environment
from tracecheck.cli.redaction import add_redaction_arguments, options_or_stop, print_findings
from tracecheck.formats import FORMATS

__all__ = ["add_parser", "run"]

SUMMARY = "say whether files are safe to share"
DESCRIPTION = (
    "Assess traces (or any JSON, JSON Lines or text file) under a profile. Findings are "
    "listed by path and detector, never by value."
)


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument("--format", choices=FORMATS, help="read traces as this format")
    add_redaction_arguments(parser, pseudonyms=False)


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    options = options_or_stop(args, env)
    from redact import share_allowed
    from tracecheck.sharing.gate import GateError, verdict_of_path

    profile, known = options.profile, options.known_secrets
    code = ExitCode.OK
    for path in args.paths:
        try:
            # Every file, layer and archive member; what cannot be read is UNKNOWN.
            verdict = verdict_of_path(path, args.format, profile, known)
        except GateError as exc:
            env.error(str(exc))
            code = max(code, ExitCode.UNREADABLE)
            continue
        print(f"{path}: {verdict.status.value}", file=env.stdout)
        print_findings(verdict, env.stdout)
        if not share_allowed(verdict):
            code = max(code, ExitCode.FAILED)
    return code
