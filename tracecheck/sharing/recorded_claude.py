"""The share-safety verdict of a Claude Code record file, as `verify-safe` and `redact` give it.

Such a file is judged by its records, every string of every record, walked in the records' own
shape (`redact.records`: the containers that hold a record's structure are walked, not judged
whole by their raw-content keys, as the redactor walked them), and by the spans the reader
makes of them (what contracts read, under the span attribute names).

The reader writes each span's status message itself (`tool result is_error`, `result
error_max_turns`): words of its own, not recorded text (a result's subtype is judged in its
record), so they are left out of the spans' judgement; under `strict` they would read as raw
content that no redaction of the file can remove.
"""

from __future__ import annotations

from typing import IO

from redact import KnownSecrets, ShareVerdict
from redact.profiles import Profile
from redact.records import RecordAssessor
from redact.spans import SpanAssessor
from tracecheck.readers.claude import read_claude_stream
from tracecheck.readers.common import ReadContext
from tracecheck.readers.inputs import UTF8_BOM, start_of
from tracecheck.sharing.recorded_bytes import pointer
from tracecheck.sharing.staged import batched
from tracecheck.writers.claude import claude_records

__all__ = ["claude_verdicts"]


def claude_verdicts(
    stream: IO[bytes], source: str, profile: Profile, known: KnownSecrets, *, label: str = ""
) -> tuple[ShareVerdict, ShareVerdict]:
    """The verdicts of the spans and of the records of a seekable stream of Claude Code records
    (decoded), to be joined by `recorded_bytes.with_recorded`. Span findings are placed as
    `span:<id>/…`, record findings as `/line 12/message/…` (prefixed with `label` when given).
    Raises TraceReadError when the records cannot be read."""
    # Read from where the reader reads (past a byte-order mark), as `iter_spans` would.
    start = start_of(stream.read(len(UTF8_BOM)), "claude-stream")
    stream.seek(start)
    spans = SpanAssessor(profile=profile, known_secrets=known)
    for batch in batched(read_claude_stream(stream, ReadContext(source))):
        spans.assess(span.replace(status_message=None) for span in batch)
    stream.seek(start)
    prefix = f"{label} " if label else ""
    records = RecordAssessor(profile=profile, known_secrets=known)
    verdict = records.assess_all(
        (record, pointer(f"{prefix}line {number}"))
        for number, _, record in claude_records(stream, source)
        if record is not None
    )
    return spans.verdict(), verdict
