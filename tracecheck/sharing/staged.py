"""`redact` and `verify-safe` over a file read record by record: spans in batches, the redacted
output written batch by batch to a staging file, handed over only once the whole file is judged
safe (nothing is written otherwise). Memory follows a batch, not the file.

The output is byte for byte what encoding every span at once gives: a layout that is a sequence
of records (OTLP JSON Lines, the Collector's proto stream, flat rows one per line) is written a
batch at a time, batches cut where `writers.layout` cuts them; a JSON array of flat rows is
written element by element; any other layout (one document) is encoded whole at the end, as
before (a document was one record when it was read, too).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import IO

from tracecheck.spans import Span
from tracecheck.writers.layout import Layout, encode

__all__ = ["BATCH", "StagedOutput", "StreamEncoder", "batched"]

# Spans per batch: the writers' batch (512 spans per OTLP request), so that each batch is one
# line of OTLP JSON Lines or one record of a proto stream, where encoding all spans puts them.
BATCH = 512
# Layouts that are their records one after another: a batch encodes to its own records.
_RECORDS = frozenset({("otlp-jsonl", ""), ("otlp-proto", "stream"), ("spans", "lines")})


def batched(spans: Iterable[Span], size: int = BATCH) -> Iterator[list[Span]]:
    iterator = iter(spans)
    while batch := list(islice(iterator, size)):
        yield batch


class StagedOutput:
    """Bytes written to a temporary file, then delivered to a path or standard output in one go
    (gzip-compressed on the way, as `gzip.compress(data, mtime=0)` would, when `gzipped`)."""

    def __init__(self, gzipped: bool) -> None:
        # Closed by `close`: the staging file lives while the whole input is read.
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="tracecheck-redacted-")  # noqa: SIM115
        self._gzipped = gzipped

    def write(self, data: bytes) -> None:
        self._file.write(data)

    def staged(self) -> IO[bytes]:
        """The bytes written so far, uncompressed, from their start (to judge them)."""
        self._file.flush()
        self._file.seek(0)
        return self._file

    def deliver(self, target: str) -> None:
        """Write the staged bytes to `target` (`-` for standard output); raises OSError."""
        source = self.staged()
        if target == "-":
            self._copy(source, sys.stdout.buffer)
            sys.stdout.flush()
            return
        with Path(target).open("wb") as out:
            self._copy(source, out)

    def _copy(self, source: IO[bytes], target: IO[bytes]) -> None:
        if not self._gzipped:
            shutil.copyfileobj(source, target)
            return
        # zlib's gzip wrapper with mtime 0 and level 9: what gzip.compress(..., mtime=0) does.
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
        while chunk := source.read(1 << 20):
            target.write(compressor.compress(chunk))
        target.write(compressor.flush())

    def close(self) -> None:
        self._file.close()


class StreamEncoder:
    """The spans of a layout, encoded batch by batch where the layout allows it."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._kind = (layout.format, layout.variant)
        self._held: list[Span] = []  # a one-document layout: every span, encoded at the end
        self._elements = 0  # rows of a JSON array written so far

    def add(self, spans: list[Span], out: StagedOutput) -> None:
        if self._kind in _RECORDS:
            out.write(encode(spans, self.layout))
        elif self._kind == ("spans", ""):
            inner = encode(spans, self.layout)[1:-1]  # `[row,row]` without its brackets
            if inner:
                out.write((b"," if self._elements else b"[") + inner)
                self._elements += len(spans)
        else:
            self._held.extend(spans)

    def finish(self, out: StagedOutput, layout: Layout) -> None:
        """The end of the output; a one-document layout is written whole, in `layout` (its
        variant may be known only once the file was read)."""
        if self._kind in _RECORDS:
            return
        if self._kind == ("spans", ""):
            out.write(b"]" if self._elements else b"[]")
            return
        out.write(encode(self._held, layout))
        self._held = []
