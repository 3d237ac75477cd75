"""Inputs as the readers see them: files (compressed, encoded or not), bytes, the trace files of
a directory, each opened, decoded (`layers`), sniffed and handed to the reader of its format.

Shared by `read_traces` (every span in one pass) and the streaming reader (`by_trace`), so that
both open, sniff and name an input the same way.
"""

from __future__ import annotations

import io
import lzma
import os
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from tracecheck.errors import AmbiguousFormatError, TraceReadError, UnrecognizedFormatError
from tracecheck.readers.common import ReadContext
from tracecheck.readers.layers import PROBE_SIZE, layer_of, open_decoded
from tracecheck.readers.shapes import looks_like_proto_message, looks_like_proto_stream
from tracecheck.readers.sniff import HEAD_SIZE, json_layout, sniff
from tracecheck.readers.tracers import TRACER_READERS
from tracecheck.spans import ReadNote, Span

__all__ = [
    "GZIP_MAGIC",
    "INPUT_ERRORS",
    "UTF8_BOM",
    "Opener",
    "Source",
    "bytes_input",
    "detect",
    "detect_format",
    "directory_files",
    "file_size",
    "is_encoded",
    "is_gzip",
    "is_proto_stream",
    "layout",
    "name_of",
    "open_file",
    "read_file",
    "read_one",
    "read_trace_file",
    "trace_files",
]

Source = str | os.PathLike[str] | bytes
Opener = Callable[[], IO[bytes]]
GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
# Errors a damaged input can raise from the standard library while it is being read.
INPUT_ERRORS = (
    OSError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    UnicodeDecodeError,
    RecursionError,
    OverflowError,
)


def name_of(source: Source) -> str:
    return "<bytes>" if isinstance(source, bytes) else str(source)


def directory_files(root: Path) -> list[Path]:
    """Every file below `root` that may hold traces: sorted, recursive, hidden ones left out."""
    return [
        path
        for path in sorted(p for p in root.rglob("*") if p.is_file())
        if not any(part.startswith(".") for part in path.relative_to(root).parts)
    ]


def trace_files(
    root: Path,
    format: str | None,
    failures: list[TraceReadError] | None,
    share: Sequence[Path] | None = None,
) -> Iterator[tuple[Path, str]]:
    """Each trace file below `root` (`directory_files`) with the format it is read as. A
    directory holds other files too (READMEs, logs): only trace files are given. A file whose
    format is ambiguous raises, or with a `failures` list is listed there.

    With a `share` (some of `directory_files(root)`, in order), only those files are looked at,
    and a share holding no trace file gives none instead of raising: the other shares may."""
    found = share is not None
    for path in directory_files(root) if share is None else share:
        try:
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
        yield path, format or detected
    if not found:
        raise UnrecognizedFormatError(str(root), "holds no trace file this command reads")


def read_trace_file(path: Path, format: str, notes: list[ReadNote]) -> Iterator[Span]:
    """The spans of one trace file of a directory, read as `format` (every directory read,
    streaming or not, reads its files through here)."""
    if format == "claude-stream":  # Claude reader's hook: a session with its sub-agents' files
        from tracecheck.readers.claude.sessions import read_directory_file

        return read_directory_file(path, notes)
    return read_file(path, format, notes)


def read_file(path: Path, format: str | None, notes: list[ReadNote]) -> Iterator[Span]:
    size = file_size(path)
    yield from read_one(str(path), lambda: open_file(path), size, format, notes)


def file_size(path: Path) -> int | None:
    """The file's size, or None when it is compressed or encoded (unknown until it is read)."""
    try:
        return None if is_encoded(path) else path.stat().st_size
    except INPUT_ERRORS as exc:
        raise TraceReadError(str(path), f"could not be read: {exc}") from None


