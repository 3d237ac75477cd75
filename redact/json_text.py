"""JSON written inside a string, redacted as the JSON it holds.

Agent records hold JSON as text: a tool's input rendered as JSON, a tool result that is a JSON
document, a file's content. Read as one string, a key only gives its class to the whole text
(`{"password": "…"}` is caught by the `json-secret` shape, `{"user_id": "u-42"}` not at all).
Parsed, every key is classified and every value redacted where it stands, and the document is
written back in the layout it had (indent, separators, escaping); then the string pipeline
runs over that text as over any other, so what the gate finds in text is gone too.

This holds for any string that holds a structure: a span attribute (a tool result, a tool call's
arguments, `gen_ai.input.messages`), a Claude Code record's field, a value of a JSON file. A name
/value pair written as JSON inside a string (AWS tags `{"Key": "client_secret", "Value": …}`,
OTLP attributes `{"key": …, "value": {"stringValue": …}}`) goes by its name as it does in a
file, and a digits-only SSN under `ssn` goes under `share` as it does in a file.

Parsing every document costs more than judging its text, and most documents hold nothing a key
rule acts on. A document is parsed when its text may matter as a structure (`Structure`): a key,
or the name of a pair, whose class the profile acts on (one linear-time RE2 scan of the batch's
documents, joined, with every such name as a literal), an option word that a command's
arguments read together may hold a secret after (`"-p"`, `"--token"`), a JSON escape in a
document the prescan flagged (a newline escaped as `\\n` hides a line-shaped secret from the
text), or anything the prescan flagged in it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from redact.detectors import DETECTORS, Detector, DetectorTimeout
from redact.engine import re2
from redact.inspector import Inspector, strings_in
from redact.json_pairs import pairs_hook
from redact.keys import BUILT_IN, KeyClass, normalize_key
from redact.known import KnownSecrets
from redact.profiles import Profile
from redact.scan import prefilter_for
from redact.strings import is_placeholder
from redact.walk import Assessor, Redactor

__all__ = [
    "JsonTextAssessor",
    "JsonTextInspector",
    "JsonTextRedactor",
    "Structure",
    "json_container",
    "structure_for",
]

# JSON texts nested as strings inside JSON texts followed this deep; a deeper one that still
# holds JSON is cut whole (UNKNOWN to the assessor), as a value past the walk's depth is.
_MAX_NESTING = 4
_INDENT = re.compile(r"[\[{]\r?\n([ \t]+)\S")
_TOO_DEEP: Any = object()


def bracketed(text: str) -> bool:
    """Whether `text` is shaped as a JSON object or array (spaces around allowed): the cheap
    test before a parse; only such strings may hold a JSON document."""
    if not text:
        return False
    start, end = text[0], text[-1]
    if start.isspace() or end.isspace():  # rare: strip only then (a copy of the string)
        start, end = text.lstrip()[:1], text.rstrip()[-1:]
    return (start == "{" and end == "}") or (start == "[" and end == "]")


def json_container(text: str) -> Any:
    """The object or array `text` holds as a whole JSON document (spaces around allowed), or
    None when it holds none (most strings: only those opening with a bracket are parsed)."""
    document = _document(text)
    return None if document is _TOO_DEEP else document


def _document(text: str) -> Any:
    """`json_container(text)`, or `_TOO_DEEP` when the text nests deeper than the parser
    follows (then it cannot be read as the JSON it may hold)."""
    if not bracketed(text):
        return None
    try:
        # Every member of an object that writes a key twice is kept (`RepeatedKeys`), so that
        # no value it holds goes unjudged.
        value = json.loads(text, object_pairs_hook=pairs_hook)
    except ValueError:
        return None
    except RecursionError:
        return _TOO_DEEP
    return value if isinstance(value, dict | list) else None


def encode_like(value: Any, original: str) -> str:
    """`value` as JSON text laid out as `original` was: its indent, its separators, ASCII
    escapes when it used them (or when the text holds what UTF-8 cannot: half a surrogate
    pair, which JSON may escape), and the spaces around it."""
    indent_match = _INDENT.search(original)
    indent: str | None = indent_match[1] if indent_match else None
    if indent is None and "\n" in original.strip():
        indent = "  "
    item_space, key_space = _spacing(original)
    item = "," if indent is not None or not item_space else ", "
    key = ": " if key_space else ":"
    ascii_only = original.isascii() and "\\u" in original
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent, separators=(item, key))
    if not ascii_only and not _encodable(text):
        text = json.dumps(value, ensure_ascii=True, indent=indent, separators=(item, key))
    stripped = original.strip()
    head = original[: len(original) - len(original.lstrip())]
    tail = original[len(head) + len(stripped) :]
    return head + text + tail


_STRING_OR_SEPARATOR = re.compile(r'"(?:[^"\\]|\\.)*"|[,:]')


def _spacing(original: str) -> tuple[bool, bool]:
    """Whether the document's first `,` and first `:` between values (not inside a string,
    where prose writes `, ` whatever the layout) are followed by a space."""
    item: bool | None = None
    key: bool | None = None
    for match in _STRING_OR_SEPARATOR.finditer(original):
        separator = match.group()
        if separator not in (",", ":"):
            continue
        spaced = original[match.end() : match.end() + 1] == " "
        if separator == "," and item is None:
            item = spaced
        elif separator == ":" and key is None:
            key = spaced
        if item is not None and key is not None:
            break
    return bool(item), bool(key)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# Separators a key's words are written with (`api_key`, `api-key`, `api.key`, `apiKey`).
_JOIN = "[_.\\- ]?"
# Entries this short are matched only where a key's word starts: `ip` not in `zip`.
_SHORT = 4
# Option words after which a command's argument list may hold a secret (`redact.walk` reads a
# list of words with an option as one command line): the short password options of the clients
# `cli-password-option` knows (`-p` or `-p…` with the password attached), `-u`/`--user` (curl),
# and long flags naming a secret.
_SECRET_OPTIONS = (
    r"-(?:[pawPUbu][^\"\\\s]*|user|password|passwd|pass|pwd|secret|token|pat|api-?key|access-key"
    r"|secret-key|[A-Za-z0-9-]{1,40}-(?:password|passwd|secret|token|key))"
)


def _alternative(entry: str) -> str:
    """RE2 for a key (or a pair's name) that ends with this normalised list entry, as JSON text
    writes it: any case, any separator, then its closing quote (escaped in JSON inside JSON)."""
    words = entry.split("_")
    body = _JOIN.join(f"(?i:{re2.escape(word)})" for word in words)
    if len(entry) > _SHORT:
        return body
    # At a word's start only: after a character that is not a letter or digit, or at a camelCase
    # hump (`clientIp`, `userSSN`).
    first, rest = words[0], words[1:]
    hump = (
        f"{re2.escape(first[0].upper())}(?i:{re2.escape(first[1:])})"
        if first[1:]
        else (re2.escape(first[0].upper()))
    )
    tail = "".join(f"{_JOIN}(?i:{re2.escape(word)})" for word in rest)
    return f"(?:^|[^A-Za-z0-9]){body}|[a-z0-9]{hump}{tail}"


def _acting_classes(profile: Profile) -> tuple[KeyClass, ...]:
    """The key classes whose values this profile removes or replaces whatever they hold."""
    acting = [KeyClass.CREDENTIAL, KeyClass.EMAIL]
    if profile.remove_share_personal_keys:
        acting.append(KeyClass.SHARE_PERSONAL)
    if profile.pseudonymize_identifiers:
        acting.append(KeyClass.IDENTIFIER)
    if profile.remove_raw_content_keys:
        acting.append(KeyClass.RAW_CONTENT)
    return tuple(acting)


class Structure:
    """Which JSON documents held in strings may matter as structures under one profile: their
    text names a key (or a pair's name) of a class the profile acts on, or an option word after
    which a command's arguments may hold a secret. `pattern` is RE2 syntax, matched on UTF-8
    bytes as one more branch of the inspector's prescan; it may over-approximate (`zip_code"`
    names no `ip`, and is parsed for nothing), never miss."""

    def __init__(self, profile: Profile) -> None:
        entries: set[str] = {"token"}  # the token rule: any key that ends with `token`
        for key_class in _acting_classes(profile):
            listed = (*BUILT_IN[key_class], *profile.keys.extra.get(key_class, ()))
            entries.update(normalize_key(name) for name in listed)
        entries.discard("")
        names = "|".join(sorted(_alternative(entry) for entry in entries))
        quote = '\\\\*"'  # a quote, escaped as often as JSON inside JSON strings escapes it
        space = "[ \\t\\r\\n]*"
        self.pattern = "|".join(
            [
                # A key: the name, its closing quote, a colon.
                f"(?:{names}){quote}{space}:",
                # A pair's name: `"name": "…client_secret"`, `"Key": "…"`.
                f'{quote}(?i:name|key){quote}{space}:{space}{quote}[^"\\\\]*(?:{names}){quote}',
                # An option word of an argument list.
                f"{quote}{_SECRET_OPTIONS}{quote}",
            ]
        )


@lru_cache(maxsize=32)
def structure_for(profile: Profile) -> Structure:
    return Structure(profile)


def _line_detectors() -> frozenset[Detector]:
    """Detectors of a secret that its lines delimit (a `.pgpass` entry, a `.netrc` one): JSON
    text writes those lines as `\\n`, which the raw text's match cannot see."""
    return frozenset(d for d in DETECTORS.values() if d.id in ("pgpass-password", "netrc-password"))


_LINES = _line_detectors()


_OPENERS = frozenset("{[")


def _opens(text: str) -> bool:
    """Whether `text` may open a JSON document (cheaper than `bracketed`, which it precedes)."""
    return bool(text) and (text[0] in "{[" or text[0].isspace())


def _escaped(text: str) -> bool:
    """Whether a JSON text writes an escape inside a string (`\\n`, `\\"`, `\\u…`)."""
    return "\\" in text


class JsonTextInspector(Inspector):
    """An inspector that also tells which strings hold a JSON document worth walking as the
    structure it is (`holds_structure`): a document whose text the prescan flags, for a
    detector or for the profile's `Structure` (one more branch of the same scan). Such a
    string always needs a look, so that no walk passes it by as clean text; the documents of a
    batch are parsed once, and their strings learnt in one more scan."""

    def __init__(self, profile: Profile, known: KnownSecrets) -> None:
        super().__init__(profile, known)
        # A profile with modes (an allow-list masks every key not listed) may act on any key:
        # every document is walked.
        self._every_document = profile.modes is not None
        if not self._every_document:
            self.prefilter = prefilter_for(
                self.credential_detectors + self.personal_detectors,
                known,
                structure_for(profile).pattern,
            )
        else:
            # `needs_look` is asked of every string a walk meets: the override is only where
            # it says more (a flagged document needs a look already).
            self.needs_look = self._needs_look_or_document  # type: ignore[method-assign]
        # The documents of the batch that walks will read, parsed once.
        self._documents: dict[str, Any] = {}

    def prescan(self, strings: list[str], scalars: Iterable[Any] = ()) -> None:
        super().prescan(strings, scalars)
        if self._every_document:
            documents = {text for text in self.clean if _opens(text) and bracketed(text)}
            self.clean -= documents
        # The documents walks will read, parsed once, and their strings learnt in one more
        # scan, so that judging them is set lookups too.
        self._documents = {}
        inner: list[str] = []
        for text in self._flagged:
            if _opens(text) and bracketed(text):
                document = self._documents[text] = _document(text)
                if document is not None and document is not _TOO_DEEP:
                    inner.extend(strings_in([document])[0])
        if self._every_document:
            for text in documents:
                document = self._documents[text] = _document(text)
                if document is not None and document is not _TOO_DEEP:
                    inner.extend(strings_in([document])[0])
        if inner:
            self._learn(inner)

    def _quiet(self, candidates: Iterable[str]) -> set[str]:
        """The flagged strings in which a closer look finds nothing, as `Inspector` has them,
        less the documents that may matter as structures (their keys) and those whose text
        escapes something a detector may match once its strings are read (a `.pgpass` line
        ended by an escaped newline)."""
        quiet: set[str] = set()
        for text in candidates:
            found, decodes, structured = self.prefilter.look_all(text)
            if decodes:
                continue
            document = _opens(text) and bracketed(text)
            if document and structured:
                continue
            try:
                if any(detector.search(text) for detector in found):
                    continue
                if document and _escaped(text) and _LINES.intersection(found) and self._held(text):
                    continue
            except DetectorTimeout:
                continue  # judged again in the walk, which fails closed
            quiet.add(text)
        return quiet

    def _held(self, text: str) -> bool:
        """Whether a detector matches the strings a document's text holds, read unescaped (a
        line-shaped secret whose lines JSON writes as `\\n`)."""
        document = _document(text)
        if document is None or document is _TOO_DEEP:
            return document is _TOO_DEEP
        inner = "\n".join(strings_in([document])[0])
        found, decodes, _ = self.prefilter.look_all(inner)
        return decodes or any(detector.search(inner) for detector in found)

    def _learn(self, strings: list[str]) -> None:
        """What `prescan` learns, for more strings of the same batch: those a detector (or the
        structure) may match, and those that need no look."""
        distinct = [s for s in dict.fromkeys(strings) if s not in self.clean]
        distinct = [s for s in distinct if s not in self._flagged]
        if not distinct:
            return
        flagged = self.prefilter.flag(distinct)
        newly = flagged.any - self._quiet(flagged.any - flagged.known)
        self._flagged |= newly
        if self.known:
            self._no_known |= newly - flagged.known
        rest = set(distinct) - newly
        special = {
            s
            for s in rest
            if (s[:1] in ("d", "D") and s[:5].lower() == "data:")
            or (s[:1] in ("", "[", "*", "<", "«") and is_placeholder(s))
            or (self._every_document and _opens(s) and bracketed(s))
        }
        self.clean |= rest - special - self.known.hiding_in_base64(rest)
        self.generation += 1

    def holds_structure(self, text: str) -> bool:
        """Whether `text` is shaped as a JSON document that may matter as a structure."""
        if not _opens(text) or text in self.clean or not bracketed(text):
            return False
        return self._every_document or super().needs_look(text)

    def _needs_look_or_document(self, text: str) -> bool:
        """`needs_look` when every document is walked: a document always needs a look."""
        return type(self).needs_look(self, text) or self.holds_structure(text)

    def document(self, text: str) -> Any:
        """`text`'s JSON document (None when it holds none), parsed once per batch."""
        try:
            return self._documents[text]
        except KeyError:
            return _document(text)


class JsonTextRedactor(Redactor):
    """A redactor that redacts JSON held in a string as JSON (its keys classified, its values
    redacted in place), then runs the string pipeline over the text written back. The walk's
    depth runs on through the documents held in strings, so `MAX_DEPTH` bounds the whole."""

    def __init__(self, inspector: Inspector, cap: int, pseudonym_key: bytes | None = None) -> None:
        super().__init__(inspector, cap, pseudonym_key)
        self._nesting = 0
        self._depth = 0  # of the innermost string whose document is being walked

    def value(self, value: Any, path: str, depth: int) -> Any:
        if isinstance(value, str):
            if value and (value[0] in _OPENERS or value[0].isspace()):
                return self._text(value, path, depth)
            return super().string(value, path)  # no document: the string pipeline
        return super().value(value, path, depth)

    def _structured(self, text: str) -> bool:
        return _structured(self, text)

    def string(self, text: str, path: str) -> str:
        return self._text(text, path, self._depth)

    def _text(self, text: str, path: str, depth: int) -> str:
        if (
            not text
            or (text[0] not in _OPENERS and not text[0].isspace())
            or not self._structured(text)
            or self.inspector.is_placeholder(text)
        ):
            return super().string(text, path)
        document = _document_of(self, text)
        if document is None:
            return super().string(text, path)
        if document is _TOO_DEEP or self._nesting >= _MAX_NESTING:
            self._record(path, "raw-content", "depth-limit", "truncated")
            return "[REDACTED:depth-limit]"
        self._nesting += 1
        outer, self._depth = self._depth, depth + 1
        try:
            redacted = super().value(document, path, depth + 1)
        finally:
            self._nesting -= 1
            self._depth = outer
        if isinstance(redacted, str):
            return redacted  # the document cut whole (past the walk's depth): its marker
        if not _same(redacted, document):
            text = encode_like(redacted, text)
        return super().string(text, path)


class JsonTextAssessor(Assessor):
    """An assessor that judges JSON held in a string as the JSON it holds (its keys classified,
    as `JsonTextRedactor` redacts it); the depth runs on through the documents as the
    redactor's does. The document's text is judged too, for what only the text shows (a match
    across two values), unless the document's values already make the verdict fail: each value
    is then reported where it stands, not twice."""

    def __init__(self, inspector: Inspector) -> None:
        super().__init__(inspector)
        self._nesting = 0
        self._depth = 0

    def value(self, value: Any, path: str, depth: int) -> None:
        if isinstance(value, str):
            if value and (value[0] in _OPENERS or value[0].isspace()):
                self._text(value, path, depth)
            else:
                super().string(value, path, depth)  # no document: the string's own judgement
        else:
            super().value(value, path, depth)

    def string(self, text: str, path: str, depth: int = 0) -> None:
        self._text(text, path, max(depth, self._depth))

    def _text(self, text: str, path: str, depth: int) -> None:
        if (
            not text
            or (text[0] not in _OPENERS and not text[0].isspace())
            or not _structured(self, text)
            or self.inspector.is_placeholder(text)
        ):
            super().string(text, path, depth)
            return
        document = _document_of(self, text)
        if document is None:
            super().string(text, path, depth)
            return
        if document is _TOO_DEEP:
            super().string(text, path, depth)
            self._unreadable(path, "JSON held in a string nests deeper than it can be read")
            return
        if self._nesting >= _MAX_NESTING:
            super().string(text, path, depth)
            self._unreadable(path, f"JSON held in strings nested deeper than {_MAX_NESTING} levels")
            return
        failing = self._failing()
        self._nesting += 1
        outer, self._depth = self._depth, depth + 1
        try:
            super().value(document, path, depth + 1)
        finally:
            self._nesting -= 1
            self._depth = outer
        if self._failing() == failing:
            super().string(text, path, depth)

    def _failing(self) -> tuple[int, int]:
        """How many error findings and unreadable places the verdict holds so far."""
        errors = sum(
            count for severity, count, _ in self.tally.counts.values() if severity == "error"
        )
        return errors, len(self.unreadable)


def _structured(walk: Redactor | Assessor, text: str) -> bool:
    """Whether the walk reads `text` as the JSON document it may hold: every bracketed string
    under an inspector that cannot tell (not a `JsonTextInspector`)."""
    inspector = walk.inspector
    if isinstance(inspector, JsonTextInspector):
        return inspector.holds_structure(text)
    return bracketed(text)


def _document_of(walk: Redactor | Assessor, text: str) -> Any:
    inspector = walk.inspector
    if isinstance(inspector, JsonTextInspector):
        return inspector.document(text)
    return _document(text)


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same JSON types (`1 == True` and `1 == 1.0` in Python)."""
    if a.__class__ is not b.__class__:
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
