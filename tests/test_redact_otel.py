"""RedactingSpanExporter over the real OpenTelemetry SDK (shipping spec §1).

Every secret below is fake and assembled at run time from parts and random characters, so no
contiguous credential stands in this file for a scanner to trip on.
"""

from __future__ import annotations

import base64
import gzip
import http.server
import json
import logging
import random
import string
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

import redact.otel
from redact import KnownSecretError, KnownSecrets, ProfileError, ScrubbedSpans
from redact.model import ShareFinding, ShareStatus, ShareVerdict
from redact.otel import RedactingSpanExporter
from redact.secrets_config import SecretsConfigError
from redact.spans import DroppedSpan, scrub_spans

# ----------------------------------------------------------------------------- fake material

_RNG = random.Random()
_B62 = string.ascii_letters + string.digits


def _rand(n: int, alphabet: str = _B62) -> str:
    # Each class present, so a detector's shape (mixed case and digits) always holds.
    body = [_RNG.choice(alphabet) for _ in range(n)]
    classes = (string.ascii_uppercase, string.ascii_lowercase, string.digits)
    forced = [_RNG.choice(c) for c in classes if set(c) <= set(alphabet)]
    body[: len(forced)] = forced
    _RNG.shuffle(body)
    return "".join(body)


def _j(*parts: str) -> str:
    return "".join(parts)


def _luhn(prefix: str) -> str:
    digits = [int(d) for d in prefix]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 0:
            d *= 2
            d -= 9 if d > 9 else 0
        total += d
    return prefix + str((10 - total % 10) % 10)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


OPENAI = _j("sk", "-proj-", _rand(40))
ANTHROPIC = _j("sk", "-ant-", "api03-", _rand(40))
GITHUB = _j("gh", "p_", _rand(36))
AWS = _j("AK", "IA", _rand(16, string.ascii_uppercase + string.digits))
STRIPE = _j("sk", "_live_", _rand(28))
EMAIL = _j("dana.", _rand(8, string.ascii_lowercase), "@", "example.org")
CARD = _luhn(_j("4539", "".join(_RNG.choice(string.digits) for _ in range(11))))
CARD_SPACED = " ".join(CARD[i : i + 4] for i in range(0, 16, 4))
KNOWN = _j("tcint", "-", _rand(32))
JWT = ".".join(
    (
        _b64url(b'{"alg":"HS256","typ":"JWT"}'),
        _b64url(json.dumps({"sub": _rand(12), "scope": "admin"}).encode()),
        _b64url(_rand(32).encode()),
    )
)
SECRETS = {
    "openai": OPENAI,
    "anthropic": ANTHROPIC,
    "github": GITHUB,
    "aws": AWS,
    "stripe": STRIPE,
    "email": EMAIL,
    "card": CARD,
    "known": KNOWN,
    "jwt": JWT,
}
USER_ID = _j("user-", _rand(10))


def needles(secret: str) -> list[bytes]:
    """Byte strings any of which would show the secret survived, in the encodings that matter:
    as written, JSON- and percent-escaped, hex, and base64 (standard and URL-safe) at each of
    the three alignments it can take inside a longer payload."""
    raw = secret.encode()
    out = [raw, raw.hex().encode(), urllib.parse.quote(secret, safe="").encode()]
    out.append(json.dumps(secret)[1:-1].encode())
    for pad in range(3):
        encoded = base64.b64encode(b"\0" * pad + raw)
        # Drop the characters the padding or the following bytes can change.
        middle = encoded[4 if pad else 0 : -4]
        out += [middle, middle.replace(b"+", b"-").replace(b"/", b"_")]
    if secret == CARD:
        out.append(CARD_SPACED.encode())
    return [needle for needle in out if len(needle) >= 8]


def leaks(blob: bytes | str) -> list[str]:
    data = blob.encode() if isinstance(blob, str) else blob
    found = [name for name, secret in SECRETS.items() if any(n in data for n in needles(secret))]
    if USER_ID.encode() in data:
        found.append("user-id")
    return found


# ----------------------------------------------------------------------------- the workload


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRACECHECK_PSEUDONYM_KEY", raising=False)


