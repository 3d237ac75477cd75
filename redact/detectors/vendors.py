"""Vendor credential shapes beyond the reference core (spec A5).

Every detector here names one family of real tokens. Shapes with a fixed prefix, a fixed length
or an internal structure (a checksum, a base64-encoded header, a snowflake id) flag on their own;
tokens with no such shape (Cohere, Mistral, Datadog application keys, passwords) flag only under a
secret-like key or flag (`keyed-secret`, `cli-secret-flag`, `connection-string-password`).

Validators exist to keep near misses out: identifiers that merely start like a vendor prefix
(`fw_version`, `gldt-deploy-token-name`) carry no mixture of upper case, lower case and digits the
way random tokens do, and documentation placeholders (`T00000000/B00000000/XXXX…`) repeat a handful
of characters. Patterns are written for the `regex` module with ASCII semantics and no nested
quantifiers; lookbehinds pin long runs to their first character so a hostile run of token
characters is scanned once, not once per offset.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import string
from collections.abc import Callable

import regex

from redact.detectors.base import Detector

__all__ = ["VENDOR_DETECTORS"]

Accept = Callable[[regex.Match[str]], bool]

_UPPER = frozenset(string.ascii_uppercase)
_LOWER = frozenset(string.ascii_lowercase)
_DIGIT = frozenset(string.digits)


def _classes(value: str) -> int:
    """How many of upper case, lower case and digits the value uses."""
    chars = set(value)
    return sum(1 for group in (_UPPER, _LOWER, _DIGIT) if chars & group)


def _value(match: regex.Match[str]) -> str:
    """The token part of a match: the group named `v` when it took part, else the whole match."""
    if "v" in match.re.groupindex:
        group = match.group("v")
        if group is not None:
            return str(group)
    return str(match.group(0))


def _mixed(minimum: int) -> Accept:
    """Accept a token whose random part mixes at least `minimum` character classes."""

    def accept(match: regex.Match[str]) -> bool:
        return _classes(_value(match)) >= minimum

    return accept


def _varied(minimum_distinct: int) -> Accept:
    """Accept a token whose random part uses enough distinct characters to be more than filler."""

    def accept(match: regex.Match[str]) -> bool:
        return len(set(_value(match))) >= minimum_distinct

    return accept


# Values a person writes where a secret will go; none of them is a secret.
_PLACEHOLDER_MARKS = (
    "xxxx",
    "****",
    "...",
    "…",
    "your_",
    "your-",
    "yourkey",
    "yourtoken",
    "yourpassword",
    "changeme",
    "placeholder",
    "redacted",
    "<",
    ">",
    "${",
    "{{",
)
_FILE_SUFFIXES = regex.compile(
    r"\.(?:pem|key|json|txt|ya?ml|env|crt|cer|p12|pfx|jks|toml|ini|cfg|conf|py|sh)\Z",
    regex.IGNORECASE | regex.ASCII,
)
_FIRST_CHARS_REFUSED = frozenset("$%{[<(*=@~/.-`")
# A value that names where the secret lives (or holds it encrypted) is not the secret itself.
_REFERENCE_PREFIXES = ("encrypted:", "enc:", "vault:", "sops:", "kms:", "secretref:", "op:")


def _secret_like(value: str, minimum: int = 8) -> bool:
    """Whether a value under a secret-like key looks like a secret rather than code or prose."""
    if len(value) < minimum or value[0] in _FIRST_CHARS_REFUSED:
        return False
    lowered = value.lower()
    if any(mark in lowered for mark in _PLACEHOLDER_MARKS):
        return False
    if "://" in value or _FILE_SUFFIXES.search(value) or lowered.startswith(_REFERENCE_PREFIXES):
        return False
    # `id=foo,src=bar` style option lists, not one value; base64 padding may end a value.
    if "=" in value.rstrip("="):
        return False
    chars = set(value)
    if len(chars) < 4:
        return False
    return bool(chars & _DIGIT) and bool(chars & (_UPPER | _LOWER))


def _keyed(minimum: int = 8) -> Accept:
    def accept(match: regex.Match[str]) -> bool:
        return _secret_like(_value(match), minimum)

    return accept


def _snowflake_id(match: regex.Match[str]) -> bool:
    """A Discord bot token starts with the bot's numeric user id in base64url."""
    head = match.group("id")
    try:
        decoded = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
    except (binascii.Error, ValueError):
        return False
    return 15 <= len(decoded) <= 21 and decoded.isdigit() and _classes(match.group("t")) >= 2


