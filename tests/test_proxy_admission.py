"""The proxy's scrub queue (redact/shipping/admission.py): which batch it scrubs and which it
answers 503 at once, decided on an injected clock and given costs, so nothing here depends on
how fast the machine is."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from redact.shipping.admission import Costs, ScrubQueue
from redact.shipping.refusal import Refusal


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Scrubs:
    """Scrubs that end when the test says: each records that it started."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.gates: dict[str, asyncio.Event] = {}

    def scrub(self, name: str) -> Callable[[], Awaitable[str]]:
        self.gates[name] = asyncio.Event()

        async def run() -> str:
            self.started.append(name)
            await self.gates[name].wait()
            return name

        return run


def _queue(slots: int = 1) -> tuple[ScrubQueue, Clock]:
    clock = Clock()
    # 1,000 bytes a second per slot, half a second to forward.
    return ScrubQueue(slots, clock, Costs(bytes_per_second=1000.0, forward_seconds=0.5)), clock


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_a_batch_its_budget_cannot_cover_is_refused_before_any_work() -> None:
    async def scenario() -> None:
        queue, _clock = _queue()
        scrubs = Scrubs()
        busy = asyncio.ensure_future(queue.run(10, 100.0, scrubs.scrub("busy")))
        await _settle()
        with pytest.raises(Refusal) as refused:
            # 3 s of scrubbing and 0.5 s forwarding do not fit in 3 s.
            await queue.run(3000, 3.0, scrubs.scrub("big"))
        assert refused.value.status == 503
        assert refused.value.retry_after is not None and refused.value.retry_after >= 1
        assert scrubs.started == ["busy"]
        assert queue.refused_on_arrival == 1
        with pytest.raises(Refusal):
            queue.check(3000, 3.0)  # what the proxy asks before reading a body
        scrubs.gates["busy"].set()
        await busy

    asyncio.run(scenario())


def test_an_idle_queue_tries_a_batch_whatever_the_estimate() -> None:
    """Only a scrub corrects the estimate: refusing on an idle proxy would refuse forever."""

    async def scenario() -> None:
        queue, _clock = _queue()
        scrubs = Scrubs()
        queue.check(3000, 3.0)  # no refusal
        task = asyncio.ensure_future(queue.run(3000, 3.0, scrubs.scrub("big")))
        await _settle()
        assert scrubs.started == ["big"]
        scrubs.gates["big"].set()
        assert await task == "big"
        assert queue.refused_on_arrival == 0

    asyncio.run(scenario())


def test_the_work_queued_ahead_counts_and_a_refusal_is_at_once() -> None:
    async def scenario() -> None:
        queue, _clock = _queue()
        scrubs = Scrubs()
        first = asyncio.ensure_future(queue.run(1000, 10.0, scrubs.scrub("first")))
        await _settle()
        assert scrubs.started == ["first"]
        # 1 s left of the first, 1 s of its own, 0.5 s forwarding: 2.5 s > 2 s.
        with pytest.raises(Refusal):
            await queue.run(1000, 2.0, scrubs.scrub("late"))
        # The same batch with 3 s waits its turn.
        second = asyncio.ensure_future(queue.run(1000, 3.0, scrubs.scrub("second")))
        await _settle()
        assert scrubs.started == ["first"]  # one slot: the second waits
        assert queue.backlog_seconds(0.0) == pytest.approx(2.0)
        scrubs.gates["first"].set()
        assert await first == "first"
        await _settle()
        assert scrubs.started == ["first", "second"]
        scrubs.gates["second"].set()
        assert await second == "second"
        assert queue.refused_on_arrival == 1

    asyncio.run(scenario())


def test_the_deadline_is_checked_again_when_the_turn_comes_before_scrubbing() -> None:
    async def scenario() -> None:
        queue, clock = _queue()
        scrubs = Scrubs()
        first = asyncio.ensure_future(queue.run(1000, 10.0, scrubs.scrub("first")))
        await _settle()
        waiting = asyncio.ensure_future(queue.run(1000, 3.0, scrubs.scrub("waiting")))
        third = asyncio.ensure_future(queue.run(1000, 10.0, scrubs.scrub("third")))
        await _settle()
        clock.now = 2.0  # the first took twice its estimate: 2 + 1 + 0.5 > 3
        scrubs.gates["first"].set()
        await first
        with pytest.raises(Refusal) as refused:
            await waiting
        assert "turn came too late" in refused.value.message
        assert queue.refused_at_turn == 1
        await _settle()
        # It was never scrubbed, and its slot went to the next batch.
        assert scrubs.started == ["first", "third"]
        scrubs.gates["third"].set()
        assert await third == "third"

    asyncio.run(scenario())


