"""The four personal-data shapes (spec §B5.2), replaced in place, with the Part A4 e-mail fix,
and the opt-in shapes a profile may enable (A8)."""

from __future__ import annotations

import re

import pytest
from detector_support import assert_linear_time, assert_prefilter_covers, texts_around
from hypothesis import strategies as st

from redact.detectors import (
    OPT_IN_DETECTORS,
    PERSONAL_DETECTORS,
    Detector,
    detector,
    replace_personal_data,
)
from redact.detectors.personal import is_card_number
from redact.engine import re2

EVERY_SHAPE = PERSONAL_DETECTORS + OPT_IN_DETECTORS


def _iban(country: str, bban: str, *, grouped: bool = False) -> str:
    """A fake IBAN with correct ISO 7064 check digits, built here rather than written down."""
    digits = "".join(str(int(c, 36)) for c in bban + country + "00")
    iban = f"{country}{98 - int(digits) % 97:02d}{bban}"
    return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4)) if grouped else iban


_GB_IBAN = _iban("GB", "WEST12345698765432")
_DE_IBAN_GROUPED = _iban("DE", "500105175407324931", grouped=True)
_BAD_CHECK_IBAN = _GB_IBAN[:2] + f"{(int(_GB_IBAN[2:4]) + 1) % 100:02d}" + _GB_IBAN[4:]

# (detector id, text, the text after replacement, why)
POSITIVES: list[tuple[str, str, str, str]] = [
    (
        "email",
        "Contact jane.doe@example.test about the refund",
        "Contact [REDACTED:email] about the refund",
        "plain",
    ),
    ("email", "mailto:ops@tangle.tools", "mailto:[REDACTED:email]", "mailto"),
    ("email", "write to jane@clinic.md today", "write to [REDACTED:email] today", "a4-md"),
    ("email", "ops@app.rs", "[REDACTED:email]", "a4-rs"),
    ("email", "admin@host.sh.", "[REDACTED:email].", "a4-sh"),
    ("email", "info@empresa.com.py", "[REDACTED:email]", "a4-py"),
    ("email", "Jane@Clinic.md", "[REDACTED:email]", "a4-capitalised-host"),
    ("email", "user@163.com", "[REDACTED:email]", "digit-led-host-real-tld"),
    ("email", "..al@b.io", "..[REDACTED:email]", "starts-at-first-word-char"),
    (
        "email",
        "jane@x.com+bob@y.com",
        "[REDACTED:email][REDACTED:email]",
        "resumes-at-boundary",
    ),
    (
        "card-number",
        "card 4111 1111 1111 1111 exp 12/29",
        "card [REDACTED:card-number] exp 12/29",
        "spaces",
    ),
    ("card-number", "4111-1111-1111-1111", "[REDACTED:card-number]", "hyphens"),
    (
        "card-number",
        "paid with 4111111111111111 today",
        "paid with [REDACTED:card-number] today",
        "unbroken",
    ),
    (
        "card-number",
        "amex 3782 822463 10005 on file",
        "amex [REDACTED:card-number] on file",
        "amex",
    ),
    ("card-number", "mc 5555555555554444.", "mc [REDACTED:card-number].", "mastercard"),
    ("card-number", "6011111111111117", "[REDACTED:card-number]", "discover"),
    ("card-number", "4111 1111 1111 1111 003", "[REDACTED:card-number]", "fifth-group"),
    ("ssn", "SSN 123-45-6789 on file", "SSN [REDACTED:ssn] on file", "plain"),
    ("ssn", "(123-45-6789)", "([REDACTED:ssn])", "in-brackets"),
    ("phone", "call (415) 555-2671 after 5pm", "call [REDACTED:phone] after 5pm", "parens"),
    ("phone", "415 555 2671", "[REDACTED:phone]", "spaces"),
    ("phone", "(415)555-2671", "[REDACTED:phone]", "parens-no-space"),
    ("phone", "tel +1-415-555-2671.", "tel [REDACTED:phone].", "plus-one"),
    ("phone", "+1 415.555.2671", "[REDACTED:phone]", "dots"),
    ("phone", "415\u00a0555\u00a02671", "[REDACTED:phone]", "nbsp"),
    # Issue 31 (Part A, beyond the reference): E.164 written without separators, as APIs and
    # forms store numbers, is a phone number too.
    ("phone", "call +14155552671 now", "call [REDACTED:phone] now", "e164-nanp"),
    ("phone", '{"to": "+447911123456"}', '{"to": "[REDACTED:phone]"}', "e164-uk"),
    ("iban", f"refund to {_GB_IBAN} today", "refund to [REDACTED:iban] today", "compact"),
    ("iban", f"IBAN: {_DE_IBAN_GROUPED}.", "IBAN: [REDACTED:iban].", "printed-groups"),
    (
        "ipv4-address",
        "login from 203.0.113.42 failed",
        "login from [REDACTED:ipv4-address] failed",
        "plain",
    ),
    ("ipv4-address", "client=198.51.100.7:443", "client=[REDACTED:ipv4-address]:443", "port"),
    (
        "ipv4-address",
        "hosts 10.0.0.1, 10.0.0.2.",
        "hosts [REDACTED:ipv4-address], [REDACTED:ipv4-address].",
        "list",
    ),
]

