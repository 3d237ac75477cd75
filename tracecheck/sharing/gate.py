"""The share-safety verdict of a path as `verify-safe` gives it: every file, every layer of
compression or encoding, every member of an archive, failing closed on what it cannot read.

A file is decoded (`readers.layers`: gzip, bzip2, xz, nested, BOM-marked UTF-16/32 text); a
trace is judged by its spans and by its bytes (`recorded_bytes`), a credential file in its own
syntax (`credential_files`), any other file by its bytes (JSON, JSON Lines, text). An
archive's members are judged one by one, each named by its place in the archive
(`bundle.zip!traces/run.jsonl`), and each member's name is judged too (`names`).

A directory is judged whole: every entry below it, hidden ones included (`.env`, `.git/config`,
`.secrets/…`: the folder someone zips and shares holds them), and every entry's name. Nothing
is passed over: a named pipe, a socket or a device is never opened (it could block, or never
end) and makes the verdict UNKNOWN, as does an entry that cannot be listed or read. Symbolic
links are not followed: a link's target is judged as a name; what it points to is judged where
it stands when that is inside the directory, and makes the verdict UNKNOWN when it is outside
(`zip -r` stores what a link points to). git's object
store (`.git/objects`: compressed history) is one UNKNOWN entry, not one per object.

What cannot be read is an unreadable entry naming the reason, so the verdict is UNKNOWN, never
SAFE: binary data that is not a trace, compression that is not decoded, an encrypted member,
more layers than are followed, a file that inflates past its limit, a special file.

A path given on the command line that cannot be read at all (missing, unreadable, a damaged
trace) raises `GateError`: exit 3. The same fault below a directory or inside an archive is an
unreadable entry of its verdict.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from redact import KnownSecrets, ShareVerdict, assess
from redact.model import FindingTally, combine_verdicts, verdict_of
from redact.profiles import Profile
from redact.spans import SpanAssessor
from tracecheck.errors import AmbiguousFormatError, TraceReadError, UnrecognizedFormatError
from tracecheck.readers import iter_spans
from tracecheck.readers.inputs import UTF8_BOM, open_file
from tracecheck.readers.layers import (
    Decoded,
    InflateLimitError,
    NestingError,
    UndecodedError,
    decode,
    decode_within,
    limit_at_most,
)
from tracecheck.sharing.archives import Member, TooManyMembers, members
from tracecheck.sharing.credential_files import (
    MAX_CREDENTIAL_FILE,
    credential_document,
    syntax_of,
)
from tracecheck.sharing.names import name_verdict, shown_name
from tracecheck.sharing.recorded_bytes import (
    assess_recorded,
    pointer,
    unreadable_verdict,
    with_recorded,
)
from tracecheck.sharing.recorded_claude import claude_verdicts
from tracecheck.sharing.staged import batched

__all__ = ["GateError", "Observer", "verdict_of_path"]


class GateError(Exception):
    """A path that cannot be judged at all; the message names it (`path: reason`)."""


class Observer(Protocol):
    """Told where the gate stands while it judges (a baseline's ledger): the path given, then
    each file by its label (`sub/run.jsonl`, `bundle.zip!a.json`; empty for the path itself),
    the part of it being judged (`spans`, `bytes` or `name`) and the prefix the findings' paths
    carry for the file (`/sub~1run.jsonl`), so that a finding's place can be told apart from
    its file's."""

    def top(self, path: str, directory: bool) -> None: ...

    def judging(self, label: str, part: str, prefix: str) -> AbstractContextManager[None]: ...


class _Nobody:
    def top(self, path: str, directory: bool) -> None:
        pass

    def judging(self, label: str, part: str, prefix: str) -> AbstractContextManager[None]:
        return nullcontext()


# The kinds of file that are never opened, by their `stat` test.
_SPECIAL: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)
_NOT_OPENED = "special files are never opened"


def verdict_of_path(
    path: str,
    format: str | None,
    profile: Profile,
    known: KnownSecrets,
    observer: Observer | None = None,
) -> ShareVerdict:
    """The verdict of a file, or of every entry below a directory, hidden ones included."""
    gate = _Gate(profile, known, observer or _Nobody())
    root = Path(path)
    try:
        status = root.stat()  # a link given by name is followed: the path names what it reads
    except FileNotFoundError:
        raise GateError(f"{path}: no such file or directory") from None
    except OSError as exc:
        raise GateError(f"{path}: could not be read: {exc.strerror}") from None
    directory = stat.S_ISDIR(status.st_mode)
    gate.observer.top(path, directory)
    if directory:
        return gate.directory(root, path, format)
    special = _special(status.st_mode)
    if special is not None:
        return gate.unknown("", f"{special}: {_NOT_OPENED}")
    return gate.file(root, format, "", shape_name=path)


