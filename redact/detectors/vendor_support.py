"""What the vendor detector modules share: the `vendor` constructor and the validators that keep
near misses out.

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

__all__ = [
    "ASSIGN",
    "FILE_TAIL",
    "KEYED_VALUE",
    "KEY_START",
    "PLACEHOLDER_MARKS",
    "QUALIFIED_KEY",
    "REFERENCE_PREFIXES",
    "SHORT_KEY",
    "Accept",
    "base64_jwt",
    "base64_private_key",
    "classes",
    "connection_string",
    "ends_a_file_name",
    "keyed",
    "mixed",
    "not_filler",
    "password_only",
    "password_value",
    "placeholder_value",
    "random_env_key",
    "reads_as_words",
    "secret_like",
    "snowflake_id",
    "token_of",
    "varied",
    "vendor",
]


Accept = Callable[[regex.Match[str]], bool]

_UPPER = frozenset(string.ascii_uppercase)
_LOWER = frozenset(string.ascii_lowercase)
_DIGIT = frozenset(string.digits)


def classes(value: str) -> int:
    """How many of upper case, lower case and digits the value uses."""
    chars = set(value)
    return sum(1 for group in (_UPPER, _LOWER, _DIGIT) if chars & group)


def token_of(match: regex.Match[str]) -> str:
    """The token part of a match: the group named `v` when it took part, else the whole match."""
    if "v" in match.re.groupindex:
        group = match.group("v")
        if group is not None:
            return str(group)
    return str(match.group(0))


def mixed(minimum: int) -> Accept:
    """Accept a token whose random part mixes at least `minimum` character classes."""

    def accept(match: regex.Match[str]) -> bool:
        return classes(token_of(match)) >= minimum

    return accept


def varied(minimum_distinct: int) -> Accept:
    """Accept a token whose random part uses enough distinct characters to be more than filler."""

    def accept(match: regex.Match[str]) -> bool:
        return len(set(token_of(match))) >= minimum_distinct

    return accept


# Values a person writes where a secret will go; none of them is a secret.
PLACEHOLDER_MARKS = (
    "xxxx",
    "****",
    "...",
    "…",
    "your_",
    "your-",
    "yourkey",
    "yourtoken",
    "yourpassword",
    "placeholder",
    "redacted",
    "${",
    "{{",
)
# What a template or an example writes where a password goes, as the whole value: the word
# itself, a note. (Defaults that open a real system, `postgres` or `admin`, stay passwords.)
_DEFAULT_VALUES = frozenset(
    [
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "token",
        "changeme",
        "changeit",
        "example",
        "test",
        "default",
        "todo",
        "tbd",
        "fixme",
        "none",
        "null",
        "user",
        "username",
    ]
)
# A note to fill the value in (`change_this_secret`, `replace-with-a-long-random-string`,
# `insert-your-key-here`), or a value that starts by saying it is not real (`dummy-api-key`):
# words only, so that a real password that starts as a note does (`changeme-2024`,
# `Seta#9xQ…`, `dummy_Xk29…`) is no note. Only `me` is glued to the verb (`changeme`).
_FILL_IN = regex.compile(
    r"(?=[A-Za-z]+(?:[_-][A-Za-z]+)*\Z)"
    r"(?:(?:change|replace|insert|enter|put|generate|set|add|paste)(?:[_-]?me|[_-](?:this|that"
    r"|with|your|it|here|in|a|the))(?:[_-]|\Z)"
    r"|(?:dummy|fake|example|sample|placeholder|replace[_-]?me)(?:[_-]|\Z)"
    r"|.*[_-]here\Z)",
    regex.IGNORECASE | regex.ASCII,
)
# Lower-case words joined by separators, one of them naming the secret (`my-api-key`,
# `test_token`, `db-password`): the value describes what goes there.
_DESCRIBED = regex.compile(
    r"(?:[a-z]+[_-])+(?:api[_-]?)?(?:key|secret|token|password|passwd|pass|pwd)(?:[_-][a-z]+)*",
    regex.ASCII,
)


def placeholder_value(value: str) -> bool:
    """A value a template or an example writes where a secret goes: a default, a note to fill
    it in, or words that name the secret."""
    return (
        value.lower() in _DEFAULT_VALUES
        or _FILL_IN.match(value) is not None
        or _DESCRIBED.fullmatch(value) is not None
    )


# A token of a known shape between angle brackets is a template's (`<sk-…>`).
_PLACEHOLDER_MARKS = (*PLACEHOLDER_MARKS, "<", ">")
_FILE_SUFFIXES = regex.compile(
    r"\.(?:pem|key|json|txt|ya?ml|env|crt|cer|p12|pfx|jks|toml|ini|cfg|conf|py|sh)\Z",
    regex.IGNORECASE | regex.ASCII,
)
_FIRST_CHARS_REFUSED = frozenset("$%{[<(*=@~/.-`")
# A value that names where the secret lives (or holds it encrypted) is not the secret itself.
REFERENCE_PREFIXES = (
    "encrypted:",
    "enc:",
    "enc[",
    "vault:",
    "sops:",
    "kms:",
    "secretref:",
    "op:",
)


def secret_like(value: str, minimum: int = 8) -> bool:
    """Whether a value under a secret-like key looks like a secret rather than code or prose."""
    if len(value) < minimum or value[0] in _FIRST_CHARS_REFUSED:
        return False
    lowered = value.lower()
    if any(mark in lowered for mark in _PLACEHOLDER_MARKS):
        return False
    if "://" in value or _FILE_SUFFIXES.search(value) or lowered.startswith(REFERENCE_PREFIXES):
        return False
    # `id=foo,src=bar` style option lists, not one value; base64 padding may end a value.
    if "=" in value.rstrip("="):
        return False
    chars = set(value)
    if len(chars) < 4:
        return False
    return bool(chars & _DIGIT) and bool(chars & (_UPPER | _LOWER))


def keyed(minimum: int = 8) -> Accept:
    def accept(match: regex.Match[str]) -> bool:
        return secret_like(token_of(match), minimum)

    return accept


def snowflake_id(match: regex.Match[str]) -> bool:
    """A Discord bot token starts with the bot's numeric user id in base64url."""
    head = match.group("id")
    try:
        decoded = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
    except (binascii.Error, ValueError):
        return False
    return 15 <= len(decoded) <= 21 and decoded.isdigit() and classes(match.group("t")) >= 2


