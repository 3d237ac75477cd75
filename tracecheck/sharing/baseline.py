"""Baselines: findings a team has looked at and accepted, by fingerprint, never by value.

`verify-safe --baseline FILE` accepts the findings FILE lists: an accepted finding no longer
makes the verdict UNSAFE, and is counted apart ("2 findings accepted by the baseline"); an
entry that matches no finding in what was judged is reported as stale. `--write-baseline FILE`
writes the fingerprints of the findings found (those that make a verdict UNSAFE: warnings pass
the gate anyway). Nothing else is accepted: what cannot be read stays UNKNOWN.

A fingerprint names a finding by its file (the path given, relative to the baseline's folder,
then `/entry` below a directory and `!member` inside an archive, as findings show them), its
place in the file (the finding's path: `/line 3/token`, `span:…/attributes/…`, `(name)`), its
category and detector, and a keyed hash of the value the detector judged:

    HMAC-SHA256(K, JSON ["tracecheck-baseline/1", file, place, category, detector, value])

- It is **stable across runs**: K is the baseline's own, kept in the file (a random 32-byte
  salt drawn when the baseline is first written, and kept when it is written again), and
  nothing else in the message changes from run to run (no pseudonym key, no time, no path that
  depends on the working directory).
- It **never holds the value**, nor a plain hash of it: a value's fingerprint differs in every
  baseline, so fingerprints cannot be looked up in precomputed tables or compared across teams.
- It is **bound to its place**: the same value elsewhere (another file, another line, another
  detector) is another finding, and editing an entry's file or place breaks its fingerprint.
- With a key in `TRACECHECK_BASELINE_KEY` when the baseline is written (and then whenever it is
  used), K is HMAC-SHA256(key, salt) and the file records only the key's id: a fingerprint then
  can be neither **forged** (an entry that accepts a value someone chooses) nor **tested** (a
  guess of a short password checked against it) by anyone who reads or edits the file without
  the key. Without a key, whoever holds the file can do both for a value they guess; use a key
  when the baseline is public or may accept findings that are real passwords.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import tempfile
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, Final

from redact.json_pairs import RepeatedKeys, pairs_hook
from redact.model import Category, Severity
from tracecheck.naming import a_json_type, did_you_mean

__all__ = [
    "BASELINE_VERSION",
    "KEY_ENV",
    "Baseline",
    "BaselineError",
    "Entry",
    "Ledger",
    "read_baseline",
    "write_baseline",
]

BASELINE_VERSION: Final = 1
KEY_ENV: Final = "TRACECHECK_BASELINE_KEY"
_MIN_KEY_BYTES: Final = 16
_DOMAIN: Final = "tracecheck-baseline/1"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX16 = re.compile(r"[0-9a-f]{16}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_CATEGORIES: Final = ("credential", "personal-data", "identifier", "raw-content", "media")
_TOP_KEYS: Final = ("version", "salt", "key", "findings")
_ENTRY_KEYS: Final = ("file", "location", "category", "detector", "fingerprint")


class BaselineError(Exception):
    """A baseline that cannot be read, written or used; the message names the file and the
    place in it (`baseline.json: /findings/3/fingerprint: …`), never a value."""


@dataclass(frozen=True, slots=True, order=True)
class Entry:
    """One accepted finding: where it is and the fingerprint of what it found there."""

    file: str
    location: str
    category: str
    detector: str
    fingerprint: str

    def to_json(self) -> dict[str, str]:
        return {key: getattr(self, key) for key in _ENTRY_KEYS}

    def shown(self) -> str:
        """The entry as a line of text, what the file holds of it: control characters and
        lone surrogates (JSON escapes can write both) shown as `?`."""
        text = f"{self.file} {self.location} ({self.category}, {self.detector})"
        return _visible(text)


@dataclass(frozen=True)
class Baseline:
    """A baseline file as read: its salt, its key's id (None when it has none), its entries,
    and the folder its files are named from."""

    path: Path
    salt: bytes
    key_id: str | None
    entries: frozenset[Entry]

    @property
    def folder(self) -> Path:
        return _absolute(self.path).parent


def _absolute(path: Path) -> Path:
    """The path from the root, `..` resolved but not links (a link names a place as given)."""
    return Path(os.path.normpath(path.absolute()))


def _key_from(environ: Mapping[str, str]) -> bytes | None:
    """The key `TRACECHECK_BASELINE_KEY` holds, or None when it is not set."""
    text = environ.get(KEY_ENV)
    if text is None or text == "":
        return None
    key = text.encode("utf-8", "surrogatepass")
    if len(key) < _MIN_KEY_BYTES:
        raise BaselineError(f"{KEY_ENV} must hold at least {_MIN_KEY_BYTES} bytes")
    return key


def _key_id(key: bytes, salt: bytes) -> str:
    return hmac.new(key, b"tracecheck-baseline-key-id\x00" + salt, hashlib.sha256).hexdigest()[:16]


class _Fingerprints:
    """Fingerprints under one baseline's salt (and key)."""

    def __init__(self, salt: bytes, key: bytes | None) -> None:
        self._material = (
            salt
            if key is None
            else hmac.new(key, b"tracecheck-baseline-key\x00" + salt, hashlib.sha256).digest()
        )

    def of(self, file: str, location: str, category: str, detector: str, value: Any) -> str:
        message = json.dumps(
            [_DOMAIN, file, location, category, detector, _canonical(value)],
            ensure_ascii=False,
            separators=(",", ":"),
        ).encode("utf-8", "surrogatepass")
        return hmac.new(self._material, message, hashlib.sha256).hexdigest()


