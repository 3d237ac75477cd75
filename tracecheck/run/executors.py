"""Where the tasks of a check run: in this process, on local worker processes (a
`concurrent.futures` pool), or on a Dask cluster (a scheduler's address, or a
`distributed.Client` of the caller's). Each is a `Runner`: `submit` returns at once, and what it
returns gives the task's results when asked; the engine takes them back in input order, so the
three give the same verdicts, notes and failures in the same order.

A task that kills its worker (a bug that crashes the interpreter, a process killed) loses only
what that worker held: Dask gives the other tasks to the workers left; a process pool breaks
as a whole, so the runner starts a new one and the tasks the broken one held are asked again."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

from tracecheck.run.task import DOES_NOT_EXIST, Unit, UnitResult, Work, check_units

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future, ProcessPoolExecutor

__all__ = [
    "ClusterLost",
    "Pending",
    "Runner",
    "SchedulerAddressError",
    "in_this_process",
    "runner",
]

# What every worker imports, imported once by the process the workers are forked from.
_PRELOAD = ("tracecheck.run.task", "tracecheck.check", "tracecheck.readers.by_trace")


class Pending(Protocol):
    def result(self) -> Sequence[UnitResult]: ...


class Runner(Protocol):
    """Where tasks run: `submit` returns at once; `workers` is how many run side by side."""

    workers: int

    def submit(self, units: tuple[Unit, ...]) -> Pending: ...


WORKERS_CANNOT_SEE = (
    ": the Dask workers cannot see it, though this machine can: run them where the same path "
    "reads the same file (a shared mount), or give its URL (s3://..., gs://...)"
)


class SchedulerAddressError(ValueError):
    """A scheduler address no Dask client connects with (`runner`): why, in Dask's words."""


class ClusterLost(RuntimeError):
    """The Dask cluster a check ran on went away before its tasks were done: the scheduler,
    or every worker. No task can be asked again; the check stops."""


@contextmanager
def runner(
    work: Work, *, executor: Any = None, scheduler: str | None = None, jobs: int = 1
) -> Iterator[Runner]:
    """Where a check's tasks run, for as long as they run there: `executor` (a
    `concurrent.futures.Executor` or a `distributed.Client` of the caller's, left running),
    the Dask scheduler at `scheduler`, a pool of `jobs` local worker processes, or (jobs=1)
    this process. What cannot be sent to another process (a reader or checker of a test's
    making) runs here."""
    if executor is not None:
        # Here, not at the top: `check` of one small file starts no pool (and its logging).
        from concurrent.futures import Executor

        yield _Futures(executor, work) if isinstance(executor, Executor) else _Dask(executor, work)
        return
    if scheduler is not None:
        with _client(scheduler) as client:
            yield _Dask(client, work)
        return
    if jobs <= 1 or not _sendable(work) or not _main_importable():
        yield in_this_process(work)
        return
    pool = _Pool(jobs, work)
    try:
        yield pool
    finally:  # interrupted: the tasks not yet started are dropped, not waited for
        pool.close()


def in_this_process(work: Work) -> Runner:
    """Tasks run in this process, each when its result is asked for."""
    return _Here(work)


class _Here:
    """Tasks run in this process, each when its result is asked for; the traces they check
    wait pickled in one spool (`Spilled`), not in memory."""

    workers = 1

    def __init__(self, work: Work) -> None:
        from tracecheck.report.spool import Records

        self.work = work._replace(spill=Records())

    def submit(self, units: tuple[Unit, ...]) -> Pending:
        return _Deferred(lambda: check_units(units, self.work))


class _Deferred:
    def __init__(self, compute: Callable[[], Sequence[UnitResult]]) -> None:
        self.compute = compute

    def result(self) -> Sequence[UnitResult]:
        return self.compute()


class _Futures:
    """Tasks run by a `concurrent.futures.Executor` of the caller's."""

    def __init__(self, executor: Executor, work: Work) -> None:
        self.executor = executor
        self.workers = max(1, int(getattr(executor, "_max_workers", 0) or os.cpu_count() or 1))
        self.work = work

    def submit(self, units: tuple[Unit, ...]) -> Pending:
        future: Future[list[UnitResult]] = self.executor.submit(check_units, units, self.work)
        return future


