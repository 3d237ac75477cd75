"""Properties of the redactor (hypothesis): idempotent, never raises, leaves nothing it flags,
never touches numbers, ids or times."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redact import ShareStatus, assess, assess_spans, redact, redact_spans
from redact.detectors.personal import is_card_number
from tracecheck.spans import Event, Span

# Credential-shaped fragments, assembled at run time.
SECRETS = [
    "sk-" + "proj-" + "abcdEFGH1234ijklMNOP5678qrst",
    "gh" + "p_" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "AK" + "IA" + "IOSFODNN7EXAMPLE",
    "xo" + "xb-" + "1234567890-abcdefghijklmnop",
    "ey" + "JhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6y",
    "postgres://app:" + "s3cr3tPassw0rd@db.internal/app",
]
KNOWN = "zq9 Opaque/Deploy Key 77"
FRAGMENTS = [
    *SECRETS,
    KNOWN,
    "ada@example.test",
    "4111 1111 1111 1111",
    "(415) 555-2671",
    "Bearer ",
    "password=",
    "token: ",
    "[REDACTED:x] ",
    "data:text/plain;base64,",
    "\n",
    " ",
    "é",
    "😀",
    "\ud800",
    "@",
    "sk-",
    "12",
    "-",
]

# Fragments meet at a separator, as words do in span text: detectors with a left boundary do not
# look inside `...testsk-...`, a trade made in the detectors against false positives.
text = st.tuples(
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=8),
    st.sampled_from([" ", "\n", "=", ": ", '"', "/"]),
).map(lambda parts: parts[1].join(parts[0]))
keys = st.one_of(
    st.sampled_from(["apiKey", "email", "userId", "prompt", "max_tokens", "note", "phone", "x"]),
    text,
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    text,
    st.binary(max_size=4),
    st.just(datetime.date(2026, 1, 2)),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=20,
)
profiles = st.sampled_from(["default", "share", "strict"])
KEY = b"k" * 32


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(values, profiles)
def test_redaction_is_idempotent(value: Any, profile: str) -> None:
    once = redact(value, profile=profile, known_secrets=[KNOWN], pseudonym_key=KEY).value
    twice = redact(once, profile=profile, known_secrets=[KNOWN], pseudonym_key=KEY).value
    assert twice == once


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(values, profiles)
def test_the_redacted_output_holds_no_credential_or_known_secret(value: Any, profile: str) -> None:
    out = redact(value, profile=profile, known_secrets=[KNOWN]).value
    verdict = assess(out, profile=profile, known_secrets=[KNOWN])
    assert not [f for f in verdict.findings if f.category == "credential"]
    rendered = repr(out)
    for secret in (*SECRETS, KNOWN):
        assert secret not in rendered


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(values, profiles)
def test_cycles_and_bytes_never_raise(value: Any, profile: str) -> None:
    cycle: dict[str, Any] = {"v": value}
    cycle["me"] = [cycle, value]
    out = redact(cycle, profile=profile)
    assert out.value["me"][0] == "[REDACTED:circular]"
    assert assess(cycle, profile=profile).status is ShareStatus.UNKNOWN


def _numbers(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers(item)]
    if isinstance(value, list):
        return [n for item in value for n in _numbers(item)]
    return [value] if isinstance(value, int | float) and not isinstance(value, bool) else []


# Numbers survive anywhere but under personal-data and identifier keys (which remove or
# pseudonymize a number as they would a string) and inside containers that a credential or
# raw-content key replaces whole, unless they read as a card number (which goes as its string
# form would).
number_keys = st.sampled_from(["password_max_age", "max_tokens", "duration_ms", "n", "x"])
numbers = st.recursive(
    st.one_of(st.integers(), st.floats(allow_nan=False), text),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(number_keys, inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(numbers, profiles)
def test_numbers_are_unchanged(value: Any, profile: str) -> None:
    expected = [n for n in _numbers(value) if not is_card_number(n)]
    assert _numbers(redact(value, profile=profile).value) == expected


@pytest.mark.parametrize(
    ("number", "card"),
    [
        (4111111111111111, True),
        (4111111111111111.0, True),
        (4111111111111112, False),
        # Written as JavaScript writes it, 47376375487874130: not Luhn-valid, so not a card,
        # although the float's exact value (47376375487874128) would be.
        (4.737637548787413e16, False),
        (-4111111111111111, False),
    ],
)
def test_a_number_is_a_card_as_it_is_written(number: float, card: bool) -> None:
    assert is_card_number(number) is card
    assert (redact({"n": number}).value["n"] == "[REDACTED:card-number]") is card


attributes = st.dictionaries(
    keys, st.one_of(text, st.integers(), st.booleans(), st.lists(text, max_size=3)), max_size=5
)


@st.composite
def spans(draw: st.DrawFn) -> Span:
    start = draw(st.integers(min_value=0, max_value=2**63))
    return Span(
        trace_id=draw(st.sampled_from(["0af7651916cd43dd8448eb211c80319c", None])),
        span_id=draw(st.from_regex(r"[0-9a-f]{16}", fullmatch=True)),
        parent_span_id=draw(st.one_of(st.none(), st.from_regex(r"[0-9a-f]{16}", fullmatch=True))),
        name=draw(text),
        start_ns=start,
        end_ns=start + draw(st.integers(min_value=0, max_value=10**12)),
        status=draw(st.sampled_from([None, "ok", "error"])),
        status_message=draw(st.one_of(st.none(), text)),
        attributes=draw(attributes),
        events=tuple(
            Event(draw(text), start, draw(attributes)) for _ in range(draw(st.integers(0, 2)))
        ),
        resource=draw(attributes),
        otlp_kind=draw(st.integers(0, 5)),
    )


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(spans(), max_size=4), profiles)
def test_span_redaction_keeps_identity_and_time_and_leaves_nothing_flagged(
    batch: list[Span], profile: str
) -> None:
    out = redact_spans(batch, profile=profile, known_secrets=[KNOWN]).spans
    assert [
        (s.trace_id, s.span_id, s.parent_span_id, s.start_ns, s.end_ns, s.status, s.otlp_kind)
        for s in out
    ] == [
        (s.trace_id, s.span_id, s.parent_span_id, s.start_ns, s.end_ns, s.status, s.otlp_kind)
        for s in batch
    ]
    verdict = assess_spans(out, profile=profile, known_secrets=[KNOWN])
    assert not [f for f in verdict.findings if f.category == "credential"]


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(spans(), max_size=4), profiles)
def test_the_batch_prescan_changes_no_result(batch: list[Span], profile: str) -> None:
    # The prescan only decides what needs a closer look; judging every string on its own must
    # give the same spans, report and verdict.
    from redact.inspector import Inspector

    def run() -> tuple[Any, ...]:
        out = redact_spans(batch, profile=profile, known_secrets=[KNOWN], pseudonym_key=KEY)
        verdict = assess_spans(batch, profile=profile, known_secrets=[KNOWN])
        return out.spans, out.report, verdict

    fast = run()
    prescan = Inspector.prescan
    Inspector.prescan = lambda self, strings, scalars=(): None  # type: ignore[method-assign]
    try:
        slow = run()
    finally:
        Inspector.prescan = prescan  # type: ignore[method-assign]
    assert fast == slow


@pytest.mark.parametrize("profile", ["default", "share", "strict"])
@pytest.mark.parametrize("text", ["x" * 3_000, "é" * 1_000, "ab😀" * 400])
def test_a_value_cut_at_the_size_cap_is_not_cut_again(text: str, profile: str) -> None:
    once = redact({"a": text}, profile=profile, max_string_bytes=1_000)
    twice = redact(once.value, profile=profile, max_string_bytes=1_000)
    assert "…[truncated " in once.value["a"]
    assert twice.value == once.value
    assert not twice.report.findings


# Found by a longer run of the idempotence property: a marker or pseudonym written into a key
# completed a credential shape there, which the second redaction then cut.
@pytest.mark.parametrize("profile", ["default", "share", "strict"])
@pytest.mark.parametrize(
    "key",
    [
        "password==password==ada@example.test=ada@example.test",
        "password==password==A=ada@example.test",
    ],
)
def test_a_key_rewritten_for_personal_data_is_judged_again(key: str, profile: str) -> None:
    once = redact({key: None}, profile=profile, pseudonym_key=KEY)
    twice = redact(once.value, profile=profile, pseudonym_key=KEY)
    assert twice.value == once.value
    assert not twice.report.findings
