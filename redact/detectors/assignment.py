"""Secrets assigned to a secret-named key in any syntax, and credentials on command lines.

The reference's assignment detectors know `KEY=value`, `key: value` and quoted JSON fields. Real
files also write Go's `:=`, Makefile's `::=`, `:::=` and `?=`, PHP's `.=`, Ruby's `=>`, a comma
between call arguments (`System.setProperty("API_TOKEN", "…")`), typed declarations
(`var fooToken string = "…"`), XML elements (`<fooToken>…</fooToken>`) and attributes
(`<add key="ClearTextPassword" value="…"/>`), `curl -u user:password` and
`curl -H 'Authorization: <any scheme> …'`.

What keeps ordinary code out: the key word must start an identifier or a camelCase word and must
not run on into a longer word (`tokens`, `secrets`, `author`, `tokenizer`); words after it that
name something other than the secret (`token_type`, `secret_name`, `passwordMinLength`,
`api_key_header`) veto the match; and the value must look generated — letters and digits mixed,
a long run of digits, or letters whose case changes as randomly drawn ones do — and must not be a
placeholder, a variable reference, a path, a URL, a dotted identifier, a version or a Maven
coordinate. Every pattern starts at a literal key word and is bounded after it: linear time.
"""

from __future__ import annotations

import regex

from redact.detectors.base import Detector
from redact.detectors.vendor_support import (
    PLACEHOLDER_MARKS,
    REFERENCE_PREFIXES,
    Accept,
    password_value,
    placeholder_value,
    reads_as_words,
    token_of,
    vendor,
)

__all__ = ["ASSIGNMENT_DETECTORS", "random_value"]

# Key words that name a secret. `auth` must stand alone (`auth`, `authToken`, `user_auth`), never
# as the start of `author` or `authentication`; `key` only with a qualifier (a bare `key` is how
# OTLP JSON names every attribute).
_KEY_QUALIFIERS = (
    r"api|access|secret|private|signing|encryption|decryption|master|auth|account|license|"
    r"licence|service|subscription|client|admin|ingest|management|consumer|webhook|deploy|"
    r"session|integration|personal|write|shared|storage|hmac|jwt|app|application|sdk|rest"
)
_KEY_WORD = (
    r"(?i:token|secret|passw(?:or)?d|pwd|passphrase|credentials?|creds|authorization|auth"
    rf"|apikey|(?:{_KEY_QUALIFIERS})[_.-]?key)"
)
_WORD_START = r"(?:(?<![A-Za-z0-9])|(?<=[a-z0-9])(?=[A-Z]))"
# Authorization schemes skipped before the credential itself.
_SCHEME = (
    r"(?:(?i:bearer|basic|digest|token|api-?token|api-?key|apikey|bot|ssws|otoken|hmac|key"
    r"|sso-key|negotiate|ntlm|splunk|geniekey|klaviyo-api-key)[ \t]+)?"
)
_VALUE_CHARS = r"[^\s\"'`,;<>(){}\[\]\\|&]"
# The same in RE2, which knows only ASCII white space: every character `regex` calls white
# space, spelled out, and a value character class that may only be wider.
_ANY_SPACE = r"\s\x0b\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
_VALUE_PREFILTER = r"[^\s\"'`,;<>(){}\x{5b}\x{5d}\\|&]"

