"""One task of a check, as a worker runs it: read one unit of input (a file, some files of a
directory, or a part of a large file's traces) and check every trace read against every
contract. What comes back is small: verdicts and a few facts per trace, never spans."""

from __future__ import annotations

import dataclasses
import pickle
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from tracecheck.bugs import internal_error
from tracecheck.report.model import CheckedTrace, ReadFailure
from tracecheck.run.storage import Staged, staged

if TYPE_CHECKING:
    from tracecheck.contract import Contract
    from tracecheck.errors import TraceReadError
    from tracecheck.report.spool import Mark, Records
    from tracecheck.rules.capture import CaptureMode
    from tracecheck.run.facts import TraceFacts
    from tracecheck.run.task_key import TaskKey
    from tracecheck.spans import Trace

__all__ = [
    "Chained",
    "Spilled",
    "TraceResult",
    "Unit",
    "UnitResult",
    "Work",
    "check_unit",
    "check_units",
    "failed_unit",
    "missing_package",
]


class Unit(NamedTuple):
    """What one task reads of an input (`source`, as given): its single file, or some files
    of its directory `root` (a local path or a URL); of a large file's traces in first-seen
    order the k-th of n runs (`part`); when traces spread over several files are read again
    together, only the traces `only` names. A stream given as an input was copied to a file
    here (`spooled`), which only this process reads, and is named `label` in what reports
    say of it. Local paths are absolute, so that a worker in another working directory reads
    the files the caller named; `given` pairs each absolute prefix with the caller's spelling,
    which reports keep."""

    source: str
    root: str | None
    files: tuple[str, ...]
    part: tuple[int, int] | None = None
    only: frozenset[str] | None = None
    size: int = 0  # bytes, as listed: how tasks are batched
    label: str | None = None
    spooled: bool = False
    given: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        """The input as messages and reports name it."""
        return self.label or self.source

    def as_given(self, text: str) -> str:
        """`text` (a message, a file name) with the absolute paths spelled as the caller did."""
        for absolute, spelled in self.given:
            text = text.replace(absolute, spelled)
        return text


class Work(NamedTuple):
    """What every task of a check needs, sent with it to a worker."""

    contracts: tuple[Contract, ...]
    format: str | None = None
    capture: CaptureMode | None = None  # None: each contract's own (strict unless it says)
    wanted: str | None = None  # one trace id, as traces spell it
    storage_options: dict[str, Any] | None = None
    check: Callable[..., Any] | None = None  # None: tracecheck.check.check
    read: Callable[..., Any] | None = None  # None: tracecheck.readers.by_trace.visit_traces
    # The redaction profile of the timelines an HTML page draws (None: no page is drawn);
    # the first verdict of a trace carries its timeline, of every trace or only of those
    # some contract did not pass (`failing_only`: a fleet's page shows its worst traces).
    timelines: str | None = None
    failing_only: bool = False
    # Send back verdict rows (what this makes of a unit's traces: an Arrow table) instead of
    # verdicts, and only the verdicts of traces that carry a timeline: what `fleet check`
    # needs, at a fraction of the client's work per run.
    rows: Callable[[Sequence[TraceResult]], Any] | None = None
    # The attribute that names each run's task, recorded in its facts (`TraceFacts.task`).
    task_key: TaskKey | None = None
    # In this process: where the traces checked wait, pickled, instead of in memory (`Spilled`).
    spill: Records | None = None


class TraceResult(NamedTuple):
    """One trace's verdicts (one per contract, in contract order) and facts."""

    trace_id: str | None
    facts: TraceFacts
    checked: tuple[CheckedTrace, ...]


class UnitResult(NamedTuple):
    unit: Unit
    traces: Sequence[TraceResult] = ()
    failures: tuple[ReadFailure, ...] = ()
    notes: tuple[str, ...] = ()
    read: int = 0  # traces read, the wanted one or not
    spans: int = 0
    trace_ids: tuple[str | None, ...] = ()  # of every trace checked, in order
    rows: Any = None  # with `Work.rows`: the verdict rows of `trace_ids` (a pyarrow.Table)
    # False when the unit's files of a directory held nothing read and none is a trace file
    # (a README alone): `check` names such a directory apart from one whose traces are empty.
    trace_files: bool = True


def check_units(units: Sequence[Unit], work: Work) -> list[UnitResult]:
    """`check_unit` of each unit, in order: one task of several small files. The cyclic
    garbage collector is paused meanwhile: a trace of 100k spans is millions of objects in no
    reference cycle, yet every pass of the collector walks all of them (0.15-0.3 s of a 3 s
    check)."""
    from tracecheck.readers.common import collector_paused

    with collector_paused():
        return [check_unit(unit, work) for unit in units]


