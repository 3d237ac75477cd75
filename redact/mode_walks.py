"""The inspector, redactor and assessor that apply a profile's modes (`redact.modes`).

Each is a subclass of the walk it changes, made for whichever walk a caller brings (the span
and value walks, or the JSON-text walks of Claude Code records): `with_modes(Redactor)` is
`Redactor` with the modes added. `redact.core.redactor_for`, `inspector_for` and `assessor_for`
pick them when the profile sets any mode, so every place redaction runs (the `redact` command,
the exporter wrapper, the proxy, the shipper) applies the same options; a profile that sets
none gets the plain walks.

What each walk adds:

- **Allow-list** (`allowedKeys`): in every mapping, the value of a key not on the list is
  replaced whole by `[REDACTED:unlisted-key]`, nested mappings included; `null` stays. A
  name/value pair (`{"key": "db.user", "value": {"stringValue": …}}`) goes by its name.
- **Allowed values**: a string that matches an allowed pattern whole is kept though a
  detector would remove it, but never when it holds a known secret, never past its key's rule
  (a password key's value goes whatever it is), and not when it is over the size cap. The assessor reports it as a warning
  (`allowed-value`), so a verdict over such a value is never a plain SAFE.
- **Blocked values**: each stretch that matches a blocked pattern is replaced in place by
  `[REDACTED:blocked-value]`; the assessor flags one as a credential.
- **Sanitizers** (`sanitize`): values under URL, SQL and connection keys are sanitized
  (`redact.sanitizers`) before the detectors look at what is left.
- **Hash** (`pseudonyms: sha256`): pseudonyms of plain SHA-256 instead of keyed HMAC.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any, TypeVar, cast

from redact.detectors import DetectorTimeout
from redact.inspector import Inspector, pointer_segment
from redact.keys import KeyClass
from redact.model import Category
from redact.modes import (
    BLOCKED_MARKER,
    UNLISTED_MARKER,
    CompiledModes,
    Modes,
    compiled,
    sha256_pseudonym,
)
from redact.profiles import Profile
from redact.sanitizers import (
    sanitize_connection_string,
    sanitize_sql,
    sanitize_urls,
)
from redact.strings import cut_spans, utf8_length
from redact.walk import Assessor, Redactor, key_rule, pair_of

__all__ = ["ModeAssessor", "ModeInspector", "ModeRedactor", "with_modes"]

_NO_MODES = Modes()
# How many times a sanitized value goes round (sanitizer, then the string pipeline) at most.
_ROUNDS = 4
_PAIR_NAMES = ("name", "key", "Name", "Key")
# OTLP's AnyValue written as JSON: one field, named for the type of the value it holds.
_ANY_VALUE_FIELDS = frozenset(
    {
        "stringValue",
        "intValue",
        "doubleValue",
        "boolValue",
        "bytesValue",
        "arrayValue",
        "kvlistValue",
    }
)


def modes_of_profile(profile: Profile) -> CompiledModes:
    return compiled(profile.modes or _NO_MODES)


def _wrapper_field(item: Any) -> str | None:
    if isinstance(item, Mapping) and len(item) == 1:
        (field,) = item
        if field in _ANY_VALUE_FIELDS:
            return str(field)
    return None


def _known_in(inspector: Inspector, text: str) -> bool:
    """Whether a known secret stands in the text in any form (decoded views included)."""
    return bool(inspector.known) and inspector.cut_known(text)[1] > 0


class ModeInspector(Inspector):
    """An inspector for which a string holding a blocked value is never clean, so no walk
    passes it by unread."""

    def __init__(self, profile: Profile, known: Any) -> None:
        self.modes = modes_of_profile(profile)
        super().__init__(profile, known)

    def prescan(self, strings: list[str], scalars: Iterable[Any] = ()) -> None:
        super().prescan(strings, scalars)
        modes = self.modes
        if modes.blocks:
            self.clean = {text for text in self.clean if not modes.holds_blocked(text)}

    def needs_look(self, text: str) -> bool:
        return super().needs_look(text) or self.modes.holds_blocked(text)


class ModeRedactor(Redactor):
    """A redactor that applies the profile's modes around the walk it extends."""

    def __init__(self, inspector: Inspector, cap: int, pseudonym_key: bytes | None = None) -> None:
        self.modes = modes_of_profile(inspector.profile)
        # Wrappers (`{"stringValue": …}`) of pairs whose name is on the allow-list: their one
        # field is no key of their own. Held only while their pair is walked.
        self._exempt: set[int] = set()
        # The string `value` hands to `string` (one check of it is enough).
        self._checked: tuple[str, str] | None = None
        super().__init__(inspector, cap, pseudonym_key)

    def pseudonym(self, value: str | int | float) -> str:
        if self.modes.sha256:
            return sha256_pseudonym(value)
        return super().pseudonym(value)

    def _is_plain(self, name: str) -> bool:
        modes = self.modes
        return modes.allows_key(name) and modes.sanitizer(name) is None and super()._is_plain(name)

    # Values -------------------------------------------------------------------------------

    def value(self, value: Any, path: str, depth: int) -> Any:
        if value.__class__ is not str or not self.modes.checks_values:
            return super().value(value, path, depth)
        text, settled = self._values(value, path)
        if settled:
            return text
        outer, self._checked = self._checked, (path, text)
        try:
            return super().value(text, path, depth)
        finally:
            self._checked = outer

    def string(self, text: str, path: str) -> str:
        if not self.modes.checks_values or self._checked == (path, text):
            return super().string(text, path)
        text, settled = self._values(text, path)
        return text if settled else super().string(text, path)

    def _values(self, text: str, path: str) -> tuple[str, bool]:
        """Allowed and blocked values: the text, and whether it is settled (kept as allowed)."""
        modes = self.modes
        if not text:
            return text, True
        # An allowed value over the cap is not kept whole: it goes the usual way (and is cut).
        if (
            modes.allows_value(text)
            and (len(text) * 4 <= self.cap or utf8_length(text) <= self.cap)
            and not _known_in(self.inspector, text)
        ):
            return text, True
        spans = modes.blocked_spans(text)
        if spans:
            text, _ = cut_spans(text, [(start, end, BLOCKED_MARKER) for start, end in spans])
            self._record(path, "credential", "blocked-value", "redacted")
        return text, False

    def keyed(self, key: str, value: Any, path: str, depth: int) -> Any:
        if value.__class__ is not str or not value:
            return super().keyed(key, value, path, depth)
        kind = self.modes.sanitizer(key)
        if kind is None or self._key_acts(key, value):
            return super().keyed(key, value, path, depth)
        # Sanitized, then judged as any value; again while that changes what a sanitizer
        # reads (a blocked stretch or a marker cut inside a name leaves a number standing
        # alone), so that a second redaction finds nothing more to do.
        out = value
        for _ in range(_ROUNDS):
            before = out
            out = super().keyed(key, self._sanitized(kind, out, path), path, depth)
            if out.__class__ is not str or out == before:
                break
        return out

    def _key_acts(self, key: str, value: Any) -> bool:
        """Whether the key's class replaces the value whole (then there is nothing to
        sanitize), as `Redactor.keyed` decides."""
        profile = self.profile
        rule = key_rule(profile.keys.classify(key), value, profile)
        if rule is KeyClass.IDENTIFIER:
            return profile.pseudonymize_identifiers
        if rule is KeyClass.RAW_CONTENT:
            return profile.remove_raw_content_keys
        return rule is not None

    def _sanitized(self, kind: str, text: str, path: str) -> str:
        if self.inspector.is_placeholder(text):
            return text
        changes: list[str] = []
        if kind == "sql":
            text, changes = sanitize_sql(text)
            text, more = sanitize_connection_string(text, sql=True)
            changes += more
        elif kind == "connection":
            text, changes = sanitize_urls(text)
            text, more = sanitize_connection_string(text)
            changes += more
        else:
            text, changes = sanitize_urls(text, whole_query=kind == "query")
        for detector in dict.fromkeys(changes):
            category: Category = "raw-content" if detector in _CONTENT else "credential"
            self._record(path, category, detector, "redacted")
        return text

    # The allow-list -----------------------------------------------------------------------

    def mapping(self, value: Mapping[Any, Any], path: str, depth: int) -> dict[str, Any]:
        if not self.modes.allow_list:
            return super().mapping(value, path, depth)
        if id(value) in self._exempt:
            return super().mapping(value, path, depth)
        prepared, masked, exempt = self._unlisted(value)
        self._exempt.update(exempt)
        try:
            out = super().mapping(prepared, path, depth)
        finally:
            self._exempt.difference_update(exempt)
        if masked:
            self._record_unlisted(prepared, masked, out, path)
        return out

    def _unlisted(
        self, value: Mapping[Any, Any]
    ) -> tuple[dict[Any, Any], dict[Any, str | None], list[int]]:
        """The mapping with the value of each key not on the list masked; the keys masked (with
        the wrapper field masked inside, for a pair); the wrappers exempt from the list."""
        allows = self.modes.allows_key
        is_marker = self.inspector.is_placeholder
        pair = pair_of(value)
        name_key = None
        if pair is not None:
            name_key = next((k for k in _PAIR_NAMES if k in value and value[k] == pair[1]), None)
        prepared: dict[Any, Any] = {}
        masked: dict[Any, str | None] = {}
        exempt: list[int] = []
        for key, item in value.items():
            # Nothing to mask in nothing, nor in a marker (a value masked before stays as it is).
            if item is None or key == name_key or (item.__class__ is str and is_marker(item)):
                prepared[key] = item
            elif pair is not None and key == pair[0]:
                field = _wrapper_field(item)
                if allows(pair[1]):
                    prepared[key] = item
                    if field is not None:
                        exempt.append(id(item))
                elif field is not None:
                    inner = item[field]
                    if inner is None or (inner.__class__ is str and is_marker(inner)):
                        prepared[key] = item
                        continue
                    prepared[key] = {field: UNLISTED_MARKER}
                    masked[key] = field
                else:
                    prepared[key] = UNLISTED_MARKER
                    masked[key] = None
            elif allows(key if key.__class__ is str else str(key)):
                prepared[key] = item
            else:
                prepared[key] = UNLISTED_MARKER
                masked[key] = None
        return prepared, masked, exempt

    def _record_unlisted(
        self,
        prepared: dict[Any, Any],
        masked: dict[Any, str | None],
        out: dict[str, Any],
        path: str,
    ) -> None:
        """A finding for each masked value, at the key it was written under (`Redactor.mapping`
        keeps the order, one item per key but for those with a dropped prefix)."""
        dropped = self.dropped_prefixes
        kept = [k for k in prepared if not (dropped and str(k).startswith(dropped))]
        written: list[str] = list(out) if len(out) == len(kept) else [str(k) for k in kept]
        for key, out_key in zip(kept, written, strict=True):
            if key in masked:
                field = masked[key]
                where = f"{path}/{pointer_segment(out_key)}"
                if field is not None:
                    where = f"{where}/{field}"
                self._record(where, "raw-content", "unlisted-key", "redacted")


