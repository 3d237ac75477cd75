"""The redaction options every command that redacts takes (`redact`, `verify-safe`, `proxy`,
`ship`), how they become a profile, known secrets and a pseudonym key, and how findings are
printed. Bad values become one message and exit code 2, never a traceback and never the secret
itself. The redactor is imported when a command runs, not when the parser is built."""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

from tracecheck.cli.codes import ExitCode, Stop
from tracecheck.cli.environment import Environment

if TYPE_CHECKING:  # the redactor is imported when a command runs, not when the CLI starts
    from redact import KnownSecrets, Profile, ShareVerdict

__all__ = [
    "RedactionOptions",
    "RedactionOptionsError",
    "add_redaction_arguments",
    "options_or_stop",
    "print_findings",
    "summary",
]


class RedactionOptionsError(Exception):
    """An option names a missing file, an unset variable, a bad profile or a too-short secret."""


class RedactionOptions(NamedTuple):
    """Immutable; a named tuple so that building the parser imports no `dataclasses`."""

    profile: Profile
    known_secrets: KnownSecrets
    pseudonym_key: bytes | None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> RedactionOptions:
        from redact import KnownSecretError, ProfileError
        from redact.profiles import profile_named
        from redact.secrets_config import (
            SecretsConfigError,
            load_known_secrets,
            load_pseudonym_key,
        )

        try:
            profile = profile_named(args.profile)
            known = load_known_secrets(args.known_secret_env, args.known_secrets_file)
            key = load_pseudonym_key(getattr(args, "pseudonym_key_file", None))
        except (ProfileError, SecretsConfigError, KnownSecretError) as exc:
            raise RedactionOptionsError(str(exc)) from None
        return cls(profile, known, key)


def add_redaction_arguments(parser: argparse.ArgumentParser, *, pseudonyms: bool) -> None:
    parser.add_argument(
        "--profile",
        default="share",
        metavar="NAME|FILE",
        help="default, share (the default) or strict, or a profile file extending one",
    )
    parser.add_argument(
        "--known-secret-env",
        action="append",
        default=[],
        metavar="NAME",
        help="an environment variable holding a secret to cut in every encoding (repeatable)",
    )
    parser.add_argument(
        "--known-secrets-file", metavar="FILE", help="a file of secrets to cut, one per line"
    )
    if pseudonyms:
        parser.add_argument(
            "--pseudonym-key-file",
            metavar="FILE",
            help="key for pseudonyms that agree across runs and processes (default: "
            "$TRACECHECK_PSEUDONYM_KEY, else a random key per run)",
        )


def options_or_stop(args: argparse.Namespace, env: Environment) -> RedactionOptions:
    """The options of `args`, or their error printed and the command stopped (exit 2)."""
    try:
        return RedactionOptions.from_args(args)
    except RedactionOptionsError as exc:
        env.error(str(exc))
        raise Stop(ExitCode.USAGE) from None


def print_findings(verdict: ShareVerdict, stream: TextIO, indent: str = "  ") -> None:
    """Each finding by severity, category, detector, count and paths; never a value."""
    for finding in verdict.findings:
        paths = ", ".join(finding.paths) + (", …" if finding.count > len(finding.paths) else "")
        print(
            f"{indent}{finding.severity}: {finding.category} ({finding.detector}) "
            f"×{finding.count} at {paths}",
            file=stream,
        )
    for entry in verdict.unreadable:
        print(f"{indent}unreadable: {entry}", file=stream)


def summary(findings: Sequence[Any]) -> str:
    """`redacted 14 values in 9 spans (email ×3, provider-key ×1)`; `in 9 records` for Claude
    Code records (paths `line 12: message…`)."""
    spans = {f.path.split("/", 1)[0] for f in findings if f.path.startswith("span:")}
    records = {f.path.split(":", 1)[0] for f in findings if f.path.startswith("line ")}
    counts = Counter(f.detector for f in findings)
    detail = ", ".join(f"{d} ×{n}" for d, n in sorted(counts.items(), key=lambda i: (-i[1], i[0])))
    noun = "value" if len(findings) == 1 else "values"
    where = f" in {len(spans)} span{'' if len(spans) == 1 else 's'}" if spans else ""
    if records and not spans:
        where = f" in {len(records)} record{'' if len(records) == 1 else 's'}"
    return f"redacted {len(findings)} {noun}{where}" + (f" ({detail})" if detail else "")