def base64_private_key(match: regex.Match[str]) -> bool:
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


def password_value(value: str) -> bool:
    """A password may be short or letters only, but not a placeholder, a reference or a URL."""
    if len(value) < 3 or value[0] in _FIRST_CHARS_REFUSED or "=" in value.rstrip("="):
        return False
    lowered = value.lower()
    if any(mark in lowered for mark in _PLACEHOLDER_MARKS) or "://" in value:
        return False
    return lowered not in _NOT_PASSWORDS and not placeholder_value(value)


_NOT_PASSWORDS = frozenset(
    {"none", "null", "nil", "true", "false", "required", "optional", "password", "pass", "secret"}
)


def connection_string(match: regex.Match[str]) -> bool:
    """A `Password=` belongs to a connection string when a host, user or database is nearby."""
    if not password_value(token_of(match)):
        return False
    start = max(0, match.start() - 300)
    return _CONNECTION_CONTEXT.search(match.string, start, match.end() + 300) is not None


def password_only(match: regex.Match[str]) -> bool:
    return password_value(token_of(match))


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


def random_env_key(match: regex.Match[str]) -> bool:
    """Random base62 switches between upper, lower and digit often; CamelCase words rarely do."""
    name = match.group("name")
    if any(name == word or name.endswith("_" + word) for word in _NON_SECRET_KEY_NAMES):
        return False
    value = match.group("v")
    if classes(value) < 3 or len(set(value)) < 10:
        return False
    kinds = [kind for kind in map(_class_of, value) if kind >= 0]
    switches = sum(1 for a, b in itertools.pairwise(kinds) if a != b)
    return switches >= 0.35 * (len(kinds) - 1)


