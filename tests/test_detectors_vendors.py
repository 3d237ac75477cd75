"""Vendor credential detectors (spec A5): positives, near misses, prefilters and hostile input.

Every token-shaped value is assembled at run time from a seeded generator and split prefixes, so
no contiguous credential appears in this file for a secret scanner to trip on.
"""

from __future__ import annotations

import base64
import json
import random
import string
import time
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redact.detectors import PERSONAL_DETECTORS, REFERENCE_DETECTORS
from redact.detectors.assignment import ASSIGNMENT_DETECTORS
from redact.detectors.base import Detector
from redact.detectors.named import NAMED_DETECTORS
from redact.detectors.vendors import VENDOR_DETECTORS
from redact.engine import re2

# Detectors recognised by a token format. Those recognised by a name or an assignment (named.py,
# assignment.py) are tested against the scanner corpus in test_secrets_corpus.py.
_BY_CONTEXT = frozenset(d.id for d in (*NAMED_DETECTORS, *ASSIGNMENT_DETECTORS))
BY_ID: dict[str, Detector] = {d.id: d for d in VENDOR_DETECTORS if d.id not in _BY_CONTEXT}

# Vendor ids must not collide with the reference or personal-data ones.
REFERENCE_IDS = frozenset(d.id for d in (*REFERENCE_DETECTORS, *PERSONAL_DETECTORS))

# ----------------------------------------------------------------------------- fake material

_RNG = random.Random(20260924)
_B62 = string.ascii_letters + string.digits
_B64URL = _B62 + "_-"
_B64 = _B62 + "+/"
_HEX = "0123456789abcdef"
_LOWNUM = string.ascii_lowercase + string.digits
_UPNUM = string.ascii_uppercase + string.digits


def _pick(alphabet: str, n: int) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def _mixed(alphabet: str, n: int) -> str:
    """Random text that certainly holds every class of its alphabet (upper, lower, digit)."""
    chars = list(_pick(alphabet, n))
    classes = (string.ascii_uppercase, string.ascii_lowercase, string.digits)
    groups = [sorted(set(c) & set(alphabet)) for c in classes if set(c) & set(alphabet)]
    for slot, group in zip(_RNG.sample(range(n), len(groups)), groups, strict=True):
        chars[slot] = _RNG.choice(group)
    return "".join(chars)


def b62(n: int) -> str:
    return _mixed(_B62, n)


def b64url(n: int) -> str:
    return _mixed(_B64URL, n)


def b64(n: int) -> str:
    return _mixed(_B64, n)


def hexs(n: int) -> str:
    return _mixed(_HEX, n)


def lownum(n: int) -> str:
    return _mixed(_LOWNUM, n)


def upnum(n: int) -> str:
    return _mixed(_UPNUM, n)


def digits(n: int) -> str:
    return str(_RNG.randint(1, 9)) + _pick(string.digits, n - 1)


def uid() -> str:
    return str(uuid.UUID(int=_RNG.getrandbits(128), version=4))


def j(*parts: str) -> str:
    """Join split parts so a prefix and its body never stand together in the source."""
    return "".join(parts)


def _discord_bot_token() -> str:
    user_id = digits(18).encode()
    head = base64.urlsafe_b64encode(user_id).decode().rstrip("=")
    return j(head, ".", b64url(6), ".", b64url(38))


def _b64_private_key() -> str:
    pem = j(
        "-----BEGIN RSA PRIV", "ATE KEY-----\n", b64(64), "\n-----END RSA PRIV", "ATE KEY-----\n"
    )
    return base64.b64encode(pem.encode()).decode()


def _b64_certificate() -> str:
    pem = j("-----BEGIN CERTIFICATE-----\n", b64(64), "\n-----END CERTIFICATE-----\n")
    return base64.b64encode(pem.encode()).decode()


