"""A shipment's checkpoint: what makes `tracecheck ship` resumable without a pseudonym key.

Without a key given, a run draws a random pseudonym key; a rerun with another key would send
other pseudonyms, which the store rejects as conflicting with the spans it already holds. So the
key drawn is kept here, with the store's answer to each batch, in one file per shipment:
`<directory>/ship-<sha256 of the endpoint, the tenant and the spans' ids>.json`, mode 0600 in
a directory of mode 0700. A rerun of the same spans to the same store and tenant finds it, uses
the same key (so the same bodies and idempotency keys) and skips the batches already answered.

The file holds the key in hex and, per batch, its idempotency key and the store's answer
(`accepted` and the rejected indexes with their reasons): no span content, no API key. The key
is never logged or shown in a repr; messages name the file, never its content.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from redact.shipping.shipment import ShipError
from tracecheck.spans import Span

__all__ = ["CheckpointError", "ShipCheckpoint", "checkpoint_name"]

_VERSION = 1
_KEY_BYTES = 32


class CheckpointError(ShipError):
    """The checkpoint cannot be read or written. Nothing was sent when it is raised on open."""


@dataclass
class ShipCheckpoint:
    """One shipment's kept state. `answers` maps a batch's idempotency key to the store's
    `(accepted, [(index, reason), …])` for it."""

    path: Path
    pseudonym_key: bytes | None = field(default=None, repr=False)
    answers: dict[str, tuple[int, list[tuple[int, str]]]] = field(default_factory=dict)

    @classmethod
    def open(
        cls, directory: str | Path, *, endpoint: str, tenant_id: str, spans: Sequence[Span]
    ) -> ShipCheckpoint:
        """The checkpoint of these spans to this endpoint and tenant, read if a run left one,
        else new (its file is written by `ensure_key` or the first `record`)."""
        folder = Path(directory)
        path = folder / checkpoint_name(endpoint, tenant_id, spans)
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            data = path.read_bytes()
        except FileNotFoundError:
            data = None
        except OSError as exc:
            raise CheckpointError(_os_message(path, "read", exc)) from None
        return cls(path) if data is None else cls._parsed(path, data)

    def ensure_key(self) -> bytes:
        """The kept pseudonym key; a new random one is drawn and written first when there is
        none, so it is on disk before anything is sent. When another run of the same shipment
        wrote its file first, that run's key is taken instead, so both send the same spans."""
        if self.pseudonym_key is not None:
            return self.pseudonym_key
        self.pseudonym_key = secrets.token_bytes(_KEY_BYTES)
        if self._save(exclusive=True):
            return self.pseudonym_key
        # The file exists: an earlier run's (with a key given then) or a concurrent run's.
        other = ShipCheckpoint._parsed(self.path, self._read())
        self.answers = {**other.answers, **self.answers}
        if other.pseudonym_key is not None:
            self.pseudonym_key = other.pseudonym_key
        else:
            self.save()
        return self.pseudonym_key

    def _read(self) -> bytes:
        try:
            return self.path.read_bytes()
        except OSError as exc:
            raise CheckpointError(_os_message(self.path, "read", exc)) from None

    @classmethod
    def _parsed(cls, path: Path, data: bytes) -> ShipCheckpoint:
        try:
            document = orjson.loads(data)
            if document.get("version") != _VERSION:
                raise ValueError("unknown version")
            key = document.get("pseudonymKey")
            answers = {
                str(name): (
                    int(answer["accepted"]),
                    [(int(i), str(r)) for i, r in answer["rejected"]],
                )
                for name, answer in document.get("batches", {}).items()
            }
            pseudonym_key = bytes.fromhex(key) if key is not None else None
        except (orjson.JSONDecodeError, ValueError, TypeError, KeyError, AttributeError):
            raise CheckpointError(
                f"the checkpoint {path} is not one this version wrote; remove it to start "
                "this shipment afresh (with a new pseudonym key)"
            ) from None
        return cls(path, pseudonym_key, answers)

    def answer(self, idempotency_key: str) -> tuple[int, list[tuple[int, str]]] | None:
        """The store's answer to this batch in an earlier run, or None."""
        return self.answers.get(idempotency_key)

    def record(
        self, idempotency_key: str, accepted: int, rejected: Iterable[tuple[int, str]]
    ) -> None:
        """Keep the store's answer to a batch (written at once, before the next batch goes)."""
        self.answers[idempotency_key] = (accepted, list(rejected))
        self.save()

    def save(self) -> None:
        """Write the file whole: a new file of mode 0600 beside it, then renamed over it."""
        self._save(exclusive=False)

    def _save(self, *, exclusive: bool) -> bool:
        """Write the file; with `exclusive`, only if there is none yet (False when there was)."""
        document: dict[str, Any] = {
            "version": _VERSION,
            "pseudonymKey": self.pseudonym_key.hex() if self.pseudonym_key is not None else None,
            "batches": {
                name: {"accepted": accepted, "rejected": [list(item) for item in rejected]}
                for name, (accepted, rejected) in self.answers.items()
            },
        }
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.fchmod(descriptor, stat.S_IRUSR | stat.S_IWUSR)
                os.write(descriptor, orjson.dumps(document))
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
            if not exclusive:
                temporary.replace(self.path)
                return True
            try:
                # A hard link never replaces: of two runs starting at once, one writes first.
                os.link(temporary, self.path)
            except FileExistsError:
                return False
            except OSError:  # no hard links on this file system: an unguarded rename
                temporary.replace(self.path)
            finally:
                temporary.unlink(missing_ok=True)
            return True
        except OSError as exc:
            temporary.unlink(missing_ok=True)
            raise CheckpointError(_os_message(self.path, "write", exc)) from None


def checkpoint_name(endpoint: str, tenant_id: str, spans: Iterable[Span]) -> str:
    """`ship-<sha256 hex>.json` of the endpoint, the tenant and the spans' ids, in order: the
    same spans shipped to the same place find the same file."""
    digest = hashlib.sha256()
    for part in (endpoint, tenant_id):
        digest.update(part.encode("utf-8") + b"\x00")
    for span in spans:
        digest.update(f"{span.trace_id or ''}/{span.span_id or ''}\n".encode())
    return f"ship-{digest.hexdigest()}.json"


def _os_message(path: Path, action: str, exc: OSError) -> str:
    reason = exc.strerror or type(exc).__name__
    return f"cannot {action} the checkpoint {path}: {reason}"
