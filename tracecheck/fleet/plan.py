"""How a fleet's inputs become tasks: by file, never by span. Each file given (or matched by a
glob) is one task; a directory's files are one task each, read with the directory's rules (only
trace files count); a large local file of records is cut by trace into parts, one task each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tracecheck.fleet.storage import is_remote, listing
from tracecheck.fleet.task import Unit, missing_package

__all__ = ["PART_BYTES", "Planned", "plan"]

# A local file of records larger than this is read in parts of about this size, one per task
# (each part indexes the whole file, converting only its own traces' records).
PART_BYTES = 64 << 20


@dataclass(frozen=True, slots=True)
class Planned:
    """One input as given, and its tasks in order; `problem` when it names nothing readable."""

    source: str
    units: tuple[Unit, ...]
    problem: str | None = None


def plan(
    sources: Sequence[str],
    *,
    format: str | None = None,
    workers: int = 1,
    storage_options: dict[str, Any] | None = None,
    part_bytes: int = PART_BYTES,
) -> list[Planned]:
    """Every input's tasks, each input once (a glob's matches each as an input of its own); a
    local file of records larger than `part_bytes` in parts (at most two per worker)."""
    planned: list[Planned] = []
    seen: set[str] = set()
    for source in sources:
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
            if found.source in seen:
                continue
            seen.add(found.source)
            planned.append(Planned(found.source, _units(found, format, workers, part_bytes)))
    return planned


def _units(found: Any, format: str | None, workers: int, part_bytes: int) -> tuple[Unit, ...]:
    if found.root is not None:
        return tuple(
            Unit(found.source, found.root, (file,), size=size)
            for file, size in zip(found.files, found.sizes, strict=True)
        )
    (file,), (size,) = found.files, found.sizes
    parts = min(max(1, size // part_bytes), max(1, workers) * 2)
    if parts > 1 and not is_remote(file):
        from tracecheck.readers.by_trace import splits_by_trace

        if splits_by_trace(file, format):
            share = size // parts
            return tuple(
                Unit(found.source, None, (file,), part=(k, parts), size=share) for k in range(parts)
            )
    return (Unit(found.source, None, (file,), size=size),)


def _listing_problem(source: str, exc: BaseException) -> str:
    if isinstance(exc, ImportError):  # fsspec's backend for the URL is not installed
        return f"{source}: {missing_package(exc)}"
    if isinstance(exc, FileNotFoundError):
        return f"{source}: does not exist"
    if isinstance(exc, OSError):
        return f"{source}: cannot be listed: {exc.strerror or type(exc).__name__}"
    return f"{source}: is not a path or URL fsspec can open ({type(exc).__name__})"
