"""What a reporter is given: one verdict, with the trace file and contract file it came from."""

from __future__ import annotations

from dataclasses import dataclass

from tracecheck.verdict import Verdict

__all__ = ["CheckedTrace"]


@dataclass(frozen=True, slots=True)
class CheckedTrace:
    source: str  # the trace file
    contract_source: str | None  # the contract file, when the contract came from one
    verdict: Verdict
    seconds: float = 0.0  # how long the check took, for reports that show it
