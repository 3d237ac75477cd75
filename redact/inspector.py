"""What one call knows about a string: could it hold something, and which credential or
personal data it does hold. Shared by redaction and assessment so both see the same things."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from redact.detectors import (
    Detector,
    DetectorTimeout,
    detect_credential,
    detect_personal_data,
    replace_personal_data,
)
from redact.keys import KeyClass
from redact.known import EMPTY_KNOWN_SECRETS, KnownSecrets
from redact.profiles import Profile
from redact.scan import Prefilter, prefilter_for
from redact.strings import is_placeholder

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
        # What a batch prescan learnt: strings a detector may match, and strings that need no
        # look at all (not markers, not data URIs, nothing base64 could hide). Strings outside both are judged one at a time.
        self._flagged: set[str] = set()
        self.clean: set[str] = set()
        self.scalars: set[Any] = set()
        self._key_credentials: dict[str, str | None] = {}
        self._candidate_cache: dict[str, tuple[tuple[Detector, ...], tuple[Detector, ...]]] = {}
        # Counts prescans: what was derived from an earlier one (the values a whole mapping can
        # be judged quiet by) is derived again for the next batch.
        self.generation = 0

    def prescan(self, strings: list[str], scalars: Iterable[Any] = ()) -> None:
        """Scan many strings in one pass, so that later questions about them are set lookups.
        The batch's scalars ride along: they pass through, and knowing them lets a whole
        mapping be judged with set operations."""
        self.generation += 1
        self.scalars = set(scalars)
        self._flagged = self.prefilter.flag(strings)
        rest = set(strings) - self._flagged
        # Markers are kept out: under some keys a marker is skipped where its text would not be.
        special = {
            s
            for s in rest
            if (s[:1] in ("d", "D") and s[:5].lower() == "data:")
            or (s[:1] in ("", "[", "*", "<", "«") and is_placeholder(s))
        }
        self.clean = rest - special - self.known.hiding_in_base64(rest)

    def may_hold(self, text: str) -> bool:
        """Whether a detector or a known-secret form could match somewhere in this string."""
        if text in self._flagged:
            return True
        if text in self.clean:
            return False
        return self.prefilter.may_hold(text)

    def needs_look(self, text: str) -> bool:
        """Whether a string needs the full pipeline: something may match in it, it is a data
        URI, or it is base64 that may hide a known secret. Most span text needs none of it."""
        if text in self.clean:
            return False
        return self.may_hold(text) or self._needs_look_unflagged(text)

    def is_placeholder(self, text: str) -> bool:
        """A marker some redactor wrote (or the empty string), skipped under any key — unless
        something a detector recognises hides inside it (Part A4). Exact, whatever a batch
        prescan over-approximated."""
        if not is_placeholder(text):
            return False
        if not text or not self.may_hold(text):
            return True
        try:
            return self.credential_in(text) is None and not self.personal_in(text)
        except DetectorTimeout:
            return False

    def _needs_look_unflagged(self, text: str) -> bool:
        if text[:1] in ("d", "D") and text[:5].lower() == "data:":
            return True
        return bool(self.known) and self.known.hides_in_base64(text)

    def _candidates(self, text: str) -> tuple[tuple[Detector, ...], tuple[Detector, ...]]:
        """The credential and personal-data detectors whose prefilter matches this string."""
        cached = self._candidate_cache.get(text)
        if cached is None:
            found = self.prefilter.detectors_for(text)
            cached = (
                tuple(d for d in found if d.category == "credential"),
                tuple(d for d in found if d.category == "personal-data"),
            )
            if len(self._candidate_cache) >= 256:
                self._candidate_cache.clear()
            self._candidate_cache[text] = cached
        return cached

    def credential_in(self, text: str) -> str | None:
        """The detector that names a credential in this string (known secrets first), or None."""
        if self.known and (self.known.contains(text) or self.known.hides_in_base64(text)):
            return "known-secret"
        return detect_credential(text, self._candidates(text)[0])

    def replace_personal(self, text: str) -> tuple[str, list[str]]:
        """The text with personal data replaced in place, and the detector of each replacement."""
        return replace_personal_data(text, self._candidates(text)[1])

    def key_credential(self, key: str) -> str | None:
        """A key that itself holds a credential gets renamed; keys repeat, so answers are kept."""
        if key in self._key_credentials:
            return self._key_credentials[key]
        try:
            found = self.credential_in(key) if key and self.needs_look(key) else None
        except DetectorTimeout as exc:
            found = exc.detector_id  # fail closed: a key no detector could finish on is renamed
        if len(self._key_credentials) >= 10_000:
            self._key_credentials.clear()
        self._key_credentials[key] = found
        return found

    def personal_in(self, text: str) -> list[str]:
        return detect_personal_data(text, self._candidates(text)[1])

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
