"""The ordered registry: the corpus `values` cases, false-positive traps, and the three questions
the redactor asks (first credential, personal data present, personal data replaced in place).

The corpus is the reference's own (MIT, notice inside the file), copied into fixtures so the tests
run on a clean clone; credential-shaped values are stored as `parts` and joined here.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from redact.detectors import (
    CREDENTIAL_DETECTORS,
    DETECTORS,
    OPT_IN_DETECTORS,
    PERSONAL_DETECTORS,
    REFERENCE_DETECTORS,
    Detector,
    detect_credential,
    detect_personal_data,
    detector,
    replace_personal_data,
)
from redact.detectors.vendors import VENDOR_DETECTORS

_CORPUS = Path(__file__).parent.parent / "fixtures/redaction/agent-eval-redaction-corpus.json"
_VALUES: dict[str, Any] = json.loads(_CORPUS.read_text(encoding="utf-8"))["values"]
_PERSONAL_IDS = {d.id for d in PERSONAL_DETECTORS}

MUST_FLAG = [(case["detector"], "".join(case["parts"])) for case in _VALUES["mustFlag"]]
CREDENTIAL_CASES = [(d, text) for d, text in MUST_FLAG if d not in _PERSONAL_IDS]
PERSONAL_CASES = [(d, text) for d, text in MUST_FLAG if d in _PERSONAL_IDS]
MUST_NOT_FLAG: list[str] = _VALUES["mustNotFlag"]

# The reference replaces only the matched text; the corpus names the detector, this names the rest.
PERSONAL_EXPECTED = {
    "Contact jane.doe@example.test about the refund": "Contact [REDACTED:email] about the refund",
    "SSN 123-45-6789 on file": "SSN [REDACTED:ssn] on file",
    "call (415) 555-2671 after 5pm": "call [REDACTED:phone] after 5pm",
    "card 4111 1111 1111 1111 exp 12/29": "card [REDACTED:card-number] exp 12/29",
    "paid with 4111111111111111 today": "paid with [REDACTED:card-number] today",
    "amex 3782 822463 10005 on file": "amex [REDACTED:card-number] on file",
    "reply to ops@tangle.tools": "reply to [REDACTED:email]",
}

# Cases of the corpus that Part A deliberately changes: none of the `values` cases. A4 widens
# env-secret-assignment, url-credentials, authorization-header and email, and every mustNotFlag
# string still passes (`notes@RTK.md` stays a file name: a capitalised name before a TLD that is
# also a file extension reads as a doc file, see redact/detectors/personal.py).


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def _credential_id(case: tuple[str, str]) -> str:
    # Readable ids that never hold a whole credential-shaped value.
    return f"{case[0]}-{len(case[1])}"


# --- the corpus ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("detector_id", "text"), CREDENTIAL_CASES, ids=_credential_id)
def test_corpus_credential_is_named_by_the_first_detector(detector_id: str, text: str) -> None:
    assert detect_credential(text, REFERENCE_DETECTORS) == detector_id
    assert detect_credential(text) == detector_id


@pytest.mark.parametrize(
    ("detector_id", "text"), PERSONAL_CASES, ids=[t for _, t in PERSONAL_CASES]
)
def test_corpus_personal_data_is_replaced_in_place(detector_id: str, text: str) -> None:
    assert detect_credential(text) is None
    assert detect_personal_data(text) == [detector_id]
    assert replace_personal_data(text) == (PERSONAL_EXPECTED[text], [detector_id])


@pytest.mark.parametrize("text", MUST_NOT_FLAG, ids=_short)
def test_corpus_must_not_flag_passes_our_detectors(text: str) -> None:
    assert detect_credential(text, REFERENCE_DETECTORS) is None
    assert detect_personal_data(text) == []
    assert replace_personal_data(text) == (text, [])


@pytest.mark.parametrize("text", MUST_NOT_FLAG, ids=_short)
def test_corpus_must_not_flag_passes_the_whole_registry(text: str) -> None:
    assert detect_credential(text) is None


# --- false-positive traps ------------------------------------------------------------------------

_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d4944415478da63f8ffff3f0005fe02fea7d6a5e40000000049454e44ae426082"
)
_PNG_B64 = base64.b64encode(_PNG * 4).decode()
_TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
_SPAN_ID = "00f067aa0ba902b7"
_GIT_SHA = hashlib.sha1(b"tracecheck").hexdigest()
_SHA256 = hashlib.sha256(b"tracecheck").hexdigest()

TRAPS: list[tuple[str, str]] = [
    ("uuid", str(uuid.UUID("550e8400-e29b-41d4-a716-446655440000"))),
    ("uuid-in-text", f"request {uuid.UUID(int=2**122 + 12345)} failed"),
    ("trace-id", _TRACE_ID),
    ("span-id", _SPAN_ID),
    ("ids-in-json", json.dumps({"trace_id": _TRACE_ID, "span_id": _SPAN_ID})),
    ("git-sha", _GIT_SHA),
    ("git-sha-in-text", f"commit {_GIT_SHA} (HEAD -> main)"),
    ("sha256", _SHA256),
    ("sha256-prefixed", f"sha256:{_SHA256}"),
    ("png-base64", _PNG_B64),
    ("png-data-uri", f"data:image/png;base64,{_PNG_B64}"),
    ("token-count", "1200"),
    ("usage-json", json.dumps({"usage": {"input_tokens": 1200, "output_tokens": 340}})),
    ("max-tokens", "max_tokens=4096"),
    ("max-tokens-env", "MAX_TOKENS=16"),
    ("page-token", "next_page_token=CAESBggBEAEYAQ"),
    ("semver", "1.2.3-rc.1+build.5"),
    ("icon-path", "assets/icon@2x.png"),
    ("epoch-ms", "1700000000000"),
    ("iso-utc", "2026-09-24T17:56:25.592Z"),
    ("iso-offset", "2026-09-24T17:56:25+02:00"),
    ("sk-in-kebab-prose", "task-sk-list"),
    ("sk-in-long-kebab", "task-specific-instructions-for-agent"),
    ("bearer-prose", "Send a Bearer token in the Authorization header."),
    ("basic-auth-prose", "use basic auth for the admin panel"),
    ("ratelimit", "x-ratelimit-remaining-tokens: 39000"),
]


@pytest.mark.parametrize(("name", "text"), TRAPS, ids=[n for n, _ in TRAPS])
def test_trap_is_flagged_by_no_detector(name: str, text: str) -> None:
    assert detect_credential(text) is None
    assert detect_personal_data(text) == []


# --- the registry --------------------------------------------------------------------------------


def test_credential_order_is_reference_then_vendors() -> None:
    assert CREDENTIAL_DETECTORS == REFERENCE_DETECTORS + VENDOR_DETECTORS
    assert all(d.category == "credential" for d in CREDENTIAL_DETECTORS)
    assert all(d.category == "personal-data" for d in PERSONAL_DETECTORS)


def test_every_detector_is_registered_once_by_id() -> None:
    everything = CREDENTIAL_DETECTORS + PERSONAL_DETECTORS + OPT_IN_DETECTORS
    assert len(DETECTORS) == len(everything)
    assert list(DETECTORS) == [d.id for d in everything]
    assert all(DETECTORS[d.id] is d for d in everything)
    with pytest.raises(TypeError):
        DETECTORS["x"] = everything[0]  # type: ignore[index]


def test_every_pattern_compiles_and_is_kept_once_compiled() -> None:
    # Importing the detectors compiles none of their precise patterns (most files call on a
    # handful); a pattern that does not compile must still fail here, not on a user's file.
    everything = CREDENTIAL_DETECTORS + PERSONAL_DETECTORS + OPT_IN_DETECTORS
    for d in everything:
        compiled = d.pattern
        assert compiled.pattern == d.source and compiled.flags & d.flags == d.flags
        assert d.pattern is compiled


def test_detector_by_id() -> None:
    assert detector("jwt").id == "jwt"
    with pytest.raises(KeyError, match='did you mean "card-number"'):
        detector("card-numbr")


def test_detect_credential_honours_the_given_detectors() -> None:
    text = "".join(["cd repo && GH_TOK", "EN=x1y2z3x1y2z3", "x1y2z3"])
    assert detect_credential(text) == "secret-assignment"
    assert detect_credential(text, ()) is None
    assert detect_credential(text, (detector("jwt"),)) is None


def test_detect_personal_data_reports_each_detector_once_in_order() -> None:
    text = "call 415-555-2671 or 415-555-2672, mail a@b.io, SSN 123-45-6789"
    assert detect_personal_data(text) == ["email", "ssn", "phone"]
    assert detect_personal_data(text, (detector("phone"),)) == ["phone"]


def test_replace_personal_data_chains_detectors_and_lists_each_replacement() -> None:
    text = "a@b.io or c@d.io, card 4111 1111 1111 1111, call 415-555-2671"
    out, ids = replace_personal_data(text)
    assert out == (
        "[REDACTED:email] or [REDACTED:email], card [REDACTED:card-number], call [REDACTED:phone]"
    )
    assert ids == ["email", "email", "card-number", "phone"]


def test_rejected_matches_stay_in_place() -> None:
    text = "git@github.com:org/repo 4111111111111112 ann@example.test"
    assert replace_personal_data(text) == (
        "git@github.com:org/repo 4111111111111112 [REDACTED:email]",
        ["email"],
    )


def test_markers_are_not_matched_again() -> None:
    out, ids = replace_personal_data("a@b.io 123-45-6789")
    assert replace_personal_data(out) == (out, [])
    assert detect_credential(out) is None
    assert ids == ["email", "ssn"]


@pytest.mark.parametrize("d", PERSONAL_DETECTORS, ids=lambda d: d.id)
def test_replace_with_one_detector(d: Detector) -> None:
    out, ids = replace_personal_data("nothing personal here", (d,))
    assert (out, ids) == ("nothing personal here", [])
