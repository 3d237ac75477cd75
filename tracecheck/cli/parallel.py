"""`check --jobs N`: inputs read and checked by worker processes, reported as one process would.

Sending spans between processes costs more than reading and checking them, so each worker
reads its share of the inputs itself and checks the traces it read; what comes back is what
`check` keeps of a trace anyway: its pickled verdicts (`CheckedTrace`), and what reading the
input left (`SourceRead`: counts, notes, failures). The parent takes them in input order, so
every report, note, failure and exit code is the one `--jobs 1` gives.

The work is split by file where it can be: each file given is one task, and a directory's
files are cut into runs of neighbouring files of about equal size. A large file of records
(JSON Lines, a proto stream: what the streaming reader indexes record by record) is split by
trace instead: every worker indexes the whole file (only the trace ids are decoded) and reads
and checks one run of its traces in first-seen order, converting only their records. Any
other file, and standard input (which the parent reads), is read by one process, and so are
inputs too small to repay starting the workers (`WORTH_BYTES`).

A directory read in shares is reported as read whole only when that is certain: every trace
lies in one share, and no note rides with every trace (one naming no trace read). A trace
spread over files of several shares has the run of shares from the first to the last read
again together, as one share, by a worker. When a note still rides with every trace, a share
or part failed as a whole, or no trace was read at all, the parent reads that input again
itself, so that what is reported, and how it fails, is what one process gives.

A worker that fails (a bug, a process killed) fails the inputs it held, as a reader's bug
does with one process; the command does not hang.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from tracecheck.cli.arguments import available_cores

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from tracecheck.cli.environment import CheckTrace, Environment, VisitTraces
    from tracecheck.cli.inputs import Read, SourceRead
    from tracecheck.contract import Contract
    from tracecheck.report.model import ReadFailure
    from tracecheck.report.spool import Records
    from tracecheck.rules.capture import CaptureMode
    from tracecheck.spans import Trace

__all__ = [
    "SHARES_PER_JOB",
    "WORTH_BYTES",
    "read_in_parallel",
]

# What every worker imports, imported once by the server the workers are forked from.
_PRELOAD = (
    "tracecheck.cli.parallel",
    "tracecheck.cli.check",
    "tracecheck.cli.inputs",
    "tracecheck.check",
    "tracecheck.readers.by_trace",
)
# Inputs smaller than this (in bytes, together) are read by one process whatever `--jobs`
# says: starting the workers (about 0.2 s on the two-core machine of bench/README.md) costs
# more than half of reading and checking them (about 55 MB/s).
WORTH_BYTES = 16 << 20
# A directory is cut into up to this many shares per job, so that a worker done early takes
# another share while a slow one finishes.
SHARES_PER_JOB = 2


Visit = Callable[["Read"], None]


@dataclass(frozen=True, slots=True)
class Share:
    """What one task reads of a source: the whole of it, some of a directory's files, or of
    a file's traces in first-seen order the k-th of n runs (`part`)."""

    files: tuple[str, ...] | None = None
    part: tuple[int, int] | None = None


WHOLE = Share()
T = TypeVar("T")


