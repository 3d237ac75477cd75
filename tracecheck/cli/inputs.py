"""Reading the traces a command is given to look at (`show`, `diff`, `init`): files,
directories and standard input, one trace at a time, every input read even when one fails,
each failure printed once, and a progress line when reading takes long. (`check` reads through
`tracecheck.run`, and prints its failures and notes with `finish_reads` as these commands do.)"""

from __future__ import annotations

import _thread
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple, TextIO

from tracecheck.cli.codes import ExitCode, Stop, internal_error
from tracecheck.cli.environment import Environment
from tracecheck.errors import AmbiguousFormatError, TraceReadError
from tracecheck.report.model import ReadFailure
from tracecheck.report.safe import printable
from tracecheck.unquoted import without_credentials

if TYPE_CHECKING:
    from tracecheck.report.spool import Records
    from tracecheck.spans import Trace

__all__ = [
    "STDIN",
    "Progress",
    "Read",
    "SourceRead",
    "failure_code",
    "finish_reads",
    "read_sources",
    "wanted_trace",
]

STDIN = "-"


def failure_code(failure: ReadFailure) -> ExitCode:
    return ExitCode.AMBIGUOUS if failure.kind == "ambiguous" else ExitCode.UNREADABLE


class Read(NamedTuple):
    """A trace as it is read, with the file reports name: the source as given, or for a
    directory the file below it holding the trace (`sources`: each file, when several).

    A named tuple rather than a frozen dataclass, which costs five times as much to create
    at import (bench/README.md, "Command start-up")."""

    trace: Trace
    source: str
    sources: tuple[str, ...] = ()
    in_directory: bool = False

    @property
    def files(self) -> tuple[str, ...]:
        """The files to name beside the trace: those of the directory it was read from (a
        single file or standard input is named by the input itself)."""
        if not self.in_directory:
            return ()
        return self.sources or (self.source,)


@dataclass
class SourceRead:
    """What the traces of one source left behind: how many were read and how many visited,
    their notes (distinct, in order), how many spans they held, and the failures of the
    source (or of its directory's files)."""

    traces: int = 0
    visited: int = 0
    notes: dict[str, None] = field(default_factory=dict)
    spans: int = 0
    failures: list[ReadFailure] = field(default_factory=list)


def read_sources(
    env: Environment,
    sources: Sequence[str],
    format: str | None,
    trace_id: str | None,
    visit: Callable[[Read], None],
    kept: Records,
) -> list[ReadFailure]:
    """`visit` of every trace of every source, read one trace at a time, and every source that
    gave none (each error printed once every source was read, then the notes). What `visit`
    keeps goes to `kept`: what a source that fails (or is read again without a file of its
    directory that fails late) left there is taken back.

    A source that reads but holds no span is a failure too: nothing checked must not pass.
    """
    wanted = wanted_trace(env, sources, trace_id)
    reads = [
        read_source(env, source, format, wanted, visit, kept) for source in unique_sources(sources)
    ]
    return finish_reads(env, reads, trace_id)


def wanted_trace(env: Environment, sources: Sequence[str], trace_id: str | None) -> str | None:
    """The trace id asked for, as traces spell it, once the sources and the id are found
    usable (a usage error stops the command)."""
    if trace_id is not None and not trace_id.strip():
        env.error("--trace-id needs a trace id")
        raise Stop(ExitCode.USAGE)
    if list(sources).count(STDIN) > 1:
        env.error("- (standard input) can be read only once")
        raise Stop(ExitCode.USAGE)
    return trace_id.strip().lower() if trace_id is not None else None