def _age_key() -> str:
    return j("AGE-SECRET-", "KEY-1", _pick("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58))


def _twitter_bearer() -> str:
    return j("A" * 22, b62(20), "%2B", b62(30), "%3D", b62(30))


# (detector id, case name, text) — each text is realistic surrounding material.
POSITIVES: list[tuple[str, str, str]] = [
    # cloud
    ("aws-secret-access-key", "ini", j("aws_secret_access_key = ", b64(40))),
    (
        "aws-secret-access-key",
        "json",
        j('{"AccessKeyId": "x", "SecretAccessKey": "', b64(40), '"}'),
    ),
    ("aws-secret-access-key", "cli", j("aws configure set aws_secret_access_key ", b64(40))),
    (
        "aws-secret-access-key",
        "csv-pair",
        j("Access key ID,Secret access key\n", "AK", "IA", upnum(16), ",", b64(40)),
    ),
    ("aws-session-token", "env", j("AWS_SESSION_TOKEN: IQoJb3Jp", "Z2luX2Vj", b64(300), "==")),
    ("aws-session-token", "legacy", j("token FwoGZX", "IvYXdz", b64(200))),
    ("aws-bedrock-api-key", "long-term", j("bedrock key ABSKQmVkcm9j", "a0FQSUtleS", b64(120))),
    (
        "aws-other-access-key",
        "abia",
        j("id=AB", "IA", _pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
    ),
    (
        "gcp-service-account-key",
        "json",
        j('{"type": "service_account", "project_id": "demo", "private_key_id": "', hexs(40), '"}'),
    ),
    ("google-oauth-client-secret", "json", j('{"client_secret": "GOCS', "PX-", b64url(28), '"}')),
    ("google-oauth-token", "access", j("curl -H 'x: ya", "29.", b64url(160), "'")),
    ("google-oauth-token", "refresh", j("refresh = 1//0", "g", b64url(100))),
    (
        "azure-storage-key",
        "connection-string",
        j(
            "DefaultEndpointsProtocol=https;AccountName=demo;Account",
            "Key=",
            b64(86),
            "==;EndpointSuffix=core.windows.net",
        ),
    ),
    (
        "azure-ad-client-secret",
        "log",
        j("client secret value: ", b62(3), "8", "Q~", _mixed(_B62 + "_~.-", 34), " expires 2026"),
    ),
    ("digitalocean-token", "doctl", j("doctl auth init -t do", "p_v1_", hexs(64))),
    ("alibaba-access-key", "yaml", j("access_key_id: LT", "AI", b62(20))),
    ("heroku-api-key", "env", j("heroku token HR", "KU-AA", b64url(58))),
    ("cloudflare-origin-ca-key", "bare", j("v1", ".0-", hexs(24), "-", hexs(146))),
    (
        "terraform-cloud-token",
        "credentials",
        j('token = "', b62(14), ".atlas", "v1.", b64url(67), '"'),
    ),
    ("vault-token", "header", j("X-Vault-Token: hv", "s.", b64url(90))),
    ("doppler-token", "cli", j("doppler run --token dp", ".pt.", b62(43))),
    ("flyio-token", "fo1", j("FLY_API_TOKEN=fo", "1_", b64url(43))),
    ("flyio-token", "fm2", j("FlyV1 fm", "2_", b64(120))),
    ("databricks-token", "cfg", j("token = da", "pi", hexs(32))),
    # source hosts
    (
        "gitlab-other-token",
        "deploy",
        j("git clone https://x:gl", "dt-", b64url(20), "@gitlab.com/a/b"),
    ),
    ("gitlab-other-token", "runner", j("runner token gl", "rt-", b64url(20))),
    ("gitlab-other-token", "trigger", j("curl -F token=gl", "ptt-", hexs(40))),
    ("gitlab-other-token", "registration", j("registration GR134", "8941", b64url(20))),
    ("atlassian-token", "api", j("JIRA_TOKEN=AT", "ATT3x", b64url(186))),
    ("atlassian-token", "bitbucket", j("app password AT", "BB", b62(32))),
    ("sourcegraph-token", "bare", j("src login sg", "p_", hexs(16), "_", hexs(40))),
    ("postman-api-key", "header", j("X-Api-Key: PM", "AK-", hexs(24), "-", hexs(34))),
    # payment
    ("stripe-webhook-secret", "env", j("STRIPE_WEBHOOK=wh", "sec_", b62(32))),
    ("square-token", "sq0atp", j("square sq0", "atp-", b64url(22))),
    ("square-token", "eaaa", j("Authorization: x EA", "AA", b64url(60), " ok")),
    ("meta-access-token", "graph", j("graph.facebook.com/me?x=EA", "AB", b62(180))),
    (
        "braintree-token",
        "production",
        j("access_token", "$production$", lownum(16), "$", hexs(32)),
    ),
    ("shopify-token", "admin", j("X-Shopify-Access-Token: sh", "pat_", hexs(32))),
    ("plaid-access-token", "json", j('{"access_token": "access-', "sandbox-", uid(), '"}')),
    ("flutterwave-secret-key", "test", j("FLWSECK_", "TEST-", hexs(32), "-X")),
    ("shippo-token", "live", j("ShippoToken shippo_", "live_", hexs(40))),
    ("easypost-key", "bare", j("EZ", "AK", b62(54))),
    # messaging
    (
        "slack-app-token",
        "socket",
        j("SLACK_APP=xa", "pp-1-A0", upnum(9), "-", digits(13), "-", hexs(64)),
    ),
    (
        "slack-client-token",
        "xoxc",
        j("token xo", "xc-", digits(12), "-", digits(13), "-", hexs(64)),
    ),
    ("slack-client-token", "xoxd", j("Cookie: d=xo", "xd-", b62(40), "%2B", b62(20), "%3D")),
    (
        "slack-webhook-url",
        "curl",
        j(
            "curl -X POST https://hooks.slack",
            ".com/services/T",
            upnum(8),
            "/B",
            upnum(10),
            "/",
            b62(24),
        ),
    ),
    (
        "discord-webhook-url",
        "url",
        j("https://discord.com/api/web", "hooks/", digits(18), "/", b64url(68)),
    ),
    ("discord-bot-token", "header", j("Authorization: Bot ", _discord_bot_token())),
    (
        "telegram-bot-token",
        "url",
        j("GET https://api.telegram.org/bot", digits(10), ":AA", b64url(33), "/getMe"),
    ),
    (
        "teams-webhook-url",
        "url",
        j(
            "https://contoso.webhook.office.com/web",
            "hookb2/",
            uid(),
            "@",
            uid(),
            "/IncomingWebhook/",
            b62(32),
            "/",
            uid(),
        ),
    ),
    (
        "twilio-credentials",
        "basic-auth",
        j("curl -u AC", hexs(32), ":", b62(32), " https://api.twilio.com"),
    ),
    ("twilio-credentials", "keyed", j("twilio_api_key: SK", hexs(32))),
    ("sendgrid-api-key", "env", j("SENDGRID=SG", ".", b64url(22), ".", b64url(43))),
    ("mailgun-api-key", "key-", j("api:ke", "y-", hexs(32))),
    ("mailgun-api-key", "new-format", j("mailgun ", hexs(32), "-", hexs(8), "-", hexs(8))),
    ("mailchimp-api-key", "bare", j("apikey ", hexs(32), "-us", "14")),
    ("brevo-api-key", "header", j("api-key: xkey", "sib-", hexs(64), "-", b62(16))),
    ("resend-api-key", "env", j("RESEND=re", "_", b62(8), "_", b62(24))),
    ("firebase-fcm-server-key", "header", j("key=AAAA", b64url(7), ":APA", "91b", b64url(134))),
    # observability
    (
        "sentry-dsn",
        "init",
        j(
            'sentry_sdk.init(dsn="https://',
            hexs(32),
            '@o123456.ingest.us.sentry.io/4501234567890123")',
        ),
    ),
    ("sentry-token", "user", j("SENTRY=sntry", "u_", hexs(64))),
    ("sentry-token", "org", j("sntry", "s_eyJ", b64(120), "_", b64(43))),
    ("new-relic-key", "user", j("NEW_RELIC=NR", "AK-", upnum(27))),
    ("new-relic-key", "license", j("license_key: ", hexs(36), "NR", "AL")),
    ("grafana-token", "cloud", j("GRAFANA=gl", "c_", b64(120), "=")),
    ("grafana-token", "service-account", j("Authorization: x gl", "sa_", b62(32), "_", hexs(8))),
    ("grafana-token", "legacy", j("eyJrIjoi", b62(80))),
    ("dynatrace-token", "header", j("Api-Token dt0", "c01.", upnum(24), ".", upnum(64))),
    ("honeycomb-key", "ingest", j("x-honeycomb-team: hca", "ik_", lownum(58))),
    ("langsmith-key", "env", j("LANGSMITH=lsv2", "_pt_", hexs(32), "_", hexs(10))),
    ("splunk-hec-token", "header", j("-H 'Authorization: Splunk ", uid(), "'")),
    # LLM providers
    ("replicate-token", "env", j("REPLICATE=r8", "_", b62(37))),
    ("perplexity-key", "bare", j("key pplx", "-", b62(48))),
    ("fireworks-key", "bare", j("fireworks fw", "_", b62(24))),
    ("pinecone-key", "bare", j("Pinecone(api_key=pcsk", "_", b62(5), "_", b62(60), ")")),
    ("nvidia-api-key", "bare", j("nvapi", "-", b64url(64))),
    ("tavily-key", "dev", j("tvly", "-dev-", b62(32))),
    ("firecrawl-key", "bare", j("FirecrawlApp(fc", "-", hexs(32), ")")),
    ("together-key", "bare", j("tgp_", "v1_", b64url(43))),
    ("cerebras-key", "bare", j("csk", "-", lownum(48))),
    ("voyage-key", "bare", j("voyageai.Client(pa", "-", b64url(43), ")")),
    ("huggingface-org-token", "bare", j("api_", "org_", b62(34))),
    # package registries
    ("pypi-token", "pypirc", j("password = pypi-AgEIcHl", "waS5vcmc", b64url(150))),
    ("rubygems-key", "credentials", j(":rubygems_api_key: rubygems", "_", hexs(48))),
    ("nuget-key", "push", j("dotnet nuget push -k oy", "2", lownum(43))),
    ("docker-hub-token", "login", j("echo dckr", "_pat_", b64url(27), " | docker login")),
    ("crates-io-token", "publish", j("cargo publish --token ci", "o", b62(32))),
    ("jfrog-token", "api-key", j("X-JFrog-Art-Api: AK", "Cp", b62(69))),
    ("jfrog-token", "reference", j("jfrog cmVm", "dGtu", b62(56))),
    ("clojars-token", "bare", j("CLOJARS", "_", lownum(60))),
    # developer platforms
    ("linear-key", "header", j("Authorization: lin", "_api_", b62(40))),
    ("notion-token", "ntn", j("NOTION=ntn", "_", digits(11), b62(35))),
    ("notion-token", "legacy", j("notion secr", "et_", b62(43))),
    ("supabase-key", "pat", j("SUPABASE_ACCESS=sb", "p_", hexs(40))),
    ("supabase-key", "secret", j("sb_", "secret_", b64url(31))),
    ("planetscale-token", "token", j("pscale", "_tkn_", b64url(43))),
    ("neon-key", "bare", j("napi", "_", lownum(64))),
    ("render-key", "bare", j("rnd", "_", b62(32))),
    ("pulumi-token", "bare", j("PULUMI=pul", "-", hexs(40))),
    ("prefect-key", "bare", j("prefect cloud login -k pnu", "_", b62(36))),
    ("figma-token", "header", j("X-Figma-Token: fig", "d_", b64url(40))),
    ("airtable-token", "bearer", j("airtable pat", b62(14), ".", hexs(64))),
    ("hubspot-token", "bare", j("hubspot pat-", "na1-", uid())),
    ("asana-token", "bare", j("asana 2/", digits(16), "/", digits(16), ":", hexs(32))),
    ("intercom-token", "bare", j("intercom dG9r", "Oj", b64(56), "=")),
    ("typeform-token", "bare", j("tf", "p_", b64url(59))),
    ("contentful-token", "bare", j("CF", "PAT-", b64url(43))),
    ("dropbox-token", "bare", j("dropbox sl", ".", b64url(138))),
    ("mapbox-secret-token", "bare", j("MAPBOX=sk", ".eyJ1Ijoi", b64url(40), ".", b64url(22))),
    ("twitter-bearer-token", "bare", j("TWITTER ", _twitter_bearer())),
    ("okta-api-token", "header", j("Authorization: SS", "WS 00", b64url(40))),
    # more platforms
    ("honeycomb-key", "classic-header", j("X-Honeycomb-Team: ", b62(22))),
    ("azure-identifiable-key", "devops", j("AZDO_PAT=", b62(52), "JQQJ", "99", b62(26))),
    ("onepassword-token", "service-account", j("OP_SERVICE_ACCOUNT=ops", "_eyJ", b64(300))),
    (
        "onepassword-token",
        "secret-key",
        j("A3", "-", upnum(6), "-", upnum(11), "-", upnum(5), "-", upnum(5), "-", upnum(5)),
    ),
    ("openshift-token", "login", j("oc login --token=sha256", "~", b64url(43))),
    ("vercel-token", "bare", j("vc", "p_", b62(40))),
    ("netlify-token", "bare", j("nf", "p_", b62(40))),
    ("circleci-token", "header", j("Circle-Token: CCI", "PAT_", b62(22), "_", hexs(40))),
    ("buildkite-token", "bare", j("bk", "ua_", hexs(40))),
    ("sonar-token", "login", j("sonar-scanner -Dsonar.token=sq", "u_", hexs(40))),
    ("harness-token", "bare", j("x-api-key: pat", ".", b64url(22), ".", b62(24), ".", b62(20))),
    ("scalingo-token", "bare", j("tk-", "us-", b64url(48))),
    ("readme-key", "bare", j("rd", "me_", lownum(70))),
    ("infracost-key", "bare", j("INFRACOST=ico", "-", b62(32))),
    ("frameio-token", "bare", j("fio", "-u-", b64url(64))),
    ("duffel-token", "bare", j("duffel_", "test_", b64url(43))),
    ("maxmind-license-key", "bare", j(b62(6), "_", b62(29), "_m", "mk")),
    ("clickhouse-cloud-key", "bare", j("4b", "1d", b62(38))),
    ("launchdarkly-sdk-key", "bare", j("LD_SDK=sdk", "-", uid())),
    ("instagram-token", "graph", j("graph.instagram.com/me?access_token=IGQ", "VJ", b64url(150))),
    (
        "salesforce-session",
        "header",
        j("Authorization: OAuth 00D", b62(15), "!", b62(40), ".", b62(60)),
    ),
    (
        "automation-webhook-url",
        "zapier",
        "POST https://hooks.zapier.com/hooks/catch/123456/abc1de2/",
    ),
    ("automation-webhook-url", "make", j("https://hook.eu1.make.com/", lownum(32))),
    (
        "automation-webhook-url",
        "ifttt",
        j("https://maker.ifttt.com/trigger/deploy/with/key/", b64url(22)),
    ),
    # keys and key files
    ("age-secret-key", "keyfile", j("# created: 2026\n", _age_key())),
    ("other-private-key", "pgp", j("-----BEGIN PGP PRIV", "ATE KEY BLOCK-----\n\nlQOYBF...")),
    ("other-private-key", "putty", j("PuTTY-User-", "Key-File-3: ssh-ed25519\nEncryption: none")),
    ("base64-private-key", "kubeconfig", j("    client-key-data: ", _b64_private_key())),
    # context-bound
    ("url-password-no-user", "redis", j("REDIS_URL=redis://:", b62(16), "@cache.internal:6379/0")),
    (
        "connection-string-password",
        "ado",
        "Server=tcp:db.example.net,1433;Initial Catalog=app;User ID=app;Password=hunter22;",
    ),
    ("connection-string-password", "jdbc", "jdbc:mysql://db:3306/app?user=app&password=s3cret"),
    (
        "connection-string-password",
        "libpq",
        "host=db port=5432 dbname=app user=app password=swordfish",
    ),
    ("netrc-password", "netrc", j("machine api.example.com\n  login deploy\n  password ", b62(20))),
    (
        "authorization-scheme",
        "basic-inline",
        'curl -H "Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==" https://api.example.com',
    ),
    ("authorization-scheme", "token", j("authorization: Token ", hexs(40))),
    ("cli-secret-flag", "password", j("mysqladmin --password ", b62(12), " status")),
    ("cli-secret-flag", "token", j("vercel deploy --prod --token=", b62(24))),
    ("cli-password-option", "mysql", j("mysql -h db -u root -p", b62(12), " orders")),
    (
        "cli-password-option",
        "mysqldump-quoted",
        j("mysqldump -uroot -p'", b62(10), "!' shop > d.sql"),
    ),
    ("cli-password-option", "sshpass", j("sshpass -p '", b62(12), "' ssh deploy@web1 uptime")),
    ("cli-password-option", "docker-login", j("docker login -u ci -p ", b62(16), " ghcr.io")),
    ("cli-password-option", "redis-cli", j("redis-cli -h cache -a ", b62(14), " ping")),
    ("cli-password-option", "ldapsearch", j("ldapsearch -x -D cn=admin -w ", b62(12), " -b dc=x")),
    ("cli-password-option", "smbclient", j("smbclient //fs/share -U 'CORP\\bob%", b62(10), "'")),
    ("cli-password-option", "htpasswd", j("htpasswd -bc .htpasswd admin ", b62(12))),
    ("cli-password-option", "sqlcmd", j("sqlcmd -S db -U sa -P ", b62(14), " -Q 'select 1'")),
    ("env-key-assignment", "env", j("MISTRAL_KEY=", b62(32))),
    ("keyed-secret", "app-key", j("DD_APP_KEY=", hexs(40))),
    ("keyed-secret", "json-camel", j('{"subscriptionKey": "', hexs(32), '"}')),
    ("keyed-secret", "header", j("Ocp-Apim-Subscription-Key: ", hexs(32))),
    ("keyed-secret", "yaml-password", "  password: Tr0ub4dor"),
    ("keyed-secret", "quoted-env", 'DB_PASSWORD="hunter22"'),
    ("keyed-secret", "npmrc", j("_auth=", base64.b64encode(b"deploy:s3cretpass").decode())),
    ("keyed-secret", "pat", j("GITLAB_PAT=", b62(20))),
    # token formats added from the gitleaks rule set
    ("defined-networking-token", "bare", j("dnk", "ey-", b64url(26), "-", b64url(52))),
    ("gitlab-session-cookie", "cookie", j("Cookie: _gitlab_", "session=", lownum(32))),
    ("slack-legacy-token", "workspace", j('"access_token": "xo', "xa-2-", b62(20), '"')),
    ("facebook-app-token", "pipe", j("fb ", digits(16), "|", b64url(27))),
    ("adobe-client-secret", "bare", j("ADOBE=p8", "e-", b62(32))),
    (
        "authress-key",
        "bare",
        j("sc_", lownum(10), ".", lownum(5), ".ac", "c_", lownum(20), ".", b64url(60)),
    ),
    ("intra42-client-secret", "bare", j("s-s4t2", "ud-", hexs(64))),
    ("octopus-deploy-key", "header", j("X-Octopus-ApiKey: AP", "I-", upnum(26))),
    ("settlemint-token", "bare", j("sm_", "pat_", b62(16))),
    (
        "jwt-unsigned",
        "none-alg",
        j('token = "eyJhbGciOiJub25lIn0', ".eyJzdWIiOiI", b64url(16), '.";'),
    ),
    (
        "jwt-base64",
        "header",
        j(
            "X-Token: ",
            base64.b64encode(
                j("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI", b64url(20), ".", b64url(43)).encode()
            ).decode(),
        ),
    ),
    ("stripe-prod-key", "bare", j("STRIPE=sk", "_prod_", b62(40))),
    ("twilio-api-key", "bare", j("TWILIO_SID=S", "K", hexs(32))),
    # database passwords where tool output carries them (issue 31)
    ("sql-password", "postgres-alter", j("ALTER USER app WITH PASSWORD '", b62(14), "';")),
    ("sql-password", "postgres-role", j("CREATE ROLE ci LOGIN ENCRYPTED PASSWORD '", b62(14), "'")),
    ("sql-password", "mysql-create", j("CREATE USER 'app'@'%' IDENTIFIED BY '", b62(14), "';")),
    (
        "sql-password",
        "mysql-plugin",
        j("ALTER USER 'a'@'localhost' IDENTIFIED WITH mysql_native_password BY '", b62(12), "'"),
    ),
    ("sql-password", "oracle-unquoted", j("CREATE USER scott IDENTIFIED BY ", b62(12), ";")),
    (
        "sql-password",
        "set-password-for",
        j("SET PASSWORD FOR 'app'@'%' = PASSWORD('", b62(12), "');"),
    ),
    ("sql-password", "set-password", j("SET PASSWORD FOR app@localhost = '", b62(12), "';")),
    ("sql-password", "mssql-login", j("CREATE LOGIN app WITH PASSWORD = '", b62(14), "';")),
    ("sql-password", "grant", j("GRANT ALL ON shop.* TO 'app'@'%' IDENTIFIED BY '", b62(12), "';")),
    (
        "sql-password",
        "psql-command",
        j("psql -h db -c \"ALTER ROLE postgres PASSWORD '", b62(12), "';\""),
    ),
    ("pgpass-password", "line", j("db.internal:5432:shop:app:", b62(16))),
    ("pgpass-password", "wildcards", j("cat ~/.pgpass\nlocalhost:*:*:postgres:", b62(12), "\n")),
    ("pgpass-password", "ipv6", j("[2001:db8::5]:5432:*:app:", b62(12))),
    ("dsn-password", "go-mysql", j('dsn := "app:', b62(14), '@tcp(db:3306)/shop?parseTime=true"')),
    ("dsn-password", "go-unix", j("root:", b62(12), "@unix(/var/run/mysqld/mysqld.sock)/db")),
    ("dsn-password", "go-no-protocol", j("MYSQL_DSN=app:", b62(12), "@/shop")),
    ("dsn-password", "sqlplus", j("sqlplus scott/", b62(12), "@orcl @report.sql")),
    ("dsn-password", "rman", j("rman target sys/", b62(12), "@prod")),
    ("dsn-password", "expdp", j("expdp userid=scott/", b62(12), "@orcl directory=dp")),
]

# Near misses: shaped like a vendor token, or a value under a secret-like name, but not secret.
NEAR_MISSES: list[tuple[str, str]] = [
    ("sk-learn", "pip install scikit-learn && python -c 'import sk-learn'"),
    ("pat-count", "pat_count = 12"),
    ("key-value", "a key-value store with key-0123 entries"),
    ("secret-name", "Read the secret_name field, then call get_secret(secret_name)."),
    ("fw-version", "fw_version=2.1.3 fw_rulesDefaultPolicyGroupAlpha"),
    ("gitlab-kebab", "see gldt-deploy-token-name-for-ci and glrt-runner-registration-docs-page"),
    (
        "slack-doc-webhook",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    ),
    ("password-vault", "password: <from vault>"),
    ("password-env-ref", "password=$DB_PASSWORD"),
    ("password-stdin", "docker login --username ci --password-stdin"),
    ("mysql-prompt", "mysql -h db -u root -p orders  # asks for the password"),
    ("mysql-port", "mysql -h db -P 3306 -u app"),
    ("mysql-env-ref", "mysql -uroot -p$MYSQL_ROOT_PASSWORD -e 'show databases'"),
    ("mysql-then-mkdir", "import mysql.connector; os.system('mkdir -pv /tmp/out')"),
    ("mysql-placeholder", "mysql -u root -p<password> shop"),
    ("docker-login-ref", 'docker login -u "$USER" -p "$CI_REGISTRY_PASSWORD" $CI_REGISTRY'),
    ("ssh-port", "ssh -p 2222 deploy@web1"),
    ("zip-recursive", "zip -r site.zip public/ && unzip -o site.zip -d /srv"),
    ("token-file", "gh auth login --with-token < token.txt; tool --token-file ~/.token"),
    ("api-key-env-ref", "openai --api-key $OPENAI_API_KEY"),
    ("docker-secret-flag", "docker build --secret id=npmrc,src=.npmrc ."),
    ("max-tokens-flag", "llm --max-tokens 4096 --max-token 100"),
    ("auth-bool", "auth: true\nauth_type=basic"),
    ("auth-placeholder", '{"authKey": "<your-auth-key>"}'),
    ("app-key-template", "app_key: ${APP_KEY}"),
    ("license-xxxx", "license_key=XXXX-XXXX-XXXX-XXXX"),
    ("api-key-code", 'api_key=os.environ["OPENAI_API_KEY"]'),
    ("api-key-attr", "client = Client(api_key=settings.OPENAI_KEY)"),
    ("api-key-type", "api_key: string"),
    ("private-key-path", '"private_key_path": "/home/u/.ssh/id_rsa"'),
    ("client-key-file", "client_key: ./certs/client2.key"),
    ("pwd-path", "PWD=/home/user/project2"),
    ("author", "author: Jane2 Doe"),
    ("oauth", "oauth=enabled2024"),
    ("sort-key", "SORT_KEY=createdAtDescending2"),
    ("cache-key", "CACHE_KEY=Build2024Release_x86_64_v3"),
    ("idempotency-key", "IDEMPOTENCY_KEY=550e8400-e29b-41d4-a716-446655440000"),
    ("bearer-prose", "Send a Bearer token in the Authorization header."),
    ("bearer-template", "Authorization: Bearer ${TOKEN}"),
    ("authorization-required", "authorization: required"),
    ("netrc-prose", "machine learning login flow password reset"),
    ("redis-template", "redis://:${REDIS_PASSWORD}@cache:6379"),
    ("password-no-context", "password=swordfish"),
    ("password-min-length", "PASSWORD_MIN_LENGTH=12 password_min_length=12"),
    ("telegram-time", "meeting 10:AM and id 12345678:ABCDEFGH"),
    ("voyage-kebab", "pa-announcement-banner-component-for-homepage-v2-rollout-plan"),
    ("cerebras-kebab", "csk-rollout-plan"),
    ("crates-words", "ciocontrollerreconcilerdefaultsvone"),
    ("resend-identifier", "re_compile_cache_for_patterns_v2"),
    ("dropbox-prose", "sl.no 4 of the list"),
    ("vault-short", "hvs.example"),
    ("mailgun-short", j("key-", hexs(31))),
    ("mailchimp-usage", j(hexs(32), "-usage")),
    ("sentry-public", "https://public@sentry.example.com/1"),
    ("asana-short", j("1/1234567890123456:", hexs(31))),
    ("base64-certificate", j("client-certificate-data: ", _b64_certificate())),
    ("aws-secret-template", "aws_secret_access_key = <YOUR_SECRET_ACCESS_KEY>"),
    ("aws-secret-gha", "aws-secret-access-key: ${{ secrets.AWS_SECRET_ACCESS_KEY }}"),
    ("azure-sas-doc", "AccountKey=<storage-account-key>"),
    ("notion-secret-name", "secret_name_for_the_notion_integration_in_vault"),
    ("new-relic-doc", "NRAK-XXXXXXXXXXXXXXXXXXXXXXXXXXX"),
    ("gitlab-doc", "glrt-xxxxxxxxxxxxxxxxxxxx"),
    ("replicate-doc", "r8_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("twilio-sid-only", j("TWILIO_ACCOUNT_SID=AC", hexs(32))),
    ("square-doc", "sq0idp-application-id"),
    ("discord-dotted", "MTIz.abc.def and NDU2Nzg5MDEyMzQ1Njc4OTAx.short.x"),
    ("jwt-like-dots", "version 1.2.3-beta.4+build.5"),
    (
        "encrypted-value",
        "OPENAI_API_KEY=encrypted:BHd8wXcNq2pLk1ZrYy0uTg== app_key=vault:kv/app#key2",
    ),
    ("ssh-public-key", j("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ", b64(300), " user@host")),
    ("stripe-publishable", j("pk_", "live_", b62(24))),
    ("openai-org-and-project", j("org-", b62(24), " proj_", b62(24))),
    ("vcr-cassette", "vcr_cassette_dir=tests/cassettes"),
    ("sdk-version", "sdk-version-1.2.3"),
    ("openshift-short", "sha256~short"),
    ("make-site", "https://www.make.com/en/pricing"),
    ("honeycomb-template", "x-honeycomb-team: <api-key>"),
    ("icon-name", "ico-chevron-left-24px-outline-icon-set-v2"),
    ("salesforce-id", "account 001D000000IRFmaIAH"),
    ("sql-variable", "ALTER USER app WITH PASSWORD '${DB_PASSWORD}';"),
    ("sql-psql-variable", "ALTER USER app WITH PASSWORD :'pw';"),
    ("sql-template", "CREATE USER app IDENTIFIED BY '<password>';"),
    ("sql-null", "ALTER ROLE app PASSWORD NULL;"),
    ("sql-bind", "SET PASSWORD FOR 'app'@'%' = ?;"),
    ("sql-default", "CREATE USER app WITH PASSWORD 'changeme';"),
    ("sql-prose", "the password 'hunter22' was reused across accounts"),
    ("pgpass-time", "12:30:45:00:1234"),
    ("pgpass-numbers", "10:20:30:40:500"),
    ("pgpass-ipv6", "fe80::1:2:3:4:5"),
    ("pgpass-wildcard-password", "localhost:5432:*:postgres:*"),
    ("pgpass-mid-line", "see host:8080:path:x:yz for the route"),
    ("dsn-template", 'dsn := "user:password@tcp(localhost:3306)/db"'),
    ("dsn-variables", 'dsn := "${DB_USER}:${DB_PASS}@tcp(db:3306)/shop"'),
    ("dsn-empty-password", 'dsn := "root:@tcp(127.0.0.1:3306)/test"'),
    ("sqlplus-sysdba", "sqlplus / as sysdba"),
    ("sqlplus-nolog", "sqlplus -s /nolog"),
    ("ssh-remote", "git@github.com:org/repo.git"),
]

# False-positive traps from spec A5 and the brief: must survive every vendor detector.
FP_TRAPS: list[tuple[str, str]] = [
    ("md5", "md5 " + hexs(32)),
    ("sha1", "sha1:" + hexs(40)),
    ("sha256", "sha256:" + hexs(64)),
    ("uuid", "request " + uid()),
    ("uuid-upper", "id " + uid().upper()),
    ("trace-id", '{"trace_id": "' + hexs(32) + '"}'),
    ("span-id", '{"span_id": "' + hexs(16) + '"}'),
    ("git-sha", "commit " + hexs(40) + " (HEAD -> main)"),
    ("git-short", "merged " + hexs(7)),
    (
        "base64-png",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
        + b64(2000)
        + "==",
    ),
    ("base64-raw", "iVBORw0KGgoAAAANSUhEUgAAA" + "A" * 60 + b64(400)),
    (
        "otlp-attribute",
        '{"key": "gen_ai.request.model", "value": {"stringValue": "claude-sonnet-4-5"}}',
    ),
    ("token-counts", '{"input_tokens": 1234, "output_tokens": 567, "total_tokens": 1801}'),
    ("max-tokens", "max_tokens=4096 MAX_TOKENS=16"),
    ("next-page-token", '{"next_page_token": "CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA0eTM5ZGNzZxAB"}'),
    ("semver", "upgraded to 2.31.0-rc.1+build.2024"),
    ("retina", "retina asset icon@2x.png"),
    ("iso-time", "2026-09-24T17:56:25.592Z"),
    ("epoch-millis", "order 1700000000420 shipped"),
    ("scoped-package", "npm install @tangle-network/agent-eval@1.4.0"),
    ("css-colour", "color: #ff00aa; background: #0a0B0c"),
    ("kebab", "sk-learn pat_count key-value secret_name"),
    ("snake", "secret_key_rotation_days=30 api_key_header_name=X-Api-Key"),
    ("timezone", "TZ=Asia/Tokyo"),
    ("hex-run", hexs(4096)),
    ("spaced-prose", "The Stripe webhook secret lives in Vault; ask the platform team for access."),
]


POSITIVE_IDS = [f"{detector_id}-{name}" for detector_id, name, _ in POSITIVES]


# ----------------------------------------------------------------------------- the table itself


def test_detectors_are_well_formed() -> None:
    ids = [d.id for d in VENDOR_DETECTORS]
    assert len(ids) == len(set(ids)), "duplicate detector ids"
    assert not set(ids) & REFERENCE_IDS, "a vendor id collides with a reference or PII id"
    for d in VENDOR_DETECTORS:
        assert d.id == d.id.lower() and " " not in d.id and "_" not in d.id
        assert d.category == "credential"
        assert d.description and "\n" not in d.description
        re2.compile(d.prefilter.encode())


def test_every_detector_has_a_positive() -> None:
    covered = {detector_id for detector_id, _, _ in POSITIVES}
    assert covered == set(BY_ID), sorted(set(BY_ID) ^ covered)


@pytest.mark.parametrize(("detector_id", "name", "text"), POSITIVES, ids=POSITIVE_IDS)
def test_positive_is_found(detector_id: str, name: str, text: str) -> None:
    detector = BY_ID[detector_id]
    assert detector.search(text), f"{detector_id} misses case {name}"
    assert re2.compile(detector.prefilter.encode()).search(text.encode()), (
        f"{detector_id} prefilter misses case {name}"
    )


@pytest.mark.parametrize(("detector_id", "name", "text"), POSITIVES, ids=POSITIVE_IDS)
def test_positive_is_found_inside_a_larger_blob(detector_id: str, name: str, text: str) -> None:
    # The redactor joins many strings with newlines before the prefilter pass.
    blob = "\n".join(["INFO starting agent", text, '{"step": 3, "ok": true}'])
    detector = BY_ID[detector_id]
    assert detector.search(blob)
    assert re2.compile(detector.prefilter.encode()).search(blob.encode())


@pytest.mark.parametrize(("name", "text"), NEAR_MISSES, ids=[n for n, _ in NEAR_MISSES])
def test_near_miss_is_not_flagged(name: str, text: str) -> None:
    flagged = [d.id for d in VENDOR_DETECTORS if d.search(text)]
    assert flagged == [], f"near miss {name} flagged by {flagged}"


@pytest.mark.parametrize(("name", "text"), FP_TRAPS, ids=[n for n, _ in FP_TRAPS])
def test_false_positive_trap_survives(name: str, text: str) -> None:
    flagged = [d.id for d in VENDOR_DETECTORS if d.search(text)]
    assert flagged == [], f"trap {name} flagged by {flagged}"


_REFERENCE_CORPUS = (
    Path(__file__).resolve().parent.parent
    / "fixtures"
    / "redaction"
    / "agent-eval-redaction-corpus.json"
)


def test_reference_must_not_flag_strings_survive_vendor_detectors() -> None:
    if not _REFERENCE_CORPUS.exists():
        pytest.skip("the reference corpus fixture is not in this checkout")
    corpus = json.loads(_REFERENCE_CORPUS.read_text(encoding="utf-8"))
    texts = [t for t in corpus["values"]["mustNotFlag"] if isinstance(t, str)]
    assert texts
    flagged = {t[:24]: [d.id for d in VENDOR_DETECTORS if d.search(t)] for t in texts}
    assert {k: v for k, v in flagged.items() if v} == {}


def test_labelled_corpus_recall_and_near_miss_rate() -> None:
    positives = [text for _, _, text in POSITIVES]
    negatives = [text for _, text in NEAR_MISSES + FP_TRAPS]

    def flagged(text: str) -> bool:
        return any(d.search(text) for d in VENDOR_DETECTORS)

    recall = sum(map(flagged, positives)) / len(positives)
    near_miss_rate = sum(map(flagged, negatives)) / len(negatives)
    assert recall >= 0.95
    assert near_miss_rate <= 0.05


def test_combined_prefilter_finds_every_positive() -> None:
    combined = re2.compile("|".join(f"(?:{d.prefilter})" for d in VENDOR_DETECTORS).encode())
    blob = "\n".join(text for _, _, text in POSITIVES).encode()
    assert len(list(combined.finditer(blob))) >= len(POSITIVES)
    for _, _, text in POSITIVES:
        assert combined.search(text.encode())


def test_combined_prefilter_is_quiet_on_traps() -> None:
    # Selectivity: on ordinary trace text the combined scan should rarely send strings onwards.
    combined = re2.compile("|".join(f"(?:{d.prefilter})" for d in BY_ID.values()).encode())
    quiet = [text for name, text in FP_TRAPS if name not in {"base64-raw", "snake"}]
    hits = [text[:20] for text in quiet if combined.search(text.encode())]
    # Only the PNG header trips a prefilter (its AAAAEAAA run looks like a Meta token start).
    assert len(hits) <= 1, hits


# ----------------------------------------------------------------------------- properties

_POSITIVES_BY_ID: dict[str, list[str]] = {}
for _detector_id, _, _text in POSITIVES:
    _POSITIVES_BY_ID.setdefault(_detector_id, []).append(_text)

_NOISE = st.text(
    alphabet=st.sampled_from(string.ascii_letters + string.digits + "_-.:=/+%$@\"' \n\t~Q"),
    max_size=30,
)


@st.composite
def _mutated(draw: st.DrawFn, detector_id: str) -> str:
    """A positive with a slice cut out, noise spliced in and noise around it."""
    text = draw(st.sampled_from(_POSITIVES_BY_ID[detector_id]))
    start = draw(st.integers(0, len(text)))
    stop = draw(st.integers(start, min(len(text), start + 8)))
    return draw(_NOISE) + text[:start] + draw(_NOISE) + text[stop:] + draw(_NOISE)


@pytest.mark.parametrize("detector_id", sorted(BY_ID))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_prefilter_never_misses_a_match(detector_id: str, data: st.DataObject) -> None:
    detector = BY_ID[detector_id]
    text = data.draw(st.one_of(_mutated(detector_id), _NOISE, st.text(max_size=60)))
    if detector.search(text):
        assert re2.compile(detector.prefilter.encode()).search(text.encode())


# ----------------------------------------------------------------------------- hostile input

_SIZE = 100_000


def _hostile() -> list[str]:
    runs = ["a", "A", "0", "-", "_", " ", "=", "%", "/", ".", "aA0", "a-", "A_", "0:", "Q~"]
    texts = [(run * _SIZE)[:_SIZE] for run in runs]
    texts += [
        ("password=" * _SIZE)[:_SIZE],
        ("--password " * _SIZE)[:_SIZE],
        ("api_key: " + "x1" * _SIZE)[:_SIZE],
        ("https://" + "0" * 32 + "@")[:_SIZE] * 1,
        ("machine a.b login " * _SIZE)[:_SIZE],
        ("1" * 9 + ":A") * (_SIZE // 11),
        "MTIz" + "A" * _SIZE,
        ("ab12" * _SIZE)[:_SIZE] + "!",
    ]
    return texts


_HOSTILE = _hostile()


@pytest.mark.parametrize("detector_id", sorted(BY_ID))
def test_hostile_input_finishes_fast(detector_id: str) -> None:
    detector = BY_ID[detector_id]
    own = _POSITIVES_BY_ID[detector_id][0]
    texts = [*_HOSTILE, (own * (_SIZE // len(own) + 1))[:_SIZE]]
    started = time.process_time()  # CPU time: other processes on the machine do not count
    for text in texts:
        list(detector.find(text))
    elapsed = time.process_time() - started
    assert elapsed < 2.0, f"{detector_id} took {elapsed:.2f}s over {len(texts)} hostile inputs"
