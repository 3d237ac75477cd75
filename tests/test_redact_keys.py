"""Key rules (spec §B6): normalisation, list matching by whole name or suffix, check order."""

from __future__ import annotations

import pytest

from redact import classify_key, normalize_key
from redact.keys import KeyClass, KeyRules


@pytest.mark.parametrize(
    ("key", "normalized"),
    [
        ("userPassword", "user_password"),
        ("user-password", "user_password"),
        ("user.password", "user_password"),
        ("OPENAI_API_KEY", "openai_api_key"),
        ("APIKey", "apikey"),
        ("userID", "user_id"),
        ("__x__", "x"),
        ("", ""),
    ],
)
def test_normalize_key(key: str, normalized: str) -> None:
    assert normalize_key(key) == normalized


@pytest.mark.parametrize(
    ("key", "category"),
    [
        # The token rule and its exceptions.
        ("token", "credential"),
        ("access_token", "credential"),
        ("refreshToken", "credential"),
        ("GITHUB_TOKEN", "credential"),
        ("csrf_token", "credential"),
        ("inputTokens", None),
        ("reasoning-tokens", None),
        ("x-ratelimit-remaining-tokens", None),
        ("cache_read_input_tokens", None),
        ("max_tokens", None),
        ("next_page_token", None),
        ("gen_ai.usage.input_tokens", None),
        ("tokenizer", None),
        # Credential list, by whole name or suffix; prefix compounds never match.
        ("x-api-key", "credential"),
        ("client.secret", "credential"),
        ("set-cookie", "credential"),
        ("db_password", "credential"),
        ("github_pat", "credential"),
        ("secret_name", None),
        ("password_min_length", None),
        ("auth_type", None),
        ("content_type", None),
        ("author", None),
        ("oauth", None),
        ("secrets", None),
        # Personal data, identifiers, raw content.
        ("email", "personal-data"),
        ("cell_phone", "personal-data"),
        ("is_mobile", "personal-data"),
        ("telephone", None),
        # Issue 31 (Part A, the reference lists none): OpenTelemetry's keys for the other
        # end of a connection hold a client's address; the service's own do not.
        ("client.address", "personal-data"),
        ("source.address", "personal-data"),
        ("network.peer.address", "personal-data"),
        ("client.socket.address", "personal-data"),
        ("net.sock.peer.addr", "personal-data"),
        ("server.address", None),
        ("network.local.address", None),
        ("url.address", None),
        ("requestId", "identifier"),
        ("user.id", "identifier"),
        ("trace_id", None),
        ("span_id", None),
        ("run_id", None),
        ("status.message", "raw-content"),
        ("exception.message", "raw-content"),
        ("trace_context", "raw-content"),
        ("llm.token_count.prompt", "raw-content"),
        ("llm.input_messages", "raw-content"),
        ("input.value", "raw-content"),
        ("tool_output", "raw-content"),
        ("payload", None),
        ("response", None),
        ("value", None),
    ],
)
def test_classify_key(key: str, category: str | None) -> None:
    assert classify_key(key) == category


def test_earlier_lists_win_when_two_suffixes_match() -> None:
    # `…_input_password` ends with a raw-content word inside, but the credential list comes first.
    assert classify_key("user_input_password") == "credential"


def test_extra_names_extend_a_class_without_touching_the_built_in_lists() -> None:
    rules = KeyRules({KeyClass.CREDENTIAL: frozenset({"acmeSignature"})})
    assert rules.classify("x.acme_signature") is KeyClass.CREDENTIAL
    assert rules.classify("password") is KeyClass.CREDENTIAL
    assert classify_key("acme_signature") is None
