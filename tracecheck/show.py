"""A trace as a tree a person reads at a glance, and the same facts for machines.

Only structure is shown (kind, tool, model, tokens, timing, status): never attribute values
or status messages, which may hold secrets. Recorded names are shown with control characters
escaped, so a span name cannot drive the terminal or forge a line of the tree, and without a
credential pasted into one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tracecheck.readers.duplicates import MergedCalls, merge_duplicate_calls
from tracecheck.reading import read_subject
from tracecheck.report.safe import printable, shorten
from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind, Span, TokenUsage, Trace
from tracecheck.unquoted import without_credentials

__all__ = ["duration_text", "render_trace", "trace_facts", "tree_order"]

_RED, _DIM, _BOLD, _RESET = "\x1b[31m", "\x1b[2m", "\x1b[1m", "\x1b[0m"


def render_trace(trace: Trace, *, color: bool = False, files: Sequence[str] = ()) -> str:
    """The trace as an indented tree, one line per span, siblings in start order. `files`,
    when given, are named in the first line (the files of a directory the trace was read
    from)."""
    paint = _painter(color)
    run = trace.run_record
    status = printable((run.status if run else None) or "unknown")
    where = f" · {printable(', '.join(files))}" if files else ""
    header = (
        f"trace {printable(trace.trace_id or '(no trace id)')}  {len(trace.spans)} span(s)"
        f"{_maybe(' · ', _duration(_trace_duration(trace)))} · run {status}{where}"
    )
    lines = [paint(_BOLD, header)]
    merged = merge_duplicate_calls(trace.spans)
    calls, counts, absorbed = _calls(merged), _counts(merged), merged.merged_into()
    for prefix, span in _walk(trace):
        mark = _mark(span, counts, absorbed)
        lines.append(prefix + _span_line(calls.get(id(span), span), paint, mark))
    lines.extend(f"note: {shorten(printable(note))}" for note in _notes(merged))
    return "\n".join(lines)


def _calls(merged: MergedCalls) -> dict[int, Span]:
    """The merged call each outermost recording stands for, by the recording's `id()`."""
    return {id(merge.recordings[0]): merge.call for merge in merged.merges}


def _counts(merged: MergedCalls) -> dict[int, int]:
    """How many recordings each merged call has, by its outermost recording's `id()`."""
    return {id(merge.recordings[0]): len(merge.recordings) for merge in merged.merges}


def _mark(span: Span, counts: dict[int, int], absorbed: dict[int, Span]) -> str:
    """How the tree marks a call recorded more than once: its outermost recording counts it,
    the others name it (`counts` and `absorbed` built once per trace, by `id()`)."""
    if id(span) in counts:
        return f"recorded {counts[id(span)]}×, counted once"
    if id(span) in absorbed:
        return f"the same call as {_name(absorbed[id(span)].span_id) or '(no span id)'}"
    return ""


def _notes(merged: MergedCalls) -> tuple[str, ...]:
    return read_subject(Subject(merged.spans), merged.merges).notes


def trace_facts(trace: Trace) -> dict[str, Any]:
    """What `render_trace` shows, as JSON-ready data (depth-first, siblings in start order).
    A call recorded more than once is counted on its outermost recording (`recordings`: how
    many), and the others name it (`same_call_as`)."""
    spans = []
    merged = merge_duplicate_calls(trace.spans)
    calls, counts, absorbed = _calls(merged), _counts(merged), merged.merged_into()
    for prefix, recorded in _walk(trace):
        span = calls.get(id(recorded), recorded)
        tokens = span.tokens
        spans.append(
            {
                "span_id": span.span_id,
                "parent_span_id": span.parent_span_id,
                "depth": len(prefix) // 3,
                "name": without_credentials(span.name),
                "kind": span.kind.value,
                "convention": span.convention.name,
                "tool": span.tool_name and without_credentials(span.tool_name),
                "model": span.model and without_credentials(span.model),
                "tokens": {
                    "input": tokens.input,
                    "output": tokens.output,
                    "cache_read": tokens.cache_read,
                    "cache_write": tokens.cache_write,
                    "total": tokens.total,
                },
                "start_ns": span.start_ns,
                "end_ns": span.end_ns,
                "duration_ms": _ms(span.duration_ns),
                "status": span.status,
                "recordings": counts.get(id(recorded), 1),
                "same_call_as": absorbed[id(recorded)].span_id
                if id(recorded) in absorbed
                else None,
            }
        )
    run = trace.run_record
    return {
        "trace_id": trace.trace_id,
        "run_status": run.status if run else None,
        "spans": spans,
        "notes": [str(note) for note in trace.notes],
        "reading_notes": list(_notes(merged)),
    }


