"""Where the proxy scrubs: on a thread of its own process, or in a pool of worker processes so
that scrubbing (CPU-bound, and serialised by the GIL on threads) runs on every core.

A worker process is given the profile, the known secrets and the pseudonym key once, when it
starts (`_start_worker`), and then whole request bodies: it parses, redacts, gates, encodes and
compresses a batch (`Scrubber`) and sends back a `Scrubbed`, which holds bytes and counts, never
a span. Every worker, and every pool made again after one broke, gets the same pseudonym key
(the proxy draws it once when none is configured), so one identifier gets one pseudonym
whichever process scrubs it. The known secrets reach a worker pickled through its pipe, never
through its command line, environment, a file or a log.

Workers are made by `forkserver` (`spawn` where there is none), never `fork`: the proxy's
process runs an event loop and threads, which a forked child would inherit mid-flight. The
forkserver imports the scrubbing modules once (about 0.5 s, when the first pool starts), so a
pool made later starts its workers in about 0.1 s, most of it one warm-up scrub each. As with
any `spawn` or `forkserver` child, a worker imports the program's main module: a script that
embeds the proxy must start it under `if __name__ == "__main__":`.

What bounds memory: the proxy holds at most `queue_size` requests in flight, so at most that
many bodies wait for a worker (pickled one at a time into the pool's call queue, which holds
`processes + 1`); a worker holds one batch at a time (its body, its spans, its encoded copy).
Each pool is replaced by a new one after `tasks_per_process × processes` batches (the old one
finishes what it holds, then its workers exit), which returns whatever a worker's allocator or
caches kept growing; CPython 3.11's own `max_tasks_per_child` is not used, because it can stop
scheduling work when a worker retires with a backlog queued (cpython#115634).

Workers outlive no proxy, however it stops: each holds the reading end of a pipe whose only
writing end the proxy's process holds and never writes to, and a thread of the worker waits on
it. When the proxy dies (even by SIGKILL, which leaves it no chance to stop its pool) the kernel
closes that end, the read ends, and the worker exits at once; the forkserver and the resource
tracker, which stay only while a process holds their pipes, follow (they are the workers' and
the proxy's). An event, not a poll: nothing runs while the proxy lives.

A worker that dies (killed, out of memory) breaks its pool: every batch it held is answered
`503` with `Retry-After` (nothing of them is forwarded), and the next batch goes to a new pool.
A batch that could not even be handed to the broken pool is scrubbed by the new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from typing import Final, Protocol

from redact.isolated import Scrub, ScrubFailed
from redact.known import KnownSecrets
from redact.profiles import Profile
from redact.shipping.otlp import Encoding
from redact.shipping.refusal import Refusal
from redact.shipping.scrubbing import Coding, Scrubbed, Scrubber, Signal
from tracecheck.errors import TraceReadError

__all__ = [
    "DEFAULT_TASKS_PER_PROCESS",
    "ProcessScrubbing",
    "Scrubbing",
    "ThreadScrubbing",
    "scrubbing_for",
]

DEFAULT_TASKS_PER_PROCESS: Final = 1000
_PRELOAD: Final = ["redact.shipping.pool"]

log = logging.getLogger("redact.proxy")


class Scrubbing(Protocol):
    """Runs `Scrubber` off the event loop: `start` before the first batch, `close` after the
    last. `scrub` raises what `Scrubber` raises, and `Refusal` when it cannot scrub now."""

    async def start(self) -> None: ...

    async def scrub(
        self, body: bytes, encoding: Encoding, coding: Coding, signal: Signal = "traces"
    ) -> Scrubbed: ...

    def close(self) -> None: ...


class ThreadScrubbing:
    """Scrubbing on `threads` threads of this process (or on a given `executor`, which is not
    shut down here)."""

    def __init__(
        self, scrubber: Scrubber, *, threads: int = 1, executor: Executor | None = None
    ) -> None:
        self._scrubber = scrubber
        self._threads = threads
        self._executor = executor
        self._own = executor is None

    async def start(self) -> None:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(
                max_workers=self._threads, thread_name_prefix="tracecheck-proxy"
            )

    async def scrub(
        self, body: bytes, encoding: Encoding, coding: Coding, signal: Signal = "traces"
    ) -> Scrubbed:
        assert self._executor is not None, "scrubbing was not started"
        loop = asyncio.get_running_loop()
        scrubber = self._scrubber
        return await loop.run_in_executor(self._executor, scrubber, body, encoding, coding, signal)

    def close(self) -> None:
        if self._executor is not None and self._own:
            self._executor.shutdown(wait=True)
            self._executor = None


class ProcessScrubbing:
    """Scrubbing in a pool of `processes` worker processes (see the module's docstring).
    `scrubber.scrub` must be picklable (a module-level function): each worker gets its own."""

    def __init__(
        self,
        scrubber: Scrubber,
        *,
        processes: int,
        tasks_per_process: int = DEFAULT_TASKS_PER_PROCESS,
    ) -> None:
        if processes < 1:
            raise ValueError("processes must be at least 1")
        if tasks_per_process < 1:
            raise ValueError("tasks_per_process must be at least 1")
        self._scrubber = scrubber
        self._processes = processes
        self._tasks_per_pool = tasks_per_process * processes
        self._pool: ProcessPoolExecutor | None = None
        self._tasks = 0
        self.pools_made = 0
        # The workers' lifeline (see the module's docstring): this process holds the writing
        # end as long as it lives; every worker of every pool gets the reading end.
        self._lifeline, self._lifeline_writer = multiprocessing.Pipe(duplex=False)

    async def start(self) -> None:
        """Make the pool and wait until every worker is ready, so that the first requests do
        not wait for workers to start (a worker that cannot start fails the startup)."""
        if self._pool is not None:
            return
        pool = self._new_pool()
        ready = [asyncio.wrap_future(pool.submit(_ready)) for _ in range(self._processes)]
        await asyncio.gather(*ready)

    async def scrub(
        self, body: bytes, encoding: Encoding, coding: Coding, signal: Signal = "traces"
    ) -> Scrubbed:
        pool = self._pool
        assert pool is not None, "scrubbing was not started"
        try:
            future = pool.submit(scrub_in_worker, body, encoding, coding, signal)
        except BrokenProcessPool:
            # The batch never reached a worker: the new pool scrubs it.
            pool = self._replace(pool)
            future = pool.submit(scrub_in_worker, body, encoding, coding, signal)
        self._tasks += 1
        if self._tasks >= self._tasks_per_pool:
            self._retire(pool)
        try:
            outcome = await asyncio.wrap_future(future)
        except BrokenProcessPool:
            self._replace(pool)
            raise Refusal(
                503,
                "scrub_failed",
                "a scrubbing process stopped while it held the batch; nothing was forwarded; "
                "retry later",
                retry_after=1.0,
            ) from None
        if isinstance(outcome, Scrubbed):
            return outcome
        if isinstance(outcome, _Unreadable):
            raise TraceReadError(outcome.source, outcome.reason, where=outcome.where)
        raise ScrubFailed(outcome)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _new_pool(self) -> ProcessPoolExecutor:
        scrubber = self._scrubber
        self._pool = ProcessPoolExecutor(
            max_workers=self._processes,
            mp_context=_context(),
            initializer=_start_worker,
            initargs=(
                # A copy: the profile's detectors, cached on it once used, do not pickle.
                replace(scrubber.profile),
                scrubber.known_secrets,
                scrubber.pseudonym_key,
                scrubber.scrub,
                self._lifeline,
            ),
        )
        self._tasks = 0
        self.pools_made += 1
        return self._pool

    def _replace(self, broken: ProcessPoolExecutor) -> ProcessPoolExecutor:
        """The pool to use once `broken` broke: a new one, made once however many batches saw
        it break."""
        if self._pool is broken:
            log.error(
                "a scrubbing process stopped (killed or out of memory); the batches it held "
                "were answered 503 and not forwarded; starting %d new ones",
                self._processes,
            )
            broken.shutdown(wait=False, cancel_futures=True)
            self._new_pool()
        assert self._pool is not None
        return self._pool

    def _retire(self, pool: ProcessPoolExecutor) -> None:
        # The old pool finishes the batches it holds, then its workers exit.
        if self._pool is pool:
            self._new_pool()
            pool.shutdown(wait=False)


def scrubbing_for(
    processes: int,
    profile: Profile,
    known_secrets: KnownSecrets,
    pseudonym_key: bytes,
    *,
    scrub: Scrub,
    threads: int = 1,
    executor: Executor | None = None,
) -> Scrubbing:
    """Threads of this process for `processes == 1` (or the given `executor`), a pool of
    worker processes above."""
    profile.compile_patterns()
    scrubber = Scrubber(profile, known_secrets, pseudonym_key, scrub)
    if processes == 1:
        return ThreadScrubbing(scrubber, threads=threads, executor=executor)
    if executor is not None:
        raise ValueError("an executor scrubs in this process: give it with scrub_processes=1")
    return ProcessScrubbing(scrubber, processes=processes)


def _context() -> multiprocessing.context.BaseContext:
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)  # heeded only before the forkserver starts
    return context


# -- in the worker process ------------------------------------------------------------------------

_worker: Scrubber | None = None


@dataclass(frozen=True, slots=True)
class _Unreadable:
    """A `TraceReadError`'s parts: the exception itself does not survive pickling."""

    source: str
    reason: str
    where: str | None


# One span scrubbed by a new worker before its first batch, so that the batch does not also pay
# for what redaction builds on first use (about 0.1 s).
_WARM_UP: Final = (
    b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c",'
    b'"spanId":"b7ad6b7169203331","name":"warm-up","attributes":[{"key":"user.id","value":'
    b'{"stringValue":"warm-up"}},{"key":"note","value":{"stringValue":"token=warm-up-0"}}]}]}]}]}'
)


def _start_worker(
    profile: Profile,
    known_secrets: KnownSecrets,
    pseudonym_key: bytes,
    scrub: Scrub,
    lifeline: Connection | None = None,
) -> None:
    global _worker
    if lifeline is not None:
        threading.Thread(
            target=_exit_with_the_proxy, args=(lifeline,), name="lifeline", daemon=True
        ).start()
    profile.compile_patterns()
    _worker = Scrubber(profile, known_secrets, pseudonym_key, scrub)
    # With the real redactor, whatever `scrub` is (a test's may count its batches).
    with contextlib.suppress(Exception):
        Scrubber(profile, known_secrets, pseudonym_key)(_WARM_UP, "json", None)


def _exit_with_the_proxy(lifeline: Connection) -> None:
    """Wait for the end of the pipe the proxy's process writes nothing to: it ends only when
    that process is gone (every copy of its writing end closed), and then this worker exits at
    once, whatever it was doing (its batch has no one left to answer)."""
    with contextlib.suppress(EOFError, OSError):
        lifeline.recv_bytes()
    os._exit(0)


def _ready() -> None:
    """A worker's first task: it has started (and run `_start_worker`)."""


def scrub_in_worker(
    body: bytes, encoding: Encoding, coding: Coding, signal: Signal = "traces"
) -> Scrubbed | _Unreadable | str:
    """The whole scrubbing step in a worker: `Scrubbed`, the parts of the `TraceReadError` of a
    body that cannot be read, or the type name of the error that made every span fail (only
    picklable values cross back; an error's text, which may quote a span, never does)."""
    assert _worker is not None, "the worker was not started"
    try:
        return _worker(body, encoding, coding, signal)
    except TraceReadError as exc:
        return _Unreadable(exc.source, exc.reason, exc.where)
    except ScrubFailed as exc:
        return exc.error
    except Exception as exc:
        return type(exc).__name__
