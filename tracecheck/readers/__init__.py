"""Read any supported trace input into spans, grouped by trace id (inputs.md)."""

from __future__ import annotations

import gzip
import io
import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, cast

from tracecheck.errors import AmbiguousFormatError, TraceReadError, UnrecognizedFormatError
from tracecheck.readers.claude import read_claude_stream
from tracecheck.readers.common import ReadContext, collector_paused
from tracecheck.readers.flat import read_flat_json, read_flat_jsonl
from tracecheck.readers.otel_sdk import spans_from_otel
from tracecheck.readers.otlp_json import read_otlp_json, read_otlp_jsonl
from tracecheck.readers.otlp_proto import (
    looks_like_proto_message,
    looks_like_proto_stream,
    read_otlp_proto,
    read_otlp_proto_stream,
)
from tracecheck.readers.sniff import FORMATS, HEAD_SIZE, json_layout, sniff
from tracecheck.readers.tracers import TRACER_READERS
from tracecheck.spans import ReadNote, Span, Trace

__all__ = [
    "FORMATS",
    "Source",
    "detect_format",
    "group_traces",
    "iter_spans",
    "read_traces",
    "spans_from_otel",
]

Source = str | os.PathLike[str] | bytes
_GZIP_MAGIC = b"\x1f\x8b"
_UTF8_BOM = b"\xef\xbb\xbf"
# Errors a damaged input can raise from the standard library while it is being read.
_INPUT_ERRORS = (OSError, EOFError, zlib.error, UnicodeDecodeError, RecursionError, OverflowError)


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
        spans = iter_spans(source, format=format, notes=notes, failures=failures)
        return group_traces(spans, notes, _name(source))


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
    if format is not None and format not in FORMATS:
        raise TraceReadError(
            _name(source), f"unknown format {format!r} (known: {', '.join(FORMATS)})"
        )
    sink = notes if notes is not None else []
    if isinstance(source, bytes):
        yield from _read_one("<bytes>", *_bytes_input(source), format, sink)
        return
    path = Path(source)
    if path.is_dir():
        yield from _read_directory(path, format, sink, failures)
    elif path.exists():
        yield from _read_file(path, format, sink)
    else:
        raise TraceReadError(str(path), "no such file or directory")


def detect_format(source: Source) -> str:
    """The format of one file (or bytes), raising when none or several readers recognise it."""
    name = _name(source)
    try:
        if isinstance(source, bytes):
            opener, size = _bytes_input(source)
        else:
            path = Path(source)
            if not path.exists():
                raise TraceReadError(name, "no such file or directory")
            opener, size = (lambda: _open(path)), None if _is_gzip(path) else path.stat().st_size
        with opener() as stream:
            head = stream.read(HEAD_SIZE)
    except _INPUT_ERRORS as exc:
        raise TraceReadError(name, f"could not be read: {exc}") from None
    return _detect(name, head, len(head) if size is None and len(head) < HEAD_SIZE else size)


def group_traces(
    spans: Iterable[Span], notes: Iterable[ReadNote] = (), source: str = "<spans>"
) -> list[Trace]:
    """Spans grouped by trace id in first-seen order, each trace with the notes about it.

    A span id seen again in the same trace is the same span recorded twice: the first copy is
    kept and the repeat noted (counting it would double its calls and tokens). A note that
    names no trace present (there is none yet) rides with every trace.
    """
    groups: dict[str | None, list[Span]] = {}
    first_copy: dict[tuple[str | None, str], Span] = {}
    repeats: dict[tuple[str | None, str], list[Span]] = {}
    for span in spans:
        if span.span_id is not None:
            key = (span.trace_id, span.span_id)
            first = first_copy.setdefault(key, span)
            if first is not span:
                repeats.setdefault(key, []).append(span)
                continue
        group = groups.get(span.trace_id)
        if group is None:
            groups[span.trace_id] = group = []
        group.append(span)
    all_notes = [*notes, *_repeat_notes(repeats, first_copy, source)]
    by_trace: dict[str | None, list[ReadNote]] = {}
    unplaced: list[ReadNote] = []
    for note in all_notes:
        (by_trace.setdefault(note.trace_id, []) if note.trace_id in groups else unplaced).append(
            note
        )
    return [
        Trace(trace_id, tuple(group), (*by_trace.get(trace_id, ()), *unplaced))
        for trace_id, group in groups.items()
    ]


def _repeat_notes(
    repeats: dict[tuple[str | None, str], list[Span]],
    first_copy: dict[tuple[str | None, str], Span],
    source: str,
) -> Iterator[ReadNote]:
    """One note per trace that holds repeated spans, naming the first few."""
    by_trace: dict[str | None, list[str]] = {}
    differing: set[str | None] = set()
    for (trace_id, span_id), copies in repeats.items():
        by_trace.setdefault(trace_id, []).append(span_id)
        if any(copy != first_copy[trace_id, span_id] for copy in copies):
            differing.add(trace_id)
    for trace_id, span_ids in by_trace.items():
        how = " (not all copies alike)" if trace_id in differing else ""
        if len(span_ids) == 1:
            what = f"span {span_ids[0]} is recorded more than once{how}"
        else:
            more = f", and {len(span_ids) - 3} more" if len(span_ids) > 3 else ""
            named = ", ".join(span_ids[:3]) + more
            what = f"{len(span_ids)} spans are recorded more than once{how}: {named}"
        yield ReadNote(
            source, f"trace {trace_id}", f"{what}; only the first copy is kept", trace_id
        )


