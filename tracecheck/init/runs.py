"""The runs a draft is written from, read as `check` reads them: one call recorded twice is one
call, and what the reading leaves in doubt is kept beside the spans."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tracecheck.readers.duplicates import merge_duplicate_calls
from tracecheck.reading import read_subject
from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind, Span, Trace

__all__ = ["Run", "read_runs"]


@dataclass(frozen=True)
class Run:
    """One run: how the draft names it (`run 2`) and tells it apart (`run 2 (trace 4bf9…,
    runs/a.jsonl)`), its spans as a check sees them, and why its tool or model calls may not
    all have been recognised (None: no doubt)."""

    name: str
    described: str
    subject: Subject
    tools_in_doubt: str | None = None
    models_in_doubt: str | None = None
    # The tool calls the reading says do not name their tool (no name, or a span name taken
    # for one that no tool has): never a tool of the draft.
    unnamed_calls: tuple[Span, ...] = ()

    @property
    def calls(self) -> Sequence[Span]:
        """The run's tool calls, in array order."""
        return self.subject.tool_spans

    def named(self, span: Span) -> str | None:
        """The tool a call names, or None when the reading doubts it names one."""
        return None if any(span is unnamed for unnamed in self.unnamed_calls) else span.tool_name


def read_runs(traces: Sequence[Trace | Iterable[Span]]) -> tuple[list[Run], list[str]]:
    """Each trace (or iterable of spans) as a run, numbered and named by its trace id and file;
    and the traces left out, described: one that records no tool call and no model call is not
    an agent's run (an MCP session's handshake, a transport's own trace)."""
    runs: list[Run] = []
    skipped: list[str] = []
    for trace in traces:
        spans = tuple(trace.spans if isinstance(trace, Trace) else trace)
        merged = merge_duplicate_calls(spans)
        subject = Subject(merged.spans)
        if not subject.of_kind(Kind.TOOL) and not subject.of_kind(Kind.LLM):
            skipped.append(_described("", trace, spans).strip(" ()") or "a trace")
            continue
        reading = read_subject(subject, merged.merges)
        number = len(runs) + 1
        runs.append(
            Run(
                f"run {number}",
                _described(f"run {number}", trace, spans),
                subject,
                reading.tools_in_doubt,
                reading.models_in_doubt,
                reading.unnamed,
            )
        )
    return runs, skipped


def _described(name: str, trace: Trace | Iterable[Span], spans: Sequence[Span]) -> str:
    """`run 2 (trace 4bf9…, runs/a.jsonl)`: the name the draft's comments use, and what tells
    the run apart (its trace id and file, when known)."""
    trace_id = trace.trace_id if isinstance(trace, Trace) else None
    trace_id = trace_id or next((span.trace_id for span in spans if span.trace_id), None)
    source = trace.source if isinstance(trace, Trace) else None
    known = [f"trace {trace_id}" if trace_id else "", source or ""]
    shown = ", ".join(part for part in known if part)
    return name + (f" ({shown})" if shown else "")
