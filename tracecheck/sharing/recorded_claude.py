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

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import IO, Any

from redact import KnownSecrets, ShareVerdict, combine_verdicts
from redact.inspector import pointer_segment
from redact.json_pairs import loads_keeping_repeats, shadowed
from redact.json_text import JsonTextAssessor, JsonTextInspector
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
    stream: IO[bytes],
    source: str,
    profile: Profile,
    known: KnownSecrets,
    *,
    label: str = "",
    judging: Callable[[str], AbstractContextManager[None]] = lambda part: nullcontext(),
) -> tuple[ShareVerdict, ShareVerdict]:
    """The verdicts of the spans and of the records of a seekable stream of Claude Code records
    (decoded), to be joined by `recorded_bytes.with_recorded`. Span findings are placed as
    `span:<id>/…`, record findings as `/line 12/message/…` (prefixed with `label` when given).
    `judging(part)` is entered while the spans (`spans`) and the records (`bytes`) are judged.
    Raises TraceReadError when the records cannot be read."""
    # Read from where the reader reads (past a byte-order mark), as `iter_spans` would.
    start = start_of(stream.read(len(UTF8_BOM)), "claude-stream")
    stream.seek(start)
    spans = SpanAssessor(profile=profile, known_secrets=known)
    with judging("spans"):
        for batch in batched(read_claude_stream(stream, ReadContext(source))):
            spans.assess(span.replace(status_message=None) for span in batch)
    stream.seek(start)
    prefix = f"{label} " if label else ""
    records = RecordAssessor(profile=profile, known_secrets=known)
    repeats: list[tuple[Any, str]] = []
    unreadable: list[str] = []

    def walked() -> Iterator[tuple[dict[str, Any], str]]:
        for number, line, record in claude_records(stream, source):
            if record is None:
                continue
            root = pointer(f"{prefix}line {number}")
            # A record that writes a key twice is walked as the redactor reads it (the last
            # value); the values it drops are judged as well.
            body = (line.removeprefix(UTF8_BOM) if number == 1 else line).rstrip(b"\r\n")
            try:
                whole = loads_keeping_repeats(body, record)
            except RecursionError:
                unreadable.append(f"{root}: JSON nested too deep to read with every key it repeats")
            else:
                if whole is not record:
                    repeats.append((whole, root))
            yield record, root

    with judging("bytes"):
        verdict = records.assess_all(walked())
        if repeats or unreadable:
            verdict = combine_verdicts(
                profile.name, [verdict, _dropped(repeats, profile, known)], unreadable
            )
    return spans.verdict(), verdict


def _dropped(records: list[tuple[Any, str]], profile: Profile, known: KnownSecrets) -> ShareVerdict:
    """The verdict of the values records drop where they write a key twice (all but the last),
    each judged under its key, JSON held in strings as JSON."""
    inspector = JsonTextInspector(profile, known)
    assessor = JsonTextAssessor(inspector)
    for record, root in records:
        for where, key, value in shadowed(record, root):
            assessor.keyed(key, value, f"{where}/{pointer_segment(key)}", where.count("/"))
    return assessor.verdict()
