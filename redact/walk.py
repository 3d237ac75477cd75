"""The two walks over a value: one that redacts (§B3, §B4) and one that only looks (§B12).

Both follow the same order of checks so that what `assess` reports is exactly what `redact`
would remove. Paths are JSON Pointers; a caller may root them elsewhere (spans use
`span:<span_id>`).
"""

from __future__ import annotations

import datetime
import json
import re
import secrets
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

from redact.detectors import DetectorTimeout
from redact.detectors.personal import is_card_number
from redact.inspector import MAX_DEPTH, Inspector, pointer_segment
from redact.json_pairs import pairs_hook
from redact.keys import KeyClass
from redact.model import (
    Action,
    Category,
    FindingTally,
    RedactionFinding,
    RedactionReport,
    Severity,
    ShareVerdict,
    verdict_of,
)
from redact.profiles import Profile
from redact.strings import (
    DataUri,
    cap_string,
    cut_spans,
    decode_data_uri_payload,
    parse_data_uri,
    pseudonym,
    utf8_length,
)

__all__ = ["Assessor", "FindingObserver", "Redactor", "Structure", "observing", "unclassified"]

_BINARY = bytes | bytearray | memoryview
_PASSED_THROUGH = datetime.date | datetime.time
_UNDECIDED: Any = object()
# The one finding a key's class gives a clean string under it (the value itself holds nothing).
_KEY_FINDINGS: dict[KeyClass, tuple[Category, str]] = {
    KeyClass.CREDENTIAL: ("credential", "credential-key"),
    KeyClass.EMAIL: ("personal-data", "personal-data-key"),
    KeyClass.SHARE_PERSONAL: ("personal-data", "personal-data-key"),
    KeyClass.IDENTIFIER: ("identifier", "identifier-key"),
    KeyClass.RAW_CONTENT: ("raw-content", "raw-content-key"),
}
# Values that pass through unless their key's class says otherwise (or a number is a card's).
_SCALARS = frozenset({int, float, bool, type(None)})
_SMALLEST_CARD = 10**12


class FindingObserver(Protocol):
    """Told of every finding an assessment makes (what it found, where, and the value it found
    it in, which it must never keep or show); a finding it accepts is not counted in the
    verdict. The share gate's baseline is one (`tracecheck.sharing.baseline`)."""

    def accepts(
        self, path: str, category: Category, detector: str, severity: Severity, value: Any
    ) -> bool: ...


_OBSERVER: ContextVar[FindingObserver | None] = ContextVar("finding_observer", default=None)


@contextmanager
def observing(observer: FindingObserver) -> Iterator[None]:
    """Every assessment made in this context (in this thread or task) tells `observer` of each
    finding, and leaves out of its verdict those the observer accepts."""
    token = _OBSERVER.set(observer)
    try:
        yield
    finally:
        _OBSERVER.reset(token)


def _is_card(item: Any) -> bool:
    """A scalar that reads as a card number (cheap for the usual small numbers)."""
    kind = item.__class__
    return (kind is int or kind is float) and item >= _SMALLEST_CARD and is_card_number(item)


def _holds_key(value: Mapping[Any, Any], key: str) -> bool:
    """Whether a mapping has this key, or one that reads as it (a non-string key is written as
    its string)."""
    if key in value:
        return True
    return any(k.__class__ is not str and str(k) == key for k in value)


# Keys that name the value beside them: `{"name": "X-API-Key", "value": …}` in HAR headers,
# Kubernetes env entries and AWS tags, `{"key": …, "value": {"stringValue": …}}` in OTLP JSON.
_PAIR_NAMES = ("name", "key", "Name", "Key")
_PAIR_VALUES = ("value", "Value")
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


def pair_of(value: Mapping[Any, Any]) -> tuple[Any, str] | None:
    """The key of the value and the name it goes by, when the mapping is a name/value pair."""
    for value_key in _PAIR_VALUES:
        if value_key in value:
            for name_key in _PAIR_NAMES:
                name = value.get(name_key)
                if name.__class__ is str:
                    return value_key, name
            return None
    return None


def _any_value_field(item: Any) -> str | None:
    """The field of an OTLP AnyValue wrapper (`{"stringValue": …}`), whose content a pair's
    name applies to: the wrapper stays, so the document stays OTLP."""
    if isinstance(item, Mapping) and len(item) == 1:
        (field,) = item
        if field in _ANY_VALUE_FIELDS:
            return str(field)
    return None


