"""A command's arguments recorded as a list of words (`process.command_args`, an exec tool's
`argv`) are also read as one command line: a password in the word after its option, or a
password that only its client's name makes one, is a credential there too."""

from __future__ import annotations

import random
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redact import ShareStatus, assess, assess_spans, redact, redact_spans
from tracecheck.spans import Span

_RNG = random.Random(20261205)
PASSWORD = "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(10)) + "!7"

# (name, words, the word holding the secret, its detector); a detector whose pattern does not
# name the secret's own group marks every word its match touches (curl's `-u` too).
SECRET_ARGUMENTS: list[tuple[str, list[str], int, str]] = [
    ("flag-then-value", ["deploy", "--user", "bob", "--password", PASSWORD], 4, "cli-secret-flag"),
    ("sshpass", ["sshpass", "-p", PASSWORD, "ssh", "root@web1"], 2, "cli-password-option"),
    ("mysql-attached", ["mysql", "-uroot", f"-p{PASSWORD}", "shop"], 2, "cli-password-option"),
    ("redis-cli", ["redis-cli", "-h", "cache", "-a", PASSWORD, "ping"], 4, "cli-password-option"),
    (
        "curl-user",
        ["curl", "-u", f"admin:{PASSWORD}", "https://x.example"],
        2,
        "curl-user-password",
    ),
]


@pytest.mark.parametrize(
    ("name", "words", "index", "detector"), SECRET_ARGUMENTS, ids=[c[0] for c in SECRET_ARGUMENTS]
)
def test_a_secret_read_across_words_is_found_at_its_word(
    name: str, words: list[str], index: int, detector: str
) -> None:
    value = {"argv": words}
    verdict = assess(value, profile="share")
    assert verdict.status is ShareStatus.UNSAFE
    assert any(f"/argv/{index}" in finding.paths for finding in verdict.findings)
    out = redact(value, profile="share").value
    assert out["argv"][index] == f"[REDACTED:{detector}]" or PASSWORD not in out["argv"][index]
    assert PASSWORD not in repr(out)
    # The words before the option stay as they were.
    assert out["argv"][: index - 1] == words[: index - 1]
    assert assess(out, profile="share").status is not ShareStatus.UNSAFE


ORDINARY_ARGUMENTS: list[list[str]] = [
    ["ls", "-la", "/tmp"],
    ["ssh", "-p", "2222", "deploy@web1"],
    ["mysql", "-uroot", "-p", "shop"],  # -p alone asks for the password
    ["python", "-m", "pytest", "-k", "token and not slow"],
    ["curl", "-H", "Content-Type: application/json", "https://x.example"],
    ["tool", "--password-file", "/run/secrets/db"],
    ["docker", "login", "-u", "ci", "-p", "$CI_REGISTRY_PASSWORD"],
]


@pytest.mark.parametrize(
    "words", ORDINARY_ARGUMENTS, ids=[" ".join(w)[:40] for w in ORDINARY_ARGUMENTS]
)
def test_ordinary_arguments_pass_untouched(words: list[str]) -> None:
    value = {"argv": words}
    assert redact(value, profile="share").value == value
    assert assess(value, profile="share").status is ShareStatus.SAFE


def test_a_span_command_line_attribute_is_read_as_one_line() -> None:
    span = Span(
        "a" * 32,
        "b" * 16,
        name="exec",
        attributes={"process.command_args": ("sshpass", "-p", PASSWORD, "ssh", "web1")},
    )
    assert assess_spans([span], profile="share").status is ShareStatus.UNSAFE
    (redacted,) = redact_spans([span], profile="share").spans
    assert PASSWORD not in repr(redacted.attributes)


_FLAGS = st.sampled_from(["--password", "--token", "--api-key", "--secret"])
_SECRETS = st.text(alphabet=string.ascii_letters + string.digits, min_size=12, max_size=30).filter(
    lambda s: any(c.isdigit() for c in s) and any(c.isalpha() for c in s)
)
_WORDS = st.lists(st.sampled_from(["run", "-v", "--user", "bob", "deploy", "-x"]), max_size=4)


@settings(max_examples=200, deadline=None)
@given(_WORDS, _FLAGS, _SECRETS, _WORDS)
def test_any_flag_and_value_across_words_leave_nothing(
    before: list[str], flag: str, secret: str, after: list[str]
) -> None:
    value: Any = {"args": ["tool", *before, flag, secret, *after]}
    assert assess(value, profile="share").status is ShareStatus.UNSAFE
    out = redact(value, profile="share").value
    assert secret not in repr(out)
    assert assess(out, profile="share").status is not ShareStatus.UNSAFE