def emit(provider: TracerProvider) -> None:
    """An agent run whose every string surface holds a secret."""
    tracer = provider.get_tracer(
        "agent.lib", "1.0", attributes={"scope.note": f"built with {ANTHROPIC}"}
    )
    with tracer.start_as_current_span("invoke_agent refunds", kind=SpanKind.SERVER) as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        root.set_attribute("enduser.id", USER_ID)
        root.set_attribute("retries", 3)
        root.set_attribute("temperature", 0.25)
        root.set_attribute("streaming", True)
        root.set_attribute("stop.sequences", ("END", f"mail {EMAIL}"))
        root.set_attribute("token.counts", (12, 40, 7))
        root.set_attribute("weights", (0.5, 1.5))
        root.set_attribute("flags", (True, False))
        blob = base64.b64encode(f"config: secret={KNOWN}; region=eu".encode()).decode()
        root.set_attribute("note", f"the stored config blob is {blob} as loaded at start")
        root.add_event(f"fell back to {OPENAI}")
        with tracer.start_as_current_span(f"chat using {OPENAI}", kind=SpanKind.CLIENT) as chat:
            chat.set_attribute("gen_ai.request.model", "gpt-4o")
            chat.set_attribute("gen_ai.prompt", f"charge card {CARD_SPACED} for dana")
            chat.set_attribute("internal.value", KNOWN)
            chat.add_event("gen_ai.choice", {"index": 0, "text": f"reply to {EMAIL}"})
        context = chat.get_span_context()
        with tracer.start_as_current_span(
            "execute_tool pay",
            links=[Link(context, {"note": f"retried with {GITHUB}", "attempt": 2})],
        ) as tool:
            tool.set_attribute("gen_ai.tool.call.arguments", json.dumps({"key": STRIPE}))
            tool.set_attribute("service.name", "refund-desk")  # also the resource's, same object
            try:
                raise PermissionError("token rejected: " + JWT)
            except PermissionError as exc:
                tool.record_exception(exc)
            tool.set_status(Status(StatusCode.ERROR, f"payment gateway said {STRIPE}"))


def provider_for(*exporters: SpanExporter, batch: bool = False) -> TracerProvider:
    resource = Resource.create(
        {
            "service.name": "refund-desk",
            "deploy.note": f"deployed with {AWS}",
            "process.command_args": ("agent", "--verbose"),
        }
    )
    provider = TracerProvider(resource=resource)
    for exporter in exporters:
        processor = (
            BatchSpanProcessor(exporter, schedule_delay_millis=10)
            if batch
            else SimpleSpanProcessor(exporter)
        )
        provider.add_span_processor(processor)
    return provider


def run(exporter: RedactingSpanExporter, *, batch: bool = False) -> list[ReadableSpan]:
    """Emit the workload to `exporter` and, unredacted, to a second in-memory exporter.
    With `batch`, through a BatchSpanProcessor, which is shut down at the end."""
    raw = InMemorySpanExporter()
    provider = provider_for(exporter, raw, batch=batch)
    emit(provider)
    provider.force_flush()
    if batch:
        # Stops the worker thread; it shuts the exporters down too, so only for one-run tests.
        provider.shutdown()
    return list(raw.get_finished_spans())


def serialized(spans: Sequence[ReadableSpan]) -> list[bytes | str]:
    out: list[bytes | str] = [encode_spans(spans).SerializeToString()]
    out += [span.to_json() for span in spans]
    return out


# ----------------------------------------------------------------------------- tests


def test_the_workload_really_holds_every_secret() -> None:
    raw = run(RedactingSpanExporter(InMemorySpanExporter()))
    assert sorted(set(leaks(b"".join(_bytes(b) for b in serialized(raw))))) == sorted(
        [*SECRETS, "user-id"]
    )


def _bytes(blob: bytes | str) -> bytes:
    return blob.encode() if isinstance(blob, str) else blob


@pytest.mark.parametrize("batch", [False, True], ids=["simple", "batch"])
def test_inner_exporter_gets_every_span_and_no_secret(batch: bool) -> None:
    inner = InMemorySpanExporter()
    exporter = RedactingSpanExporter(inner, known_secrets=[KNOWN])
    raw = run(exporter, batch=batch)
    got = list(inner.get_finished_spans())

    assert {s.context.span_id for s in got} == {s.context.span_id for s in raw}
    assert len(got) == len(raw) == 3
    for blob in serialized(got):
        assert leaks(blob) == []
    # The originals are untouched: the SDK's spans still hold what the application recorded.
    assert leaks(b"".join(_bytes(b) for b in serialized(raw)))
    assert exporter.exported == 3
    assert exporter.dropped_unsafe == exporter.dropped_errors == 0
    assert exporter.redacted_values >= 10


