"""`tracecheck proxy` end to end: real OTLP/HTTP exporters → the proxy under uvicorn → a capture
upstream, every server on 127.0.0.1 with a free port, started and stopped here.

Fake secrets only, assembled at run time from parts.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import logging
import os
import random
import re
import signal
import socket
import string
import struct
import subprocess
import sys
import threading
import time
import tracemalloc
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import cramjam
import httpx
import orjson
import pytest
import uvicorn
import zstandard
from google.rpc import status_pb2  # type: ignore[import-untyped]  # the OTLP exporters' dependency
from opentelemetry.exporter.otlp.common.http import Compression as JsonCompression
from opentelemetry.exporter.otlp.json.http.trace_exporter import (
    OTLPSpanExporter as JsonSpanExporter,
)
from opentelemetry.exporter.otlp.proto.http import Compression as ProtoCompression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
    OTLPSpanExporter as ProtoSpanExporter,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SpanExporter,
    SpanExportResult,
)

from redact import DroppedSpan, ScrubbedSpans, ShareStatus, ShareVerdict
from redact.shipping.proxy import ProxyApp, Scrub, create_app
from redact.shipping.settings import ProxySettings
from redact.spans import scrub_spans
from tracecheck.cli import main

# ---------------------------------------------------------------------------------------------
# Fake secrets, built at run time


def _token(rng: random.Random, alphabet: str, size: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


@dataclass(frozen=True)
class Secrets:
    known: str
    provider_keys: tuple[str, ...]
    emails: tuple[str, ...]
    cards: tuple[str, ...]

    @property
    def known_forms(self) -> tuple[str, ...]:
        raw = self.known.encode()
        return (
            self.known,
            base64.b64encode(raw).decode(),
            base64.urlsafe_b64encode(raw).decode().rstrip("="),
            quote(self.known, safe=""),
        )

    def every_form(self) -> tuple[str, ...]:
        digits = tuple(card.replace(" ", "") for card in self.cards)
        return self.known_forms + self.provider_keys + self.emails + self.cards + digits


def _secrets() -> Secrets:
    rng = random.Random(4318)
    alnum = string.ascii_letters + string.digits
    known = "tc" + "-fake-" + _token(rng, alnum, 20) + "/+=" + _token(rng, alnum, 6)
    provider = (
        "sk-" + "proj-" + _token(rng, alnum, 48),
        "AK" + "IA" + _token(rng, string.ascii_uppercase + "234567", 16),
        "gh" + "p_" + _token(rng, alnum, 36),
    )
    emails = ("jane.doe" + "@" + "example.org", "ops-team" + "@" + "corp.example.com")
    cards = ("4111" + " 1111" * 3, "5555" + "5555" + "5555" + "4444")
    return Secrets(known, provider, emails, cards)


SECRETS = _secrets()


# ---------------------------------------------------------------------------------------------
# Servers


@contextmanager
def serve(app: Any, **tls: Any) -> Iterator[str]:
    """Run an ASGI app under uvicorn on 127.0.0.1 (a free port) in a thread; yield its URL.
    `tls`: uvicorn's ssl_* options, for an https:// server."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        lifespan="on",
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=5,
        **tls,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.01)
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        assert not thread.is_alive(), "server did not stop"


@dataclass(frozen=True)
class Reply:
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0
    body: bytes = b""
    hold: threading.Event | None = None  # answered once the test sets it, not after a time


@dataclass
class Arrival:
    at: float
    content_type: str
    content_encoding: str
    body: bytes  # inflated
    span_ids: tuple[str, ...]
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    path: str = "/v1/traces"


