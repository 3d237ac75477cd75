"""The one way checks run: inputs (paths, globs, fsspec URLs, open streams) and contracts in,
each input's verdicts, reading notes and failures out, in input order, from an executor given as
a parameter: this process, local worker processes, or a Dask cluster. `check`, `check --jobs`,
`check --scheduler`, `fleet check` and the library all call `check_many`.

It imports the checker, the readers, the report model (what a checked trace is) and the
storage it reads from (fsspec, only for URLs); never the command line, the fleet's Parquet
verdicts or the pytest plugin, which sit above it. Its names are imported on first use, and
its values are named tuples rather than frozen dataclasses: `check` imports them on every
start, and a dataclass costs seven times as much to create (bench/README.md, "Command
start-up").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracecheck.lazy import lazy_names

if TYPE_CHECKING:
    from tracecheck.run.engine import InputOutcome, Progress, check_many
    from tracecheck.run.executors import ClusterLost, SchedulerAddressError
    from tracecheck.run.facts import TraceFacts
    from tracecheck.run.plan import NamedStream
    from tracecheck.run.task import TraceResult
    from tracecheck.run.task_key import TaskKey, parse_task_key

__all__ = [
    "ClusterLost",
    "InputOutcome",
    "NamedStream",
    "Progress",
    "SchedulerAddressError",
    "TaskKey",
    "TraceFacts",
    "TraceResult",
    "check_many",
    "parse_task_key",
]

_HOMES = {
    "InputOutcome": "tracecheck.run.engine",
    "Progress": "tracecheck.run.engine",
    "check_many": "tracecheck.run.engine",
    "ClusterLost": "tracecheck.run.executors",
    "SchedulerAddressError": "tracecheck.run.executors",
    "TraceFacts": "tracecheck.run.facts",
    "NamedStream": "tracecheck.run.plan",
    "TraceResult": "tracecheck.run.task",
    "TaskKey": "tracecheck.run.task_key",
    "parse_task_key": "tracecheck.run.task_key",
}

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