def _special(mode: int) -> str | None:
    """What kind of special file a mode is, or None for a regular file (or a directory)."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    for test, kind in _SPECIAL:
        if test(mode):
            return kind
    return "a special file"


@dataclass(frozen=True, slots=True)
class _Entry:
    """One entry below a directory: its path, its parts below the directory, its `lstat` (or
    why it could not be listed)."""

    path: Path
    parts: tuple[str, ...]
    mode: int | None
    problem: str | None = None


def _entries(root: Path) -> Iterator[_Entry]:
    """Every entry below `root`, in order of their parts, links never followed; a directory
    that cannot be listed is an entry with its problem."""
    stack: list[tuple[Path, tuple[str, ...]]] = [(root, ())]
    found: list[_Entry] = []
    while stack:
        folder, parts = stack.pop()
        try:
            with os.scandir(folder) as listing:
                children = list(listing)
        except OSError as exc:
            if parts:
                found.append(_Entry(folder, parts, None, f"could not be listed: {exc.strerror}"))
                continue
            raise GateError(f"{root}: could not be listed: {exc.strerror}") from None
        for child in children:
            child_parts = (*parts, child.name)
            try:
                mode = child.stat(follow_symlinks=False).st_mode
            except OSError as exc:
                found.append(
                    _Entry(
                        Path(child.path), child_parts, None, f"could not be read: {exc.strerror}"
                    )
                )
                continue
            found.append(_Entry(Path(child.path), child_parts, mode))
            if stat.S_ISDIR(mode) and child_parts[-2:] != (".git", "objects"):
                stack.append((Path(child.path), child_parts))
    yield from sorted(found, key=lambda entry: entry.parts)


class _Gate:
    def __init__(self, profile: Profile, known: KnownSecrets, observer: Observer) -> None:
        self.profile = profile
        self.known = known
        self.observer = observer

    def directory(self, root: Path, given: str, format: str | None) -> ShareVerdict:
        """Every entry below `root` and its name; what is not a regular file is not read."""
        entries = list(_entries(root))
        if not any(entry.mode is None or not stat.S_ISDIR(entry.mode) for entry in entries):
            raise GateError(f"{given}: holds no files")
        inside = os.path.realpath(root)
        shown: dict[tuple[str, ...], str] = {(): ""}
        verdicts: list[ShareVerdict] = []
        for number, entry in enumerate(entries, 1):
            name = shown_name(entry.parts[-1], self.profile, self.known)
            parent = shown[entry.parts[:-1]]
            # A name that holds what may not be printed goes by its number.
            label = f"#{number}" if name is None else f"{parent}/{name}" if parent else name
            shown[entry.parts] = label
            link = _link_target(entry)
            verdicts.append(self.name(entry.parts[-1], link, label))
            verdicts.append(self.entry(entry, label, inside, format))
        return combine_verdicts(self.profile.name, verdicts)

    def name(self, name: str, link: str, label: str) -> ShareVerdict:
        """The verdict of an entry's name and a link's target, placed at `<label> (name)`."""
        with self.observer.judging(label, "name", ""):
            verdict = name_verdict(name, link, self.profile, self.known)
        return _relabelled(verdict, f"{label} (name)")

    def entry(self, entry: _Entry, label: str, inside: str, format: str | None) -> ShareVerdict:
        if entry.problem is not None:
            return self.unknown(label, entry.problem)
        assert entry.mode is not None
        mode = entry.mode
        if stat.S_ISDIR(mode):
            if entry.parts[-2:] == (".git", "objects"):
                return self.unknown(label, "git's object store (compressed history) is not read")
            return verdict_of(self.profile.name, FindingTally(), ())
        if stat.S_ISLNK(mode):
            return self.link(entry, label, inside)
        special = _special(mode)
        if special is not None:
            return self.unknown(label, f"{special}: {_NOT_OPENED}")
        return self.file(
            entry.path, format, label, in_directory=True, shape_name="/".join(entry.parts)
        )

    def link(self, entry: _Entry, label: str, inside: str) -> ShareVerdict:
        """A symbolic link: its target was judged as a name; what it points to is judged where
        it stands inside the directory, and is not followed out of it."""
        resolved = os.path.realpath(entry.path)
        if resolved == inside or resolved.startswith(inside.rstrip(os.sep) + os.sep):
            return verdict_of(self.profile.name, FindingTally(), ())
        try:
            entry.path.stat()
        except (FileNotFoundError, NotADirectoryError):  # dangling: it holds its name only
            return verdict_of(self.profile.name, FindingTally(), ())
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # a loop holds its name only too
                return verdict_of(self.profile.name, FindingTally(), ())
            return self.unknown(
                label, f"a symbolic link that could not be followed: {exc.strerror}"
            )
        return self.unknown(
            label, "a symbolic link to a file outside the directory, which is not followed"
        )

    def file(
        self,
        path: Path,
        format: str | None,
        label: str,
        *,
        shape_name: str,
        in_directory: bool = False,
        depth: int = 0,
        limit: int | None = None,
    ) -> ShareVerdict:
        """One file: `label` names it in findings (empty for the path given), `shape_name` is
        its name as written (to know a credential file by); `depth` counts the layers and
        archives it lies in; a member is bounded by its archive's `limit`."""
        inner = limit is not None or in_directory  # a fault is an entry of the verdict
        name = label or str(path)
        try:
            if limit is None:
                decoded = decode(name, _opener(path), path.stat().st_size, depth=depth)
            else:
                decoded = decode_within(name, _opener(path), limit, depth=depth)
            if decoded.archive is not None:
                return self.archive(decoded, name, label, depth + len(decoded.layers) + 1, inner)
            with limit_at_most(decoded.limit):
                syntax = syntax_of(shape_name)
                if syntax is not None:
                    judged = self.credential_file(path, label, syntax)
                    if judged is not None:
                        return judged
                return self.stream_file(path, format, label, in_directory=in_directory, inner=inner)
        except (UndecodedError, NestingError) as exc:
            return self.unknown(label, exc.reason)
        except TraceReadError as exc:
            return self.failed(exc, label, inner)
        except OSError as exc:
            if inner:
                return self.unknown(label, f"could not be read: {exc.strerror}")
            raise GateError(f"{name}: could not be read: {exc.strerror}") from None

    def stream_file(
        self, path: Path, format: str | None, label: str, *, in_directory: bool, inner: bool
    ) -> ShareVerdict:
        """A file that is one stream once decoded: a trace (spans and bytes) or not (bytes)."""
        assessor = SpanAssessor(profile=self.profile, known_secrets=self.known)
        try:
            read_as = _read_as(path, format, sniffed=format is None or inner)
        except TraceReadError as exc:
            return self.failed(exc, label, inner)
        if read_as == "claude-stream":
            return self.claude_file(path, label, inner)
        trace = read_as is not None
        try:
            # Every span as recorded, repeated copies included: a copy may differ from the
            # first. Judged batch by batch as the file is read, so memory follows a batch.
            if trace:
                with self.observer.judging(label, "spans", ""):
                    for batch in batched(iter_spans(path, format=read_as)):
                        assessor.assess(batch)
        except (UnrecognizedFormatError, AmbiguousFormatError):
            trace = False
        except TraceReadError as exc:
            return self.failed(exc, label, inner)
        try:
            # A reader keeps what contracts read; whatever it dropped is judged from the bytes.
            with self._bytes(label):
                recorded = assess_recorded(path, self.profile, self.known, label=label, trace=trace)
        except TraceReadError as exc:
            return self.failed(exc, label, inner)
        if not trace:
            return recorded
        return with_recorded(_labelled(assessor.verdict(), label), [recorded])

    def credential_file(self, path: Path, label: str, syntax: Any) -> ShareVerdict | None:
        """A credential file judged in its syntax (each line's fields by their keys and places,
        the rest as text); None when it is not such a file's text (too large, not UTF-8, control
        characters), to be judged as any other file."""
        with open_file(path) as stream:
            data = stream.read(MAX_CREDENTIAL_FILE + 1)
        if len(data) > MAX_CREDENTIAL_FILE:
            return None
        try:
            text = data.removeprefix(UTF8_BOM).decode("utf-8")
        except UnicodeDecodeError:
            return None
        if any(ord(c) < 32 and c not in "\t\n\r\f\b\x1b" for c in text):
            return None
        document = credential_document(text, syntax, self.profile, self.known)
        prefix = f"{label} " if label else ""
        with self._bytes(label):
            return assess(
                {f"{prefix}{key}": value for key, value in document.items()},
                profile=self.profile,
                known_secrets=self.known,
            )

    def claude_file(self, path: Path, label: str, inner: bool) -> ShareVerdict:
        """Claude Code records: judged in their own shape, as `redact` writes them back."""
        try:
            with open_file(path) as stream:
                spans, records = claude_verdicts(
                    stream,
                    str(path),
                    self.profile,
                    self.known,
                    label=label,
                    judging=self._claude_part(label),
                )
        except TraceReadError as exc:
            return self.failed(exc, label, inner)
        return with_recorded(_labelled(spans, label), [records])

    def _claude_part(self, label: str) -> Callable[[str], AbstractContextManager[None]]:
        def judging(part: str) -> AbstractContextManager[None]:
            return (
                self.observer.judging(label, "spans", "") if part == "spans" else self._bytes(label)
            )

        return judging

    def _bytes(self, label: str) -> AbstractContextManager[None]:
        return self.observer.judging(label, "bytes", pointer(label) if label else "")

    def archive(
        self, decoded: Decoded, name: str, label: str, depth: int, inner: bool
    ) -> ShareVerdict:
        verdicts: list[ShareVerdict] = []
        try:
            for item in members(decoded, name):
                verdicts.append(self.member(item, label, depth, decoded.limit))
        except TooManyMembers as exc:
            verdicts.append(self.unknown(label, exc.reason))
        except TraceReadError as exc:  # the archive, or a layer under it, is damaged
            verdicts.append(self.failed(exc, label, inner))
        return combine_verdicts(self.profile.name, verdicts)

    def member(self, item: Member, label: str, depth: int, limit: int) -> ShareVerdict:
        """One member: its name and link target are judged, and its bytes as a file of their
        own. A name that holds anything a detector finds is shown with markers in place of what
        it holds, or by its number (`#3`) when markers cannot make it clean."""
        shown = shown_name(item.name, self.profile, self.known) or f"#{item.number}"
        where = f"{label}!{shown}" if label else shown
        verdicts = [self.name(item.name, item.link, where)]
        if item.problem is not None:
            verdicts.append(self.unknown(where, f"an archive member that {item.problem}"))
        elif item.path is not None:
            verdicts.append(
                self.file(item.path, None, where, shape_name=item.name, depth=depth, limit=limit)
            )
        return combine_verdicts(self.profile.name, verdicts)

    def unknown(self, label: str, reason: str) -> ShareVerdict:
        return unreadable_verdict(self.profile, f"{pointer(label)}: {reason}")

    def failed(self, exc: TraceReadError, label: str, inner: bool) -> ShareVerdict:
        """A file that cannot be read: at the top, the path cannot be judged (exit 3); below a
        directory or inside an archive, the file is unreadable and the verdict UNKNOWN."""
        if isinstance(exc, InflateLimitError):
            return self.unknown(label, exc.reason)
        if not inner:
            raise GateError(str(exc))
        where = f"{exc.where}: " if exc.where else ""
        return self.unknown(label, f"{where}{exc.reason}")


