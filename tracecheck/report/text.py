"""The human report: per trace and contract, a status line, each rule, its violations."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from tracecheck.report.model import CheckedTrace
from tracecheck.report.safe import printable, shorten
from tracecheck.verdict import RuleResult

__all__ = ["MAX_VIOLATIONS", "render_text", "text_lines"]

MAX_VIOLATIONS = 5  # violation lines shown per failed rule
_MARKS = {"pass": "✓", "fail": "✗", "error": "!", "skipped": "-"}
_COLORS = {"pass": "\x1b[32m", "fail": "\x1b[31m", "error": "\x1b[33m", "skipped": "\x1b[2m"}
_RESET = "\x1b[0m"


def render_text(checked: Sequence[CheckedTrace], *, color: bool = False, verbosity: int = 0) -> str:
    """`verbosity` -1 prints one line per verdict, 0 adds every rule that did not pass, 1 adds
    the rules that passed."""
    return "\n".join(text_lines(checked, color=color, verbosity=verbosity))


def text_lines(
    checked: Iterable[CheckedTrace], *, color: bool = False, verbosity: int = 0
) -> Iterator[str]:
    """The lines of `render_text`, one verdict at a time."""
    paint = _painter(color)
    noted: set[tuple[str, str | None]] = set()  # traces whose reading notes are printed
    for item in checked:
        verdict = item.verdict
        status = paint(verdict.status, verdict.status.upper())
        yield (
            f"{printable(item.files)}: trace {printable(verdict.trace_id or '(no trace id)')}: "
            f'contract "{printable(verdict.contract)}" {status} ({printable(verdict.notes)})'
        )
        if verbosity < 0:
            continue
        # A trace's notes once, under its first verdict: they are the reading's, not a contract's.
        trace = (item.files, verdict.trace_id)
        if trace not in noted:
            noted.add(trace)
            yield from (f"  note: {_line(note)}" for note in verdict.reading_notes)
        for rule in verdict.rules:
            if rule.status == "pass" and verbosity < 1:
                continue
            yield from _rule_lines(rule, paint)


def _rule_lines(rule: RuleResult, paint: Callable[[str, str], str]) -> list[str]:
    mark = paint(rule.status, _MARKS[rule.status])
    label = printable(rule.label)
    if rule.status == "error":
        return [f"  {mark} {label}: could not be evaluated: {_line(rule.error or '')}"]
    if rule.status == "skipped":
        return [f"  {mark} {label}: skipped (another alternative passed)"]
    lines = [f"  {mark} {label}"]
    shown = rule.violations[:MAX_VIOLATIONS]
    lines.extend(f"      {_line(violation.detail)}" for violation in shown)
    hidden = len(rule.violations) - len(shown)
    if hidden > 0:
        lines.append(f"      … and {hidden} more")
    return lines


def _line(text: str) -> str:
    """One report line from recorded text: controls escaped, a very long one shortened."""
    return shorten(printable(text))


def _painter(color: bool) -> Callable[[str, str], str]:
    def paint(status: str, text: str) -> str:
        return f"{_COLORS[status]}{text}{_RESET}" if color else text

    return paint
