"""Profile modes after the OpenTelemetry Collector's redaction processor (`redact.modes`): an
allow-list of keys, allowed and blocked values, a choice of hash for pseudonyms, a per-span
summary, and URL and SQL sanitizers; each through the library, the span walk, the `redact`
command, the exporter wrapper and the proxy's scrubber, and redaction under any of them
idempotent.

Every secret below is fake and assembled at run time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import pickle
import random
import string
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redact import (
    Profile,
    ProfileError,
    ShareStatus,
    assess,
    assess_spans,
    load_profile,
    redact,
    redact_spans,
    redact_text,
    scrub_spans,
)
from redact.modes import SUMMARY_COUNT, SUMMARY_PATHS
from redact.sanitizers import sanitize_connection_string, sanitize_sql, sanitize_urls
from tracecheck.cli import main
from tracecheck.spans import Event, Link, Scope, Span

_RNG = random.Random()


def _rand(n: int) -> str:
    return "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(n)) + "7a"


GITHUB_TOKEN = "gh" + "p_" + _rand(34)
PASSWORD = "pw-" + _rand(10)
EMAIL = "jane.doe" + "@" + "example.com"
OTHER_EMAIL = "bob" + "@" + "elsewhere.test"
TRACE_ID = "a" * 32


def profile(**document: Any) -> Profile:
    return load_profile({"extends": "share", **document})


def span(
    attributes: dict[str, Any],
    *,
    span_id: str = "b" * 16,
    name: str = "chat",
    events: tuple[Event, ...] = (),
    links: tuple[Link, ...] = (),
    resource: dict[str, Any] | None = None,
    scope: Scope | None = None,
    status_message: str | None = None,
) -> Span:
    resource = resource or {}
    return Span(
        TRACE_ID,
        span_id,
        name=name,
        start_ns=1_700_000_000_000_000_000,
        end_ns=1_700_000_000_000_000_500,
        attributes={**resource, **(scope.attributes if scope else {}), **attributes},
        events=events,
        links=links,
        resource=resource,
        scope=scope,
        status_message=status_message,
    )


# --- the profile language ----------------------------------------------------------------------


def test_a_profile_file_with_every_mode(tmp_path: Path) -> None:
    path = tmp_path / "acme.yaml"
    path.write_text(
        "name: acme\n"
        "extends: share\n"
        'allowedKeys: [service.name, "gen_ai.*"]\n'
        "values:\n"
        "  allow: ['[a-z.]+@example\\.com']\n"
        "  block: ['ACME-[0-9]{6}']\n"
        "pseudonyms: sha256\n"
        "summary: paths\n"
        "sanitize: {urls: true, sql: [query_sql]}\n",
        encoding="utf-8",
    )
    modes = load_profile(path).modes
    assert modes is not None
    assert modes.allowed_keys == ("service.name", "gen_ai.*")
    assert modes.allowed_values == ("[a-z.]+@example\\.com",)
    assert modes.blocked_values == ("ACME-[0-9]{6}",)
    assert (modes.hash, modes.summary) == ("sha256", "paths")
    assert (modes.sanitize_urls, modes.sanitize_sql, modes.sql_keys) == (True, True, ("query_sql",))


def test_a_profile_without_modes_has_none() -> None:
    assert profile(keys={"credential": ["x_sig"]}).modes is None


@pytest.mark.parametrize(
    ("document", "problems"),
    [
        ({"allowedKeys": "service.name"}, ["/allowedKeys: must be a list of key names"]),
        (
            {"allowedKeys": ["a", 3, "", "x*y", "*"]},
            [
                "/allowedKeys/1: must be a key name, not a number",
                "/allowedKeys/2: must be a key name, not an empty string",
                "/allowedKeys/3: a key name may end with one * (every key it starts), and hold "
                "no other",
                "/allowedKeys/4: a key name may end with one * (every key it starts), and hold "
                "no other",
            ],
        ),
        (
            {"values": {"alow": []}},
            ['/values: unknown key "alow" — did you mean "allow"? (allowed: allow, block)'],
        ),
        ({"values": ["x"]}, ["/values: must be an object with the keys: allow, block"]),
        ({"values": {"block": "x"}}, ["/values/block: must be a list of patterns (RE2 syntax)"]),
        (
            {"values": {"allow": ["(unclosed"]}},
            ["/values/allow/0: not a pattern RE2 reads (missing ))"],
        ),
        (
            # Quoted to its end, it would swallow the group it is joined in.
            {"values": {"allow": ["ok", "\\Qabc"]}},
            ["/values/allow/1: not a pattern RE2 reads (missing ))"],
        ),
        (
            {"values": {"block": ["a*"]}},
            ["/values/block/0: matches the empty string, so it would block nothing"],
        ),
        (
            {"pseudonyms": "md5"},
            ['/pseudonyms: unknown value "md5" (allowed: hmac-sha256, sha256)'],
        ),
        (
            {"summary": "debug"},
            ['/summary: unknown value "debug" (allowed: none, count, paths)'],
        ),
        (
            {"sanitize": {"url": True}},
            ['/sanitize: unknown key "url" — did you mean "urls"? (allowed: urls, sql)'],
        ),
        (
            {"sanitize": {"sql": "yes"}},
            ["/sanitize/sql: must be true, false, or a list of more keys to sanitize"],
        ),
        (
            {"sanitize": {"urls": ["next*"]}},
            ["/sanitize/urls/0: must be an exact key name (no *)"],
        ),
    ],
)
def test_bad_modes_are_refused_by_key_path(document: dict[str, Any], problems: list[str]) -> None:
    with pytest.raises(ProfileError) as info:
        profile(**document)
    assert info.value.problems == problems


def test_a_bad_pattern_names_the_file_and_never_repeats_the_pattern(tmp_path: Path) -> None:
    # A blocked pattern may be the very value it keeps out: no message shows it.
    secret_pattern = f"({PASSWORD}"
    path = tmp_path / "bad.yaml"
    path.write_text(f"extends: share\nvalues:\n  block: ['{secret_pattern}']\n", encoding="utf-8")
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    assert str(info.value) == f"{path}: /values/block/0: not a pattern RE2 reads (missing ))"
    assert PASSWORD not in str(info.value)


def test_the_redact_command_refuses_a_bad_profile_naming_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "run.jsonl"
    trace.write_text("", encoding="utf-8")
    path = tmp_path / "bad.yaml"
    path.write_text("extends: share\nsummary: loud\n", encoding="utf-8")
    code = main(["redact", str(trace), "-o", str(tmp_path / "out.jsonl"), "--profile", str(path)])
    assert code == 2
    assert capsys.readouterr().err == (
        f'tracecheck: error: {path}: /summary: unknown value "loud" (allowed: none, count, paths)\n'
    )


def test_a_profile_with_modes_pickles_for_the_proxys_workers() -> None:
    acme = profile(allowedKeys=["a"], values={"block": ["x+"]}, summary="count")
    copy = pickle.loads(pickle.dumps(replace(acme)))
    assert copy.modes == acme.modes
    assert redact({"a": "xxx", "b": 1}, profile=copy).value == {
        "a": "[REDACTED:blocked-value]",
        "b": "[REDACTED:unlisted-key]",
    }


# --- the allow-list ----------------------------------------------------------------------------

ALLOW = profile(allowedKeys=["keep", "gen_ai.*", "service.name", "note"])


def test_only_listed_keys_keep_their_values() -> None:
    out = redact(
        {
            "keep": "text",
            "gen_ai.request.model": "gpt-x",
            "other": "text",
            "count": 3,
            "flag": True,
            "absent": None,
        },
        profile=ALLOW,
    )
    assert out.value == {
        "keep": "text",
        "gen_ai.request.model": "gpt-x",
        "other": "[REDACTED:unlisted-key]",
        "count": "[REDACTED:unlisted-key]",
        "flag": "[REDACTED:unlisted-key]",
        "absent": None,
    }
    assert [(f.path, f.category, f.detector) for f in out.report.findings] == [
        ("/other", "raw-content", "unlisted-key"),
        ("/count", "raw-content", "unlisted-key"),
        ("/flag", "raw-content", "unlisted-key"),
    ]


def test_the_allow_list_masks_an_unlisted_nested_key() -> None:
    out = redact(
        {"keep": {"keep": "kept", "inner": {"deep": "gone"}, "list": [{"keep": 1, "x": 2}]}},
        profile=ALLOW,
    )
    assert out.value == {
        "keep": {
            "keep": "kept",
            "inner": "[REDACTED:unlisted-key]",
            "list": "[REDACTED:unlisted-key]",
        }
    }
    nested = redact({"keep": [{"keep": 1, "x": 2}]}, profile=ALLOW)
    assert nested.value == {"keep": [{"keep": 1, "x": "[REDACTED:unlisted-key]"}]}
    assert [f.path for f in nested.report.findings] == ["/keep/0/x"]


def test_listed_keys_are_still_redacted_as_usual() -> None:
    out = redact({"note": f"mail {OTHER_EMAIL}", "keep": GITHUB_TOKEN}, profile=ALLOW)
    assert out.value == {"note": "mail [REDACTED:email]", "keep": "[REDACTED:github-token]"}


def test_a_key_holding_a_secret_is_renamed_and_its_value_masked() -> None:
    out = redact({GITHUB_TOKEN: "value"}, profile=ALLOW)
    assert out.value == {"[REDACTED:github-token]#1": "[REDACTED:unlisted-key]"}
    assert GITHUB_TOKEN not in json.dumps(out.report.to_json())


def test_an_unlisted_finding_names_a_renamed_key_never_the_secret_in_it() -> None:
    # Keys 1 and "1" are written as one: the finding still names where each value went.
    out = redact({GITHUB_TOKEN: "value", 1: "a", "1": "b"}, profile=ALLOW)
    assert GITHUB_TOKEN not in json.dumps(out.report.to_json())
    assert [(f.path, f.detector) for f in out.report.findings] == [
        ("/[REDACTED:github-token]#1", "github-token"),
        ("/[REDACTED:github-token]#1", "unlisted-key"),
        ("/1", "unlisted-key"),
        ("/1", "unlisted-key"),
    ]


def test_a_name_value_pair_goes_by_its_name() -> None:
    out = redact(
        [
            {"key": "note", "value": {"stringValue": "kept"}},
            {"key": "db.user", "value": {"stringValue": "gone"}},
            {"name": "other", "value": "gone"},
        ],
        profile=ALLOW,
    )
    assert out.value == [
        {"key": "note", "value": {"stringValue": "kept"}},
        {"key": "db.user", "value": {"stringValue": "[REDACTED:unlisted-key]"}},
        {"name": "other", "value": "[REDACTED:unlisted-key]"},
    ]
    assert [f.path for f in out.report.findings] == ["/1/value/stringValue", "/2/value"]


def test_on_spans_every_attribute_map_is_masked_and_the_frame_stays() -> None:
    scope = Scope("tracer", "1.0", {"scope.attr": "s"})
    original = span(
        {"keep": "k", "user.name": "jane", "gen_ai.usage.input_tokens": 12},
        name="chat model",
        status_message="it failed",
        events=(Event("gen_ai.choice", 5, {"keep": "k", "body": "text"}),),
        links=(Link("c" * 32, "d" * 16, {"link.attr": "l"}),),
        resource={"service.name": "desk", "host.name": "box-1"},
        scope=scope,
    )
    out = redact_spans([original], profile=ALLOW).spans[0]
    assert dict(out.attributes) == {
        "service.name": "desk",
        "host.name": "[REDACTED:unlisted-key]",
        "scope.attr": "[REDACTED:unlisted-key]",
        "keep": "k",
        "user.name": "[REDACTED:unlisted-key]",
        "gen_ai.usage.input_tokens": 12,
    }
    assert dict(out.resource) == {"service.name": "desk", "host.name": "[REDACTED:unlisted-key]"}
    assert out.scope is not None and dict(out.scope.attributes) == {
        "scope.attr": "[REDACTED:unlisted-key]"
    }
    assert (out.scope.name, out.scope.version) == ("tracer", "1.0")
    assert dict(out.events[0].attributes) == {"keep": "k", "body": "[REDACTED:unlisted-key]"}
    assert dict(out.links[0].attributes) == {"link.attr": "[REDACTED:unlisted-key]"}
    # What is no attribute stays as the detectors leave it: names, status, ids and times.
    assert (out.name, out.status_message, out.events[0].name) == (
        "chat model",
        "it failed",
        "gen_ai.choice",
    )
    assert (out.trace_id, out.span_id, out.start_ns, out.end_ns, out.events[0].time_ns) == (
        original.trace_id,
        original.span_id,
        original.start_ns,
        original.end_ns,
        5,
    )
    assert (out.links[0].trace_id, out.links[0].span_id) == ("c" * 32, "d" * 16)
    verdict = assess_spans([out], profile=ALLOW)
    assert [(f.detector, f.paths) for f in verdict.findings] == [
        ("raw-content-key", ("span:bbbbbbbbbbbbbbbb/status/message",))
    ]


# --- allowed and blocked values ----------------------------------------------------------------

VALUES = profile(values={"allow": ["[a-z.]+@example\\.com"], "block": ["ACME-[0-9]{6}"]})


def test_an_allowed_value_is_kept_and_the_gate_says_so() -> None:
    out = redact({"note": EMAIL, "other": OTHER_EMAIL}, profile=VALUES)
    assert out.value == {"note": EMAIL, "other": "[REDACTED:email]"}
    verdict = assess(out.value, profile=VALUES)
    # Kept by the profile's word, not found safe: a warning, never a plain SAFE.
    assert verdict.status is ShareStatus.SAFE_WITH_WARNINGS
    assert [(f.category, f.detector, f.severity, f.paths) for f in verdict.findings] == [
        ("personal-data", "allowed-value", "warning", ("/note",))
    ]


def test_an_allowed_value_matches_whole() -> None:
    assert redact_text(f"mail {EMAIL}", profile=VALUES) == "mail [REDACTED:email]"


def test_a_known_secret_is_never_allowed() -> None:
    anything = profile(values={"allow": [".*"]})
    text = f"deploy {PASSWORD}"
    assert redact_text(text, profile=anything) == text
    assert (
        redact_text(text, profile=anything, known_secrets=[PASSWORD])
        == "deploy [REDACTED:known-secret]"
    )
    verdict = assess(text, profile=anything, known_secrets=[PASSWORD])
    assert verdict.status is ShareStatus.UNSAFE


def test_an_allowed_value_never_keeps_a_credential_the_usual_way_finds() -> None:
    # Allowing everything keeps personal data by the profile's word, never a credential: a
    # detector's, a data URI's payload, or a key rule's on JSON held in the value.
    anything = profile(values={"allow": [".*"]})
    encoded = base64.b64encode(GITHUB_TOKEN.encode()).decode()
    value = {
        "note": f"deploy {GITHUB_TOKEN}",
        "uri": f"data:text/plain;base64,{encoded}",
        "json": json.dumps({"password": PASSWORD, "note": "fine"}),
        "pair": json.dumps([{"key": "db.password", "value": PASSWORD}]),
        "mail": EMAIL,
    }
    before = assess(value, profile=anything)
    assert before.status is ShareStatus.UNSAFE
    out = redact(value, profile=anything)
    assert out.value == {
        "note": "[REDACTED:github-token]",
        "uri": "[REDACTED:data-uri-payload]",
        "json": json.dumps({"password": "[REDACTED:credential-key]", "note": "fine"}),
        "pair": json.dumps([{"key": "db.password", "value": "[REDACTED:credential-key]"}]),
        "mail": EMAIL,
    }
    after = assess(out.value, profile=anything)
    assert after.status is ShareStatus.SAFE_WITH_WARNINGS
    assert [(f.category, f.detector, f.paths) for f in after.findings] == [
        ("personal-data", "allowed-value", ("/mail",))
    ]


def test_an_allowed_value_holding_json_is_never_a_plain_safe() -> None:
    # What a key rule inside the JSON finds is what the allowed value keeps.
    anything = profile(values={"allow": [".*"]})
    value = {"note": json.dumps({"user_id": "u-42"})}
    assert redact(value, profile=anything).value == value
    verdict = assess(value, profile=anything)
    assert [(f.category, f.detector, f.severity) for f in verdict.findings] == [
        ("identifier", "allowed-value", "warning")
    ]


def test_an_allowed_value_does_not_override_its_keys_rule() -> None:
    out = redact({"password": EMAIL, "userId": EMAIL}, profile=VALUES)
    assert out.value["password"] == "[REDACTED:credential-key]"
    assert out.value["userId"].startswith("[ID:")


def test_an_allowed_value_over_the_cap_goes_the_usual_way() -> None:
    capped = profile(maxStringBytes=40, values={"allow": ["[a-z.@ ]+"]})
    long = " ".join([EMAIL] * 4)
    assert redact_text(long, profile=capped).startswith("[REDACTED:email] ")


def test_a_blocked_value_is_cut_where_it_stands() -> None:
    value = {"note": "order ACME-123456 shipped", "n": "ACME-654321"}
    out = redact(value, profile=VALUES)
    assert out.value == {
        "note": "order [REDACTED:blocked-value] shipped",
        "n": "[REDACTED:blocked-value]",
    }
    before = assess(value, profile=VALUES)
    assert before.status is ShareStatus.UNSAFE
    assert [(f.detector, f.count) for f in before.findings] == [("blocked-value", 2)]
    assert assess(out.value, profile=VALUES).status is ShareStatus.SAFE


def test_a_blocked_value_is_cut_from_every_span_surface() -> None:
    # Clean to every detector, so only the mode's own look finds it (no prescan passes it by).
    marked = "ACME-123456"
    original = span(
        {"note": f"see {marked}", "plain": "nothing"},
        name=f"ship {marked}",
        events=(Event(f"event {marked}", 5, {"e": marked}),),
        resource={"service.name": marked},
    )
    out = redact_spans([original, original.replace(span_id="c" * 16)], profile=VALUES).spans
    for each in out:
        assert marked not in repr(each)
        assert each.attributes["plain"] == "nothing"
    assert out[0].name == "ship [REDACTED:blocked-value]"
    kept = scrub_spans([original], profile=VALUES)
    assert len(kept.kept) == 1 and marked not in repr(kept.kept[0])


# --- hashing -----------------------------------------------------------------------------------

SHA = profile(pseudonyms="sha256")


def test_sha256_pseudonyms_are_plain_hashes_and_differ_from_hmac() -> None:
    key = b"k" * 32
    hmac_out = redact({"userId": "u-1001"}, profile="share", pseudonym_key=key).value["userId"]
    sha_out = redact({"userId": "u-1001"}, profile=SHA, pseudonym_key=key).value["userId"]
    assert sha_out == "[ID:" + hashlib.sha256(b"u-1001").hexdigest()[:12] + "]"
    assert hmac_out == "[ID:" + hmac.new(key, b"u-1001", hashlib.sha256).hexdigest()[:12] + "]"
    assert sha_out != hmac_out
    # The same in every call with no key: joinable across runs, and guessable.
    assert redact({"userId": "u-1001"}, profile=SHA).value["userId"] == sha_out


def test_sha256_pseudonyms_apply_to_addresses_in_key_names() -> None:
    out = redact({EMAIL: "x"}, profile=SHA)
    assert list(out.value) == ["[ID:" + hashlib.sha256(EMAIL.encode()).hexdigest()[:12] + "]"]


# --- the per-span summary ----------------------------------------------------------------------


def test_a_span_summary_names_paths_and_counts_never_values() -> None:
    summarised = profile(summary="paths", allowedKeys=["keep", "note"])
    original = span(
        {"keep": "fine", "note": f"mail {OTHER_EMAIL}", "secret_thing": PASSWORD},
        events=(Event("e", 5, {"keep": GITHUB_TOKEN}),),
        resource={"host.name": "box-1"},
    )
    out = redact_spans([original], profile=summarised).spans[0]
    assert out.attributes[SUMMARY_COUNT] == 3
    assert out.attributes[SUMMARY_PATHS] == [
        "/attributes/note",
        "/attributes/secret_thing",
        "/events/0/attributes/keep",
    ]
    shown = json.dumps([out.attributes[SUMMARY_COUNT], out.attributes[SUMMARY_PATHS]])
    for value in (OTHER_EMAIL, PASSWORD, GITHUB_TOKEN, "box-1"):
        assert value not in shown
    # A second redaction changes nothing, the summary included.
    again = redact_spans([out], profile=summarised)
    assert again.spans[0] == out and again.report.findings == ()


def test_a_count_summary_gives_no_paths_and_a_clean_span_none() -> None:
    counted = profile(summary="count")
    out = redact_spans(
        [span({"note": f"mail {OTHER_EMAIL}"}), span({"note": "fine"}, span_id="c" * 16)],
        profile=counted,
    ).spans
    assert out[0].attributes[SUMMARY_COUNT] == 1
    assert SUMMARY_PATHS not in out[0].attributes
    assert SUMMARY_COUNT not in out[1].attributes


# --- sanitizers --------------------------------------------------------------------------------

SANITIZE = profile(sanitize={"urls": True, "sql": True})


def test_sql_literals_go_and_the_statement_keeps_its_shape() -> None:
    statement = (
        "SELECT u.id, \"name\" FROM users u WHERE u.email = 'jane.doe@example.com' "
        "AND u.age > 42 AND u.code IN (X'1F', 0x2A, 1.5e3) AND t1.x = $1 AND y = :who -- by ops"
    )
    out = redact({"db.statement": statement, "db.query.text": "SELECT 1"}, profile=SANITIZE)
    assert out.value["db.statement"] == (
        'SELECT u.id, "name" FROM users u WHERE u.email = ? '
        "AND u.age > ? AND u.code IN (?, ?, ?) AND t1.x = $1 AND y = :who"
    )
    assert out.value["db.query.text"] == "SELECT ?"
    assert [(f.path, f.category, f.detector) for f in out.report.findings] == [
        ("/db.statement", "raw-content", "sql-literal"),
        ("/db.query.text", "raw-content", "sql-literal"),
    ]


@pytest.mark.parametrize(
    ("statement", "sanitized"),
    [
        ("ALTER USER app WITH PASSWORD 'pw'", "ALTER USER app WITH PASSWORD ?"),
        ("CREATE USER app IDENTIFIED BY 'pw'", "CREATE USER app IDENTIFIED BY ?"),
        ("SELECT $$body$$, $fn$x$fn$", "SELECT ?, ?"),
        ("SELECT E'it\\'s', 'it''s', N'x'", "SELECT ?, ?, ?"),
        ('SELECT "two words", "col"', 'SELECT ?, "col"'),
        ("SELECT 'never closed", "SELECT ?"),
        ("SELECT a /* note */ FROM t", "SELECT a FROM t"),
        ("SELECT a FROM t -- note\nWHERE b = 1", "SELECT a FROM t\nWHERE b = ?"),
        ("SELECT a FROM t /* note", "SELECT a FROM t"),
        ("UPDATE u SET password = stored_hash", "UPDATE u SET password = ?"),
    ],
)
def test_sql_sanitizer(statement: str, sanitized: str) -> None:
    text, _ = sanitize_sql(statement)
    text, _ = sanitize_connection_string(text, sql=True)
    if statement.startswith("UPDATE"):
        assert text == "UPDATE u SET password = [REDACTED:connection-password]"
    else:
        assert text == sanitized
    assert sanitize_sql(text) == (text, [])


def test_urls_lose_query_values_and_passwords_but_keep_their_shape() -> None:
    out = redact(
        {
            "http.url": f"https://bob:{PASSWORD}@api.example.com/v1/items?page=2&token=abc#frag",
            "url.full": "https://app.example.com/cb#access_token=xyz&state=1",
            "http.target": "/search?q=jane",
            "url.query": "q=jane&lang=en",
            "next_url": "https://x.example.com/p?id=7",
            "note": "https://x.example.com/p?id=7",
        },
        profile=SANITIZE,
    )
    assert out.value == {
        "http.url": "https://bob:[REDACTED:url-password]@api.example.com/v1/items"
        "?page=[REDACTED:query-value]&token=[REDACTED:query-value]#frag",
        "url.full": "https://app.example.com/cb"
        "#access_token=[REDACTED:query-value]&state=[REDACTED:query-value]",
        "http.target": "/search?q=[REDACTED:query-value]",
        "url.query": "q=[REDACTED:query-value]&lang=[REDACTED:query-value]",
        "next_url": "https://x.example.com/p?id=[REDACTED:query-value]",
        "note": "https://x.example.com/p?id=7",  # not under a URL key
    }
    assert [(f.path, f.detector) for f in out.report.findings][:2] == [
        ("/http.url", "query-value"),
        ("/http.url", "url-password"),
    ]


def test_connection_strings_lose_their_password() -> None:
    out = redact(
        {
            "db.connection": f"Server=db;Database=app;User Id=sa;Password={PASSWORD};",
            "conn": f"host=db password={PASSWORD} dbname=app",
            "db.connection_string": "Server=db;Database=app",  # a credential key: whole
        },
        profile=SANITIZE,
    )
    assert out.value == {
        "db.connection": "Server=db;Database=app;User Id=sa;"
        "Password=[REDACTED:connection-password];",
        "conn": "host=db password=[REDACTED:connection-password] dbname=app",
        "db.connection_string": "[REDACTED:credential-key]",
    }


def test_sanitizers_leave_text_they_sanitized_and_capped_as_it_is() -> None:
    for text in (
        "https://h.example/p?a=[REDACTED:query-value]&b=[REDAC…[truncated 12 bytes]",
        'SELECT "abc…[truncated 3 bytes]',
    ):
        assert sanitize_urls(text) == (text, [])
        assert sanitize_sql(text) == (text, [])


# --- every place redaction runs ----------------------------------------------------------------


def _otlp_json(attributes: dict[str, str]) -> bytes:
    return json.dumps(
        {
            "resourceSpans": [
                {
                    "resource": {
                        "attributes": [{"key": "service.name", "value": {"stringValue": "desk"}}]
                    },
                    "scopeSpans": [
                        {
                            "spans": [
                                {
                                    "traceId": TRACE_ID,
                                    "spanId": "b" * 16,
                                    "name": "query",
                                    "kind": 3,
                                    "startTimeUnixNano": "1700000000000000000",
                                    "endTimeUnixNano": "1700000000000001000",
                                    "attributes": [
                                        {"key": k, "value": {"stringValue": v}}
                                        for k, v in attributes.items()
                                    ],
                                }
                            ]
                        }
                    ],
                }
            ]
        }
    ).encode()


ATTRIBUTES = {
    "db.statement": "SELECT * FROM users WHERE email = 'jane.doe@example.com'",
    "http.url": "https://api.example.com/v1?token=abc",
    "note": "order ACME-123456",
    "host.name": "box-1",
}
PROFILE_TEXT = (
    "extends: share\n"
    "allowedKeys: [service.name, db.statement, http.url, note]\n"
    "values: {block: ['ACME-[0-9]{6}']}\n"
    "summary: paths\n"
    "sanitize: {urls: true, sql: true}\n"
)
EXPECTED = {
    "db.statement": "SELECT * FROM users WHERE email = ?",
    "http.url": "https://api.example.com/v1?token=[REDACTED:query-value]",
    "note": "order [REDACTED:blocked-value]",
    "host.name": "[REDACTED:unlisted-key]",
    SUMMARY_COUNT: 4,
    SUMMARY_PATHS: [
        "/attributes/db.statement",
        "/attributes/host.name",
        "/attributes/http.url",
        "/attributes/note",
    ],
}


def _attributes_of(document: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"]:
        value = item["value"]
        if "arrayValue" in value:
            out[item["key"]] = [v["stringValue"] for v in value["arrayValue"]["values"]]
        elif "intValue" in value:
            out[item["key"]] = int(value["intValue"])
        else:
            out[item["key"]] = value["stringValue"]
    return out


def test_the_redact_command_takes_the_modes(tmp_path: Path) -> None:
    trace = tmp_path / "run.otlp.json"
    trace.write_bytes(_otlp_json(ATTRIBUTES))
    path = tmp_path / "acme.yaml"
    path.write_text(PROFILE_TEXT, encoding="utf-8")
    out = tmp_path / "shared.otlp.json"
    assert main(["redact", str(trace), "-o", str(out), "--profile", str(path)]) == 0
    assert _attributes_of(json.loads(out.read_bytes())) == EXPECTED
    assert main(["verify-safe", str(out), "--profile", str(path)]) == 0


def test_the_redact_command_refuses_an_allow_list_for_claude_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "acme.yaml"
    path.write_text(PROFILE_TEXT, encoding="utf-8")
    records = Path(__file__).resolve().parent.parent / "fixtures/claude/refund-stream.jsonl"
    out = tmp_path / "out.jsonl"
    assert main(["redact", str(records), "-o", str(out), "--profile", str(path)]) == 2
    assert "has allowedKeys, which would mask their structure" in capsys.readouterr().err
    assert not out.exists()


def test_the_proxys_scrubber_applies_the_modes(tmp_path: Path) -> None:
    pytest.importorskip("google.protobuf")
    from redact.inspector import known_secrets_of
    from redact.shipping.scrubbing import Scrubber

    path = tmp_path / "acme.yaml"
    path.write_text(PROFILE_TEXT, encoding="utf-8")
    scrubber = Scrubber(load_profile(path), known_secrets_of([]), b"k" * 32)
    scrubbed = scrubber(_otlp_json(ATTRIBUTES), "json", None)
    assert (scrubbed.received, scrubbed.kept) == (1, 1)
    assert scrubbed.payload is not None
    assert _attributes_of(json.loads(scrubbed.payload)) == EXPECTED


def test_the_exporter_wrapper_applies_the_modes(tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from redact.otel import RedactingSpanExporter

    path = tmp_path / "acme.yaml"
    path.write_text(PROFILE_TEXT, encoding="utf-8")
    inner = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(
        SimpleSpanProcessor(RedactingSpanExporter(inner, profile=str(path)))
    )
    with provider.get_tracer("t").start_as_current_span("query", attributes=ATTRIBUTES):
        pass
    provider.force_flush()
    (sent,) = inner.get_finished_spans()
    attributes = dict(sent.attributes or {})
    attributes[SUMMARY_PATHS] = list(attributes[SUMMARY_PATHS])
    assert attributes == EXPECTED


# --- idempotency -------------------------------------------------------------------------------

MODE_PROFILES = [
    ALLOW,
    VALUES,
    SHA,
    SANITIZE,
    profile(
        allowedKeys=["note", "db.statement", "http.url", "keep*"],
        values={"allow": ["[a-z]+ ok"], "block": ["ACME-[0-9]{2,6}", "e+"]},
        pseudonyms="sha256",
        summary="paths",
        sanitize={"urls": True, "sql": True},
    ),
]
FRAGMENTS = [
    GITHUB_TOKEN,
    EMAIL,
    OTHER_EMAIL,
    "ACME-1234",
    "fine ok",
    "https://u:p@h.example/p?a=1&b",
    "SELECT 'x', 42 FROM t",
    '"na me"',
    "password=",
    "Password=x;",
    "--",
    "/*",
    "$$",
    "?",
    "#",
    "&",
    "=",
    "[REDACTED:x]",
    "…",
    "é",
    " ",
]
text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=8).map("".join)
# Keys from a fixed set (free text in keys meets the base redactor's own key rules, which the
# general property in test_redact_properties.py covers).
keys = st.sampled_from(
    [
        "note",
        "db.statement",
        "http.url",
        "url.query",
        "keep.x",
        "other",
        "userId",
        "password",
        "conn",
        EMAIL,
        GITHUB_TOKEN,
    ]
)
values: st.SearchStrategy[Any] = st.recursive(
    st.one_of(text, st.integers(), st.none(), st.booleans()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(keys, values, max_size=5), st.sampled_from(range(len(MODE_PROFILES))))
def test_redaction_under_any_mode_is_idempotent(value: dict[str, Any], which: int) -> None:
    chosen = MODE_PROFILES[which]
    once = redact(value, profile=chosen, pseudonym_key=b"k" * 32)
    twice = redact(once.value, profile=chosen, pseudonym_key=b"k" * 32)
    assert twice.value == once.value
    assert twice.report.findings == ()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(keys, text, max_size=5), st.sampled_from(range(len(MODE_PROFILES))))
def test_span_redaction_under_any_mode_is_idempotent(
    attributes: dict[str, str], which: int
) -> None:
    chosen = MODE_PROFILES[which]
    spans = [span(attributes, events=(Event("e", 1, attributes),), resource={"keep.r": "x"})]
    once = redact_spans(spans, profile=chosen, pseudonym_key=b"k" * 32)
    twice = redact_spans(once.spans, profile=chosen, pseudonym_key=b"k" * 32)
    assert twice.spans == once.spans


# --- the documentation -------------------------------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs" / "redaction.md"


def _modes_section() -> str:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("### Redaction modes")
    return text[start : text.index("\n## ", start)]


def _blocks(kind: str) -> list[str]:
    section = _modes_section()
    return [block.split("\n```", 1)[0] for block in section.split(f"```{kind}\n")[1:]]


def test_the_documented_profile_loads_and_its_examples_hold() -> None:
    (document,) = _blocks("yaml")
    documented = load_profile(document)
    assert documented.modes is not None and documented.modes.summary == "paths"
    url, sql = _blocks("text")
    url_in, url_out = url.splitlines()
    sql_in, sql_out = sql.splitlines()
    out = redact({"http.url": url_in, "db.statement": sql_in}, profile=documented)
    assert out.value == {"http.url": url_out, "db.statement": sql_out}