def test_frames_and_types_are_kept() -> None:
    inner = InMemorySpanExporter()
    raw = {s.context.span_id: s for s in run(RedactingSpanExporter(inner, known_secrets=[KNOWN]))}
    got = {s.context.span_id: s for s in inner.get_finished_spans()}
    for span_id, span in got.items():
        original = raw[span_id]
        assert span is not original
        assert span.context == original.context
        assert span.parent == original.parent
        assert span.kind == original.kind
        assert (span.start_time, span.end_time) == (original.start_time, original.end_time)
        assert span.status.status_code == original.status.status_code
        assert [e.timestamp for e in span.events] == [e.timestamp for e in original.events]
        assert [link.context for link in span.links] == [link.context for link in original.links]
        assert span.instrumentation_scope is not None
        assert span.instrumentation_scope.name == "agent.lib"
        assert span.instrumentation_scope.version == "1.0"

    root = next(s for s in got.values() if s.name == "invoke_agent refunds")
    attributes = dict(root.attributes or {})
    assert attributes["retries"] == 3 and type(attributes["retries"]) is int
    assert attributes["temperature"] == 0.25
    assert attributes["streaming"] is True
    assert attributes["token.counts"] == (12, 40, 7)
    assert attributes["weights"] == (0.5, 1.5)
    assert attributes["flags"] == (True, False)
    stop = attributes["stop.sequences"]
    assert isinstance(stop, tuple) and stop[0] == "END" and EMAIL not in stop[1]
    assert str(attributes["enduser.id"]).startswith("[ID:")
    # Resource and scope attributes go back where they came from, not into the span's own.
    assert "service.name" not in attributes and "process.command_args" not in attributes
    assert "scope.note" not in attributes
    assert root.resource.attributes["service.name"] == "refund-desk"
    assert root.resource.attributes["process.command_args"] == ("agent", "--verbose")
    assert "deploy.note" in root.resource.attributes
    assert root.instrumentation_scope is not None
    assert "scope.note" in (root.instrumentation_scope.attributes or {})

    tool = next(s for s in got.values() if s.name == "execute_tool pay")
    assert tool.status.description and STRIPE not in tool.status.description
    assert tool.events[0].name == "exception"
    assert tool.links[0].attributes is not None and tool.links[0].attributes["attempt"] == 2
    assert len({s.resource for s in got.values()}) == 1


def test_one_resource_and_scope_per_batch_as_the_sdk_shares_them() -> None:
    inner = Recording()
    raw = run(RedactingSpanExporter(InMemorySpanExporter()))
    RedactingSpanExporter(inner).export(raw)
    (batch,) = inner.batches
    assert len({id(s.resource) for s in batch}) == 1
    assert len({id(s.instrumentation_scope) for s in batch}) == 1
    # Inherited attributes stay out of every span of the batch, sequences (copied) included;
    # a span's own attribute that repeats a resource attribute stays its own.
    for span in batch:
        own = dict(span.attributes or {})
        assert "process.command_args" not in own and "deploy.note" not in own
        assert ("service.name" in own) == (span.name == "execute_tool pay")


def test_known_secret_is_found_only_when_configured() -> None:
    inner = InMemorySpanExporter()
    run(RedactingSpanExporter(inner))
    assert "known" in leaks(b"".join(_bytes(b) for b in serialized(inner.get_finished_spans())))


def test_prebuilt_known_secrets_are_accepted() -> None:
    inner = InMemorySpanExporter()
    run(RedactingSpanExporter(inner, known_secrets=KnownSecrets.build([KNOWN])))
    assert leaks(encode_spans(inner.get_finished_spans()).SerializeToString()) == []


def test_configuration_errors_raise_at_construction() -> None:
    inner = InMemorySpanExporter()
    with pytest.raises(KnownSecretError):
        RedactingSpanExporter(inner, known_secrets=["ab"])
    with pytest.raises(TypeError, match="not a single string"):
        RedactingSpanExporter(inner, known_secrets=KNOWN)
    with pytest.raises(ProfileError):
        RedactingSpanExporter(inner, profile="sharing")
    with pytest.raises(SecretsConfigError, match="at least 16 bytes"):
        RedactingSpanExporter(inner, pseudonym_key="short")


