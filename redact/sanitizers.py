"""Sanitizers that keep a value's shape and take out what varies with the data in it: the values
of a URL's query string and the password in its user information, the literals of an SQL
statement, and the password of a connection string.

They run on values under the keys a profile's `sanitize` names (`redact.modes`), before the
detectors, which still judge what is left. Each returns the text and the kinds of change it
made (detector ids for the report); text already sanitized comes back as it is, so redaction
stays idempotent. Markers other redactors wrote (`[REDACTED:…]`, `[ID:…]`, a truncation
suffix) are left where they stand.
"""

from __future__ import annotations

import re

from redact.strings import is_placeholder

__all__ = [
    "CONNECTION_PASSWORD",
    "QUERY_VALUE",
    "SQL_LITERAL",
    "URL_PASSWORD",
    "sanitize_connection_string",
    "sanitize_query",
    "sanitize_sql",
    "sanitize_urls",
]

URL_PASSWORD = "url-password"
QUERY_VALUE = "query-value"
CONNECTION_PASSWORD = "connection-password"
SQL_LITERAL = "sql-literal"

_QUERY_MARKER = f"[REDACTED:{QUERY_VALUE}]"
_PASSWORD_MARKER = f"[REDACTED:{URL_PASSWORD}]"
_CONNECTION_MARKER = f"[REDACTED:{CONNECTION_PASSWORD}]"

# A URL with a scheme, to the first character no URL holds unencoded.
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{0,31}://[^\s\"'<>`]*")
# The suffix the size cap writes (`redact.strings.cap_string`): a text cut there is sanitized
# up to it, so that a second redaction of a capped value finds nothing more to change.
_TRUNCATED = re.compile(r"…\[truncated \d+ bytes\]\Z")


def _cut_off(text: str) -> tuple[str, str]:
    """The text before the size cap's suffix, and the suffix ("" when there is none)."""
    found = _TRUNCATED.search(text) if text.endswith("]") else None
    if found is None:
        return text, ""
    return text[: found.start()], found.group()


def sanitize_urls(text: str, *, whole_query: bool = False) -> tuple[str, list[str]]:
    """Every URL in the text with the password of its user information and the value of each
    query parameter (and of each `k=v` of a fragment, where OAuth puts tokens) replaced by a
    marker; parameter names, hosts and paths stay. Text with no scheme that starts with `/` (an
    HTTP target) has its query sanitized; with `whole_query`, the whole text is one query
    string (`url.query`)."""
    text, suffix = _cut_off(text)
    if whole_query:
        text, changes = sanitize_query(text)
        return text + suffix, changes
    changes = []
    if "://" in text:
        text = _URL.sub(lambda found: _one_url(found.group(), changes), text)
    elif text.startswith("/") and "?" in text:
        path, _, query = text.partition("?")
        query, changes = _query_and_fragment(query)
        text = f"{path}?{query}"
    return text + suffix, sorted(set(changes))


def _one_url(url: str, changes: list[str]) -> str:
    scheme, _, rest = url.partition("://")
    end = len(rest)
    for separator in "/?#":
        place = rest.find(separator)
        if place >= 0:
            end = min(end, place)
    authority, tail = rest[:end], rest[end:]
    user, at, host = authority.rpartition("@")
    if at and ":" in user:
        name, _, password = user.partition(":")
        if password and not is_placeholder(password):
            authority = f"{name}:{_PASSWORD_MARKER}@{host}"
            changes.append(URL_PASSWORD)
    if "?" in tail:
        path, _, query = tail.partition("?")
        query, found = _query_and_fragment(query)
        tail = f"{path}?{query}"
        changes.extend(found)
    elif "#" in tail:
        path, _, fragment = tail.partition("#")
        fragment, found = _pairs(fragment)
        tail = f"{path}#{fragment}"
        changes.extend(found)
    return f"{scheme}://{authority}{tail}"


def _query_and_fragment(text: str) -> tuple[str, list[str]]:
    query, hash_sign, fragment = text.partition("#")
    query, changes = sanitize_query(query)
    if hash_sign:
        fragment, found = _pairs(fragment)
        changes = sorted({*changes, *found})
        return f"{query}#{fragment}", changes
    return query, changes


def sanitize_query(query: str) -> tuple[str, list[str]]:
    """A query string (`a=1&b=two`) with every value replaced by a marker (`a=[…]&b=[…]`); a
    bare item (`?abc123`) is a value too."""
    if not query:
        return query, []
    changed = False
    items: list[str] = []
    for item in query.split("&"):
        name, equals, value = item.partition("=")
        if not equals:
            name, value = "", name
        # A marker stays, and so does the start of one the size cap cut.
        if value and not is_placeholder(value) and not _QUERY_MARKER.startswith(value):
            value = _QUERY_MARKER
            changed = True
        items.append(f"{name}={value}" if equals else value)
    return "&".join(items), [QUERY_VALUE] if changed else []


def _pairs(fragment: str) -> tuple[str, list[str]]:
    """A fragment of `k=v` pairs (`#access_token=…&state=…`) has its values replaced; any other
    fragment (`#section-2`) stays."""
    if "=" not in fragment:
        return fragment, []
    return sanitize_query(fragment)


