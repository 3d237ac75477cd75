"""What a reporter is given: one verdict, with the trace file and contract file it came from,
and the inputs that could not be read at all; for the HTML page, rule tallies, its header and
the traces it draws."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from tracecheck.verdict import Verdict

if TYPE_CHECKING:
    from tracecheck.report.timeline import Timeline

__all__ = ["CheckedTrace", "ReadFailure", "RuleTally"]


@dataclass(frozen=True, slots=True)
class CheckedTrace:
    source: str  # the trace file (of a directory, the file holding the trace's first span)
    contract_source: str | None  # the contract file, when the contract came from one
    verdict: Verdict
    seconds: float = 0.0  # how long the check took, for reports that show it
    # Every file the trace was read from, when it is spread over several files of a directory.
    sources: tuple[str, ...] = ()
    # What the HTML report draws of the trace (`check --html`): carried by the first verdict
    # of each trace only, so that it travels with the verdicts (to disk, from `--jobs` workers).
    timeline: Timeline | None = None

    def __reduce__(self) -> tuple[type[CheckedTrace], tuple[object, ...]]:
        # Pickled by its fields in order, as `Verdict` is (verdict.py says why).
        where = (self.source, self.contract_source, self.verdict, self.seconds, self.sources)
        return (CheckedTrace, (*where, self.timeline))

    @property
    def files(self) -> str:
        """How a report names where the trace was read: its file, or every file it spans."""
        return ", ".join(self.sources) if len(self.sources) > 1 else self.source


@dataclass(frozen=True, slots=True)
class ReadFailure:
    """A trace input that gave no trace to check: unreadable, empty, or of an ambiguous format."""

    source: str
    kind: Literal["unreadable", "ambiguous"]
    message: str  # the whole error, led by the file name


@dataclass(frozen=True, slots=True)
class RuleTally:
    """How one rule of one contract fared over many traces: the table and charts of a fleet
    report are drawn from these."""

    contract: str
    rule: str
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errors + self.skipped

    @property
    def failure_rate(self) -> float:
        """The share of traces the rule failed or could not judge (0 when none was checked)."""
        judged = self.total - self.skipped
        return (self.failed + self.errors) / judged if judged else 0.0