def read_in_parallel(
    env: Environment,
    args: argparse.Namespace,
    contracts: Sequence[Contract],
    visit: Visit,
    kept: Records,
) -> list[ReadFailure] | None:
    """`read_sources` of `check`'s inputs by `args.jobs` worker processes, each reading and
    checking as `visit` does; None when there is nothing to share between processes (one
    file read whole, or standard input alone), too little to repay starting them, or what
    they need cannot be sent to them (a checker or reader of a test's making): then one
    process reads."""
    import multiprocessing
    import pickle
    from concurrent.futures.process import BrokenProcessPool

    from tracecheck.cli.inputs import (
        finish_reads,
        input_size,
        unique_sources,
        wanted_trace,
    )

    sources, format, trace_id, jobs = args.traces, args.format, args.trace_id, args.jobs
    if jobs < 2 or "forkserver" not in multiprocessing.get_all_start_methods():
        return None
    wanted = wanted_trace(env, sources, trace_id)
    plan = [(source, _shares(source, format, jobs)) for source in unique_sources(sources)]
    tasks = sum(len(shares) for _, shares in plan)
    if tasks < 2:
        return None
    if sum(input_size(source) for source, shares in plan if shares) < WORTH_BYTES:
        return None
    if not _main_importable():
        return None
    from tracecheck.cli.check import timeline_profile

    timelines = timeline_profile(args)
    work = Work(tuple(contracts), args.capture, format, wanted, env.read, env.check, (), timelines)
    try:
        payload = pickle.dumps(work, pickle.HIGHEST_PROTOCOL)
    except Exception:  # a contract that does not pickle: each worker compiles the files
        if env.compile is not None:
            return None
        paths = tuple(dict.fromkeys(args.contract))
        work = Work((), args.capture, format, wanted, env.read, env.check, paths, timelines)
        try:
            payload = pickle.dumps(work, pickle.HIGHEST_PROTOCOL)
        except Exception:  # a reader or checker of a test's making
            return None
    pool = _pool(min(jobs, tasks), payload)
    try:
        try:
            futures = [
                [pool.submit(_task, source, share) for share in shares] for source, shares in plan
            ]
        except (OSError, RuntimeError, BrokenProcessPool):  # the workers cannot start here
            return None  # (a socket path too long for the forkserver, say): one process reads
        reads: list[SourceRead] = []
        for (source, shares), done in zip(plan, futures, strict=True):
            if not shares:  # standard input, a file descriptor: only this process has them
                reads.append(_read_here(env, source, format, wanted, visit, kept))
                continue
            reads.append(_merge(env, pool, source, shares, done, format, wanted, visit, kept))
    finally:  # interrupted: the tasks not yet started are dropped, not waited for
        pool.shutdown(wait=True, cancel_futures=True)
    return finish_reads(env, reads, trace_id)


@dataclass(frozen=True, slots=True)
class Work:
    """What every task of a run needs, sent once to each worker: the compiled contracts, how
    to check and read (None: the real checker and reader), and the options of the run."""

    contracts: tuple[Contract, ...]
    capture: CaptureMode | None
    format: str | None
    wanted: str | None
    read: VisitTraces | None = None
    check: CheckTrace | None = None
    # The contract files to compile in each worker, when the compiled contracts cannot be
    # sent (every bundled contract can: tests/test_cli_jobs.py).
    contract_paths: tuple[str, ...] = ()
    # The redaction profile of the timelines kept for `--html` (None: none is kept).
    timelines: str | None = None


@dataclass(slots=True)
class _Done:
    """What a task sends back: what reading left, the pickled verdicts in order, and for a
    share, whether it is certain to read as a part of its directory would."""

    read: SourceRead
    records: list[bytes]
    trace_ids: list[str | None] = field(default_factory=list)  # of a share: its traces, in order
    whole_failure: bool = False  # the directory failed as a whole (or the reader broke)
    unplaced: bool = False  # notes that ride with every trace read
    file_failures: int = 0  # the failures that are its files' own


def _shares(source: str, format: str | None, jobs: int) -> list[Share]:
    """A source's tasks: none for standard input (the parent reads it), a directory's files
    cut into runs of about equal size, a large file of records in a part per job (at most one per core), any other
    source whole."""
    from pathlib import Path

    from tracecheck.cli.inputs import STDIN
    from tracecheck.readers.by_trace import splits_by_trace
    from tracecheck.readers.inputs import directory_files

    if source == STDIN or source.startswith(("/dev/", "/proc/")):
        return []  # an fd's number means another file in a worker
    root = Path(source)
    if not root.is_dir():
        parts = min(jobs, available_cores())  # each part indexes the whole file
        if parts > 1 and splits_by_trace(source, format):
            return [Share(part=(k, parts)) for k in range(parts)]
        return [WHOLE]
    try:
        files = directory_files(root)
        sizes = [path.stat().st_size for path in files]
    except OSError:  # the reader says what is wrong, as with one process
        return [WHOLE]
    if len(files) < 2:
        return [WHOLE]
    runs = _runs(files, sizes, jobs * SHARES_PER_JOB)
    return [Share(files=tuple(str(path) for path in run)) for run in runs]


def _main_importable() -> bool:
    """Whether a worker can import the program's main module, as multiprocessing has every
    worker do: not a script read from standard input (`python - < script.py`)."""
    import sys
    from pathlib import Path

    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if getattr(main, "__spec__", None) is not None or path is None:
        return True
    return Path(path).is_file()


