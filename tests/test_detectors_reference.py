"""The 24 reference credential shapes (spec §B5.1) with the Part A4 fixes.

Every credential-shaped value is built from parts at run time, so this file holds no contiguous
token a secret scanner would flag. All values are fake.
"""

from __future__ import annotations

import re

import pytest
import regex
from detector_support import assert_linear_time, assert_prefilter_covers, texts_around
from hypothesis import given
from hypothesis import strategies as st

from redact.detectors import REFERENCE_DETECTORS, Detector, detect_credential, detector
from redact.engine import re2


def j(*parts: str) -> str:
    return "".join(parts)


SPEC_ORDER = [
    "private-key",
    "jwt",
    "bearer",
    "authorization-header",
    "anthropic-key",
    "provider-key",
    "stripe-key",
    "google-api-key",
    "github-token",
    "slack-token",
    "aws-access-key",
    "tangle-capability",
    "url-credentials",
    "url-secret-param",
    "secret-assignment",
    "json-secret",
    "env-secret-assignment",
    "huggingface-token",
    "npm-token",
    "gitlab-token",
    "groq-key",
    "xai-key",
    "bare-sk-key",
    "cookie-header",
]

_ALNUM32 = j("0123456789abcdef", "0123456789ABCDEF")
_JWT = j(
    "eyJhbGciOiJIUzI1NiJ9", ".", "eyJzdWIiOiIxMjMifQ", ".", "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV"
)