def _base64_private_key(match: regex.Match[str]) -> bool:
    """Base64 of a PEM block: only a private key is a secret, certificates are public."""
    text = match.group(0)
    head = text[: min(len(text), 120) // 4 * 4]
    try:
        decoded = base64.b64decode(head)
    except (binascii.Error, ValueError):
        return False
    return b"PRIVATE KEY" in decoded


_CONNECTION_CONTEXT = regex.compile(
    r"(?i)(?:\b(?:server|host|hostname|address|addr|data source|user id|userid|uid|user|"
    r"username|dbname|database|initial catalog|port)\s*=|jdbc:|odbc:|driver=\{)",
    regex.ASCII,
)


def _password_value(value: str) -> bool:
    """A password may be short or letters only, but not a placeholder, a reference or a URL."""
    if len(value) < 3 or value[0] in _FIRST_CHARS_REFUSED or "=" in value.rstrip("="):
        return False
    lowered = value.lower()
    if any(mark in lowered for mark in _PLACEHOLDER_MARKS) or "://" in value:
        return False
    return lowered not in _NOT_PASSWORDS


_NOT_PASSWORDS = frozenset(
    {"none", "null", "nil", "true", "false", "required", "optional", "password", "pass", "secret"}
)


def _connection_string(match: regex.Match[str]) -> bool:
    """A `Password=` belongs to a connection string when a host, user or database is nearby."""
    if not _password_value(_value(match)):
        return False
    start = max(0, match.start() - 300)
    return _CONNECTION_CONTEXT.search(match.string, start, match.end() + 300) is not None


def _password_only(match: regex.Match[str]) -> bool:
    return _password_value(_value(match))


# Variables named *_KEY that hold lookup keys, not secrets.
_NON_SECRET_KEY_NAMES = (
    "CACHE",
    "SORT",
    "PARTITION",
    "PRIMARY",
    "FOREIGN",
    "PUBLIC",
    "OBJECT",
    "ROUTING",
    "SHARD",
    "IDEMPOTENCY",
    "DEDUP",
    "LOOKUP",
    "MAP",
    "HASH",
    "INDEX",
    "GROUP",
    "MESSAGE",
    "BUCKET",
    "S3",
    "REDIS",
    "CONFIG",
    "FEATURE",
    "FLAG",
    "EVENT",
    "METRIC",
    "LABEL",
    "TRANSLATION",
    "I18N",
)


def _class_of(char: str) -> int:
    if char in _UPPER:
        return 0
    if char in _LOWER:
        return 1
    if char in _DIGIT:
        return 2
    return -1


def _random_env_key(match: regex.Match[str]) -> bool:
    """Random base62 switches between upper, lower and digit often; CamelCase words rarely do."""
    name = match.group("name")
    if any(name == word or name.endswith("_" + word) for word in _NON_SECRET_KEY_NAMES):
        return False
    value = match.group("v")
    if _classes(value) < 3 or len(set(value)) < 10:
        return False
    kinds = [kind for kind in map(_class_of, value) if kind >= 0]
    switches = sum(1 for a, b in itertools.pairwise(kinds) if a != b)
    return switches >= 0.35 * (len(kinds) - 1)


# Documentation fills a token's random part with one character (`dop_v1_000…`, `SG.xxx….xxx…`)
# or a word (`SG.your-api-key`). A run of 8 of `x`, `X`, `0` or `*` turns up in a random base62
# key of a few hundred characters about once in ten million; `A` and `/` are left out, since
# base64 of zero or 0xff bytes repeats them and the X bearer token starts with a run of `A`.
_FILLER = regex.compile(
    r"([xX0*])\1{7}|(?:\A|[^A-Za-z0-9])(?:your|x{3,})(?:[^A-Za-z0-9]|\Z)|\Ayour",
    regex.IGNORECASE | regex.ASCII,
)


def _not_filler(accept: Accept | None) -> Accept:
    def guarded(match: regex.Match[str]) -> bool:
        if _FILLER.search(_value(match)) or _FILLER.search(match.group(0)):
            return False
        return accept is None or accept(match)

    return guarded


def _d(
    id: str,
    description: str,
    pattern: str,
    prefilter: str,
    accept: Accept | None = None,
    flags: int = 0,
) -> Detector:
    return Detector(
        id=id,
        description=description,
        category="credential",
        pattern=regex.compile(pattern, flags | regex.ASCII | regex.VERSION0),
        prefilter=prefilter,
        accept=_not_filler(accept),
    )


# Start of a key name: after a non-alphanumeric, or at a camelCase hump (`dbPassword`). The
# leading lookahead (first letters of the key words) keeps runs of punctuation cheap.
_KEY_START = r"(?=[AaCcDdEeFfHhIiJjLlMmPpRrSsWw])(?:(?<![A-Za-z0-9])|(?<=[a-z0-9])(?=[A-Z]))"
# Key names the reference's assignment detectors do not know, or know only for long values.
_QUALIFIED_KEY = (
    r"(?i:application|app|api|access|secret|private|signing|encryption|decryption|master|auth|"
    r"account|license|licence|service|subscription|client|admin|ingest|management|consumer|"
    r"webhook|deploy|session|functions|integration|personal|write|server|shared|storage|hmac|"
    r"jwt|cipher|sdk|live|prod|rest)[_.-]?(?i:key)"
)
_SHORT_KEY = r"(?i:passphrase|password|passwd|pass|pwd|auth|pat)"
_ASSIGN = r"[\"']?[ \t]*(?::=|=>|[:=])[ \t]*[\"']?"
_KEYED_VALUE = r"(?P<v>[^\s\"'`,;&|<>(){}\[\]\\]{8,200})"

VENDOR_DETECTORS: tuple[Detector, ...] = (
    # ---------------------------------------------------------------- cloud providers
    _d(
        "aws-secret-access-key",
        "AWS secret access key under its key name or next to an access key id",
        r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?(?:[ \t]*[:=][ \t]*|[ \t]+)"
        r"[\"']?(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        r"|(?:AKIA|ASIA)[A-Z0-9]{16}[\"']?[ \t]*[,:;|= \t][ \t]*[\"']?"
        r"(?P<w>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        r"(?i:secret_?access_?key|aws_?secret)|AKIA|ASIA",
        lambda m: _classes(m.group("v") or m.group("w")) >= 2,
    ),
    _d(
        "aws-session-token",
        "AWS STS session token (base64 of the token header)",
        r"(?<![A-Za-z0-9+/])(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdz|FQoGZXIvYXdz)[A-Za-z0-9+/]{80,}={0,2}",
        r"IQoJb3JpZ2luX2Vj|FwoGZXIvYXdz|FQoGZXIvYXdz",
    ),
    _d(
        "aws-bedrock-api-key",
        "Amazon Bedrock API key, long-term or short-term",
        r"\bABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{20,}={0,2}"
        r"|\bbedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%&?_-]{20,}",
        r"ABSKQmVkcm9ja0FQSUtleS|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t",
    ),
    _d(
        "aws-other-access-key",
        "AWS access key id of the A3T, ABIA and ACCA families",
        r"\b(?:A3T[A-Z0-9]|ABIA|ACCA)[A-Z2-7]{16}\b",
        r"A3T[A-Z0-9]|ABIA|ACCA",
    ),
    _d(
        "gcp-service-account-key",
        "Google service account JSON key (its private_key_id field)",
        r"\"private_key_id\"[ \t]*:[ \t]*\"[0-9a-f]{40}\"",
        r"private_key_id",
    ),
    _d(
        "google-oauth-client-secret",
        "Google OAuth client secret (GOCSPX-)",
        r"\bGOCSPX-[A-Za-z0-9_-]{24,40}(?![A-Za-z0-9_-])",
        r"GOCSPX-",
    ),
    _d(
        "google-oauth-token",
        "Google OAuth access token (ya29.) or refresh token (1//0)",
        r"\bya29\.[A-Za-z0-9_-]{30,}|(?<![A-Za-z0-9/:.])1//0[A-Za-z0-9_-]{40,}",
        r"ya29\.|1//0",
        _mixed(2),
    ),
    _d(
        "azure-storage-key",
        "Azure storage or Service Bus key inside a connection string",
        r"(?i:AccountKey|SharedAccessKey)[ \t]*=[ \t]*(?P<v>[A-Za-z0-9+/]{40,}={0,2})",
        r"(?i:accountkey|sharedaccesskey)",
        _mixed(3),
    ),
    _d(
        "azure-ad-client-secret",
        "Microsoft Entra ID (Azure AD) application client secret",
        r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
        r"\dQ~",
        _mixed(3),
    ),
    _d(
        "digitalocean-token",
        "DigitalOcean personal access, OAuth or refresh token",
        r"\bdo[opr]_v1_[a-f0-9]{64}\b",
        r"do[opr]_v1_",
    ),
    _d(
        "alibaba-access-key",
        "Alibaba Cloud AccessKey id (LTAI)",
        r"\bLTAI(?P<v>[A-Za-z0-9]{12,20})\b",
        r"LTAI",
        _mixed(2),
    ),
    _d(
        "heroku-api-key",
        "Heroku platform API key (HRKU-)",
        r"\bHRKU-[A-Za-z0-9_-]{32,}",
        r"HRKU-",
    ),
    _d(
        "cloudflare-origin-ca-key",
        "Cloudflare Origin CA key",
        r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b",
        r"v1\.0-[a-f0-9]{24}-",
    ),
    _d(
        "terraform-cloud-token",
        "Terraform Cloud / HCP Terraform API token (.atlasv1.)",
        r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}",
        r"\.atlasv1\.",
    ),
    _d(
        "vault-token",
        "HashiCorp Vault service, batch or recovery token",
        r"\bhv[sbr]\.(?P<v>[A-Za-z0-9_-]{24,})",
        r"hv[sbr]\.",
        _mixed(3),
    ),
    _d(
        "doppler-token",
        "Doppler personal, service, service-account or CLI token",
        r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9_.-]{40,}",
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.",
    ),
    _d(
        "flyio-token",
        "Fly.io access token",
        r"\b(?:fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{60,}={0,3})",
        r"fo1_|fm[12][ar]?_",
    ),
    _d(
        "databricks-token",
        "Databricks personal access token (dapi)",
        r"\bdapi[a-f0-9]{32}(?:-\d)?\b",
        r"dapi[a-f0-9]{32}",
    ),
    # ---------------------------------------------------------------- source hosts and CI
    _d(
        "gitlab-other-token",
        "GitLab deploy, runner, trigger, SCIM, feed, mail, agent, OAuth app or CI job token",
        r"\b(?:gl(?:dt|rt|ptt|soat|ft|imt|agent|oas|ffct)-|glcbt-[0-9A-Za-z]{1,5}_|GR1348941)"
        r"(?P<v>[0-9A-Za-z_-]{20,})",
        r"gl(?:dt|rt|ptt|soat|ft|imt|agent|oas|ffct|cbt)-|GR1348941",
        _mixed(2),
    ),
    _d(
        "atlassian-token",
        "Atlassian API token (ATATT3, ATCTT3) or Bitbucket app password (ATBB)",
        r"\bAT(?:ATT|CTT)3[A-Za-z0-9_=-]{100,}|\bATBB(?P<v>[A-Za-z0-9]{28,})\b",
        r"ATATT3|ATCTT3|ATBB",
        _mixed(2),
    ),
    _d(
        "sourcegraph-token",
        "Sourcegraph access token (sgp_)",
        r"\bsgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}\b",
        r"sgp_",
    ),
    _d(
        "postman-api-key",
        "Postman API key (PMAK-)",
        r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b",
        r"PMAK-",
    ),
    # ---------------------------------------------------------------- payment and commerce
    _d(
        "stripe-webhook-secret",
        "Stripe (or Svix) webhook signing secret (whsec_)",
        r"\bwhsec_(?P<v>[A-Za-z0-9+/=]{24,})",
        r"whsec_",
        _mixed(2),
    ),
    _d(
        "square-token",
        "Square access token or application secret",
        r"\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,}"
        r"|(?<![A-Za-z0-9+/_-])EAAA(?P<v>[A-Za-z0-9_-]{60})(?![A-Za-z0-9+/=_-])",
        r"sq0(?:atp|csp)-|EAAA",
        lambda m: m.group("v") is None or _classes(m.group("v")) == 3,
    ),
    _d(
        "meta-access-token",
        "Facebook / Meta Graph API access token (EAA…)",
        r"(?<![A-Za-z0-9+/_-])EAA(?P<v>[A-Za-z0-9]{90,})(?![A-Za-z0-9+/=_-])",
        r"EAA",
        _mixed(3),
    ),
    _d(
        "braintree-token",
        "PayPal Braintree access token",
        r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}",
        r"access_token\$",
    ),
    _d(
        "shopify-token",
        "Shopify access token, custom app token, private app token or shared secret",
        r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b",
        r"shp(?:at|ss|ca|pa)_",
    ),
    _d(
        "plaid-access-token",
        "Plaid access token",
        r"\baccess-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}"
        r"-[0-9a-f]{4}-[0-9a-f]{12}\b",
        r"access-(?:sandbox|development|production)-",
    ),
    _d(
        "flutterwave-secret-key",
        "Flutterwave secret key (FLWSECK)",
        r"\bFLWSECK(?:_TEST)?-[A-Za-z0-9]{12,}(?:-X)?\b",
        r"FLWSECK",
    ),
    _d(
        "shippo-token",
        "Shippo API token",
        r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b",
        r"shippo_",
    ),
    _d(
        "easypost-key",
        "EasyPost API key (EZAK, EZTK)",
        r"\bEZ[AT]K[A-Za-z0-9]{54}\b",
        r"EZ[AT]K",
    ),
    # ---------------------------------------------------------------- messaging and e-mail
    _d(
        "slack-app-token",
        "Slack app-level token (xapp-)",
        r"\bxapp-\d-[A-Za-z0-9-]{20,}",
        r"xapp-",
    ),
    _d(
        "slack-client-token",
        "Slack browser session token or d cookie (xoxc-, xoxd-)",
        r"\bxox[cd]-[A-Za-z0-9%-]{20,}",
        r"xox[cd]-",
    ),
    _d(
        "slack-webhook-url",
        "Slack incoming webhook or workflow trigger URL",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9+/_-]{30,})",
        r"hooks\.slack\.com/",
        _varied(10),
    ),
    _d(
        "discord-webhook-url",
        "Discord webhook URL",
        r"\bdiscord(?:app)?\.com/api/webhooks/\d{17,20}/[A-Za-z0-9_-]{60,70}",
        r"discord(?:app)?\.com/api/webhooks/",
    ),
    _d(
        "discord-bot-token",
        "Discord bot token (base64 user id, timestamp, HMAC)",
        r"(?<![A-Za-z0-9_.-])(?P<id>[MNO][DTjz][A-Za-z0-9_-]{22,26})\.[A-Za-z0-9_-]{6}\."
        r"(?P<t>[A-Za-z0-9_-]{27,40})(?![A-Za-z0-9_.-])",
        r"[MNO][DTjz][A-Za-z0-9_-]{22,26}\.[A-Za-z0-9_-]{6}\.",
        _snowflake_id,
    ),
    _d(
        "telegram-bot-token",
        "Telegram bot token (bot id, colon, 35-character secret)",
        r"(?<![0-9])\d{8,10}:(?P<v>A[A-Za-z0-9_-]{34})(?![A-Za-z0-9_-])",
        r"\d:A",
        _mixed(3),
    ),
    _d(
        "teams-webhook-url",
        "Microsoft Teams incoming webhook URL",
        r"\.webhook\.office\.com/webhookb2/[0-9a-f-]{36}@[0-9a-f-]{36}/IncomingWebhook/"
        r"[A-Za-z0-9]{32}/",
        r"webhook\.office\.com/webhookb2/",
    ),
    _d(
        "twilio-credentials",
        "Twilio SID with its secret, or a key under a Twilio name",
        r"\b(?:AC|SK)[0-9a-f]{32}:[A-Za-z0-9]{32}\b"
        r"|(?i:twilio)[A-Za-z0-9_.-]{0,30}[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?:SK[0-9a-fA-F]{32}|[0-9a-f]{32})\b",
        r"(?i:twilio)|(?:AC|SK)[0-9a-f]{32}:",
    ),
    _d(
        "sendgrid-api-key",
        "SendGrid API key (SG.)",
        r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
        r"SG\.",
    ),
    _d(
        "mailgun-api-key",
        "Mailgun private API key (key- or 32-8-8 hex)",
        r"\bkey-(?P<v>[0-9a-f]{32})\b|\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b",
        r"key-[0-9a-f]{8}|[0-9a-f]{32}-[0-9a-f]{8}-",
        _mixed(2),
    ),
    _d(
        "mailchimp-api-key",
        "Mailchimp API key (32 hex and a -us datacenter)",
        r"\b[0-9a-f]{32}-us\d{1,2}\b",
        r"-us\d",
    ),
    _d(
        "brevo-api-key",
        "Brevo (Sendinblue) API or SMTP key",
        r"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b",
        r"x(?:keysib|smtpsib)-",
    ),
    _d(
        "resend-api-key",
        "Resend API key (re_)",
        r"\bre_(?P<v>[A-Za-z0-9]{8}_[A-Za-z0-9]{24})\b",
        r"re_[A-Za-z0-9]{8}_",
        _mixed(3),
    ),
    _d(
        "firebase-fcm-server-key",
        "Firebase Cloud Messaging legacy server key",
        r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}",
        r":APA91b",
    ),
    # ---------------------------------------------------------------- observability
    _d(
        "sentry-dsn",
        "Sentry DSN carrying its project key",
        r"\bhttps?://(?P<v>[0-9a-f]{32})(?::[0-9a-f]{32})?@[A-Za-z0-9.-]{1,253}(?::\d{1,5})?"
        r"/\d{1,20}\b",
        r"://[0-9a-f]{32}[:@]",
    ),
    _d(
        "sentry-token",
        "Sentry organization or user auth token (sntrys_, sntryu_)",
        r"\bsntry[su]_[A-Za-z0-9+/=_-]{60,}",
        r"sntry[su]_",
    ),
    _d(
        "new-relic-key",
        "New Relic user, ingest, browser, admin or query key, or license key",
        r"\bNR(?:AK|II|JS|AA|IQ)-(?P<v>[A-Za-z0-9_-]{19,40})\b|\b[a-f0-9]{36}NRAL\b",
        r"NR(?:AK|II|JS|AA|IQ)-|NRAL",
        _mixed(2),
    ),
    _d(
        "grafana-token",
        "Grafana Cloud token, service account token or API key",
        r"\bglc_[A-Za-z0-9+/]{32,}={0,2}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b"
        r"|\beyJrIjoi[A-Za-z0-9+/]{60,}={0,2}",
        r"glc_|glsa_|eyJrIjoi",
    ),
    _d(
        "dynatrace-token",
        "Dynatrace API token (dt0c01.)",
        r"\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}\b",
        r"dt0c01\.",
    ),
    _d(
        "honeycomb-key",
        "Honeycomb ingest key (hc?ik_) or a key in the X-Honeycomb-Team header",
        r"\bhc[a-z]ik_(?P<v>[0-9a-z]{50,})\b"
        r"|(?i:x-honeycomb-team)[\"']?[ \t]*[:=][ \t]*[\"']?(?P<w>[A-Za-z0-9]{22,64})\b",
        r"hc[a-z]ik_|(?i:x-honeycomb-team)",
        lambda m: _classes(m.group("v") or m.group("w")) >= 2,
    ),
    _d(
        "langsmith-key",
        "LangSmith personal or service key (lsv2_)",
        r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b",
        r"lsv2_(?:pt|sk)_",
    ),
    _d(
        "splunk-hec-token",
        "Splunk HTTP Event Collector token in its Authorization form",
        r"\bSplunk[ \t]+[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
        r"-[0-9a-fA-F]{12}\b",
        r"Splunk[ \t]",
    ),
    # ---------------------------------------------------------------- LLM and AI providers
    _d(
        "replicate-token",
        "Replicate API token (r8_)",
        r"\br8_(?P<v>[A-Za-z0-9]{30,40})\b",
        r"r8_",
        _mixed(2),
    ),
    _d(
        "perplexity-key",
        "Perplexity API key (pplx-)",
        r"\bpplx-(?P<v>[A-Za-z0-9]{40,})\b",
        r"pplx-",
        _mixed(2),
    ),
    _d(
        "fireworks-key",
        "Fireworks AI API key (fw_)",
        r"\bfw_(?P<v>[A-Za-z0-9]{20,})\b",
        r"fw_",
        lambda m: _classes(m.group("v")) >= 2 and any(c.isdigit() for c in m.group("v")),
    ),
    _d(
        "pinecone-key",
        "Pinecone API key (pcsk_)",
        r"\bpcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,}\b",
        r"pcsk_",
    ),
    _d(
        "nvidia-api-key",
        "NVIDIA API key (nvapi-)",
        r"\bnvapi-[A-Za-z0-9_-]{60,}",
        r"nvapi-",
    ),
    _d(
        "tavily-key",
        "Tavily API key (tvly-)",
        r"\btvly-(?:dev-|prod-)?(?P<v>[A-Za-z0-9]{24,})\b",
        r"tvly-",
        _mixed(2),
    ),
    _d(
        "firecrawl-key",
        "Firecrawl API key (fc- and 32 hex)",
        r"\bfc-(?P<v>[0-9a-f]{32})\b",
        r"fc-[0-9a-f]",
        _mixed(2),
    ),
    _d(
        "together-key",
        "Together AI API key (tgp_v1_)",
        r"\btgp_v1_[A-Za-z0-9_-]{40,}",
        r"tgp_v1_",
    ),
    _d(
        "cerebras-key",
        "Cerebras API key (csk-)",
        r"\bcsk-(?P<v>[a-z0-9]{40,})\b",
        r"csk-",
        _mixed(2),
    ),
    _d(
        "voyage-key",
        "Voyage AI API key (pa-)",
        r"\bpa-(?P<v>[A-Za-z0-9_-]{40,60})(?![A-Za-z0-9_-])",
        r"\bpa-[A-Za-z0-9_-]{40}",
        _mixed(3),
    ),
    _d(
        "huggingface-org-token",
        "Hugging Face organization API token (api_org_)",
        r"\bapi_org_(?P<v>[A-Za-z0-9]{30,})\b",
        r"api_org_",
        _mixed(2),
    ),
    # ---------------------------------------------------------------- package registries
    _d(
        "pypi-token",
        "PyPI or TestPyPI upload token (pypi-AgE…)",
        r"\bpypi-AgE[A-Za-z0-9_-]{50,}",
        r"pypi-AgE",
    ),
    _d(
        "rubygems-key",
        "RubyGems API key",
        r"\brubygems_[a-f0-9]{48}\b",
        r"rubygems_",
    ),
    _d(
        "nuget-key",
        "NuGet API key (oy2)",
        r"\boy2(?P<v>[a-z0-9]{43})\b",
        r"oy2[a-z0-9]{43}",
        _mixed(2),
    ),
    _d(
        "docker-hub-token",
        "Docker Hub personal or organization access token",
        r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}",
        r"dckr_(?:pat|oat)_",
    ),
    _d(
        "crates-io-token",
        "crates.io API token (cio)",
        r"\bcio(?P<v>[A-Za-z0-9]{32})\b",
        r"cio[A-Za-z0-9]{32}",
        _mixed(3),
    ),
    _d(
        "jfrog-token",
        "JFrog Artifactory API key (AKCp) or reference token",
        r"\bAKCp[A-Za-z0-9]{60,}\b|\bcmVmdGtu[A-Za-z0-9]{40,}\b",
        r"AKCp|cmVmdGtu",
    ),
    _d(
        "clojars-token",
        "Clojars deploy token",
        r"\bCLOJARS_[a-z0-9]{60}\b",
        r"CLOJARS_",
    ),
    # ---------------------------------------------------------------- developer platforms
    _d(
        "linear-key",
        "Linear API key or OAuth token",
        r"\blin_(?:api|oauth)_[A-Za-z0-9]{40,64}\b",
        r"lin_(?:api|oauth)_",
    ),
    _d(
        "notion-token",
        "Notion integration token (ntn_, secret_)",
        r"\bntn_(?P<v>[A-Za-z0-9]{40,})\b|\bsecret_(?P<w>[A-Za-z0-9]{43})\b",
        r"ntn_|secret_[A-Za-z0-9]{43}",
        lambda m: _classes(m.group("v") or m.group("w")) == 3,
    ),
    _d(
        "supabase-key",
        "Supabase personal access token or secret API key",
        r"\bsbp_[a-f0-9]{40}\b|\bsb_secret_[A-Za-z0-9_-]{20,}",
        r"sbp_|sb_secret_",
    ),
    _d(
        "planetscale-token",
        "PlanetScale API token, OAuth token or password",
        r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}",
        r"pscale_(?:tkn|pw|oauth)_",
    ),
    _d(
        "neon-key",
        "Neon API key (napi_)",
        r"\bnapi_[a-z0-9]{64}\b",
        r"napi_",
    ),
    _d(
        "render-key",
        "Render API key (rnd_)",
        r"\brnd_(?P<v>[A-Za-z0-9]{32})\b",
        r"rnd_",
        _mixed(3),
    ),
    _d(
        "pulumi-token",
        "Pulumi access token (pul-)",
        r"\bpul-[a-f0-9]{40}\b",
        r"pul-[a-f0-9]",
    ),
    _d(
        "prefect-key",
        "Prefect API key (pnu_)",
        r"\bpnu_[A-Za-z0-9]{36}\b",
        r"pnu_",
    ),
    _d(
        "figma-token",
        "Figma personal access token (figd_)",
        r"\bfigd_[A-Za-z0-9_-]{38,}",
        r"figd_",
    ),
    _d(
        "airtable-token",
        "Airtable personal access token",
        r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b",
        r"pat[A-Za-z0-9]{14}\.",
    ),
    _d(
        "hubspot-token",
        "HubSpot private app token",
        r"\bpat-(?:na|eu|ap)\d{1,2}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
        r"pat-(?:na|eu|ap)\d",
    ),
    _d(
        "asana-token",
        "Asana personal access token",
        r"\b[012]/\d{10,20}(?:/\d{10,20})?:[a-f0-9]{32}\b",
        r"\d{10}:[a-f0-9]{32}",
    ),
    _d(
        "intercom-token",
        "Intercom access token (base64 of tok:)",
        r"\bdG9rO[a-zA-Z0-9+/]{40,}={0,2}",
        r"dG9rO",
    ),
    _d(
        "typeform-token",
        "Typeform personal access token (tfp_)",
        r"\btfp_[A-Za-z0-9_.=-]{40,}",
        r"tfp_",
    ),
    _d(
        "contentful-token",
        "Contentful personal access token (CFPAT-)",
        r"\bCFPAT-[A-Za-z0-9_-]{43}\b",
        r"CFPAT-",
    ),
    _d(
        "dropbox-token",
        "Dropbox short-lived access token (sl.)",
        r"\bsl\.(?:u\.)?[A-Za-z0-9_-]{120,}",
        r"\bsl\.",
    ),
    _d(
        "mapbox-secret-token",
        "Mapbox secret token (sk.eyJ)",
        r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
        r"sk\.eyJ",
    ),
    _d(
        "twitter-bearer-token",
        "X / Twitter app bearer token",
        r"(?<![A-Za-z0-9+/%])A{20,24}[A-Za-z0-9]{10,150}%[A-Za-z0-9%]{20,}",
        r"AAAAAAAAAAAAAAAAAAAA",
    ),
    _d(
        "okta-api-token",
        "Okta API token in its SSWS Authorization form",
        r"(?i:\bSSWS)[ \t]+00[A-Za-z0-9_-]{40}\b",
        r"(?i:ssws)",
    ),
    # ---------------------------------------------------------------- more platforms
    _d(
        "azure-identifiable-key",
        "Microsoft identifiable secret (84/88-character key with the JQQJ9 marker)",
        r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{52}JQQJ9[A-Za-z0-9+/]{27,31}={0,2}(?![A-Za-z0-9+/])",
        r"JQQJ9",
    ),
    _d(
        "onepassword-token",
        "1Password service account token or account secret key",
        r"\bops_eyJ[A-Za-z0-9+/]{200,}={0,3}"
        r"|\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}"
        r"-[A-Z0-9]{5}\b",
        r"ops_eyJ|A3-[A-Z0-9]{6}-",
    ),
    _d(
        "openshift-token",
        "OpenShift user or service token (sha256~)",
        r"\bsha256~[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])",
        r"sha256~",
    ),
    _d(
        "vercel-token",
        "Vercel access, integration, app or refresh token (vcp_, vci_, vca_, vcr_, vck_)",
        r"\bvc[piark]_(?P<v>[A-Za-z0-9]{24,})\b",
        r"vc[piark]_",
        _mixed(3),
    ),
    _d(
        "netlify-token",
        "Netlify access token (nfp_, nfc_, nfo_, nfu_)",
        r"\bnf[pcou]_(?P<v>[A-Za-z0-9]{36,})\b",
        r"nf[pcou]_",
        _mixed(3),
    ),
    _d(
        "circleci-token",
        "CircleCI personal or project API token (CCIPAT_, CCIPRJ_)",
        r"\bCCI(?:PAT|PRJ)_[A-Za-z0-9_]{30,}",
        r"CCI(?:PAT|PRJ)_",
    ),
    _d(
        "buildkite-token",
        "Buildkite API access token (bkua_)",
        r"\bbkua_[a-f0-9]{40}\b",
        r"bkua_",
    ),
    _d(
        "sonar-token",
        "SonarQube / SonarCloud user, project or global token",
        r"\bsq[upa]_[a-f0-9]{40}\b",
        r"sq[upa]_",
    ),
    _d(
        "harness-token",
        "Harness personal or service account token",
        r"\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}\b",
        r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.",
    ),
    _d(
        "scalingo-token",
        "Scalingo API token (tk-us-)",
        r"\btk-us-[A-Za-z0-9_-]{48}(?![A-Za-z0-9_-])",
        r"tk-us-",
    ),
    _d(
        "readme-key",
        "ReadMe API key (rdme_)",
        r"\brdme_[a-z0-9]{70}\b",
        r"rdme_",
    ),
    _d(
        "infracost-key",
        "Infracost API key (ico-)",
        r"\bico-(?P<v>[A-Za-z0-9]{32})\b",
        r"ico-",
        _mixed(2),
    ),
    _d(
        "frameio-token",
        "Frame.io developer token (fio-u-)",
        r"\bfio-u-[A-Za-z0-9_=-]{64}",
        r"fio-u-",
    ),
    _d(
        "duffel-token",
        "Duffel API token",
        r"\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}",
        r"duffel_(?:test|live)_",
    ),
    _d(
        "maxmind-license-key",
        "MaxMind license key (_mmk)",
        r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b",
        r"_mmk",
    ),
    _d(
        "clickhouse-cloud-key",
        "ClickHouse Cloud API secret (4b1d)",
        r"\b4b1d(?P<v>[A-Za-z0-9]{38})\b",
        r"4b1d",
        _mixed(3),
    ),
    _d(
        "launchdarkly-sdk-key",
        "LaunchDarkly server-side SDK key (sdk- and a UUID)",
        r"\bsdk-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
        r"sdk-[0-9a-f]{8}-",
    ),
    _d(
        "instagram-token",
        "Instagram / Threads access token (IGQV, IGAA, THQV, THAA)",
        r"\b(?:IG|TH)(?:QV|AA)(?P<v>[A-Za-z0-9_-]{100,})",
        r"(?:IG|TH)(?:QV|AA)",
        _mixed(3),
    ),
    _d(
        "salesforce-session",
        "Salesforce session id or access token (00D…!)",
        r"\b00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{60,}",
        r"00D[A-Za-z0-9]{12,15}!",
    ),
    _d(
        "automation-webhook-url",
        "Zapier, Make or IFTTT webhook URL (the URL is the credential)",
        r"hooks\.zapier\.com/hooks/catch/\d{3,}/[A-Za-z0-9]{5,}"
        r"|\bhook\.[a-z0-9.]{0,20}make\.com/[a-z0-9]{24,}"
        r"|maker\.ifttt\.com/trigger/[^/\s]{1,100}/(?:json/)?with/key/[A-Za-z0-9_-]{20,}",
        r"hooks\.zapier\.com/hooks/catch/|make\.com/|maker\.ifttt\.com/",
    ),
    # ---------------------------------------------------------------- keys and key files
    _d(
        "age-secret-key",
        "age encryption secret key",
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        r"AGE-SECRET-KEY-1",
    ),
    _d(
        "other-private-key",
        "PGP private key block, SSH2 encrypted key or PuTTY key file",
        r"-----BEGIN PGP PRIVATE KEY BLOCK-----|---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"
        r"|PuTTY-User-Key-File-[23]:",
        r"BEGIN PGP PRIVATE|BEGIN SSH2 ENCRYPTED|PuTTY-User-Key-File-",
    ),
    _d(
        "base64-private-key",
        "Base64-encoded PEM private key (kubeconfig client-key-data and the like)",
        r"(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}",
        r"LS0tLS1CRUdJTi",
        _base64_private_key,
    ),
    # ---------------------------------------------------------------- context-bound secrets
    _d(
        "url-password-no-user",
        "URL with a password and an empty user name (redis://:pw@host)",
        r"\b[A-Za-z][A-Za-z0-9+.-]{1,30}://:(?P<v>[^\s/@:]{3,200})@",
        r"://:",
        _password_only,
    ),
    _d(
        "connection-string-password",
        "Password inside a JDBC, ADO.NET, ODBC or libpq connection string",
        r"(?=[Pp])(?<![A-Za-z0-9])(?i:password|pwd)[ \t]*=[ \t]*(?P<v>[^;&\s\"'{}]{3,200})",
        r"(?i:password|pwd)[ \t]*=",
        _connection_string,
    ),
    _d(
        "netrc-password",
        "Password in a .netrc machine entry",
        r"\bmachine\s+[A-Za-z0-9-]{1,63}\.[A-Za-z0-9.-]{1,200}\s+login\s+\S{1,253}\s+password\s+"
        r"(?P<v>\S{3,200})",
        r"machine\s",
        _password_only,
    ),
    _d(
        "authorization-scheme",
        "Authorization header or field with a scheme and a credential, anywhere in a line",
        r"(?i:\bauthorization)[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?i:token|apikey|api-key|key|ssws|geniekey|sso-key|klaviyo-api-key|otoken|hmac|bot|basic"
        r"|digest|bearer)[ \t]+(?P<v>[A-Za-z0-9._~+/=:-]{8,})",
        r"(?i:authorization)",
        _keyed(8),
    ),
    _d(
        "cli-secret-flag",
        "Secret passed as a command-line flag value (--password x, --api-key x)",
        r"(?<![A-Za-z0-9_-])--(?:[a-z0-9-]{0,40}-)?"
        r"(?:password|passwd|secret|token|api-key|apikey|access-key|secret-key|pat)"
        r"(?:=|[ \t]+)[\"']?" + _KEYED_VALUE,
        r"--[a-z0-9-]{0,40}(?:password|passwd|secret|token|api-key|apikey|access-key|pat)[ \t=]",
        _keyed(8),
    ),
    _d(
        "env-key-assignment",
        "Random base62 value assigned to an upper-case *_KEY environment variable",
        r"(?<![A-Za-z0-9_])(?P<name>[A-Z][A-Z0-9_]{0,40})_KEY[ \t]*=[ \t]*[\"']?"
        r"(?P<v>[A-Za-z0-9_-]{20,200})(?![A-Za-z0-9_./+-])",
        r"_KEY[ \t]*=",
        _random_env_key,
    ),
    _d(
        "keyed-secret",
        "Random-looking value under a secret-like key the reference rules miss (app_key, pwd, auth)",
        _KEY_START + r"(?:" + _QUALIFIED_KEY + r"|" + _SHORT_KEY + r")" + _ASSIGN + _KEYED_VALUE,
        # Not a bare `key`: OTLP JSON says `"key":` once per attribute.
        r"(?i:(?:pass(?:wd|word|phrase)?|pwd|auth|pat|[a-z][_.-]?key)[\"']?[ \t]*[:=])",
        _keyed(8),
    ),
)