@dataclass
class Upstream:
    """A capture OTLP/HTTP receiver: answers from `script` (then `default`), records arrivals."""

    script: list[Reply] = field(default_factory=list)
    default: Reply = field(default_factory=Reply)
    arrivals: list[Arrival] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (message := await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        coding = headers.get("content-encoding", "")
        if coding == "gzip":
            body = gzip.decompress(body)
        elif coding == "deflate":
            body = zlib.decompress(body)
        content_type = headers.get("content-type", "")
        if coding == "zstd":
            body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
        elif coding == "snappy":
            body = bytes(cramjam.snappy.decompress_raw(body))
        elif coding == "x-snappy-framed":
            body = bytes(cramjam.snappy.decompress(body))
        path = scope["path"]
        ids = _span_ids(content_type, body) if path == "/v1/traces" else ()
        arrival = Arrival(time.monotonic(), content_type, coding, body, ids, 0, headers, path)
        with self.lock:
            reply = self.script.pop(0) if self.script else self.default
            self.arrivals.append(arrival)
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.hold is not None:
            await asyncio.to_thread(reply.hold.wait, 60)  # the cap only guards against a hang
        arrival.status = reply.status
        out = [(b"content-type", content_type.encode() or b"application/x-protobuf")]
        out += [(k.encode(), v.encode()) for k, v in reply.headers]
        await send({"type": "http.response.start", "status": reply.status, "headers": out})
        await send({"type": "http.response.body", "body": reply.body})

    def accepted(self) -> list[str]:
        """Span ids in batches the upstream answered 200 to, repeats included."""
        with self.lock:
            return [i for a in self.arrivals if a.status == 200 for i in a.span_ids]

    def received(self) -> list[str]:
        with self.lock:
            return [i for a in self.arrivals for i in a.span_ids]


def _until(condition: Callable[[], bool]) -> None:
    """Wait for `condition`, polling: the cap (a minute) guards against a hang and decides
    nothing about how fast."""
    for _ in range(6000):
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError("waited a minute for a condition that never held")


def _span_ids(content_type: str, body: bytes) -> tuple[str, ...]:
    if content_type.startswith("application/json"):
        document = orjson.loads(body)
        return tuple(
            span["spanId"]
            for rs in document.get("resourceSpans", [])
            for ss in rs.get("scopeSpans", [])
            for span in ss.get("spans", [])
        )
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    return tuple(
        span.span_id.hex()
        for rs in request.resource_spans
        for ss in rs.scope_spans
        for span in ss.spans
    )


@contextmanager
def proxy_to(
    upstream_url: str, scrub: Scrub = scrub_spans, **options: Any
) -> Iterator[tuple[str, ProxyApp]]:
    options.setdefault("known_secrets", [SECRETS.known])
    options.setdefault("first_backoff", 0.05)
    options.setdefault("upstream_timeout", 3.0)
    app = create_app(ProxySettings(upstream=upstream_url, **options), scrub=scrub)
    with serve(app) as url:
        yield url, app


@contextmanager
def stack(
    upstream: Upstream | None = None, scrub: Scrub = scrub_spans, **options: Any
) -> Iterator[tuple[str, ProxyApp, Upstream]]:
    upstream = upstream or Upstream()
    with serve(upstream) as upstream_url, proxy_to(upstream_url, scrub, **options) as (url, app):
        yield url, app, upstream


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# ---------------------------------------------------------------------------------------------
# The instrumented application


class Recording(SpanExporter):
    """Wraps a real exporter and records every result it returns to the SDK."""

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner
        self.results: list[SpanExportResult] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = self.inner.export(spans)
        self.results.append(result)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()


def exporter_for(kind: str, url: str) -> SpanExporter:
    endpoint = f"{url}/v1/traces"
    if kind == "proto":
        return ProtoSpanExporter(endpoint=endpoint, timeout=10)
    if kind == "proto-gzip":
        return ProtoSpanExporter(endpoint=endpoint, timeout=10, compression=ProtoCompression.Gzip)
    if kind == "json":
        return JsonSpanExporter(endpoint=endpoint, timeout=10)
    return JsonSpanExporter(endpoint=endpoint, timeout=10, compression=JsonCompression.GZIP)


def run_agent(exporter: SpanExporter, *, turns: int = 3, held: int = 0) -> set[str]:
    """Spans of an agent run full of fake secrets, exported in batches; their span ids (hex).
    `held` spans are named `held-back …` (tests gate them)."""
    provider = TracerProvider(
        resource=Resource.create({"service.name": "refund-desk", "deploy.token": SECRETS.known})
    )
    provider.add_span_processor(BatchSpanProcessor(exporter, max_export_batch_size=16))
    tracer = provider.get_tracer("agent", "1.0")
    ids: set[str] = set()
    known_b64, known_b64url, known_pct = SECRETS.known_forms[1:]
    with tracer.start_as_current_span("invoke_agent refund-desk") as root:
        root.set_attribute("gen_ai.agent.name", "refund-desk")
        root.set_attribute("user.email", SECRETS.emails[0])
        ids.add(format(root.get_span_context().span_id, "016x"))
        for turn in range(turns):
            with tracer.start_as_current_span(f"chat gpt-4o turn {turn}") as chat:
                chat.set_attribute("gen_ai.request.model", "gpt-4o")
                chat.set_attribute(
                    "gen_ai.input.messages",
                    orjson.dumps(
                        [
                            {"role": "user", "content": f"my card is {SECRETS.cards[turn % 2]}"},
                            {"role": "user", "content": f"mail {SECRETS.emails[1]} please"},
                        ]
                    ).decode(),
                )
                chat.set_attribute("http.request.header.authorization", f"Bearer {SECRETS.known}")
                chat.add_event("retry", {"note": f"key={SECRETS.provider_keys[0]}"})
                ids.add(format(chat.get_span_context().span_id, "016x"))
            with tracer.start_as_current_span("execute_tool fetch_url") as tool:
                tool.set_attribute("gen_ai.tool.name", "fetch_url")
                tool.set_attribute(
                    "gen_ai.tool.call.arguments",
                    orjson.dumps({"url": f"https://api.example.com/?token={known_pct}"}).decode(),
                )
                tool.set_attribute(
                    "gen_ai.tool.call.result",
                    f"env dump:\nAWS_ACCESS_KEY_ID={SECRETS.provider_keys[1]}\n"
                    f"GITHUB_TOKEN={SECRETS.provider_keys[2]}\n"
                    f"blob {known_b64} and {known_b64url}\n",
                )
                ids.add(format(tool.get_span_context().span_id, "016x"))
        for n in range(held):
            with tracer.start_as_current_span(f"held-back {n}") as span:
                span.set_attribute("n", n)
                ids.add(format(span.get_span_context().span_id, "016x"))
    provider.force_flush()
    provider.shutdown()
    return ids


def assert_no_secret(arrivals: Sequence[Arrival]) -> None:
    assert arrivals
    for arrival in arrivals:
        text = arrival.body.decode("utf-8", "replace")
        for form in SECRETS.every_form():
            assert form not in text, "a secret reached the upstream"


# ---------------------------------------------------------------------------------------------
# End to end with the real exporters


@pytest.mark.parametrize("kind", ["proto", "proto-gzip", "json", "json-gzip"])
def test_real_exporters_deliver_every_span_scrubbed(kind: str) -> None:
    with stack() as (url, app, upstream):
        exporter = Recording(exporter_for(kind, url))
        ids = run_agent(exporter)
    assert exporter.results and set(exporter.results) == {SpanExportResult.SUCCESS}
    accepted = upstream.accepted()
    assert sorted(accepted) == sorted(ids)  # every span, each once
    assert_no_secret(upstream.arrivals)
    media = "application/json" if kind.startswith("json") else "application/x-protobuf"
    coding = "gzip" if kind.endswith("gzip") else ""
    assert {(a.content_type, a.content_encoding) for a in upstream.arrivals} == {(media, coding)}
    # What was redacted is still there as a marker: the spans were scrubbed, not emptied.
    assert any(b"REDACTED" in a.body for a in upstream.arrivals)
    metrics = app.metrics
    assert metrics.value("tracecheck_proxy_spans_received_total") == len(ids)
    assert metrics.value("tracecheck_proxy_spans_forwarded_total") == len(ids)
    assert metrics.value("tracecheck_proxy_requests_total", outcome="forwarded") == len(
        exporter.results
    )


def _hold_back(prefix: str, status: ShareStatus, detector: str) -> Callable[..., ScrubbedSpans]:
    """The real scrub_spans, then spans named `prefix…` held back with `status` (the redactor
    leaves no span unsafe on its own, so the gate's other branch is forced here)."""

    def gate(spans: Any, **kwargs: Any) -> ScrubbedSpans:
        out = scrub_spans(spans, **kwargs)
        verdict = ShareVerdict(status, "share")
        if status is ShareStatus.UNSAFE:
            from redact.model import ShareFinding

            finding = ShareFinding("credential", detector, "error", 1, ("span:x/attributes/k",))
            verdict = ShareVerdict(status, "share", (finding,))
        elif status is ShareStatus.UNKNOWN:
            verdict = ShareVerdict(status, "share", (), ("span:x/attributes/k: binary data",))
        held = [s for s in out.kept if s.name.startswith(prefix)]
        kept = tuple(s for s in out.kept if not s.name.startswith(prefix))
        dropped = tuple(DroppedSpan(s.trace_id, s.span_id, verdict) for s in held)
        return ScrubbedSpans(kept, out.dropped + dropped, out.report)

    return gate


def test_unsafe_spans_are_held_back_counted_and_logged_once_per_kind(
    caplog: pytest.LogCaptureFixture,
) -> None:
    gate = _hold_back("held-back", ShareStatus.UNSAFE, "known-secret")
    caplog.set_level(logging.WARNING, logger="redact.proxy")
    with stack(scrub=gate) as (url, app, upstream):
        exporter = Recording(exporter_for("proto", url))
        ids = run_agent(exporter, held=40)  # several batches hold some back
        # A raw request shows the answer the exporter got: partial success, no values.
        body, held_ids = _request_with_held_spans(3)
        response = httpx.post(
            f"{url}/v1/traces", content=body, headers={"content-type": "application/x-protobuf"}
        )
    assert response.status_code == 200
    answer = ExportTraceServiceResponse()
    answer.ParseFromString(response.content)
    assert answer.partial_success.rejected_spans == 3
    assert answer.partial_success.error_message == (
        "3 spans are still not share-safe after redaction and not forwarded: "
        "UNSAFE (credential/known-secret) ×3"
    )
    assert set(exporter.results) == {SpanExportResult.SUCCESS}
    accepted = upstream.accepted()
    held = {i for a in upstream.arrivals for i in a.span_ids} & held_ids
    assert not held
    assert len(accepted) == len(set(accepted)) == len(ids) - 40
    assert app.metrics.value("tracecheck_proxy_spans_dropped_unsafe_total") == 43
    assert app.metrics.value("tracecheck_proxy_spans_received_total") == len(ids) + 3
    logged = [r.getMessage() for r in caplog.records if r.name == "redact.proxy"]
    assert len(logged) == 1  # one kind, logged once
    assert "UNSAFE (credential/known-secret)" in logged[0]
    assert "tracecheck_proxy_spans_dropped_unsafe_total" in logged[0]


def _request_with_held_spans(count: int, name: str = "held-back") -> tuple[bytes, set[str]]:
    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    ids = set()
    for n in range(count):
        span = spans.add()
        span.trace_id = os.urandom(16)
        span.span_id = os.urandom(8)
        span.name = f"{name} {n}"
        span.start_time_unix_nano = 1_700_000_000_000_000_000 + n
        span.end_time_unix_nano = span.start_time_unix_nano + 1000
        ids.add(span.span_id.hex())
    return request.SerializeToString(), ids


def _batch(count: int = 4, name: str = "work") -> tuple[bytes, set[str]]:
    return _request_with_held_spans(count, name)


def _post(url: str, body: bytes, timeout: float = 10, **headers: str) -> httpx.Response:
    headers.setdefault("content_type", "application/x-protobuf")
    sent = {k.replace("_", "-"): v for k, v in headers.items()}
    return httpx.post(f"{url}/v1/traces", content=body, headers=sent, timeout=timeout)


def test_every_span_held_back_is_success_with_nothing_forwarded() -> None:
    body, _ = _batch(2)
    with stack(scrub=_hold_back("", ShareStatus.UNKNOWN, "")) as (url, app, upstream):
        response = _post(url, orjson.dumps(_as_json(body)), content_type="application/json")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert orjson.loads(response.content) == {
        "partialSuccess": {
            "rejectedSpans": "2",
            "errorMessage": "2 spans are still not share-safe after redaction and not "
            "forwarded: UNKNOWN (unreadable) ×2",
        }
    }
    assert upstream.arrivals == []
    assert app.metrics.value("tracecheck_proxy_requests_total", outcome="nothing_to_forward") == 1


def test_a_batch_that_cannot_be_scrubbed_is_500_and_never_forwarded(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(spans: Any, **kwargs: Any) -> ScrubbedSpans:
        raise RuntimeError(f"cannot read {SECRETS.known}")

    with stack(scrub=broken) as (url, app, upstream):
        response = _post(url, _batch(2)[0])
    assert response.status_code == 500
    assert _status_message(response) == (
        "the proxy could not scrub the batch (RuntimeError); nothing was forwarded"
    )
    assert SECRETS.known not in caplog.text
    assert upstream.arrivals == []
    assert app.metrics.value("tracecheck_proxy_requests_total", outcome="scrub_failed") == 1


def _as_json(body: bytes) -> dict[str, Any]:
    from google.protobuf import json_format

    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    document: dict[str, Any] = json_format.MessageToDict(request)
    for rs in document["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:  # OTLP/JSON: hex ids, not base64
                span["traceId"] = base64.b64decode(span["traceId"]).hex()
                span["spanId"] = base64.b64decode(span["spanId"]).hex()
    return document


# ---------------------------------------------------------------------------------------------
# Upstream faults


def test_upstream_429_and_503_with_retry_after_are_retried_and_delivered_once() -> None:
    upstream = Upstream(
        script=[
            Reply(503, (("retry-after", "1"),)),
            Reply(429),
            Reply(502),
        ]
    )
    with stack(upstream, upstream_timeout=5.0) as (url, app, upstream):
        exporter = Recording(exporter_for("proto-gzip", url))
        ids = run_agent(exporter, turns=1)
    assert set(exporter.results) == {SpanExportResult.SUCCESS}
    times = [a.at for a in upstream.arrivals]
    assert times[1] - times[0] >= 0.9  # Retry-After: 1 was honoured
    assert [a.status for a in upstream.arrivals[:4]] == [503, 429, 502, 200]
    accepted = upstream.accepted()
    assert sorted(accepted) == sorted(ids)
    assert app.metrics.value("tracecheck_proxy_upstream_retries_total") == 3
    for code in (503, 429, 502):
        failures = app.metrics.value(
            "tracecheck_proxy_upstream_failures_total", reason=f"http_{code}"
        )
        assert failures == 1


@pytest.mark.parametrize(("code", "answered"), [(503, 503), (429, 429)])
def test_upstream_that_keeps_failing_gets_503_or_429_with_retry_after(
    code: int, answered: int
) -> None:
    upstream = Upstream(default=Reply(code, (("retry-after", "1"),)))
    body, _ = _batch(5)
    with stack(upstream, upstream_timeout=1.5) as (url, app, upstream):
        response = _post(url, body)
        # While the upstream's pause lasts, the next batch is answered at once.
        again = _post(url, body)
    assert response.status_code == answered
    assert int(response.headers["retry-after"]) >= 1
    assert again.status_code == answered and "retry-after" in again.headers
    assert upstream.accepted() == []
    assert 2 <= len(upstream.arrivals) <= 3
    metrics = app.metrics
    assert metrics.value("tracecheck_proxy_requests_total", outcome="upstream_unavailable") == 2
    assert metrics.value("tracecheck_proxy_spans_failed_total", reason="upstream_unavailable") == 10


def test_upstream_down_is_retried_then_answered_503() -> None:
    body, _ = _batch(3)
    with proxy_to(f"http://127.0.0.1:{_free_port()}", upstream_timeout=1.0) as (url, app):
        response = _post(url, body)
        metrics = httpx.get(f"{url}/metrics").text
    assert response.status_code == 503
    assert int(response.headers["retry-after"]) >= 1
    status = status_pb2.Status()
    status.ParseFromString(response.content)
    assert status.code == 14
    assert status.message.startswith("the upstream is unavailable (ConnectError")
    assert app.metrics.value("tracecheck_proxy_upstream_retries_total") >= 2
    failures = re.search(r'upstream_failures_total\{reason="network"\} (\d+)', metrics)
    assert failures and int(failures.group(1)) >= 3
    assert 'tracecheck_proxy_spans_failed_total{reason="upstream_unavailable"} 3' in metrics


def test_full_queue_answers_503_with_retry_after_and_exporters_still_deliver_once() -> None:
    release = threading.Event()
    upstream = Upstream(script=[Reply(hold=release)])
    with stack(upstream, queue_size=1) as (url, app, upstream):
        # Raw requests: one holds the only slot (its upstream answers when told), the other is
        # refused before its body is read.
        first, second = _batch(2), _batch(2)
        with httpx.Client(timeout=10) as client:
            results: dict[int, httpx.Response] = {}

            def send(n: int, body: bytes) -> None:
                results[n] = client.post(
                    f"{url}/v1/traces",
                    content=body,
                    headers={"content-type": "application/x-protobuf"},
                )

            slow = threading.Thread(target=send, args=(1, first[0]))
            slow.start()
            _until(lambda: len(upstream.arrivals) == 1)  # the first holds the slot upstream
            send(2, second[0])
            release.set()
            slow.join()
        assert results[1].status_code == 200
        assert results[2].status_code == 503
        assert results[2].headers["retry-after"] == "1"

        # Real exporters, two on the one slot: the first holds it (its upstream answers when
        # told), the second is refused, waits as told and resends once the slot is free.
        def refused() -> float:
            return app.metrics.value("tracecheck_proxy_requests_total", outcome="queue_full")

        held = threading.Event()
        with upstream.lock:
            upstream.script.append(Reply(hold=held))
        arrived = len(upstream.arrivals)
        exporters = [Recording(exporter_for("proto", url)) for _ in range(2)]
        runs: list[set[str]] = []
        threads = [
            threading.Thread(target=lambda e=e: runs.append(run_agent(e, turns=1)))
            for e in exporters
        ]
        threads[0].start()
        _until(lambda: len(upstream.arrivals) > arrived)
        threads[1].start()
        _until(lambda: refused() >= 2)
        held.set()
        for thread in threads:
            thread.join()
        queue_full = refused()
    assert all(set(e.results) == {SpanExportResult.SUCCESS} for e in exporters)
    accepted = upstream.accepted()
    assert Counter(accepted).most_common(1)[0][1] == 1  # never twice
    assert set(accepted) == first[1] | runs[0] | runs[1]
    assert not set(accepted) & second[1]
    assert queue_full >= 2


def test_upstream_too_slow_is_not_sent_twice() -> None:
    upstream = Upstream(default=Reply(delay=1.0))
    body, ids = _batch(3)
    with stack(upstream, upstream_timeout=0.4) as (url, app, upstream):
        response = _post(url, body)
        _until(lambda: upstream.arrivals[0].status != 0)  # the upstream finishes with the batch
    assert response.status_code == 500  # OTLP exporters do not retry a 500
    assert "may hold the batch" in response.text
    assert sorted(upstream.received()) == sorted(ids)  # once, never again
    metrics = app.metrics
    assert metrics.value("tracecheck_proxy_spans_failed_total", reason="upstream_unconfirmed") == 3
    assert metrics.value("tracecheck_proxy_upstream_retries_total") == 0


def test_a_batch_scrubbed_past_the_budget_is_not_sent() -> None:
    def slow(spans: Any, **kwargs: Any) -> ScrubbedSpans:
        time.sleep(0.5)
        return scrub_spans(spans, **kwargs)

    with stack(scrub=slow, upstream_timeout=0.3) as (url, _app, upstream):
        response = _post(url, _batch(2)[0])
    assert response.status_code == 503
    assert response.headers["retry-after"] == "1"
    assert _status_message(response).startswith("the proxy is busy: scrubbing the batch took")
    assert upstream.arrivals == []


@pytest.mark.parametrize("code", [400, 401, 500])
def test_upstream_refusal_is_passed_through_without_retry(code: int) -> None:
    status = b"\x08\x03\x12\x0bbad payload"
    upstream = Upstream(default=Reply(code, body=status))
    body, _ = _batch(2)
    with stack(upstream) as (url, app, upstream):
        response = _post(url, orjson.dumps(_as_json(body)), content_type="application/json")
    assert response.status_code == code
    phrase = httpx.codes.get_reason_phrase(code)
    assert orjson.loads(response.content) == {
        "code": {400: 3, 401: 2, 500: 13}[code],
        "message": f"the upstream refuses the batch: {code} {phrase}: bad payload",
    }
    assert len(upstream.arrivals) == 1
    assert app.metrics.value("tracecheck_proxy_spans_failed_total", reason="upstream_rejected") == 2


# ---------------------------------------------------------------------------------------------
# Bodies the proxy refuses


def test_malformed_bodies_are_400() -> None:
    with stack() as (url, app, upstream):
        proto = _post(url, b"\xff\xff\xff\xff")
        json_ = _post(url, b'{"resourceSpans": [', content_type="application/json")
        not_gzip = _post(url, b"plain bytes", content_encoding="gzip")
        cut = _post(url, gzip.compress(_batch()[0])[:-12], content_encoding="gzip")
    assert proto.status_code == 400
    assert "malformed OTLP protobuf" in _status_message(proto)
    assert json_.status_code == 400
    assert orjson.loads(json_.content)["message"].startswith(
        "request body: line 1, column 20: malformed JSON"
    )
    assert not_gzip.status_code == 400
    assert _status_message(not_gzip).startswith("the body is not valid gzip")
    assert cut.status_code == 400
    assert _status_message(cut) == "the gzip body ends early"
    assert upstream.arrivals == []
    assert app.metrics.value("tracecheck_proxy_requests_total", outcome="bad_request") >= 4


def _status_message(response: httpx.Response) -> str:
    status = status_pb2.Status()
    status.ParseFromString(response.content)
    return str(status.message)


def test_oversized_bodies_are_413() -> None:
    limit = 64 * 1024
    big = os.urandom(limit + 1)
    with stack(max_body_bytes=limit) as (url, app, upstream):
        declared = _post(url, big)

        def chunks() -> Iterator[bytes]:  # no Content-Length: chunked transfer
            for _ in range(4):
                yield os.urandom(limit // 3)

        streamed = httpx.post(
            f"{url}/v1/traces",
            content=chunks(),
            headers={"content-type": "application/x-protobuf"},
        )
        inflated = _post(url, gzip.compress(bytes(limit + 1)), content_encoding="gzip")
    assert declared.status_code == 413
    assert (
        _status_message(declared)
        == f"the body is {limit + 1} bytes, over the limit of {limit} bytes"
    )
    assert streamed.status_code == 413
    assert inflated.status_code == 413
    assert _status_message(inflated) == f"the body inflates past the limit of {limit} bytes"
    assert upstream.arrivals == []
    assert app.metrics.value("tracecheck_proxy_requests_total", outcome="too_large") == 3


def gzip_bomb(inflated_mib: int) -> tuple[Iterator[bytes], int]:
    """A valid gzip stream of `inflated_mib` MiB of zeros (~1 KB per MiB), produced piece by
    piece: after a full flush deflate output repeats, so one block is compressed once."""
    block = bytes(1 << 20)
    deflater = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = deflater.compress(block) + deflater.flush(zlib.Z_FULL_FLUSH)
    unit = deflater.compress(block) + deflater.flush(zlib.Z_FULL_FLUSH)
    size = len(first) + len(unit) * (inflated_mib - 1) + 2 + 8

    def pieces() -> Iterator[bytes]:
        crc = zlib.crc32(block)
        yield first
        for _ in range(inflated_mib - 1):
            crc = zlib.crc32(block, crc)
            yield unit
        # An empty final block (fixed Huffman), then CRC-32 and size: the trailer of gzip.
        yield b"\x03\x00" + struct.pack("<II", crc, (inflated_mib << 20) & 0xFFFFFFFF)

    return pieces(), size


def test_gzip_bomb_helper_is_valid_gzip() -> None:
    pieces, size = gzip_bomb(3)
    data = b"".join(pieces)
    assert len(data) == size
    assert gzip.decompress(data) == bytes(3 << 20)


def test_gzip_bomb_is_413_without_inflating_in_memory() -> None:
    limit = 2 << 20
    pieces, size = gzip_bomb(1024)  # 1 GiB of zeros in about 1 MB
    assert size < limit
    with stack(max_body_bytes=limit) as (url, _app, upstream):
        tracemalloc.start()
        try:
            response = httpx.post(
                f"{url}/v1/traces",
                content=pieces,
                headers={
                    "content-type": "application/x-protobuf",
                    "content-encoding": "gzip",
                    "content-length": str(size),
                },
                timeout=30,
            )
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert response.status_code == 413
    assert _status_message(response) == f"the body inflates past the limit of {limit} bytes"
    assert peak < 6 * limit  # the limit and the wire bytes, not a gigabyte
    assert upstream.arrivals == []


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        (
            {"content-type": "text/plain"},
            "the Content-Type is not supported: send application/x-protobuf or application/json",
        ),
        (
            {"content-type": "application/grpc"},
            "the Content-Type is not supported: send application/x-protobuf or application/json",
        ),
        ({}, "the Content-Type is missing: send application/x-protobuf or application/json"),
        (
            {"content-type": "application/x-protobuf", "content-encoding": "br"},
            "the Content-Encoding is not supported "
            "(use gzip, deflate, zstd, snappy, x-snappy-framed or identity)",
        ),
    ],
)
def test_other_content_types_are_415(headers: dict[str, str], message: str) -> None:
    with stack() as (url, _app, upstream):
        response = httpx.post(f"{url}/v1/traces", content=_batch()[0], headers=headers)
    assert response.status_code == 415
    assert message in response.text
    assert upstream.arrivals == []


def test_deflate_is_accepted_and_forwarded_as_deflate() -> None:
    body, ids = _batch(3)
    with stack() as (url, _app, upstream):
        response = _post(url, zlib.compress(body), content_encoding="deflate")
    assert response.status_code == 200
    assert ExportTraceServiceResponse.FromString(response.content) == ExportTraceServiceResponse()
    assert [a.content_encoding for a in upstream.arrivals] == ["deflate"]
    assert set(upstream.accepted()) == ids


# ---------------------------------------------------------------------------------------------
# Health and metrics

_SAMPLE = re.compile(r'^([a-z_]+)(\{[a-z_]+="[^"\\\n]*"(,[a-z_]+="[^"\\\n]*")*\})? (\d+(\.\d+)?)$')


def test_healthz_metrics_and_other_paths() -> None:
    with stack() as (url, _app, _upstream):
        health = httpx.get(f"{url}/healthz")
        _post(url, _batch(2)[0])
        _post(url, b"", content_type="text/plain")
        metrics = httpx.get(f"{url}/metrics")
        wrong_method = httpx.get(f"{url}/v1/traces")
        unknown = httpx.post(f"{url}/v1/profiles", content=b"")
    assert (health.status_code, health.text) == (200, "ok\n")
    assert metrics.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    families: dict[str, str] = {}
    values: dict[str, float] = {}
    for line in metrics.text.splitlines():
        if line.startswith("# HELP "):
            name = line.split()[2]
            assert name not in families
            families[name] = ""
        elif line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            assert families[name] == ""
            families[name] = kind
        else:
            match = _SAMPLE.match(line)
            assert match, line
            assert families[match.group(1)]  # HELP and TYPE come first
            values[match.group(1) + (match.group(2) or "")] = float(match.group(4))
    counters = {n for n, kind in families.items() if kind == "counter"}
    assert all(n.startswith("tracecheck_proxy_") and n.endswith("_total") for n in counters)
    assert {
        "tracecheck_proxy_requests_total",
        "tracecheck_proxy_spans_received_total",
        "tracecheck_proxy_spans_forwarded_total",
        "tracecheck_proxy_spans_dropped_unsafe_total",
        "tracecheck_proxy_upstream_retries_total",
        "tracecheck_proxy_upstream_failures_total",
        "tracecheck_proxy_bytes_received_total",
        "tracecheck_proxy_bytes_forwarded_total",
    } <= counters
    assert families["tracecheck_proxy_queue_depth"] == "gauge"
    assert values['tracecheck_proxy_requests_total{outcome="forwarded"}'] == 1
    assert values['tracecheck_proxy_requests_total{outcome="unsupported_media_type"}'] == 1
    assert values["tracecheck_proxy_spans_forwarded_total"] == 2
    assert values["tracecheck_proxy_bytes_received_total"] > 0
    assert values["tracecheck_proxy_queue_depth"] == 0
    assert (wrong_method.status_code, wrong_method.headers["allow"]) == (405, "POST")
    assert unknown.status_code == 404
    assert unknown.text == (
        "no such path; traces, logs and metrics go to POST /v1/traces, /v1/logs, /v1/metrics\n"
    )


# ---------------------------------------------------------------------------------------------
# The command


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--upstream", "ftp://collector"], "--upstream 'ftp://collector': not an http:// or"),
        (
            ["--upstream", "http://collector:4318/v1/traces"],
            "give the base URL; the proxy adds /v1/traces itself",
        ),
        (
            ["--upstream", "http://c", "--listen", "nowhere"],
            "--listen 'nowhere' is not HOST:PORT, e.g. 127.0.0.1:4318",
        ),
        (
            ["--upstream", "http://c", "--known-secret-env", "TC_PROXY_UNSET"],
            "$TC_PROXY_UNSET: the",
        ),
        (["--upstream", "http://c", "--profile", "lenient"], "lenient"),
        (
            ["--upstream", "ftp://user:pw-not-shown@collector"],
            "--upstream 'ftp://…@collector': not an http:// or",
        ),
    ],
)
def test_bad_options_exit_2(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TC_PROXY_UNSET", raising=False)
    assert main(["proxy", *argv]) == 2
    assert message in capsys.readouterr().err


def test_an_address_in_use_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        listen = f"127.0.0.1:{taken.getsockname()[1]}"
        assert main(["proxy", "--upstream", "http://c", "--listen", listen]) == 2
    assert f"--listen {listen}: cannot listen: Address already in use" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--max-body-bytes", "--queue-size", "--upstream-timeout"])
def test_bad_numbers_exit_2(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["proxy", "--upstream", "http://c", option, "0"])
    assert code == 2
    assert option in capsys.readouterr().err


@contextmanager
def proxy_command(
    *args: str, env: dict[str, str]
) -> Iterator[tuple[str, subprocess.Popen[str], str]]:
    """`python -m tracecheck proxy --listen 127.0.0.1:0 ARGS` in a process of its own: its URL,
    the process, and the line it printed once it listened; killed if a test leaves it
    running."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tracecheck", "proxy", "--listen", "127.0.0.1:0", *args],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        assert match, line
        yield match.group(1), process, line
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_command_serves_then_stops_cleanly(sig: signal.Signals) -> None:
    env = {**os.environ, "TC_PROXY_KNOWN": SECRETS.known}
    with serve(Upstream()) as upstream_url:
        args = ("--upstream", upstream_url, "--known-secret-env", "TC_PROXY_KNOWN")
        with proxy_command(*args, env=env) as (url, process, line):
            forwarding = re.search(r"forwarding to (\S+)", line)
            assert forwarding and forwarding.group(1) == f"{upstream_url}/v1/traces"
            assert httpx.get(f"{url}/healthz").status_code == 200
            assert _post(url, _batch(2)[0]).status_code == 200
            process.send_signal(sig)
            assert process.wait(15) == 0
            assert process.stderr is not None
            assert "stopped" in process.stderr.read()


# ---------------------------------------------------------------------------------------------
# Headers to the upstream

TOKEN = "tc" + "-fake-bearer-" + "".join(random.Random(401).choices(string.ascii_letters, k=24))


@dataclass
class Authenticating:
    """An upstream that answers 401 unless `authorization: Bearer <token>`, then captures."""

    token: str = TOKEN
    inner: Upstream = field(default_factory=Upstream)
    refused: int = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            if headers.get("authorization") != f"Bearer {self.token}":
                self.refused += 1
                while (await receive()).get("more_body"):
                    pass
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b""})
                return
        await self.inner(scope, receive, send)


def test_exporter_headers_reach_an_authenticating_upstream(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="redact.proxy")
    auth = Authenticating()
    with serve(auth) as upstream_url, proxy_to(upstream_url) as (url, _app):
        endpoint = f"{url}/v1/traces"
        with_token = Recording(
            ProtoSpanExporter(endpoint=endpoint, headers={"authorization": f"Bearer {TOKEN}"})
        )
        ids = run_agent(with_token, turns=1)
        without = Recording(ProtoSpanExporter(endpoint=endpoint, timeout=5))
        run_agent(without, turns=1)
        # Hop-by-hop headers, and those the Connection header names, stay with the proxy.
        raw = _post(
            url,
            _batch(2)[0],
            authorization=f"Bearer {TOKEN}",
            connection="keep-alive, x-hop",
            x_hop="1",
            x_tenant="acme",
            proxy_authorization="Basic x",
            te="trailers",
        )
    assert set(with_token.results) == {SpanExportResult.SUCCESS}
    assert set(without.results) == {SpanExportResult.FAILURE}  # the 401 passed on, not retried
    assert auth.refused == 1
    assert raw.status_code == 200
    arrivals = auth.inner.arrivals
    assert set(ids) <= set(auth.inner.accepted())
    sent = arrivals[-1].headers
    assert sent["x-tenant"] == "acme"
    assert "user-agent" in arrivals[0].headers  # the exporter's own, forwarded
    assert not {"x-hop", "proxy-authorization", "te"} & set(sent)
    assert sent["host"] == upstream_url.removeprefix("http://")
    assert int(sent["content-length"]) == len(arrivals[-1].body)  # the proxy's, not the client's
    assert TOKEN not in caplog.text


def test_forwarded_headers_leave_out_hop_by_hop_and_connection_named_ones() -> None:
    from redact.shipping.headers import forwarded_headers

    request = {
        "connection": "close, X-Private",
        "x-private": "1",
        "keep-alive": "timeout=5",
        "upgrade": "h2c",
        "accept-encoding": "br",
        "content-type": "application/json",
        "authorization": "Bearer from-the-exporter",
        "x-keep": "k",
    }
    configured = [("Authorization", f"Bearer {TOKEN}"), ("x-tenant", "acme")]
    assert forwarded_headers(request, configured) == {
        "authorization": f"Bearer {TOKEN}",
        "x-keep": "k",
        "x-tenant": "acme",
    }


def test_header_lists_read_as_otel_exporter_otlp_headers() -> None:
    from redact.shipping.headers import HeaderError, parse_header_list

    assert parse_header_list(" Authorization = Bearer%20t%3D1 ,, x-b=a%2Cb,") == (
        ("authorization", "Bearer t=1"),
        ("x-b", "a,b"),
    )
    assert parse_header_list("") == ()
    with pytest.raises(HeaderError) as caught:
        ProxySettings(upstream="http://c", upstream_headers=(("x-a", f"{TOKEN}\r\nx-b: 1"),))
    assert str(caught.value) == "the value of x-a holds a character a header cannot carry"


def test_configured_upstream_headers_override_the_exporters() -> None:
    auth = Authenticating()
    headers = (("Authorization", f"Bearer {TOKEN}"), ("x-scope", "proxy"))
    with serve(auth) as upstream_url, proxy_to(upstream_url, upstream_headers=headers) as (url, _):
        plain = Recording(exporter_for("json", url))
        ids = run_agent(plain, turns=1)
        wrong = _post(url, _batch(2)[0], authorization="Bearer wrong", x_scope="client")
    assert set(plain.results) == {SpanExportResult.SUCCESS}
    assert wrong.status_code == 200
    assert auth.refused == 0
    assert set(ids) <= set(auth.inner.accepted())
    assert {a.headers["x-scope"] for a in auth.inner.arrivals} == {"proxy"}


def test_upstream_headers_from_the_command_and_the_environment() -> None:
    auth = Authenticating()
    env = {
        **os.environ,
        # OTEL_EXPORTER_OTLP_HEADERS' format: percent-encoded values ("%20" is a space).
        "TRACECHECK_PROXY_UPSTREAM_HEADERS": "authorization=Bearer%20wrong,x-team=agents%2Cops",
    }
    with serve(auth) as upstream_url:
        args = ("--upstream", upstream_url, "--upstream-header", f"Authorization=Bearer {TOKEN}")
        with proxy_command(*args, env=env) as (url, process, _line):
            response = _post(url, _batch(2)[0])
            process.send_signal(signal.SIGTERM)
            assert process.wait(15) == 0
            assert process.stderr is not None
            assert TOKEN not in process.stderr.read()
    assert response.status_code == 200
    assert auth.refused == 0
    assert auth.inner.arrivals[0].headers["x-team"] == "agents,ops"


@pytest.mark.parametrize(
    ("argv", "environ", "message"),
    [
        (["--upstream-header", "no-equals"], {}, "--upstream-header (number 1): give a header"),
        (
            ["--upstream-header", "bad name=x"],
            {},
            "a header name must be an HTTP token (8 characters given)",
        ),
        (["--upstream-header", "host=x"], {}, "host is set by the proxy itself"),
        (
            [],
            {"TRACECHECK_PROXY_UPSTREAM_HEADERS": "a=1,, b"},
            "$TRACECHECK_PROXY_UPSTREAM_HEADERS: entry 3 is not name=value",
        ),
        (
            [],
            {"TRACECHECK_PROXY_UPSTREAM_HEADERS": "a=line%0Abreak-" + TOKEN},
            "entry 1: the value of a holds a character a header cannot carry",
        ),
        (["--upstream-ca", "/nonexistent/ca.pem"], {}, "applies to an https:// upstream only"),
    ],
)
def test_bad_upstream_headers_exit_2_without_their_values(
    argv: list[str],
    environ: dict[str, str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert main(["proxy", "--upstream", "http://c", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert TOKEN not in err


# ---------------------------------------------------------------------------------------------
# TLS to the upstream


@dataclass(frozen=True)
class Pki:
    ca: str
    server_cert: str
    server_key: str
    client_cert: str
    client_key: str


def _pki(directory: Any) -> Pki:
    """A CA made now, a server certificate for 127.0.0.1 and a client certificate it signs."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)

    def name(text: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    def write(stem: str, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> None:
        (directory / f"{stem}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        (directory / f"{stem}.key").write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("tracecheck test CA"))
        .issuer_name(name("tracecheck test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    write("ca", ca, ca_key)

    def leaf(stem: str, usage: x509.ObjectIdentifier) -> None:
        key = ec.generate_private_key(ec.SECP256R1())
        builder = (
            x509.CertificateBuilder()
            .subject_name(name(stem))
            .issuer_name(ca.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                critical=False,
            )
        )
        if stem == "server":
            import ipaddress

            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False,
            )
        write(stem, builder.sign(ca_key, hashes.SHA256()), key)

    leaf("server", ExtendedKeyUsageOID.SERVER_AUTH)
    leaf("client", ExtendedKeyUsageOID.CLIENT_AUTH)
    d = str(directory)
    return Pki(
        f"{d}/ca.pem", f"{d}/server.pem", f"{d}/server.key", f"{d}/client.pem", f"{d}/client.key"
    )


def test_tls_upstream_with_a_private_ca_and_a_client_certificate(
    tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    import ssl

    from redact.shipping.tls import UpstreamTLS

    pki = _pki(tmp_path)
    tls_server = {
        "ssl_certfile": pki.server_cert,
        "ssl_keyfile": pki.server_key,
        "ssl_ca_certs": pki.ca,
        "ssl_cert_reqs": ssl.CERT_REQUIRED,  # mutual TLS: the proxy must present its own
    }
    body, ids = _batch(3)
    upstream = Upstream()
    with serve(upstream, **tls_server) as upstream_url:
        assert upstream_url.startswith("https://")
        mutual = UpstreamTLS(ca=pki.ca, client_cert=pki.client_cert, client_key=pki.client_key)
        with proxy_to(upstream_url, upstream_tls=mutual) as (url, _app):
            trusted = _post(url, body)
        # The system's CAs do not know this one: no connection, 503 once the budget is spent.
        with proxy_to(upstream_url, upstream_timeout=0.5) as (url, _app):
            unknown_ca = _post(url, body)
        no_client_cert = UpstreamTLS(ca=pki.ca)
        with proxy_to(upstream_url, upstream_tls=no_client_cert, upstream_timeout=0.5) as (url, _):
            refused = _post(url, body)
        caplog.set_level(logging.WARNING, logger="redact.proxy")
        insecure = UpstreamTLS(
            client_cert=pki.client_cert, client_key=pki.client_key, insecure=True
        )
        with proxy_to(upstream_url, upstream_tls=insecure) as (url, _app):
            unverified = _post(url, body)
    assert trusted.status_code == 200
    assert unknown_ca.status_code == 503
    assert "CERTIFICATE_VERIFY_FAILED" in _status_message(unknown_ca)
    assert refused.status_code in (500, 503)  # the handshake fails on the server's side
    assert unverified.status_code == 200
    assert "TLS certificate is not verified" in caplog.text
    assert Counter(upstream.accepted()) == Counter({i: 2 for i in ids})


def test_tls_options_are_checked_before_listening(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    pki = _pki(tmp_path)
    (tmp_path / "junk.pem").write_text("not a certificate\n")
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(Path(pki.client_key).read_bytes(), None)
    locked = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"pass" + b"phrase"),
    )
    (tmp_path / "locked.pem").write_bytes(locked)
    encrypted = ["--upstream-client-cert", pki.client_cert, "--upstream-client-key"]
    cases = [
        ([*encrypted, str(tmp_path / "locked.pem")], "the key is encrypted; give it unencrypted"),
        (["--upstream-ca", str(tmp_path / "missing.pem")], "missing.pem: No such file"),
        (["--upstream-ca", str(tmp_path / "junk.pem")], "junk.pem: not a usable PEM"),
        (["--upstream-client-key", pki.client_key], "a client key needs its client certificate"),
        (["--upstream-ca", pki.ca, "--upstream-insecure"], "exclude each other"),
        (["--upstream-client-cert", pki.client_cert], "client.pem: not a usable PEM"),  # no key
    ]
    for argv, message in cases:
        assert main(["proxy", "--upstream", "https://c", *argv]) == 2, argv
        assert message in capsys.readouterr().err, argv


# ---------------------------------------------------------------------------------------------
# zstd


def test_zstd_bodies_are_scrubbed_and_forwarded_as_zstd() -> None:
    secret_body, ids = _request_with_secrets()
    # Two frames one after the other are one body, as two gzip members are (and two protobuf
    # requests one after the other are one request).
    (first, first_ids), (second, second_ids) = _batch(2), _batch(3)
    compressor = zstandard.ZstdCompressor()
    with stack() as (url, app, upstream):
        response = _post(url, compressor.compress(secret_body), content_encoding="zstd")
        framed = _post(
            url,
            compressor.compress(first) + compressor.compress(second),
            content_encoding="zstd",
        )
    assert response.status_code == 200
    assert framed.status_code == 200
    assert [a.content_encoding for a in upstream.arrivals] == ["zstd", "zstd"]
    assert set(upstream.arrivals[0].span_ids) == ids
    assert_no_secret(upstream.arrivals[:1])
    assert b"REDACTED" in upstream.arrivals[0].body
    assert set(upstream.arrivals[1].span_ids) == first_ids | second_ids
    assert app.metrics.value("tracecheck_proxy_requests_total", outcome="forwarded") == 2


def _request_with_secrets() -> tuple[bytes, set[str]]:
    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    ids = set()
    for n, secret in enumerate(SECRETS.every_form()):
        span = spans.add()
        span.trace_id = os.urandom(16)
        span.span_id = os.urandom(8)
        span.name = f"tool {n}"
        span.start_time_unix_nano = 1_700_000_000_000_000_000 + n
        span.end_time_unix_nano = span.start_time_unix_nano + 1000
        attribute = span.attributes.add()
        attribute.key = "gen_ai.tool.call.result"
        attribute.value.string_value = f"the result holds {secret} somewhere"
        ids.add(span.span_id.hex())
    return request.SerializeToString(), ids


def test_zstd_bomb_is_413_without_inflating_in_memory() -> None:
    limit = 2 << 20
    compressor = zstandard.ZstdCompressor(level=19)
    bomb = compressor.compress(bytes(256 << 20))  # 256 MiB of zeros in about 8 KB
    assert len(bomb) < 64 * 1024
    with stack(max_body_bytes=limit) as (url, app, upstream):
        tracemalloc.start()
        try:
            response = _post(url, bomb, content_encoding="zstd", timeout=30)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        cut = _post(
            url, zstandard.ZstdCompressor().compress(_batch()[0])[:-4], content_encoding="zstd"
        )
        junk = _post(url, b"not zstd at all", content_encoding="zstd")
    assert response.status_code == 413
    assert _status_message(response) == f"the body inflates past the limit of {limit} bytes"
    assert peak < 6 * limit
    assert cut.status_code == 400
    assert _status_message(cut) == "the zstd body ends early"
    assert junk.status_code == 400
    assert _status_message(junk).startswith("the body is not valid zstd")
    assert upstream.arrivals == []
    assert app.metrics.value("tracecheck_proxy_requests_total", outcome="too_large") == 1


def test_snappy_bodies_are_scrubbed_and_forwarded_as_they_came() -> None:
    secret_body, ids = _request_with_secrets()
    block = bytes(cramjam.snappy.compress_raw(secret_body))
    framed = bytes(cramjam.snappy.compress(secret_body))
    with stack() as (url, _app, upstream):
        answers = [
            _post(url, block, content_encoding="snappy"),
            _post(url, framed, content_encoding="x-snappy-framed"),
            # A framed stream under "snappy", which the Collector's own receiver also reads.
            _post(url, framed, content_encoding="snappy"),
        ]
    assert [a.status_code for a in answers] == [200, 200, 200]
    codings = [a.content_encoding for a in upstream.arrivals]
    assert codings == ["snappy", "x-snappy-framed", "snappy"]
    for arrival in upstream.arrivals:
        assert set(arrival.span_ids) == ids
        assert b"REDACTED" in arrival.body
    assert_no_secret(upstream.arrivals)


def test_snappy_past_the_limit_is_413_and_broken_snappy_is_400() -> None:
    limit = 2 << 20
    zeros = bytes(3 << 20)  # a block that declares 3 MiB, frames that add up to 3 MiB
    block = bytes(cramjam.snappy.compress_raw(zeros))
    framed = bytes(cramjam.snappy.compress(zeros))
    assert len(block) < limit and len(framed) < limit
    with stack(max_body_bytes=limit) as (url, _app, upstream):
        too_large = [
            _post(url, block, content_encoding="snappy"),
            _post(url, framed, content_encoding="x-snappy-framed"),
        ]
        junk = _post(url, b"\x05not snappy", content_encoding="snappy")
        cut = _post(
            url,
            bytes(cramjam.snappy.compress(_batch()[0]))[:-3],
            content_encoding="x-snappy-framed",
        )
    for response in too_large:
        assert response.status_code == 413
        assert _status_message(response) == f"the body inflates past the limit of {limit} bytes"
    assert junk.status_code == cut.status_code == 400
    assert _status_message(junk).startswith("the body is not valid Snappy")
    assert _status_message(cut).startswith("the body is not valid framed Snappy")
    assert upstream.arrivals == []


# ---------------------------------------------------------------------------------------------
# A long Retry-After, the probe that ends it, and readiness


def test_retry_after_a_day_is_capped_and_a_probe_ends_the_pause(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """No clock decides this test: the pause ended early is said by the log (it is logged only
    while the pause still runs), and the first probe succeeding by the upstream's arrivals."""
    caplog.set_level(logging.WARNING, logger="redact.proxy")
    upstream = Upstream(script=[Reply(503, (("retry-after", "86400"),))])
    body, _ = _batch(2)
    with stack(upstream, upstream_timeout=3.0) as (url, _app, upstream):
        first = _post(url, body)
        paused = httpx.get(f"{url}/readyz")
        answers: list[int] = []
        for _ in range(400):  # a cap against a hang only (100 s); the probe is due after 5 s
            answers.append(_post(url, body).status_code)
            if answers[-1] == 200:
                break
            time.sleep(0.25)
        exporter = Recording(exporter_for("proto", url))
        ids = run_agent(exporter, turns=1)
        ready = httpx.get(f"{url}/readyz")
    assert first.status_code == 503
    assert first.headers["retry-after"] == "30"  # the cap, not a day
    assert paused.status_code == 503
    assert re.fullmatch(
        r"the upstream asked to pause for (29|30) s more \(Retry-After\)\n", paused.text
    )
    assert answers[-1] == 200 and set(answers[:-1]) <= {503}
    assert set(exporter.results) == {SpanExportResult.SUCCESS}
    assert set(ids) <= set(upstream.accepted())
    assert (ready.status_code, ready.text) == (200, "ready\n")
    assert "waiting the 30 s cap instead" in caplog.text
    # The probe was taken while the 30 s pause still ran: it ended early.
    assert "its pause ends early" in caplog.text
    # One probe at a time, and the first one went through (a probe sent with too little of its
    # budget left would time out, and the next would wait 5 s more): nothing reached the
    # upstream between the 503 and the probe.
    statuses = [a.status for a in upstream.arrivals]
    assert statuses[:2] == [503, 200]


def test_only_a_batch_with_time_left_probes_a_paused_upstream() -> None:
    """Counted attempts, not time: a batch whose deadline falls right after the probe's turn
    does not probe (it is refused at once, nothing sent); one with time left does, once."""
    from redact.shipping.metrics import ProxyMetrics
    from redact.shipping.upstream import Upstream as Delivery

    calls: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(200)

    async def scenario() -> None:
        client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
        delivery = Delivery(
            client,
            "http://upstream/v1/traces",
            ProxyMetrics(queue_capacity=1),
            first_backoff=0.01,
            max_backoff=0.1,
            max_retry_after=30.0,
            probe_after=0.3,
            probe_time=1.0,
        )
        loop = asyncio.get_running_loop()
        delivery._pause(30.0, False)  # the upstream asked for 30 s; a probe is due in 0.3 s
        # Deadline 0.5 s away: at the probe's turn it would have less than what a probe needs
        # (1 s, or half its budget, 0.25 s, when less).
        with pytest.raises(Exception) as refused:
            await delivery.deliver(b"x", "proto", "identity", loop.time() + 0.5)
        assert getattr(refused.value, "status", None) == 503
        assert calls == []
        assert not delivery._probing  # the turn is still free for a batch with time
        # 10 s away: it probes, once, and the pause ends.
        await delivery.deliver(b"x", "proto", "identity", loop.time() + 10.0)
        assert len(calls) == 1
        assert delivery.hold_left() == 0.0
        await client.aclose()

    asyncio.run(scenario())


def test_readyz_follows_the_upstream_and_healthz_stays_liveness() -> None:
    body, _ = _batch(2)
    with proxy_to(f"http://127.0.0.1:{_free_port()}", upstream_timeout=0.5) as (url, _app):
        down = httpx.get(f"{url}/readyz")
        alive = httpx.get(f"{url}/healthz")
    failing = Upstream(default=Reply(502))
    with stack(failing, upstream_timeout=0.5) as (url, _app, failing):
        _post(url, body)
        refusing = httpx.get(f"{url}/readyz")
    with stack() as (url, _app, upstream):
        fresh = httpx.get(f"{url}/readyz")  # nothing delivered yet: a cheap check
        checks = len(upstream.arrivals)
        _post(url, body)
        after = httpx.get(f"{url}/readyz")
        head = httpx.head(f"{url}/readyz")
    assert (down.status_code, down.text) == (503, "the upstream is unavailable (ConnectError)\n")
    assert (alive.status_code, alive.text) == (200, "ok\n")
    assert (refusing.status_code, refusing.text) == (
        503,
        "the upstream is unavailable (502 Bad Gateway)\n",
    )
    assert (fresh.status_code, fresh.text) == (200, "ready\n")
    assert checks == 1 and upstream.arrivals[0].span_ids == ()
    assert (after.status_code, after.text) == (200, "ready\n")
    assert len(upstream.arrivals) == 2  # the delivery, no second check
    assert head.status_code == 200


# ---------------------------------------------------------------------------------------------
# Clients that trickle their bodies


def test_trickling_clients_get_408_and_free_their_slots_for_a_real_exporter() -> None:
    count = 16
    with stack(queue_size=count, body_timeout=0.5, upstream_timeout=3.0) as (url, app, upstream):
        port = int(url.rsplit(":", 1)[1])
        head = (
            b"POST /v1/traces HTTP/1.1\r\nHost: proxy\r\n"
            b"Content-Type: application/x-protobuf\r\nContent-Length: 1000\r\n\r\n"
        )
        # the socket timeout only guards against a hang: the 408 decides the test
        socks = [socket.create_connection(("127.0.0.1", port), timeout=60) for _ in range(count)]
        stop = threading.Event()

        def trickle() -> None:
            for sock in socks:
                sock.sendall(head)
            while not stop.wait(0.1):
                for sock in socks:
                    with suppress(OSError):
                        sock.send(b"\x0a")

        trickler = threading.Thread(target=trickle, daemon=True)
        trickler.start()
        try:
            # each holds a slot (a 408 is given only to a body read in one) until its time is up
            answers = [sock.recv(64).split(b"\r\n", 1)[0] for sock in socks]
        finally:
            stop.set()
            trickler.join(5)
            for sock in socks:
                sock.close()
        _until(lambda: app._in_flight == 0)
        exporter = Recording(exporter_for("proto", url))
        ids = run_agent(exporter, turns=1)
        refused_full = app.metrics.value("tracecheck_proxy_requests_total", outcome="queue_full")
        timed_out = app.metrics.value("tracecheck_proxy_requests_total", outcome="body_timeout")
    assert answers == [b"HTTP/1.1 408 Request Timeout"] * count
    assert timed_out == count
    assert refused_full == 0  # the slots the tricklers held are free again
    assert set(exporter.results) == {SpanExportResult.SUCCESS}
    assert sorted(upstream.accepted()) == sorted(ids)


# ---------------------------------------------------------------------------------------------
# A span nested too deep in a batch, over loopback


def test_a_span_whose_id_is_no_otlp_id_is_held_back_without_its_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Protobuf takes any bytes as an id, and the writer would send them on as they came."""
    smuggled = f"key={SECRETS.known}".encode()
    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    spans.add(name="smuggler", trace_id=smuggled, span_id=os.urandom(8))
    spans.add(name="linked", trace_id=os.urandom(16), span_id=os.urandom(8)).links.add(
        trace_id=os.urandom(16), span_id=smuggled
    )
    spans.add(name="fine", trace_id=os.urandom(16), span_id=os.urandom(8))
    caplog.set_level(logging.WARNING, logger="redact.proxy")
    with stack() as (url, _app, upstream):
        response = _post(url, request.SerializeToString())
    assert response.status_code == 200
    partial = ExportTraceServiceResponse.FromString(response.content).partial_success
    assert partial.rejected_spans == 2
    assert partial.error_message == (
        "2 spans are still not share-safe after redaction and not forwarded: "
        "UNKNOWN (unreadable) ×2"
    )
    forwarded = ExportTraceServiceRequest.FromString(upstream.arrivals[0].body)
    names = [s.name for rs in forwarded.resource_spans for ss in rs.scope_spans for s in ss.spans]
    assert names == ["fine"]
    said = response.content + caplog.text.encode()
    assert smuggled not in said and smuggled.hex().encode() not in said


@pytest.mark.parametrize("encoding", ["proto", "json"])
def test_a_span_nested_too_deep_is_dropped_and_counted_and_the_rest_forwarded(
    encoding: str,
) -> None:
    from surfaces import TRACE, kvlist, otlp_document, otlp_span

    from tracecheck.spans import Span
    from tracecheck.writers import to_otlp_proto

    if encoding == "json":
        body = otlp_document(
            otlp_span("1" * 16, "before"),
            otlp_span("2" * 16, "deep", payload=kvlist(2000)),
            otlp_span("3" * 16, "after"),
        )
        media = "application/json"
    else:
        deep: Any = "leaf"
        for _ in range(40):  # past protobuf's 100 nested messages
            deep = {"k": deep}
        body = to_otlp_proto(
            [
                Span(TRACE, "1" * 16, name="before"),
                Span(TRACE, "2" * 16, name="deep", attributes={"payload": deep}),
                Span(TRACE, "3" * 16, name="after"),
            ]
        )
        media = "application/x-protobuf"
    with stack() as (url, app, upstream):
        response = _post(url, body, content_type=media)
    assert response.status_code == 200
    assert [a.span_ids for a in upstream.arrivals] == [("1" * 16, "3" * 16)]
    assert app.metrics.value("tracecheck_proxy_spans_dropped_unsafe_total") == 1
    assert app.metrics.value("tracecheck_proxy_spans_forwarded_total") == 2


# ---------------------------------------------------------------------------------------------
# Strings that are not UTF-8, one span at a time


def test_a_span_with_invalid_utf8_is_repaired_scrubbed_and_its_batch_forwarded() -> None:
    """Python's protobuf refuses a whole request for one string that is not UTF-8; the proxy
    replaces the invalid bytes with U+FFFD (opentelemetry-proto's advice to intermediaries),
    scrubs the repaired text like any other, forwards every span and says how many it repaired."""
    marker = b"\xfe\xff-not-utf8"
    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    spans.add(name="before", trace_id=os.urandom(16), span_id=os.urandom(8))
    bad = spans.add(name="bad" + "N" * len(marker), trace_id=os.urandom(16), span_id=os.urandom(8))
    # A known secret beside the invalid bytes, in an attribute: it must still be redacted.
    bad.attributes.add(key="note").value.string_value = f"key={SECRETS.known} " + "P" * 11
    spans.add(name="after", trace_id=os.urandom(16), span_id=os.urandom(8))
    body = request.SerializeToString()
    # Same lengths, so the protobuf framing holds.
    body = body.replace(b"N" * len(marker), marker).replace(b"P" * 11, marker)
    with pytest.raises(Exception, match="UTF-8"):
        ExportTraceServiceRequest.FromString(body)  # protobuf itself refuses the whole request
    with stack() as (url, app, upstream):
        response = _post(url, body)
    assert response.status_code == 200
    partial = ExportTraceServiceResponse.FromString(response.content).partial_success
    assert partial.rejected_spans == 0
    assert partial.error_message == (
        "1 span held text that is not valid UTF-8; the invalid bytes were replaced with U+FFFD"
    )
    (arrival,) = upstream.arrivals
    forwarded = ExportTraceServiceRequest.FromString(arrival.body)  # valid UTF-8 throughout
    got = [s for rs in forwarded.resource_spans for ss in rs.scope_spans for s in ss.spans]
    assert [s.name for s in got] == ["before", "bad\ufffd\ufffd-not-utf8", "after"]
    note = got[1].attributes[0].value.string_value
    assert note.endswith(" \ufffd\ufffd-not-utf8") and SECRETS.known not in note
    assert marker not in arrival.body
    assert app.metrics.value("tracecheck_proxy_spans_forwarded_total") == 3


def test_a_body_that_is_no_request_even_read_leniently_is_still_400() -> None:
    with stack() as (url, _app, upstream):
        response = _post(url, b"\x0a\xff\xff\xff\xff\x0f\xfe")
    assert response.status_code == 400
    assert upstream.arrivals == []


# ---------------------------------------------------------------------------------------------
# Slow request heads and many connections from one client


_HALF_HEAD = b"POST /v1/traces HTTP/1.1\r\nHost: proxy\r\nContent-Type: application/x-protobuf\r\n"


def _half_head(url: str, source: str = "127.0.0.1", head: bytes = _HALF_HEAD) -> socket.socket:
    """A connection from `source` that sends `head` and then nothing (no blank line)."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect((host, int(port)))
    if head:
        sock.sendall(head)
    return sock


def _closed_by_server(sock: socket.socket) -> bool:
    """Wait for the server to close `sock` (EOF or a reset); the 60 s cap only guards against
    a hang: whether it is closed is the outcome, not how soon."""
    sock.settimeout(60)
    try:
        while data := sock.recv(4096):
            del data  # a refusal's answer may come before the close
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


def test_connections_that_never_finish_their_head_are_closed_and_others_served() -> None:
    from redact.shipping.connections import DEFAULT_HEADER_TIMEOUT, DEFAULT_PER_CLIENT
    from tracecheck.cli import proxy as command

    assert (command.DEFAULT_HEADER_TIMEOUT, command.DEFAULT_PER_CLIENT) == (
        DEFAULT_HEADER_TIMEOUT,
        DEFAULT_PER_CLIENT,
    )
    env = {**os.environ, "TC_PROXY_KNOWN": SECRETS.known}
    with serve(Upstream()) as upstream_url:
        args: tuple[str, ...] = ("--upstream", upstream_url, "--known-secret-env", "TC_PROXY_KNOWN")
        args += ("--header-timeout", "0.5")
        with proxy_command(*args, env=env) as (url, _process, _line):
            slow = [_half_head(url) for _ in range(20)]
            slow += [_half_head(url, head=b"") for _ in range(5)]  # connect, send nothing
            slow += [_half_head(url, head=b"PO") for _ in range(5)]
            try:
                assert httpx.get(f"{url}/healthz", timeout=30).status_code == 200
                assert _post(url, _batch(2)[0], timeout=30).status_code == 200
                closed = [_closed_by_server(sock) for sock in slow]
            finally:
                for sock in slow:
                    sock.close()
            assert all(closed)
            # A kept-alive connection gets the same limit for its next request's head.
            with httpx.Client(timeout=30) as client:
                assert client.get(f"{url}/healthz").status_code == 200
                assert client.get(f"{url}/healthz").status_code == 200


def test_one_client_cannot_take_every_connection() -> None:
    env = {**os.environ, "TC_PROXY_KNOWN": SECRETS.known}
    with serve(Upstream()) as upstream_url:
        args: tuple[str, ...] = ("--upstream", upstream_url, "--known-secret-env", "TC_PROXY_KNOWN")
        # Heads never time out here: only the per-client limit is at work.
        args += ("--header-timeout", "3600", "--max-connections-per-client", "4")
        with proxy_command(*args, env=env) as (url, process, _line):
            # The attacker comes from 127.0.0.2 (all of 127/8 is loopback on Linux).
            held = [_half_head(url, "127.0.0.2") for _ in range(4)]
            extra = [_half_head(url, "127.0.0.2") for _ in range(3)]
            try:
                assert all(_closed_by_server(sock) for sock in extra)
                # Another client is served while the attacker holds its four.
                assert httpx.get(f"{url}/healthz", timeout=30).status_code == 200
                assert _post(url, _batch(2)[0], timeout=30).status_code == 200
                for sock in held:  # still open: nothing came back, no EOF
                    sock.setblocking(False)
                    with pytest.raises(BlockingIOError):
                        sock.recv(1)
                # Once one of the four closes, that client may connect again (the proxy may
                # see the close after the next connection: a bounded number of tries).
                held.pop().close()
                answer = b""
                for _ in range(100):
                    again = _half_head(
                        url, "127.0.0.2", b"GET /healthz HTTP/1.1\r\nHost: p\r\n\r\n"
                    )
                    again.settimeout(60)
                    with suppress(ConnectionResetError):
                        answer = again.recv(4096)
                    again.close()
                    if answer:
                        break
                    time.sleep(0.02)
                assert answer.startswith(b"HTTP/1.1 200")
            finally:
                for sock in held + extra:
                    sock.close()
            assert process.poll() is None
