"""The human report of `tracecheck diff`: a status line, then what differs, section by section.

```
tracecheck diff: DIFFERENT: golden.otlp.jsonl → run.otlp.jsonl
  baseline: trace bdfc…, 2 steps, 2 tool calls, 3 model calls
  run:      trace 168b…, 3 steps, 3 tool calls, 4 model calls
  first divergence: baseline step 2 (issue_refund), run step 2 (run_shell): the run calls …
  + run_shell (span 4b1b…) at run step 2
  ✗ tokens: 1550 → 2179 (+629, +40.6%): over the tolerance of 10%
  ✓ duration: 92.7 ms → 43.0 ms (−49.6 ms, −53.5%): within the tolerance of 50%,1000ms
```
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tracecheck.diff.model import RunDiff
from tracecheck.report.diff_model import DiffReport
from tracecheck.report.diff_words import (
    STATUS_WORDS,
    call_text,
    divergence_text,
    headline,
    model_text,
    pair_text,
    quantity_text,
    run_text,
)
from tracecheck.report.safe import printable, shorten

__all__ = ["MAX_LINES", "diff_text_lines", "render_diff_text"]

MAX_LINES = 10  # lines per section unless verbose
_COLORS = {"same": "\x1b[32m", "different": "\x1b[31m", "error": "\x1b[33m"}
_RESET = "\x1b[0m"


def render_diff_text(report: DiffReport, *, color: bool = False, verbosity: int = 0) -> str:
    """`verbosity` -1 gives the status line alone, 0 every section (ten lines each at most),
    1 every line and the pairs that did not change."""
    return "\n".join(diff_text_lines(report, color=color, verbosity=verbosity))


def diff_text_lines(
    report: DiffReport, *, color: bool = False, verbosity: int = 0
) -> Iterator[str]:
    status = report.status
    word = STATUS_WORDS[status]
    shown = f"{_COLORS[status]}{word}{_RESET}" if color else word
    names = f"{printable(report.baseline)} → {printable(report.run)}"
    diff = report.diff
    if diff is None:
        unread = ", ".join(printable(failure.source) for failure in report.unread)
        yield f"tracecheck diff: {shown}: {names}: {unread} could not be read"
        return
    yield f"tracecheck diff: {shown}: {names} ({_line(headline(diff))})"
    if verbosity < 0:
        return
    yield f"  baseline: {run_text(diff.baseline)}"
    yield f"  run:      {run_text(diff.run)}"
    limit = None if verbosity > 0 else MAX_LINES
    yield from _sections(diff, limit, verbosity > 0)


def _sections(diff: RunDiff, limit: int | None, everything: bool) -> Iterator[str]:
    if diff.first_divergence is not None:
        yield f"  first divergence: {_line(divergence_text(diff.first_divergence))}"
    yield from _capped(
        [f"+ {call_text(ref)} at run step {ref.step}: added" for ref in diff.added], limit
    )
    yield from _capped(
        [f"- {call_text(ref)} at baseline step {ref.step}: missing" for ref in diff.missing],
        limit,
    )
    gated = [f"~ {pair_text(pair)}" for pair in diff.changed if pair.gated]
    yield from _capped(gated, limit)
    ignored = [f"· {pair_text(pair)} (not counted)" for pair in diff.changed if not pair.gated]
    yield from _capped(ignored, limit)
    if everything:
        same = [pair for pair in diff.pairs if not pair.changes]
        yield from _capped([f"= {pair_text(pair).removesuffix(': ')}" for pair in same], None)
    for use in diff.models:
        if use.changed or everything:
            yield f"  {'✗' if use.changed else '✓'} model {_line(model_text(use))}"
    for quantity in (diff.tokens, diff.duration):
        mark = {"over": "✗", "unknown": "!", "within": "✓"}.get(quantity.status, "·")
        yield f"  {mark} {_line(quantity_text(quantity))}"
    yield from (f"  ! {_line(problem)}" for problem in diff.problems)
    yield from (f"  note: {_line(note)}" for note in diff.notes)


def _capped(lines: Sequence[str], limit: int | None) -> Iterator[str]:
    shown = lines if limit is None else lines[:limit]
    yield from (f"  {_line(line)}" for line in shown)
    if len(shown) < len(lines):
        yield f"    … and {len(lines) - len(shown)} more"


def _line(text: str) -> str:
    return shorten(printable(text))
