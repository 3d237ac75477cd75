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
from tracecheck.errors import TraceReadError
from tracecheck.readers.claude import read_record
from tracecheck.readers.common import ReadContext
from tracecheck.readers.inputs import UTF8_BOM

__all__ = ["claude_records", "redact_claude_records"]


def claude_records(lines: IO[bytes], source: str) -> Iterator[tuple[int, bytes, Any]]:
    """(line number, line as read, record or None for a blank line) of each line of a Claude
    Code file, read as the reader reads them (a byte-order mark before the first allowed);
    raises TraceReadError at the first line that is not a JSON object."""
    ctx = ReadContext(source)
    for number, line in enumerate(lines, 1):
        body = line.removeprefix(UTF8_BOM) if number == 1 else line
        if not body.strip():
            yield number, line, None
            continue
        yield number, line, read_record(body, number, ctx)


def redact_claude_records(
    open_lines: Callable[[], IO[bytes]],
    source: str,
    redactor: RecordRedactor,
    write: Callable[[bytes], None],
) -> int:
    """Write each record of the file `open_lines` opens redacted; the number of records
    changed. The file is read twice (`RecordRedactor.redact_records`)."""

    def read() -> Iterator[tuple[int, Any, bytes]]:
        with open_lines() as lines:
            for number, line, record in claude_records(lines, source):
                yield number, record, line

    changed = 0
    for number, line, out in redactor.redact_records(read):
        if out is None:
            write(line)
            continue
        try:
            encoded = orjson.dumps(out)
        except orjson.JSONEncodeError as exc:
            where = f"line {number}"
            reason = f"cannot be written back as JSON: {exc}"
            raise TraceReadError(source, reason, where=where) from None
        changed += 1
        write(encoded + line[len(line.rstrip(b"\r\n")) :])
    return changed
