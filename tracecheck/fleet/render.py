"""A fleet summary for people (a table per contract and rule, the worst traces, the inputs not
read, the rules that changed against a baseline) and for machines (JSON, `"version": 1`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from tracecheck.fleet.comparison import RuleComparison
from tracecheck.fleet.reliability import RuleReliability
from tracecheck.fleet.summary import FleetSummary, RuleChange
from tracecheck.report.model import RuleTally
from tracecheck.report.safe import printable, shorten

__all__ = [
    "comparison_json",
    "comparison_lines",
    "reliability_json",
    "reliability_lines",
    "summary_json",
    "summary_lines",
]

# Fewer runs than this of a rule are said to be few: their interval is wide, not a finding.
FEW_RUNS = 20

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


def reliability_lines(
    items: Sequence[RuleReliability], tasks_by: str, untasked: int = 0
) -> list[str]:
    """Each rule's reliability over repeated runs, a line each, flaky rules first; `untasked`
    runs did not say their task (each is then a task of its own)."""
    if not items:
        return []
    k = ", ".join(map(str, sorted({item.k for item in items})))
    lines = [
        f"reliability over repeated runs (tasks by {printable(tasks_by)}; pass^k of k={k} runs):"
    ]
    if untasked:
        lines.append(
            f"  {untasked} run(s) have no {printable(tasks_by)}: each counts as a task of its own"
        )
    order = {"flaky": 0, "stable fail": 1, "stable pass": 2}
    for item in sorted(items, key=lambda item: order[item.stability]):
        low, high = item.interval
        hat = "n/a" if item.pass_hat_k is None else f"{item.pass_hat_k:.2f}"
        few = f", few runs ({item.runs})" if item.runs < FEW_RUNS else ""
        line = (
            f"  {printable(item.contract)} / {printable(item.rule)}: {item.stability} — "
            f"{item.passes}/{item.runs} runs passed ({item.rate:.1%}, 95% CI "
            f"{low:.1%}–{high:.1%}{few}), pass^{item.k} {hat}"
        )
        if item.flaky_tasks:
            line += f", flaky on {item.flaky_tasks} of {item.tasks} tasks"
        if item.example is not None:
            where = printable(item.example.source)
            detail = shorten(printable(item.example.detail or ""), 120)
            span_id = item.example.span_id
            # Most rules' words name the span already: it is named once.
            span = f" span {printable(span_id)}" if span_id and span_id not in detail else ""
            line += f"; e.g. {where}{span}: {detail}"
        lines.append(line)
    return lines


def reliability_json(
    items: Sequence[RuleReliability], tasks_by: str, untasked: int = 0
) -> dict[str, Any]:
    return {
        "tasks_by": tasks_by,
        "runs_without_task": untasked,
        "rules": [_reliability(item) for item in items],
    }


def _reliability(item: RuleReliability) -> dict[str, Any]:
    return {
        "contract": item.contract,
        "rule": item.rule,
        "tasks": item.tasks,
        "runs": item.runs,
        "passes": item.passes,
        "pass_rate": round(item.rate, 6),
        "interval_95": [round(item.interval[0], 6), round(item.interval[1], 6)],
        "k": item.k,
        "pass_hat_k": None if item.pass_hat_k is None else round(item.pass_hat_k, 6),
        "stability": item.stability,
        "flaky_tasks": item.flaky_tasks,
        "example": None if item.example is None else asdict(item.example),
    }


def comparison_lines(items: Sequence[RuleComparison], before: str, after: str) -> list[str]:
    """Each rule's change between two fleets, regressions first, at the level the test used."""
    alpha = items[0].alpha if items else 0.05
    regressed = sum(item.change == "regressed" for item in items)
    improved = sum(item.change == "improved" for item in items)
    lines = [
        f"{printable(after)} against {printable(before)}: {regressed} rule(s) regressed, "
        f"{improved} improved (Fisher's exact test, one-sided, α = {alpha:g})"
    ]
    order = ["regressed", "improved", "no significant change", "only before", "only after"]
    for item in sorted(items, key=lambda item: order.index(item.change)):
        line = f"  {printable(item.contract)} / {printable(item.rule)}: {item.change}"
        if item.before is not None and item.after is not None:
            (p0, n0), (p1, n1) = item.before, item.after
            line += f" — {p0}/{n0} → {p1}/{n1} runs passed ({p0 / n0:.1%} → {p1 / n1:.1%})"
            line += f", p = {item.p_value:.3g}"
            differs = p0 * n1 != p1 * n0
            if item.change == "no significant change" and differs and min(n0, n1) < FEW_RUNS:
                line += f"; few runs ({min(n0, n1)}): a difference this size may be chance"
        lines.append(line)
    return lines


def comparison_json(items: Sequence[RuleComparison]) -> dict[str, Any]:
    return {
        "version": 1,
        "alpha": items[0].alpha if items else None,
        "test": "fisher-exact-one-sided",
        "rules": [
            {
                "contract": item.contract,
                "rule": item.rule,
                "change": item.change,
                "before": _passes(item.before),
                "after": _passes(item.after),
                "p_value": item.p_value,
            }
            for item in items
        ],
    }


def _passes(counts: tuple[int, int] | None) -> dict[str, int] | None:
    return None if counts is None else {"pass": counts[0], "runs": counts[1]}