_INT_TEXT = re.compile(r"-?[0-9]{1,20}")


def _held(item: Mapping[Any, Any], field: str) -> Any:
    """The value an AnyValue wrapper holds, as the type it names: OTLP JSON writes a 64-bit
    `intValue` as a decimal string, which is a number to the key's rule as it is once read."""
    value = item[field]
    if field == "intValue" and value.__class__ is str and _INT_TEXT.fullmatch(value):
        return int(value)
    return value


# Longer lists of words are text, not one command's arguments.
_MAX_ARGUMENTS = 64


def _arguments(value: list[Any] | tuple[Any, ...]) -> bool:
    """Whether a list is a command's arguments (`["mysql", "-uroot", "-p…"]`): words, one of
    them an option. Such a list is also read as one command line, where a secret can stand
    in the word after its option."""
    return (
        1 < len(value) <= _MAX_ARGUMENTS
        and all(item.__class__ is str for item in value)
        and any(item[:1] == "-" for item in value)
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def key_rule(key_class: KeyClass | None, value: Any, profile: Profile) -> KeyClass | None:
    """The class whose rule applies to `value` under a key of `key_class`, or None when the key
    decides nothing and the value is looked at as it is. One decision for redacting and for
    assessing: a credential key takes any value but a number (a count, a flag); a personal or
    identifier key a string or a number; a raw-content key anything but a number. A
    share-personal key counts only in profiles that remove such keys."""
    if key_class is None:
        return None
    number = _is_number(value)
    scalar = number or isinstance(value, str)
    if key_class is KeyClass.CREDENTIAL or key_class is KeyClass.RAW_CONTENT:
        return None if number else key_class
    if key_class is KeyClass.SHARE_PERSONAL and not profile.remove_share_personal_keys:
        return None
    return key_class if scalar else None


def unclassified(inspector: Inspector, name: str) -> bool:
    """A key with no class and no credential or personal data in it: it flags nothing by
    itself (the assessor's plain key; inside a raw container of a Claude record, its value is
    raw content)."""
    return (
        inspector.profile.keys.classify(name) is None
        and inspector.key_credential(name) is None
        and not inspector.key_personal(name)
    )


# How deep a quiet mapping's nested values are judged from the prescan; below, the walk looks.
_QUIET_DEPTH = 16


class Structure(dict[str, Any]):
    """A mapping a trace format defines under a name that elsewhere holds content (the Jaeger
    query API's `result`, the OpenTelemetry JS SDK's `spanContext`): the assessor does not
    apply that name's class to it, and judges what it holds as usual."""

    __slots__ = ()


class QuietMappings:
    """Which mappings hold nothing to act on, decided from a batch prescan with set operations
    in C: every key plain (as the caller defines it) and every value a clean string (no
    longer than `longest`) or a scalar. Most span attributes are such mappings."""

    def __init__(
        self, inspector: Inspector, is_plain: Callable[[str], bool], longest: int | None
    ) -> None:
        self._inspector = inspector
        # Held weakly: the owner holds this object, and a strong reference back made every
        # redaction and assessment a reference cycle that kept its batch's prescan (every string
        # of the batch) alive until the cyclic collector ran.
        self._is_plain_method = weakref.WeakMethod(is_plain)
        self._plain: dict[str, bool] = {}
        self._longest = longest
        self._seen_keys: set[Any] = set()
        self._not_plain: set[Any] = set()
        self._values: set[Any] | None = None
        self._generation = inspector.generation

    def holds_nothing(self, value: Mapping[Any, Any]) -> bool:
        return self._holds_nothing(value, 0)

    def is_plain(self, name: str) -> bool:
        """The owner's test of a key, asked once per key."""
        plain = self._plain.get(name)
        if plain is None:
            is_plain = self._is_plain_method()
            assert is_plain is not None  # its owner is who asks
            plain = self._plain[name] = is_plain(name)
        return plain

    def _holds_nothing(self, value: Mapping[Any, Any], depth: int) -> bool:
        pair = pair_of(value)
        if pair is not None and not self.is_plain(pair[1]):
            return False
        keys = value.keys()
        if not self._seen_keys.issuperset(keys):
            for key in keys - self._seen_keys:
                self._seen_keys.add(key)
                if not (key.__class__ is str and self.is_plain(key)):
                    self._not_plain.add(key)
        if not keys.isdisjoint(self._not_plain):
            return False
        passing = self._passing()
        try:
            return passing.issuperset(value.values())
        except TypeError:  # an unhashable value: a list, or a nested mapping
            pass
        # Scalars, most values, stay set lookups; the rest take a closer look.
        for item in value.values():
            if item.__class__ is str or item.__class__ in _SCALARS:
                if item not in passing:
                    return False
            elif not self.passes(item, depth):
                return False
        return True

    def passes(self, item: Any, depth: int = 0) -> bool:
        """A value that passes through unchanged under a plain key."""
        if depth >= _QUIET_DEPTH:
            return False  # deeper, or round a cycle, the walk judges it
        if item.__class__ is list or item.__class__ is tuple:
            # Arguments are also read together, which the prescan did not do.
            return not _arguments(item) and all(self.passes(inner, depth + 1) for inner in item)
        try:
            return item in self._passing()
        except TypeError:
            # A nested mapping (an OTLP `{"stringValue": …}`, a kvlist) as the walk judges it.
            return isinstance(item, Mapping) and self._holds_nothing(item, depth + 1)

    def _passing(self) -> set[Any]:
        if self._values is None or self._generation != self._inspector.generation:
            self._generation = self._inspector.generation
            longest = self._longest
            clean = self._inspector.clean
            strings = clean if longest is None else {s for s in clean if len(s) <= longest}
            self._values = {None, *strings, *self._inspector.scalars}
        return self._values


class Redactor:
    """The state of one redaction call: its findings, its ancestors, its pseudonym key."""

    def __init__(self, inspector: Inspector, cap: int, pseudonym_key: bytes | None = None) -> None:
        self.inspector = inspector
        self.profile = inspector.profile
        self.cap = cap
        self.findings: list[RedactionFinding] = []
        self._pseudonym_key = pseudonym_key
        self._ancestors: set[int] = set()
        # Keys left out of every mapping (span redaction drops hosted-ingest source records).
        self.dropped_prefixes: tuple[str, ...] = ()
        profile = self.profile
        # The key classes whose values this profile removes or replaces, whatever they hold.
        self._acting = frozenset(
            key_class
            for key_class, acts in (
                (KeyClass.CREDENTIAL, True),
                (KeyClass.EMAIL, True),
                (KeyClass.SHARE_PERSONAL, profile.remove_share_personal_keys),
                (KeyClass.IDENTIFIER, profile.pseudonymize_identifiers),
                (KeyClass.RAW_CONTENT, profile.remove_raw_content_keys),
            )
            if acts
        )
        self._quiet = QuietMappings(inspector, self._is_plain, self.cap // 4)

    def report(self) -> RedactionReport:
        return RedactionReport(self.profile.name, tuple(self.findings))

    def _record(self, path: str, category: Category, detector: str, action: Action) -> None:
        self.findings.append(RedactionFinding(path, category, detector, action))

    def _marker(self, path: str, category: Category, detector: str) -> str:
        self._record(path, category, detector, "redacted")
        return f"[REDACTED:{detector}]"

    # Values ---------------------------------------------------------------------------------

    def value(self, value: Any, path: str, depth: int) -> Any:
        if isinstance(value, str):
            return self.string(value, path)
        if value is None or isinstance(value, bool | int | float | _PASSED_THROUGH):
            # A card number stored as a number (a JSON number, an OTLP intValue) goes as its
            # string form would.
            if is_card_number(value):
                return self._marker(path, "personal-data", "card-number")
            return value
        if isinstance(value, _BINARY):
            return self._marker(path, "media", "binary")
        if not isinstance(value, Mapping | list | tuple):
            return self._marker(path, "raw-content", "unsupported-type")
        if depth > MAX_DEPTH:
            self._record(path, "raw-content", "depth-limit", "truncated")
            return "[REDACTED:depth-limit]"
        identity = id(value)
        if identity in self._ancestors:
            return self._marker(path, "raw-content", "circular")
        self._ancestors.add(identity)
        try:
            if isinstance(value, Mapping):
                return self.mapping(value, path, depth)
            across = self._across(value)
            return [
                self._marker(f"{path}/{i}", "credential", across[i])
                if i in across
                else self.value(item, f"{path}/{i}", depth + 1)
                for i, item in enumerate(value)
            ]
        finally:
            self._ancestors.discard(identity)

    def _across(self, value: list[Any] | tuple[Any, ...]) -> dict[int, str]:
        """The words of an argument list that hold a secret read together, with its detector."""
        if not _arguments(value):
            return {}
        try:
            return self.inspector.secrets_across(value)
        except DetectorTimeout as exc:
            # Fail closed: words no detector could finish reading together are not sent.
            return dict.fromkeys(range(len(value)), exc.detector_id)

    def mapping(self, value: Mapping[Any, Any], path: str, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        renamed = 0
        inspector = self.inspector
        clean = inspector.clean
        is_plain = self._quiet.is_plain
        short = self.cap // 4
        paired = self._paired(value)
        for key, item in value.items():
            name = key if key.__class__ is str else str(key)
            if paired is not None and key == paired[0]:
                out[name] = self._pair_value(
                    paired[1], item, f"{path}/{pointer_segment(name)}", depth
                )
                continue
            # The common case, decided without walking: a short clean string under a plain key.
            kind = item.__class__
            quiet = (kind is str and len(item) <= short) or (
                kind in _SCALARS and not _is_card(item)
            )
            if (
                quiet
                and is_plain(name)
                and (kind is not str or item in clean or not inspector.needs_look(item))
            ):
                out[name] = item
                continue
            if self.dropped_prefixes and name.startswith(self.dropped_prefixes):
                continue
            detector = inspector.key_credential(name)
            personal = inspector.key_personal(name) if detector is None else ()
            if personal:
                renamed, out_key, action = self._personal_key(name, personal, renamed, value, out)
                # A marker or pseudonym can complete a credential shape around it, as in a
                # string value (`password==A=[REDACTED:email]#1`).
                detector = inspector.key_credential(out_key)
                if detector is None:
                    item_path = f"{path}/{pointer_segment(out_key)}"
                    for _, _, found in personal:
                        self._record(item_path, "personal-data", found, action)
            if detector is not None:
                renamed, out_key = self._free_key(f"[REDACTED:{detector}]", renamed, value, out)
                item_path = f"{path}/{out_key}"
                self._record(item_path, "credential", detector, "redacted")
            elif not personal:
                out_key = name
                item_path = f"{path}/{pointer_segment(name)}"
            out[out_key] = self.keyed(name, item, item_path, depth)
        return out

    def _paired(self, value: Mapping[Any, Any]) -> tuple[Any, str] | None:
        """A name/value pair whose name takes an action here: its value goes as under that key."""
        pair = pair_of(value)
        if pair is None or self.profile.keys.classify(pair[1]) not in self._acting:
            return None
        return pair

    def _pair_value(self, name: str, item: Any, path: str, depth: int) -> Any:
        field = _any_value_field(item)
        if field is None:
            return self.keyed(name, item, path, depth)
        held = _held(item, field)
        out = self.keyed(name, held, f"{path}/{field}", depth + 1)
        return {field: item[field] if out is held else out}

    def _free_key(
        self, stem: str, renamed: int, value: Mapping[Any, Any], out: Mapping[str, Any]
    ) -> tuple[int, str]:
        """`<stem>#<n>` with the next n that names no other key of the mapping, before or after
        redaction (a key already written that way must not be overwritten)."""
        while True:
            renamed += 1
            key = f"{stem}#{renamed}"
            if key not in out and not _holds_key(value, key):
                return renamed, key

    def _personal_key(
        self,
        name: str,
        found: tuple[tuple[int, int, str], ...],
        renamed: int,
        value: Mapping[Any, Any],
        out: Mapping[str, Any],
    ) -> tuple[int, str, Action]:
        """A key with personal data in it (an e-mail address as an attribute's name), rewritten
        as the profile treats the data: where identifiers become pseudonyms, each address
        becomes its pseudonym in place (a map keyed by address stays one, and agrees across
        batches); elsewhere each becomes its marker, numbered as renamed keys are."""
        if self.profile.pseudonymize_identifiers:
            rewritten, _ = cut_spans(
                name, [(start, end, self.pseudonym(name[start:end])) for start, end, _ in found]
            )
            if rewritten not in out and not _holds_key(value, rewritten):
                return renamed, rewritten, "pseudonymized"
            renamed, unique = self._free_key(rewritten, renamed, value, out)
            return renamed, unique, "pseudonymized"
        rewritten, _ = cut_spans(
            name, [(start, end, f"[REDACTED:{id}]") for start, end, id in found]
        )
        renamed, unique = self._free_key(rewritten, renamed, value, out)
        return renamed, unique, "redacted"

    def _is_plain(self, name: str) -> bool:
        """A key whose class takes no action here, that holds no credential or personal data
        itself, and that is not dropped."""
        return (
            self.profile.keys.classify(name) not in self._acting
            and self.inspector.key_credential(name) is None
            and not self.inspector.key_personal(name)
            and not (self.dropped_prefixes and name.startswith(self.dropped_prefixes))
        )

    def untouched(self, value: Mapping[Any, Any]) -> bool:
        """Whether redacting this mapping would change nothing, judged from the prescan alone."""
        return self._quiet.holds_nothing(value)

    def untouched_string(self, key: str, text: str | None) -> bool:
        """Whether `keyed(key, text)` would return the text as it is (prescan only)."""
        if not text:
            return True
        if self.profile.keys.classify(key) in self._acting:
            return False
        return self._quiet.passes(text)

    def keyed(self, key: str, value: Any, path: str, depth: int) -> Any:
        """A value under a key: the key's class may decide before the value is looked at."""
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, str) and self.inspector.is_placeholder(value):
            return value
        profile = self.profile
        rule = key_rule(profile.keys.classify(key), value, profile)
        if rule is KeyClass.IDENTIFIER:
            if profile.pseudonymize_identifiers:
                self._record(path, "identifier", "identifier-key", "pseudonymized")
                return self.pseudonym(value)
        elif rule is not None and (
            rule is not KeyClass.RAW_CONTENT or profile.remove_raw_content_keys
        ):
            return self._marker(path, *_KEY_FINDINGS[rule])
        return self.value(value, path, depth + 1)

    def pseudonym(self, value: str | int | float) -> str:
        """The pseudonym of a value: HMAC-SHA256 under this call's key (§B8). One method, so a
        profile that hashes otherwise (`redact.modes`) changes it in one place."""
        return pseudonym(self._key(), value)

    def _key(self) -> bytes:
        if self._pseudonym_key is None:
            self._pseudonym_key = secrets.token_bytes(32)
        return self._pseudonym_key

    # Strings --------------------------------------------------------------------------------

    def string(self, text: str, path: str) -> str:
        if not text:
            return text
        # Nothing a detector or known secret could match: only the cap remains.
        if not self.inspector.needs_look(text):
            return self._capped(text, path)
        try:
            return self._inspect(text, path)
        except DetectorTimeout as exc:
            # Fail closed: a string no detector could finish on is not sent.
            return self._marker(path, "credential", exc.detector_id)

    def _inspect(self, text: str, path: str) -> str:
        inspector = self.inspector
        if inspector.known:
            text, forms = inspector.cut_known(text)
            for _ in range(forms):
                self._record(path, "credential", "known-secret", "redacted")
        uri = parse_data_uri(text)
        if uri is not None:
            return self._data_uri(uri, text, path)
        detector = inspector.credential_in(text)
        if detector is not None:
            return self._marker(path, "credential", detector)
        text, replaced = inspector.replace_personal(text)
        for detector in replaced:
            self._record(path, "personal-data", detector, "redacted")
        if replaced:
            # A marker can complete a credential shape around it (`password==[REDACTED:…]=0`
            # reads as an assignment); what assess would flag must not leave.
            detector = inspector.credential_in(text)
            if detector is not None:
                return self._marker(path, "credential", detector)
        return self._capped(text, path)

    def _data_uri(self, uri: DataUri, text: str, path: str) -> str:
        if uri.is_text:
            decoded = decode_data_uri_payload(uri.payload)
            if decoded is None or self.inspector.unsafe_text(decoded, uri.mime):
                return self._marker(path, "credential", "data-uri-payload")
        # Data URIs skip truncation (a cut payload is useless), so one over the cap goes whole.
        if self.profile.replace_media or utf8_length(text) > self.cap:
            return self._marker(path, "media", "media")
        return text

    def _capped(self, text: str, path: str) -> str:
        truncated = cap_string(text, self.cap)
        if truncated is None:
            return text
        self._record(path, "raw-content", "size-cap", "truncated")
        return truncated


class Assessor:
    """The share-safety scan: the same walk as `Redactor`, recording instead of changing."""

    def __init__(self, inspector: Inspector) -> None:
        self.inspector = inspector
        self.profile = inspector.profile
        self.tally = FindingTally()
        self.unreadable: list[str] = []
        self._ancestors: set[int] = set()
        self._quiet = QuietMappings(inspector, self._is_plain, None)
        self._clean_outcomes: dict[str, Any] = {}

    def verdict(self) -> ShareVerdict:
        return verdict_of(self.profile.name, self.tally, self.unreadable)

    def take_verdict(self) -> ShareVerdict:
        """The verdict so far, starting afresh for the next value (caches about keys and
        strings are kept: they hold for every value of the batch)."""
        verdict = self.verdict()
        self.tally = FindingTally()
        self.unreadable = []
        return verdict

    def _flag(self, path: str, category: Category, detector: str, value: Any) -> None:
        """A finding at `path`, in `value` (the string, key or value the detector or key
        rule judged: told to an observer, never kept)."""
        severity = self.profile.severity_of(category)
        if severity is None:
            return
        observer = _OBSERVER.get()
        if observer is not None and observer.accepts(path, category, detector, severity, value):
            return
        self.tally.add(category, detector, severity, path)

    def record(self, path: str, category: Category, detector: str, value: Any) -> None:
        """A finding made outside the walk (the share gate's reading of a file name's parts),
        counted, and told to an observer, as the walk's own are."""
        self._flag(path, category, detector, value)

    def _unreadable(self, path: str, reason: str) -> None:
        self.unreadable.append(f"{path or '/'}: {reason}")

    def value(self, value: Any, path: str, depth: int) -> None:
        kind = value.__class__
        if kind is dict or kind is list:  # what parsed JSON holds, without an ABC check
            self._container(value, kind is dict, path, depth)
        elif isinstance(value, str):
            self.string(value, path, depth)
        elif value is None or isinstance(value, bool | int | float | _PASSED_THROUGH):
            if is_card_number(value):
                self._flag(path, "personal-data", "card-number", value)
        elif isinstance(value, _BINARY):
            self._unreadable(path, "binary data")
        elif not isinstance(value, Mapping | list | tuple):
            self._unreadable(path, f"a value of type {type(value).__name__} cannot be read")
        else:
            self._container(value, isinstance(value, Mapping), path, depth)

    def _container(self, value: Any, is_mapping: bool, path: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self._unreadable(path, f"nested deeper than {MAX_DEPTH} levels")
        elif id(value) in self._ancestors:
            self._unreadable(path, "circular reference")
        else:
            self._ancestors.add(id(value))
            try:
                if is_mapping:
                    self.mapping(value, path, depth)
                else:
                    self.sequence(value, path, depth)
            finally:
                self._ancestors.discard(id(value))

    def sequence(self, value: list[Any] | tuple[Any, ...], path: str, depth: int) -> None:
        across: dict[int, str] = {}
        if _arguments(value):
            try:
                across = self.inspector.secrets_across(value)
            except DetectorTimeout as exc:
                self._unreadable(path, f"detector {exc.detector_id} ran out of time")
        for i, item in enumerate(value):
            if i in across:
                self._flag(f"{path}/{i}", "credential", across[i], item)
            else:
                self.value(item, f"{path}/{i}", depth + 1)

    def quiet(self, value: Mapping[Any, Any]) -> bool:
        """Whether this mapping holds nothing to report, judged from the prescan alone."""
        return self._quiet.holds_nothing(value)

    def mapping(self, value: Mapping[Any, Any], path: str, depth: int) -> None:
        if self._quiet.holds_nothing(value):
            return
        clean = self.inspector.clean
        outcomes = self._clean_outcomes
        pair = pair_of(value)
        paired = pair if pair is not None and not self._quiet.is_plain(pair[1]) else None
        for key, item in value.items():
            name = key if key.__class__ is str else str(key)
            if paired is not None and key == paired[0]:
                self._pair_value(paired[1], item, f"{path}/{pointer_segment(name)}", depth)
                continue
            # The common case: a clean string, whose key alone decides what there is to report.
            if item.__class__ is str and item in clean:
                outcome = outcomes.get(name, _UNDECIDED)
                if outcome is _UNDECIDED:
                    outcome = outcomes[name] = self._clean_outcome(name)
                if outcome is None:
                    continue
                if outcome is not _UNDECIDED:
                    category, detector = outcome
                    self._flag(f"{path}/{pointer_segment(name)}", category, detector, item)
                    continue
            elif item.__class__ in _SCALARS and not _is_card(item) and self._quiet.is_plain(name):
                continue
            detector = self.inspector.key_credential(name)
            personal = self.inspector.key_personal(name) if detector is None else ()
            if detector is not None:
                # The path names the detector, never the key that holds the secret.
                item_path = f"{path}/[REDACTED:{detector}]"
                self._flag(item_path, "credential", detector, name)
            elif personal:
                # Nor the personal data a key holds: each stretch is its marker.
                masked, _ = cut_spans(name, [(s, e, f"[REDACTED:{id}]") for s, e, id in personal])
                item_path = f"{path}/{pointer_segment(masked)}"
                for found in dict.fromkeys(id for _, _, id in personal):
                    self._flag(item_path, "personal-data", found, name)
            else:
                item_path = f"{path}/{pointer_segment(name)}"
            self.keyed(name, item, item_path, depth)

    def _pair_value(self, name: str, item: Any, path: str, depth: int) -> None:
        field = _any_value_field(item)
        if field is None:
            self.keyed(name, item, path, depth)
        else:
            self.keyed(name, _held(item, field), f"{path}/{field}", depth + 1)

    def _clean_outcome(self, name: str) -> Any:
        """What `keyed` reports for a clean, non-placeholder string under this key: nothing
        (None), one (category, detector) finding, or `_UNDECIDED` when the long way must say."""
        if self.inspector.key_credential(name) is not None or self.inspector.key_personal(name):
            return _UNDECIDED
        key_class = self.profile.keys.classify(name)
        if key_class is None:
            return None
        if key_class is KeyClass.SHARE_PERSONAL and not self.profile.remove_share_personal_keys:
            return None
        return _KEY_FINDINGS[key_class]

    def _is_plain(self, name: str) -> bool:
        return unclassified(self.inspector, name)

    def is_plain(self, name: str) -> bool:
        """`unclassified(name)`, asked once per key."""
        return self._quiet.is_plain(name)

    def keyed(self, key: str, value: Any, path: str, depth: int) -> None:
        if value is None or isinstance(value, bool):
            return
        if isinstance(value, str) and self.inspector.is_placeholder(value):
            return
        if value.__class__ is Structure:
            self.value(value, path, depth + 1)
            return
        rule = key_rule(self.profile.keys.classify(key), value, self.profile)
        if rule is not None:
            category, detector = _KEY_FINDINGS[rule]
            self._flag(path, category, detector, value)
            if rule not in (KeyClass.IDENTIFIER, KeyClass.RAW_CONTENT):
                return  # the value is gone whatever it holds: nothing more to find in it
        self.value(value, path, depth + 1)

    def string(self, text: str, path: str, depth: int = 0) -> None:
        """Judge one string; `depth` is the walk's where it stands, carried into the JSON a
        data URI holds so that `MAX_DEPTH` bounds URIs nested in URIs too."""
        if not text:
            return
        inspector = self.inspector
        if not inspector.needs_look(text):
            return
        try:
            uri = parse_data_uri(text)
            if uri is not None:
                self._data_uri(uri, text, path, depth)
                return
            detector = inspector.credential_in(text)
            if detector is not None:
                self._flag(path, "credential", detector, text)
                return
            for detector in inspector.personal_in(text):
                self._flag(path, "personal-data", detector, text)
        except DetectorTimeout as exc:
            self._unreadable(path, f"detector {exc.detector_id} ran out of time")

    def _data_uri(self, uri: DataUri, text: str, path: str, depth: int) -> None:
        known = self.inspector.known
        if known and known.contains(text):
            # `Redactor` cuts every form of a known secret from the URI as written before it
            # reads the URI (`Inspector.cut_known`), a picture's payload included.
            self._flag(path, "credential", "known-secret", text)
        if uri.mime.startswith("image/") and not uri.is_text:
            self._flag(path, "media", "media", text)
            return
        if uri.is_text:
            decoded = decode_data_uri_payload(uri.payload)
            if decoded is None:
                self._unreadable(path, "data URI payload is not valid base64")
                return
            if uri.mime == "application/json":
                try:
                    document = json.loads(decoded, object_pairs_hook=pairs_hook)
                except ValueError:
                    pass
                except RecursionError:
                    self._unreadable(path, "data URI JSON nests deeper than it can be read")
                    return
                else:
                    self.value(document, path, depth + 1)
                    return
            self.string(decoded, path, depth + 1)
            return
        if self.profile.name == "default":
            self._flag(path, "media", "media", text)
        else:
            self._unreadable(path, f"{uri.mime} data URI cannot be read")