# (detector id, text, why): that detector leaves the text alone.
NEAR_MISSES: list[tuple[str, str, str]] = [
    ("email", "retina asset icon@2x.png", "density-suffix"),
    ("email", "assets/icon@2x.png", "path"),
    ("email", "logo@2x.webp", "webp"),
    ("email", "systemctl restart tangle-worker@3.service", "systemd-unit"),
    ("email", "git clone git@github.com:org/repo", "ssh-remote"),
    ("email", "@tangle-network/agent-eval", "scope"),
    ("email", "webpack:///@scope/pkg/src/index.ts:10:5", "scope-in-path"),
    ("email", "foo@bar.json", "json"),
    ("email", "a@b.ts", "ts"),
    ("email", "include @AGENTS.md and notes@RTK.md", "doc-file-in-capitals"),
    ("email", "icon@2x.md", "a4-digit-led-host"),
    ("email", "src/lib/a@b.py", "a4-path-segment"),
    ("email", "jane@example", "no-tld"),
    ("card-number", "4111 1111-1111 1111", "mixed-separators"),
    ("card-number", "4111111111111112", "luhn"),
    ("card-number", '"id": 653109876543210,', "luhn-65"),
    ("card-number", "order 1700000000420 shipped", "epoch-ms"),
    ("card-number", "22222222222222222", "one-repeated-digit"),
    ("card-number", "card4111111111111111", "glued-to-letters"),
    ("card-number", "run-4111111111111111", "after-hyphen"),
    ("card-number", "4111111111111111-2", "before-hyphen"),
    ("card-number", "9111111111111111", "no-issuer"),
    ("ssn", "123-45-6789x", "glued-after"),
    ("ssn", "a_123-45-6789", "glued-before"),
    ("ssn", "123 45 6789", "spaces"),
    ("phone", "4155552671", "no-separators"),
    ("phone", "+18005552671", "e164-toll-free"),
    ("phone", "+15005550006", "e164-service-area"),
    ("phone", "x+14155552671", "e164-after-a-word"),
    ("phone", "+0123456789012", "e164-no-country-code"),
    ("phone", "utc+0530", "utc-offset"),
    ("phone", "415-555-26710", "too-long"),
    ("phone", "loop over 3600 1800 900 seconds", "numbers"),
    ("iban", f"refund to {_BAD_CHECK_IBAN}", "check-digits"),
    ("iban", f"ref{_GB_IBAN}", "glued-to-letters"),
    ("iban", "SKU AB12CDEF3456", "too-short"),
    ("iban", "trace 4bf92f3577b34da6a3ce929d0e0e4736", "trace-id"),
    ("ipv4-address", "listening on 127.0.0.1:8080", "loopback"),
    ("ipv4-address", "bind 0.0.0.0", "unspecified"),
    ("ipv4-address", "mask 255.255.255.255", "broadcast"),
    ("ipv4-address", "group 239.1.2.3", "multicast"),
    ("ipv4-address", "version 1.2.3.4.5", "five-parts"),
    ("ipv4-address", "oid 2.16.840.1.113883", "oid"),
    ("ipv4-address", "256.1.2.3", "octet-over-255"),
    ("ipv4-address", "v10.1.2.3", "glued-to-letters"),
]


