"""Redaction that keeps the verdict: the contracts checked on a trace as recorded and on its
redacted copy, and every rule whose outcome differs between the two. A redacted trace that a
contract judges otherwise than the original is not a faithful copy to share for review: the
reviewer would see a run that did not happen."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO

from tracecheck.check import check
from tracecheck.contract import Contract
from tracecheck.readers import read_traces
from tracecheck.spans import Trace
from tracecheck.verdict import RuleResult, Verdict

__all__ = ["VerdictChange", "verdict_changes", "verdicts_of"]

# What a rule's outcome is, for this comparison: its status, and which spans violate it (the
# violations' words are left out: a pseudonym in them is the redaction working).
Outcome = tuple[str, tuple[str | None, ...]]


@dataclass(frozen=True, slots=True)
class VerdictChange:
    """One rule of one contract on one trace, judged otherwise after redaction. `before` and
    `after` say how (`pass`, `fail (2 violations)`, `error`, `absent`)."""

    trace_id: str | None
    contract: str
    rule: str
    before: str
    after: str

    def __str__(self) -> str:
        trace = f"trace {self.trace_id}" if self.trace_id else "a trace with no id"
        return f"{self.contract} / {self.rule} on {trace}: {self.before} before redaction, {self.after} after"


def verdicts_of(traces: Iterable[Trace], contracts: Sequence[Contract]) -> list[Verdict]:
    """Each contract's verdict on each trace, trace by trace."""
    return [check(trace, contract) for trace in traces for contract in contracts]


def verdict_changes(
    before: Sequence[Verdict],
    redacted: IO[bytes] | bytes,
    contracts: Sequence[Contract],
    *,
    format: str | None = None,
) -> list[VerdictChange]:
    """The rules judged otherwise on the `redacted` bytes (read as `format`) than in the
    verdicts `before` of the original; a trace or rule found on one side only is a change."""
    data = redacted if isinstance(redacted, bytes) else redacted.read()
    after = verdicts_of(read_traces(data, format=format), contracts)
    was, now = _outcomes(before), _outcomes(after)
    changes = []
    for key in [*was, *(key for key in now if key not in was)]:
        old, new = was.get(key), now.get(key)
        if old != new:
            said = _said(old), _said(new)
            if said[0] == said[1]:  # as many violations, at other spans
                said = _said(old, spans=True), _said(new, spans=True)
            changes.append(VerdictChange(*key, *said))
    return changes


def _outcomes(verdicts: Iterable[Verdict]) -> dict[tuple[str | None, str, str], Outcome]:
    return {
        (verdict.trace_id, verdict.contract, rule.label): _outcome(rule)
        for verdict in verdicts
        for rule in verdict.rules
    }


def _outcome(rule: RuleResult) -> Outcome:
    return rule.status, tuple(violation.span_id for violation in rule.violations)


def _said(outcome: Outcome | None, *, spans: bool = False) -> str:
    if outcome is None:
        return "absent"
    status, where = outcome
    if not where:
        return status
    at = f" at span {', '.join(map(str, where))}" if spans else ""
    return f"{status} ({len(where)} violation{'s' * (len(where) != 1)}{at})"
