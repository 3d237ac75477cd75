"""Read any supported trace input into spans, grouped by trace id (inputs.md)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from tracecheck.errors import TraceReadError
from tracecheck.readers.by_trace import iter_traces, map_traces
from tracecheck.readers.common import collector_paused
from tracecheck.readers.grouping import Located, group_located, without_files
from tracecheck.readers.inputs import (
    Source,
    bytes_input,
    detect_format,
    name_of,
    read_file,
    read_one,
    read_trace_file,
    trace_files,
)
from tracecheck.readers.otel_sdk import spans_from_otel
from tracecheck.readers.sniff import FORMATS
from tracecheck.spans import ReadNote, Span, Trace

__all__ = [
    "FORMATS",
    "Source",
    "detect_format",
    "group_traces",
    "iter_spans",
    "iter_traces",
    "map_traces",
    "read_traces",
    "spans_from_otel",
]


def read_traces(
    source: Source,
    *,
    format: str | None = None,
    failures: list[TraceReadError] | None = None,
) -> list[Trace]:
    """Every trace in `source` (a file, a directory, or the bytes of one file).

    One `Trace` per trace id, in first-seen order, each holding its spans in read order and
    the notes the reader made about them. A span recorded more than once (an exporter's retry,
    the same run saved twice in a directory) is kept once, with a note. Raises
    `TraceReadError` for input it cannot read; given a `failures` list, a directory's files
    that cannot be read are listed there instead and the others read.
    """
    notes: list[ReadNote] = []
    with collector_paused():
        return group_located(iter_located(source, format, notes, failures), notes)


def iter_spans(
    source: Source,
    *,
    format: str | None = None,
    notes: list[ReadNote] | None = None,
    failures: list[TraceReadError] | None = None,
) -> Iterator[Span]:
    """Spans of `source` as they are read: record-oriented files are streamed record by record.

    Notes about spans that were kept but not trusted (missing ids, an end before the start)
    are appended to `notes` when it is given. With a `failures` list, a directory's files that
    cannot be read (or whose format is ambiguous) are appended to it and skipped; each file is
    then read whole before its spans are given, so a file that breaks half-way gives none.
    """
    sink = notes if notes is not None else []
    return without_files(iter_located(source, format, sink, failures))


def iter_located(
    source: Source,
    format: str | None,
    notes: list[ReadNote],
    failures: list[TraceReadError] | None = None,
) -> Iterator[Located]:
    """`iter_spans`, each span with the file it was read from: the source as given for a file,
    `<bytes>` for bytes, the file below the directory for a directory."""
    check_format(source, format)
    if isinstance(source, bytes):
        for span in read_one("<bytes>", *bytes_input(source), format, notes):
            yield "<bytes>", span
        return
    path = Path(source)
    if path.is_dir():
        yield from _read_directory(path, format, notes, failures)
    elif path.exists():
        name = name_of(source)
        for span in read_file(path, format, notes):
            yield name, span
    else:
        raise TraceReadError(str(path), "no such file or directory")


def check_format(source: Source, format: str | None) -> None:
    """Raise for a `--format` no reader has."""
    if format is not None and format not in FORMATS:
        raise TraceReadError(
            name_of(source), f"unknown format {format!r} (known: {', '.join(FORMATS)})"
        )


def group_traces(
    spans: Iterable[Span], notes: Iterable[ReadNote] = (), source: str = "<spans>"
) -> list[Trace]:
    """Spans grouped by trace id in first-seen order, each trace with the notes about it.

    A span id seen again in the same trace is the same span recorded twice: the first copy is
    kept and the repeat noted (counting it would double its calls and tokens). A note that
    names no trace present (there is none yet) rides with every trace. `source` names the
    input the spans came from (each trace's `sources`, and the note about repeats).
    """
    return group_located(((source, span) for span in spans), notes)


def _read_directory(
    root: Path,
    format: str | None,
    notes: list[ReadNote],
    failures: list[TraceReadError] | None,
) -> Iterator[Located]:
    for path, chosen in trace_files(root, format, failures):
        name = str(path)
        if failures is None:
            for span in read_trace_file(path, chosen, notes):
                yield name, span
            continue
        own_notes: list[ReadNote] = []
        try:
            spans = list(read_trace_file(path, chosen, own_notes))
        except TraceReadError as exc:
            failures.append(exc)
            continue
        notes.extend(own_notes)
        for span in spans:
            yield name, span
