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

# A password given on a command line, quoted or not: what follows a client's password option.
_OPTION_VALUE = r"""(?:'(?P<v>[^'\n]{1,200})'|"(?P<v>[^"\n]{1,200})"|(?P<v>[^\s'"`;|&<>]{1,200}))"""
# The rest of one command before the option: no line end, pipe, list or sequence operator.
_SAME_COMMAND = r"[^\n;|&]{0,200}?[ \t]"
# Clients whose short option takes the password itself (agents' shell tool calls run them): the
# mysql family attaches it to -p (a lone -p asks for it), the others give it as the next word.
_PASSWORD_OPTIONS = (
    r"\b(?:mysql(?:dump|admin|import|check|show|slap|pump)?|mariadb(?:-dump|-admin|-import|-check)?)"
    rf"\b{_SAME_COMMAND}-p{_OPTION_VALUE}"
    rf"|\bsshpass\b{_SAME_COMMAND}-p[ \t]*{_OPTION_VALUE}"
    r"|\b(?:docker|podman|nerdctl|buildah|skopeo|oras|helm[ \t]+registry|az)[ \t]+login\b"
    rf"{_SAME_COMMAND}-p[ \t]+{_OPTION_VALUE}"
    rf"|\bmongo(?:sh|dump|restore|export|import|stat|top)?\b{_SAME_COMMAND}-p[ \t]+{_OPTION_VALUE}"
    rf"|\bredis-cli\b{_SAME_COMMAND}-a[ \t]+{_OPTION_VALUE}"
    r"|\bldap(?:search|modify|add|delete|whoami|passwd|compare|modrdn|exop|url)\b"
    rf"{_SAME_COMMAND}-w[ \t]+{_OPTION_VALUE}"
    r"|\b(?:sqlcmd|bcp|osql|isql|mosquitto_(?:pub|sub|rr)|zip|unzip)\b"
    rf"{_SAME_COMMAND}-P[ \t]+{_OPTION_VALUE}"
    rf"|\b7z[ar]?\b{_SAME_COMMAND}-p{_OPTION_VALUE}"
    r"|\b(?:smbclient|rpcclient|smbmap|smbcacls)\b"
    rf"{_SAME_COMMAND}-U[ \t]*['\"]?[^\s%'\"]{{1,100}}%{_OPTION_VALUE}"
    r"|\bhtpasswd[ \t]+-[A-Za-z]*b[A-Za-z]*[ \t]+(?:[^\s;|&]+[ \t]+)?[^\s;|&]+[ \t]+"
    rf"{_OPTION_VALUE}"
)

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
        "cli-password-option",
        "Password given to a client's short option (mysql -p…, sshpass -p, redis-cli -a, "
        "ldapsearch -w, docker login -p, smbclient -U user%…, htpasswd -b)",
        _PASSWORD_OPTIONS,
        # The client's name as the pattern starts it (a family by its first letters).
        r"\b(?:mysql|mariadb|mongo|7z|ldap[a-z]{3,7}\b|mosquitto_"
        r"|(?:sshpass|redis-cli|sqlcmd|bcp|osql|isql|zip|unzip|smbclient|rpcclient|smbmap|smbcacls"
        r"|htpasswd)\b)"
        r"|(?:docker|podman|nerdctl|buildah|skopeo|oras|registry|az)[ \t]+login\b",
        password_only,
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