def _canonical(value: Any) -> str:
    """The value as the text a fingerprint hashes: a string as it is, anything else as
    canonical JSON (keys sorted), or its type when it cannot be written (a cycle)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    except (ValueError, TypeError, RecursionError):
        return f"<{type(value).__name__}>"


# --- reading -----------------------------------------------------------------------------------


def read_baseline(path: str | Path, environ: Mapping[str, str] = os.environ) -> Baseline:
    """The baseline in `path`, checked strictly (every problem names its place), with its key
    checked against `TRACECHECK_BASELINE_KEY` when it was written with one."""
    baseline = _load(Path(path))
    if baseline.key_id is not None:
        key = _key_from(environ)
        if key is None:
            raise BaselineError(f"{path}: written with a key; set {KEY_ENV} to that key")
        if not hmac.compare_digest(_key_id(key, baseline.salt), baseline.key_id):
            raise BaselineError(f"{path}: {KEY_ENV} is not the key the baseline was written with")
    return baseline


def _load(source: Path) -> Baseline:
    """The baseline in `source`, its key not checked."""
    path = str(source)
    try:
        if not stat.S_ISREG(source.stat().st_mode):  # a named pipe could block for ever
            raise BaselineError(f"{path}: is not a regular file")
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BaselineError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise BaselineError(f"{path}: is not UTF-8 text") from None
    except OSError as exc:
        raise BaselineError(f"{path}: could not be read: {exc.strerror}") from None
    try:
        document = json.loads(text, object_pairs_hook=pairs_hook)
    except json.JSONDecodeError as exc:
        raise BaselineError(
            f"{path}: line {exc.lineno}, column {exc.colno}: malformed JSON: {exc.msg}"
        ) from None
    except RecursionError:
        raise BaselineError(f"{path}: nested too deep to be a baseline") from None
    except ValueError:  # an integer past Python's limit on digits
        raise BaselineError(f"{path}: holds a number too long to read") from None
    return _parsed(document, source)


def _parsed(document: Any, source: Path) -> Baseline:
    where = _Where(str(source))
    mapping = where.object(document, "")
    where.keys(mapping, "", _TOP_KEYS, required=_TOP_KEYS)
    version = mapping["version"]
    if type(version) is not int or version != BASELINE_VERSION:
        raise where.error(
            "/version", f"{a_json_type(version)} is not a baseline version tracecheck reads (1)"
        )
    salt = where.hex(mapping["salt"], "/salt", _HEX64, "64")
    key = mapping["key"]
    key_id = None
    if key is not None:
        key_object = where.object(key, "/key")
        where.keys(key_object, "/key", ("id",), required=("id",))
        key_id = where.hex(key_object["id"], "/key/id", _HEX16, "16").hex()
    findings = mapping["findings"]
    if not isinstance(findings, list):
        raise where.error("/findings", f"is {a_json_type(findings)}, not an array")
    entries = [where.entry(item, f"/findings/{index}") for index, item in enumerate(findings)]
    return Baseline(source, salt, key_id, frozenset(entries))


class _Where:
    """Checks of a baseline document, each failing with the file and the place named."""

    def __init__(self, name: str) -> None:
        self.name = name

    def error(self, place: str, problem: str) -> BaselineError:
        return BaselineError(f"{self.name}: {place or '/'}: {problem}")

    def object(self, value: Any, place: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(place, f"is {a_json_type(value)}, not an object")
        if isinstance(value, RepeatedKeys):
            counts = Counter(key for key, _ in value.pairs)
            twice = next(key for key, count in counts.items() if count > 1)
            raise self.error(place, f'writes the key "{_printable(twice)}" more than once')
        return value

    def keys(
        self, value: dict[str, Any], place: str, known: tuple[str, ...], required: tuple[str, ...]
    ) -> None:
        for key in value:
            if key not in known:
                close = did_you_mean(key, known)
                hint = f' — did you mean "{close}"?' if close else ""
                raise self.error(place, f'unknown key "{_printable(key)}"{hint}')
        for key in required:
            if key not in value:
                raise self.error(place, f'"{key}" is missing')

    def hex(self, value: Any, place: str, pattern: re.Pattern[str], digits: str) -> bytes:
        if not isinstance(value, str) or pattern.fullmatch(value) is None:
            raise self.error(place, f"must be {digits} lowercase hexadecimal digits")
        return bytes.fromhex(value)

    def entry(self, value: Any, place: str) -> Entry:
        item = self.object(value, place)
        self.keys(item, place, _ENTRY_KEYS, required=_ENTRY_KEYS)
        for key in ("file", "location", "category", "detector"):
            text = item[key]
            if not isinstance(text, str) or not text:
                raise self.error(
                    f"{place}/{key}", f"is {a_json_type(text)}, not a non-empty string"
                )
        if item["category"] not in _CATEGORIES:
            raise self.error(
                f"{place}/category",
                f'"{_printable(item["category"])}" is not a category ({", ".join(_CATEGORIES)})',
            )
        self.hex(item["fingerprint"], f"{place}/fingerprint", _HEX64, "64")
        return Entry(*(item[key] for key in _ENTRY_KEYS))


def _printable(text: str, limit: int = 40) -> str:
    """A key or name from the file, shown short and without control characters."""
    return _visible(text[:limit]) + ("…" if len(text) > limit else "")


def _visible(text: str) -> str:
    """The text with each character that is not printable (a control character, a lone
    surrogate) as `?`."""
    return "".join(c if c.isprintable() else "?" for c in text)


# --- writing -----------------------------------------------------------------------------------


def write_baseline(path: Path, salt: bytes, key_id: str | None, entries: list[Entry]) -> None:
    """Write a baseline (entries sorted, one JSON document, a newline at the end), replacing
    `path` whole once the new file is complete."""
    document = {
        "version": BASELINE_VERSION,
        "salt": salt.hex(),
        "key": None if key_id is None else {"id": key_id},
        "findings": [entry.to_json() for entry in sorted(set(entries))],
    }
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    # A file name that is not UTF-8 holds lone surrogates: written as JSON escapes, read back
    # as they were.
    data = _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match[0]):04x}", text)
    folder = path.resolve().parent
    try:
        handle, temporary = tempfile.mkstemp(prefix=".baseline-", dir=folder)
    except OSError as exc:
        raise BaselineError(f"{path}: could not be written: {exc.strerror}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(data)
        Path(temporary).replace(path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)  # no half-written file left beside it
        raise BaselineError(f"{path}: could not be written: {exc.strerror}") from None


# --- judging with a baseline -------------------------------------------------------------------


@dataclass
class _Book:
    """Fingerprints under one baseline's salt and key, files named from its folder."""

    folder: Path
    fingerprints: _Fingerprints
    top: str = ""
    directory: bool = False

    def file(self, label: str) -> str:
        if not label:
            return self.top
        separator = "/" if self.directory else "!"
        if self.directory and self.top == ".":
            return label
        return f"{self.top}{separator}{label}"

    def start(self, path: str, directory: bool) -> None:
        target = _absolute(Path(path))
        try:
            relative = os.path.relpath(target, self.folder)
        except ValueError:  # another drive
            relative = str(target)
        self.top = PurePath(relative).as_posix()
        self.directory = directory

    def holds(self, file: str) -> bool:
        """Whether a baseline entry's file lies in what is being judged."""
        if self.directory:
            if self.top == ".":
                return not file.startswith("../") and not PurePath(file).is_absolute()
            return file == self.top or file.startswith(self.top + "/")
        return file == self.top or file.startswith(self.top + "!")


