"""What one call knows about a string: could it hold something, and which credential or
personal data it does hold. Shared by redaction and assessment so both see the same things."""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from redact.decoded import View, views
from redact.detectors import (
    Detector,
    DetectorTimeout,
    detect_credential,
    detect_personal_data,
    replace_personal_data,
)
from redact.detectors.personal import equals_a_card_number
from redact.keys import KeyClass
from redact.known import EMPTY_KNOWN_SECRETS, KNOWN_SECRET_MARKER, KnownSecrets
from redact.profiles import Profile
from redact.scan import Prefilter, prefilter_for
from redact.strings import cut_spans, is_placeholder, merge_spans, parse_data_uri

__all__ = ["Inspector", "known_secrets_of", "pointer_segment"]

MAX_DEPTH = 64


def known_secrets_of(known_secrets: Iterable[str] | KnownSecrets) -> KnownSecrets:
    if isinstance(known_secrets, KnownSecrets):
        return known_secrets
    secrets = tuple(known_secrets)
    return KnownSecrets.build(secrets) if secrets else EMPTY_KNOWN_SECRETS


@dataclass(frozen=True, slots=True)
class _Look:
    """The detectors a string's prefilter names, and each decoded view of it with its own."""

    credential: tuple[Detector, ...]
    personal: tuple[Detector, ...]
    views: tuple[tuple[View, tuple[Detector, ...], tuple[Detector, ...]], ...]


