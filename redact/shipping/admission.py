"""The scrub queue: which batches the proxy scrubs, and when it answers `503` instead.

A request has one budget, `upstream_timeout` from its arrival, for waiting its turn, scrubbing
and forwarding. Scrubbing a batch the budget cannot cover is work whose result is thrown away,
and under overload that work is what delays every other batch past its own budget, until
nothing is delivered at all. So the queue answers such a batch `503` with `Retry-After` at
once, before any work, and checks again when its turn comes, before scrubbing starts:

- on arrival (before its body is read, with the size it declares, and again once read), a
  batch is refused when the work queued ahead of it, shared over the scrubbing slots, plus its
  own scrubbing and a forwarding reserve, would end past its deadline; a batch that finds a
  slot free and no one waiting is always tried (it delays no one, and only a scrub can
  correct an estimate);
- when a slot frees for it, it is refused when its own scrubbing and the reserve no longer fit;
- a scrub that runs past the deadline is not waited for: the request is answered then, and the
  slot is freed when that scrub ends.

Costs are estimated from what was measured (`Costs`): the scrubbing throughput of one slot in
bytes of request body per second, and the time an upstream delivery took, each a moving average
of recent batches. The clock is given (the event loop's by default), so that the decisions can
be tested without waiting.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from redact.shipping.refusal import Refusal

__all__ = ["Costs", "ScrubQueue"]

T = TypeVar("T")

# Until a batch is measured: a deliberately modest rate (one core scrubs 2-5 MB/s of protobuf
# spans) and delivery time, so that the first batches of a burst are not all admitted.
INITIAL_BYTES_PER_SECOND: Final = 2_000_000.0
INITIAL_FORWARD_SECONDS: Final = 0.1
# The weight of the newest measurement in the moving averages.
_WEIGHT: Final = 0.3


@dataclass
class Costs:
    """Recent measured costs: scrubbing throughput of one slot, and an upstream delivery."""

    bytes_per_second: float = INITIAL_BYTES_PER_SECOND
    forward_seconds: float = INITIAL_FORWARD_SECONDS

    def scrub_seconds(self, size: int) -> float:
        return size / self.bytes_per_second

    def scrubbed(self, size: int, seconds: float) -> None:
        if size > 0 and seconds > 0:
            rate = size / seconds
            self.bytes_per_second += _WEIGHT * (rate - self.bytes_per_second)

    def forwarded(self, seconds: float) -> None:
        if seconds >= 0:
            self.forward_seconds += _WEIGHT * (seconds - self.forward_seconds)


@dataclass(eq=False)
class _Batch:
    size: int
    deadline: float
    turn: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class ScrubQueue:
    """Runs scrubs on `slots` slots (the scrubbing threads or processes), first come first
    served, refusing with `Refusal(503)` what cannot end within its deadline (see the module's
    docstring). `clock` gives the time deadlines are in."""

    def __init__(self, slots: int, clock: Callable[[], float], costs: Costs | None = None) -> None:
        if slots < 1:
            raise ValueError("slots must be at least 1")
        self.slots = slots
        self.clock = clock
        self.costs = costs or Costs()
        self._waiting: deque[_Batch] = deque()
        self._running: dict[_Batch, float] = {}  # batch -> when its scrub started
        self.refused_on_arrival = 0
        self.refused_at_turn = 0

    def backlog_seconds(self, now: float) -> float:
        """The estimated wait for a slot: the work left of the running scrubs and all of the
        waiting ones, shared over the slots."""
        costs = self.costs
        left = sum(
            max(0.0, started + costs.scrub_seconds(batch.size) - now)
            for batch, started in self._running.items()
        )
        left += sum(costs.scrub_seconds(batch.size) for batch in self._waiting)
        if self._free():
            return 0.0
        return left / self.slots

    def _free(self) -> bool:
        return len(self._running) < self.slots and not self._waiting

    def check(self, size: int, deadline: float) -> None:
        """Refuse (`Refusal(503)`) a batch of `size` bytes that could not end by `deadline`
        behind the work queued now. The proxy calls it on arrival with the size the request
        declares (0 when compressed), before reading its body, and `run` again with the
        body's size."""
        if self._free():
            # A free slot and no one waiting: scrubbing it delays no one, so it is tried
            # whatever the estimate (which only a scrub can correct); if it runs past its
            # deadline it is answered then.
            return
        now = self.clock()
        wait = self.backlog_seconds(now)
        own = self.costs.scrub_seconds(size) + self.costs.forward_seconds
        if now + wait + own > deadline:
            self.refused_on_arrival += 1
            raise _busy(
                wait + own,
                "the batches ahead of it and its own scrubbing would take past the request's "
                "budget, so it was not scrubbed",
            )

    async def run(self, size: int, deadline: float, scrub: Callable[[], Awaitable[T]]) -> T:
        """`scrub()` (a batch of `size` bytes) once a slot is free and if it can end, and be
        forwarded, by `deadline`; `Refusal(503)` with `Retry-After` otherwise."""
        self.check(size, deadline)
        now = self.clock()
        own = self.costs.scrub_seconds(size) + self.costs.forward_seconds
        batch = _Batch(size, deadline)
        if self._free():
            self._running[batch] = now
        else:
            self._waiting.append(batch)
            try:
                await batch.turn
            except BaseException:
                self._leave(batch)
                raise
            now = self.clock()
            if now + own > deadline:
                self.refused_at_turn += 1
                self._finish(batch, None)
                raise _busy(
                    self.backlog_seconds(now) + own,
                    "its turn came too late for its scrubbing to end within the request's "
                    "budget, so it was not scrubbed",
                )
            self._running[batch] = now  # its slot was held for it since its turn came
        task = asyncio.ensure_future(scrub())
        task.add_done_callback(lambda done: self._finish(batch, done))
        try:
            return await asyncio.wait_for(asyncio.shield(task), max(0.0, deadline - now))
        except TimeoutError:
            raise _busy(
                self.backlog_seconds(self.clock()) + own,
                "scrubbing the batch took past the request's budget, so it was not sent",
            ) from None

    def _leave(self, batch: _Batch) -> None:
        """A waiting batch gone (its client left): its turn, if it came, passes on."""
        if batch in self._waiting:
            self._waiting.remove(batch)
        elif batch in self._running:
            self._finish(batch, None)

    def _finish(self, batch: _Batch, done: asyncio.Future[T] | None) -> None:
        started = self._running.pop(batch, None)
        if done is not None and started is not None and _succeeded(done):
            self.costs.scrubbed(batch.size, self.clock() - started)
        # The slot passes to the next batch still waiting (or stays free), held for it from
        # now so that no batch arriving before it wakes takes it.
        while self._waiting:
            following = self._waiting.popleft()
            if not following.turn.done():
                self._running[following] = self.clock()
                following.turn.set_result(None)
                return


def _succeeded(done: asyncio.Future[Any]) -> bool:
    return not done.cancelled() and done.exception() is None


def _busy(seconds: float, what: str) -> Refusal:
    return Refusal(
        503,
        "overloaded",
        f"the proxy is busy: {what}; retry later",
        retry_after=max(1.0, math.ceil(seconds)),
    )
