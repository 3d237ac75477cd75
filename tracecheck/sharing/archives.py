"""The members of an archive (zip, tar), each as a file of its own, for `verify-safe` to judge.

Members are copied one at a time into a temporary file (removed before the next one), so disk
use follows the largest member; all of an archive's members together may give no more than the
archive's inflate limit (`layers.inflate_limit`), so an archive bomb (a member repeated, or a
small member inflating to gigabytes) stops at the limit. At most `MAX_MEMBERS` members are read.
A member that cannot be read (encrypted, compressed with a method that is not decoded, damaged)
is named with the reason, never skipped.
"""

from __future__ import annotations

import shutil
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

from tracecheck.errors import TraceReadError
from tracecheck.readers.layers import Decoded, InflateLimitError

__all__ = ["MAX_MEMBERS", "ArchiveDamaged", "Member", "TooManyMembers", "members"]

MAX_MEMBERS: Final = 10_000
_CHUNK: Final = 1 << 16
_ZIP_METHODS: Final = frozenset(
    {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
)
# What a damaged member or archive raises while it is read.
_DAMAGED = (zipfile.BadZipFile, tarfile.TarError, zlib.error, EOFError, OSError, ValueError)


class ArchiveDamaged(TraceReadError):
    """The archive itself cannot be read (its directory or headers are damaged)."""


class TooManyMembers(TraceReadError):
    """The archive holds more members than are read."""

    def __init__(self, source: str) -> None:
        super().__init__(
            source, f"holds more than {MAX_MEMBERS:,} members, and tracecheck reads {MAX_MEMBERS:,}"
        )


@dataclass(frozen=True, slots=True)
class Member:
    """One member: its number (from 1), its name as the archive records it (a link's target
    too), and either the file holding its bytes or why they cannot be read."""

    number: int
    name: str
    link: str
    path: Path | None
    problem: str | None


def members(decoded: Decoded, source: str) -> Iterator[Member]:
    """The members of the archive `decoded` holds, one at a time (a member's file is removed
    when the next member is taken). Raises `ArchiveDamaged`, `TooManyMembers` or
    `InflateLimitError`."""
    budget = _Budget(source, decoded.limit)
    with tempfile.TemporaryDirectory(prefix="tracecheck-archive-") as folder:
        work = Path(folder)
        if decoded.archive == "zip":
            yield from _zip_members(decoded, source, work, budget)
        else:
            yield from _tar_members(decoded, source, work, budget)


class _Budget:
    """Bytes the archive's members may still give."""

    def __init__(self, source: str, limit: int) -> None:
        self.source = source
        self.limit = limit
        self.used = 0

    def copy(self, stream: IO[bytes], target: Path) -> None:
        with target.open("wb") as out:
            while chunk := stream.read(_CHUNK):
                self.used += len(chunk)
                if self.used > self.limit:
                    raise InflateLimitError(self.source, self.limit)
                out.write(chunk)


def _zip_members(decoded: Decoded, source: str, work: Path, budget: _Budget) -> Iterator[Member]:
    with ExitStack() as stack:
        stream = stack.enter_context(decoded.open())
        if decoded.layers:  # zip reads its directory from the end: a decoded stream is spooled
            spool = work / "archive.zip"
            with spool.open("wb") as out:
                shutil.copyfileobj(stream, out, _CHUNK)
            stream = stack.enter_context(spool.open("rb"))
        try:
            archive = stack.enter_context(zipfile.ZipFile(stream))
            entries = archive.infolist()
        except _DAMAGED:
            raise ArchiveDamaged(
                source, "could not be read: it is not a readable zip archive"
            ) from None
        if len(entries) > MAX_MEMBERS:
            raise TooManyMembers(source)
        target = work / "member"
        for number, info in enumerate(entries, 1):
            if info.is_dir():
                yield Member(number, info.filename, "", None, None)
                continue
            problem = _zip_problem(info)
            if problem is None:
                try:
                    with archive.open(info) as member:
                        budget.copy(member, target)
                except InflateLimitError:
                    raise
                except (*_DAMAGED, NotImplementedError, RuntimeError):
                    problem = "is damaged or cannot be decompressed"
            yield Member(number, info.filename, "", None if problem else target, problem)
            target.unlink(missing_ok=True)


def _zip_problem(info: zipfile.ZipInfo) -> str | None:
    if info.flag_bits & 0x1:
        return "is encrypted"
    if info.compress_type not in _ZIP_METHODS:
        method = info.compress_type
        return f"is compressed with a method tracecheck does not decompress (zip method {method})"
    return None


def _tar_members(decoded: Decoded, source: str, work: Path, budget: _Budget) -> Iterator[Member]:
    with ExitStack() as stack:
        stream = stack.enter_context(decoded.open())
        try:
            # A stream, read forward once: the archive is never held or spooled whole.
            archive = stack.enter_context(tarfile.open(fileobj=stream, mode="r|"))
        except _DAMAGED:
            raise ArchiveDamaged(
                source, "could not be read: it is not a readable tar archive"
            ) from None
        yield from _tar_entries(archive, source, work / "member", budget)


def _tar_entries(
    archive: tarfile.TarFile, source: str, target: Path, budget: _Budget
) -> Iterator[Member]:
    number = 0
    while True:
        try:
            info = archive.next()
        except InflateLimitError:
            raise
        except _DAMAGED:
            raise ArchiveDamaged(
                source, "could not be read: the tar archive is damaged or cut short"
            ) from None
        if info is None:
            return
        number += 1
        if number > MAX_MEMBERS:
            raise TooManyMembers(source)
        if not info.isfile():  # directories, links, devices hold names only
            yield Member(number, info.name, info.linkname, None, None)
            continue
        problem = None
        try:
            member = archive.extractfile(info)
            if member is None:
                problem = "is damaged or cut short"
            else:
                budget.copy(member, target)
        except InflateLimitError:
            raise
        except _DAMAGED:
            problem = "is damaged or cut short"
        yield Member(number, info.name, "", None if problem else target, problem)
        target.unlink(missing_ok=True)