class _Pool:
    """Tasks run by local worker processes, started from a fork server that has imported the
    reader and checker once. A worker that dies breaks the pool, and with it every task in
    flight: the next task starts a new pool, and each task the broken one held is run again
    alone in a pool of its own (`_Retried`), so that only a task that kills its worker fails."""

    def __init__(self, jobs: int, work: Work) -> None:
        self.workers = jobs
        self.work = work
        self.pool = _started(jobs)

    def submit(self, units: tuple[Unit, ...]) -> Pending:
        return _Retried(self, units)

    def future(self, units: tuple[Unit, ...]) -> Future[list[UnitResult]]:
        from concurrent.futures.process import BrokenProcessPool

        try:
            return self.pool.submit(check_units, units, self.work)
        except BrokenProcessPool:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = _started(self.workers)
            return self.pool.submit(check_units, units, self.work)

    def alone(self, units: tuple[Unit, ...]) -> list[UnitResult]:
        """`units` checked by a worker of their own: whatever else kills workers meanwhile."""
        pool = _started(1)
        try:
            return pool.submit(check_units, units, self.work).result()
        finally:
            pool.shutdown(wait=True)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class _Retried:
    def __init__(self, pool: _Pool, units: tuple[Unit, ...]) -> None:
        self.pool = pool
        self.units = units
        self.future = pool.future(units)

    def result(self) -> Sequence[UnitResult]:
        from concurrent.futures.process import BrokenProcessPool

        try:
            return self.future.result()
        except BrokenProcessPool:  # this task's worker, or another's, died
            return self.pool.alone(self.units)


def _started(workers: int) -> ProcessPoolExecutor:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else None)
    if context.get_start_method() == "forkserver":
        context.set_forkserver_preload(list(_PRELOAD))
    return ProcessPoolExecutor(workers, context)


def _sendable(work: Work) -> bool:
    """Whether `work` can be sent to a worker process (its contracts, reader and checker)."""
    import pickle

    try:
        pickle.dumps(work, pickle.HIGHEST_PROTOCOL)
    except Exception:  # a collaborator of a test's making, a contract holding a lambda
        return False
    return True


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


class _Dask:
    """Tasks run by a Dask cluster's workers."""

    def __init__(self, client: Any, work: Work) -> None:
        self.client = client
        self.workers = max(1, len(client.scheduler_info().get("workers", {})))
        # Sent with every task (a few kilobytes), not scattered once: scattered data lives only
        # on workers, and when the workers holding it die, every task that needs it is lost.
        self.work = work

    def submit(self, units: tuple[Unit, ...]) -> Pending:
        return _Awaited(self.client, self.client.submit(check_units, units, self.work, pure=False))


class _Awaited:
    """A Dask future, waited for a few seconds at a time: between waits, the client is asked
    whether its cluster is still there. A scheduler lost (the client gives up reconnecting
    after its timeout) or no worker left for `WORKERLESS` seconds ends the wait with
    `ClusterLost`, where Dask's own future would wait for ever."""

    POLL = 2.0
    WORKERLESS = 30.0

    def __init__(self, client: Any, future: Any) -> None:
        self.client = client
        self.future = future

    def result(self) -> Sequence[UnitResult]:
        alone = 0.0
        while True:
            try:
                results: Sequence[UnitResult] = self.future.result(timeout=self.POLL)
            except TimeoutError:
                alone = alone + self.POLL if not self._workers() else 0.0
                if alone >= self.WORKERLESS:
                    raise ClusterLost(f"it has had no worker for {alone:.0f} s") from None
            except BaseException:  # a task's own failure, or a future the client cancelled
                if self.client.status not in ("running", "connecting"):
                    raise ClusterLost("its scheduler is gone") from None
                raise
            else:
                return [_unseen_here(result) for result in results]
            if self.client.status not in ("running", "connecting"):
                raise ClusterLost("its scheduler is gone")

    def _workers(self) -> int:
        return len(self.client.scheduler_info().get("workers", {}))


def _unseen_here(result: UnitResult) -> UnitResult:
    """A worker's word that a file does not exist, where this machine has it (the plan listed
    it here): the workers do not see this machine's files, and are said not to."""
    from tracecheck.run.storage import is_remote

    unit = result.unit
    gone = [f for f in result.failures if f.message.endswith(DOES_NOT_EXIST)]
    remote = unit.spooled or is_remote(unit.root or unit.files[0])
    if not gone or remote or not any(map(os.path.exists, unit.files)):
        return result
    failures = tuple(
        dataclasses.replace(
            failure,
            message=failure.message.removesuffix(DOES_NOT_EXIST) + WORKERS_CANNOT_SEE,
        )
        if failure in gone
        else failure
        for failure in result.failures
    )
    return result._replace(failures=failures)


@contextmanager
def _client(scheduler: str) -> Iterator[Any]:
    from distributed import Client

    failure: Exception | None = None
    try:
        client = Client(scheduler, timeout="10s")  # type: ignore[no-untyped-call]
    except Exception as exc:
        failure = _refused(exc)
    if failure is not None:
        # The client half made is freed now, while no other one runs: its finalizer, run by a
        # later collection while another client starts, deadlocks on the loop they share.
        import gc

        gc.collect()
        raise failure
    with client:
        yield client


def _refused(exc: Exception) -> Exception:
    """Why a client could not be made, as an exception that holds none of its frames."""
    if isinstance(exc, (ValueError, TypeError)):  # no port, an unknown scheme, no transport
        words = str(exc) if isinstance(exc, ValueError) else "Dask has no transport for it"
        return SchedulerAddressError(words)
    if isinstance(exc, TimeoutError):
        return TimeoutError(*exc.args)
    if isinstance(exc, OSError):
        return OSError(exc.errno, exc.strerror)
    return exc