def _pseudonyms(exporter: RedactingSpanExporter, inner: InMemorySpanExporter) -> set[str]:
    inner.clear()
    run(exporter)
    return {
        str((s.attributes or {})["enduser.id"])
        for s in inner.get_finished_spans()
        if "enduser.id" in (s.attributes or {})
    }


def test_pseudonyms_agree_across_batches_with_a_key() -> None:
    inner = InMemorySpanExporter()
    key = _j("pseudonym-", _rand(24))
    first = _pseudonyms(RedactingSpanExporter(inner, pseudonym_key=key), inner)
    second = _pseudonyms(RedactingSpanExporter(inner, pseudonym_key=key.encode()), inner)
    assert first == second and len(first) == 1


def test_pseudonym_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACECHECK_PSEUDONYM_KEY", _j("env-key-", _rand(24)))
    inner = InMemorySpanExporter()
    first = _pseudonyms(RedactingSpanExporter(inner), inner)
    assert first == _pseudonyms(RedactingSpanExporter(inner), inner)


def test_without_a_key_pseudonyms_agree_within_one_exporter_only() -> None:
    inner = InMemorySpanExporter()
    exporter = RedactingSpanExporter(inner)
    first = _pseudonyms(exporter, inner)
    assert first == _pseudonyms(exporter, inner)
    assert first != _pseudonyms(RedactingSpanExporter(inner), inner)


# ----------------------------------------------------------------------------- drops and failures


def _gate(status: ShareStatus, detector: str) -> Any:
    """A scrub_spans that runs the real one, then holds back the chat span with `status`."""
    real = scrub_spans

    def scrub(spans: Any, **options: Any) -> ScrubbedSpans:
        out = real(spans, **options)
        held = [s for s in out.kept if s.name.startswith("chat") or "REDACTED" in s.name]
        finding = ShareFinding("credential", detector, "error", 1, ("span:x/name",))
        verdict = ShareVerdict(status, "share", (finding,))
        dropped = tuple(DroppedSpan(s.trace_id, s.span_id, verdict) for s in held)
        kept = tuple(s for s in out.kept if s not in held)
        return ScrubbedSpans(kept, out.dropped + dropped, out.report)

    return scrub


def test_unsafe_spans_are_dropped_counted_and_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    inner = InMemorySpanExporter()
    gate = _gate(ShareStatus.UNSAFE, "known-secret")
    exporter = RedactingSpanExporter(inner, known_secrets=[KNOWN], scrub=gate)
    with caplog.at_level(logging.WARNING, logger="redact.otel"):
        run(exporter)
        run(exporter)
    assert len(inner.get_finished_spans()) == 4
    assert all(not s.name.startswith("chat") for s in inner.get_finished_spans())
    assert (exporter.exported, exporter.dropped_unsafe, exporter.dropped_errors) == (4, 2, 0)
    messages = [r.getMessage() for r in caplog.records if r.name == "redact.otel"]
    assert messages == [
        "dropped 1 span whose redacted form is UNSAFE (credential/known-secret); "
        "further drops of this kind are counted, not logged"
    ]
    assert caplog.records[0].levelno == logging.WARNING


def test_each_kind_of_drop_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    gates = [_gate(ShareStatus.UNSAFE, "jwt")]
    exporter = RedactingSpanExporter(
        InMemorySpanExporter(), scrub=lambda spans, **options: gates[-1](spans, **options)
    )
    with caplog.at_level(logging.WARNING, logger="redact.otel"):
        for status, detector in ((ShareStatus.UNSAFE, "jwt"), (ShareStatus.UNKNOWN, "timeout")):
            gates.append(_gate(status, detector))
            run(exporter)
            run(exporter)
    messages = [r.getMessage() for r in caplog.records if r.name == "redact.otel"]
    assert [m.split(" (")[0] for m in messages] == [
        "dropped 1 span whose redacted form is UNSAFE",
        "dropped 1 span whose redacted form is UNKNOWN",
    ]
    assert exporter.dropped_unsafe == 4