def test_ids_and_order() -> None:
    assert [d.id for d in PERSONAL_DETECTORS] == ["email", "card-number", "ssn", "phone"]
    assert [d.id for d in OPT_IN_DETECTORS] == ["iban", "ipv4-address"]


@pytest.mark.parametrize("d", EVERY_SHAPE, ids=lambda d: d.id)
def test_every_detector_is_documented_and_covered(d: Detector) -> None:
    assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", d.id)
    assert d.description and "\n" not in d.description and len(d.description) <= 100
    assert d.category == "personal-data"
    assert any(case[0] == d.id for case in POSITIVES)
    assert any(case[0] == d.id for case in NEAR_MISSES)


@pytest.mark.parametrize(
    ("detector_id", "text", "expected", "why"),
    POSITIVES,
    ids=[f"{d}-{why}" for d, _, _, why in POSITIVES],
)
def test_positive_is_replaced_in_place(
    detector_id: str, text: str, expected: str, why: str
) -> None:
    d = detector(detector_id)
    out, ids = replace_personal_data(text, (d,))
    assert out == expected
    assert ids == [detector_id] * expected.count(f"[REDACTED:{detector_id}]")


@pytest.mark.parametrize(
    ("detector_id", "text", "why"), NEAR_MISSES, ids=[f"{d}-{why}" for d, _, why in NEAR_MISSES]
)
def test_near_miss_is_left_alone(detector_id: str, text: str, why: str) -> None:
    assert not detector(detector_id).search(text)


def test_a_rejected_email_is_skipped_whole() -> None:
    # The reference resumes after a rejected match and does not retry a shorter span in it.
    text = "git@github.com and ann@example.test"
    out, ids = replace_personal_data(text)
    assert out == "git@github.com and [REDACTED:email]"
    assert ids == ["email"]


# --- prefilters --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("detector_id", "text", "expected", "why"),
    POSITIVES,
    ids=[f"{d}-{why}" for d, _, _, why in POSITIVES],
)
def test_prefilter_flags_every_positive(
    detector_id: str, text: str, expected: str, why: str
) -> None:
    prefilter = re2.compile(detector(detector_id).prefilter.encode())
    assert prefilter.search(text.encode())
    assert prefilter.search("\n".join(["ü", text, "last"]).encode())


_FRAGMENTS = [
    "@",
    ".md",
    ".png",
    "git@",
    "(415) ",
    "555-",
    "+1 ",
    "4111 ",
    "1111-",
    "123-45-",
    "2x",
    "GB82 ",
    "DE",
    "10.0.",
    "203.0.113.",
]
_CHARS = [*"aZ09_-.+%@() /\t\n:", "\u00a0", "\u3000", "é"]


def _texts_around(examples: list[str]) -> st.SearchStrategy[str]:
    return texts_around(
        examples,
        st.sampled_from(_FRAGMENTS),
        st.text(st.sampled_from(_CHARS), max_size=12),
        st.text(st.sampled_from([*"0123456789", " ", "-"]), min_size=10, max_size=24),
    )


@pytest.mark.parametrize("d", EVERY_SHAPE, ids=lambda d: d.id)
def test_prefilter_never_misses_a_match(d: Detector) -> None:
    examples = [c[1] for c in POSITIVES + NEAR_MISSES if c[0] == d.id]
    assert_prefilter_covers(d, _texts_around(examples), max_examples=300)


# --- linear time ---------------------------------------------------------------------------------


_HOSTILE_UNITS = [
    "a",
    "a.",
    "a@",
    "@a.",
    "a@a.",
    ".a@b",
    "1",
    "1 ",
    "1-",
    "1234 ",
    "4111-",
    "(415) ",
    "415-",
    "+1 ",
    "123-45-",
    "GB82 WEST ",
    "1.2.",
    "10.0.0.1.",
    " ",
    "\u3000",
]


@pytest.mark.parametrize("d", EVERY_SHAPE, ids=lambda d: d.id)
def test_hostile_input_runs_in_linear_time(d: Detector) -> None:
    near = [c[1] for c in POSITIVES + NEAR_MISSES if c[0] == d.id]
    # Almost-matches: a few examples cut short, repeated to 100 KB.
    assert_linear_time(d, _HOSTILE_UNITS + [t[:-1] for t in near[:6] if len(t) > 1])


