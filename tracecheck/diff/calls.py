"""A run's tool calls as the diff aligns them: read through the same path as `check` (calls
recorded twice merged into one, the reading's doubts), in steps (rules/steps.py), each call
with its alignment keys.

A call's keys, from the most to the least specific: its tool, the tool calls it ran inside
(its position in the tree: an agent called as a tool, an MCP server's tool inside the agent's)
and its arguments' canonical JSON (RFC 8785); its tool and position; its tool alone. The calls
of a parallel group are put in the order of their keys, so that two groups of the same calls
read alike whatever order they started in.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from tracecheck.diff.model import CallRef, RunSummary
from tracecheck.readers.duplicates import merge_duplicate_calls
from tracecheck.reading import SubjectReading, read_subject
from tracecheck.rules.canonical import canonical_json
from tracecheck.rules.predicates import RuleError
from tracecheck.rules.steps import tool_steps
from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind, Span, Trace
from tracecheck.unquoted import without_credentials

__all__ = ["Call", "RunCalls", "read_calls"]

_UNKNOWN_ARGUMENTS = "\x00unknown"  # no canonical JSON text starts with NUL


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call: its span, how the diff names it, its alignment keys (`exact`: tool,
    position and arguments; `placed`: tool and position; `tool`) and its step (0-based)."""

    span: Span
    ref: CallRef
    exact: Hashable
    placed: Hashable
    tool: str | None
    step: int
    order: tuple[str, tuple[str, ...], str]  # where it stands in a parallel group


@dataclass(frozen=True, slots=True)
class RunCalls:
    """A run's calls in step order, the spans they were read from and what reading them left
    in doubt."""

    calls: tuple[Call, ...]
    subject: Subject
    reading: SubjectReading
    summary: RunSummary


def read_calls(run: Trace | Sequence[Span]) -> RunCalls:
    """The run's tool calls, one per call however many instrumentations recorded it."""
    spans = tuple(run.spans if isinstance(run, Trace) else run)
    merged = merge_duplicate_calls(spans)
    subject = _subject(merged.spans)
    reading = read_subject(subject, merged.merges)
    steps = tool_steps(subject)
    calls: list[Call] = []
    for number, step in enumerate(steps):
        members = [_call(subject, span, number, step.parallel, step.placed) for span in step.calls]
        if step.parallel:
            members.sort(key=lambda call: call.order)
        calls.extend(members)
    trace_id = run.trace_id if isinstance(run, Trace) else _trace_id(spans)
    summary = RunSummary(
        trace_id, len(steps), len(calls), len(subject.of_kind(Kind.LLM)), len(merged.spans)
    )
    return RunCalls(tuple(calls), subject, reading, summary)


def _subject(spans: tuple[Span, ...]) -> Subject:
    """The whole trace, with the run record of its single root (as `check` reads it)."""
    roots = Trace(_trace_id(spans), spans).roots
    if len(roots) == 1:
        return Subject(spans, roots[0].run_record)
    reason = "the trace has no root span" if not roots else f"the trace has {len(roots)} roots"
    return Subject(spans, None, reason)


def _trace_id(spans: Sequence[Span]) -> str | None:
    return next((span.trace_id for span in spans if span.trace_id), None)


def _call(subject: Subject, span: Span, step: int, parallel: bool, placed: bool) -> Call:
    tool = span.tool_name
    within = tuple(
        a.tool_name or "" for a in reversed(subject.ancestors(span)) if a.kind is Kind.TOOL
    )
    ref = CallRef(
        tool=without_credentials(tool) if tool is not None else None,
        span=subject.ref(span),
        step=step + 1,
        parallel=parallel,
        placed=placed,
        within=tuple(map(without_credentials, within)),
        failed=span.is_error,
    )
    arguments = span.arguments
    text = _canonical(arguments.value) if arguments.known else _UNKNOWN_ARGUMENTS
    return Call(
        span, ref, (tool, within, text), (tool, within), tool, step, (tool or "", within, text)
    )


def _canonical(value: object) -> str:
    try:
        return canonical_json(value)
    except RuleError:  # not JSON (a reader never gives one): its repr still tells values apart
        return "\x00" + repr(value)