def _read_directory(
    root: Path,
    format: str | None,
    notes: list[ReadNote],
    failures: list[TraceReadError] | None,
) -> Iterator[Span]:
    found = False
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        try:  # a directory holds other files too (READMEs, logs): read only trace files
            detected = detect_format(path)
        except UnrecognizedFormatError:
            continue
        except AmbiguousFormatError as exc:
            if format is None:
                if failures is None:
                    raise
                failures.append(exc)
                found = True
                continue
            detected = format
        found = True
        if failures is None:
            yield from _read_file(path, format or detected, notes)
            continue
        own_notes: list[ReadNote] = []
        try:
            spans = list(_read_file(path, format or detected, own_notes))
        except TraceReadError as exc:
            failures.append(exc)
            continue
        notes.extend(own_notes)
        yield from spans
    if not found:
        raise UnrecognizedFormatError(str(root), "holds no trace file this command reads")


def _read_file(path: Path, format: str | None, notes: list[ReadNote]) -> Iterator[Span]:
    try:
        size = None if _is_gzip(path) else path.stat().st_size
    except _INPUT_ERRORS as exc:
        raise TraceReadError(str(path), f"could not be read: {exc}") from None
    yield from _read_one(str(path), lambda: _open(path), size, format, notes)


def _read_one(
    name: str,
    opener: Callable[[], IO[bytes]],
    size: int | None,
    format: str | None,
    notes: list[ReadNote],
) -> Iterator[Span]:
    ctx = ReadContext(name, notes)
    try:
        with opener() as stream:
            head = stream.read(HEAD_SIZE)
            if size is None and len(head) < HEAD_SIZE:
                size = len(head)
            chosen = format or _detect(name, head, size)
            # JSON parsers refuse a byte-order mark that sniffing allowed: start after it.
            stream.seek(3 if head.startswith(_UTF8_BOM) and chosen != "otlp-proto" else 0)
            yield from _READERS[chosen](stream, head, size, ctx)
    except TraceReadError:
        raise
    except _INPUT_ERRORS as exc:
        raise TraceReadError(name, f"could not be read: {exc}") from None


def _detect(name: str, head: bytes, size: int | None) -> str:
    if not head:
        raise UnrecognizedFormatError(name, "is empty")
    formats = sniff(head, size)
    if not formats:
        raise UnrecognizedFormatError(name, "is not a trace this command reads")
    if len(formats) > 1:
        raise AmbiguousFormatError(name, formats)
    return formats[0]


def _layout(stream: IO[bytes], head: bytes) -> str:
    """`json_layout` of the input, reading on when its first line is longer than the head."""
    if len(head) < HEAD_SIZE or b"\n" in head.lstrip(b"\xef\xbb\xbf \t\r\n"):
        return json_layout(head)
    start = stream.tell()
    for line in stream:  # a first line longer than the head: see whether another follows
        if line.strip():
            break
    layout = "lines" if stream.read(HEAD_SIZE).strip() else "document"
    stream.seek(start)
    return layout


def _read_otlp_json(stream: IO[bytes], head: bytes, size: int | None, ctx: ReadContext) -> Any:
    if _layout(stream, head) == "lines":
        return read_otlp_jsonl(stream, ctx)
    return read_otlp_json(stream.read(), ctx)


def _read_otlp_jsonl(stream: IO[bytes], head: bytes, size: int | None, ctx: ReadContext) -> Any:
    return read_otlp_jsonl(stream, ctx)


def _read_otlp_proto(stream: IO[bytes], head: bytes, size: int | None, ctx: ReadContext) -> Any:
    # A message starts with tag 0x0A; a stream whose first length starts with that byte would
    # announce a record of at least 160 MiB, so when both readings fit, the message wins.
    if looks_like_proto_stream(head, size) and not looks_like_proto_message(head, size):
        return read_otlp_proto_stream(stream, ctx)
    return read_otlp_proto(stream.read(), ctx)


def _read_spans(stream: IO[bytes], head: bytes, size: int | None, ctx: ReadContext) -> Any:
    if _layout(stream, head) == "lines":
        return read_flat_jsonl(stream, ctx)
    return read_flat_json(stream.read(), ctx)


def _read_claude(stream: IO[bytes], head: bytes, size: int | None, ctx: ReadContext) -> Any:
    return read_claude_stream(stream, ctx)


_READERS: dict[str, Callable[[IO[bytes], bytes, int | None, ReadContext], Iterable[Span]]] = {
    "otlp-json": _read_otlp_json,
    "otlp-jsonl": _read_otlp_jsonl,
    "otlp-proto": _read_otlp_proto,
    "spans": _read_spans,
    "claude-stream": _read_claude,
    **TRACER_READERS,
}


def _is_gzip(path: Path) -> bool:
    with path.open("rb") as raw:
        return raw.read(2) == _GZIP_MAGIC


def _open(path: Path) -> IO[bytes]:
    """The file's bytes, decompressed on the fly when it is gzip (judged by magic bytes)."""
    if _is_gzip(path):
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb", buffering=1 << 20)


def _bytes_input(data: bytes) -> tuple[Callable[[], IO[bytes]], int | None]:
    """An opener for in-memory input and its size (None when gzip: unknown until read)."""
    if data[:2] == _GZIP_MAGIC:
        return (lambda: cast(IO[bytes], gzip.GzipFile(fileobj=io.BytesIO(data)))), None
    return (lambda: io.BytesIO(data)), len(data)


def _name(source: Source) -> str:
    return "<bytes>" if isinstance(source, bytes) else str(source)