def read_source(
    env: Environment,
    source: str,
    format: str | None,
    wanted: str | None,
    visit: Callable[[Read], None],
    kept: Records,
) -> SourceRead:
    """`visit` of every trace of one source (only the trace `wanted`, when one is), and what
    reading it left behind; nothing is printed."""
    directory = source != STDIN and Path(source).is_dir()
    visits = SourceRead()
    mark = kept.mark()

    def restart() -> None:
        kept.truncate(mark)
        visits.traces = visits.visited = 0
        visits.notes.clear()

    def each(trace: Trace) -> None:
        visits.traces += 1
        if wanted is not None and trace.trace_id != wanted:
            return
        read = Read(trace, _label(source))
        if directory and trace.source is not None:
            several = trace.sources if len(trace.sources) > 1 else ()
            read = Read(trace, trace.source, several, in_directory=True)
        visits.visited += 1
        visits.notes.update(dict.fromkeys(str(note) for note in trace.notes))
        visit(read)

    # A directory's broken files fail alone: the traces of the others are still checked.
    broken: list[TraceReadError] = []
    try:
        visits.spans = _read_one(env, source, format, broken, each, restart)
    except TraceReadError as exc:
        broken.append(exc)
        restart()
    except Exception as exc:  # a reader bug: this input is unreadable, the others are not
        restart()
        visits.failures.append(unreadable(source, exc))
        return visits
    visits.failures.extend(_read_failure(exc, source) for exc in broken)
    if not visits.traces and not broken:
        message = f"{_label(source)}: holds no spans, so there is nothing to check"
        visits.failures.append(ReadFailure(source, "unreadable", message))
    return visits


def finish_reads(
    env: Environment, reads: Sequence[SourceRead], trace_id: str | None
) -> list[ReadFailure]:
    """Every source's failures, printed once every source was read, then the notes of the
    sources that gave traces; a `trace_id` no source held stops the command."""
    failures = [failure for read in reads for failure in read.failures]
    notes: dict[str, None] = {}
    for read in reads:
        if read.visited:
            notes.update(read.notes)
    for failure in failures:
        env.error(printable(failure.message))
    if trace_id is not None and not any(read.visited for read in reads):
        env.error(f"no trace has id {printable(trace_id or '')}")
        raise Stop(max([ExitCode.USAGE, *(failure_code(f) for f in failures)]))
    for note in notes:
        print(f"note: {printable(without_credentials(str(note)))}", file=env.stderr)
    return failures


def unique_sources(sources: Sequence[str]) -> list[str]:
    """Each source once, however it was spelled (`a.jsonl`, `./a.jsonl`)."""
    seen: dict[str, str] = {}
    for source in sources:
        key = source if source == STDIN else os.path.realpath(source)
        seen.setdefault(key, source)
    return list(seen.values())


def _label(source: str) -> str:
    return "<stdin>" if source == STDIN else source


def _read_failure(exc: TraceReadError, source: str) -> ReadFailure:
    """The failure of `source`, or of the file inside the directory `source` that broke."""
    kind: Literal["unreadable", "ambiguous"] = (
        "ambiguous" if isinstance(exc, AmbiguousFormatError) else "unreadable"
    )
    where = source if source == STDIN or exc.source == "<bytes>" else exc.source
    return ReadFailure(where, kind, _input_error(exc, source))


def _input_error(exc: TraceReadError, source: str) -> str:
    text = str(exc)
    if source == STDIN and text.startswith("<bytes>"):
        text = "<stdin>" + text.removeprefix("<bytes>")
    return text


def _read_one(
    env: Environment,
    source: str,
    format: str | None,
    broken: list[TraceReadError],
    each: Callable[[Trace], None],
    restart: Callable[[], None],
) -> int:
    """Read one source, with a progress line when it takes long; the spans read."""
    progress = progress_of(env, source)
    visit_traces = env.visit_traces()
    spans = 0

    def counted(trace: Trace) -> None:
        nonlocal spans
        spans += len(trace.spans)
        each(trace)

    try:
        if source == STDIN:  # spooled to a file, read as the bytes it holds
            with _spooled_stdin(env.stdin) as path:
                visit_traces(path, counted, format=format, name="<bytes>", restart=restart)
        else:
            visit_traces(source, counted, format=format, failures=broken, restart=restart)
    finally:
        progress.stop()
    progress.done(spans)
    return spans