# Words after the key word that make the key name something other than the secret itself.
_VETO_WORDS = frozenset(
    [
        "name",
        "names",
        "type",
        "types",
        "kind",
        "id",
        "ids",
        "url",
        "urls",
        "uri",
        "uris",
        "endpoint",
        "endpoints",
        "file",
        "files",
        "path",
        "paths",
        "dir",
        "directory",
        "length",
        "len",
        "size",
        "count",
        "counts",
        "limit",
        "limits",
        "max",
        "min",
        "ttl",
        "expiry",
        "expires",
        "expire",
        "expiration",
        "expired",
        "lifetime",
        "timeout",
        "header",
        "headers",
        "prefix",
        "suffix",
        "version",
        "format",
        "field",
        "fields",
        "label",
        "ref",
        "reference",
        "arn",
        "hash",
        "hashed",
        "hashes",
        "s",
        "es",
        "manager",
        "store",
        "provider",
        "mode",
        "policy",
        "rotation",
        "days",
        "seconds",
        "minutes",
        "hours",
        "enabled",
        "enable",
        "disabled",
        "required",
        "set",
        "list",
        "index",
        "position",
        "pos",
        "usage",
        "used",
        "regex",
        "pattern",
        "schema",
        "template",
        "param",
        "params",
        "parameter",
        "method",
        "query",
        "column",
        "table",
        "option",
        "options",
        "flag",
        "location",
        "source",
        "variable",
        "var",
        "env",
        "exists",
        "valid",
        "validity",
        "hint",
        "placeholder",
        "description",
        "desc",
        "label",
        "title",
        "text",
        "message",
        "prompt",
        "field",
        "input",
        "output",
        "secrets",
        "tokens",
        "passwords",
        "keys",
        "generator",
        "factory",
        "helper",
        "handler",
        "service",
        "class",
        "interface",
        "module",
        "request",
        "response",
        "error",
        "errors",
        "timestamp",
        "issued",
        "issuer",
        "audience",
        "scope",
        "scopes",
        "ok",
        "status",
        "state",
        "changed",
        "change",
        "reset",
        "confirm",
        "confirmation",
        "again",
        "repeat",
        "strength",
        "policy",
        "visibility",
        "visible",
        "show",
        "hidden",
    ]
)
# Keys that hold tokens which are not credentials (pagination cursors, tokenizer specials).
_NOT_SECRET_KEYS = frozenset(
    [
        "page",
        "next",
        "prev",
        "previous",
        "continuation",
        "cursor",
        "sync",
        "bos",
        "eos",
        "pad",
        "unk",
        "sep",
        "cls",
        "mask",
        "stop",
        "csrf",
        "xsrf",
        "public",
        "publishable",
    ]
)
_CAMEL = regex.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _words(identifier: str) -> list[str]:
    return [w.lower() for w in _CAMEL.findall(identifier)]


def _key_before(text: str, start: int) -> str:
    """The identifier that runs up to `start` (the part of the key before the key word)."""
    at = start
    while at > 0 and start - at < 60 and (text[at - 1].isalnum() or text[at - 1] in "_.-"):
        at -= 1
    return text[at:start]


def _key_is_secret(match: regex.Match[str]) -> bool:
    rest = _words(match.group("rest") or "")
    if any(word in _VETO_WORDS for word in rest):
        return False
    before = _words(_key_before(match.string, match.start("kw")))
    return not (before and before[-1] in _NOT_SECRET_KEYS)


# An assigned value may also be a template's (`%(password)s`, `#{token}`) or a default's.
_PLACEHOLDER_MARKS = (*PLACEHOLDER_MARKS, "####", "changeit", "%(", "#{")
_FIRST_REFUSED = frozenset("$%{[<(*=@~/.-`#!")
_FILE_SUFFIX = regex.compile(
    r"\.(?:pem|key|json|txt|ya?ml|env|crt|cer|p12|pfx|jks|toml|ini|cfg|conf|py|sh|js|ts|go|rb|"
    r"java|xml|html|png|jpe?g|gif|svg|pub|der|keystore|properties)\Z",
    regex.IGNORECASE | regex.ASCII,
)
_DOTTED_IDENTIFIER = regex.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?", regex.ASCII)
_UPPER_SNAKE = regex.compile(r"[A-Z][A-Z0-9]*(?:[_-][A-Z0-9]+)+", regex.ASCII)
_VERSIONED = regex.compile(r"(?:\A|[:=_-])v?\d+(?:\.\d+)+(?:[._-][A-Za-z0-9]+)*\Z", regex.ASCII)
_LETTER_RUN = regex.compile(r"[A-Za-z]{20,}", regex.ASCII)
_INNER_ASSIGNMENT = regex.compile(r"[A-Za-z0-9_]=[A-Za-z0-9_]", regex.ASCII)


_PASSWORD_SYMBOLS = frozenset("!@#$%^*+=~?")


def random_value(value: str, minimum: int = 8) -> bool:
    """Whether a value assigned to a secret-named key looks generated rather than written."""
    value = value.rstrip("=")
    if len(value) < minimum or value[0] in _FIRST_REFUSED:
        return False
    # What the characters say decides most values (words, names, paths) at once; every test
    # after it only refuses, so their order does not change the answer.
    if not _drawn(value):
        return False
    lowered = value.lower()
    if any(mark in lowered for mark in _PLACEHOLDER_MARKS) or value.endswith(".."):
        return False
    if placeholder_value(value):
        return False
    if "://" in value or _FILE_SUFFIX.search(value) or _INNER_ASSIGNMENT.search(value):
        return False
    if lowered.startswith(REFERENCE_PREFIXES):
        return False  # encrypted:…, vault:…: where the secret lives, or the secret encrypted
    if _DOTTED_IDENTIFIER.fullmatch(value) and max(map(len, value.split("."))) < 20:
        return False
    if _UPPER_SNAKE.fullmatch(value) and sum(c.isalpha() for c in value) > len(value) // 2:
        return False  # YOUR_API_KEY, NEXUS-GPT4-API-KEY: a name, not a value
    if _VERSIONED.search(value):
        return False  # 1.2.3, jjwt-jackson-0.11.2, rc0.15.0_20231217-SNAPSHOT
    # clm57491:AgencyIdentificationCodeContentType: code, not a secret
    return not any(reads_as_words(run) for run in _LETTER_RUN.findall(value))


