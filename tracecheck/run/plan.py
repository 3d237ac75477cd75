"""How a check's inputs become tasks: by file, never by span. Each file given (or matched by a
glob) is one task; a directory's files are one task each, read with the directory's rules (only
trace files count); a large local file of records is cut by trace into parts, one task each. A
stream (standard input, a pipe a shell named `/dev/fd/63`) is copied to a file first, read by
this process only: no other process can open it."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any, NamedTuple, TypeAlias

from tracecheck.run.storage import Listing, copied_stream, is_remote, listing
from tracecheck.run.task import Unit, missing_package

__all__ = ["PART_BYTES", "Input", "NamedStream", "Planned", "plan"]

# A local file of records larger than this is read in parts of about this size, one per task
# (each part indexes the whole file, converting only its own traces' records).
PART_BYTES = 64 << 20


class NamedStream(NamedTuple):
    """An open binary stream given as an input: `source` is how it was given (`-`), `name`
    how messages and reports name it (`<stdin>`)."""

    stream: IO[bytes]
    source: str = "-"
    name: str = "<stdin>"


Input: TypeAlias = "str | os.PathLike[str] | IO[bytes] | NamedStream"


class Planned(NamedTuple):
    """One input as given, and its tasks in order; `problem` when it names nothing readable."""

    source: str
    units: tuple[Unit, ...]
    problem: str | None = None
    label: str | None = None

    @property
    def name(self) -> str:
        """The input as messages name it."""
        return self.label or self.source

    @property
    def size(self) -> int:
        return sum(unit.size for unit in self.units)


def plan(
    inputs: Sequence[Input],
    *,
    format: str | None = None,
    workers: int = 1,
    storage_options: dict[str, Any] | None = None,
    part_bytes: int = PART_BYTES,
    spool: ExitStack | None = None,
) -> list[Planned]:
    """Every input's tasks, each input once however it is spelled (a glob's matches each as an
    input of its own); a local file of records larger than `part_bytes` in parts (at most two
    per worker) when there are several workers. Streams are copied to files that `spool` removes (without one, they stay)."""
    planned: list[Planned] = []
    seen: set[str] = set()
    for given in inputs:
        stream = _stream(given)
        if stream is not None:
            planned.append(_spooled(stream, spool))
            continue
        source = os.fspath(given)  # type: ignore[arg-type]
        try:
            listings = listing(source, storage_options)
        except (OSError, ValueError, ImportError) as exc:  # unlistable, a bad URL, no backend
            planned.append(Planned(source, (), _listing_problem(source, exc)))
            continue
        except Exception as exc:  # a storage library's own error (botocore's, gcsfs's)
            if not is_remote(source):
                raise
            problem = f"{source}: cannot be listed: {type(exc).__name__}"
            planned.append(Planned(source, (), problem))
            continue
        if not listings:
            planned.append(Planned(source, (), f"{source}: matches no file"))
        for found in listings:
            key = found.source if is_remote(found.source) else os.path.realpath(found.source)
            if key in seen:
                continue
            seen.add(key)
            if found.root is None and _special(found.source):
                with open(found.source, "rb") as opened:  # noqa: PTH123 (a pipe's name)
                    named = NamedStream(opened, found.source, found.source)
                    planned.append(_spooled(named, spool))
                continue
            units = _units(_absolute(found), format, workers, part_bytes)
            planned.append(Planned(found.source, units))
    return planned


def _absolute(found: Listing) -> Listing:
    """A local listing with absolute paths, and how the caller spelled them where that differs
    (`Unit.given`): a worker of a Dask cluster starts in a working directory of its own."""
    if is_remote(found.source):
        return found
    if found.root is None:
        (file,) = found.files
        absolute = str(Path(file).absolute())
        given = ((absolute, file),) if absolute != file else ()
        return found._replace(files=(absolute,), given=given)
    spelled = str(Path(found.root))
    root = str(Path(spelled).absolute())
    files = tuple(str(Path(file).absolute()) for file in found.files)
    given = ((root + os.sep, spelled + os.sep),) if root != spelled else ()
    return found._replace(root=root, files=files, given=given)


def _units(found: Listing, format: str | None, workers: int, part_bytes: int) -> tuple[Unit, ...]:
    if found.root is not None:
        return tuple(
            Unit(found.source, found.root, (file,), size=size, given=found.given)
            for file, size in zip(found.files, found.sizes, strict=True)
        )
    (file,), (size,) = found.files, found.sizes
    # Parts let several workers share a file; one worker would only index it once per part.
    parts = min(max(1, size // part_bytes), workers * 2) if workers > 1 else 1
    if parts > 1 and not is_remote(file):
        from tracecheck.readers.by_trace import splits_by_trace

        if splits_by_trace(file, format):
            share = size // parts
            return tuple(
                Unit(found.source, None, (file,), part=(k, parts), size=share, given=found.given)
                for k in range(parts)
            )
    return (Unit(found.source, None, (file,), size=size, given=found.given),)


def _listing_problem(source: str, exc: BaseException) -> str:
    if isinstance(exc, ImportError):  # fsspec's backend for the URL is not installed
        return f"{source}: {missing_package(exc)}"
    if isinstance(exc, FileNotFoundError):
        return f"{source}: does not exist"
    if isinstance(exc, OSError):
        return f"{source}: cannot be listed: {exc.strerror or type(exc).__name__}"
    return f"{source}: is not a path or URL fsspec can open ({type(exc).__name__})"


def _stream(given: Any) -> NamedStream | None:
    """`given` as a named stream, when it is one (a bare stream is named by its `name`)."""
    if isinstance(given, NamedStream):
        return given
    if isinstance(given, (str, os.PathLike)) or not hasattr(given, "read"):
        return None
    name = getattr(given, "name", None)
    name = name if isinstance(name, str) else "<stream>"
    return NamedStream(given, name, name)


def _special(path: str) -> bool:
    """Whether `path` is a pipe, a device or a file descriptor (`/dev/fd/63`, `/dev/stdin`):
    readable once, or only by this process (`/dev/fd/N` names another file in another one)."""
    if path.startswith(("/dev/", "/proc/")):
        return True
    try:
        mode = Path(path).stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _spooled(named: NamedStream, spool: ExitStack | None) -> Planned:
    """The stream copied to a temporary file, one unit that this process reads."""
    copy, size = copied_stream(named.stream)
    if spool is not None:
        spool.callback(Path(copy).unlink, missing_ok=True)
    unit = Unit(named.source, None, (copy,), size=size, label=named.name, spooled=True)
    return Planned(named.source, (unit,), label=named.name)