def check_unit(unit: Unit, work: Work) -> UnitResult:
    """Read `unit` and check its traces; a reader's or checker's bug fails the unit alone."""
    try:
        if unit.spooled:  # a stream copied to a file here: named as the stream
            return _read_and_check(unit, work, Staged(unit.files[0], unit.files, {}))
        with staged(unit.root, unit.files, work.storage_options) as local:
            names = {**local.names, **dict(unit.given)}
            return _read_and_check(unit, work, local._replace(names=names))
    except Exception as exc:  # a bug, or remote storage that fails while it is copied
        return failed_unit(unit, exc)


DOES_NOT_EXIST = ": does not exist"  # how a failure's message ends for a file not found


def failed_unit(unit: Unit, exc: BaseException, *, reading: bool = False) -> UnitResult:
    """The result of a unit that could not be read (a reader's bug: `reading`) or checked at
    all (a worker that died)."""
    where = unit.as_given(unit.files[0]) if len(unit.files) == 1 and not unit.spooled else unit.name
    if isinstance(exc, OSError) and not isinstance(exc, FileNotFoundError):
        reason = f"cannot be read: {exc.strerror or type(exc).__name__}"
    elif isinstance(exc, FileNotFoundError):
        reason = DOES_NOT_EXIST.removeprefix(": ")
    elif isinstance(exc, ImportError):  # where the unit ran: fsspec's backend, or tracecheck
        reason = missing_package(exc)
    else:
        reason = f"could not be {'read' if reading else 'checked'}: {internal_error(exc)}"
    return UnitResult(unit, failures=(ReadFailure(where, "unreadable", f"{where}: {reason}"),))


def missing_package(exc: ImportError) -> str:
    """Why a package that is not installed stops an input: fsspec's own words for a URL's
    backend (`Please install gcsfs to access Google Storage`), else the module's name."""
    from tracecheck.report.safe import printable

    words = str(exc) if exc.name is None else f"no module named {exc.name!r}"
    return f"cannot be read without a package that is not installed: {printable(words)}"


def _read_and_check(unit: Unit, work: Work, local: Staged) -> UnitResult:
    from tracecheck.errors import TraceReadError
    from tracecheck.readers.by_trace import visit_traces

    read = work.read or visit_traces
    results: list[TraceResult] = []
    trace_ids: list[str | None] = []
    notes: dict[str, None] = {}
    counts = {"read": 0, "spans": 0}
    spill = work.spill
    start = spill.mark() if spill is not None else (0, 0)

    def restart() -> None:
        results.clear()
        trace_ids.clear()
        notes.clear()
        counts.update(read=0, spans=0)
        if spill is not None:
            spill.truncate(start)

    def keep(trace: TraceResult) -> None:
        trace_ids.append(trace.trace_id)
        if spill is None or work.rows is not None:
            results.append(trace)
        else:
            spill.append(pickle.dumps(trace, pickle.HIGHEST_PROTOCOL))

    def each(trace: Trace) -> None:
        counts["read"] += 1
        counts["spans"] += len(trace.spans)
        if work.wanted is not None and trace.trace_id != work.wanted:
            return
        if unit.only is not None and trace.trace_id not in unit.only:
            return
        notes.update(dict.fromkeys(local.rename(str(note)) for note in trace.notes))
        keep(_checked(trace, unit, work, local))

    broken: list[TraceReadError] = []
    options: dict[str, Any] = {"format": work.format, "failures": broken, "restart": restart}
    if unit.root is not None:
        options["share"] = [Path(path) for path in local.files]
    if unit.part is not None:
        options["part"] = unit.part
    if unit.spooled:
        options["name"] = unit.name
    try:
        read(local.source, each, **options)
    except TraceReadError as exc:
        restart()
        broken.append(exc)
    except Exception as exc:  # a reader's bug: this input is unreadable, the others are not
        return failed_unit(unit, exc, reading=True)
    failures = tuple(_read_failure(exc, unit, local) for exc in broken)
    trace_files = bool(counts["read"] or broken or unit.root is None or _trace_files(local))
    rows = None
    if work.rows is not None:
        rows = work.rows(results)
        results = [trace for trace in results if trace.checked and trace.checked[0].timeline]
    traces: Sequence[TraceResult] = tuple(results)
    if spill is not None and work.rows is None:
        traces = Spilled(spill, start, spill.mark(), tuple(trace_ids))
    return UnitResult(
        unit,
        traces,
        failures,
        tuple(notes),
        counts["read"],
        counts["spans"],
        tuple(trace_ids),
        rows,
        trace_files,
    )