def test_every_span_dropped_is_success_with_nothing_sent() -> None:
    real = scrub_spans

    def scrub_all(spans: Any, **options: Any) -> ScrubbedSpans:
        out = real(spans, **options)
        verdict = ShareVerdict(ShareStatus.UNSAFE, "share")
        dropped = tuple(DroppedSpan(s.trace_id, s.span_id, verdict) for s in out.kept)
        return ScrubbedSpans((), dropped, out.report)

    inner = Recording()
    exporter = RedactingSpanExporter(inner, scrub=scrub_all)
    raw = run(RedactingSpanExporter(InMemorySpanExporter()))
    assert exporter.export(raw) is SpanExportResult.SUCCESS
    assert inner.batches == []
    assert (exporter.exported, exporter.dropped_unsafe) == (0, 3)


def test_a_redaction_error_drops_the_batch(caplog: pytest.LogCaptureFixture) -> None:
    raw = run(RedactingSpanExporter(InMemorySpanExporter()))

    def broken(spans: Any, **options: Any) -> ScrubbedSpans:
        raise RuntimeError(f"could not redact {OPENAI}")

    inner = Recording()
    exporter = RedactingSpanExporter(inner, scrub=broken)
    with caplog.at_level(logging.WARNING, logger="redact.otel"):
        assert exporter.export(raw) is SpanExportResult.FAILURE
        assert exporter.export(raw) is SpanExportResult.FAILURE
    assert inner.batches == []
    assert (exporter.exported, exporter.dropped_errors) == (0, 6)
    assert [r.getMessage() for r in caplog.records] == [
        "dropped a batch of 3 spans: redaction failed (RuntimeError), so nothing of it was "
        "sent; further drops of this kind are counted, not logged"
    ]


def test_a_conversion_error_drops_the_batch() -> None:
    exporter = RedactingSpanExporter(Recording())
    bogus: Any = [object()]
    assert exporter.export(bogus) is SpanExportResult.FAILURE
    assert exporter.dropped_errors == 1


