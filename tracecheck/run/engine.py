"""The one way checks run: every trace of every input (files, directories, globs, fsspec URLs,
open streams) against every contract, the tasks of `plan` run where `executors.runner` says
(this process, local worker processes, a Dask cluster), their outcomes taken back in input
order with a bounded number in flight, so that all three give the same verdicts, notes,
failures and order. `check`, `fleet check` and the library all call `check_many`.

A trace can be spread over several files of a directory (a run saved in pieces). Each file is
checked alone first; a trace found in more than one file of the same input is then read again
from all of those files together, and only that reading's verdicts are kept, so that a count
spread over files is never judged in pieces (a false PASS of `atMost`)."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from tracecheck.report.model import CheckedTrace, ReadFailure
from tracecheck.run.executors import ClusterLost, Pending, Runner, in_this_process, runner
from tracecheck.run.plan import PART_BYTES, Planned, plan
from tracecheck.run.task import Spilled, TraceResult, Unit, UnitResult, Work, failed_unit, joined

if TYPE_CHECKING:
    from tracecheck.contract import Contract
    from tracecheck.rules.capture import CaptureMode
    from tracecheck.run.plan import Input
    from tracecheck.run.task_key import TaskKey

__all__ = ["InputOutcome", "Progress", "check_many"]

# Tasks in flight per worker: enough to keep every worker busy while results are taken back
# in order, few enough that a fleet of millions of files is not all queued at once.
IN_FLIGHT_PER_WORKER = 8
# How much one task checks at most: files are batched up to these many bytes or files.
BATCH_BYTES = 8 << 20
BATCH_UNITS = 64


class InputOutcome(NamedTuple):
    """What checking one input gave: each trace's verdicts and facts, in reading order, the
    input's failures and notes, and how many traces and spans were read."""

    source: str
    traces: Sequence[TraceResult]
    failures: tuple[ReadFailure, ...]
    notes: tuple[str, ...]
    read: int
    spans: int
    # With `rows`: the verdict rows workers built (Arrow tables), and `traces` holds only the
    # traces that carry a timeline.
    rows: tuple[Any, ...] = ()

    def checked(self) -> Iterator[CheckedTrace]:
        for trace in self.traces:
            yield from trace.checked


class Progress(Protocol):
    """What the caller shows while an input's outcome is awaited (`check`'s progress line):
    made with the input's name and size in bytes, told how far the reading of a directory's
    files has got as their results come in, stopped when all are in, then told how many spans
    were read."""

    def advance(self, files: int, of: int, spans: int) -> None: ...

    def stop(self) -> None: ...

    def done(self, spans: int) -> None: ...


def check_many(
    inputs: Input | Sequence[Input],
    contracts: Contract | str | os.PathLike[str] | Mapping[str, Any] | Sequence[Any],
    *,
    executor: Any = None,
    scheduler: str | None = None,
    jobs: int = 1,
    format: str | None = None,
    capture: CaptureMode | None = None,
    trace_id: str | None = None,
    storage_options: dict[str, Any] | None = None,
    timelines: str | None = None,
    failing_only: bool = False,
    rows: Callable[[Sequence[TraceResult]], Any] | None = None,
    task_key: TaskKey | str | None = None,
    progress: Callable[[str, int], Progress] | None = None,
    read: Callable[..., Any] | None = None,
    check: Callable[..., Any] | None = None,
    part_bytes: int = PART_BYTES,
    client: Any = None,
) -> Iterator[InputOutcome]:
    """Every trace of every input checked against every contract, input by input in the
    order given (a glob's matches in sorted order, each input once however it is spelled).
    Inputs are files, directories, globs, fsspec URLs (`s3://bucket/runs/`), as `str` or
    `os.PathLike`, or open binary streams (`NamedStream` names one), one or a sequence;
    contracts are compiled `Contract`s or what `compile_contract` takes, one or a sequence.

    Work runs on `executor` (a `concurrent.futures.Executor` or a `distributed.Client`; the
    `client=` of earlier releases is the same), on the Dask scheduler at `scheduler`, on
    `jobs` local worker processes, or (jobs=1) here; the outcomes are the same from each.
    With `timelines` (a redaction profile), each trace's first verdict carries the timeline
    an HTML page draws (only of traces some contract did not pass, when `failing_only`).
    With `rows` (`tracecheck.fleet.verdicts.rows_table`), workers send back verdict rows
    (`InputOutcome.rows`) and only the traces with a timeline. With `task_key` (a `TaskKey` or
    its spelling, `resource.attributes["agent.task.id"]`), each trace's facts say which task
    it is a run of (`TraceFacts.task`). `progress` is told when an
    input is awaited; `read` and `check` stand in for the reader and the checker. A local
    file of records larger than `part_bytes` is checked in parts, by trace."""
    work = Work(
        tuple(_compiled(contract) for contract in _many(contracts, contracts=True)),
        format,
        capture,
        trace_id.strip().lower() if trace_id is not None else None,
        dict(storage_options or {}),
        check=check,
        read=read,
        timelines=timelines,
        failing_only=failing_only,
        rows=rows,
        task_key=_task_key(task_key),
    )
    place = executor if executor is not None else client
    given = _many(inputs)
    options: dict[str, Any] = {
        "format": format,
        "storage_options": work.storage_options,
        "part_bytes": part_bytes,
    }
    with ExitStack() as stack:
        if place is None and scheduler is None:
            # Local work is planned first: a pool is started only for two tasks or more.
            planned = plan(given, workers=jobs, spool=stack, **options)
            tasks = sum(not unit.spooled for item in planned for unit in item.units)
            run = stack.enter_context(runner(work, jobs=jobs if tasks > 1 else 1))
        else:
            run = stack.enter_context(runner(work, executor=place, scheduler=scheduler))
            planned = plan(given, workers=run.workers, spool=stack, **options)
        yield from outcomes(run, work, planned, progress)