def _drawn(value: str) -> bool:
    """Whether a value's characters are drawn ones: letters and digits mixed, a long number,
    letters with a password generator's symbols, or letters that do not read as words."""
    if len(set(value)) < 5:
        return False
    has_digit = any(c.isdigit() for c in value)
    letters = "".join(c for c in value if c.isalpha())
    if has_digit and letters:
        return True
    if not letters:
        # A numeric id under a secret key: long enough to be drawn, not a count or a port.
        return len(value) >= 16
    # Letters with symbols a password generator uses (not separators): `nPfC^UDnavDXea`.
    if any(c in _PASSWORD_SYMBOLS for c in value) and not letters.islower():
        return True
    # Letters only: drawn ones have few vowels or change case often; words do neither.
    return len(letters) >= 16 and not reads_as_words(letters)


_XML_CLOSE = regex.compile(r"\s{0,24}<", regex.ASCII)


def _keyword_assignment(match: regex.Match[str]) -> bool:
    # After an XML element's `>` the value is the element's text, which its closing tag ends;
    # a placeholder in angle brackets (`API_KEY=<your-api-key>`) followed by the next line is not
    # an element.
    if match.group("op") == ">" and not _XML_CLOSE.match(match.string, match.end()):
        return False
    return random_value(match.group("v")) and _key_is_secret(match)


def _name_value(match: regex.Match[str]) -> bool:
    """`name: API_TOKEN` then `value: …`: the name says the value is a secret."""
    return _SECRET_NAME.search(match.group("key")) is not None and random_value(match.group("v"))


_SECRET_NAME = regex.compile(rf"{_WORD_START}{_KEY_WORD}(?![a-z])", regex.ASCII)


def _curl_user(match: regex.Match[str]) -> bool:
    """`curl -u user:password`: a password that is neither a placeholder nor a variable, or a
    generated key as the user with no password (`curl -u KEY:`)."""
    if match.string.rfind("curl", max(0, match.start() - 4000), match.start()) < 0:
        return False
    text = next(g for g in match.groups() if g is not None)
    user, _, password = text.partition(":")
    user, password = user.strip("\"'"), password.strip("\"'")
    secret = password or user
    if not secret or "<" in text or ">" in text:
        return False
    if secret.startswith(("$", "${", "{{", "[", "%")) or user.startswith(("$", "{{", "[")):
        return False
    if not password:
        # `-u KEY:`, an API key as the user (Stripe's form); a user name alone is not a secret
        return random_value(user)
    if secret.lower() in _PLACEHOLDER_PASSWORDS or len(set(secret)) < 3 or len(secret) < 3:
        return False
    return not any(mark in secret.lower() for mark in _PLACEHOLDER_MARKS)


_PLACEHOLDER_PASSWORDS = frozenset(
    [
        "pass",
        "password",
        "passwd",
        "pwd",
        "test",
        "token",
        "secret",
        "changeme",
        "changeit",
        "apikey",
        "api_key",
        "key",
        "user",
        "username",
        "pw",
        "xxx",
        "yyy",
        "admin",
    ]
)


def _keyed_attribute(match: regex.Match[str]) -> bool:
    # A form's anti-forgery token (`authenticity_token`, `csrf_token`) is not a credential; the
    # key says so, never the value (a password may well hold "csrf").
    name = match.string[match.start() : match.start("v")].lower()
    if any(word in name for word in ("authenticity", "csrf", "xsrf")):
        return False
    return password_value(token_of(match))


def _assignment(
    id: str,
    description: str,
    pattern: str,
    prefilter: str,
    accept: Accept,
    starts: str | None = None,
) -> Detector:
    return vendor(id, description, pattern, prefilter, accept, starts=starts)


