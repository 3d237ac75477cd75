"""The share-safety verdict of a path as `verify-safe` gives it: every file, every layer of
compression or encoding, every member of an archive, failing closed on what it cannot read.

A file is decoded (`readers.layers`: gzip, bzip2, xz, nested, BOM-marked UTF-16/32 text); a
trace is judged by its spans and by its bytes (`recorded_bytes`), any other file by its bytes
(JSON, JSON Lines, text). An archive's members are judged one by one, each named by its place
in the archive (`bundle.zip!traces/run.jsonl`), and each member's name is judged too. What
cannot be read is an unreadable entry naming the reason, so the verdict is UNKNOWN, never SAFE:
binary data that is not a trace, compression that is not decoded, an encrypted member, more
layers than are followed, a file that inflates past its limit.

A file given on the command line (or found in a directory given there) that cannot be read at
all (missing, a damaged trace) raises `GateError`: exit 3, as before. The same fault inside an
archive is an unreadable entry of the archive's verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from redact import KnownSecrets, ShareVerdict, assess
from redact.model import FindingTally, combine_verdicts, verdict_of
from redact.profiles import Profile
from redact.spans import SpanAssessor
from tracecheck.errors import AmbiguousFormatError, TraceReadError, UnrecognizedFormatError
from tracecheck.readers import iter_spans
from tracecheck.readers.inputs import open_file
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
from tracecheck.sharing.recorded_bytes import (
    assess_recorded,
    pointer,
    unreadable_verdict,
    with_recorded,
)
from tracecheck.sharing.recorded_claude import claude_verdicts
from tracecheck.sharing.staged import batched

__all__ = ["GateError", "verdict_of_path"]


class GateError(Exception):
    """A path that cannot be judged at all; the message names it (`path: reason`)."""


def verdict_of_path(
    path: str, format: str | None, profile: Profile, known: KnownSecrets
) -> ShareVerdict:
    """The verdict of a file or of every file below a directory (hidden ones left out, as
    readers leave them out)."""
    gate = _Gate(profile, known)
    root = Path(path)
    if root.is_dir():
        files = [
            file
            for file in sorted(p for p in root.rglob("*") if p.is_file())
            if not any(part.startswith(".") for part in file.relative_to(root).parts)
        ]
        if not files:
            raise GateError(f"{path}: holds no files")
        return combine_verdicts(
            profile.name,
            (
                gate.file(file, format, str(file.relative_to(root)), in_directory=True)
                for file in files
            ),
        )
    if not root.is_file():
        raise GateError(f"{path}: no such file or directory")
    return gate.file(root, format, "")


class _Gate:
    def __init__(self, profile: Profile, known: KnownSecrets) -> None:
        self.profile = profile
        self.known = known

    def file(
        self,
        path: Path,
        format: str | None,
        label: str,
        *,
        in_directory: bool = False,
        depth: int = 0,
        limit: int | None = None,
    ) -> ShareVerdict:
        """One file: `label` names it in findings (empty for the path given); `depth` counts
        the layers and archives it lies in; a member is bounded by its archive's `limit`."""
        member = limit is not None
        name = label or str(path)
        try:
            if limit is None:
                decoded = decode(name, lambda: path.open("rb"), path.stat().st_size, depth=depth)
            else:
                decoded = decode_within(name, lambda: path.open("rb"), limit, depth=depth)
        except (UndecodedError, NestingError) as exc:
            return self.unknown(label, exc.reason)
        except TraceReadError as exc:
            return self.failed(exc, label, member)
        except OSError as exc:
            raise GateError(f"{name}: could not be read: {exc.strerror}") from None
        if decoded.archive is not None:
            return self.archive(decoded, name, label, depth + len(decoded.layers) + 1, member)
        with limit_at_most(decoded.limit):
            return self.stream_file(path, format, label, in_directory=in_directory, member=member)

    def stream_file(
        self, path: Path, format: str | None, label: str, *, in_directory: bool, member: bool
    ) -> ShareVerdict:
        """A file that is one stream once decoded: a trace (spans and bytes) or not (bytes)."""
        assessor = SpanAssessor(profile=self.profile, known_secrets=self.known)
        try:
            read_as = _read_as(path, format, sniffed=format is None or in_directory or member)
        except TraceReadError as exc:
            return self.failed(exc, label, member)
        if read_as == "claude-stream":
            return self.claude_file(path, label, member)
        trace = read_as is not None
        try:
            # Every span as recorded, repeated copies included: a copy may differ from the
            # first. Judged batch by batch as the file is read, so memory follows a batch.
            if trace:
                for batch in batched(iter_spans(path, format=read_as)):
                    assessor.assess(batch)
        except (UnrecognizedFormatError, AmbiguousFormatError):
            trace = False
        except TraceReadError as exc:
            return self.failed(exc, label, member)
        try:
            # A reader keeps what contracts read; whatever it dropped is judged from the bytes.
            recorded = assess_recorded(path, self.profile, self.known, label=label, trace=trace)
        except TraceReadError as exc:
            return self.failed(exc, label, member)
        if not trace:
            return recorded
        return with_recorded(_labelled(assessor.verdict(), label), [recorded])

    def claude_file(self, path: Path, label: str, member: bool) -> ShareVerdict:
        """Claude Code records: judged in their own shape, as `redact` writes them back."""
        try:
            with open_file(path) as stream:
                spans, records = claude_verdicts(
                    stream, str(path), self.profile, self.known, label=label
                )
        except TraceReadError as exc:
            return self.failed(exc, label, member)
        except OSError as exc:
            raise GateError(f"{label or path}: could not be read: {exc.strerror}") from None
        return with_recorded(_labelled(spans, label), [records])

    def archive(
        self, decoded: Decoded, name: str, label: str, depth: int, member: bool
    ) -> ShareVerdict:
        verdicts: list[ShareVerdict] = []
        try:
            for item in members(decoded, name):
                verdicts.append(self.member(item, label, depth, decoded.limit))
        except TooManyMembers as exc:
            verdicts.append(self.unknown(label, exc.reason))
        except TraceReadError as exc:  # the archive, or a layer under it, is damaged
            verdicts.append(self.failed(exc, label, member))
        return combine_verdicts(self.profile.name, verdicts)

    def member(self, item: Member, label: str, depth: int, limit: int) -> ShareVerdict:
        """One member: its name and link target are judged, and its bytes as a file of their
        own. A name that holds anything a detector finds is not printed: the member is named
        by its number instead."""
        names = assess([item.name, item.link], profile=self.profile, known_secrets=self.known)
        shown = item.name if not names.findings and not names.unreadable else f"#{item.number}"
        where = f"{label}!{shown}" if label else shown
        verdicts = [_relabelled(names, f"{where} (name)")]
        if item.problem is not None:
            verdicts.append(self.unknown(where, f"an archive member that {item.problem}"))
        elif item.path is not None:
            verdicts.append(self.file(item.path, None, where, depth=depth, limit=limit))
        return combine_verdicts(self.profile.name, verdicts)

    def unknown(self, label: str, reason: str) -> ShareVerdict:
        return unreadable_verdict(self.profile, f"{pointer(label)}: {reason}")

    def failed(self, exc: TraceReadError, label: str, member: bool) -> ShareVerdict:
        """A file that cannot be read: at the top, the path cannot be judged (exit 3); inside
        an archive, the member is unreadable and the archive UNKNOWN."""
        if isinstance(exc, InflateLimitError):
            return self.unknown(label, exc.reason)
        if not member:
            raise GateError(str(exc))
        where = f"{exc.where}: " if exc.where else ""
        return self.unknown(label, f"{where}{exc.reason}")


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
    """A member name's verdict, its paths (`/0`, `/1`) replaced by the member's place."""
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