def _task_key(given: TaskKey | str | None) -> TaskKey | None:
    if not isinstance(given, str):
        return given
    from tracecheck.run.task_key import parse_task_key

    try:
        return parse_task_key(given)
    except ValueError as exc:
        raise ValueError(f"task_key {given!r} {exc}") from None


def _many(given: Any, *, contracts: bool = False) -> list[Any]:
    """`given` as a list: one input (a `str`, a path or a stream; for `contracts`, also a
    `Contract` or a contract's mapping) or a sequence of them."""
    from tracecheck.run.plan import NamedStream

    if not contracts and (isinstance(given, NamedStream) or hasattr(given, "read")):
        return [given]
    one: tuple[type, ...] = (str, os.PathLike)
    if contracts:
        from tracecheck.contract import Contract

        one = (*one, Contract, Mapping)
    return [given] if isinstance(given, one) else list(given)


def outcomes(
    run: Runner,
    work: Work,
    planned: Sequence[Planned],
    progress: Callable[[str, int], Progress] | None = None,
) -> Iterator[InputOutcome]:
    """Each planned input's outcome in order, its tasks submitted ahead of time in batches of
    neighbouring units (`batches`); a stream spooled here is read here, whatever `run` is."""
    window = max(2, run.workers * IN_FLIGHT_PER_WORKER)
    members = [(number, unit) for number, item in enumerate(planned) for unit in item.units]
    pending_batches = iter(batches(members, run.workers))
    queue: deque[tuple[list[tuple[int, Unit]], Pending]] = deque()
    ready: deque[tuple[int, UnitResult]] = deque()
    here = in_this_process(work)

    def fill() -> None:
        while len(queue) < window:
            batch = next(pending_batches, None)
            if batch is None:
                return
            units = tuple(unit for _, unit in batch)
            queue.append((batch, (here if units[0].spooled else run).submit(units)))

    fill()
    for number, item in enumerate(planned):
        watch = progress(item.name, item.size) if progress is not None else None
        files = _whole_files(item)
        done: list[UnitResult] = []
        read = spans = 0
        try:
            while True:
                arrived = len(done)
                while ready and ready[0][0] == number:
                    result = ready.popleft()[1]
                    done.append(result)
                    read += len(result.unit.files)
                    spans += result.spans
                if watch is not None and files > 1 and len(done) > arrived:
                    watch.advance(read, files, spans)
                if ready or not queue:  # the next results are a later input's, or none are left
                    break
                batch, pending = queue.popleft()
                units = [unit for _, unit in batch]
                retry = here if units[0].spooled else run
                ready.extend(
                    zip([n for n, _ in batch], _results(retry, units, pending), strict=True)
                )
                fill()
        finally:
            if watch is not None:
                watch.stop()
        outcome = _outcome(run, item, done)
        if watch is not None:
            watch.done(outcome.spans)
        yield outcome


def _whole_files(item: Planned) -> int:
    """How many files the input's units read, each whole; 0 when a unit reads part of one (a
    large file cut by trace), whose progress is not a count of files."""
    if any(unit.part is not None for unit in item.units):
        return 0
    return sum(len(unit.files) for unit in item.units)