def tree_order(trace: Trace) -> list[tuple[int, Span]]:
    """(depth, span) of every span as the tree shows them: depth-first, siblings in start
    order (the HTML report's waterfall draws its bars in this order)."""
    return [(len(prefix) // 3, span) for prefix, span in _walk(trace)]


def _walk(trace: Trace) -> Iterator[tuple[str, Span]]:
    """(tree prefix, span) depth-first; spans caught in a parent cycle still appear once.

    Siblings are listed in start order (read order among equal and unrecorded starts):
    exporters group a trace's spans by instrumentation scope, not by time, so read order can
    show every model call of a run before any of its tool calls.
    """
    children: dict[str, list[Span]] = {}
    for span in sorted(trace.spans, key=_start_order):
        if span.parent_span_id:
            children.setdefault(span.parent_span_id, []).append(span)
    seen: set[int] = set()
    for root in sorted(trace.roots, key=_start_order):
        if id(root) not in seen:
            yield from _visit(root, children, seen, "", True, True)
    for span in trace.spans:
        if id(span) not in seen:
            yield from _visit(span, children, seen, "", True, True)


def _visit(
    span: Span,
    children: dict[str, list[Span]],
    seen: set[int],
    prefix: str,
    last: bool,
    top: bool,
) -> Iterator[tuple[str, Span]]:
    # A function of its own, not a closure that calls itself: that would be a reference cycle
    # holding every span of the trace until the cyclic collector ran.
    seen.add(id(span))
    yield (prefix if top else prefix + ("└─ " if last else "├─ ")), span
    below = [c for c in children.get(span.span_id or "", ()) if id(c) not in seen]
    inner = prefix if top else prefix + ("   " if last else "│  ")
    for index, child in enumerate(below):
        yield from _visit(child, children, seen, inner, index == len(below) - 1, False)


def _start_order(span: Span) -> tuple[bool, int]:
    return span.start_ns is None, span.start_ns or 0


def _span_line(span: Span, paint: Callable[[str, str], str], mark: str = "") -> str:
    kind = span.kind
    label = _name(span.name) or "(unnamed)"
    parts = [f"{kind.value:<9} {label}"]
    if span.tool_name and span.tool_name != span.name:
        parts.append(f"tool={_name(span.tool_name)}")
    if span.model and kind in (Kind.LLM, Kind.EMBEDDING):
        parts.append(f"model={_name(span.model)}")
    tokens = _tokens(span.tokens)
    if tokens:
        parts.append(tokens)
    duration = _duration(span.duration_ns)
    parts.append(duration or "no timing")
    if mark:
        parts.append(f"({mark})")
    line = "  ".join(parts)
    if span.is_error:
        return paint(_RED, f"{line}  ✗ error") + paint(_DIM, f"  {_name(span.span_id)}")
    return line + paint(_DIM, f"  {_name(span.span_id)}")


def _name(text: str | None) -> str:
    """A recorded name for one line of the tree: escaped, and shortened when very long."""
    return shorten(printable(without_credentials(text)), 200) if text else ""


def _tokens(tokens: TokenUsage) -> str:
    if tokens.input is None and tokens.output is None:
        return ""
    text = f"tokens {_count(tokens.input)} in / {_count(tokens.output)} out"
    cache = [
        f"cache read {_count(tokens.cache_read)}" if tokens.cache_read is not None else "",
        f"cache write {_count(tokens.cache_write)}" if tokens.cache_write is not None else "",
    ]
    cache_text = ", ".join(part for part in cache if part)
    return f"{text} ({cache_text})" if cache_text else text


def _count(value: int | float | None) -> str:
    return "?" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def _trace_duration(trace: Trace) -> int | None:
    starts = [s.start_ns for s in trace.spans if s.start_ns is not None]
    ends = [s.end_ns for s in trace.spans if s.end_ns is not None]
    return max(ends) - min(starts) if starts and ends else None


def _ms(duration_ns: int | None) -> float | None:
    return None if duration_ns is None else duration_ns / 1_000_000


def duration_text(duration_ns: int | None) -> str:
    """A duration as the tree shows it (`850 µs`, `120 ms`, `1.25 s`); "" when unknown."""
    return _duration(duration_ns)


def _duration(duration_ns: int | None) -> str:
    if duration_ns is None:
        return ""
    if duration_ns < 1_000_000:
        return f"{duration_ns / 1000:.0f} µs"
    if duration_ns < 1_000_000_000:
        return f"{duration_ns / 1_000_000:.0f} ms"
    return f"{duration_ns / 1_000_000_000:.2f} s"


def _maybe(separator: str, text: str) -> str:
    return separator + text if text else ""


def _painter(color: bool) -> Callable[[str, str], str]:
    def paint(code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if color else text

    return paint