def _trace_files(local: Staged) -> bool:
    """Whether some file of a directory's unit is a trace file, as a directory's reading
    decides it (a file no reader recognises is passed over)."""
    from tracecheck.errors import TraceReadError, UnrecognizedFormatError
    from tracecheck.readers import detect_format

    for path in local.files:
        try:
            detect_format(path)
        except UnrecognizedFormatError:
            continue
        except TraceReadError:  # ambiguous or unreadable: not passed over
            return True
        return True
    return False


def _checked(trace: Trace, unit: Unit, work: Work, local: Staged) -> TraceResult:
    from tracecheck.check import check, check_guarded
    from tracecheck.run.facts import trace_facts

    source = local.rename(trace.source) if unit.root is not None and trace.source else unit.name
    sources = tuple(local.rename(name) for name in trace.sources) if unit.root else ()
    sources = sources if len(sources) > 1 else ()
    verdicts = []
    for contract in work.contracts:
        started = time.perf_counter()
        verdict = check_guarded(work.check or check, trace, contract, capture=work.capture)
        took = time.perf_counter() - started
        if local.names and verdict.reading_notes:  # the reader's notes name the files it read
            notes = tuple(map(local.rename, verdict.reading_notes))
            if notes != verdict.reading_notes:
                verdict = dataclasses.replace(verdict, reading_notes=notes)
        verdicts.append(CheckedTrace(source, contract.source, verdict, took, sources))
    drawn = work.timelines is not None and verdicts
    if drawn and (not work.failing_only or any(not v.verdict.ok for v in verdicts)):
        from tracecheck.report.timeline import timeline_of

        timeline = timeline_of(trace, profile=work.timelines or "default")
        verdicts[0] = dataclasses.replace(verdicts[0], timeline=timeline)
    return TraceResult(trace.trace_id, trace_facts(trace, work.task_key), tuple(verdicts))


def _read_failure(exc: TraceReadError, unit: Unit, local: Staged) -> ReadFailure:
    """The failure of the unit's input, or of the file of its directory that broke."""
    from tracecheck.errors import AmbiguousFormatError

    kind: Literal["unreadable", "ambiguous"] = (
        "ambiguous" if isinstance(exc, AmbiguousFormatError) else "unreadable"
    )
    where = unit.source if unit.root is None else local.rename(exc.source)
    return ReadFailure(where, kind, local.rename(str(exc)))


class Spilled(Sequence[TraceResult]):
    """The traces a unit checked in this process, pickled in the run's spool (`Records`: in
    memory up to 256 KiB, then on disk) and read back in order when asked, so that memory does
    not grow with the verdicts of a large input; without the traces `gone` names (read again
    elsewhere). `ids` are the traces' ids in order: how many are left is told without reading
    any back."""

    def __init__(
        self,
        records: Records,
        start: Mark,
        stop: Mark,
        ids: tuple[str | None, ...],
        gone: frozenset[str | None] = frozenset(),
    ) -> None:
        self.records, self.start, self.stop, self.ids, self.gone = records, start, stop, ids, gone
        self.size = sum(trace_id not in gone for trace_id in ids)

    def without(self, gone: Iterable[str | None]) -> Spilled:
        return Spilled(self.records, self.start, self.stop, self.ids, self.gone | frozenset(gone))

    def __iter__(self) -> Iterator[TraceResult]:
        for data in self.records.between(self.start, self.stop):
            trace: TraceResult = pickle.loads(data)
            if trace.trace_id not in self.gone:
                yield trace

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: Any) -> Any:  # read whole: only a caller that indexes pays
        return list(self)[index]


class Chained(Sequence[TraceResult]):
    """Traces of several units in order, read from each when iterated."""

    def __init__(self, parts: Iterable[Sequence[TraceResult]]) -> None:
        self.parts = tuple(part for part in parts if len(part))

    def __iter__(self) -> Iterator[TraceResult]:
        for part in self.parts:
            yield from part

    def __len__(self) -> int:
        return sum(len(part) for part in self.parts)

    def __getitem__(self, index: Any) -> Any:
        return list(self)[index]


def joined(parts: Iterable[Sequence[TraceResult]]) -> Sequence[TraceResult]:
    """The traces of `parts` in order: a tuple when every part is one (what crosses processes),
    otherwise read from each part when asked."""
    parts = list(parts)
    if all(isinstance(part, tuple) for part in parts):
        return tuple(trace for part in parts for trace in part)
    return Chained(parts)