# Connection strings: `Password=…;` (ADO.NET, ODBC, JDBC properties), `password=…` (libpq's
# keyword/value form, words apart). The value is quoted, braced, or runs to `;` (or to white
# space where the string holds no `;`).
_PASSWORD_SETTING = r"(?i)\b(?:password|passwd|pwd)[ \t]*=[ \t]*"
_CONNECTION_PASSWORD = re.compile(
    _PASSWORD_SETTING
    + r"(?P<value>'(?:[^']|'')*(?:'|\Z)|\"(?:[^\"]|\"\")*(?:\"|\Z)|\{[^}]*(?:\}|\Z)|[^;\r\n]*)"
)
_LIBPQ_PASSWORD = re.compile(
    _PASSWORD_SETTING + r"(?P<value>'(?:[^'\\]|\\.)*(?:'|\Z)|\"(?:[^\"]|\"\")*(?:\"|\Z)|\S*)"
)
# In a statement whose literals are gone, `password = x` compares or sets a column: the word
# after it goes (an unquoted password), a parameter (`?`, `:pw`, `@pw`, `$1`) stays.
_SQL_PASSWORD = re.compile(_PASSWORD_SETTING + r"(?P<value>[^\s;,)?:@$][^\s;,)]*)")


def sanitize_connection_string(text: str, *, sql: bool = False) -> tuple[str, list[str]]:
    """The text with the value of each `password=`/`pwd=` setting replaced by a marker; with
    `sql`, the text is a statement already sanitized (`sanitize_sql`)."""
    if "=" not in text:
        return text, []
    pattern = _SQL_PASSWORD if sql else _CONNECTION_PASSWORD if ";" in text else _LIBPQ_PASSWORD
    changed = False

    def replace(found: re.Match[str]) -> str:
        nonlocal changed
        value = found.group("value")
        kept = value.rstrip(" \t")
        if not kept or is_placeholder(kept) or kept.startswith("[REDACTED"):
            return found.group()
        changed = True
        start = found.start("value") - found.start()
        return found.group()[:start] + _CONNECTION_MARKER + value[len(kept) :]

    out = pattern.sub(replace, text)
    return out, [CONNECTION_PASSWORD] if changed else []


# SQL, token by token. Markers come first, so a marker in a statement is one token that stays.
_SQL_TOKEN = re.compile(
    r"""
    (?P<marker>\[(?:REDACTED|redacted)(?::[^\]]*)?\]|\[ID:[0-9a-f]{12}\]|\[HASH:[0-9a-f]{8,}\]
        |…\[truncated\ \d+\ bytes\])
    |(?P<line_comment>--[^\n]*)
    |(?P<block_comment>/\*)
    |(?P<string>(?:[EeNnXxBb]|[Uu]&)?'(?:[^'\\]|\\[\s\S]|'')*(?:'|\Z))
    |(?P<dollar>\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$)
    |(?P<quoted>"(?:[^"]|"")*(?:"|\Z))
    |(?P<backtick>`[^`]*(?:`|\Z))
    |(?P<word>[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)
    |(?P<parameter>[?:@$][A-Za-z0-9_]*)
    |(?P<number>0[xX][0-9A-Fa-f]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
    |(?P<other>[^\[\-/'$"`A-Za-z_\u0080-\uffff?:@0-9.EeNnXxBbUu…]+|[\s\S])
    """,
    re.VERBOSE,
)
# A double-quoted token that reads as a name (ANSI SQL's quoted identifier) stays; anything
# else in double quotes (MySQL's strings: an address, words with spaces) is a literal.
# One the size cap cut before its closing quote stays too.
_QUOTED_NAME = re.compile(r'"[A-Za-z_][A-Za-z0-9_$]{0,62}"?\Z')


def sanitize_sql(text: str) -> tuple[str, list[str]]:
    """The statement with each literal (strings, numbers, dollar-quoted bodies, hex and bit
    strings, double-quoted strings that are no names) replaced by `?` and comments taken out:
    keywords, names, operators and parameters stay, so the statement keeps its shape. A string
    not closed runs to the end (what is left is not known to hold no value)."""
    text, suffix = _cut_off(text)
    pieces: list[str] = []
    changed = False
    position = 0
    length = len(text)
    match = _SQL_TOKEN.match
    while position < length:
        found = match(text, position)
        assert found is not None  # `other` takes any one character
        kind = found.lastgroup
        token = found.group()
        end = found.end()
        if kind == "block_comment":
            # One space where the comment and the blanks around it stood.
            close = text.find("*/", end)
            end = length if close < 0 else close + 2
            while end < length and text[end] in " \t":
                end += 1
            _trim(pieces)
            if pieces and end < length:
                pieces.append(" ")
            changed = True
        elif kind == "line_comment":
            _trim(pieces)
            changed = True
        elif kind == "dollar":
            close = text.find(token, end)
            end = length if close < 0 else close + len(token)
            pieces.append("?")
            changed = True
        elif kind in ("string", "number") or (
            kind == "quoted" and _QUOTED_NAME.match(token) is None
        ):
            pieces.append("?")
            changed = True
        else:
            pieces.append(token)
        position = end
    if not changed:
        return text + suffix, []
    return "".join(pieces) + suffix, [SQL_LITERAL]


def _trim(pieces: list[str]) -> None:
    """Blanks at the end of what is written so far taken off (before a comment taken out)."""
    while pieces and not pieces[-1].strip(" \t"):
        pieces.pop()
    if pieces:
        pieces[-1] = pieces[-1].rstrip(" \t")