class Exploding(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        raise ConnectionError(f"upstream rejected {GITHUB}")


def test_an_inner_exporter_that_raises_never_reaches_the_application(
    caplog: pytest.LogCaptureFixture,
) -> None:
    exporter = RedactingSpanExporter(Exploding())
    raw = run(RedactingSpanExporter(InMemorySpanExporter()))
    with caplog.at_level(logging.WARNING, logger="redact.otel"):
        assert exporter.export(raw) is SpanExportResult.FAILURE
        run(exporter)  # through SimpleSpanProcessor: the application sees nothing
    assert (exporter.exported, exporter.export_failed, exporter.dropped_errors) == (0, 6, 0)
    assert [r.getMessage() for r in caplog.records if r.name == "redact.otel"] == [
        "dropped a batch of 3 spans: the inner exporter Exploding raised ConnectionError; "
        "further drops of this kind are counted, not logged"
    ]


def test_no_log_record_holds_a_secret(caplog: pytest.LogCaptureFixture) -> None:
    gate = _gate(ShareStatus.UNSAFE, "jwt")
    with caplog.at_level(logging.DEBUG):
        run(RedactingSpanExporter(InMemorySpanExporter(), scrub=gate))
        run(RedactingSpanExporter(Exploding(), scrub=gate))
    assert caplog.records
    for record in caplog.records:
        text = record.getMessage() + repr(record.args) + str(record.exc_text or "")
        assert leaks(text) == []


class Recording(SpanExporter):
    def __init__(self, result: SpanExportResult = SpanExportResult.SUCCESS) -> None:
        self.result = result
        self.batches: list[list[ReadableSpan]] = []
        self.calls: list[str] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.batches.append(list(spans))
        return self.result

    def shutdown(self) -> None:
        self.calls.append("shutdown")

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        self.calls.append(f"force_flush {timeout_millis}")
        return True


def test_inner_failure_is_returned_and_counted_as_failed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    exporter = RedactingSpanExporter(Recording(SpanExportResult.FAILURE))
    raw = run(RedactingSpanExporter(InMemorySpanExporter()))
    with caplog.at_level(logging.WARNING, logger="redact.otel"):
        assert exporter.export(raw) is SpanExportResult.FAILURE
        assert exporter.export(raw) is SpanExportResult.FAILURE
    assert (exporter.received, exporter.exported, exporter.export_failed) == (6, 0, 6)
    assert [r.getMessage() for r in caplog.records if r.name == "redact.otel"] == [
        "dropped a batch of 3 spans: the inner exporter Recording reported FAILURE; "
        "further drops of this kind are counted, not logged"
    ]


def _undelivered(counters: dict[str, int]) -> int:
    return sum(
        counters[name]
        for name in ("dropped_unsafe", "dropped_errors", "export_failed", "dropped_after_shutdown")
    )


class Flaky(SpanExporter):
    """Fails (FAILURE or raising, in turn) every call whose number is in `failing`; records
    how many spans each call held and whether it was taken."""

    def __init__(self, failing: set[int]) -> None:
        self.failing = failing
        self.calls: list[tuple[int, bool]] = []
        self.lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self.lock:
            number = len(self.calls)
            failed = number in self.failing
            self.calls.append((len(spans), not failed))
        if not failed:
            return SpanExportResult.SUCCESS
        if number % 2:
            raise ConnectionError("the collector reset the connection")
        return SpanExportResult.FAILURE


@pytest.mark.parametrize("processor", ["simple", "batch"])
@pytest.mark.parametrize("failing", ["returns FAILURE", "raises"])
def test_every_span_the_inner_exporter_fails_is_counted_through_the_sdk(
    processor: str, failing: str
) -> None:
    inner: SpanExporter = Exploding()
    if failing == "returns FAILURE":
        inner = Recording(SpanExportResult.FAILURE)
    exporter = RedactingSpanExporter(inner)
    provider = TracerProvider()
    provider.add_span_processor(
        BatchSpanProcessor(exporter, max_export_batch_size=7)
        if processor == "batch"
        else SimpleSpanProcessor(exporter)
    )
    tracer = provider.get_tracer("agent.lib")
    for n in range(25):
        with tracer.start_as_current_span(f"step {n}") as span:
            span.set_attribute("user.id", f"{USER_ID}-{n}")
    provider.force_flush()
    provider.shutdown()
    assert exporter.counters == {
        "received": 25,
        "exported": 0,
        "redacted_values": 25,
        "dropped_unsafe": 0,
        "dropped_errors": 0,
        "export_failed": 25,
        "dropped_after_shutdown": 0,
    }


def test_failed_and_accepted_batches_add_up_with_gate_drops_through_a_batch_processor() -> None:
    # Calls 1 and 2 (raising, then FAILURE) and 5 fail; the rest are taken. Every fifth span
    # fails the gate, so a batch reaches the inner exporter without it.
    inner = Flaky({1, 2, 5})
    real = scrub_spans

    def gate(spans: Any, **options: Any) -> ScrubbedSpans:
        out = real(spans, **options)
        verdict = ShareVerdict(ShareStatus.UNSAFE, "share")
        held = [s for s in out.kept if s.name.endswith(("0", "5"))]
        dropped = tuple(DroppedSpan(s.trace_id, s.span_id, verdict) for s in held)
        kept = tuple(s for s in out.kept if s not in held)
        return ScrubbedSpans(kept, out.dropped + dropped, out.report)

    exporter = RedactingSpanExporter(inner, scrub=gate)
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(exporter, max_export_batch_size=6))
    tracer = provider.get_tracer("agent.lib")
    for n in range(60):
        with tracer.start_as_current_span(f"step {n}"):
            pass
    provider.force_flush()
    provider.shutdown()
    taken = sum(size for size, ok in inner.calls if ok)
    failed = sum(size for size, ok in inner.calls if not ok)
    counters = exporter.counters
    assert [ok for _, ok in inner.calls][1:3] == [False, False]
    assert (counters["received"], counters["dropped_unsafe"]) == (60, 12)
    assert (counters["exported"], counters["export_failed"]) == (taken, failed)
    assert failed >= 2 and taken + failed == 48
    assert counters["received"] == counters["exported"] + _undelivered(counters)


def test_spans_offered_after_shutdown_are_counted() -> None:
    inner = Recording()
    exporter = RedactingSpanExporter(inner)
    raw = run(RedactingSpanExporter(InMemorySpanExporter()))
    exporter.shutdown()
    assert exporter.export(raw) is SpanExportResult.FAILURE
    assert exporter.export([]) is SpanExportResult.FAILURE
    assert inner.batches == []
    counters = exporter.counters
    assert (counters["received"], counters["dropped_after_shutdown"]) == (3, 3)
    assert counters["received"] == counters["exported"] + _undelivered(counters)