# Query values and SQL literals are content; passwords are credentials.
_CONTENT = frozenset({"query-value", "sql-literal"})


class ModeAssessor(Assessor):
    """An assessor that judges allowed and blocked values as the mode redactor treats them."""

    def __init__(self, inspector: Inspector) -> None:
        self.modes = modes_of_profile(inspector.profile)
        self._checked: tuple[str, str] | None = None
        super().__init__(inspector)

    def value(self, value: Any, path: str, depth: int) -> None:
        if value.__class__ is not str or not self.modes.checks_values:
            super().value(value, path, depth)
            return
        if self._values(value, path):
            return
        outer, self._checked = self._checked, (path, value)
        try:
            super().value(value, path, depth)
        finally:
            self._checked = outer

    def string(self, text: str, path: str, depth: int = 0) -> None:
        if self.modes.checks_values and self._checked != (path, text) and self._values(text, path):
            return
        super().string(text, path, depth)

    def _values(self, text: str, path: str) -> bool:
        """Judge allowed and blocked values; True when the string is settled here."""
        if not text:
            return True
        modes = self.modes
        inspector = self.inspector
        cap = self.profile.max_string_bytes
        if (
            modes.allows_value(text)
            and (len(text) * 4 <= cap or utf8_length(text) <= cap)
            and not _known_in(inspector, text)
        ):
            category = self._kept_category(text)
            if category is not None:
                # Kept by the profile's word, not found safe: never a plain SAFE.
                self.tally.add(category, "allowed-value", "warning", path)
            return True
        if modes.blocked_spans(text):
            severity = self.profile.severity_of("credential")
            if severity is not None:
                self.tally.add("credential", "blocked-value", severity, path)
        return False

    def _kept_category(self, text: str) -> Category | None:
        """What a detector would have found in an allowed value, or None."""
        inspector = self.inspector
        if self.modes.blocked_spans(text):
            return "credential"
        try:
            if inspector.credential_in(text) is not None:
                return "credential"
            if inspector.personal_in(text):
                return "personal-data"
        except DetectorTimeout:
            return "credential"
        return None


_MIXINS: tuple[type[Any], ...] = (ModeInspector, ModeRedactor, ModeAssessor)
Walk = TypeVar("Walk", bound=type[Any])


def with_modes(walk: Walk) -> Walk:
    """The walk class with the modes added: the mode class itself for a plain walk, else a
    subclass of both (`JsonTextRedactor` gains them as `Redactor` does)."""
    found: Any = walk
    return cast(Walk, _with_modes(found))


@cache
def _with_modes(walk: type[Any]) -> type[Any]:
    for mixin in _MIXINS:
        base = mixin.__mro__[1]
        if issubclass(walk, mixin):
            return walk
        if walk is base:
            return mixin
        if issubclass(walk, base):
            return type(f"{walk.__name__}WithModes", (mixin, walk), {"__module__": __name__})
    raise TypeError(f"{walk.__name__} is no inspector, redactor or assessor")
