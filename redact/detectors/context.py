"""Secrets recognised by where they stand (a URL, a connection string, a flag, a key) rather than by a token format."""

from __future__ import annotations

from redact.detectors.assignment import random_value
from redact.detectors.base import Detector
from redact.detectors.vendor_support import (
    ASSIGN,
    KEY_START,
    KEYED_VALUE,
    QUALIFIED_KEY,
    SHORT_KEY,
    connection_string,
    keyed,
    password_only,
    random_env_key,
    token_of,
    vendor,
)

__all__ = ["CONTEXT_DETECTORS"]

CONTEXT_DETECTORS: tuple[Detector, ...] = (
    vendor(
        "url-password-no-user",
        "URL with a password and an empty user name (redis://:pw@host)",
        r"\b[A-Za-z][A-Za-z0-9+.-]{1,30}://:(?P<v>[^\s/@:]{3,200})@",
        r"://:",
        password_only,
    ),
    vendor(
        "connection-string-password",
        "Password inside a JDBC, ADO.NET, ODBC or libpq connection string",
        r"(?=[Pp])(?<![A-Za-z0-9])(?i:password|pwd)[ \t]*=[ \t]*(?P<v>[^;&\s\"'{}]{3,200})",
        r"(?i:password|pwd)[ \t]*=",
        connection_string,
    ),
    vendor(
        "netrc-password",
        "Password in a .netrc machine entry",
        r"\bmachine\s+[A-Za-z0-9-]{1,63}\.[A-Za-z0-9.-]{1,200}\s+login\s+\S{1,253}\s+password\s+"
        r"(?P<v>\S{3,200})",
        r"machine\s",
        password_only,
    ),
    vendor(
        "authorization-scheme",
        "Authorization header or field with a scheme and a credential, anywhere in a line",
        r"(?i:\bauthorization)[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?i:token|apikey|api-key|key|ssws|geniekey|sso-key|klaviyo-api-key|otoken|hmac|bot|basic"
        r"|digest|bearer)[ \t]+(?P<v>[A-Za-z0-9._~+/=:-]{8,})",
        r"(?i:authorization)",
        keyed(8),
    ),
    vendor(
        "cli-secret-flag",
        "Secret passed as a command-line flag value (--password x, --api-key x)",
        r"(?<![A-Za-z0-9_-])--(?:[a-z0-9-]{0,40}-)?"
        r"(?:password|passwd|secret|token|api-key|apikey|access-key|secret-key|pat)"
        r"(?:=|[ \t]+)[\"']?" + KEYED_VALUE,
        r"--[a-z0-9-]{0,40}(?:password|passwd|secret|token|api-key|apikey|access-key|pat)[ \t=]",
        lambda m: random_value(token_of(m)),
    ),
    vendor(
        "env-key-assignment",
        "Random base62 value assigned to an upper-case *_KEY environment variable",
        r"(?<![A-Za-z0-9_])(?P<name>[A-Z][A-Z0-9_]{0,40})_KEY[ \t]*=[ \t]*[\"']?"
        r"(?P<v>[A-Za-z0-9_-]{20,200})(?![A-Za-z0-9_./+-])",
        r"_KEY[ \t]*=",
        random_env_key,
    ),
    vendor(
        "keyed-secret",
        "Random-looking value under a secret-like key the reference rules miss (app_key, pwd, auth)",
        KEY_START + r"(?:" + QUALIFIED_KEY + r"|" + SHORT_KEY + r")" + ASSIGN + KEYED_VALUE,
        # Not a bare `key`: OTLP JSON says `"key":` once per attribute.
        r"(?i:(?:pass(?:wd|word|phrase)?|pwd|auth|pat|[a-z][_.-]?key)[\"']?[ \t]*[:=])",
        keyed(8),
    ),
)