def _runs(items: Sequence[T], sizes: Sequence[int], count: int) -> list[list[T]]:
    """`items` cut into at most `count` runs of neighbours, each about as large as the others
    (every run holds at least one item)."""
    count = max(1, min(count, len(items)))
    total = sum(sizes) or 1
    runs: list[list[T]] = [[]]
    seen = 0
    for position, (item, size) in enumerate(zip(items, sizes, strict=True)):
        left = len(items) - position  # items still to place, this one included
        room = count - len(runs)  # runs still to open
        full = seen + size / 2 > total * len(runs) / count  # it lies mostly past the cut
        if runs[-1] and room and (full or left <= room):
            runs.append([])
        runs[-1].append(item)
        seen += size
    return runs


def _pool(workers: int, payload: bytes) -> ProcessPoolExecutor:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(_PRELOAD))
    return ProcessPoolExecutor(workers, context, initializer=_start, initargs=(payload,))


def _merge(
    env: Environment,
    pool: ProcessPoolExecutor,
    source: str,
    shares: Sequence[Share],
    done: Sequence[Future[_Done]],
    format: str | None,
    wanted: str | None,
    visit: Visit,
    kept: Records,
) -> SourceRead:
    """What the tasks of one source gave, in order, with a progress line while they are
    awaited. Neighbouring shares of a directory that hold the same trace are read again
    together (by a worker); an input whose shares may still differ from its whole is read
    again here."""
    from tracecheck.cli.inputs import SourceRead, progress_of, unreadable

    progress = progress_of(env, source)
    try:
        results = [future.result() for future in done]
        if all(share.files is not None for share in shares) and _certain(shares, results):
            shares, results = _regrouped(pool, source, shares, results)
    except Exception as exc:  # a worker's bug, or a worker killed: the input is not read
        if env.environ.get("TRACECHECK_DEBUG"):  # with the worker's traceback, when it sent one
            import traceback

            traceback.print_exception(exc, file=env.stderr)
        return SourceRead(failures=[unreadable(source, exc)])
    finally:
        progress.stop()
    if shares != [WHOLE] and not _certain(shares, results, final=True):
        return _read_here(env, source, format, wanted, visit, kept)
    progress.done(sum(result.read.spans for result in results))
    for result in results:
        for record in result.records:
            kept.append(record)
    if shares == [WHOLE]:
        return results[0].read
    return _joined(results)


def _regrouped(
    pool: ProcessPoolExecutor, source: str, shares: Sequence[Share], results: Sequence[_Done]
) -> tuple[list[Share], list[_Done]]:
    """The shares of a directory, each run of neighbouring shares that hold one trace between
    them (from the first share holding a trace to the last) made one share and read again."""
    first: dict[str | None, int] = {}
    last: dict[str | None, int] = {}
    for number, result in enumerate(results):
        for trace_id in result.trace_ids:
            first.setdefault(trace_id, number)
            last[trace_id] = number
    runs: list[list[int]] = []
    for start, end in sorted((first[key], last[key]) for key in first if first[key] < last[key]):
        if runs and start <= runs[-1][1]:
            runs[-1][1] = max(runs[-1][1], end)
        else:
            runs.append([start, end])
    if not runs:
        return list(shares), list(results)
    merged: list[tuple[Share, Future[_Done] | _Done]] = []
    position = 0
    for start, end in runs:
        merged.extend(zip(shares[position:start], results[position:start], strict=True))
        files = tuple(path for share in shares[start : end + 1] for path in share.files or ())
        share = Share(files=files)
        merged.append((share, pool.submit(_task, source, share)))
        position = end + 1
    merged.extend(zip(shares[position:], results[position:], strict=True))
    return [share for share, _ in merged], [
        result if isinstance(result, _Done) else result.result() for _, result in merged
    ]


