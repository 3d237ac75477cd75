"""The redaction options every command that redacts takes (`redact`, `verify-safe`, `proxy`,
`ship`), and how they become a profile, known secrets and a pseudonym key. Bad values become
one message and exit code 2, never a traceback and never the secret itself."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the redactor is imported when a command runs, not when the CLI starts
    from redact import KnownSecrets, Profile

__all__ = ["RedactionOptions", "RedactionOptionsError", "add_redaction_arguments"]


class RedactionOptionsError(Exception):
    """An option names a missing file, an unset variable, a bad profile or a too-short secret."""


@dataclass(frozen=True)
class RedactionOptions:
    profile: Profile
    known_secrets: KnownSecrets
    pseudonym_key: bytes | None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> RedactionOptions:
        from redact import KnownSecretError, ProfileError, load_profile
        from redact.profiles import resolve_profile
        from redact.secrets_config import (
            SecretsConfigError,
            load_known_secrets,
            load_pseudonym_key,
        )

        try:
            name = args.profile
            is_file = Path(name).suffix in (".yaml", ".yml", ".json")
            profile = load_profile(Path(name)) if is_file else resolve_profile(name)
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