def batches(members: Sequence[tuple[int, Unit]], workers: int) -> Iterator[list[tuple[int, Unit]]]:
    """`members` cut into runs of neighbours, each one task: Dask spends a few milliseconds on
    every task, so small files go many to a task (up to `BATCH_BYTES` and `BATCH_UNITS`), but
    never so many that a worker would wait for work (at least 4 tasks per worker)."""
    cap = max(1, min(BATCH_UNITS, -(-len(members) // (max(1, workers) * 4))))
    batch: list[tuple[int, Unit]] = []
    size = 0
    for member in members:
        alone = member[1].spooled or (batch and batch[-1][1].spooled)  # read here, not sent
        if batch and (alone or len(batch) >= cap or size + member[1].size > BATCH_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(member)
        size += member[1].size
    if batch:
        yield batch


def _results(run: Runner, units: Sequence[Unit], pending: Pending) -> Sequence[UnitResult]:
    """What a batch gave; when it was lost (a worker that died), each of its units again on
    its own, so that only the unit that kills its worker fails and the rest go on."""
    try:
        return pending.result()
    except ClusterLost:  # nothing left to ask again
        raise
    except Exception as exc:
        if len(units) == 1:
            return [failed_unit(units[0], exc)]
        return [_results(run, [unit], run.submit((unit,)))[0] for unit in units]


def _outcome(run: Runner, item: Planned, results: list[UnitResult]) -> InputOutcome:
    if item.problem is not None:
        failure = ReadFailure(item.source, "unreadable", item.problem)
        return InputOutcome(item.source, (), (failure,), (), 0, 0)
    results = _regrouped(run, results)
    traces = joined(result.traces for result in results)
    # The parts of one file each read all of it: a failure of the file is theirs alike.
    failures = tuple(dict.fromkeys(failure for result in results for failure in result.failures))
    notes = tuple(dict.fromkeys(note for result in results for note in result.notes))
    read = sum(result.read for result in results)
    if not read and not failures:
        message = (
            f"{item.name}: holds no spans, so there is nothing to check"
            if any(result.trace_files for result in results)
            else f"{item.name}: holds no trace file this command reads"
        )
        failures = (ReadFailure(item.source, "unreadable", message),)
    spans = sum(result.spans for result in results)
    rows = tuple(result.rows for result in results if result.rows is not None)
    return InputOutcome(item.source, traces, failures, notes, read, spans, rows)


def _regrouped(run: Runner, results: list[UnitResult]) -> list[UnitResult]:
    """`results` with every trace found in several files read again from those files
    together (the files of one group of overlapping units, as one task)."""
    owners: dict[str, list[int]] = {}
    for number, result in enumerate(results):
        if result.unit.part is not None:
            continue  # the parts of one file never share a trace
        for trace_id in result.trace_ids:
            if trace_id is not None:
                owners.setdefault(trace_id, []).append(number)
    spread = {trace_id: numbers for trace_id, numbers in owners.items() if len(set(numbers)) > 1}
    if not spread:
        return results
    groups = _groups(list(spread.values()))
    kept = [_without(result, spread.keys()) for result in results]
    for members in groups:
        first = results[min(members)].unit
        files = tuple(file for number in sorted(members) for file in results[number].unit.files)
        only = frozenset(t for t, numbers in spread.items() if set(numbers) <= members)
        unit = Unit(first.source, first.root, files, only=only, given=first.given)
        (again,) = _results(run, [unit], run.submit((unit,)))
        # Only the traces re-read count; what the files say alone is already in `kept`.
        alone = kept[min(members)]
        kept[min(members)] = alone._replace(
            traces=joined([again.traces, alone.traces]),
            failures=alone.failures + again.failures,
            notes=tuple(dict.fromkeys(alone.notes + again.notes)),
            trace_ids=again.trace_ids + alone.trace_ids,
            rows=_joined_rows(again.rows, alone.rows),
        )
    return kept


def _without(result: UnitResult, spread: Iterable[str]) -> UnitResult:
    """`result` without the traces `spread` names (read again elsewhere)."""
    gone = set(spread)
    rows = result.rows
    if rows is not None and gone & set(result.trace_ids):
        import pyarrow as pa
        import pyarrow.compute as pc

        kept = pc.invert(pc.is_in(rows["trace_id"], value_set=pa.array(sorted(gone))))
        rows = rows.filter(kept)
    return result._replace(
        traces=(
            result.traces.without(gone)
            if isinstance(result.traces, Spilled)
            else tuple(trace for trace in result.traces if trace.trace_id not in gone)
        ),
        trace_ids=tuple(trace_id for trace_id in result.trace_ids if trace_id not in gone),
        rows=rows,
    )


def _joined_rows(first: Any, second: Any) -> Any:
    if first is None or second is None:
        return first if second is None else second
    import pyarrow as pa

    return pa.concat_tables([first, second])


def _groups(links: list[list[int]]) -> list[set[int]]:
    """The units linked by sharing a trace, as disjoint groups."""
    groups: list[set[int]] = []
    for link in links:
        merged = set(link)
        for group in [group for group in groups if group & merged]:
            merged |= group
            groups.remove(group)
        groups.append(merged)
    return groups


def _compiled(contract: Any) -> Contract:
    from tracecheck.contract import Contract, compile_contract
    from tracecheck.contract.builtin import contract_source

    if isinstance(contract, Contract):
        return contract
    if isinstance(contract, str):
        contract = contract_source(contract)
    return compile_contract(contract)
