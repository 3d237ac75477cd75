"""How far `fleet check` has got, said on stderr while it runs: traces read, how fast, and
inputs not read so far. On a terminal the line is drawn again in place (at most every
`TTY_SECONDS`) and ended when the run is; elsewhere (a CI log, a file) a line every `seconds`,
so that a long run is seen to be alive and a short one prints nothing."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["RunProgress"]

TTY_SECONDS = 0.5


class RunProgress:
    """Told each input's outcome (`add`), says how far the run has got when it is time to;
    `clock` is how time is read (tests give their own)."""

    def __init__(
        self,
        stream: TextIO,
        seconds: float,
        *,
        tty: bool,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream, self.tty, self.clock = stream, tty, clock
        self.every = min(seconds, TTY_SECONDS) if tty else seconds
        self.started = self.last = clock()
        self.inputs = self.traces = self.unread = 0
        self.drawn = False

    def add(self, read: int, failures: int) -> None:
        """One more input done: `read` traces read from it, `failures` of it not read."""
        self.inputs += 1
        self.traces += read
        self.unread += failures
        now = self.clock()
        if now - self.last >= self.every:
            self.last = now
            self._say(now)

    def clear(self) -> None:
        """The line drawn in place wiped, before something else is printed on the stream."""
        if self.tty and self.drawn:
            print("\r\x1b[K", end="", file=self.stream, flush=True)
            self.drawn = False

    def done(self) -> None:
        """The run is over: a line drawn in place is ended."""
        if self.tty and self.drawn:
            self._say(self.clock())
            print(file=self.stream, flush=True)

    def _say(self, now: float) -> None:
        took = max(now - self.started, 1e-9)
        line = (
            f"tracecheck: {self.traces} traces read from {self.inputs} inputs "
            f"({self.traces / took:.0f} traces/s), {self.unread} not read"
        )
        if self.tty:
            print(f"\r{line}", end="", file=self.stream, flush=True)
            self.drawn = True
        else:
            print(line, file=self.stream, flush=True)