ASSIGNMENT_DETECTORS: tuple[Detector, ...] = (
    _assignment(
        "keyword-assignment",
        "Generated-looking value assigned to a secret-named key in any syntax (:=, ::=, ?=, .=, =>, XML)",
        # The key word, the rest of its identifier, an optional type, closing quotes, one
        # operator of any language, quotes or (after an XML `>`) whitespace, a scheme, the value.
        rf"{_WORD_START}(?P<kw>{_KEY_WORD})(?![a-z])(?P<rest>[\w.-]{{0,24}}?)"
        r"(?:[ \t]{1,4}(?:string|String|str|const|final|char|var))?[\\\"'\]]{0,4}[ \t]{0,8}"
        r"(?P<op>:{1,3}=|[?.+]=|=>|==?|:|,|>)"
        rf"(?:(?<=>)\s{{0,24}}|[ \t\\\"'`=]{{0,8}}){_SCHEME}"
        rf"(?P<v>{_VALUE_CHARS}{{8,200}}+)",
        # The key word may not run on into a lower-case letter (`tokens`, `author`), so the
        # prefilter asks for what follows it: an operator, or one other character first; then
        # separators (any white space), an optional scheme and the value's first 8 characters.
        # Prose and listings name tokens far more often than they assign one.
        r"(?i:token|secret|passw(?:or)?d|pwd|passphrase|credentials?|creds|auth(?:orization)?"
        r"|[a-z][_.-]?key)(?:[\\\"'\x{5d} \t]{0,14}(?::{1,3}=|[?.+]=|=>|=|:|,|>)"
        r"|(?:[^a-zS\n]|S[\w.-])[\w.-]{0,24}[ \t\\\"'\x{5d}A-Za-z]{0,24}"
        r"(?::{1,3}=|[?.+]=|=>|=|:|,|>))"
        rf"[{_ANY_SPACE}\\\"'`=]*{_SCHEME}{_VALUE_PREFILTER}{{8}}",
        _keyword_assignment,
        starts=_KEY_WORD,
    ),
    _assignment(
        "name-value-secret",
        "A name/value pair whose name is secret-like (Kubernetes env, AWS tags, OTLP attributes)",
        # `name:`/`value:` lists, JSON `{"Key": "…", "Value": …}` and OTLP attributes written as
        # JSON, whose value is wrapped: `{"key": "…", "value": {"stringValue": "…"}}`.
        r"(?i:\b(?:name|key))[\"']?[ \t]*[:=][ \t]*[\"']?(?P<key>[\w.-]{1,60})[\"']?[ \t]*"
        r"(?:,|\r?\n)[ \t\r\n]{0,40}[\"']?(?i:value)[\"']?[ \t]*[:=][ \t]*"
        r"(?:\{[ \t\r\n]{0,40}[\"']?(?i:stringValue)[\"']?[ \t]*:[ \t]*)?[\"']?"
        rf"(?P<v>{_VALUE_CHARS}{{8,200}}+)",
        r"(?i)value[\"']?[ \t]*[:=][ \t]*(?:\{[ \t\r\n]*[\"']?stringValue[\"']?[ \t]*:[ \t]*)?"
        r"[\"']?[^\s\"'`,;<>(){}\x{5b}\x{5d}\\|&]{8}",
        _name_value,
    ),
    _assignment(
        "xml-secret-attribute",
        'Secret in an XML key/value attribute pair (<add key="ClearTextPassword" value="…"/>)',
        r"(?i:\b(?:key|name)[ \t]*=[ \t]*[\"'][\w.:-]{0,60}?"
        r"(?:password|passwd|pwd|secret|token|api[_.-]?key|apikey|credentials?)[\"']"
        r"[ \t\r\n]{1,10}value[ \t]*=[ \t]*[\"'])(?P<v>[^\"'\r\n]{3,200})[\"']",
        r"(?i)(?:password|passwd|pwd|secret|token|apikey|api.key|credentials?)[\"'][ \t\r\n]{1,10}value",
        _keyed_attribute,
    ),
    _assignment(
        "curl-user-password",
        "User and password passed to curl with -u or --user",
        r"(?<![\w-])(?:-u|--user)(?:=|[ \t]{1,5})"
        r"(?:\"([^\"\s]{0,200}:[^\"\s]{0,200})\"|'([^'\s]{0,200}:[^'\s]{0,200})'"
        r"|((?:\"[^\"\s]{1,200}\"|'[^'\s]{1,200}'|[^\s\"':]{1,200})"
        r":(?:\"[^\"\s]{1,200}\"|'[^'\s]{1,200}'|[^\s\"']{0,200})))",
        r"curl",
        _curl_user,
    ),
)
