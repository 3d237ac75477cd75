"""The Markdown job summary of `tracecheck diff` (appended to the file `$GITHUB_STEP_SUMMARY`
names, as `check` does): the outcome, both runs, the first divergence, a table of what
differs and the totals against their tolerances.

Recorded text appears only as names (files, tools, models, span ids, pointers), escaped so
that it cannot make Markdown or HTML; argument values never appear here (the JSON report holds
the ones the redactor lets through).
"""

from __future__ import annotations

from collections.abc import Iterator

from tracecheck.diff.model import CallPair, CallRef, Quantity, RunDiff
from tracecheck.report.diff_model import DiffReport
from tracecheck.report.diff_words import divergence_text, tool_name
from tracecheck.report.safe import markdown, shorten

__all__ = ["MAX_ROWS", "render_diff_summary"]

MAX_ROWS = 50  # rows of the table of differences
_STATUS = {"same": "✅ SAME", "different": "❌ DIFFERENT", "error": "⚠️ ERROR"}


def render_diff_summary(report: DiffReport) -> str:
    return "".join(_parts(report))


def _parts(report: DiffReport) -> Iterator[str]:
    yield f"## tracecheck diff: {_STATUS[report.status]}\n\n"
    yield f"Baseline {markdown(report.baseline)}, run {markdown(report.run)}.\n\n"
    for failure in report.unread:
        yield f"- {markdown(failure.source)}: not read: {markdown(shorten(failure.message, 300))}\n"
    if report.unread:
        yield "\n"
    diff = report.diff
    if diff is None:
        return
    yield "| | trace | steps | tool calls | model calls |\n|---|---|---|---|---|\n"
    for side, summary in (("baseline", diff.baseline), ("run", diff.run)):
        trace = markdown(summary.trace_id or "(no trace id)")
        yield f"| {side} | {trace} | {summary.steps} | {summary.calls} | {summary.model_calls} |\n"
    yield "\n"
    if diff.first_divergence is not None:
        yield f"**First divergence:** {markdown(divergence_text(diff.first_divergence))}\n\n"
    yield from _differences(diff)
    yield from _totals(diff)
    if diff.problems:
        yield "### The diff cannot vouch for these runs\n\n"
        yield from (f"- {markdown(shorten(problem, 500))}\n" for problem in diff.problems)
        yield "\n"


def _differences(diff: RunDiff) -> Iterator[str]:
    rows: list[tuple[str, CallRef | None, CallRef | None, str]]
    rows = [("added", None, ref, "") for ref in diff.added]
    rows += [("missing", ref, None, "") for ref in diff.missing]
    rows += [_pair_row(pair) for pair in diff.changed]
    if not rows:
        return
    yield "### Differences\n\n| change | tool | baseline | run | counts |\n|---|---|---|---|---|\n"
    for what, old, new, counts in rows[:MAX_ROWS]:
        tool = markdown(tool_name(old or new))
        yield f"| {what} | {tool} | {_where(old)} | {_where(new)} | {counts or '✗'} |\n"
    if len(rows) > MAX_ROWS:
        yield f"\n… and {len(rows) - MAX_ROWS} more (the JSON report holds every one).\n"
    yield "\n"


def _pair_row(pair: CallPair) -> tuple[str, CallRef | None, CallRef | None, str]:
    changes: list[str] = []
    for change in pair.changes:
        if change == "arguments":
            pointers = ", ".join(markdown(a.pointer or "(whole)") for a in pair.arguments[:5])
            more = f" and {len(pair.arguments) - 5} more" if len(pair.arguments) > 5 else ""
            changes.append(f"arguments {pointers}{more}")
        else:
            changes.append(change)
    if pair.arguments_unknown is not None:
        changes.append("arguments not comparable")
    return ", ".join(changes), pair.baseline, pair.run, "✗" if pair.gated else "no"


def _where(ref: CallRef | None) -> str:
    if ref is None:
        return "—"
    return f"step {ref.step}, span {markdown(ref.span)}"


def _totals(diff: RunDiff) -> Iterator[str]:
    yield "### Totals\n\n| | baseline | run | change | tolerance | |\n|---|---|---|---|---|---|\n"
    for quantity in (diff.tokens, diff.duration):
        yield _total_row(quantity)
    for use in diff.models:
        mark = "❌ one run only" if use.changed else "✅"
        yield f"| model {markdown(use.model)} | {use.baseline_calls} calls | {use.run_calls} calls | | | {mark} |\n"
    yield "\n"


def _total_row(quantity: Quantity) -> str:
    name = "tokens" if quantity.name == "tokens" else "duration (ms)"
    values = [_number(quantity.baseline), _number(quantity.run)]
    delta = quantity.delta
    relative = quantity.relative
    change = "" if delta is None else _number(delta, signed=True)
    if relative is not None:
        change += f" ({relative:+.1%})"
    tolerance = str(quantity.tolerance) if quantity.tolerance is not None else "off"
    marks = {
        "within": "✅",
        "over": "❌ over",
        "unknown": "⚠️ cannot be compared",
        "unrecorded": "not recorded",
        "off": "not compared",
    }
    return f"| {name} | {values[0]} | {values[1]} | {change} | {tolerance} | {marks[quantity.status]} |\n"


def _number(value: int | float | None, *, signed: bool = False) -> str:
    if value is None:
        return "—"
    text = f"{value:,.1f}" if isinstance(value, float) else f"{value:,}"
    return ("+" + text if value >= 0 else text) if signed else text
