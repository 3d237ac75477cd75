"""Profiles: what each of `default`, `share` and `strict` removes and how much a finding weighs.

Profiles are data (Part A8). The three built-in ones follow the table of §B2; a team extends one
from a YAML or JSON file (extra key names per class, detectors disabled or enabled, a lower
cap), validated as strictly as contracts are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from redact.keys import KeyClass, KeyRules
from redact.model import Category, Severity
from redact.modes import MODE_KEYS, Modes, modes_of

if TYPE_CHECKING:
    from redact.detectors import Detector

__all__ = [
    "PROFILES",
    "REDACTION_PROFILES",
    "Profile",
    "ProfileError",
    "load_profile",
    "profile_named",
    "resolve_profile",
]


@dataclass(frozen=True)
class Profile:
    name: str
    max_string_bytes: int
    # Key-based removal beyond credential and e-mail keys (which every profile removes).
    remove_share_personal_keys: bool
    pseudonymize_identifiers: bool
    remove_raw_content_keys: bool
    replace_media: bool
    severity: Mapping[Category, Severity | None]
    keys: KeyRules = field(default_factory=KeyRules)
    disabled_detectors: frozenset[str] = frozenset()
    # Opt-in detectors (`redact.detectors.OPT_IN_DETECTORS`) this profile runs.
    enabled_detectors: frozenset[str] = frozenset()
    # The modes a profile file asks for (allow-list, allowed and blocked values, hash, summary,
    # sanitizers: `redact.modes`); None when it asks for none, as the built-in profiles.
    modes: Modes | None = None

    def severity_of(self, category: Category) -> Severity | None:
        return self.severity.get(category)

    @cached_property
    def credential_detectors(self) -> tuple[Detector, ...]:
        from redact.detectors import CREDENTIAL_DETECTORS

        return self._chosen(CREDENTIAL_DETECTORS)

    @cached_property
    def personal_detectors(self) -> tuple[Detector, ...]:
        from redact.detectors import PERSONAL_DETECTORS

        return self._chosen(PERSONAL_DETECTORS)

    def compile_patterns(self) -> None:
        """Compile every precise pattern this profile's detectors run, now: a server does it
        before its first request instead of during it (each is compiled on first use)."""
        for detector in (*self.credential_detectors, *self.personal_detectors):
            _ = detector.pattern

    def _chosen(self, on_by_default: tuple[Detector, ...]) -> tuple[Detector, ...]:
        """The detectors of one category that run: those on by default and the opt-in ones this
        profile enables, in registry order, less those it disables."""
        from redact.detectors import OPT_IN_DETECTORS

        category = on_by_default[0].category
        opted_in = tuple(
            d for d in OPT_IN_DETECTORS if d.category == category and d.id in self.enabled_detectors
        )
        return tuple(d for d in on_by_default + opted_in if d.id not in self.disabled_detectors)

    def __hash__(self) -> int:
        return hash(
            (
                self.name,
                self.max_string_bytes,
                self.disabled_detectors,
                self.enabled_detectors,
                self.modes,
            )
        )


_DEFAULT = Profile(
    name="default",
    max_string_bytes=1_048_576,
    remove_share_personal_keys=False,
    pseudonymize_identifiers=False,
    remove_raw_content_keys=False,
    replace_media=False,
    severity={
        "credential": "error",
        "personal-data": "warning",
        "identifier": None,
        "raw-content": "warning",
        "media": "warning",
    },
)
_SHARE = replace(
    _DEFAULT,
    name="share",
    max_string_bytes=65_536,
    remove_share_personal_keys=True,
    pseudonymize_identifiers=True,
    severity={**_DEFAULT.severity, "personal-data": "error", "identifier": "warning"},
)
_STRICT = replace(
    _SHARE,
    name="strict",
    max_string_bytes=4_096,
    remove_raw_content_keys=True,
    replace_media=True,
    severity={**_SHARE.severity, "raw-content": "error", "media": "error"},
)

PROFILES: Mapping[str, Profile] = {p.name: p for p in (_DEFAULT, _SHARE, _STRICT)}
REDACTION_PROFILES = tuple(PROFILES)


class ProfileError(ValueError):
    """A profile name or profile document is wrong; each problem names its place."""

    def __init__(self, problems: list[str], source: str | None = None) -> None:
        self.problems = problems
        self.source = source
        where = f"{source}: " if source else ""
        super().__init__(where + "; ".join(problems))


def profile_named(profile: str | Path | Profile) -> Profile:
    """A built-in profile by name, a `Profile`, or a profile file (`.yaml`, `.yml`, `.json`):
    what a command's `--profile` and the exporter's `profile=` take."""
    if isinstance(profile, Path) or (
        isinstance(profile, str)
        and profile not in PROFILES
        and Path(profile).suffix.lower() in (".yaml", ".yml", ".json")
    ):
        return load_profile(Path(profile))
    return resolve_profile(profile)


def resolve_profile(profile: str | Profile) -> Profile:
    if isinstance(profile, Profile):
        return profile
    found = PROFILES.get(profile) if isinstance(profile, str) else None
    if found is None:
        raise ProfileError([f"unknown redaction profile: {profile}"])
    return found


_KEY_CLASSES = {
    "credential": KeyClass.CREDENTIAL,
    "email": KeyClass.EMAIL,
    "personal-data": KeyClass.SHARE_PERSONAL,
    "identifier": KeyClass.IDENTIFIER,
    "raw-content": KeyClass.RAW_CONTENT,
}
_TOP_KEYS = ("name", "extends", "maxStringBytes", "keys", "detectors", *MODE_KEYS)
_DETECTOR_KEYS = ("disable", "enable")


def load_profile(source: str | Path | Mapping[str, Any]) -> Profile:
    """A profile extended from a built-in one, from a YAML/JSON file, YAML/JSON text, or a dict.

    ```yaml
    name: acme-share
    extends: share
    maxStringBytes: 32768          # may only lower the cap of the profile it extends
    keys: {credential: [x_acme_signature], identifier: [ticket_id]}
    detectors: {disable: [phone], enable: [iban]}   # enable: the opt-in detectors
    ```

    and the modes of `redact.modes`: `allowedKeys`, `values: {allow, block}`, `pseudonyms`,
    `summary`, `sanitize: {urls, sql}`.
    """
    document, where = _document(source)
    problems: list[str] = []
    profile = _build(document, problems)
    if problems or profile is None:
        raise ProfileError(problems, where)
    return profile


def _document(source: str | Path | Mapping[str, Any]) -> tuple[Any, str | None]:
    if not isinstance(source, str | Path):  # a parsed document; validation judges its shape
        return source, None
    if isinstance(source, Path) or _names_a_file(source):
        path = Path(source)
        if not path.is_file():
            raise ProfileError(["file does not exist"], str(source))
        try:
            text = path.read_bytes().decode("utf-8-sig")
        except OSError as exc:
            raise ProfileError([f"cannot be read: {exc.strerror or exc}"], str(path)) from None
        except UnicodeDecodeError as exc:
            raise ProfileError([f"is not UTF-8 text (byte {exc.start})"], str(path)) from None
        where: str | None = str(path)
    else:
        text, where = source, None
    from tracecheck.errors import ContractError
    from tracecheck.yaml12 import load_yaml

    try:
        return load_yaml(text), where
    except ContractError as exc:  # a key written twice
        raise ProfileError([str(problem) for problem in exc.problems], where) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        place = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise ProfileError([f"{place}not valid YAML or JSON"], where) from None


def _names_a_file(text: str) -> bool:
    """As for contracts: one line that ends in `.json`/`.yaml`/`.yml` or names an existing file;
    anything else (a JSON object on one line, however long, included) is text."""
    if "\n" in text or "\r" in text or not text.strip():
        return False
    if text.lstrip().startswith(("{", "[")):
        return False
    if text.lower().endswith((".json", ".yaml", ".yml")):
        return True
    try:
        return Path(text).is_file()
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte
        return False


def _build(document: Any, problems: list[str]) -> Profile | None:
    from tracecheck.naming import unknown_message

    if not isinstance(document, Mapping):
        problems.append("a profile is an object with keys: " + ", ".join(_TOP_KEYS))
        return None
    for key in document:
        if key not in _TOP_KEYS:
            problems.append(unknown_message("key", key, _TOP_KEYS))
    base_name = document.get("extends")
    if base_name is None:
        problems.append('missing required key "extends" (one of: ' + ", ".join(PROFILES) + ")")
        return None
    if not isinstance(base_name, str) or base_name not in PROFILES:
        problems.append("/extends: " + unknown_message("profile", base_name, REDACTION_PROFILES))
        return None
    base = PROFILES[base_name]
    name = document.get("name", base_name)
    if not isinstance(name, str) or not name:
        problems.append("/name: must be a non-empty string")
    cap = _cap(document.get("maxStringBytes"), base, problems)
    extra = _keys(document.get("keys", {}), problems)
    disabled, enabled = _detector_choices(document.get("detectors", {}), problems)
    modes = modes_of(document, problems)
    if problems:
        return None
    return replace(
        base,
        name=str(name),
        max_string_bytes=cap,
        keys=KeyRules(extra) if extra else base.keys,
        disabled_detectors=base.disabled_detectors | disabled,
        enabled_detectors=base.enabled_detectors | enabled,
        modes=modes,
    )


def _cap(value: Any, base: Profile, problems: list[str]) -> int:
    if value is None:
        return base.max_string_bytes
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append("/maxStringBytes: must be a whole number of bytes, 0 or more")
        return base.max_string_bytes
    if value > base.max_string_bytes:
        problems.append(
            f"/maxStringBytes: {value} is over the {base.max_string_bytes} of "
            f'"{base.name}"; a profile may only lower the cap'
        )
    return min(value, base.max_string_bytes)


def _keys(value: Any, problems: list[str]) -> dict[KeyClass, frozenset[str]]:
    from tracecheck.naming import unknown_message

    if not isinstance(value, Mapping):
        problems.append("/keys: must be an object of key class → list of key names")
        return {}
    extra: dict[KeyClass, frozenset[str]] = {}
    for class_name, names in value.items():
        if class_name not in _KEY_CLASSES:
            problems.append(
                "/keys: " + unknown_message("key class", class_name, tuple(_KEY_CLASSES))
            )
            continue
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            problems.append(f"/keys/{class_name}: must be a list of non-empty key names")
            continue
        extra[_KEY_CLASSES[class_name]] = frozenset(names)
    return extra


def _detector_choices(value: Any, problems: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The detector ids a profile disables and enables."""
    from tracecheck.naming import quote, unknown_message

    if not isinstance(value, Mapping):
        problems.append("/detectors: must be an object with the keys: disable, enable")
        return frozenset(), frozenset()
    for key in value:
        if key not in _DETECTOR_KEYS:
            problems.append("/detectors: " + unknown_message("key", key, _DETECTOR_KEYS))
    disabled = _detector_ids(value, "disable", problems)
    enabled = _detector_ids(value, "enable", problems)
    for name in sorted(disabled & enabled):
        problems.append(f"/detectors: {quote(name)} is both disabled and enabled")
    return disabled, enabled


def _detector_ids(value: Mapping[str, Any], key: str, problems: list[str]) -> frozenset[str]:
    from redact.detectors import DETECTORS
    from tracecheck.naming import a_json_type, did_you_mean, quote

    names = value.get(key, [])
    if not isinstance(names, list):
        problems.append(f"/detectors/{key}: must be a list of detector ids")
        return frozenset()
    known = tuple(DETECTORS)
    for index, name in enumerate(names):
        if not isinstance(name, str):
            problems.append(
                f"/detectors/{key}/{index}: must be a detector id, not {a_json_type(name)}"
            )
        elif name not in DETECTORS:
            # Not the whole list of ids, as `redact.detectors.detector` does: there are
            # more than a hundred.
            suggestion = did_you_mean(name, known)
            hint = f' — did you mean "{suggestion}"?' if suggestion else ""
            problems.append(f"/detectors/{key}/{index}: unknown detector {quote(name)}{hint}")
    return frozenset(n for n in names if isinstance(n, str))
