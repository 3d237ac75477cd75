"""Checking a fleet of runs: many inputs (files, directories, globs, object storage through
fsspec) checked by `tracecheck.run` on a Dask cluster or local worker processes, verdicts
written as a Parquet dataset (one row per trace, contract and rule), and summaries of those
rows that compare two runs of a suite. Needs the `fleet` extra (`pip install 'agent-tracecheck[fleet]'`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracecheck.lazy import lazy_names

if TYPE_CHECKING:
    from tracecheck.fleet.summary import FleetSummary, RuleChange, compare, summarize
    from tracecheck.fleet.verdicts import read_verdicts, verdict_schema, write_verdicts
    from tracecheck.run.engine import InputOutcome, check_many
    from tracecheck.run.facts import TraceFacts

__all__ = [
    "FleetSummary",
    "InputOutcome",
    "RuleChange",
    "TraceFacts",
    "check_many",
    "compare",
    "read_verdicts",
    "summarize",
    "verdict_schema",
    "write_verdicts",
]

_HOMES = {
    # What runs the checks is the library's (`tracecheck.run`); the fleet names it too.
    "InputOutcome": "tracecheck.run.engine",
    "check_many": "tracecheck.run.engine",
    "TraceFacts": "tracecheck.run.facts",
    "FleetSummary": "tracecheck.fleet.summary",
    "RuleChange": "tracecheck.fleet.summary",
    "compare": "tracecheck.fleet.summary",
    "summarize": "tracecheck.fleet.summary",
    "verdict_schema": "tracecheck.fleet.verdicts",
    "read_verdicts": "tracecheck.fleet.verdicts",
    "write_verdicts": "tracecheck.fleet.verdicts",
}

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
