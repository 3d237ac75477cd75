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
- **Allowed values**: a string that matches an allowed pattern whole is kept though a detector
  would remove it as personal data, an identifier or content, but never when the usual way
  finds a credential in it (a detector, a known secret, a key rule inside JSON it holds, a
  detector that ran out of time), never past its own key's rule (a password key's value goes
  whatever it is), and not when it is over the size cap or nests too deep: then it goes the
  usual way. The assessor judges it the same way and reports what it kept as a warning
  (`allowed-value`), so a verdict over such a value is never a plain SAFE.
- **Blocked values**: each stretch that matches a blocked pattern is replaced in place by
  `[REDACTED:blocked-value]`; the assessor flags one as a credential.
- **Sanitizers** (`sanitize`): values under URL, SQL and connection keys are sanitized
  (`redact.sanitizers`) before the detectors look at what is left.
- **Hash** (`pseudonyms: sha256`): pseudonyms of plain SHA-256 instead of keyed HMAC.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from typing import Any, TypeVar, cast

from redact.inspector import Inspector
from redact.keys import KeyClass
from redact.model import Category, FindingTally, RedactionFinding
from redact.modes import (
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
from redact.strings import utf8_length
from redact.walk import _PAIR_NAMES, Assessor, Redactor, _any_value_field, key_rule, pair_of

__all__ = ["ModeAssessor", "ModeInspector", "ModeRedactor", "with_modes"]

_NO_MODES = Modes()
# How many times a sanitized value goes round (sanitizer, then the string pipeline) at most.
_ROUNDS = 4
_BLOCKED = "blocked-value"


class _Unlisted:
    """What the allow-list puts in place of a value before the walk it extends goes over the
    mapping: `ModeRedactor.keyed` writes the marker and records the finding at the path the
    walk gives (a renamed key's new name, never the name that held a secret)."""


_UNLISTED: Any = _Unlisted()


def modes_of_profile(profile: Profile) -> CompiledModes:
    return compiled(profile.modes or _NO_MODES)


def _allowable(modes: CompiledModes, text: str, cap: int) -> bool:
    """Whether a string may be kept as an allowed value: it matches an allowed pattern whole,
    within the size cap (the usual way still has the last word on credentials)."""
    return modes.allows_value(text) and (len(text) * 4 <= cap or utf8_length(text) <= cap)


def _spoils_redaction(findings: list[RedactionFinding]) -> bool:
    """Whether the usual way over an allowed value found what no allowed value keeps: a
    credential (but the profile's own blocked pattern, which an allowed value wins over, as in
    the Collector) or a cut (a document nested too deep)."""
    return any(
        (f.category == "credential" and f.detector != _BLOCKED) or f.action == "truncated"
        for f in findings
    )


def _spoils_verdict(tally: FindingTally, unreadable: list[str]) -> bool:
    """`_spoils_redaction` for the assessor: a credential, or a place it could not judge."""
    return bool(unreadable) or any(
        category == "credential" and detector != _BLOCKED for category, detector in tally.counts
    )


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
        if super().needs_look(text):
            return True
        # A clean string holds no blocked stretch (`prescan` took those out): no second scan.
        modes = self.modes
        return modes.blocks and text not in self.clean and modes.holds_blocked(text)


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
        if value.__class__ is not str or not value or not self.modes.checks_values:
            return super().value(value, path, depth)
        first = len(self.findings)
        text = self._cut_blocked(value, path)
        outer, self._checked = self._checked, (path, text)
        try:
            out = super().value(text, path, depth)
        finally:
            self._checked = outer
        return self._allowed(value, out, first)

    def string(self, text: str, path: str) -> str:
        if not text or not self.modes.checks_values or self._checked == (path, text):
            return super().string(text, path)
        first = len(self.findings)
        out = super().string(self._cut_blocked(text, path), path)
        return cast(str, self._allowed(text, out, first))

    def _cut_blocked(self, text: str, path: str) -> str:
        cut = self.modes.cut_blocked(text)
        if cut != text:
            self._record(path, "credential", _BLOCKED, "redacted")
        return cut

    def _allowed(self, text: str, out: Any, first: int) -> Any:
        """`out`, what the usual way made of `text` (recording the findings from `first` on),
        or `text` as it was, its findings dropped, when it is an allowed value in which the usual
        way found nothing an allowed value may not keep."""
        if not _allowable(self.modes, text, self.cap) or _spoils_redaction(self.findings[first:]):
            return out
        del self.findings[first:]
        return text

    def keyed(self, key: str, value: Any, path: str, depth: int) -> Any:
        if value is _UNLISTED:
            self._record(path, "raw-content", "unlisted-key", "redacted")
            return UNLISTED_MARKER
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
        prepared, exempt = self._unlisted(value)
        self._exempt.update(exempt)
        try:
            return super().mapping(prepared, path, depth)
        finally:
            self._exempt.difference_update(exempt)

    def _unlisted(self, value: Mapping[Any, Any]) -> tuple[dict[Any, Any], list[int]]:
        """The mapping with the value of each key not on the list (the wrapper field inside,
        for a pair) put as `_UNLISTED`, which `keyed` masks and records where the walk writes
        it; the wrappers exempt from the list."""
        allows = self.modes.allows_key
        is_marker = self.inspector.is_placeholder
        pair = pair_of(value)
        name_key = None
        if pair is not None:
            name_key = next((k for k in _PAIR_NAMES if k in value and value[k] == pair[1]), None)
        prepared: dict[Any, Any] = {}
        exempt: list[int] = []
        for key, item in value.items():
            # Nothing to mask in nothing, nor in a marker (a value masked before stays as it is).
            if item is None or key == name_key or (item.__class__ is str and is_marker(item)):
                prepared[key] = item
            elif pair is not None and key == pair[0]:
                field = _any_value_field(item)
                if allows(pair[1]):
                    prepared[key] = item
                    if field is not None:
                        exempt.append(id(item))
                elif field is not None:
                    inner = item[field]
                    if inner is None or (inner.__class__ is str and is_marker(inner)):
                        prepared[key] = item
                        continue
                    prepared[key] = {field: _UNLISTED}
                else:
                    prepared[key] = _UNLISTED
            elif allows(key if key.__class__ is str else str(key)):
                prepared[key] = item
            else:
                prepared[key] = _UNLISTED
        return prepared, exempt


# Query values and SQL literals are content; passwords are credentials.
_CONTENT = frozenset({"query-value", "sql-literal"})


class ModeAssessor(Assessor):
    """An assessor that judges allowed and blocked values as the mode redactor treats them."""

    def __init__(self, inspector: Inspector) -> None:
        self.modes = modes_of_profile(inspector.profile)
        self._checked: tuple[str, str] | None = None
        super().__init__(inspector)

    def value(self, value: Any, path: str, depth: int) -> None:
        if value.__class__ is not str or not value or not self.modes.checks_values:
            super().value(value, path, depth)
            return
        with self._values(value, path):
            outer, self._checked = self._checked, (path, value)
            try:
                super().value(value, path, depth)
            finally:
                self._checked = outer

    def string(self, text: str, path: str, depth: int = 0) -> None:
        if not text or not self.modes.checks_values or self._checked == (path, text):
            super().string(text, path, depth)
            return
        with self._values(text, path):
            super().string(text, path, depth)

    @contextmanager
    def _values(self, text: str, path: str) -> Iterator[None]:
        """Around the usual judgement of a string: a blocked stretch flagged; an allowed value
        judged apart, and what was found in it counted as the mode redactor treats it (kept:
        one `allowed-value` warning; not kept: every finding, as for any value)."""
        allowable = _allowable(self.modes, text, self.profile.max_string_bytes)
        tally, unreadable = self.tally, self.unreadable
        if allowable:
            self.tally, self.unreadable = FindingTally(), []
        if self.modes.blocked_spans(text):
            severity = self.profile.severity_of("credential")
            if severity is not None:
                self.tally.add("credential", _BLOCKED, severity, path)
        if not allowable:
            yield
            return
        try:
            yield
        finally:
            found, found_unreadable = self.tally, self.unreadable
            self.tally, self.unreadable = tally, unreadable
        if _spoils_verdict(found, found_unreadable):
            for (category, detector), (severity, count, paths) in found.counts.items():
                self.tally.add_many(category, detector, severity, count, paths)
            self.unreadable.extend(found_unreadable)
        elif found.counts:
            # Kept by the profile's word, not found safe: never a plain SAFE.
            categories = [category for category, _ in found.counts]
            kept: Category = "credential" if "credential" in categories else categories[0]
            self.tally.add(kept, "allowed-value", "warning", path)


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
