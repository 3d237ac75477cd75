"""Audit of the whole credential registry against realistic positives and near misses.

The corpus is built at run time: every token-shaped value is assembled from split prefixes and a
seeded generator, so no contiguous credential appears in this file. Failures are reported by index
and label only, never by value.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid

from redact.detectors import detect_credential

RECALL_TARGET = 0.95
NEAR_MISS_LIMIT = 0.05

_RNG = random.Random(20240611)
_B62 = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"
_UP_DIGIT = string.ascii_uppercase + string.digits


def _r(n: int, alphabet: str = _B62) -> str:
    while True:
        value = "".join(_RNG.choice(alphabet) for _ in range(n))
        # Random tokens of a mixed alphabet mix its classes; a rare draw that does not would
        # describe no real vendor's output, so draw again.
        if alphabet != _B62 or n < 8 or _mixed3(value):
            return value


def _mixed3(value: str) -> bool:
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )


def _p(*parts: str) -> str:
    return "".join(parts)


def _b64url(n: int) -> str:
    return _r(n, _B62 + "-_")


def _jwt() -> str:
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(
        json.dumps({"sub": _r(10), "iat": 1718000000}).encode()
    ).decode()
    return f"{header}.{body.rstrip('=')}.{_b64url(43)}"


def _positives() -> list[tuple[str, str]]:
    marker = _p("T3Blbk", "FJ")
    oa = _p("s", "k-")
    ant = _p("sk-", "ant-")
    aws_id = _p("AK", "IA") + _r(16, _UP_DIGIT)
    aws_sts = _p("AS", "IA") + _r(16, _UP_DIGIT)
    aws_secret = _r(40, _B62 + "/+")
    pem_body = base64.b64encode(bytes(_RNG.randrange(256) for _ in range(48))).decode()
    priv = _p("-----BEGIN ", "PRIVATE KEY-----")
    cases: list[tuple[str, str]] = [
        ("openai-proj-marker", f'OPENAI_API_KEY="{oa}proj-{_b64url(74)}{marker}{_b64url(74)}"'),
        ("openai-proj", f"export OPENAI_API_KEY={oa}proj-{_b64url(156)}"),
        ("openai-svcacct", f'{{"api_key": "{oa}svcacct-{_b64url(58)}{marker}{_b64url(58)}"}}'),
        ("openai-admin", f"Authorization: Bearer {oa}admin-{_b64url(60)}"),
        ("openai-legacy-48", f"client = OpenAI(api_key='{oa}{_r(20)}{marker}{_r(20)}')"),
        ("openai-legacy-plain", f"INFO using key {oa}{_r(48)} for request"),
        ("anthropic-api03", f"ANTHROPIC_API_KEY={ant}api03-{_b64url(93)}AA"),
        ("anthropic-admin", f'headers = {{"x-api-key": "{ant}admin01-{_b64url(93)}AA"}}'),
        ("github-ghp", f"git clone https://{_p('gh', 'p_')}{_r(36)}@github.com/acme/app.git"),
        ("github-gho", f"GH_TOKEN={_p('gh', 'o_')}{_r(36)}"),
        ("github-ghu", f'{{"token": "{_p("gh", "u_")}{_r(36)}"}}'),
        ("github-ghs", f"Authorization: token {_p('gh', 's_')}{_r(36)}"),
        ("github-ghr", f"refresh={_p('gh', 'r_')}{_r(36)}"),
        ("github-pat", f"gh auth login --with-token <<< {_p('github', '_pat_')}{_r(22)}_{_r(59)}"),
        ("gitlab-glpat", f"curl -H 'PRIVATE-TOKEN: {_p('gl', 'pat-')}{_b64url(20)}' gitlab.com"),
        (
            "slack-xoxb",
            f"SLACK_BOT_TOKEN={_p('xo', 'xb-')}{_r(12, string.digits)}-{_r(13, string.digits)}-{_r(24)}",
        ),
        (
            "slack-xoxp",
            f'"slack": "{_p("xo", "xp-")}{_r(12, string.digits)}-{_r(12, string.digits)}-{_r(13, string.digits)}-{_r(32, _HEX)}"',
        ),
        ("slack-xoxa", f"token {_p('xo', 'xa-')}2-{_r(12, string.digits)}-{_r(24)}"),
        ("slack-xoxe", f"rotated {_p('xo', 'xe-')}1-{_r(140)}"),
        (
            "slack-xapp",
            f"SLACK_APP_TOKEN={_p('xa', 'pp-')}1-A{_r(10, _UP_DIGIT)}-{_r(13, string.digits)}-{_r(64, _HEX)}",
        ),
        (
            "slack-webhook",
            f"POST https://{_p('hooks.', 'slack.com')}/services/T{_r(10, _UP_DIGIT)}/B{_r(10, _UP_DIGIT)}/{_r(24)}",
        ),
        ("stripe-sk-live-24", f"STRIPE_SECRET_KEY={_p('sk', '_live_')}{_r(24)}"),
        ("stripe-sk-live-99", f'stripe.api_key = "{_p("sk", "_live_")}51{_r(97)}"'),
        ("stripe-rk-live", f"using {_p('rk', '_live_')}{_r(99)}"),
        ("stripe-sk-test", f"-u {_p('sk', '_test_')}{_r(34)}:"),
        ("stripe-whsec", f"STRIPE_WEBHOOK_SECRET={_p('wh', 'sec_')}{_r(32)}"),
        ("aws-akia", f"aws_access_key_id = {aws_id}"),
        ("aws-asia", f'{{"AccessKeyId": "{aws_sts}", "Expiration": "2024-06-11"}}'),
        ("aws-secret", f"aws_secret_access_key = {aws_secret}"),
        (
            "google-aiza",
            f"GET /maps/api/geocode/json?address=x&key={_p('AI', 'za')}Sy{_b64url(33)}",
        ),
        ("google-aiza-env", f"GOOGLE_API_KEY={_p('AI', 'za')}Sy{_b64url(33)}"),
        ("google-ya29", f"Authorization: Bearer {_p('ya', '29.')}a0A{_b64url(150)}"),
        ("google-gocspx", f'"client_secret": "{_p("GOC", "SPX-")}{_b64url(28)}"'),
        (
            "gcp-service-account",
            json.dumps(
                {
                    "type": "service_account",
                    "private_key": f"{priv}\n{pem_body}\n-----END PRIVATE KEY-----\n",
                }
            ),
        ),
        (
            "azure-storage",
            f"DefaultEndpointsProtocol=https;AccountName=acme;{_p('Account', 'Key')}="
            f"{base64.b64encode(bytes(_RNG.randrange(256) for _ in range(64))).decode()};"
            "EndpointSuffix=core.windows.net",
        ),
        ("twilio-sk", f"TWILIO_API_KEY={_p('S', 'K')}{_r(32, _HEX)}"),
        ("twilio-ac-pair", f"twilio_auth = {_p('A', 'C')}{_r(32, _HEX)}:{_r(32)}"),
        ("sendgrid", f"SENDGRID_API_KEY={_p('S', 'G.')}{_b64url(22)}.{_b64url(43)}"),
        ("mailgun", f"mailgun api: {_p('ke', 'y-')}{_r(32, _HEX)}"),
        ("huggingface", f"huggingface-cli login --token {_p('h', 'f_')}{_r(34)}"),
        ("npm", f"//registry.npmjs.org/:_authToken={_p('np', 'm_')}{_r(36)}"),
        ("pypi", f"password = {_p('py', 'pi-')}AgEIcHlwaS5vcmc{_b64url(150)}"),
        (
            "docker",
            f"echo {_p('dck', 'r_pat_')}{_b64url(27)} | docker login -u acme --password-stdin",
        ),
        ("shopify", f"X-Shopify-Access-Token: {_p('shp', 'at_')}{_r(32, _HEX)}"),
        ("square", f"SQUARE_ACCESS_TOKEN={_p('sq0', 'atp-')}{_b64url(22)}"),
        ("digitalocean", f"doctl auth init -t {_p('dop', '_v1_')}{_r(64, _HEX)}"),
        ("doppler", f"DOPPLER_TOKEN={_p('dp.', 'pt.')}{_r(43)}"),
        ("vault", f"VAULT_TOKEN={_p('hv', 's.')}CAES{_b64url(90)}"),
        ("linear", f'"Authorization": "{_p("lin", "_api_")}{_r(40)}"'),
        ("notion-secret", f"NOTION_TOKEN={_p('sec', 'ret_')}{_r(43)}"),
        ("notion-ntn", f"notion = Client(auth='{_p('nt', 'n_')}{_r(46)}')"),
        ("postman", f"x-api-key: {_p('PM', 'AK-')}{_r(24, _HEX)}-{_r(34, _HEX)}"),
        ("grafana-glc", f"GRAFANA_CLOUD_TOKEN={_p('gl', 'c_')}{_r(120)}=="),
        ("grafana-glsa", f"token {_p('gl', 'sa_')}{_r(32)}_{_r(8, _HEX)}"),
        ("newrelic", f"NEW_RELIC_API_KEY={_p('NR', 'AK-')}{_r(27, _UP_DIGIT)}"),
        (
            "sentry-dsn",
            f"SENTRY_DSN=https://{_r(32, _HEX)}@o{_r(6, string.digits)}.ingest.sentry.io/{_r(7, string.digits)}",
        ),
        ("groq", f"GROQ_API_KEY={_p('gs', 'k_')}{_r(52)}"),
        ("xai", f"XAI_API_KEY={_p('xa', 'i-')}{_r(80)}"),
        ("replicate", f"export REPLICATE_API_TOKEN={_p('r', '8_')}{_r(37)}"),
        ("perplexity", f"PPLX key {_p('pp', 'lx-')}{_r(48)}"),
        ("pinecone", f"PINECONE_API_KEY={_p('pc', 'sk_')}{_r(5)}_{_r(64)}"),
        ("langsmith", f"LANGSMITH_API_KEY={_p('lsv', '2_pt_')}{_r(32, _HEX)}_{_r(10, _HEX)}"),
        ("databricks", f"DATABRICKS_TOKEN={_p('da', 'pi')}{_r(32, _HEX)}"),
        ("atlassian", f"JIRA_API_TOKEN={_p('ATA', 'TT3')}xFfGF0{_b64url(170)}={_r(8, _HEX)}"),
        ("telegram", f"https://api.telegram.org/bot{_r(10, string.digits)}:AA{_b64url(33)}/getMe"),
        (
            "discord-webhook",
            f"https://{_p('discord', '.com')}/api/webhooks/{_r(19, string.digits)}/{_b64url(68)}",
        ),
        ("jwt", f"Authorization: Bearer {_jwt()}"),
        ("jwt-json", f'{{"id_token": "{_jwt()}"}}'),
        ("pem-rsa", _p("-----BEGIN RSA ", "PRIVATE KEY-----\n") + pem_body),
        ("pem-openssh", _p("-----BEGIN OPENSSH ", "PRIVATE KEY-----")),
        ("pem-ec", _p("key = '-----BEGIN EC ", "PRIVATE KEY-----\\n") + pem_body + "'"),
        ("db-postgres", f"DATABASE_URL=postgres://app:{_r(20)}@db.internal:5432/app"),
        ("db-mysql", f"engine = create_engine('mysql+pymysql://root:{_r(16)}@localhost/db')"),
        (
            "db-mongo",
            f"MONGO_URI=mongodb+srv://admin:{_r(18)}@cluster0.abcde.mongodb.net/?retryWrites=true",
        ),
        ("db-redis", f"redis-cli -u redis://:{_r(24)}@cache:6379/0"),
        ("db-amqp", f"broker_url = 'amqp://guest:{_r(14)}@rabbit:5672//'"),
    ]
    return cases


_NEAR_MISS_SEED = random.Random(99)


def _hex(n: int) -> str:
    return "".join(_NEAR_MISS_SEED.choice(_HEX) for _ in range(n))


def _near_misses() -> list[tuple[str, str]]:
    oa = _p("s", "k-")
    image = base64.b64encode(bytes(_NEAR_MISS_SEED.randrange(256) for _ in range(96))).decode()
    sha = hashlib.sha256(b"audit").hexdigest()
    cases: list[tuple[str, str]] = [
        ("ph-sk-x", f'OPENAI_API_KEY="{oa}{"x" * 24}"'),
        ("ph-sk-dots", f"set your key: {oa}..."),
        ("ph-sk-angle", f"api_key={oa}<your key>"),
        ("ph-sk-proj-dots", f"Keys look like {oa}proj-... and start with sk-"),
        ("ph-ghp-X", f"GITHUB_TOKEN={_p('gh', 'p_')}{'X' * 36}"),
        ("ph-ghp-x-doc", f"e.g. {_p('gh', 'p_')}{'x' * 36}"),
        ("ph-akia-X", f"aws_access_key_id = {_p('AK', 'IA')}{'X' * 16}"),
        ("ph-aiza-dots", f"key={_p('AI', 'za')}Sy..."),
        ("ph-xoxb-your", f"SLACK_BOT_TOKEN={_p('xo', 'xb-')}your-token"),
        ("ph-xoxb-your-long", f"SLACK_BOT_TOKEN={_p('xo', 'xb-')}your-bot-token-here"),
        ("ph-stripe-stars", f"STRIPE_KEY={_p('sk', '_live_')}****"),
        ("ph-stripe-stars-long", f"key: {_p('sk', '_live_')}{'*' * 24}"),
        ("ph-stripe-x", f"STRIPE_SECRET_KEY={_p('sk', '_test_')}{'x' * 24}"),
        ("ph-hf-xxx", "HF_TOKEN=hf_xxx"),
        ("ph-hf-x-long", f"token = {_p('h', 'f_')}{'x' * 34}"),
        ("ph-your-api-key", "OPENAI_API_KEY=YOUR_API_KEY"),
        ("ph-token-angle", "Authorization: Bearer <token>"),
        ("ph-env-ref", "OPENAI_API_KEY=${OPENAI_API_KEY}"),
        ("ph-shell-ref", 'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com'),
        ("ph-anthropic-x", f"ANTHROPIC_API_KEY={_p('sk-', 'ant-')}{'x' * 40}"),
        ("ph-anthropic-dots", f"key {_p('sk-', 'ant-')}api03-..."),
        ("ph-glpat-x", f"token: {_p('gl', 'pat-')}{'x' * 20}"),
        ("ph-sk-zero", f"{oa}{'0' * 32}"),
        ("ph-sk-your-key-here", f"export OPENAI_API_KEY={oa}your-key-here-please"),
        ("ph-sk-your-openai", f"{oa}your-openai-api-key"),
        ("ph-npm-x", f"npm_{'X' * 36}"),
        ("trunc-sk", f"key {oa}ab12"),
        ("trunc-ghp", f"{_p('gh', 'p_')}a1B2c3"),
        ("trunc-akia", f"{_p('AK', 'IA')}ABC123"),
        ("pk-live", f"publishableKey: '{_p('pk', '_live_')}{_hex(24)}'"),
        ("pk-test", f"STRIPE_PUBLISHABLE_KEY={_p('pk', '_test_')}{_hex(24)}"),
        ("sk-learn", "pip install scikit-learn  # a.k.a. sk-learn"),
        ("sk-learn-2", "the sk-learn-compatible-estimator-interface is used"),
        ("task-specific", "a task-specific-fine-tuned-model-variant-2"),
        ("uuid", f"request_id={uuid.UUID(int=_NEAR_MISS_SEED.getrandbits(128))}"),
        ("md5", f"md5: {hashlib.md5(b'x', usedforsecurity=False).hexdigest()}"),
        ("sha1", f"sha1 {hashlib.sha1(b'x', usedforsecurity=False).hexdigest()}"),
        ("sha256", f"checksum {sha}"),
        ("sha256-digest", f"image: python@sha256:{sha}"),
        ("git-sha", f"commit {_hex(40)} (HEAD -> main)"),
        ("git-short", f"HEAD is now at {_hex(7)} fix tests"),
        ("image-b64", f'{{"type": "image", "data": "data:image/png;base64,{image}"}}'),
        ("trace-id", f'{{"traceId": "{_hex(32)}", "spanId": "{_hex(16)}"}}'),
        ("semver", "upgraded openai from 1.30.5 to 1.35.13"),
        ("iso-time", "2024-06-11T09:15:32.123456Z started run"),
        ("call-id", f'{{"tool_call_id": "call_{_r(24)}"}}'),
        ("resp-id", f'{{"id": "resp_{_hex(48)}"}}'),
        ("chatcmpl", f'{{"id": "chatcmpl-{_r(29)}"}}'),
        ("msg-id", f'{{"id": "msg_01{_r(22)}"}}'),
        ("toolu-id", f'{{"tool_use_id": "toolu_01{_r(22)}"}}'),
        ("req-id", f"request-id: req_{_r(24)}"),
        ("run-id", f"run_id=run_{_r(24)}"),
        ("thread-id", f"thread_{_r(24)}"),
        ("npm-package", "npm install @anthropic-ai/sdk@0.24.3 openai@4.52.0"),
        ("file-path", "/home/runner/work/app/src/secrets/token_manager.py"),
        ("url", "https://api.openai.com/v1/chat/completions?stream=true"),
        ("url-user", "git clone https://git@github.com/acme/app.git"),
        ("prose-password", "Please reset your password using the link we sent to you."),
        ("prose-password-field", "The password field must contain at least 12 characters."),
        ("token-count", '{"token_count": 1532, "prompt_tokens": 1200}'),
        ("max-tokens", "client.messages.create(model=m, max_tokens=4096)"),
        ("max-tokens-env", "MAX_TOKENS=4096"),
        ("bearer-prose", "The API uses Bearer authentication for all of its endpoints."),
        ("bearer-prose-2", "Send the header as Bearer followed by your access token."),
        ("api-key-prose", "Set the api_key parameter when you construct the client."),
        ("secret-prose", "secret: a value only the server knows"),
        ("token-type", '{"token_type": "Bearer", "expires_in": 3600}'),
        ("mask-test", "mask_test_cases_for_the_evaluation_harness"),
        ("ghp-word", "highs_and_lows_of_the_quarter"),
        ("ph-do-zero", f"DIGITALOCEAN_TOKEN={_p('dop', '_v1_')}{'0' * 64}"),
        ("ph-glc-X", f"token: {_p('gl', 'c_')}{'X' * 40}"),
        ("ph-pmak-zero", f"{_p('PM', 'AK-')}{'0' * 24}-{'0' * 34}"),
        ("ph-linear-x", f"LINEAR_API_KEY={_p('lin', '_api_')}{'x' * 40}"),
        ("ph-docker-x", f"docker login -p {_p('dck', 'r_pat_')}{'x' * 27}"),
        ("ph-pypi-x", f"password = {_p('py', 'pi-')}AgE{'x' * 60}"),
        ("ph-square-X", f"SQUARE_TOKEN={_p('sq0', 'atp-')}{'X' * 22}"),
        ("ph-doppler-x", f"{_p('dp.', 'pt.')}{'x' * 43}"),
        ("ph-sendgrid-x", f"{_p('S', 'G.')}{'x' * 22}.{'x' * 43}"),
        ("ph-shopify-zero", f"{_p('shp', 'at_')}{'0' * 32}"),
        ("ph-databricks-zero", f"host=x token={_p('da', 'pi')}{'0' * 32}"),
        ("ph-gocspx-x", f'"client_secret": "{_p("GOC", "SPX-")}{"x" * 28}"'),
        ("ph-atlassian-x", f"{_p('ATA', 'TT3')}{'x' * 120}"),
        ("ph-sendgrid-your", f"SENDGRID_API_KEY={_p('S', 'G.')}your-api-key-goes-here"),
        ("ph-db-angle", "postgres://user:<password>@localhost:5432/db"),
        ("ph-db-env", "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app"),
        ("ph-db-x", "mysql://root:xxxxxxxx@localhost/db"),
    ]
    return cases


POSITIVES = _positives()
NEAR_MISSES = _near_misses()


def test_corpus_is_not_trivial() -> None:
    assert len(POSITIVES) >= 60
    assert len(NEAR_MISSES) >= 60


def test_credential_recall() -> None:
    missed = [
        f"#{i} {label}"
        for i, (label, text) in enumerate(POSITIVES)
        if detect_credential(text) is None
    ]
    recall = 1 - len(missed) / len(POSITIVES)
    assert recall >= RECALL_TARGET, f"recall {recall:.1%}; missed: {', '.join(missed)}"


def test_near_miss_rate() -> None:
    flagged = []
    for i, (label, text) in enumerate(NEAR_MISSES):
        found = detect_credential(text)
        if found is not None:
            flagged.append(f"#{i} {label} (by {found})")
    rate = len(flagged) / len(NEAR_MISSES)
    assert rate <= NEAR_MISS_LIMIT, f"near misses flagged {rate:.1%}: {', '.join(flagged)}"


def test_every_positive_is_caught() -> None:
    """Stricter than the rate: no realistic positive of this corpus is missed."""
    missed = [
        f"#{i} {label}"
        for i, (label, text) in enumerate(POSITIVES)
        if detect_credential(text) is None
    ]
    assert not missed, f"missed: {', '.join(missed)}"


def test_no_near_miss_is_flagged() -> None:
    """Stricter than the rate: no near miss of this corpus is flagged."""
    flagged = [
        f"#{i} {label} (by {found})"
        for i, (label, text) in enumerate(NEAR_MISSES)
        if (found := detect_credential(text)) is not None
    ]
    assert not flagged, f"flagged: {', '.join(flagged)}"
