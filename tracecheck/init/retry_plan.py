"""Which tools a draft's `retries` rule names, from the runs: tools named like writes are
writes (keyed by an argument named like an idempotency key when every call has one), and a
tool whose repeats or failures that rule would report on a run it came from is a read, with
the reason, for a reviewer to decide."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tracecheck.init.names import idempotency_key, looks_like_write
from tracecheck.init.runs import Run
from tracecheck.rules.pointers import pointer_of
from tracecheck.rules.retry import RetrySafe, WriteTool
from tracecheck.verdict import Violation

__all__ = ["RetryPlan", "plan_retries"]


@dataclass(frozen=True, slots=True)
class RetryPlan:
    """`reads` and `writes` with a reason each (tool → why), or why there is no rule."""

    reads: tuple[tuple[str, str], ...] = ()
    writes: tuple[tuple[WriteTool, str], ...] = ()
    problem: str | None = None


def plan_retries(runs: Sequence[Run], tools: Sequence[str]) -> RetryPlan:
    """The retry rule's reads and writes for the named `tools` the runs called."""
    unnamed = next((run for run in runs if run.unnamed_calls), None)
    if unnamed is not None:
        return RetryPlan(
            problem=f"{unnamed.name} has tool calls that do not record which tool ran, and the "
            "retry rule reports such a call, since it cannot tell whether it repeats another"
        )
    writes = {tool: WriteTool(tool, _key(runs, tool)) for tool in tools if looks_like_write(tool)}
    reads: dict[str, str] = {}
    # A read is never reported, so one more round finds nothing: the loop ends.
    while failing := _failing(runs, tuple(reads), tuple(writes.values())):
        for tool, (run, violation) in failing.items():
            write = writes.pop(tool, None)
            reads[tool] = _read_reason(run, violation, write)
    return RetryPlan(
        tuple(reads.items()),
        tuple((write, _write_reason(write)) for write in writes.values()),
    )


def _key(runs: Sequence[Run], tool: str) -> str | None:
    """`/<name>` of the top-level argument named like an idempotency key that every call of
    the tool carries, if there is one."""
    keys: set[str] | None = None
    for run in runs:
        for span in run.calls:
            if span.tool_name != tool:
                continue
            arguments = span.arguments
            if not arguments.known or not isinstance(arguments.value, dict):
                return None
            present = {key for key, value in arguments.value.items() if _is_key(value)}
            keys = present if keys is None else keys & present
    found = idempotency_key(sorted(keys or ()))
    if found is None:
        return None
    return pointer_of((found,))


def _is_key(value: object) -> bool:
    """A value the retry rule takes for a key: a non-empty string or a number."""
    if isinstance(value, bool):
        return False
    return (isinstance(value, str) and bool(value)) or isinstance(value, (int, float))


def _failing(
    runs: Sequence[Run], reads: tuple[str, ...], writes: tuple[WriteTool, ...]
) -> dict[str, tuple[Run, Violation]]:
    """The tools the rule reports on some run, each with its first report."""
    rule = RetrySafe("retries", reads, writes)
    failing: dict[str, tuple[Run, Violation]] = {}
    for run in runs:
        for violation in rule.evaluate(run.subject):
            if violation.tool:
                failing.setdefault(violation.tool, (run, violation))
    return failing


def _read_reason(run: Run, violation: Violation, write: WriteTool | None) -> str:
    reported = f"in {run.name}, {violation.detail}"
    if write is None:
        return (
            f"review: listed as a read (a retry may repeat it) because {reported}; if a repeat "
            "changes something, make it a write with an idempotencyKey its calls carry"
        )
    return (
        f"review: named like a write, but listed as a read so that the draft passes its runs: "
        f"{reported}; if a repeat can apply twice, make it a write with an idempotencyKey"
    )


def _write_reason(write: WriteTool) -> str:
    if write.idempotency_key is not None:
        return (
            f"review: named like a write; every call carries {write.idempotency_key}, taken "
            "for its idempotency key"
        )
    return (
        "review: named like a write; no argument is named like an idempotency key, so a "
        "repeat with equal arguments or a failed call of it fails this rule"
    )