def read_one(
    name: str,
    opener: Opener,
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
            chosen = format or detect(name, head, size)
            stream.seek(start_of(head, chosen))
            yield from _READERS[chosen](stream, head, size, ctx)
    except TraceReadError:
        raise
    except INPUT_ERRORS as exc:
        raise TraceReadError(name, f"could not be read: {exc}") from None


def detect_format(source: Source) -> str:
    """The format of one file (or bytes), raising when none or several readers recognise it."""
    name = name_of(source)
    try:
        if isinstance(source, bytes):
            opener, size = bytes_input(source)
        else:
            path = Path(source)
            if not path.exists():
                raise TraceReadError(name, "no such file or directory")
            opener, size = (lambda: open_file(path)), file_size(path)
        with opener() as stream:
            head = stream.read(HEAD_SIZE)
    except INPUT_ERRORS as exc:
        raise TraceReadError(name, f"could not be read: {exc}") from None
    return detect(name, head, len(head) if size is None and len(head) < HEAD_SIZE else size)


def start_of(head: bytes, format: str) -> int:
    """Where reading starts: JSON parsers refuse a byte-order mark that sniffing allowed."""
    return 3 if head.startswith(UTF8_BOM) and format != "otlp-proto" else 0


def detect(name: str, head: bytes, size: int | None) -> str:
    if not head:
        raise UnrecognizedFormatError(name, "is empty")
    formats = sniff(head, size)
    if not formats:
        raise UnrecognizedFormatError(name, "is not a trace this command reads")
    if len(formats) > 1:
        raise AmbiguousFormatError(name, formats)
    return formats[0]


def layout(stream: IO[bytes], head: bytes) -> str:
    """`json_layout` of the input, reading on when its first line is longer than the head."""
    if len(head) < HEAD_SIZE or b"\n" in head.lstrip(b"\xef\xbb\xbf \t\r\n"):
        return json_layout(head)
    start = stream.tell()
    for line in stream:  # a first line longer than the head: see whether another follows
        if line.strip():
            break
    found = "lines" if stream.read(HEAD_SIZE).strip() else "document"
    stream.seek(start)
    return found


def is_proto_stream(head: bytes, size: int | None) -> bool:
    # A message starts with tag 0x0A; a stream whose first length starts with that byte would
    # announce a record of at least 160 MiB, so when both readings fit, the message wins.
    return looks_like_proto_stream(head, size) and not looks_like_proto_message(head, size)


# Each format's reader is imported when a file of that format is read: `check` on an OTLP
# file loads no protobuf, flat-span, Claude Code or other tracer's reader.


def _read_otlp_json(stream: IO[bytes], head: bytes, size: int | None, ctx: ReadContext) -> Any:
    from tracecheck.readers.otlp_json import read_otlp_json, read_otlp_jsonl

    if layout(stream, head) == "lines":
        return read_otlp_jsonl(stream, ctx)
    return read_otlp_json(stream.read(), ctx)


def _read_otlp_jsonl(stream: IO[bytes], head: bytes, size: int | None, ctx: ReadContext) -> Any:
    from tracecheck.readers.otlp_json import read_otlp_jsonl

    return read_otlp_jsonl(stream, ctx)


def _read_otlp_proto(stream: IO[bytes], head: bytes, size: int | None, ctx: ReadContext) -> Any:
    from tracecheck.readers.otlp_proto import read_otlp_proto, read_otlp_proto_stream

    if is_proto_stream(head, size):
        return read_otlp_proto_stream(stream, ctx)
    return read_otlp_proto(stream.read(), ctx)


def _read_spans(stream: IO[bytes], head: bytes, size: int | None, ctx: ReadContext) -> Any:
    from tracecheck.readers.flat import read_flat_json, read_flat_jsonl

    if layout(stream, head) == "lines":
        return read_flat_jsonl(stream, ctx)
    return read_flat_json(stream.read(), ctx)


def _read_claude(stream: IO[bytes], head: bytes, size: int | None, ctx: ReadContext) -> Any:
    from tracecheck.readers.claude import read_claude_stream

    return read_claude_stream(stream, ctx)


_READERS: dict[str, Callable[[IO[bytes], bytes, int | None, ReadContext], Iterable[Span]]] = {
    "otlp-json": _read_otlp_json,
    "otlp-jsonl": _read_otlp_jsonl,
    "otlp-proto": _read_otlp_proto,
    "spans": _read_spans,
    "claude-stream": _read_claude,
    **TRACER_READERS,
}


def is_gzip(path: Path) -> bool:
    with path.open("rb") as raw:
        return raw.read(2) == GZIP_MAGIC


def is_encoded(path: Path) -> bool:
    """True when the file's bytes are not read as they lie: compressed, UTF-16/32 text, an
    archive, or a compression that is not decoded (`layers`)."""
    with path.open("rb") as raw:
        return layer_of(raw.read(PROBE_SIZE)) is not None


def open_file(path: Path) -> IO[bytes]:
    """The file's bytes, decoded on the fly when it is compressed or UTF-16/32 text (judged by
    its first bytes; `layers` bounds what decoding may give)."""
    if not is_encoded(path):
        return path.open("rb", buffering=1 << 20)
    size = path.stat().st_size
    return open_decoded(str(path), lambda: path.open("rb", buffering=1 << 16), size)


def bytes_input(data: bytes) -> tuple[Opener, int | None]:
    """An opener for in-memory input and its size (None when encoded: unknown until read)."""
    if layer_of(data[:PROBE_SIZE]) is not None:
        return (lambda: open_decoded("<bytes>", lambda: io.BytesIO(data), len(data))), None
    return (lambda: io.BytesIO(data)), len(data)
