"""What a reporter is given: one verdict, with the trace file and contract file it came from,
and the inputs that could not be read at all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tracecheck.verdict import Verdict

__all__ = ["CheckedTrace", "ReadFailure"]


@dataclass(frozen=True, slots=True)
class CheckedTrace:
    source: str  # the trace file
    contract_source: str | None  # the contract file, when the contract came from one
    verdict: Verdict
    seconds: float = 0.0  # how long the check took, for reports that show it


@dataclass(frozen=True, slots=True)
class ReadFailure:
    """A trace input that gave no trace to check: unreadable, empty, or of an ambiguous format."""

    source: str
    kind: Literal["unreadable", "ambiguous"]
    message: str  # the whole error, led by the file name
