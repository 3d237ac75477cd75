"""redaction.md A1–A3, A6, A7 and B14 over spans: every string surface of a span is redacted and
assessed, nothing planted survives serialization in any encoding, and the span's identity
(ids, times, kinds, status codes) never changes.

The secrets are fake and glued together from parts at run time, so no contiguous credential sits
in this file.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Link as OtelLink
from opentelemetry.trace import SpanKind, Status, StatusCode

from redact import (
    ShareStatus,
    assess_spans,
    redact_spans,
    scrub_spans,
    share_allowed,
)
from redact.detectors.personal import is_card_number
from tracecheck import read_traces, spans_from_otel
from tracecheck.spans import Event, Link, Scope, Span
from tracecheck.writers import to_otlp_json, to_otlp_proto

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
INSTRUMENTATIONS = ("otel-genai", "openinference")

# --- fake secrets, assembled from parts ----------------------------------------------------------

# The fixtures' opaque known secret: 24 bytes, so its base64 needs no padding.
KNOWN = "zq9 Opaque/" + "Deploy Key 77"
# A second one with a space, "/", "+", a backslash, non-ASCII and a length of 1 (mod 3), so that padded and
# unpadded base64, both alphabets, percent/form encoding and JSON's \u escapes all differ.
KNOWN_2 = "Rö" + "tkäppchen/+ Wolf\\42?!"
KNOWN_SECRETS = (KNOWN, KNOWN_2)

OPENAI_KEY = "sk-" + "proj-" + "FAKEfake0123456789" + "FAKEfake0123"
AWS_KEY_ID = "AKIA" + "IOSFODNN7" + "EXAMPLE"
GITHUB_TOKEN = "ghp_" + "FAKE0123456789abcdef" + "FAKE0123456789ab"
SLACK_TOKEN = "xoxb-" + "0123456789-" + "FAKEfakeFAKE"
BEARER_TOKEN = "fake." + "0123456789abcdef" + ".FAKE"
BEARER_LINE = "Authori" + "zation: Bearer " + BEARER_TOKEN
DB_PASSWORD = "FAKE" + "passw0rd"
POSTGRES_URL = "postgres://" + "crm_app:" + DB_PASSWORD + "@db.example.test:5432/crm"
CUSTOMER_EMAIL = "jane.doe" + "@" + "example.com"
MANAGER_EMAIL = "crm-admin" + "@" + "example.test"
OWNER_EMAIL = "platform-owner" + "@" + "example.test"
CARD_NUMBER = " ".join(["4111"] + ["1111"] * 3)
PHONE = "(415) " + "555-2671"


def _b64url(part: dict[str, str]) -> str:
    raw = json.dumps(part, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


JWT = ".".join(
    [
        _b64url({"alg": "HS256", "typ": "JWT"}),
        _b64url({"sub": "fixture-fake"}),
        "FAKE" + "signature" + "0123456789",
    ]
)

# Credential-shaped values and personal data: each must be gone, and so must the secret inside.
SHAPED = (
    OPENAI_KEY,
    AWS_KEY_ID,
    GITHUB_TOKEN,
    SLACK_TOKEN,
    BEARER_TOKEN,
    DB_PASSWORD,
    JWT,
    CUSTOMER_EMAIL,
    MANAGER_EMAIL,
    OWNER_EMAIL,
    CARD_NUMBER,
    CARD_NUMBER.replace(" ", ""),
    PHONE,
)


# --- the encodings of spec A3, computed here independently of redact.known ----------------------


def b64(data: bytes, *, url: bool = False, pad: bool = True) -> str:
    out = (base64.urlsafe_b64encode if url else base64.b64encode)(data).decode("ascii")
    return out if pad else out.rstrip("=")


def b64_core(secret: str, offset: int, *, url: bool) -> str:
    """The base64 characters that carry only bits of `secret` when it starts at byte `offset`
    of a larger payload: whatever surrounds it, these characters are the same."""
    data = secret.encode("utf-8")
    encoded = b64(bytes(offset) + data + bytes(2), url=url)
    first = -(-8 * offset // 6)
    end = 8 * (offset + len(data)) // 6
    return encoded[first:end]


def lower_percent(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), text)


def written_forms(secret: str) -> dict[str, str]:
    """Every form a known secret may take as written text (not embedded in base64)."""
    data = secret.encode("utf-8")
    escaped_ascii = json.dumps(secret)[1:-1]
    return {
        "as written": secret,
        "base64": b64(data),
        "base64 unpadded": b64(data, pad=False),
        "base64url padded": b64(data, url=True),
        "base64url": b64(data, url=True, pad=False),
        "percent": quote(secret, safe=""),
        "percent lower": lower_percent(quote(secret, safe="")),
        "percent path": quote(secret),  # "/" kept as is
        "form": quote_plus(secret, safe=""),
        "form lower": lower_percent(quote_plus(secret, safe="")),
        "hex": data.hex(),
        "HEX": data.hex().upper(),
        "json": json.dumps(secret, ensure_ascii=False)[1:-1],
        "json ascii": escaped_ascii,
        "json ascii slash": escaped_ascii.replace("/", "\\/"),
    }


def embedded_payloads(secret: str) -> dict[str, str]:
    """Base64 payloads that hold the secret at byte offsets 0, 1 and 2 among other bytes."""
    data = secret.encode("utf-8")
    out = {}
    for offset in range(3):
        payload = b"<>?"[:offset] + data + b"~!"
        for url in (False, True):
            out[f"offset {offset} {'url' if url else 'std'}"] = b64(payload, url=url)
    return out


def needles(secret: str) -> dict[str, str]:
    """What must not be found after redaction: every form, every base64 core, and halves of
    each, so a partial cut shows too."""
    found = dict(written_forms(secret))
    for offset in range(3):
        for url in (False, True):
            found[f"core {offset} {'url' if url else 'std'}"] = b64_core(secret, offset, url=url)
    for name, value in list(found.items()):
        if len(value) >= 16:
            found[f"{name} [head]"] = value[: len(value) // 2]
            found[f"{name} [tail]"] = value[len(value) // 2 :]
    return found


def all_needles() -> dict[str, str]:
    out = {
        f"{secret[:3]}… {name}": value
        for secret in KNOWN_SECRETS
        for name, value in needles(secret).items()
    }
    out.update({f"shaped {value[:6]}…": value for value in SHAPED})
    return out


def holds(data: bytes, needle: str) -> bool:
    """Whether serialized span data holds the needle, as is or as a JSON string escapes it
    (OTLP/JSON writes a backslash in a value as two)."""
    escaped = json.dumps(needle, ensure_ascii=False)[1:-1]
    return needle.encode("utf-8") in data or escaped.encode("utf-8") in data


def leaks(data: bytes) -> list[str]:
    return [name for name, needle in all_needles().items() if holds(data, needle)]


def test_the_encodings_really_differ() -> None:
    # Guard for the choice of KNOWN_2: otherwise some forms would be tested twice, not once each.
    forms = written_forms(KNOWN_2)
    assert len(set(forms.values())) == len(forms)
    assert forms["base64"].endswith("=") and forms["base64"] != forms["base64url padded"]
    assert "\\u00f6" in forms["json ascii"] and "%2F" in forms["percent"]
    assert "+" in forms["form"] and "/" in forms["percent path"]


# --- a real OpenTelemetry SDK run ---------------------------------------------------------------


def prose_pieces() -> list[str]:
    """One sentence per form and per embedded payload of each known secret."""
    pieces = []
    for secret in KNOWN_SECRETS:
        for name, form in written_forms(secret).items():
            pieces.append(f"{name} form: {form} (end)")
        for name, payload in embedded_payloads(secret).items():
            pieces.append(f"attachment at {name}: {payload} sent")
    return pieces


@dataclass(frozen=True)
class SdkRun:
    original: list[Span]
    redacted: tuple[Span, ...]
    findings: Sequence[tuple[str, str, str]]


def record_run() -> list[Span]:
    # Every surface gets its share of the forms. The prompt (chunk 2) is JSON-encoded into
    # gen_ai.input.messages, which would escape a piece holding a backslash a second time:
    # such pieces go to the other surfaces (double escaping: see the test further below).
    pieces = prose_pieces()
    chunks = [[p for p in pieces if "\\" not in p][i::8] for i in range(8)]
    for i, piece in enumerate(p for p in pieces if "\\" in p):
        chunks[(0, 1, 3, 4, 5, 6, 7)[i % 7]].append(piece)
    exporter = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource.create(
            {
                "service.name": "refund-desk",
                "deployment.owner.email": OWNER_EMAIL,
                "deployment.note": " | ".join(chunks[0]) + " db " + POSTGRES_URL,
            }
        )
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer(
        "refund-agent",
        "1.0.0",
        attributes={
            "agent.build": "built with " + SLACK_TOKEN,
            "agent.notes": " | ".join(chunks[1]),
        },
    )
    with tracer.start_as_current_span("invoke_agent refund-desk", kind=SpanKind.SERVER) as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        with tracer.start_as_current_span("chat gpt-4.1-mini", kind=SpanKind.CLIENT) as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute("gen_ai.request.model", "gpt-4.1-mini")
            chat.set_attribute("gen_ai.usage.input_tokens", 468)
            prompt = (
                f"I am {CUSTOMER_EMAIL}, phone {PHONE}, card {CARD_NUMBER}. "
                + " ".join(chunks[2])
                + f" and {KNOWN} and {KNOWN_2}"  # json.dumps escapes these as JSON does
            )
            messages = [{"role": "user", "parts": [{"type": "text", "content": prompt}]}]
            chat.set_attribute("gen_ai.input.messages", json.dumps(messages))
            chat.set_attribute(
                "gen_ai.input.messages.ascii", json.dumps(messages, ensure_ascii=True)
            )
        with tracer.start_as_current_span("execute_tool call_crm " + GITHUB_TOKEN) as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            tool.set_attribute("gen_ai.tool.name", "call_crm")
            tool.set_attribute(
                "gen_ai.tool.call.arguments",
                json.dumps({"customer_email": CUSTOMER_EMAIL, "api_key": OPENAI_KEY}),
            )
            tool.set_attribute(
                "gen_ai.tool.call.result",
                "\n".join(
                    [
                        f"customer: {CUSTOMER_EMAIL}",
                        f"manager: {MANAGER_EMAIL}",
                        BEARER_LINE,
                        f"aws_access_key_id={AWS_KEY_ID}",
                        "card on file: " + CARD_NUMBER.replace(" ", ""),
                        *chunks[3],
                    ]
                ),
            )
            # A whole-string payload: the secret at byte offset 1 of base64 with nothing else.
            tool.set_attribute("crm.blob", b64(b"x" + KNOWN.encode() + b"yz"))
            tool.add_event(
                "crm.response " + chunks[4][0], {"crm.detail": " | ".join(chunks[4][1:])}
            )
        with tracer.start_as_current_span("execute_tool open_ticket") as failing:
            failing.set_attribute("gen_ai.operation.name", "execute_tool")
            try:
                raise PermissionError(f"401 for session token {JWT}; " + " ".join(chunks[5]))
            except PermissionError as error:
                failing.record_exception(error)
            failing.set_status(
                Status(StatusCode.ERROR, "open_ticket failed: " + " ".join(chunks[6]))
            )
        with tracer.start_as_current_span(
            "follow_up",
            links=[
                OtelLink(
                    root.get_span_context(),
                    {"link.note": " | ".join(chunks[7]) + " " + GITHUB_TOKEN},
                )
            ],
        ) as follow:
            follow.set_attribute("gen_ai.operation.name", "unknown")
    provider.shutdown()
    return spans_from_otel(exporter.get_finished_spans())


@pytest.fixture(scope="module")
def sdk_run() -> SdkRun:
    original = record_run()
    out = redact_spans(original, profile="share", known_secrets=KNOWN_SECRETS)
    findings = [(f.path, f.category, f.detector) for f in out.report.findings]
    return SdkRun(original, out.spans, findings)


def test_the_run_really_carries_every_needle(sdk_run: SdkRun) -> None:
    # Otherwise "nothing found afterwards" would prove nothing.
    for encode in (to_otlp_json, to_otlp_proto):
        data = encode(sdk_run.original)
        missing = [name for name, needle in all_needles().items() if not holds(data, needle)]
        assert missing == [], encode.__name__


def test_no_secret_survives_in_any_encoding(sdk_run: SdkRun) -> None:
    assert leaks(to_otlp_json(sdk_run.redacted)) == []
    assert leaks(to_otlp_proto(sdk_run.redacted)) == []


def test_every_surface_was_redacted(sdk_run: SdkRun) -> None:
    by_name = {span.name: span for span in sdk_run.original}
    tool = by_name["execute_tool call_crm " + GITHUB_TOKEN].span_id
    failing = by_name["execute_tool open_ticket"].span_id
    follow = by_name["follow_up"].span_id
    chat = by_name["chat gpt-4.1-mini"].span_id
    paths = {path for path, _, _ in sdk_run.findings}
    expected = {
        f"span:{chat}/attributes/gen_ai.input.messages",
        f"span:{tool}/name",
        f"span:{tool}/attributes/gen_ai.tool.call.arguments",
        f"span:{tool}/attributes/gen_ai.tool.call.result",
        f"span:{tool}/attributes/crm.blob",
        f"span:{tool}/events/0/name",
        f"span:{tool}/events/0/attributes/crm.detail",
        f"span:{failing}/status/message",
        f"span:{failing}/events/0/attributes/exception.message",
        f"span:{failing}/events/0/attributes/exception.stacktrace",
        f"span:{follow}/links/0/attributes/link.note",
    }
    # A value of JSON held in a string is reported where it stands inside it (issue 31).
    assert all(any(p == e or p.startswith(e + "/") for p in paths) for e in expected), sorted(
        e for e in expected if not any(p == e or p.startswith(e + "/") for p in paths)
    )
    # The resource and the scope are one for the whole run: redacted and reported once.
    resource = [p for p in paths if "/resource/attributes/" in p]
    scope = [p for p in paths if "/scope/attributes/" in p]
    assert sorted(p.split("/", 1)[1] for p in resource) == [
        "resource/attributes/deployment.note",
        "resource/attributes/deployment.owner.email",
    ]
    assert sorted(p.split("/", 1)[1] for p in scope) == [
        "scope/attributes/agent.build",
        "scope/attributes/agent.notes",
    ]
    assert len({p.split("/", 1)[0] for p in resource + scope}) == 1
    assert all(span.resource == sdk_run.redacted[0].resource for span in sdk_run.redacted)


def identity(span: Span) -> tuple[Any, ...]:
    return (
        span.trace_id,
        span.span_id,
        span.parent_span_id,
        span.start_ns,
        span.end_ns,
        span.otlp_kind,
        span.status,
        tuple(event.time_ns for event in span.events),
        tuple((link.trace_id, link.span_id) for link in span.links),
    )


def test_ids_times_kinds_and_status_codes_are_unchanged(sdk_run: SdkRun, tmp_path: Path) -> None:
    before = [identity(span) for span in sdk_run.original]
    assert [identity(span) for span in sdk_run.redacted] == before
    assert {span.otlp_kind for span in sdk_run.redacted} == {1, 2, 3}  # internal, server, client
    assert [span.status for span in sdk_run.redacted].count("error") == 1
    # ... and after a round trip through both encodings.
    json_file = tmp_path / "out.otlp.json"
    json_file.write_bytes(to_otlp_json(sdk_run.redacted))
    proto_file = tmp_path / "out.otlp.pb"
    proto_file.write_bytes(to_otlp_proto(sdk_run.redacted))
    for path in (json_file, proto_file):
        (trace,) = read_traces(path)
        by_id = {span.span_id: identity(span) for span in trace.spans}
        assert sorted(by_id.values()) == sorted(before), path.name


def test_the_redacted_run_is_share_allowed(sdk_run: SdkRun) -> None:
    before = assess_spans(sdk_run.original, profile="share", known_secrets=KNOWN_SECRETS)
    assert before.status is ShareStatus.UNSAFE
    after = assess_spans(sdk_run.redacted, profile="share", known_secrets=KNOWN_SECRETS)
    assert share_allowed(after), after
    assert all(finding.severity == "warning" for finding in after.findings)
    # Without the known secrets the original still shows its shaped credentials.
    assert assess_spans(sdk_run.original, profile="share").status is ShareStatus.UNSAFE


def test_redaction_is_idempotent_on_the_run(sdk_run: SdkRun) -> None:
    again = redact_spans(sdk_run.redacted, profile="share", known_secrets=KNOWN_SECRETS)
    assert again.report.findings == ()
    assert to_otlp_json(again.spans) == to_otlp_json(sdk_run.redacted)


# --- surfaces and paths, on hand-made spans ----------------------------------------------------

RESOURCE = {"service.name": "svc", "owner.email": OWNER_EMAIL}
SCOPE = Scope("agent", "1.0", {"scope.token": "plain-looking"})


def make_span(
    span_id: str,
    *,
    resource: dict[str, Any] = RESOURCE,
    scope: Scope | None = SCOPE,
    attributes: dict[str, Any] | None = None,
    **fields: Any,
) -> Span:
    """A span as the readers build it: resource and scope attributes merged into its own."""
    inherited = {**resource, **(scope.attributes if scope else {})}
    return Span(
        "a" * 32,
        span_id,
        attributes={**inherited, **(attributes or {})},
        resource=resource,
        scope=scope,
        **{"name": "step", "start_ns": 10, "end_ns": 20, "otlp_kind": 1, **fields},
    )


S1, S2, S3 = "1" * 16, "2" * 16, "3" * 16


def test_paths_of_every_surface() -> None:
    span = make_span(
        S1,
        name="call " + OPENAI_KEY,
        status="error",
        status_message="failed for " + CUSTOMER_EMAIL,
        attributes={"note": "x " + OPENAI_KEY, "a/b~c": CUSTOMER_EMAIL},
        events=(Event("mail " + CUSTOMER_EMAIL, 15, {"detail": "k " + OPENAI_KEY}),),
        links=(Link("b" * 32, S2, {"why": CUSTOMER_EMAIL}),),
    )
    out = redact_spans([span], profile="share")
    assert sorted(
        (f.path, f.category, f.detector, f.action) for f in out.report.findings
    ) == sorted(
        [
            (
                f"span:{S1}/resource/attributes/owner.email",
                "personal-data",
                "personal-data-key",
                "redacted",
            ),
            (f"span:{S1}/scope/attributes/scope.token", "credential", "credential-key", "redacted"),
            (f"span:{S1}/attributes/note", "credential", "provider-key", "redacted"),
            (f"span:{S1}/attributes/a~1b~0c", "personal-data", "email", "redacted"),
            (f"span:{S1}/status/message", "personal-data", "email", "redacted"),
            (f"span:{S1}/events/0/name", "personal-data", "email", "redacted"),
            (f"span:{S1}/events/0/attributes/detail", "credential", "provider-key", "redacted"),
            (f"span:{S1}/links/0/attributes/why", "personal-data", "email", "redacted"),
            (f"span:{S1}/name", "credential", "provider-key", "redacted"),
        ]
    )
    (after,) = out.spans
    assert after.name == "[REDACTED:provider-key]"
    assert after.status_message == "failed for [REDACTED:email]"
    assert after.events == (
        Event("mail [REDACTED:email]", 15, {"detail": "[REDACTED:provider-key]"}),
    )
    assert after.links == (Link("b" * 32, S2, {"why": "[REDACTED:email]"}),)
    assert dict(after.resource) == {
        "service.name": "svc",
        "owner.email": "[REDACTED:personal-data-key]",
    }
    assert after.scope == Scope("agent", "1.0", {"scope.token": "[REDACTED:credential-key]"})
    assert dict(after.attributes) == {
        "service.name": "svc",
        "owner.email": "[REDACTED:personal-data-key]",
        "scope.token": "[REDACTED:credential-key]",
        "note": "[REDACTED:provider-key]",
        "a/b~c": "[REDACTED:email]",
    }
    assert identity(after) == identity(span)

    verdict = assess_spans([span], profile="share")
    paths = {path for finding in verdict.findings for path in finding.paths}
    assert paths == {
        f"span:{S1}/resource/attributes/owner.email",
        f"span:{S1}/scope/attributes/scope.token",
        f"span:{S1}/name",
        f"span:{S1}/attributes/note",
        f"span:{S1}/attributes/a~1b~0c",
        f"span:{S1}/status/message",
        f"span:{S1}/events/0/name",
        f"span:{S1}/events/0/attributes/detail",
        f"span:{S1}/links/0/attributes/why",
    }


def test_resource_attributes_are_reported_once_per_batch() -> None:
    spans = [make_span(S1), make_span(S2), make_span(S3)]
    out = redact_spans(spans, profile="share")
    assert [f.path for f in out.report.findings] == [
        f"span:{S1}/resource/attributes/owner.email",
        f"span:{S1}/scope/attributes/scope.token",
    ]
    for span in out.spans:
        assert span.resource["owner.email"] == "[REDACTED:personal-data-key]"
        assert span.attributes["owner.email"] == "[REDACTED:personal-data-key]"
        assert span.scope is not None and span.scope.attributes["scope.token"] == (
            "[REDACTED:credential-key]"
        )
    verdict = assess_spans(spans, profile="share")
    assert [(f.detector, f.count, f.paths) for f in verdict.findings] == [
        ("personal-data-key", 1, (f"span:{S1}/resource/attributes/owner.email",)),
        ("credential-key", 1, (f"span:{S1}/scope/attributes/scope.token",)),
    ]


def test_two_resources_in_one_batch_are_reported_once_each() -> None:
    other = {"service.name": "svc-2", "owner.email": MANAGER_EMAIL}
    spans = [make_span(S1), make_span(S2, resource=other), make_span(S3)]
    out = redact_spans(spans, profile="share")
    assert [f.path for f in out.report.findings if "/resource/" in f.path] == [
        f"span:{S1}/resource/attributes/owner.email",
        f"span:{S2}/resource/attributes/owner.email",
    ]
    assert out.spans[1].resource["service.name"] == "svc-2"


def test_spans_that_alternate_between_resources_and_scopes_keep_their_own() -> None:
    # Consecutive spans of one resource and scope share a group; a span whose resource or
    # scope differs from the one before (even by a scope's attributes alone) never rides on it.
    other = {"service.name": "svc-2", "owner.email": MANAGER_EMAIL}
    token_scope = Scope("agent", "1.0", {"scope.token": "plain-looking"})
    plain_scope = Scope("agent", "1.0", {"scope.note": "plain"})
    spans = [
        make_span(S1, scope=plain_scope),
        make_span(S2, resource=other, scope=plain_scope),
        make_span(S3, scope=plain_scope),
        make_span("4" * 16, scope=token_scope),
        make_span("5" * 16, scope=plain_scope),
    ]
    out = redact_spans(spans, profile="share")
    assert [span.resource["service.name"] for span in out.spans] == ["svc", "svc-2"] + ["svc"] * 3
    assert all(span.resource["owner.email"].startswith("[REDACTED") for span in out.spans)
    assert [dict(span.scope.attributes) for span in out.spans if span.scope] == [
        {"scope.note": "plain"},
        {"scope.note": "plain"},
        {"scope.note": "plain"},
        {"scope.token": "[REDACTED:credential-key]"},
        {"scope.note": "plain"},
    ]
    assert [f.path for f in out.report.findings] == [
        f"span:{S1}/resource/attributes/owner.email",
        f"span:{S2}/resource/attributes/owner.email",
        f"span:{'4' * 16}/resource/attributes/owner.email",
        f"span:{'4' * 16}/scope/attributes/scope.token",
    ]
    verdict = assess_spans(spans, profile="share")
    assert sorted((f.detector, f.count) for f in verdict.findings) == [
        ("credential-key", 1),
        ("personal-data-key", 3),
    ]


def copied(value: Any) -> Any:
    """Equal values in new objects, as a reader builds them from another record of a file."""
    return json.loads(json.dumps(value))


def test_a_resource_read_from_two_records_is_reported_once() -> None:
    first = make_span(S1, resource=copied(RESOURCE), scope=None)
    second = make_span(S2, resource=copied(RESOURCE), scope=None)
    assert first.resource["owner.email"] is not second.resource["owner.email"]
    out = redact_spans([first, second], profile="share")
    assert [f.path for f in out.report.findings] == [f"span:{S1}/resource/attributes/owner.email"]
    assert all(
        span.attributes["owner.email"] == "[REDACTED:personal-data-key]" for span in out.spans
    )
    verdict = assess_spans([first, second], profile="share")
    assert [(f.detector, f.count) for f in verdict.findings] == [("personal-data-key", 1)]


def test_an_own_value_equal_to_the_resources_but_of_another_class_stays_its_own() -> None:
    resource = {"owner.email": OWNER_EMAIL, "retries": 1, "ratio": 0.0}
    span = make_span(S1, resource=resource, scope=None, attributes={"retries": True, "ratio": -0.0})
    out = redact_spans([span, make_span(S2, resource=resource, scope=None)], profile="share")
    assert out.spans[0].attributes["retries"] is True
    assert str(out.spans[0].attributes["ratio"]) == "-0.0"
    assert out.spans[1].attributes["retries"] == 1


@pytest.mark.parametrize(
    "attributes",
    [
        {"a": "plain", "reasons": ["stop", "mail " + CUSTOMER_EMAIL], "n": 3},
        {"reasons": ["stop"], "note": "mail " + CUSTOMER_EMAIL, "n": 3},
        {"reasons": ["stop"], "nested": {"deep": "mail " + CUSTOMER_EMAIL}},
        {"nested": {"deep": "plain"}, "reasons": ["x", "y"], "note": "x " + OPENAI_KEY},
        {"cmd": ["sshpass", "-p", DB_PASSWORD, "ssh", "host"], "n": 1},
    ],
    ids=["in-list", "beside-list", "in-mapping", "beside-mapping", "arguments"],
)
def test_a_secret_beside_or_inside_a_list_value_is_found(attributes: dict[str, Any]) -> None:
    plain = {"resource": {"service.name": "svc"}, "scope": Scope("agent", "1")}
    clean = make_span(S1, attributes={"reasons": ["stop"], "n": 3, "note": "plain"}, **plain)
    dirty = make_span(S2, attributes=attributes, **plain)
    out = redact_spans([clean, dirty], profile="share")
    assert out.spans[0] is clean
    assert out.spans[1] is not dirty
    leaked = json.dumps(dict(out.spans[1].attributes))
    for secret in (CUSTOMER_EMAIL, OPENAI_KEY, DB_PASSWORD):
        assert secret not in leaked
    verdict = assess_spans([clean, dirty], profile="share")
    assert any(
        path.startswith(f"span:{S2}/attributes/") for f in verdict.findings for path in f.paths
    )


IDENTIFIED = {"user.id": "u-1001", "enduser.id": "u-1001"}
PSEUDONYM = re.compile(r"\[ID:[0-9a-f]{12}\]\Z")


def pseudonyms(spans: Sequence[Span]) -> list[str]:
    return [span.attributes[key] for span in spans for key in IDENTIFIED]


def test_pseudonyms_agree_across_spans_of_a_batch() -> None:
    spans = [
        make_span(S1, attributes=IDENTIFIED),
        make_span(S2, attributes={"user.id": "u-1001", "enduser.id": "u-2"}),
    ]
    out = redact_spans(spans, profile="share")
    first, second = out.spans
    assert PSEUDONYM.match(first.attributes["user.id"])
    assert (
        first.attributes["user.id"]
        == first.attributes["enduser.id"]
        == second.attributes["user.id"]
    )
    assert second.attributes["enduser.id"] != second.attributes["user.id"]
    assert [f.action for f in out.report.findings if f.detector == "identifier-key"] == [
        "pseudonymized"
    ] * 4
    assert "u-1001" not in to_otlp_json(out.spans).decode()


def test_pseudonyms_agree_across_batches_only_with_the_same_key() -> None:
    batch = [make_span(S1, attributes=IDENTIFIED)]
    key = b"k" * 32
    with_key = [redact_spans(batch, profile="share", pseudonym_key=key) for _ in range(2)]
    assert pseudonyms(with_key[0].spans) == pseudonyms(with_key[1].spans)
    # A str key is its UTF-8 bytes.
    as_text = redact_spans(batch, profile="share", pseudonym_key="k" * 32)
    assert pseudonyms(as_text.spans) == pseudonyms(with_key[0].spans)
    other_key = redact_spans(batch, profile="share", pseudonym_key=b"o" * 32)
    assert pseudonyms(other_key.spans)[0] != pseudonyms(with_key[0].spans)[0]
    random_keys = [redact_spans(batch, profile="share") for _ in range(2)]
    assert pseudonyms(random_keys[0].spans)[0] != pseudonyms(random_keys[1].spans)[0]
    assert all(
        PSEUDONYM.match(p)
        for r in (*with_key, other_key, *random_keys)
        for p in pseudonyms(r.spans)
    )


def test_strict_removes_status_messages() -> None:
    span = make_span(S1, status="error", status_message="order service unavailable")
    strict = redact_spans([span], profile="strict").spans[0]
    assert strict.status_message == "[REDACTED:raw-content-key]"
    assert strict.status == "error"
    assert (f"span:{S1}/status/message", "raw-content-key") in {
        (f.path, f.detector) for f in redact_spans([span], profile="strict").report.findings
    }
    assert redact_spans([span], profile="share").spans[0].status_message == (
        "order service unavailable"
    )
    # Under strict a status message that is not a placeholder is an error (§B12).
    verdict = assess_spans([span], profile="strict")
    assert verdict.status is ShareStatus.UNSAFE
    assert [(f.detector, f.paths) for f in verdict.findings if f.category == "raw-content"] == [
        ("raw-content-key", (f"span:{S1}/status/message",))
    ]
    assert share_allowed(assess_spans([strict], profile="strict"))


def test_source_record_attributes_are_dropped() -> None:
    span = make_span(
        S1,
        resource={},
        scope=None,
        attributes={
            "traces.source_record.raw": f'{{"user": "{CUSTOMER_EMAIL}"}}',
            "traces.source_record.line": 7,
            "traces.source_record": "kept: not under the prefix",
            "note": "mail " + CUSTOMER_EMAIL,
        },
    )
    out = redact_spans([span], profile="share")
    assert dict(out.spans[0].attributes) == {
        "traces.source_record": "kept: not under the prefix",
        "note": "mail [REDACTED:email]",
    }
    assert CUSTOMER_EMAIL.encode() not in to_otlp_json(out.spans)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def io_span(span_id: str, value: Any, **extra: Any) -> Span:
    size = len(value.encode()) if isinstance(value, str) else 0
    digest = sha256(value) if isinstance(value, str) else "0" * 64
    return make_span(
        span_id,
        resource={},
        scope=None,
        attributes={
            "input.value": value,
            "input.mime_type": "text/plain",
            "traces.input.bytes": size,
            "traces.input.sha256": digest,
            "traces.input.truncated": False,
            **extra,
        },
    )


def test_tool_io_metadata_describes_the_redacted_value() -> None:
    # §B14 step 3: no size or digest of a removed secret survives.
    original = f"refund for {CUSTOMER_EMAIL}"
    out = redact_spans([io_span(S1, original)], profile="share").spans[0]
    redacted = "refund for [REDACTED:email]"
    assert out.attributes["input.value"] == redacted
    assert out.attributes["traces.input.bytes"] == len(redacted.encode())
    assert out.attributes["traces.input.sha256"] == sha256(redacted)
    assert out.attributes["traces.input.truncated"] is False
    assert out.attributes["input.mime_type"] == "text/plain"
    assert sha256(original) not in to_otlp_json([out]).decode()


def test_tool_io_over_16_kib_is_capped_and_flagged() -> None:
    value = "x" * 20_000 + " " + CUSTOMER_EMAIL
    out = redact_spans([io_span(S1, value)], profile="default").spans[0]
    redacted = "x" * 20_000 + " [REDACTED:email]"
    kept = redacted[:16_384]
    expected = f"{kept}\n[truncated {len(redacted) - 16_384} bytes]"
    assert out.attributes["input.value"] == expected
    assert out.attributes["traces.input.bytes"] == len(expected.encode())
    assert out.attributes["traces.input.sha256"] == sha256(expected)
    assert out.attributes["traces.input.truncated"] is True


def test_tool_io_legacy_truncation_suffix_is_rewritten() -> None:
    value = f"for {CUSTOMER_EMAIL}\n[truncated 120 bytes; sha256=" + "ab" * 32 + "]"
    out = redact_spans([io_span(S1, value)], profile="share").spans[0]
    assert out.attributes["input.value"] == "for [REDACTED:email]\n[truncated]"
    assert out.attributes["traces.input.sha256"] == sha256("for [REDACTED:email]\n[truncated]")


def test_tool_io_that_is_not_a_string_loses_its_metadata() -> None:
    out = redact_spans([io_span(S1, 42, note="mail " + CUSTOMER_EMAIL)], profile="share").spans[0]
    assert dict(out.attributes) == {"input.value": 42, "note": "mail [REDACTED:email]"}


def test_clean_spans_are_returned_unchanged() -> None:
    clean = [
        make_span(
            S1,
            resource={"service.name": "svc"},
            scope=Scope("agent", "1"),
            attributes={"gen_ai.usage.input_tokens": 12, "gen_ai.tool.name": "lookup_order"},
        ),
        make_span(
            S2,
            resource={"service.name": "svc"},
            scope=Scope("agent", "1"),
            events=(Event("retry", 12, {"attempt": 2}),),
        ),
    ]
    dirty = make_span(
        S3,
        resource={"service.name": "svc"},
        scope=Scope("agent", "1"),
        attributes={"note": "mail " + CUSTOMER_EMAIL},
    )
    out = redact_spans([*clean, dirty], profile="share")
    assert out.spans[0] is clean[0] and out.spans[1] is clean[1]
    assert out.spans[2] is not dirty
    assert [f.path for f in out.report.findings] == [f"span:{S3}/attributes/note"]
    assert redact_spans(clean, profile="strict").report.findings == ()
    # The input is never mutated.
    assert dirty.attributes["note"] == "mail " + CUSTOMER_EMAIL


# --- scrub_spans: the gate every shipping path runs ---------------------------------------------

AUDIO_URI = "data:audio/wav;base64," + b64(b"RIFF\x24\x00\x00\x00WAVEfmt ")


def test_scrub_keeps_safe_spans_and_drops_one_still_unsafe_after_redaction() -> None:
    # What can remain unsafe after redaction? Under `share` a media data URI is not replaced
    # (§B2: only strict replaces media), and an audio data URI cannot be read, so the redacted
    # span is still UNKNOWN (§B10): redaction leaves it, the gate must hold it back.
    safe = make_span(S1, attributes={"note": "mail " + CUSTOMER_EMAIL})
    clean = make_span(S2)
    audio = make_span(S3, attributes={"gen_ai.input.audio": AUDIO_URI})
    result = scrub_spans([safe, clean, audio], profile="share")
    assert [span.span_id for span in result.kept] == [S1, S2]
    assert result.kept[0].attributes["note"] == "mail [REDACTED:email]"
    assert result.kept[0].resource["owner.email"] == "[REDACTED:personal-data-key]"
    # The second span, though clean itself, is judged with its (redacted) resource and scope.
    assert result.kept[1].resource["owner.email"] == "[REDACTED:personal-data-key]"
    (dropped,) = result.dropped
    assert (dropped.trace_id, dropped.span_id) == ("a" * 32, S3)
    assert dropped.verdict.status is ShareStatus.UNKNOWN
    assert dropped.verdict.unreadable == (
        f"span:{S3}/attributes/gen_ai.input.audio: audio/wav data URI cannot be read",
    )
    assert AUDIO_URI not in repr(dropped)  # identity and verdict only, never the content
    assert {f.path for f in result.report.findings} >= {
        f"span:{S1}/attributes/note",
        f"span:{S1}/resource/attributes/owner.email",
    }


def test_scrub_under_strict_replaces_media_and_keeps_the_span() -> None:
    audio = make_span(S3, attributes={"gen_ai.input.audio": AUDIO_URI})
    result = scrub_spans([audio], profile="strict")
    assert result.dropped == ()
    assert result.kept[0].attributes["gen_ai.input.audio"] == "[REDACTED:media]"


class Opaque:
    """A value of a type span attributes never hold."""


def test_unreadable_values_become_markers_and_the_span_is_kept() -> None:
    # Binary and unsupported-type values make the *input* UNKNOWN (A1), but redaction turns
    # them into markers that are placeholders, so the redacted span is safe and kept: for
    # these, nothing unsafe remains after redaction.
    span = make_span(
        S1,
        resource={},
        scope=None,
        attributes={
            "payload": b"\x00\x01binary",
            "thing": Opaque(),
            "nested": {"deep": bytearray(b"x")},
        },
    )
    verdict = assess_spans([span], profile="share")
    assert verdict.status is ShareStatus.UNKNOWN
    assert verdict.unreadable == (
        f"span:{S1}/attributes/payload: binary data",
        f"span:{S1}/attributes/thing: a value of type Opaque cannot be read",
        f"span:{S1}/attributes/nested/deep: binary data",
    )
    result = scrub_spans([span], profile="share")
    assert result.dropped == ()
    (kept,) = result.kept
    assert dict(kept.attributes) == {
        "payload": "[REDACTED:binary]",
        "thing": "[REDACTED:unsupported-type]",
        "nested": {"deep": "[REDACTED:binary]"},
    }
    assert [(f.path, f.category, f.detector) for f in result.report.findings] == [
        (f"span:{S1}/attributes/payload", "media", "binary"),
        (f"span:{S1}/attributes/thing", "raw-content", "unsupported-type"),
        (f"span:{S1}/attributes/nested/deep", "media", "binary"),
    ]


def test_scrub_with_known_secrets() -> None:
    span = make_span(S1, resource={}, scope=None, attributes={"note": "deploy " + KNOWN})
    result = scrub_spans([span], profile="share", known_secrets=[KNOWN])
    assert result.kept[0].attributes["note"] == "deploy [REDACTED:known-secret]"
    # Without the known secret the opaque value has no shape to find: it passes (B9).
    assert scrub_spans([span], profile="share").kept[0] is span


# --- the recorded leaky runs --------------------------------------------------------------------


def fixture_spans(instrumentation: str, suffix: str) -> list[Span]:
    (trace,) = read_traces(FIXTURES / instrumentation / f"leaky.otlp.{suffix}")
    return list(trace.spans)


FIXTURE_PLANTED = (
    CUSTOMER_EMAIL,
    MANAGER_EMAIL,
    OWNER_EMAIL,
    PHONE,
    CARD_NUMBER,
    OPENAI_KEY,
    BEARER_TOKEN,
    DB_PASSWORD,
    AWS_KEY_ID,
    _b64url({"alg": "HS256", "typ": "JWT"}) + ".",  # the JWT header segment
    "FAKE" + "signature" + "0123456789",
    KNOWN,
    b64(KNOWN.encode()),
)


def leaky_params() -> Iterator[Any]:
    for instrumentation in INSTRUMENTATIONS:
        for suffix in ("jsonl", "pb"):
            yield pytest.param(instrumentation, suffix, id=f"{instrumentation}-{suffix}")


@pytest.mark.parametrize(("instrumentation", "suffix"), list(leaky_params()))
def test_leaky_fixture_redacts_clean(instrumentation: str, suffix: str) -> None:
    spans = fixture_spans(instrumentation, suffix)
    planted = to_otlp_json(spans)
    assert [v for v in FIXTURE_PLANTED if v.encode() not in planted] == []
    out = redact_spans(spans, profile="share", known_secrets=[KNOWN])
    for data in (to_otlp_json(out.spans), to_otlp_proto(out.spans)):
        assert [v for v in FIXTURE_PLANTED if v.encode() in data] == []
        assert leaks(data) == []
    assert [identity(s) for s in out.spans] == [identity(s) for s in spans]
    assert share_allowed(assess_spans(out.spans, profile="share", known_secrets=[KNOWN]))

    failing = next(s for s in spans if s.status == "error")
    paths = {f.path for f in out.report.findings}
    assert {
        f"span:{failing.span_id}/status/message",
        f"span:{failing.span_id}/events/0/attributes/exception.message",
        f"span:{failing.span_id}/events/0/attributes/exception.stacktrace",
    } <= paths
    owner = [p for p in paths if p.endswith("/resource/attributes/deployment.owner.email")]
    assert len(owner) == 1  # once per batch, not once per span
    assert all(
        s.resource["deployment.owner.email"] == "[REDACTED:personal-data-key]" for s in out.spans
    )


@pytest.mark.parametrize("instrumentation", INSTRUMENTATIONS)
def test_leaky_fixture_scrubs_without_dropping(instrumentation: str) -> None:
    spans = fixture_spans(instrumentation, "jsonl")
    result = scrub_spans(spans, profile="share", known_secrets=[KNOWN])
    assert result.dropped == ()
    assert [s.span_id for s in result.kept] == [s.span_id for s in spans]
    assert leaks(to_otlp_proto(result.kept)) == []
    # Without the known secret nothing is found as one (the opaque value has no shape); here it
    # still goes, because every string that holds it also holds a bearer token and is
    # replaced whole.
    unknown = scrub_spans(spans, profile="share")
    assert "known-secret" not in {f.detector for f in unknown.report.findings}
    assert len(unknown.kept) == len(spans)


@pytest.mark.parametrize("instrumentation", INSTRUMENTATIONS)
def test_leaky_fixture_under_strict(instrumentation: str) -> None:
    spans = fixture_spans(instrumentation, "pb")
    out = redact_spans(spans, profile="strict", known_secrets=[KNOWN])
    failing = next(s for s in out.spans if s.status == "error")
    assert failing.status_message == "[REDACTED:raw-content-key]"
    assert share_allowed(assess_spans(out.spans, profile="strict", known_secrets=[KNOWN]))
    data = gzip.compress(to_otlp_proto(out.spans))  # the bytes a shipper would send
    assert leaks(gzip.decompress(data)) == []


def test_the_leak_search_sees_a_leak() -> None:
    # The needle search must see a leak when there is one (guards `leaks` itself).
    assert leaks(("x " + lower_percent(quote(KNOWN_2, safe="")) + " y").encode()) != []
    payload = b64(b"<" + KNOWN.encode() + b"~!")
    assert leaks(f"in prose {payload} here".encode()) != []


@pytest.mark.parametrize("secret", [KNOWN_2, 'pa"ss' + "word!9"], ids=["non-ascii", "quote"])
def test_a_known_secret_in_json_inside_a_json_string(secret: str) -> None:
    arguments = json.dumps({"note": "deploy with " + secret})
    messages = json.dumps(
        [
            {
                "role": "assistant",
                "parts": [{"type": "tool_call", "name": "deploy", "arguments": arguments}],
            }
        ]
    )
    span = make_span(S1, resource={}, scope=None, attributes={"gen_ai.input.messages": messages})
    out = redact_spans([span], profile="share", known_secrets=[secret]).spans[0]
    decoded = json.loads(
        json.loads(out.attributes["gen_ai.input.messages"])[0]["parts"][0]["arguments"]
    )
    assert secret not in decoded["note"]


def test_a_resource_with_an_array_value_is_reported_once_per_batch(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource.create(
            {"owner.email": OWNER_EMAIL, "process.command_args": ["run", "--notify", OWNER_EMAIL]}
        )
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("agent")
    with tracer.start_as_current_span("root"):
        for i in range(3):
            with tracer.start_as_current_span(f"step {i}"):
                pass
    provider.shutdown()
    spans = spans_from_otel(exporter.get_finished_spans())
    path = tmp_path / "run.otlp.json"
    path.write_bytes(to_otlp_json(spans))
    (trace,) = read_traces(path)
    for batch in (spans, list(trace.spans)):
        out = redact_spans(batch, profile="share")
        assert len(out.report.findings) == 2  # owner.email and process.command_args/2, once
        verdict = assess_spans(batch, profile="share")
        # owner.email, process.command_args (raw content: `args`) and the e-mail inside it.
        assert [f.count for f in verdict.findings] == [1, 1, 1]


def twin_numbers(card_is_int: bool) -> tuple[int, float]:
    """An integer and the equal float, only one of which reads as a card number: JavaScript
    writes the float with its shortest digits, padded with zeros."""
    number = 4 * 10**18
    while True:
        number += 512  # floats are 512 apart here, so each of these is one exactly
        twin = float(number)
        if is_card_number(number if card_is_int else twin) and not is_card_number(
            twin if card_is_int else number
        ):
            return number, twin


@pytest.mark.parametrize("card_is_int", [True, False], ids=["int-card", "float-card"])
def test_a_card_number_equal_to_an_earlier_number_of_the_other_type_is_found(
    card_is_int: bool,
) -> None:
    # One set holds both as one value: the card must not pass because its twin did.
    number, twin = twin_numbers(card_is_int)
    card, other = (number, twin) if card_is_int else (twin, number)
    plain = {"resource": {"service.name": "svc"}, "scope": None}
    spans = [
        make_span(S1, attributes={"x": other}, **plain),
        make_span(S2, attributes={"y": card}, **plain),
    ]
    out = redact_spans(spans, profile="share")
    assert out.spans[1].attributes["y"] == "[REDACTED:card-number]"
    assert out.spans[0].attributes["x"] == other
    verdict = assess_spans(spans, profile="share")
    assert [(f.detector, f.paths) for f in verdict.findings] == [
        ("card-number", (f"span:{S2}/attributes/y",))
    ]


@pytest.mark.parametrize("card_is_int", [True, False], ids=["int-card", "float-card"])
def test_a_resource_equal_to_the_last_but_for_a_value_s_type_is_its_own(card_is_int: bool) -> None:
    # {"n": 4000000000000005120} == {"n": 4.000000000000005e+18}: one group would judge the
    # second resource by the first, and pass the card.
    number, twin = twin_numbers(card_is_int)
    card, other = (number, twin) if card_is_int else (twin, number)
    spans = [
        make_span(S1, resource={"n": other}, scope=None),
        make_span(S2, resource={"n": card}, scope=None),
        make_span(S3, resource={"n": True}, scope=None),
        make_span("4" * 16, resource={"n": 1}, scope=None),
    ]
    out = redact_spans(spans, profile="share")
    assert [span.resource["n"] for span in out.spans] == [other, "[REDACTED:card-number]", True, 1]
    assert [type(span.resource["n"]) for span in out.spans[2:]] == [bool, int]
    verdict = assess_spans(spans, profile="share")
    assert [(f.detector, f.paths) for f in verdict.findings] == [
        ("card-number", (f"span:{S2}/resource/attributes/n",))
    ]


def test_resources_that_differ_only_in_a_zero_s_sign_keep_their_own() -> None:
    spans = [
        make_span(S1, resource={"owner.email": OWNER_EMAIL, "x": 0.0}, scope=None),
        make_span(S2, resource={"owner.email": OWNER_EMAIL, "x": -0.0}, scope=None),
    ]
    out = redact_spans(spans, profile="share")
    assert [str(span.resource["x"]) for span in out.spans] == ["0.0", "-0.0"]