def progress_of(env: Environment, source: str) -> Progress:
    """The progress line of reading `source`, from now on."""
    size = 0 if source == STDIN else input_size(source)
    return Progress(_label(source), size, env.stderr, env.progress_bytes, env.progress_seconds)


@contextmanager
def _spooled_stdin(stdin: TextIO) -> Iterator[str]:
    """Standard input copied to a temporary file, read like one, removed afterwards."""
    from tracecheck.run.storage import copied_stream

    path, _ = copied_stream(stdin.buffer)
    try:
        yield path
    finally:
        Path(path).unlink()


class Progress:
    """A line on `stream` when reading takes long: at once for a file over `large` bytes,
    otherwise after `slow` seconds (gzip, directories, stdin); while a directory's files are
    read, how many so far and how fast, every `slow` seconds at first and less often as the
    run goes on (a long run's log stays short); then how much was read and how fast. `clock`
    is how time is read (tests give their own)."""

    def __init__(
        self,
        source: str,
        size: int,
        stream: TextIO,
        large: int,
        slow: float,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.source = source
        self.size = size
        self.stream = stream
        self.large = large
        self.slow = slow
        self.clock = clock
        self.started = self.said = clock()
        self.shown = False
        self.stopped = False
        self.lock = _thread.allocate_lock()
        self.timer: _Alarm | None = None
        if size > large:
            self._announce()
        else:
            self.timer = _Alarm(slow, self._announce)

    def _announce(self) -> None:
        with self.lock:
            if self.stopped or self.shown:
                return
            self.shown = True
            sized = self.size > min(self.large, 500_000)
            size = f" ({self.size / 1e6:.0f} MB)" if sized else ""
            print(f"tracecheck: reading {printable(self.source)}{size}…", file=self.stream)
            self.said = self.clock()

    def advance(self, files: int, of: int, spans: int) -> None:
        """`files` of the directory's `of` files read so far, `spans` spans in them."""
        now = self.clock()
        took = now - self.started
        with self.lock:
            due = min(_LONGEST_QUIET, max(self.slow, took / 3))
            if not self.shown or self.stopped or now - self.said < due:
                return
            self.said = now
            rate = spans / max(took, 1e-9)
            print(
                f"tracecheck: reading {printable(self.source)}: {files:,} of {of:,} files, "
                f"{spans:,} spans ({rate:,.0f} spans/s)…",
                file=self.stream,
            )

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        with self.lock:
            self.stopped = True

    def done(self, spans: int) -> None:
        if self.shown:
            took = self.clock() - self.started
            print(f"tracecheck: read {spans} spans in {took:.1f} s", file=self.stream)


# The longest a long directory read goes without a line (a CI job's log).
_LONGEST_QUIET = 30.0


class _Alarm:
    """`threading.Timer(seconds, call)`, daemonic and started, as `Progress` uses it: on
    `_thread`, which the interpreter has loaded already, because importing `threading` for a
    timer that almost never fires was a part of every `check`'s start-up."""

    def __init__(self, seconds: float, call: Callable[[], None]) -> None:
        self._cancelled = _thread.allocate_lock()
        self._cancelled.acquire()
        _thread.start_new_thread(self._wait, (seconds, call))

    def _wait(self, seconds: float, call: Callable[[], None]) -> None:
        if not self._cancelled.acquire(timeout=seconds):
            call()

    def cancel(self) -> None:
        if self._cancelled.locked():
            self._cancelled.release()


def input_size(source: str) -> int:
    """How large a file or the files of a directory are (0 when that cannot be told)."""
    from tracecheck.readers.inputs import directory_files

    try:
        path = Path(source)
        if path.is_dir():
            return sum(file.stat().st_size for file in directory_files(path))
        return path.stat().st_size if path.exists() else 0
    except OSError:
        return 0


def unreadable(source: str, exc: Exception) -> ReadFailure:
    """The failure of an input a reader's bug (or a worker's) stopped: named by its type."""
    return ReadFailure(
        source, "unreadable", f"{_label(source)}: could not be read: {internal_error(exc)}"
    )
