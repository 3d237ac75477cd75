"""A run's tool calls as the diff aligns them: read through the same path as `check` (calls
recorded twice merged into one, the reading's doubts), in steps (rules/steps.py, level by
level: tracecheck.diff.levels), each call with its alignment keys.

A call's keys, from the most to the least specific: its tool, the tool calls it ran inside
(its position in the tree: an agent called as a tool, an MCP server's tool inside the agent's),
its arguments as JSON with sorted members and whether it failed; its tool and position; its
tool alone.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import orjson

from tracecheck.diff.levels import Callers, ordered_calls
from tracecheck.diff.model import CallRef, RunSummary
from tracecheck.readers.duplicates import merge_duplicate_calls
from tracecheck.reading import SubjectReading, read_subject
from tracecheck.rules.canonical import canonical_json
from tracecheck.rules.predicates import RuleError
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
    exact: tuple[str | None, tuple[str, ...], str, bool]
    placed: Hashable
    tool: str | None
    step: int


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
    callers = Callers(subject)
    facts = _Facts(subject, callers)
    placed, _ = ordered_calls(subject, facts.order, callers)
    calls = [facts.call(span, step, parallel, ok) for span, step, parallel, ok in placed]
    trace_id = run.trace_id if isinstance(run, Trace) else _trace_id(spans)
    steps = placed[-1][1] + 1 if placed else 0
    summary = RunSummary(
        trace_id, steps, len(calls), len(subject.of_kind(Kind.LLM)), len(merged.spans)
    )
    return RunCalls(tuple(calls), subject, reading, summary)


def _subject(spans: tuple[Span, ...]) -> Subject:
    """The whole trace, with the run record of its single root (as `check` reads it)."""
    roots = Trace(_trace_id(spans), spans).roots
    if len(roots) == 1:
        return Subject(spans, roots[0].run_record)
    reason = "has no root span" if not roots else f"has {len(roots)} root spans"
    return Subject(spans, None, reason)


def _trace_id(spans: Sequence[Span]) -> str | None:
    return next((span.trace_id for span in spans if span.trace_id), None)


class _Facts:
    """Each call's tool, position and canonical arguments, read once."""

    def __init__(self, subject: Subject, callers: Callers) -> None:
        self._subject = subject
        self._callers = callers
        self._read: dict[int, tuple[str | None, tuple[str, ...], str, bool]] = {}
        self._shown: dict[str, str] = {}  # a name as messages show it

    def order(self, span: Span) -> tuple[str, tuple[str, ...], str, bool]:
        """Where a call stands in a parallel group."""
        tool, within, text, failed = self._facts(span)
        return tool or "", within, text, failed

    def call(self, span: Span, step: int, parallel: bool, placed: bool) -> Call:
        exact = self._facts(span)
        tool, within, _, failed = exact
        ref = CallRef(
            tool=self._name(tool) if tool is not None else None,
            span=self._subject.ref(span),
            step=step + 1,
            parallel=parallel,
            placed=placed,
            within=tuple(map(self._name, within)),
            failed=failed,
        )
        return Call(span, ref, exact, (tool, within), tool, step)

    def _name(self, name: str) -> str:
        shown = self._shown.get(name)
        if shown is None:
            shown = self._shown[name] = without_credentials(name)
        return shown

    def _facts(self, span: Span) -> tuple[str | None, tuple[str, ...], str, bool]:
        found = self._read.get(id(span))
        if found is None:
            within = self._callers.within(span)
            arguments = span.arguments
            text = _canonical(arguments.value) if arguments.known else _UNKNOWN_ARGUMENTS
            found = self._read[id(span)] = (span.tool_name, within, text, span.is_error)
        return found


def _canonical(value: object) -> str:
    """The arguments as one key: JSON with sorted members (orjson, fast); RFC 8785 canonical
    JSON where orjson refuses (an integer past 64 bits); the repr of what is not JSON. Two
    texts that differ only in a number's form (`1`, `1.0`) are two keys, which only costs the
    pair its first chance: it is aligned by tool and position instead, and its arguments
    compared as values show no difference."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        pass
    try:
        return canonical_json(value)
    except RuleError:  # not JSON (a reader never gives one): its repr still tells values apart
        return "\x00" + repr(value)
