"""What one call knows about a string: could it hold something, and which credential or
personal data it does hold. Shared by redaction and assessment so both see the same things."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from redact.detectors import (
    Detector,
    DetectorTimeout,
    detect_credential,
    detect_personal_data,
)
from redact.keys import KeyClass
from redact.known import EMPTY_KNOWN_SECRETS, KnownSecrets
from redact.profiles import Profile
from redact.scan import Prefilter, prefilter_for

__all__ = ["Inspector", "known_secrets_of", "pointer_segment"]

MAX_DEPTH = 64


def known_secrets_of(known_secrets: Iterable[str] | KnownSecrets) -> KnownSecrets:
    if isinstance(known_secrets, KnownSecrets):
        return known_secrets
    secrets = tuple(known_secrets)
    return KnownSecrets.build(secrets) if secrets else EMPTY_KNOWN_SECRETS


def pointer_segment(key: str) -> str:
    """One RFC 6901 reference token."""
    if "~" in key or "/" in key:
        return key.replace("~", "~0").replace("/", "~1")
    return key


class Inspector:
    def __init__(self, profile: Profile, known: KnownSecrets) -> None:
        self.profile = profile
        self.known = known
        self.credential_detectors: tuple[Detector, ...] = profile.credential_detectors
        self.personal_detectors: tuple[Detector, ...] = profile.personal_detectors
        self.prefilter: Prefilter = prefilter_for(
            self.credential_detectors + self.personal_detectors, known
        )
        # Strings a batch scan looked at, and those it flagged; None: scan each string alone.
        self._scanned: Collection[str] | None = None
        self._flagged: Collection[str] = ()
        self._key_credentials: dict[str, str | None] = {}

    def prescan(self, strings: list[str]) -> None:
        """Scan many strings in one pass; later `may_hold` answers from the result."""
        self._flagged = self.prefilter.flag(strings)
        self._scanned = set(strings)

    def may_hold(self, text: str) -> bool:
        if text in self._flagged:
            return True
        if self._scanned is not None and text in self._scanned:
            return False
        return self.prefilter.may_hold(text)

    def credential_in(self, text: str) -> str | None:
        """The detector that names a credential in this string (known secrets first), or None."""
        if self.known and (self.known.contains(text) or self.known.hides_in_base64(text)):
            return "known-secret"
        return detect_credential(text, self.credential_detectors)

    def key_credential(self, key: str) -> str | None:
        """A key that itself holds a credential gets renamed; keys repeat, so answers are kept."""
        if key in self._key_credentials:
            return self._key_credentials[key]
        try:
            found = self.credential_in(key) if key and self.may_hold(key) else None
        except DetectorTimeout as exc:
            found = exc.detector_id  # fail closed: a key no detector could finish on is renamed
        if len(self._key_credentials) >= 10_000:
            self._key_credentials.clear()
        self._key_credentials[key] = found
        return found

    def personal_in(self, text: str) -> list[str]:
        return detect_personal_data(text, self.personal_detectors)

    def unsafe_text(self, text: str, mime: str) -> bool:
        """Whether decoded data-URI content holds a secret or personal data (§B10)."""
        if mime == "application/json":
            try:
                document = json.loads(text)
            except ValueError:
                pass
            else:
                return self._unsafe_json(document, 0)
        try:
            return self.credential_in(text) is not None or bool(self.personal_in(text))
        except DetectorTimeout:
            return True

    def _unsafe_json(self, value: Any, depth: int) -> bool:
        if depth > MAX_DEPTH:
            return True
        if isinstance(value, str):
            return self.unsafe_text(value, "text/plain")
        if isinstance(value, list):
            return any(self._unsafe_json(item, depth + 1) for item in value)
        if not isinstance(value, Mapping):
            return False
        for key, item in value.items():
            key_class = self.profile.keys.classify(key)
            if key_class is KeyClass.CREDENTIAL:
                return True
            scalar = isinstance(item, str | int | float) and not isinstance(item, bool)
            if key_class in (KeyClass.EMAIL, KeyClass.SHARE_PERSONAL) and scalar:
                return True
            if self.key_credential(key) or self._unsafe_json(item, depth + 1):
                return True
        return False