def test_a_partly_failed_redaction_then_a_failed_export_counts_each_span_once() -> None:
    def fragile(spans: Any, **options: Any) -> Any:
        if any(span.name.startswith("chat") for span in spans):
            raise RuntimeError("the redactor broke")
        return scrub_spans(spans, **options)

    exporter = RedactingSpanExporter(Recording(SpanExportResult.FAILURE), scrub=fragile)
    raw = run(RedactingSpanExporter(InMemorySpanExporter()))
    assert exporter.export(raw) is SpanExportResult.FAILURE
    counters = exporter.counters
    assert (counters["received"], counters["dropped_errors"], counters["export_failed"]) == (
        3,
        1,
        2,
    )
    assert counters["received"] == counters["exported"] + _undelivered(counters)


def test_shutdown_and_force_flush_are_delegated() -> None:
    inner = Recording()
    exporter = RedactingSpanExporter(inner)
    assert exporter.inner is inner
    assert exporter.force_flush(1234) is True
    exporter.shutdown()
    assert inner.calls == ["force_flush 1234", "shutdown"]
    raw = run(RedactingSpanExporter(InMemorySpanExporter()))
    assert exporter.export(raw) is SpanExportResult.FAILURE
    assert inner.batches == []


def test_empty_batch_is_success() -> None:
    inner = Recording()
    assert RedactingSpanExporter(inner).export([]) is SpanExportResult.SUCCESS
    assert inner.batches == []


def test_max_string_bytes_caps_strings() -> None:
    # Not the workload's note: its base64 blob decodes to `secret=…`, a credential that
    # replaces the whole string before any cap.
    inner = InMemorySpanExporter()
    provider = provider_for(RedactingSpanExporter(inner, max_string_bytes=64))
    with provider.get_tracer("agent.lib").start_as_current_span("capped") as span:
        span.set_attribute("note", "a long and harmless note " * 8)
    provider.force_flush()
    (capped,) = inner.get_finished_spans()
    note = str((capped.attributes or {})["note"])
    assert "[truncated" in note and len(note.encode()) < 120


def test_concurrent_exports_count_every_span() -> None:
    raw = run(RedactingSpanExporter(InMemorySpanExporter()))
    inner = Recording()
    exporter = RedactingSpanExporter(inner)
    threads = [threading.Thread(target=exporter.export, args=(raw,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert exporter.exported == 8 * len(raw) and len(inner.batches) == 8


def test_counters_snapshot() -> None:
    exporter = RedactingSpanExporter(InMemorySpanExporter())
    run(exporter)
    counters = exporter.counters
    assert counters == {
        "received": 3,
        "exported": 3,
        "redacted_values": exporter.redacted_values,
        "dropped_unsafe": 0,
        "dropped_errors": 0,
        "export_failed": 0,
        "dropped_after_shutdown": 0,
    }
    assert counters["redacted_values"] > 0


def test_public_surface_and_optional_sdk() -> None:
    assert redact.otel.__all__ == ["RedactingSpanExporter"]
    code = "import redact, sys; print(any(m.startswith('opentelemetry.sdk') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------------------- OTLP/HTTP end to end


class _Capture(http.server.BaseHTTPRequestHandler):
    bodies: list[bytes]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        self.bodies.append(body)
        reply = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def capture(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list[bytes]]]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    bodies: list[bytes] = []
    handler = type("Capture", (_Capture,), {"bodies": bodies})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1/traces", bodies
    finally:
        server.shutdown()
        server.server_close()


def test_otlp_http_end_to_end(capture: tuple[str, list[bytes]]) -> None:
    endpoint, bodies = capture
    exporter = RedactingSpanExporter(
        OTLPSpanExporter(endpoint=endpoint, timeout=5), known_secrets=[KNOWN]
    )
    raw = run(exporter, batch=True)
    assert bodies
    received: set[bytes] = set()
    for body in bodies:
        assert leaks(body) == []
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        for resource_spans in request.resource_spans:
            for scope_spans in resource_spans.scope_spans:
                received.update(span.span_id for span in scope_spans.spans)
    assert received == {s.context.span_id.to_bytes(8, "big") for s in raw}
    assert exporter.exported == 3