def _opener(path: Path) -> Callable[[], IO[bytes]]:
    """Opens the file without waiting: a file swapped for a named pipe since it was listed is
    refused (OSError), never read."""

    def opened() -> IO[bytes]:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise OSError(0, "not a regular file")
            return os.fdopen(descriptor, "rb")
        except BaseException:
            os.close(descriptor)
            raise

    return opened


def _link_target(entry: _Entry) -> str:
    if entry.mode is None or not stat.S_ISLNK(entry.mode):
        return ""
    try:
        return str(entry.path.readlink())
    except OSError:
        return ""


def _read_as(path: Path, format: str | None, *, sniffed: bool) -> str | None:
    """What the file is read as, sniffed once: `format` when given (for a directory's files
    or an archive's members, `sniffed`, only when the file is a trace: --format names the
    traces among them, not their other files), else the format detected; None when the file
    is no trace (or not one format), to be judged by its bytes. Raises TraceReadError when the
    file cannot be sniffed and no format is given."""
    if not sniffed:
        return format
    # Imported here: the package's detector sniffs every input.
    from tracecheck.readers import detect_format

    try:
        detected = detect_format(path)
    except (UnrecognizedFormatError, AmbiguousFormatError):
        return None
    except TraceReadError:
        if format is None:
            raise
        return format  # read as told: the reading names what is wrong
    return format or detected


def _labelled(verdict: ShareVerdict, label: str) -> ShareVerdict:
    """The spans' verdict with every path prefixed by the file's label (`run.jsonl span:…`)."""
    if not label:
        return verdict
    return _rebuilt(verdict, lambda path: f"{label} {path}")


def _relabelled(verdict: ShareVerdict, label: str) -> ShareVerdict:
    """A name's verdict, its paths (`/0`, `/1`) replaced by the entry's place."""
    return _rebuilt(verdict, lambda path: pointer(label))


def _rebuilt(verdict: ShareVerdict, place: Callable[[str], str]) -> ShareVerdict:
    tally = FindingTally()
    for finding in verdict.findings:
        paths = list(dict.fromkeys(place(path) for path in finding.paths))
        tally.add_many(finding.category, finding.detector, finding.severity, finding.count, paths)
    entries = []
    for entry in verdict.unreadable:
        where, _, reason = entry.partition(": ")
        entries.append(f"{place(where)}: {reason}")
    return verdict_of(verdict.profile, tally, entries)
