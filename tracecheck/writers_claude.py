"""A Claude Code record file (stream-json, Agent SDK stdout, a session transcript) written back
redacted, in its own format: one record per line, in the same order, with the same keys.

A record nothing was found in is written as it was read, byte for byte; a redacted one is
encoded again as compact JSON (what Claude Code writes), its keys in their order. Blank lines
and each line's ending are kept. A line that is not a JSON object stops the writing with an
error naming the file and the line (the caller writes nothing then).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO, Any

import orjson

from redact.records import RecordRedactor
from redact.streamed import StreamedBlocks, with_piece
from tracecheck.errors import TraceReadError
from tracecheck.readers.claude.fields import describe

__all__ = ["claude_records", "redact_claude_records"]

_UTF8_BOM = b"\xef\xbb\xbf"


def claude_records(lines: IO[bytes], source: str) -> Iterator[tuple[int, bytes, Any]]:
    """(line number, line as read, record or None for a blank line) of each line of a Claude
    Code file; raises TraceReadError at the first line that is not a JSON object."""
    for number, line in enumerate(lines, 1):
        body = line.rstrip(b"\r\n")
        if number == 1:
            body = body.removeprefix(_UTF8_BOM)
        if not body.strip():
            yield number, line, None
            continue
        try:
            record = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            where = f"line {number}, column {exc.colno}"
            raise TraceReadError(
                source, f"malformed JSON: {exc.msg.rstrip('.')}", where=where
            ) from None
        if not isinstance(record, dict):
            raise TraceReadError(
                source, f"is {describe(record)}, not a JSON object", where=f"line {number}"
            )
        yield number, line, record


def redact_claude_records(
    open_lines: Callable[[], IO[bytes]],
    source: str,
    redactor: RecordRedactor,
    write: Callable[[bytes], None],
) -> int:
    """Write each record of the file `open_lines` opens redacted; the number of records
    changed. The file is read twice: first to join the blocks partial messages send in pieces
    (`redact.streamed`), then to write."""
    blocks = StreamedBlocks()
    with open_lines() as lines:
        for number, _, record in claude_records(lines, source):
            if record is not None:
                blocks.add(record, number)
    pieces = redactor.redact_streamed(blocks)
    changed = 0
    with open_lines() as lines:
        for number, line, record in claude_records(lines, source):
            if record is None:
                write(line)
                continue
            piece = pieces.get(number)
            if piece is not None:
                record = with_piece(record, *piece)
            out, touched = redactor.redact(record, f"line {number}")
            if not touched and piece is None:
                write(line)
                continue
            changed += 1
            ending = line[len(line.rstrip(b"\r\n")) :]
            write(orjson.dumps(out) + ending)
    return changed
