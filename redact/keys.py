"""Key rules: what a field's name says about its value (spec §B6).

A key is normalised to snake_case and matched against lists by whole name or `_`-suffix, so
`OPENAI_API_KEY` is a credential while `secret_name` and `password_min_length` are not. Beyond
the reference's lists (issue 31): the OpenTelemetry keys that hold a client's address
(`client.address`, `source.address`, `network.peer.address`) are personal data under `share`. Profiles
may add names to any class (Part A8); `KeyRules` is the built-in lists plus those additions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

__all__ = ["KeyClass", "KeyRules", "classify_key", "normalize_key"]


class KeyClass(StrEnum):
    CREDENTIAL = "credential"
    EMAIL = "email"  # personal data, removed in every profile
    SHARE_PERSONAL = "share-personal"  # personal data, removed under share and strict
    IDENTIFIER = "identifier"
    RAW_CONTENT = "raw-content"

    @property
    def category(self) -> str:
        """The public category: both personal classes are `personal-data`."""
        return "personal-data" if self in (KeyClass.EMAIL, KeyClass.SHARE_PERSONAL) else self.value


_NOT_CREDENTIAL = frozenset(
    [
        "tokens",
        "max_tokens",
        "min_tokens",
        "ls_max_tokens",
        "token_count",
        "token_limit",
        "token_budget",
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "cached_tokens",
        "prompt_tokens",
        "completion_tokens",
        "reasoning_tokens",
        "bos_token",
        "eos_token",
        "pad_token",
        "unk_token",
        "sep_token",
        "cls_token",
        "mask_token",
        "stop_token",
        "page_token",
        "next_page_token",
        "prev_page_token",
        "next_token",
        "continuation_token",
        "cursor_token",
        "sync_token",
    ]
)

BUILT_IN: Mapping[KeyClass, tuple[str, ...]] = {
    KeyClass.CREDENTIAL: tuple(
        [
            "authorization",
            "auth",
            "cookie",
            "api_key",
            "apikey",
            "api_token",
            "access_key",
            "secret_key",
            "private_key",
            "signing_key",
            "encryption_key",
            "master_key",
            "session_key",
            "client_secret",
            "secret",
            "password",
            "passwd",
            "passphrase",
            "credential",
            "credentials",
            "bearer",
            "dsn",
            "database_url",
            "connection_string",
            "pat",
        ]
    ),
    KeyClass.EMAIL: ("email", "email_address"),
    KeyClass.SHARE_PERSONAL: tuple(
        [
            "phone",
            "phone_number",
            "mobile",
            "ip",
            "ip_address",
            "remote_addr",
            "street_address",
            "postal_address",
            "home_address",
            "billing_address",
            "shipping_address",
            "mailing_address",
            "date_of_birth",
            "dob",
            "ssn",
            # OpenTelemetry's current names for the address of the other end of a connection
            # (`client.address`, `source.address`, `network.peer.address`; the older
            # `http.client_ip` and `net.peer.ip` end in `ip`): a client's IP address or host.
            # Not `server.address` or `network.local.address`: the service's own, usually a name.
            "client_address",
            "client_socket_address",
            "source_address",
            "source_socket_address",
            "peer_address",
            "peer_addr",
        ]
    ),
    KeyClass.IDENTIFIER: tuple(
        [
            "user_id",
            "user_uuid",
            "account_id",
            "account_uuid",
            "customer_id",
            "tenant_id",
            "org_id",
            "organization_id",
            "organisation_id",
            "team_id",
            "enduser_id",
            "actor_id",
            "principal_id",
            "member_id",
            "session_id",
            "request_id",
            "correlation_id",
            "device_id",
            "installation_id",
        ]
    ),
    KeyClass.RAW_CONTENT: tuple(
        [
            "prompt",
            "prompts",
            "system_prompt",
            "completion",
            "input",
            "output",
            "message",
            "messages",
            "content",
            "text",
            "thinking",
            "reasoning",
            "transcript",
            "context",
            "document",
            "documents",
            "chunk",
            "chunks",
            "retrieval",
            "query",
            "args",
            "arguments",
            "result",
            "body",
            "command",
            "full_command",
            "input_value",
            "output_value",
            "instructions",
            "system_instructions",
            "stdout",
            "stderr",
            "stacktrace",
            "status_description",
            "input_preview",
            "output_preview",
            "current_task",
            "user_input",
            "request_text",
        ]
    ),
}

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=16384)
def normalize_key(name: str) -> str:
    """`userPassword`, `user-password`, `user.password` → `user_password`; `APIKey` → `apikey`."""
    split = _CAMEL_BOUNDARY.sub("_", name).lower()
    return _NON_ALNUM.sub("_", split).strip("_")


def _suffixes(normalized: str) -> Iterable[str]:
    """The key itself and every `_`-suffix of it: a list entry matches by whole name or suffix."""
    yield normalized
    start = normalized.find("_")
    while start != -1:
        yield normalized[start + 1 :]
        start = normalized.find("_", start + 1)


@dataclass(frozen=True)
class KeyRules:
    """The key lists of one profile: the built-in lists plus the names a profile adds."""

    extra: Mapping[KeyClass, frozenset[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        table: dict[str, KeyClass] = {}
        # Earlier classes win when a name sits in two lists, as in the reference's check order.
        for key_class in KeyClass:
            names = (*BUILT_IN[key_class], *sorted(self.extra.get(key_class, ())))
            for name in names:
                table.setdefault(normalize_key(name), key_class)
        object.__setattr__(self, "_table", table)
        object.__setattr__(self, "_cache", {})

    def classify(self, name: str) -> KeyClass | None:
        cache: dict[str, KeyClass | None] = self._cache  # type: ignore[attr-defined]
        try:
            return cache[name]
        except KeyError:
            pass
        if len(cache) >= 10_000:
            cache.clear()
        result = cache[name] = self._classify(normalize_key(name))
        return result

    def _classify(self, normalized: str) -> KeyClass | None:
        if not normalized or normalized in _NOT_CREDENTIAL:
            return None
        # The token rule: `*_token` is a credential, `*_tokens` (a count) is not.
        if normalized == "token" or (
            not normalized.endswith("tokens") and normalized.endswith("token")
        ):
            return KeyClass.CREDENTIAL
        table: dict[str, KeyClass] = self._table  # type: ignore[attr-defined]
        best: KeyClass | None = None
        for suffix in _suffixes(normalized):
            found = table.get(suffix)
            if found is not None and (best is None or _ORDER[found] < _ORDER[best]):
                best = found
        return best


_ORDER = {key_class: index for index, key_class in enumerate(KeyClass)}

BUILT_IN_RULES = KeyRules()


def classify_key(name: str) -> str | None:
    """`credential`, `personal-data`, `identifier`, `raw-content`, or None for a plain key."""
    key_class = BUILT_IN_RULES.classify(name)
    return None if key_class is None else key_class.category