def test_measured_scrubs_move_the_estimate() -> None:
    async def scenario() -> None:
        queue, clock = _queue()
        scrubs = Scrubs()
        task = asyncio.ensure_future(queue.run(1000, 10.0, scrubs.scrub("fast")))
        await _settle()
        clock.now = 0.25  # 4,000 bytes/s measured
        scrubs.gates["fast"].set()
        await task
        assert 1000.0 < queue.costs.bytes_per_second < 4000.0
        before = queue.costs.forward_seconds
        queue.costs.forwarded(0.1)
        assert queue.costs.forward_seconds < before

    asyncio.run(scenario())


def test_a_scrub_past_the_deadline_is_answered_then_and_holds_its_slot_until_it_ends() -> None:
    async def scenario() -> None:
        queue, clock = _queue()
        scrubs = Scrubs()
        # Admitted with 0.05 (clock) seconds to spare; the scrub does not end in time.
        with pytest.raises(Refusal) as refused:
            await queue.run(1000, 1.55, scrubs.scrub("slow"))
        assert "took past" in refused.value.message
        assert scrubs.started == ["slow"]
        # The slot is still taken: the next batch waits for it.
        follower = asyncio.ensure_future(queue.run(1000, 100.0, scrubs.scrub("next")))
        await _settle()
        assert scrubs.started == ["slow"]
        scrubs.gates["slow"].set()
        await _settle()
        assert scrubs.started == ["slow", "next"]
        scrubs.gates["next"].set()
        assert await follower == "next"
        assert clock.now == 0.0

    asyncio.run(scenario())


def test_slots_run_side_by_side_and_a_client_that_leaves_frees_its_place() -> None:
    async def scenario() -> None:
        queue, _clock = _queue(slots=2)
        scrubs = Scrubs()
        tasks: dict[str, Any] = {
            name: asyncio.ensure_future(queue.run(100, 10.0, scrubs.scrub(name)))
            for name in ("a", "b", "gone", "d")
        }
        await _settle()
        assert scrubs.started == ["a", "b"]
        tasks["gone"].cancel()
        await _settle()
        scrubs.gates["a"].set()
        await _settle()
        assert scrubs.started == ["a", "b", "d"]
        for name in ("b", "d"):
            scrubs.gates[name].set()
        assert [await tasks[n] for n in ("a", "b", "d")] == ["a", "b", "d"]

    asyncio.run(scenario())


def test_an_overloaded_proxy_scrubs_only_what_can_be_answered_in_time() -> None:
    """Over loopback: 24 batches at once, each scrub at least 0.2 s on one thread, a 3 s budget:
    the last ones' turns cannot come before their deadlines, so they are refused before being
    scrubbed (at arrival or when their turn comes), with Retry-After, and some are delivered.
    Nothing here bounds a time: a slower machine only refuses more."""
    import threading
    import time

    import httpx
    from test_proxy import _batch, _post, stack

    from redact.spans import scrub_spans

    scrubbed: list[int] = []

    def slow(spans: Any, **kwargs: Any) -> Any:
        time.sleep(0.2)
        scrubbed.append(len(spans))
        return scrub_spans(spans, **kwargs)

    bodies = [_batch(3)[0] for _ in range(24)]
    answers: list[httpx.Response] = []
    lock = threading.Lock()
    with stack(scrub=slow, upstream_timeout=3.0, queue_size=32) as (url, app, upstream):
        start = threading.Barrier(len(bodies))

        def send(body: bytes) -> None:
            start.wait()
            response = _post(url, body, timeout=30)
            with lock:
                answers.append(response)

        threads = [threading.Thread(target=send, args=(body,)) for body in bodies]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    statuses = sorted(a.status_code for a in answers)
    assert set(statuses) <= {200, 503}
    assert 200 in statuses  # goodput above zero
    refused = [a for a in answers if a.status_code == 503]
    assert refused and all(int(a.headers["retry-after"]) >= 1 for a in refused)
    # Fewer scrubs than batches: the 24th cannot start before 23 × 0.2 s > 3 s.
    assert len(scrubbed) < len(bodies)
    assert len(upstream.arrivals) == statuses.count(200)
    assert app.metrics.value("tracecheck_proxy_requests_total", outcome="overloaded") >= 1
