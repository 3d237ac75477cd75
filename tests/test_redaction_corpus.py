"""The reference redaction corpus, case by case, through the public API.

`fixtures/redaction/agent-eval-redaction-corpus.json` is the reference core's own must-flag /
must-not-flag corpus (MIT, notice inside). Credential-shaped values are stored as `parts` and
joined here. Cases whose expectation Part A of the spec changes are listed in `CHANGED` with the
reason, and asserted the new way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from redact import assess, redact, redact_for_share, redact_text

CORPUS = json.loads(
    (
        Path(__file__).parent.parent / "fixtures/redaction/agent-eval-redaction-corpus.json"
    ).read_text(encoding="utf-8")
)
PERSONAL = {"email", "card-number", "ssn", "phone"}

# Part A changes these expectations; each entry says why.
CHANGED: dict[str, str] = {}


def _text(case: dict[str, Any]) -> str:
    return "".join(case["parts"])


@pytest.mark.parametrize("case", CORPUS["keys"]["mustSurvive"], ids=lambda c: c["key"])
def test_key_survives(case: dict[str, Any]) -> None:
    value = {case["key"]: case["value"]}
    assert redact(value).value == value


@pytest.mark.parametrize("case", CORPUS["keys"]["mustRedact"], ids=lambda c: c["key"])
def test_key_is_redacted(case: dict[str, Any]) -> None:
    out = redact({case["key"]: case["value"]}).value
    assert out[case["key"]] != case["value"]
    assert out[case["key"]].startswith("[REDACTED:")


@pytest.mark.parametrize(
    "case", CORPUS["values"]["mustFlag"], ids=lambda c: f"{c['detector']}:{len(_text(c))}"
)
def test_value_is_flagged(case: dict[str, Any]) -> None:
    text, detector = _text(case), case["detector"]
    out = redact_text(text)
    if detector in PERSONAL:
        assert f"[REDACTED:{detector}]" in out and out != text
    else:
        assert out == f"[REDACTED:{detector}]"


@pytest.mark.parametrize("text", CORPUS["values"]["mustNotFlag"])
def test_value_is_not_flagged(text: str) -> None:
    assert redact_text(text) == text


@pytest.mark.parametrize("case", CORPUS["knownSecrets"]["texts"], ids=lambda c: c["text"][:24])
def test_known_secret(case: dict[str, Any]) -> None:
    secret = CORPUS["knownSecrets"]["secret"]
    assert redact_text(case["text"], known_secrets=[secret]) == case["expected"]


CASES = [
    (case, profile)
    for case in CORPUS["agentInspect"]["cases"]
    for profile in ("default", "share", "strict")
]


@pytest.mark.parametrize(("case", "profile"), CASES, ids=[f"{c['id']}-{p}" for c, p in CASES])
def test_share_safety_case(case: dict[str, Any], profile: str) -> None:
    expected = case["expectations"][profile]
    verdict = assess(case["value"], profile=profile)
    categories = {finding.category for finding in verdict.findings}
    assert verdict.status.value == expected["status"]
    assert set(expected.get("mustFlag", ())) <= categories
    assert not set(expected.get("mustNotFlag", ())) & categories
    shared = redact_for_share(case["value"], profile=profile)
    assert shared.verdict.status.value != "UNSAFE"
