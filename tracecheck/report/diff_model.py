"""What a report of `tracecheck diff` is given: the two inputs as named, the diff when both
could be read, and the inputs that could not."""

from __future__ import annotations

from dataclasses import dataclass

from tracecheck.diff.model import DiffStatus, RunDiff
from tracecheck.report.model import ReadFailure

__all__ = ["DiffReport"]


@dataclass(frozen=True, slots=True)
class DiffReport:
    baseline: str  # the baseline input as given (a file, a directory, <stdin>)
    run: str
    diff: RunDiff | None  # None when an input could not be read
    unread: tuple[ReadFailure, ...] = ()
    seconds: float = 0.0

    @property
    def status(self) -> DiffStatus:
        if self.diff is None or self.unread:
            return "error"
        return self.diff.status