class Ledger:
    """The gate's observer when a baseline is read or written: each finding's fingerprint is
    taken; one the baseline lists is accepted (left out of the verdict, counted apart); with
    `--write-baseline`, every error finding is recorded."""

    def __init__(
        self,
        baseline: Baseline | None,
        *,
        record_to: Path | None = None,
        environ: Mapping[str, str] = os.environ,
    ) -> None:
        self.baseline = baseline
        self._reading: _Book | None = None
        if baseline is not None:
            key = _key_from(environ) if baseline.key_id is not None else None
            self._reading = _Book(baseline.folder, _Fingerprints(baseline.salt, key))
        self._writing: _Book | None = None
        self.record_to = record_to
        self.recorded: list[Entry] = []
        if record_to is not None:
            self.salt, self.key_id, key = _salt_for(record_to, environ)
            folder = _absolute(record_to).parent
            self._writing = _Book(folder, _Fingerprints(self.salt, key))
        self.matched: set[Entry] = set()
        self._judged: list[_Book] = []
        self._label = ""
        self._part = ""
        self._prefix = ""
        self._accepted: Counter[tuple[str, str, str, str]] = Counter()

    # The gate's Observer --------------------------------------------------------------------

    def top(self, path: str, directory: bool) -> None:
        for book in self._books():
            book.start(path, directory)
        if self._reading is not None:
            reading = self._reading
            self._judged.append(_Book(reading.folder, reading.fingerprints, reading.top, directory))
        self._accepted.clear()

    @contextmanager
    def judging(self, label: str, part: str, prefix: str) -> Iterator[None]:
        outer = self._label, self._part, self._prefix
        self._label, self._part, self._prefix = label, part, prefix
        try:
            yield
        finally:
            self._label, self._part, self._prefix = outer

    # redact's FindingObserver ---------------------------------------------------------------

    def accepts(
        self, path: str, category: Category, detector: str, severity: Severity, value: Any
    ) -> bool:
        if severity != "error" or not self._part:
            return False
        location = self._location(path)
        if self._writing is not None:
            file = self._writing.file(self._label)
            fingerprint = self._writing.fingerprints.of(file, location, category, detector, value)
            self.recorded.append(Entry(file, location, category, detector, fingerprint))
        if self._reading is None or self.baseline is None:
            return False
        file = self._reading.file(self._label)
        fingerprint = self._reading.fingerprints.of(file, location, category, detector, value)
        entry = Entry(file, location, category, detector, fingerprint)
        if entry not in self.baseline.entries:
            return False
        self.matched.add(entry)
        self._accepted[file, self._part, category, detector] += 1
        return True

    # What it found --------------------------------------------------------------------------

    def accepted(self) -> int:
        """How many findings of the path judged last the baseline accepted, counted as the
        verdict counts them: a finding both a trace's spans and its bytes hold counts once."""
        totals: Counter[tuple[str, str, str]] = Counter()
        by_part: dict[tuple[str, str, str], Counter[str]] = {}
        for (file, part, category, detector), count in self._accepted.items():
            by_part.setdefault((file, category, detector), Counter())[part] += count
        for key, parts in by_part.items():
            totals[key] = parts["name"] + max(parts["spans"], parts["bytes"])
        return sum(totals.values())

    def stale(self) -> list[Entry]:
        """The baseline's entries, in what was judged, that matched no finding."""
        if self.baseline is None:
            return []
        return sorted(
            entry
            for entry in self.baseline.entries - self.matched
            if any(book.holds(entry.file) for book in self._judged)
        )

    def write(self) -> int:
        """Write the recorded findings to `record_to`; how many entries it holds."""
        assert self.record_to is not None
        entries = sorted(set(self.recorded))
        write_baseline(self.record_to, self.salt, self.key_id, entries)
        return len(entries)

    def _books(self) -> Iterator[_Book]:
        if self._reading is not None:
            yield self._reading
        if self._writing is not None:
            yield self._writing

    def _location(self, path: str) -> str:
        """A finding's place in its file: its path without the file's label."""
        if self._part == "name":
            return "(link)" if path.endswith("/1") else "(name)"
        prefix = self._prefix
        if prefix and path.startswith(prefix):
            rest = path[len(prefix) :]
            if rest.startswith(" "):
                rest = "/" + rest[1:]
            return rest or "/"
        return path or "/"


def _salt_for(target: Path, environ: Mapping[str, str]) -> tuple[bytes, str | None, bytes | None]:
    """The salt of the baseline at `target` when there is one (so that writing it again keeps
    every unchanged finding's fingerprint), else a new one; the key's id and the key, when
    `TRACECHECK_BASELINE_KEY` holds one."""
    key = _key_from(environ)
    if target.exists():
        try:
            salt = _load(target).salt
        except BaselineError as exc:
            raise BaselineError(
                f"{target}: exists and is not a baseline tracecheck can write again "
                f"({str(exc).removeprefix(f'{target}: ')}); remove it or name another file"
            ) from None
    else:
        salt = secrets.token_bytes(32)
    return salt, (None if key is None else _key_id(key, salt)), key