# Documentation fills a token's random part with one character (`dop_v1_000…`, `SG.xxx….xxx…`)
# or a word (`SG.your-api-key`). A run of 8 of `x`, `X`, `0` or `*` turns up in a random base62
# key of a few hundred characters about once in ten million; `A` and `/` are left out, since
# base64 of zero or 0xff bytes repeats them and the X bearer token starts with a run of `A`.
# Any other character repeated ten times (`glc_1111…`, `sntryu_aaaa…`) is as rare in a random
# key and as common in a document.
_FILLER = regex.compile(
    r"([xX0*])\1{7}|(?:\A|[^A-Za-z0-9])(?:your|x{3,})(?:[^A-Za-z0-9]|\Z)|\Ayour",
    regex.IGNORECASE | regex.ASCII,
)
_LONG_RUN = regex.compile(r"([^A/+=])\1{9}", regex.ASCII)
# A token-shaped run that ends a file name (`…-xoxo-indieweb-1.jpg`, `video_box.ico-7a38….png`)
# is a name: tokens are not followed by a file extension.
FILE_TAIL = regex.compile(
    r"\.(?:jpe?g|png|gif|svg|webp|ico|bmp|tiff?|mp[34]|webm|pdf|html?|css|js|json|md|txt|xml"
    r"|zip|gz|tar)\b",
    regex.IGNORECASE | regex.ASCII,
)
# Characters that join a token to the rest of a file name it is part of.
_IN_A_NAME = frozenset(string.ascii_letters + string.digits + "-_.@~+")


def ends_a_file_name(match: regex.Match[str]) -> bool:
    """Whether a token-shaped match is the end of a longer file name (`…-xoxo-indieweb-1.jpg`):
    a file extension follows it and a name's character precedes it. A token that is a file
    name's whole stem (`/dl/ghp_….zip`, `cache/ghp_….json`) is a token that names a file, and
    no less a token for it."""
    start = match.start()
    if not FILE_TAIL.match(match.string, match.end()):
        return False
    return start > 0 and match.string[start - 1] in _IN_A_NAME


def not_filler(accept: Accept | None) -> Accept:
    def guarded(match: regex.Match[str]) -> bool:
        # The detector's own test first: it refuses most matches, and both only refuse.
        if accept is not None and not accept(match):
            return False
        token = token_of(match)
        if _FILLER.search(token) or _FILLER.search(match.group(0)) or _LONG_RUN.search(token):
            return False
        return not ends_a_file_name(match)

    return guarded


def vendor(
    id: str,
    description: str,
    pattern: str,
    prefilter: str,
    accept: Accept | None = None,
    flags: int = 0,
    starts: str | None = None,
) -> Detector:
    return Detector(
        id=id,
        description=description,
        category="credential",
        source=pattern,
        flags=flags | regex.ASCII | regex.VERSION0,
        prefilter=prefilter,
        accept=not_filler(accept),
        starts=starts,
    )


# Start of a key name: after a non-alphanumeric, or at a camelCase hump (`dbPassword`). The
# leading lookahead (first letters of the key words) keeps runs of punctuation cheap.
KEY_START = r"(?=[AaCcDdEeFfHhIiJjLlMmPpRrSsWw])(?:(?<![A-Za-z0-9])|(?<=[a-z0-9])(?=[A-Z]))"
# Key names the reference's assignment detectors do not know, or know only for long values.
QUALIFIED_KEY = (
    r"(?i:application|app|api|access|secret|private|signing|encryption|decryption|master|auth|"
    r"account|license|licence|service|subscription|client|admin|ingest|management|consumer|"
    r"webhook|deploy|session|functions|integration|personal|write|server|shared|storage|hmac|"
    r"jwt|cipher|sdk|live|prod|rest)[_.-]?(?i:key)"
)
SHORT_KEY = r"(?i:passphrase|password|passwd|pass|pwd|auth|pat)"
ASSIGN = r"[\"']?[ \t]*(?::=|=>|[:=])[ \t]*[\"']?"
KEYED_VALUE = r"(?P<v>[^\s\"'`,;&|<>(){}\[\]\\]{8,200})"


def base64_jwt(match: regex.Match[str]) -> bool:
    """Base64 whose text is a JSON Web Token: its header and the dot after it decode."""
    text = match.group(0)
    head = text[: min(len(text), 200) // 4 * 4]
    try:
        decoded = base64.b64decode(head)
    except (binascii.Error, ValueError):
        return False
    return decoded.startswith(b"eyJ") and b"." in decoded


def reads_as_words(body: str) -> bool:
    """A body of letters only that reads as words (`requiredCharacteristicTypes…`,
    `servingcellpriority…`): vowels as frequent as in words (random letters have about one in
    five) and few camelCase humps. All-capital bodies are left alone: AWS key ids are drawn from
    capitals and digits, and one in thirty has no digit."""
    if len(body) < 12 or not body.isalpha() or body.isupper():
        return False
    vowels = sum(1 for c in body if c in "aeiouAEIOU")
    humps = sum(1 for a, b in itertools.pairwise(body) if a.islower() and b.isupper())
    return vowels >= 0.3 * len(body) and humps <= len(body) / 6
