"""A fleet summary for people (a table per contract and rule, the worst traces, the inputs not
read, the rules that changed against a baseline) and for machines (JSON, `"version": 1`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracecheck.fleet.summary import FleetSummary, RuleChange
from tracecheck.report.model import RuleTally
from tracecheck.report.safe import printable, shorten

__all__ = ["summary_json", "summary_lines"]

NOT_READ_SHOWN = 20  # inputs named in the text; the JSON names every one


def summary_lines(
    summary: FleetSummary, changes: Sequence[RuleChange] | None = None, baseline: str = ""
) -> list[str]:
    verdicts = summary.verdicts
    lines = [
        f"{summary.traces} trace(s) checked: {verdicts.get('pass', 0)} verdict(s) pass, "
        f"{verdicts.get('fail', 0)} fail, {verdicts.get('error', 0)} could not be evaluated"
        + (f" · {len(summary.not_read)} input(s) not read" if summary.not_read else "")
    ]
    if summary.tallies:
        lines += ["", *_table(summary.tallies)]
    if summary.worst:
        lines += ["", "worst traces:"]
        lines += [
            f"  {printable(w.trace_id)}  {printable(w.source)}  "
            f"{w.rules_failed} rule(s) failed, {w.violations} violation(s)"
            for w in summary.worst
        ]
    if summary.not_read:
        lines += ["", "inputs not read:"]
        lines += [f"  {shorten(printable(n.message))}" for n in summary.not_read[:NOT_READ_SHOWN]]
        if len(summary.not_read) > NOT_READ_SHOWN:
            lines.append(f"  and {len(summary.not_read) - NOT_READ_SHOWN} more")
    if changes is not None:
        lines += ["", f"against {printable(baseline) or 'the baseline'}:"]
        lines += [f"  {_change_line(change)}" for change in changes] or ["  no rule changed"]
    return lines


def _table(tallies: Sequence[RuleTally]) -> list[str]:
    header = ("contract", "rule", "pass", "fail", "error", "skipped", "failure rate")
    rows = [
        (
            printable(t.contract),
            printable(t.rule),
            str(t.passed),
            str(t.failed),
            str(t.errors),
            str(t.skipped),
            f"{t.failure_rate:.1%}",
        )
        for t in tallies
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [
            cell.ljust(widths[i]) if i < 2 else cell.rjust(widths[i]) for i, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def _change_line(change: RuleChange) -> str:
    before = f"{change.before.failure_rate:.1%}" if change.before else "absent"
    after = f"{change.after.failure_rate:.1%}" if change.after else "absent"
    return f"{change.change}: {printable(change.contract)} / {printable(change.rule)} ({before} → {after})"


def summary_json(
    summary: FleetSummary, changes: Sequence[RuleChange] | None = None
) -> dict[str, Any]:
    report: dict[str, Any] = {
        "version": 1,
        "status": summary.status,
        "traces": summary.traces,
        "verdicts": dict(sorted(summary.verdicts.items())),
        "rules": [_tally(t) for t in summary.tallies],
        "worst": [
            {
                "source": w.source,
                "trace_id": w.trace_id,
                "rules_failed": w.rules_failed,
                "violations": w.violations,
            }
            for w in summary.worst
        ],
        "unread": [
            {"source": n.source, "kind": n.failure, "message": n.message} for n in summary.not_read
        ],
    }
    if changes is not None:
        report["changes"] = [
            {
                "contract": c.contract,
                "rule": c.rule,
                "change": c.change,
                "before": _tally(c.before) if c.before else None,
                "after": _tally(c.after) if c.after else None,
            }
            for c in changes
        ]
    return report


def _tally(tally: RuleTally) -> dict[str, Any]:
    return {
        "contract": tally.contract,
        "rule": tally.rule,
        "pass": tally.passed,
        "fail": tally.failed,
        "error": tally.errors,
        "skipped": tally.skipped,
        "failure_rate": round(tally.failure_rate, 6),
    }
