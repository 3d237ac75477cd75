"""The public entry points over any JSON-like value: redact, assess, and both together."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from redact.inspector import Inspector, known_secrets_of, strings_in
from redact.json_text import JsonTextAssessor, JsonTextInspector, JsonTextRedactor
from redact.known import KnownSecrets
from redact.model import Redaction, ShareRedaction, ShareVerdict
from redact.profiles import Profile, resolve_profile
from redact.strings import effective_cap
from redact.walk import Assessor, Redactor

__all__ = [
    "assess",
    "assessing_classes",
    "assessor_for",
    "inspector_for",
    "pseudonym_key_of",
    "redact",
    "redact_for_share",
    "redact_text",
]

KnownSecretsArg = Iterable[str] | KnownSecrets


def pseudonym_key_of(key: bytes | str | None) -> bytes | None:
    return key.encode("utf-8") if isinstance(key, str) else key


def redactor_for(
    profile: str | Profile,
    known_secrets: KnownSecretsArg,
    pseudonym_key: bytes | str | None,
    max_string_bytes: float | None,
    *,
    inspector: type[Inspector] = JsonTextInspector,
    redactor: type[Redactor] = JsonTextRedactor,
) -> Redactor:
    """A redactor of the given classes (a walk of another shape brings its own), with the
    profile's modes added when it sets any (`redact.mode_walks`). By default JSON held in a
    string is redacted as the structure it is (`redact.json_text`)."""
    resolved = resolve_profile(profile)
    if resolved.modes is not None:
        from redact.mode_walks import with_modes

        inspector, redactor = with_modes(inspector), with_modes(redactor)
    looking = inspector(resolved, known_secrets_of(known_secrets))
    cap = effective_cap(resolved.max_string_bytes, max_string_bytes)
    return redactor(looking, cap, pseudonym_key_of(pseudonym_key))


def assessing_classes(
    profile: Profile, inspector: type[Inspector], assessor: type[Assessor]
) -> tuple[type[Inspector], type[Assessor]]:
    """The inspector and assessor classes a walk of another shape judges with: with the
    profile's modes added when it sets any."""
    if profile.modes is None:
        return inspector, assessor
    from redact.mode_walks import with_modes

    return with_modes(inspector), with_modes(assessor)


def inspector_for(profile: str | Profile, known_secrets: KnownSecretsArg = ()) -> Inspector:
    """The inspector of a profile: with its modes when it sets any."""
    resolved = resolve_profile(profile)
    known = known_secrets_of(known_secrets)
    if resolved.modes is None:
        return JsonTextInspector(resolved, known)
    from redact.mode_walks import with_modes

    return with_modes(JsonTextInspector)(resolved, known)


def assessor_for(inspector: Inspector) -> Assessor:
    """The assessor over an inspector: with the profile's modes when it sets any, so that what
    the mode redactor keeps (an allowed value) is judged as it was kept."""
    if inspector.profile.modes is None:
        return JsonTextAssessor(inspector)
    from redact.mode_walks import with_modes

    return with_modes(JsonTextAssessor)(inspector)


def redact(
    value: Any,
    *,
    profile: str | Profile = "default",
    known_secrets: KnownSecretsArg = (),
    pseudonym_key: bytes | str | None = None,
    max_string_bytes: float | None = None,
) -> Redaction:
    """A redacted copy of `value` and the report of every change; the input is never mutated.

    `pseudonym_key` makes pseudonyms agree across calls and processes; without it each call
    draws a random key, so pseudonyms cannot be linked between calls.
    """
    redactor = redactor_for(profile, known_secrets, pseudonym_key, max_string_bytes)
    out = redactor.value(value, "", 0)
    return Redaction(out, redactor.report())


def redact_text(
    text: str,
    *,
    profile: str | Profile = "default",
    known_secrets: KnownSecretsArg = (),
    pseudonym_key: bytes | str | None = None,
    max_string_bytes: float | None = None,
) -> str:
    """The string pipeline alone: known secrets, data URI, credentials, personal data, cap.
    Free text as the reference reads it: JSON in it is text (a value under a structure, or
    `redact` of a string, reads it as the structure it is)."""
    redactor = redactor_for(
        profile,
        known_secrets,
        pseudonym_key,
        max_string_bytes,
        inspector=Inspector,
        redactor=Redactor,
    )
    return redactor.string(text, "")


def assess(
    value: Any, *, profile: str | Profile = "default", known_secrets: KnownSecretsArg = ()
) -> ShareVerdict:
    """Whether `value` is safe to share under `profile`, without changing it."""
    inspector = inspector_for(profile, known_secrets)
    if isinstance(value, Mapping | list | tuple):
        # Every string scanned in one pass first: a large document (a file judged whole) is
        # then walked by set lookups instead of one scan per string.
        inspector.prescan(*strings_in([value]))
    assessor = assessor_for(inspector)
    assessor.value(value, "", 0)
    return assessor.verdict()


def redact_for_share(
    value: Any,
    *,
    profile: str | Profile = "default",
    known_secrets: KnownSecretsArg = (),
    pseudonym_key: bytes | str | None = None,
    max_string_bytes: float | None = None,
) -> ShareRedaction:
    """Redact, then assess the redacted output with the same profile and known secrets."""
    known = known_secrets_of(known_secrets)
    redaction = redact(
        value,
        profile=profile,
        known_secrets=known,
        pseudonym_key=pseudonym_key,
        max_string_bytes=max_string_bytes,
    )
    verdict = assess(redaction.value, profile=profile, known_secrets=known)
    return ShareRedaction(redaction.value, redaction.report, verdict)
