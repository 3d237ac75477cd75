"""Who may write to the receiver: tenant id → SHA-256 digest of its key.

Keys are never held in clear: a tenants file holds `sha256:<64 hex>` per tenant, and a presented
key is hashed and compared in constant time with every tenant's digest. A caller without a valid
key always gets 401, so unknown callers cannot probe which tenants exist.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tracecheck.errors import ContractError
from tracecheck.naming import a_json_type
from tracecheck.yaml12 import load_yaml

__all__ = ["TenantError", "Tenants", "key_hash"]

_HASH_PREFIX = "sha256:"
_HEX_DIGEST = re.compile(r"[0-9a-fA-F]{64}")


class TenantError(ValueError):
    """The tenants file or environment is wrong; the message says where and how."""


def key_hash(key: str) -> str:
    """The form a tenants file holds for a key: `sha256:<hex>`."""
    return _HASH_PREFIX + hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class Tenants:
    """Tenant id → SHA-256 digest of its key."""

    digests: Mapping[str, bytes] = field(default_factory=dict)

    @classmethod
    def single(cls, tenant_id: str, key: str) -> Tenants:
        if not tenant_id or not key:
            raise TenantError("a tenant needs a non-empty id and key")
        return cls({tenant_id: hashlib.sha256(key.encode()).digest()})

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Tenants:
        """One tenant from `TENANT_ID` and `TENANT_KEY`."""
        env = os.environ if environ is None else environ
        tenant_id, key = env.get("TENANT_ID", ""), env.get("TENANT_KEY", "")
        if not tenant_id or not key:
            missing = [name for name in ("TENANT_ID", "TENANT_KEY") if not env.get(name)]
            raise TenantError(
                f"no tenants: pass --tenants FILE or set TENANT_ID and TENANT_KEY "
                f"({' and '.join(missing)} unset or empty)"
            )
        return cls.single(tenant_id, key)

    @classmethod
    def from_file(cls, path: str | Path) -> Tenants:
        """A YAML or JSON mapping `tenant id: "sha256:<64 hex>"`."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise TenantError(f"{path}: cannot read: {reason}") from None
        try:
            document = load_yaml(text)
        except ContractError as exc:  # a tenant written twice
            raise TenantError(f"{path}: {exc.problems[0]}") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            raise TenantError(f"{path}: not YAML or JSON{where}") from None
        return cls.from_mapping(document, str(path))

    @classmethod
    def from_mapping(cls, document: Any, source: str = "tenants") -> Tenants:
        if not isinstance(document, dict) or not document:
            raise TenantError(f"{source}: is not a mapping of tenant id to key hash")
        digests: dict[str, bytes] = {}
        problems: list[str] = []
        for tenant_id, value in document.items():
            if not isinstance(tenant_id, str) or not tenant_id:
                problems.append(f"a tenant id is {a_json_type(tenant_id)}, not a non-empty string")
                continue
            digest = _digest_of(value)
            if digest is None:
                problems.append(
                    f'tenant "{tenant_id}": the key hash is not "sha256:" and 64 hex digits'
                )
                continue
            digests[tenant_id] = digest
        if problems:
            raise TenantError(f"{source}: " + "; ".join(problems))
        return cls(digests)

    def __len__(self) -> int:
        return len(self.digests)

    def authenticate(self, key: str | bytes | None, tenant_id: str | None) -> tuple[int, str] | str:
        """The tenant id, or `(status, message)` refusing the request. A `str` key is hashed as
        UTF-8, `bytes` (a header value as it came) as they are."""
        if not key:
            return 401, "Authorization: Bearer <key> is required"
        presented = hashlib.sha256(key.encode() if isinstance(key, str) else key).digest()
        owners = [t for t, digest in self.digests.items() if hmac.compare_digest(digest, presented)]
        if not owners:
            return 401, "the bearer token is not a valid key"
        if not tenant_id:
            return 404, "X-Tangle-Tenant-Id is required"
        if tenant_id not in self.digests:
            return 404, "X-Tangle-Tenant-Id names no known tenant"
        if tenant_id not in owners:
            return 401, "the bearer token is not the key of the tenant X-Tangle-Tenant-Id names"
        return tenant_id


def _digest_of(value: Any) -> bytes | None:
    if not isinstance(value, str) or not value.startswith(_HASH_PREFIX):
        return None
    hex_digest = value[len(_HASH_PREFIX) :]
    if not _HEX_DIGEST.fullmatch(hex_digest):
        return None
    return bytes.fromhex(hex_digest)