# --- card issuer prefixes ------------------------------------------------------------------------

# The prefixes the card detector claims, written out here rather than read from the detector, so
# that dropping one from it (American Express's 34 and 37, Discover's 65) fails a test.
CARD_PREFIXES = {
    "Visa": ("4",),
    "Mastercard": ("51", "52", "53", "54", "55", "22", "23", "24", "25", "26", "27"),
    "American Express": ("34", "37"),
    "Diners Club": ("30", "36", "38", "39"),
    "JCB": ("35",),
    "Discover": ("6011", "644", "645", "646", "647", "648", "649", "65"),
    # UnionPay's 62 whole, which holds Discover's co-branded 622126–622925.
    "UnionPay": ("62", "622126", "622925"),
}
CLAIMED = tuple(prefix for prefixes in CARD_PREFIXES.values() for prefix in prefixes)


def _luhn_card(prefix: str, length: int = 16) -> str:
    """A number of `length` digits starting with `prefix` whose last digit is its Luhn check
    digit. The filler starts with 0, so that a prefix's number never starts with a longer
    prefix by chance (60 is 600…, not 6011…)."""
    body = (prefix + "0" + "7352918046" * 2)[: length - 1]
    total = 0
    for position, char in enumerate(reversed(body)):
        value = int(char)
        if position % 2 == 0:  # every second digit from the right of the check digit
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return body + str(-total % 10)


def _grouped(number: str) -> str:
    if len(number) == 15:  # American Express writes 4-6-5
        return f"{number[:4]} {number[4:10]} {number[10:]}"
    return " ".join(number[i : i + 4] for i in range(0, len(number), 4))


def test_the_luhn_builder_agrees_with_known_test_cards() -> None:
    assert _luhn_card("411111111111111") == "4111111111111111"
    assert _luhn_card("37828224631000", 15) == "378282246310005"
    assert _luhn_card("601111111111111") == "6011111111111117"


@pytest.mark.parametrize(
    ("issuer", "prefix"),
    [(issuer, prefix) for issuer, prefixes in CARD_PREFIXES.items() for prefix in prefixes],
)
@pytest.mark.parametrize("length", [15, 16, 19])
def test_every_claimed_issuer_prefix_is_a_card(issuer: str, prefix: str, length: int) -> None:
    number = _luhn_card(prefix, length)
    card = detector("card-number")
    for text in (number, _grouped(number)):
        assert replace_personal_data(f"paid with {text} today", (card,)) == (
            "paid with [REDACTED:card-number] today",
            ["card-number"],
        ), text
    assert is_card_number(int(number))  # written as a JSON number
    # One digit off and the Luhn check fails: the prefix alone makes no card.
    wrong = number[:-1] + str((int(number[-1]) + 1) % 10)
    assert not card.search(wrong) and not is_card_number(int(wrong))


# Every other start, each with a valid Luhn check digit: each two-digit one (10 to 99; 60 and
# 64 as 600… and 640…), Discover's neighbours 640–643 and 6010…6019 but 6011.
UNCLAIMED = [
    prefix
    for prefix in (
        *map(str, range(10, 100)),
        *map(str, range(640, 644)),
        *map(str, range(6010, 6020)),
    )
    if not _luhn_card(prefix).startswith(CLAIMED)
]


@pytest.mark.parametrize("prefix", UNCLAIMED)
def test_a_luhn_valid_number_with_no_issuer_prefix_is_no_card(prefix: str) -> None:
    number = _luhn_card(prefix)
    assert not detector("card-number").search(f"order {number} shipped")
    assert not detector("card-number").search(f"order {_grouped(number)} shipped")
    assert not is_card_number(int(number))


def test_the_unclaimed_starts_are_the_gaps_between_the_issuers() -> None:
    # What the list above holds, so that a filter too eager cannot empty it unseen.
    assert UNCLAIMED[:3] == ["10", "11", "12"]
    for near in ("21", "28", "31", "33", "50", "56", "60", "61", "63", "64", "66", "643", "6012"):
        assert near in UNCLAIMED