def _split(found: tuple[Detector, ...]) -> tuple[tuple[Detector, ...], tuple[Detector, ...]]:
    return (
        tuple(d for d in found if d.category == "credential"),
        tuple(d for d in found if d.category == "personal-data"),
    )


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
        # Strings of the batch in which no known secret is written as such (decoded views
        # aside): cutting known secrets from them looks only at the views.
        self._no_known: set[str] = set()
        self.clean: set[str] = set()
        self.scalars: set[Any] = set()
        self._key_credentials: dict[str, str | None] = {}
        self._key_personal: dict[str, tuple[tuple[int, int, str], ...]] = {}
        self._candidate_cache: dict[str, _Look] = {}
        # Counts prescans: what was derived from an earlier one (the values a whole mapping can
        # be judged quiet by) is derived again for the next batch.
        self.generation = 0

    def prescan(self, strings: list[str], scalars: Iterable[Any] = ()) -> None:
        """Scan many strings in one pass, so that later questions about them are set lookups.
        The batch's scalars ride along: they pass through, and knowing them lets a whole
        mapping be judged with set operations."""
        self.generation += 1
        # A number that reads as a card number is no passing scalar (it is redacted), nor is
        # one the set cannot tell from such a number.
        self.scalars = set(scalars)
        self.scalars.difference_update([v for v in self.scalars if equals_a_card_number(v)])
        # Each distinct string is scanned once: span text repeats (every model call span
        # carries the conversation so far, every span the same attribute values).
        distinct = dict.fromkeys(strings)
        flagged = self.prefilter.flag(list(distinct))
        self._flagged = flagged.any - self._quiet(flagged.any - flagged.known)
        self._no_known = self._flagged - flagged.known if self.known else set()
        rest = distinct.keys() - self._flagged
        # Markers are kept out: under some keys a marker is skipped where its text would not be.
        special = {
            s
            for s in rest
            if (s[:1] in ("d", "D") and s[:5].lower() == "data:")
            or (s[:1] in ("", "[", "*", "<", "«") and is_placeholder(s))
        }
        self.clean = rest - special - self.known.hiding_in_base64(rest)

    def _quiet(self, candidates: Iterable[str]) -> set[str]:
        """The flagged strings in which a closer look finds nothing: no detector accepts a
        match and there is nothing to decode. Learnt once here, they join the clean strings,
        which a walk judges by set operations (prose names tokens and keys far more often than
        it holds one)."""
        quiet: set[str] = set()
        for text in candidates:
            found, decodes = self.prefilter.look(text)
            if decodes:
                continue
            try:
                if any(detector.search(text) for detector in found):
                    continue
            except DetectorTimeout:
                continue  # judged again in the walk, which fails closed
            quiet.add(text)
        return quiet

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

    def _look(self, text: str) -> _Look:
        """The credential and personal-data detectors whose prefilter matches this string, and
        its decoded views with theirs (views only where the string may read differently
        decoded: most strings hold no escape, invisible character or payload)."""
        cached = self._candidate_cache.get(text)
        if cached is None:
            found, decodes = self.prefilter.look(text)
            decoded = tuple(
                (view, *_split(self.prefilter.look(view.text)[0]))
                for view in (views(text) if decodes else ())
            )
            cached = _Look(*_split(found), decoded)
            if len(self._candidate_cache) >= 256:
                self._candidate_cache.clear()
            self._candidate_cache[text] = cached
        return cached

    def credential_in(self, text: str) -> str | None:
        """The detector that names a credential in this string or in any decoded view of it
        (known secrets first), or None."""
        known = self.known
        if known and (
            (text not in self._no_known and known.contains(text)) or known.hides_in_base64(text)
        ):
            return "known-secret"
        look = self._look(text)
        found = detect_credential(text, look.credential)
        for view, credential, _ in look.views:
            if found is not None:
                break
            if known and known.contains(view.text):
                return "known-secret"
            found = detect_credential(view.text, credential)
        return found

    def secrets_across(self, words: Sequence[str]) -> dict[int, str]:
        """The words of an argument list (`["sshpass", "-p", "…"]`) that hold a credential
        only read together, by index, with the detector that names it: the list read as one
        command line, each secret marking every word it touches."""
        line = " ".join(words)
        if not self.may_hold(line):
            return {}
        starts = list(accumulate((len(word) + 1 for word in words), initial=0))
        found: dict[int, str] = {}
        for detector in self._look(line).credential:
            for start, end in detector.secret_spans(line):
                first = bisect_right(starts, start) - 1
                last = bisect_right(starts, max(end - 1, start)) - 1
                for index in range(first, last + 1):
                    found.setdefault(index, detector.id)
        return found

    def cut_known(self, text: str) -> tuple[str, int]:
        """Every form of every known secret cut from the text, decoded views included (a
        secret fully percent-encoded, JSON-escaped, base64 of either, with invisible characters
        inside): a hit in a view cuts the stretch of the text it came from. Returns the text and
        how many distinct forms were found."""
        known = self.known
        if not known:
            return text, 0
        if text in self._no_known and not known.hides_in_base64(text):
            forms = 0
        else:
            text, forms = known.cut(text)
        if text == KNOWN_SECRET_MARKER:
            return text, forms
        uri = parse_data_uri(text)
        if uri is not None and not uri.is_text:
            return text, forms  # an image or other media: the media rule decides, undecoded
        cuts: list[tuple[int, int, str]] = []
        needles: set[str] = set()
        for view, _, _ in self._look(text).views:
            for start, end, needle in known.hits(view.text):
                cuts.append((*view.span(start, end), KNOWN_SECRET_MARKER))
                needles.add(needle)
        if not cuts:
            return text, forms
        return cut_spans(text, cuts)[0], forms + len(needles)

    def _personal_spans(self, text: str, look: _Look) -> list[tuple[int, int, str]]:
        """(start, end, detector id) of the personal data the decoded views find, in the text."""
        spans: list[tuple[int, int, str]] = []
        for view, _, personal in look.views:
            for detector in personal:
                for start, end in detector.find(view.text):
                    spans.append((*view.span(start, end), detector.id))
        return spans

    def replace_personal(self, text: str) -> tuple[str, list[str]]:
        """The text with personal data replaced in place, and the detector of each replacement.
        What a decoded view finds is replaced first, over the whole stretch it came from (an
        address percent-encoded, or with an invisible character inside, goes whole); then the
        detectors run on the text itself, each on the output of the one before (§B4)."""
        look = self._look(text)
        replaced: list[str] = []
        if look.views:
            spans = self._personal_spans(text, look)
            if spans:
                text, markers = cut_spans(
                    text, [(start, end, f"[REDACTED:{id}]") for start, end, id in spans]
                )
                replaced = [marker[len("[REDACTED:") : -1] for marker in markers]
                look = self._look(text)
        text, found = replace_personal_data(text, look.personal)
        return text, replaced + found

    def key_personal(self, key: str) -> tuple[tuple[int, int, str], ...]:
        """Personal data written in a key (an e-mail address as an attribute's name): the
        (start, end, detector id) of each stretch to replace, decoded views included. A key no
        detector could finish on is personal data whole (fail closed)."""
        cached = self._key_personal.get(key)
        if cached is None:
            try:
                cached = tuple(self._personal_in_key(key)) if key and self.needs_look(key) else ()
            except DetectorTimeout as exc:
                cached = ((0, len(key), exc.detector_id),)
            if len(self._key_personal) >= 10_000:
                self._key_personal.clear()
            self._key_personal[key] = cached
        return cached

    def _personal_in_key(self, key: str) -> list[tuple[int, int, str]]:
        look = self._look(key)
        spans = self._personal_spans(key, look)
        for detector in look.personal:
            spans.extend((start, end, detector.id) for start, end in detector.find(key))
        return merge_spans(spans)

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
        """The personal-data detectors that find something in this string or a decoded view of
        it, in detector order."""
        look = self._look(text)
        found = detect_personal_data(text, look.personal)
        if not look.views:
            return found
        ids = set(found)
        for view, _, personal in look.views:
            ids.update(detect_personal_data(view.text, [d for d in personal if d.id not in ids]))
        return [d.id for d in self.personal_detectors if d.id in ids]

    def unsafe_text(self, text: str, mime: str) -> bool:
        """Whether decoded data-URI content holds a secret or personal data (§B10)."""
        if mime == "application/json":
            try:
                document = json.loads(text)
            except ValueError:
                pass
            except RecursionError:
                return True  # deeper than it can be read: not known to be safe
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


def strings_in(values: Iterable[Any]) -> tuple[list[str], list[Any]]:
    """Every string (mapping keys included) and every scalar under `values`, for a prescan.
    Not deeper than a walk goes (`MAX_DEPTH`), so a value that holds itself ends; what is left
    out is judged one string at a time, as without a prescan."""
    strings: list[str] = []
    scalars: list[Any] = []
    stack = [(value, 0) for value in values]
    while stack:
        item, depth = stack.pop()
        kind = item.__class__
        if kind is str:
            strings.append(item)
        elif kind is int or kind is float or kind is bool:
            scalars.append(item)
        elif depth > MAX_DEPTH:
            continue
        elif kind is dict or (kind is not list and isinstance(item, Mapping)):
            strings.extend([key for key in item if isinstance(key, str)])
            depth += 1
            stack.extend([(value, depth) for value in item.values()])
        elif kind is list or isinstance(item, list | tuple):
            depth += 1
            stack.extend([(value, depth) for value in item])
    return strings, scalars
