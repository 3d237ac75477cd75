"""What a fleet's verdict rows say in aggregate: per contract and rule, how many traces passed,
failed or could not be evaluated, and at what rate; the worst traces; the inputs not read; and,
against the rows of an earlier run of the same suite, which rules started or stopped failing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from tracecheck.report.model import RuleTally

if TYPE_CHECKING:
    import pyarrow

__all__ = ["FleetSummary", "RuleChange", "WorstTrace", "compare", "summarize"]

WORST = 10  # traces named as the worst


@dataclass(frozen=True, slots=True)
class WorstTrace:
    source: str
    trace_id: str
    rules_failed: int  # rules that failed or could not be evaluated, over every contract
    violations: int


@dataclass(frozen=True, slots=True)
class NotRead:
    source: str
    failure: str  # unreadable or ambiguous
    message: str


@dataclass(frozen=True, slots=True)
class FleetSummary:
    traces: int  # distinct (source, trace id) checked
    verdicts: dict[str, int]  # verdict status -> how many (trace, contract) verdicts
    tallies: tuple[RuleTally, ...]
    worst: tuple[WorstTrace, ...]
    not_read: tuple[NotRead, ...]

    @property
    def status(self) -> Literal["pass", "fail", "error"]:
        if self.verdicts.get("error"):
            return "error"
        return "fail" if self.verdicts.get("fail") else "pass"


@dataclass(frozen=True, slots=True)
class RuleChange:
    """How one rule fared against the baseline run: `change` is `started failing` (it failed
    or could not be evaluated on no trace before), `stopped failing`, `fails more`, `fails
    less`, `new` or `gone`."""

    contract: str
    rule: str
    change: str
    before: RuleTally | None
    after: RuleTally | None


def summarize(table: pyarrow.Table) -> FleetSummary:
    """The summary of verdict rows (`read_verdicts`, or rows of `verdict_rows`)."""
    import pyarrow.compute as pc

    rules = table.filter(pc.is_valid(table["rule"]))
    return FleetSummary(
        traces=_distinct_traces(rules),
        verdicts=_verdict_counts(rules),
        tallies=_tallies(rules),
        worst=_worst(rules),
        not_read=_not_read(table.filter(pc.is_valid(table["failure"]))),
    )


def compare(after: FleetSummary, before: FleetSummary) -> list[RuleChange]:
    """Every rule whose failure rate differs between two runs, rules that started failing
    first."""
    old = {(tally.contract, tally.rule): tally for tally in before.tallies}
    new = {(tally.contract, tally.rule): tally for tally in after.tallies}
    changes = []
    for key in dict.fromkeys([*new, *old]):
        was, now = old.get(key), new.get(key)
        change = _change(was, now)
        if change is not None:
            changes.append(RuleChange(key[0], key[1], change, was, now))
    order = ("started failing", "fails more", "new", "gone", "fails less", "stopped failing")
    return sorted(changes, key=lambda c: (order.index(c.change), c.contract, c.rule))


def _change(was: RuleTally | None, now: RuleTally | None) -> str | None:
    if was is None:
        return "new"
    if now is None:
        return "gone"
    bad_before, bad_now = was.failed + was.errors, now.failed + now.errors
    if not bad_before and bad_now:
        return "started failing"
    if bad_before and not bad_now:
        return "stopped failing"
    if now.failure_rate > was.failure_rate:
        return "fails more"
    if now.failure_rate < was.failure_rate:
        return "fails less"
    return None


def _distinct_traces(rules: pyarrow.Table) -> int:
    distinct: int = rules.group_by(["source", "trace_id"]).aggregate([]).num_rows
    return distinct


def _verdict_counts(rules: pyarrow.Table) -> dict[str, int]:
    verdicts = rules.group_by(["source", "trace_id", "contract", "verdict"]).aggregate([])
    counts = verdicts.group_by("verdict").aggregate([("verdict", "count")]).to_pylist()
    return {row["verdict"]: row["verdict_count"] for row in counts}


def _tallies(rules: pyarrow.Table) -> tuple[RuleTally, ...]:
    grouped = rules.group_by(["contract", "rule", "status"]).aggregate([("status", "count")])
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for row in grouped.to_pylist():
        counts.setdefault((row["contract"], row["rule"]), {})[row["status"]] = row["status_count"]
    return tuple(
        RuleTally(
            contract,
            rule,
            passed=by.get("pass", 0),
            failed=by.get("fail", 0),
            errors=by.get("error", 0),
            skipped=by.get("skipped", 0),
        )
        for (contract, rule), by in sorted(counts.items())
    )


def _worst(rules: pyarrow.Table) -> tuple[WorstTrace, ...]:
    import pyarrow.compute as pc

    bad = rules.filter(pc.is_in(rules["status"], value_set=_strings("fail", "error")))
    per_trace = bad.group_by(["source", "trace_id"]).aggregate(
        [("rule", "count"), ("violations", "sum")]
    )
    ranked = sorted(
        per_trace.to_pylist(),
        key=lambda row: (
            -row["rule_count"],
            -row["violations_sum"],
            row["source"],
            row["trace_id"],
        ),
    )
    return tuple(
        WorstTrace(row["source"], row["trace_id"], row["rule_count"], row["violations_sum"])
        for row in ranked[:WORST]
    )


def _not_read(failures: pyarrow.Table) -> tuple[NotRead, ...]:
    columns = failures.select(["source", "failure", "detail"]).to_pylist()
    return tuple(NotRead(row["source"], row["failure"], row["detail"] or "") for row in columns)


def _strings(*values: str) -> pyarrow.Array:
    import pyarrow as pa

    return pa.array(values, pa.string())