# (detector id, text, why): the first detector in spec order that matches is the one named.
POSITIVES: list[tuple[str, str, str]] = [
    ("private-key", j("-----BEGIN RSA ", "PRIV", "ATE KEY-----\nMIIEow"), "rsa"),
    ("private-key", j("-----BEGIN OPENSSH ", "PRIV", "ATE KEY-----"), "openssh"),
    ("private-key", j("key: -----BEGIN ENCRYPTED ", "PRIV", "ATE KEY-----"), "encrypted-in-line"),
    ("jwt", _JWT, "bare"),
    ("jwt", j("callback?state=1&id_tok=", _JWT), "in-url"),
    ("bearer", j("Authorization: Bea", "rer 4f9c2a7e1b", "8d3f6a0c5e2b9d7f"), "header"),
    ("bearer", j("bearer\u00a0", "abc.DEF_123-xyz~"), "nbsp"),
    ("authorization-header", j("Basic dXNl", "cjpwYXNzd29yZA=="), "whole-string"),
    ("authorization-header", j("  digest user", "name=alice1  "), "whole-string-padded"),
    (
        "authorization-header",
        j('curl -H "Authorization: Basic dXNl', 'cjpwYXNz" https://x.test'),
        "a4-inline-curl",
    ),
    (
        "authorization-header",
        j('{"authorization": "Digest user', 'name=alice, realm=x"}'),
        "a4-inline-json",
    ),
    ("authorization-header", j("Proxy-Authorization: ApiKey 8f2a9c", "1d7e"), "a4-inline-apikey"),
    ("anthropic-key", j("sk", "-ant-", "api03-abcdEFGH1234ijklMNOP"), "bare"),
    ("anthropic-key", j('{"key":"sk', "-ant-", 'api03-abcdEFGH1234ijklMNOP"}'), "quoted"),
    ("provider-key", j("OPENAI key sk", "-proj-", "abcdEFGH1234ijklMNOP5678qrst"), "proj"),
    ("provider-key", j("sk", "-", "0123456789abcdef0123"), "legacy"),
    ("provider-key", j("url?key%3Dsk", "-", "0123456789abcdef0123"), "after-percent-escape"),
    ("provider-key", j('"keys:\\nsk', "-", '0123456789abcdef0123"'), "after-json-newline"),
    ("stripe-key", j("sk", "_live_", "51Habcdefghijklmnop"), "live"),
    ("stripe-key", j("STRIPE=rk", "_test_", "abc123DEF456"), "restricted"),
    ("google-api-key", j("AIza", "SyDaGmWKa4JsXZ-", "HjGw7ISLn_3namBGewQe"), "bare"),
    ("github-token", j("gh", "p_", "ABCDEFGHIJKLMNOPQRST", "UVWXYZ0123456789"), "classic"),
    ("github-token", j("github", "_pat_", "11ABCDEFG0123456789", "_abcdefghij"), "fine-grained"),
    ("github-token", j("https://gh", "s_", "abcdefghij0123456789", "@github.com"), "in-url"),
    ("slack-token", j("xo", "xb-", "1234567890-abcdefghijklmnop"), "bot"),
    ("slack-token", j("xo", "xp-", "1234-5678-abcd"), "user"),
    ("aws-access-key", j("aws_access_key_id = AK", "IA", "IOSFODNN7EXAMPLE"), "akia"),
    ("aws-access-key", j("BACKUP_AS", "IA", "IOSFODNN7EXAMPLE"), "no-left-boundary"),
    ("tangle-capability", j("hub", "cap_", "abcDEF123="), "hubcap"),
    ("tangle-capability", j("hc", "t_", "0123456789"), "hct"),
    ("url-credentials", j("postgres://app:s3cr3t", "Passw0rd@db.internal:5432/app"), "postgres"),
    ("url-credentials", j("redis://:", "pw1@cache.internal:6379"), "a4-empty-user"),
    ("url-credentials", j("see 1.https://bot:", "tok@host"), "scheme-after-dot"),
    (
        "url-secret-param",
        j("GET https://api.example.test/v1/items?api_", "key=Zx81kq0Pw7", "Lm3Nb9 200"),
        "api-key",
    ),
    ("url-secret-param", j("https://s3.test/o?X-Amz-Signature=", "abcdef0123456789"), "amz"),
    (
        "secret-assignment",
        j("cd repo && GH_TOK", "EN=x1y2z3x1y2z3", "x1y2z3 gh pr list"),
        "env-in-command",
    ),
    ("secret-assignment", j('{"client_sec', 'ret": "a8f3k2m9', 'q7w1e5r4"}'), "json"),
    ("secret-assignment", j("--api-key=", "k3y-v4lue-0000"), "cli-flag"),
    ("secret-assignment", j("password: ", "correct7horse8battery"), "yaml"),
    ("json-secret", j('judge note: {"pass', 'word":"hunter2"} ok'), "short"),
    ("json-secret", j('{"db": {"clientSec', 'ret": "abc def"}}'), "one-space"),
    ("json-secret", j("cfg: {'refresh_tok", "en': 'r1-xyz'}"), "single-quotes"),
    ("env-secret-assignment", j("DB_PASSWORD=Correct", "HorseBatteryStaple"), "letters-only"),
    ("env-secret-assignment", j("PGPASSWORD=", "postgres"), "glued-name"),
    ("env-secret-assignment", j("PASSWORD=", "hunter2x"), "a4-bare-password"),
    ("env-secret-assignment", j("TOKEN=", "abcd1234"), "a4-bare-token"),
    ("env-secret-assignment", j("export API_KEY=", "abcdefgh"), "a4-bare-api-key"),
    ("huggingface-token", j("hf_", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"), "bare"),
    ("npm-token", j("npm_", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), "bare"),
    ("gitlab-token", j("glpat-", "ABCDEFGHIJKLMNOP0123"), "bare"),
    ("groq-key", j("gsk_", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), "bare"),
    ("xai-key", j("xai-", "ABCDEFGHIJKLMNOP0123"), "bare"),
    ("bare-sk-key", j("sk_", "0123456789abcdef0123456789abcdef01234567"), "bare"),
    ("cookie-header", j("Cookie: sessionid=", "abc123def456xyz789"), "cookie"),
    ("cookie-header", j("Set-Cookie: id=", "abc; Path=/"), "set-cookie"),
]

# (detector id, text, why): that detector does not match (another one may).
NEAR_MISSES: list[tuple[str, str, str]] = [
    ("private-key", j("-----BEGIN PGP ", "PRIV", "ATE KEY BLOCK-----"), "pgp"),
    ("private-key", "-----BEGIN PUBLIC KEY-----", "public"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ", "unsigned-two-segments"),
    ("jwt", "eyJabc.eyJdef.ghi", "segments-too-short"),
    ("bearer", "Authorization: Bearer ${TOKEN}", "template"),
    ("bearer", "Send a Bearer token in the Authorization header.", "prose"),
    ("bearer", "Bearer abc123", "short"),
    ("authorization-header", "use basic auth for the admin panel", "prose"),
    (
        "authorization-header",
        "Authorization: Basic authentication is required",
        "prose-after-keyword",
    ),
    ("authorization-header", "the basic approach works", "prose-basic"),
    ("anthropic-key", j("sk", "-ant-", "api03"), "short"),
    ("provider-key", "task-sk-list", "short-kebab"),
    ("provider-key", "task-specific-instructions-for-agent", "a5-word-tail"),
    ("provider-key", "risk-management-framework-overview", "a5-word-tail-2"),
    ("stripe-key", j("pk", "_live_", "51Habcdefghijklmnop"), "publishable"),
    ("stripe-key", "mask_test_cases_for_redaction", "a5-word-tail"),
    ("google-api-key", "AIzaShort", "short"),
    ("github-token", j("gh", "p_", "short"), "short"),
    ("github-token", "highs_and_lows_of_the_market_today", "a5-word-tail"),
    ("slack-token", j("xo", "xz-", "1234567890abc"), "unknown-kind"),
    ("aws-access-key", j("AK", "IA", "IOSFODNN7EXAMPLEX"), "seventeen"),
    ("aws-access-key", j("AK", "IA", "IOSFODNN7EXAMPL"), "fifteen"),
    ("tangle-capability", j("hc", "t_", "short"), "short"),
    ("url-credentials", "https://user@host.test/path", "no-password"),
    ("url-credentials", "http://host.test:8080/a@b", "port-not-password"),
    ("url-credentials", "x_http://u:p@h", "scheme-glued-to-word"),
    ("url-secret-param", "https://x.test/?token=short", "short"),
    ("url-secret-param", "https://x.test/?page=12345678", "other-name"),
    ("secret-assignment", "token: string", "type-annotation"),
    ("secret-assignment", "password: <from vault>", "placeholder"),
    ("secret-assignment", "export GH_TOKEN=$GH_TOKEN", "variable"),
    ("secret-assignment", "OPENAI_API_KEY=encrypted:BHd8wXcNq2pLk1ZrYy0uTg==", "encrypted"),
    ("secret-assignment", "password=CorrectHorseBatteryStaple", "letters-only"),
    ("secret-assignment", "next_page_token=CAESBggBEAEYAQ", "page-token"),
    ("json-secret", '{"token": "Hello", "logprob": -0.12}', "bare-token"),
    ("json-secret", '{"passwordHash": "abc"}', "key-not-ending-in-keyword"),
    ("json-secret", '{"credentials": "Environment variables the provider reads"}', "prose"),
    ("json-secret", '{"password": "$DB_PASSWORD"}', "variable"),
    ("json-secret", '{"password": "[REDACTED:credential-key]"}', "placeholder"),
    ("env-secret-assignment", "MAX_TOKENS=16", "plural"),
    ("env-secret-assignment", "SESSION_TOKEN_EXPIRY=3600", "keyword-inside"),
    ("env-secret-assignment", "TOKEN=$VAR", "variable"),
    ("env-secret-assignment", "TOKEN=${X}", "template"),
    ("env-secret-assignment", 'DB_PASSWORD="quoted-value"', "quoted"),
    ("env-secret-assignment", "PASSWORD=abc", "short"),
    ("env-secret-assignment", "password=hunter2x", "lower-case"),
    ("huggingface-token", j("xhf_", "ABCDEFGHIJKLMNOPQRSTUV"), "no-boundary"),
    ("npm-token", j("npm_", "short"), "short"),
    ("gitlab-token", j("glpat-", "short"), "short"),
    ("groq-key", j("gsk_", "ABCDEFGHIJ"), "short"),
    ("xai-key", j("xai-", "ABCDEFGH"), "short"),
    ("bare-sk-key", j("sk_", _ALNUM32, "_suffix"), "underscore-after"),
    ("bare-sk-key", j("sk_", _ALNUM32[:31]), "thirty-one"),
    ("cookie-header", "Cookie: a=b", "short"),
    ("cookie-header", "the cookie: none", "no-name-value"),
]


def _ids(cases: list[tuple[str, str, str]]) -> list[str]:
    return [f"{d}-{why}" for d, _, why in cases]


def test_ids_and_order_are_the_reference_ones() -> None:
    assert [d.id for d in REFERENCE_DETECTORS] == SPEC_ORDER


@pytest.mark.parametrize("d", REFERENCE_DETECTORS, ids=lambda d: d.id)
def test_every_detector_is_documented_and_covered(d: Detector) -> None:
    assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", d.id)
    assert d.description and "\n" not in d.description and len(d.description) <= 100
    assert d.category == "credential"
    assert any(case[0] == d.id for case in POSITIVES)
    assert any(case[0] == d.id for case in NEAR_MISSES)


@pytest.mark.parametrize(("detector_id", "text", "why"), POSITIVES, ids=_ids(POSITIVES))
def test_positive_is_named_by_its_detector(detector_id: str, text: str, why: str) -> None:
    assert detect_credential(text, REFERENCE_DETECTORS) == detector_id


@pytest.mark.parametrize(("detector_id", "text", "why"), NEAR_MISSES, ids=_ids(NEAR_MISSES))
def test_near_miss_is_not_matched(detector_id: str, text: str, why: str) -> None:
    assert not detector(detector_id).search(text)


def test_authorization_header_whole_string_form_is_kept() -> None:
    # The reference flags any whole string shaped like a header value, prose or not.
    assert detector("authorization-header").search("Basic authentication")
    assert not detector("authorization-header").search("use Basic authentication")


def test_spans_start_at_the_token_not_inside_a_run() -> None:
    text = j("xx", _JWT, " and ", "1.https://bot:", "tok@host")
    assert [text[a:b] for a, b in detector("jwt").find(text)] == [_JWT]
    found = [text[a:b] for a, b in detector("url-credentials").find(text)]
    assert found == ["https://bot:tok@"]


# The JWT pattern as first written, scanning each base64url run from its start: the oracle for
# the one that opens with `eyJ` and looks back (the same tokens, found faster).
_PLAIN_JWT = regex.compile(
    r"(?<![A-Za-z0-9_-])(?>[A-Za-z0-9_-]*?(?=eyJ))\K"
    r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    regex.ASCII | regex.VERSION0,
)
_JWT_PIECES = ["eyJ", j("eyJ", "hbGciOiJIUzI1NiJ9"), ".", "abcdefgh", "e", "y", "J", "-", "_", " "]


@given(st.lists(st.one_of(st.sampled_from(_JWT_PIECES), st.text(max_size=3)), max_size=14))
def test_jwt_finds_what_a_scan_of_every_run_from_its_start_finds(pieces: list[str]) -> None:
    text = "".join(pieces)
    expected = [match.span() for match in _PLAIN_JWT.finditer(text)]
    assert list(detector("jwt").find(text)) == expected


# --- prefilters --------------------------------------------------------------------------------


@pytest.mark.parametrize(("detector_id", "text", "why"), POSITIVES, ids=_ids(POSITIVES))
def test_prefilter_flags_every_positive(detector_id: str, text: str, why: str) -> None:
    d = detector(detector_id)
    assert d.search(text)
    prefilter = re2.compile(d.prefilter.encode())
    assert prefilter.search(text.encode())
    joined = "\n".join(["first line", text, "ü last line"])
    assert prefilter.search(joined.encode())


_FRAGMENTS = [
    "sk-",
    "sk-ant-",
    "sk_",
    "_live_",
    "eyJ",
    "Bearer ",
    "Basic ",
    "Authorization: ",
    "://",
    "?token=",
    "&sig=",
    "TOKEN=",
    "PASSWORD",
    "password",
    '"',
    "'",
    ": ",
    "=",
    "@",
    "-----BEGIN ",
    "PRIVATE KEY-----",
    "cookie",
    "AKIA",
    "ghp_",
    "xoxb-",
]
_CHARS = [*"aZ09_-.:/@=+~ \t\n\"'%\\{$", "\u00a0", "\u3000", "\ufeff", "é"]


def _texts_around(examples: list[str]) -> st.SearchStrategy[str]:
    return texts_around(
        examples,
        st.sampled_from(_FRAGMENTS),
        st.sampled_from(_CHARS),
        st.text(st.sampled_from(_CHARS), max_size=20),
    )


@pytest.mark.parametrize("d", REFERENCE_DETECTORS, ids=lambda d: d.id)
def test_prefilter_never_misses_a_match(d: Detector) -> None:
    examples = [text for detector_id, text, _ in POSITIVES + NEAR_MISSES if detector_id == d.id]
    assert_prefilter_covers(d, _texts_around(examples), max_examples=200)


# --- linear time ---------------------------------------------------------------------------------


_HOSTILE_UNITS = [
    "a",
    "a.",
    "A_",
    "1-",
    " ",
    "\u3000",
    '"',
    "a@",
    "eyJ",
    "eyJabcdefgh.",
    "sk-",
    "https://a",
    "a:b",
    "token=",
    "TOKEN",
    '"password": "a ',
    "Authorization: ",
    "-----BEGIN A",
]


@pytest.mark.parametrize("d", REFERENCE_DETECTORS, ids=lambda d: d.id)
def test_hostile_input_runs_in_linear_time(d: Detector) -> None:
    near = [text for detector_id, text, _ in POSITIVES + NEAR_MISSES if detector_id == d.id]
    # Almost-matches: a few examples cut short, repeated to 100 KB.
    assert_linear_time(d, _HOSTILE_UNITS + [t[:-1] for t in near[:6] if len(t) > 1])
