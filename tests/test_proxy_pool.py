"""The proxy scrubbing in worker processes (`ProxySettings.scrub_processes`, redact/shipping/pool.py):
what leaves is scrubbed, one identifier gets one pseudonym whichever worker scrubs it, and a
worker that dies costs only the batches it held.

Fake secrets only, assembled at run time from parts (tests/test_proxy.py's)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk.trace.export import SpanExportResult
from proxy_pool_support import always_fails, hold_back_unsafe, scrub_or_die, slow_scrub
from test_proxy import (
    SECRETS,
    Recording,
    Upstream,
    _batch,
    _post,
    _request_with_held_spans,
    _status_message,
    assert_no_secret,
    exporter_for,
    proxy_command,
    run_agent,
    serve,
    stack,
)

from redact.inspector import known_secrets_of
from redact.profiles import resolve_profile
from redact.shipping.pool import ProcessScrubbing, ThreadScrubbing
from redact.shipping.proxy import ProxyApp
from redact.shipping.refusal import Refusal
from redact.shipping.scrubbing import Scrubbed, Scrubber
from redact.shipping.settings import ProxySettings
from tracecheck.cli import main
from tracecheck.cli.arguments import available_cores
from tracecheck.errors import TraceReadError

_PSEUDONYM = re.compile(rb"\[ID:[0-9a-f]+\]")


def _json_batch(user: str, note: str, name: str = "work") -> bytes:
    """An OTLP/JSON request of one span carrying `user.id` and a `note`."""
    span = {
        "traceId": os.urandom(16).hex(),
        "spanId": os.urandom(8).hex(),
        "name": name,
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000000001000",
        "attributes": [
            {"key": "user.id", "value": {"stringValue": user}},
            {"key": "note", "value": {"stringValue": note}},
        ],
    }
    return orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})


def _pseudonyms(payload: bytes) -> set[bytes]:
    return set(_PSEUDONYM.findall(payload))


def _scrubber(key: bytes, scrub: Any) -> Scrubber:
    return Scrubber(resolve_profile("share"), known_secrets_of([SECRETS.known]), key, scrub)


# ---------------------------------------------------------------------------------------------
# The proxy with two scrubbing processes


@pytest.mark.parametrize("kind", ["proto-gzip", "json"])
def test_two_processes_forward_every_span_scrubbed(kind: str) -> None:
    with stack(scrub_processes=2) as (url, app, upstream):
        exporter = Recording(exporter_for(kind, url))
        ids = run_agent(exporter)
    assert exporter.results and set(exporter.results) == {SpanExportResult.SUCCESS}
    assert sorted(upstream.accepted()) == sorted(ids)
    assert_no_secret(upstream.arrivals)
    assert any(b"REDACTED" in a.body for a in upstream.arrivals)
    assert app.metrics.value("tracecheck_proxy_spans_forwarded_total") == len(ids)


def test_two_processes_give_one_identifier_one_pseudonym() -> None:
    # No key configured: the proxy draws one and gives it to both workers. Each batch keeps its
    # worker busy 0.3 s, so batches sent together are scrubbed by both.
    note = f"deploy with {SECRETS.known}"
    body = _json_batch("alice-4711", note)
    with (
        stack(scrub=slow_scrub, scrub_processes=2) as (url, _app, upstream),
        ThreadPoolExecutor(6) as clients,
    ):
        answers = list(
            clients.map(lambda _: _post(url, body, content_type="application/json"), range(6))
        )
    assert [a.status_code for a in answers] == [200] * 6
    assert len(upstream.arrivals) == 6
    assert_no_secret(upstream.arrivals)
    found = set().union(*(_pseudonyms(a.body) for a in upstream.arrivals))
    assert len(found) == 1
    assert b"alice-4711" not in b"".join(a.body for a in upstream.arrivals)


def test_drops_in_a_worker_are_answered_counted_and_logged_once_per_kind(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="redact.proxy")
    with stack(scrub=hold_back_unsafe, scrub_processes=2) as (url, app, upstream):
        answers = [_post(url, _request_with_held_spans(3)[0]) for _ in range(2)]
        kept = _post(url, _batch(2)[0])
    for response in answers:
        assert response.status_code == 200
        answer = ExportTraceServiceResponse()
        answer.ParseFromString(response.content)
        assert answer.partial_success.rejected_spans == 3
        assert answer.partial_success.error_message == (
            "3 spans are still not share-safe after redaction and not forwarded: "
            "UNSAFE (credential/known-secret) ×3"
        )
    assert kept.status_code == 200
    assert len(upstream.arrivals) == 1
    assert app.metrics.value("tracecheck_proxy_spans_dropped_unsafe_total") == 6
    logged = [r.getMessage() for r in caplog.records if r.name == "redact.proxy"]
    assert len(logged) == 1
    assert "UNSAFE (credential/known-secret)" in logged[0]


def test_a_body_a_worker_cannot_read_is_400_as_in_one_process() -> None:
    answers = []
    for processes in (1, 2):
        with stack(scrub_processes=processes) as (url, _app, upstream):
            answers.append(_post(url, b"{not json", content_type="application/json"))
            assert upstream.arrivals == []
    assert [a.status_code for a in answers] == [400, 400]
    assert answers[0].content == answers[1].content


def test_a_batch_no_worker_can_scrub_is_500_and_names_only_the_error_type(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with stack(scrub=always_fails, scrub_processes=2) as (url, _app, upstream):
        response = _post(url, _batch(2)[0])
    assert response.status_code == 500
    assert _status_message(response) == (
        "the proxy could not scrub the batch (RuntimeError); nothing was forwarded"
    )
    assert "redactor broke" not in caplog.text
    assert upstream.arrivals == []


def test_a_worker_that_dies_costs_its_batch_503_and_the_pool_is_made_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR, logger="redact.proxy")
    with stack(scrub=scrub_or_die, scrub_processes=2) as (url, app, upstream):
        before = _post(url, _json_batch("bob-1", "first"), content_type="application/json")
        killed = _post(
            url, _json_batch("bob-1", "x", name="kill-worker"), content_type="application/json"
        )
        after = _post(url, _json_batch("bob-1", "after"), content_type="application/json")
        scrubbing = app._scrubbing
    assert before.status_code == 200
    assert killed.status_code == 503
    assert killed.headers["retry-after"] == "1"
    assert orjson.loads(killed.content)["message"] == (
        "a scrubbing process stopped while it held the batch; nothing was forwarded; retry later"
    )
    assert after.status_code == 200
    assert [a.status for a in upstream.arrivals] == [200, 200]
    # The new pool's workers got the same key: the same pseudonym before and after.
    assert len(_pseudonyms(upstream.arrivals[0].body) | _pseudonyms(upstream.arrivals[1].body)) == 1
    assert isinstance(scrubbing, ProcessScrubbing) and scrubbing.pools_made == 2
    assert app.metrics.value("tracecheck_proxy_requests_total", outcome="scrub_failed") == 1
    assert "a scrubbing process stopped" in caplog.text
    assert SECRETS.known not in caplog.text


# ---------------------------------------------------------------------------------------------
# The pool on its own


def test_batches_scrubbed_by_different_workers_get_the_same_pseudonym() -> None:
    key = os.urandom(32)
    scrubber = _scrubber(key, slow_scrub)
    bodies = [_json_batch("carol-99", f"note {n}") for n in range(4)]

    async def run() -> list[Scrubbed]:
        scrubbing = ProcessScrubbing(scrubber, processes=2)
        await scrubbing.start()
        try:
            return list(await asyncio.gather(*(scrubbing.scrub(b, "json", None) for b in bodies)))
        finally:
            scrubbing.close()

    results = asyncio.run(run())
    assert len({r.process for r in results}) == 2  # both workers scrubbed
    assert os.getpid() not in {r.process for r in results}
    found = set().union(*(_pseudonyms(r.payload or b"") for r in results))
    # ... and agree with each other and with a scrub in this process under the same key.
    here = _scrubber(key, slow_scrub)(bodies[0], "json", None)
    assert found == _pseudonyms(here.payload or b"") and len(found) == 1


def test_a_worker_killed_while_idle_is_replaced_and_keeps_the_key() -> None:
    key = os.urandom(32)

    async def run() -> tuple[Scrubbed, Scrubbed, int]:
        scrubbing = ProcessScrubbing(_scrubber(key, scrub_or_die), processes=2)
        await scrubbing.start()
        try:
            first = await scrubbing.scrub(_json_batch("dave-7", "a"), "json", None)
            os.kill(first.process, signal.SIGKILL)
            # Until the pool notices the death (a batch sent meanwhile may go to the other
            # worker, or get 503), then the next batch goes to a new pool. Polled at most 1,200
            # times: the cap (a minute) guards against a hang and decides nothing about speed.
            for _ in range(1200):
                try:
                    second = await scrubbing.scrub(_json_batch("dave-7", "b"), "json", None)
                except Refusal as refusal:
                    assert refusal.status == 503
                    continue
                if scrubbing.pools_made == 2:
                    return first, second, scrubbing.pools_made
                await asyncio.sleep(0.05)
            raise AssertionError("the dead worker was never replaced")
        finally:
            scrubbing.close()

    first, second, pools = asyncio.run(run())
    assert pools == 2 and second.process != first.process
    assert _pseudonyms(first.payload or b"") == _pseudonyms(second.payload or b"")


def test_a_pool_is_replaced_after_its_tasks() -> None:
    async def run() -> tuple[set[int], int]:
        scrubbing = ProcessScrubbing(
            _scrubber(os.urandom(32), slow_scrub), processes=2, tasks_per_process=1
        )
        await scrubbing.start()
        try:
            seen = set()
            for n in range(5):
                result = await scrubbing.scrub(_json_batch("erin", f"{n}"), "json", None)
                seen.add(result.process)
            return seen, scrubbing.pools_made
        finally:
            scrubbing.close()

    seen, pools = asyncio.run(run())
    assert pools == 3  # one at the start, then one every 2 batches
    assert len(seen) >= 3


def test_the_unreadable_body_error_crosses_back_whole() -> None:
    async def run() -> str:
        scrubbing = ProcessScrubbing(_scrubber(os.urandom(32), slow_scrub), processes=2)
        await scrubbing.start()
        try:
            await scrubbing.scrub(b"[1, 2]", "json", None)
        except TraceReadError as exc:
            return str(exc)
        finally:
            scrubbing.close()
        raise AssertionError("no TraceReadError")

    here = ThreadScrubbing(_scrubber(os.urandom(32), slow_scrub))

    async def in_thread() -> str:
        await here.start()
        try:
            await here.scrub(b"[1, 2]", "json", None)
        except TraceReadError as exc:
            return str(exc)
        finally:
            here.close()
        raise AssertionError("no TraceReadError")

    assert asyncio.run(run()) == asyncio.run(in_thread())


# ---------------------------------------------------------------------------------------------
# Settings and the command


def test_scrub_processes_must_be_at_least_one() -> None:
    with pytest.raises(ValueError, match="scrub_processes must be at least 1"):
        ProxySettings(upstream="http://c", scrub_processes=0)


def test_an_executor_is_for_one_process_only() -> None:
    with pytest.raises(ValueError, match="scrub_processes=1"):
        ProxyApp(
            ProxySettings(upstream="http://c", scrub_processes=2), executor=ThreadPoolExecutor(1)
        )


@pytest.mark.parametrize(("value", "message"), [("0", "must be at least 1"), ("many", "auto")])
def test_bad_scrub_processes_exit_2(
    value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["proxy", "--upstream", "http://c", "--scrub-processes", value]) == 2
    err = capsys.readouterr().err
    assert "--scrub-processes" in err and message in err


def test_the_command_scrubs_in_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    settings: list[ProxySettings] = []

    def fake_serve(app: ProxyApp, sock: Any, **kwargs: Any) -> None:
        settings.append(app.settings)
        sock.close()

    monkeypatch.setattr("tracecheck.cli.serving.serve", fake_serve)
    command = ["proxy", "--upstream", "http://c", "--listen", "127.0.0.1:0"]
    assert main(command) == 0
    assert main([*command, "--scrub-processes", "3"]) == 0
    assert main([*command, "--scrub-processes", "auto"]) == 0
    assert [s.scrub_processes for s in settings] == [1, 3, available_cores()]
    assert 1 <= available_cores() <= (os.cpu_count() or 1)


def test_the_command_with_two_processes_serves_and_stops() -> None:
    env = {**os.environ, "TC_PROXY_KNOWN": SECRETS.known}
    with serve(Upstream()) as upstream_url:
        args = ("--upstream", upstream_url, "--known-secret-env", "TC_PROXY_KNOWN")
        with proxy_command(*args, "--scrub-processes", "2", env=env) as (url, process, _line):
            response = _post(
                url, _json_batch("frank", SECRETS.known), content_type="application/json"
            )
            assert response.status_code == 200
            tree = {process.pid, *_descendants(process.pid)}
            assert len(tree) >= 4  # the proxy, the forkserver, two workers
            for pid in tree:  # the secret went through pipes, not command lines
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                assert SECRETS.known.encode() not in cmdline
            process.send_signal(signal.SIGTERM)
            assert process.wait(15) == 0
            assert process.stderr is not None
            assert SECRETS.known not in process.stderr.read()


def _descendants(pid: int) -> set[int]:
    """Every live process under `pid` (Linux's /proc: the parent is the 4th field of stat)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited


def test_scrub_processes_exit_when_the_proxy_is_killed() -> None:
    """SIGKILL leaves the proxy no chance to stop its pool: the workers, the forkserver and the
    resource tracker notice its death themselves and exit."""
    with serve(Upstream()) as upstream_url:
        args = ("--upstream", upstream_url, "--scrub-processes", "2")
        with proxy_command(*args, env=dict(os.environ)) as (url, process, _line):
            assert _post(url, _batch(2)[0]).status_code == 200
            children = _descendants(process.pid)
            # The forkserver, two workers under it and the resource tracker, at least.
            assert len(children) >= 4, children
            process.send_signal(signal.SIGKILL)
            process.wait()
    # Polled a bounded number of times (the cap only guards against a hang, it decides nothing
    # about speed): each child is seen gone, or the test fails naming those left.
    left = children
    for _ in range(600):
        left = {pid for pid in left if _alive(pid)}
        if not left:
            break
        time.sleep(0.05)
    for pid in left:  # never leave them behind, whatever the outcome
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"still running after the proxy was killed: {sorted(left)}"
