"""Spans into traces: grouped by trace id in first-seen order, each span recorded more than once
kept once, and the reader's notes placed with the trace they are about.

Every span comes with the file it was read from (`Located`), so that a trace knows its files and
a note about repeated spans names the file that repeated them. Both `read_traces` (every trace at
once) and the streaming reader (one trace at a time) build traces here, so they agree.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Sequence

from tracecheck.spans import ReadNote, Span, Trace

__all__ = ["Located", "build_trace", "group_located", "place_notes", "without_files"]

Located = tuple[str, Span]  # the file a span was read from, and the span


def group_located(located: Iterable[Located], notes: Iterable[ReadNote] = ()) -> list[Trace]:
    """Every trace of `located`, in first-seen order, each with the notes about it."""
    groups: dict[str | None, list[Located]] = {}
    for item in located:
        trace_id = item[1].trace_id
        group = groups.get(trace_id)
        if group is None:
            groups[trace_id] = group = []
        group.append(item)
    by_trace, unplaced = place_notes(notes, groups)
    return [
        build_trace(trace_id, group, by_trace.get(trace_id, ()), unplaced)
        for trace_id, group in groups.items()
    ]


def place_notes(
    notes: Iterable[ReadNote], trace_ids: Container[str | None]
) -> tuple[dict[str | None, list[ReadNote]], list[ReadNote]]:
    """The notes about each trace, and those that name no trace present (they ride with every
    trace: there is none they could belong to yet)."""
    by_trace: dict[str | None, list[ReadNote]] = {}
    unplaced: list[ReadNote] = []
    for note in notes:
        if note.trace_id in trace_ids:
            by_trace.setdefault(note.trace_id, []).append(note)
        else:
            unplaced.append(note)
    return by_trace, unplaced


def build_trace(
    trace_id: str | None,
    located: Iterable[Located],
    notes: Sequence[ReadNote],
    unplaced: Sequence[ReadNote] = (),
) -> Trace:
    """One trace from its spans in read order and the notes about it.

    A span id seen again is the same span recorded twice (an exporter's retry, one run saved
    twice in a directory): the first copy is kept and the repeat noted, since counting it would
    double its calls and tokens. Spans without an id are never merged.
    """
    kept: list[Span] = []
    files: dict[str, None] = {}
    first_copy: dict[str, Span] = {}
    repeats: dict[str, list[Span]] = {}
    repeated_in: str | None = None
    for file, span in located:
        files[file] = None
        span_id = span.span_id
        if span_id is not None:
            first = first_copy.setdefault(span_id, span)
            if first is not span:
                repeats.setdefault(span_id, []).append(span)
                repeated_in = repeated_in or file
                continue
        kept.append(span)
    own = list(notes)
    if repeats and repeated_in is not None:
        own.append(_repeat_note(trace_id, repeats, first_copy, repeated_in))
    return Trace(trace_id, tuple(kept), (*own, *unplaced), tuple(files))


def _repeat_note(
    trace_id: str | None,
    repeats: dict[str, list[Span]],
    first_copy: dict[str, Span],
    source: str,
) -> ReadNote:
    """One note for the trace's repeated spans, naming the first few and the file that held
    the first repeat."""
    span_ids = list(repeats)
    differing = any(
        copy != first_copy[span_id] for span_id, copies in repeats.items() for copy in copies
    )
    how = " (not all copies alike)" if differing else ""
    if len(span_ids) == 1:
        what = f"span {span_ids[0]} is recorded more than once{how}"
    else:
        more = f", and {len(span_ids) - 3} more" if len(span_ids) > 3 else ""
        named = ", ".join(span_ids[:3]) + more
        what = f"{len(span_ids)} spans are recorded more than once{how}: {named}"
    return ReadNote(source, f"trace {trace_id}", f"{what}; only the first copy is kept", trace_id)


def without_files(located: Iterable[Located]) -> Iterator[Span]:
    """The spans alone."""
    for _, span in located:
        yield span