def _certain(shares: Sequence[Share], results: Sequence[_Done], *, final: bool = False) -> bool:
    """Whether the shares of a source read as the whole source would: none failed whole and
    some trace was read; for a directory's files (once `final`: regrouped), also every trace
    lies in one share, and no note rides with every trace. (The parts of a file index all of
    it: their traces are apart, and their notes those of the whole file.)"""
    if any(result.whole_failure for result in results):
        return False
    if not any(result.read.traces for result in results):
        return False
    if not final or all(share.part is not None for share in shares):
        return True
    owner: dict[str | None, int] = {}
    for number, result in enumerate(results):
        if result.unplaced and len(results) > 1:
            return False
        for trace_id in result.trace_ids:
            if owner.setdefault(trace_id, number) != number:
                return False
    return True


def _joined(results: Sequence[_Done]) -> SourceRead:
    from tracecheck.cli.inputs import SourceRead

    joined = SourceRead()
    for result in results:
        joined.traces += result.read.traces
        joined.visited += result.read.visited
        joined.notes.update(result.read.notes)
        joined.spans += result.read.spans
        joined.failures.extend(result.read.failures[: result.file_failures])
    return joined


def _read_here(
    env: Environment,
    source: str,
    format: str | None,
    wanted: str | None,
    visit: Visit,
    kept: Records,
) -> SourceRead:
    """A source read by this process, as without `--jobs`."""
    from tracecheck.cli.inputs import read_source

    return read_source(env, source, format, wanted, visit, kept)


# --- in a worker ------------------------------------------------------------------------------

_work: Work | None = None


def _start(payload: bytes) -> None:
    import dataclasses
    import gc
    import pickle

    global _work
    gc.disable()  # a worker reads and checks as `check` does: `check._read_here`
    work: Work = pickle.loads(payload)
    if work.contract_paths:  # compiled here as the parent compiled them
        from tracecheck.contract.builtin import contract_source
        from tracecheck.contract.compile import compile_contract

        compiled = tuple(compile_contract(contract_source(p)) for p in work.contract_paths)
        work = dataclasses.replace(work, contracts=compiled)
    _work = work


class _Kept:
    """The verdicts a task keeps, as `Records` keeps them in the parent."""

    def __init__(self) -> None:
        self.records: list[bytes] = []

    def append(self, data: bytes) -> None:
        self.records.append(data)

    def mark(self) -> tuple[int, int]:
        return len(self.records), len(self.records)

    def truncate(self, mark: tuple[int, int]) -> None:
        del self.records[mark[1] :]


def _task(source: str, share: Share) -> _Done:
    """Read one source, or one share of a directory's files or of a file's traces, and check
    every trace read."""
    import io
    from pathlib import Path

    from tracecheck.cli.check import visitor
    from tracecheck.cli.environment import Environment
    from tracecheck.cli.inputs import read_source
    from tracecheck.readers.by_trace import visit_traces
    from tracecheck.spans import ReadNote

    work = _work
    assert work is not None
    base = work.read or visit_traces
    trace_ids: list[str | None] = []
    unplaced: list[ReadNote] = []
    state = {"whole_failure": False, "broken": 0}

    def read(source: str, visit: Callable[[Trace], None], **options: Any) -> object:
        restart = options.pop("restart", None)

        def seen(trace: Trace) -> None:
            if share.files is not None:  # which share holds which trace: asked of shares only
                trace_ids.append(trace.trace_id)
            visit(trace)

        def again() -> None:
            trace_ids.clear()
            if restart is not None:
                restart()

        if share.files is not None:
            options.update(share=[Path(path) for path in share.files], unplaced=unplaced)
        if share.part is not None:
            options.update(part=share.part)
        try:
            return base(source, seen, restart=again, **options)
        except BaseException:
            state["whole_failure"] = True
            raise
        finally:
            state["broken"] = len(options.get("failures") or ())

    quiet = io.StringIO()
    env = Environment(
        stdin=quiet,
        stdout=quiet,
        stderr=quiet,
        environ={},
        read=read,
        check=work.check,
        progress_bytes=1 << 62,  # the parent shows progress
        progress_seconds=1e9,
    )
    kept = _Kept()
    visit = visitor(env.checker(), work.contracts, work.capture, kept.append, work.timelines)
    done = read_source(env, source, work.format, work.wanted, visit, kept)  # type: ignore[arg-type]
    return _Done(
        done,
        kept.records,
        trace_ids,
        whole_failure=bool(state["whole_failure"]),
        unplaced=bool(unplaced),
        file_failures=int(state["broken"]),
    )
