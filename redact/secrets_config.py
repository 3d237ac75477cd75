"""Where the exporter, the proxy, the shipper and the CLI take their secrets from: the pseudonym
key that makes one user id one pseudonym across batches and processes, and known secrets named
by environment variable or listed in a file. One place, so every path reads them alike."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from redact.known import KnownSecrets

__all__ = [
    "PSEUDONYM_KEY_ENV",
    "SecretsConfigError",
    "load_known_secrets",
    "load_pseudonym_key",
]

PSEUDONYM_KEY_ENV = "TRACECHECK_PSEUDONYM_KEY"
_MIN_KEY_BYTES = 16


class SecretsConfigError(ValueError):
    """A key or secret source is missing or unusable; the message never holds a secret."""


def load_pseudonym_key(
    path: str | Path | None = None, *, env: str = PSEUDONYM_KEY_ENV
) -> bytes | None:
    """The key from `path` (its bytes, surrounding whitespace stripped), else from the
    environment variable `env`, else None (each call then draws a random key)."""
    if path is not None:
        try:
            key = Path(path).read_bytes().strip()
        except OSError as exc:
            raise SecretsConfigError(f"{path}: could not be read: {exc.strerror}") from None
        where = str(path)
    else:
        key = os.environ.get(env, "").strip().encode("utf-8")
        if not key:
            return None
        where = f"${env}"
    if len(key) < _MIN_KEY_BYTES:
        raise SecretsConfigError(f"{where}: a pseudonym key needs at least {_MIN_KEY_BYTES} bytes")
    return key


def load_known_secrets(
    env_names: Iterable[str] = (), file: str | Path | None = None
) -> KnownSecrets:
    """Known secrets from environment variables (each must be set and non-empty) and from a
    file of one secret per line (blank lines skipped)."""
    secrets: list[str] = []
    for name in env_names:
        value = os.environ.get(name)
        if not value:
            raise SecretsConfigError(f"${name}: the environment variable is not set or empty")
        secrets.append(value)
    if file is not None:
        try:
            text = Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SecretsConfigError(f"{file}: could not be read: {exc}") from None
        secrets.extend(line.rstrip("\r") for line in text.split("\n") if line.strip())
    return KnownSecrets.build(secrets)
