"""Redaction modes a profile may ask for, beyond what the built-in profiles do: the modes the
OpenTelemetry Collector's redaction processor offers, in tracecheck's terms.

```yaml
extends: share
allowedKeys: [service.name, gen_ai.request.model, "gen_ai.usage.*"]   # only these keep values
values:
  allow: ['[a-z.]+@example\\.com']   # whole values kept (never one holding a credential)
  block: ['ACME-[0-9]{6}']            # stretches removed wherever they stand
pseudonyms: sha256                    # or hmac-sha256, the default
summary: paths                        # or count; each span says what was redacted in it
sanitize: {urls: true, sql: true}     # query values and passwords in URLs, literals in SQL
```

This module holds the options as data (`Modes`, plain strings and flags, so a profile still
pickles to a proxy's worker processes), their strict validation, and what they compile to
(`CompiledModes`: patterns in RE2, which runs in linear time on hostile span text). The walks
that apply them are in `redact.mode_walks`; a profile that sets none of them uses the plain
walks, at no cost.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from redact.engine import re2
from redact.keys import normalize_key
from redact.strings import js_string

__all__ = [
    "BLOCKED_MARKER",
    "HASHES",
    "MODE_KEYS",
    "SUMMARIES",
    "SUMMARY_COUNT",
    "SUMMARY_PATHS",
    "UNLISTED_MARKER",
    "CompiledModes",
    "Modes",
    "compiled",
    "modes_of",
    "sha256_pseudonym",
]

Hash = Literal["hmac-sha256", "sha256"]
Summary = Literal["none", "count", "paths"]
HASHES: tuple[Hash, ...] = ("hmac-sha256", "sha256")
SUMMARIES: tuple[Summary, ...] = ("none", "count", "paths")
# The top-level keys of a profile document this module reads.
MODE_KEYS = ("allowedKeys", "values", "pseudonyms", "summary", "sanitize")
_VALUE_KEYS = ("allow", "block")
_SANITIZE_KEYS = ("urls", "sql")

UNLISTED_MARKER = "[REDACTED:unlisted-key]"
BLOCKED_MARKER = "[REDACTED:blocked-value]"
# The span attributes `summary` writes. They are the redactor's own words, so an allow-list
# never masks them (a second pass must find them as the first left them).
SUMMARY_COUNT = "tracecheck.redacted.count"
SUMMARY_PATHS = "tracecheck.redacted.paths"

# Keys whose values are URLs (normalised, `redact.keys.normalize_key`): the last word names a
# URL, or the whole name is one of the OpenTelemetry conventions' URL attributes.
_URL_WORDS = ("url", "uri", "href", "endpoint")
_URL_NAMES = frozenset({"url_full", "url_query", "url_original", "http_target", "http_url"})
# Keys whose values are only a query string (`url.query` holds `a=1&b=2`, no `?`).
_QUERY_NAMES = frozenset({"url_query"})
# Keys whose values are SQL: the OpenTelemetry conventions' statement attributes, old and new.
_SQL_NAMES = frozenset(
    {"db_statement", "db_query_text", "db_query", "db_sql", "sql", "sql_query", "sql_statement"}
)
# Keys whose values are connection strings, but for those whose class already removes them
# whole (`connection_string`, `dsn`, `database_url` are credential keys).
_CONNECTION_WORDS = ("connection", "conn", "connstr")


@dataclass(frozen=True)
class Modes:
    """What a profile asks for beyond its built-in base. `allowed_keys` None: no allow-list."""

    allowed_keys: tuple[str, ...] | None = None
    allowed_values: tuple[str, ...] = ()
    blocked_values: tuple[str, ...] = ()
    hash: Hash = "hmac-sha256"
    summary: Summary = "none"
    sanitize_urls: bool = False
    sanitize_sql: bool = False
    # Keys named in the profile beyond the built-in URL and SQL keys (exact names).
    url_keys: tuple[str, ...] = ()
    sql_keys: tuple[str, ...] = ()


def sha256_pseudonym(value: str | int | float) -> str:
    """`[ID:<12 hex>]` of plain SHA-256: the same in every run and tool, with no key, and so
    guessable for a value from a small set (anyone can hash every candidate user id)."""
    digest = hashlib.sha256(js_string(value).encode("utf-8", "surrogatepass"))
    return f"[ID:{digest.hexdigest()[:12]}]"


class CompiledModes:
    """`Modes` ready to apply: key tests answered once per key, patterns compiled."""

    def __init__(self, modes: Modes) -> None:
        self.modes = modes
        self.sha256 = modes.hash == "sha256"
        self.summary = modes.summary
        keys = modes.allowed_keys
        self.allow_list = keys is not None
        self._exact = frozenset(k for k in keys or () if not k.endswith("*"))
        self._exact |= {SUMMARY_COUNT, SUMMARY_PATHS}
        self._prefixes = tuple(k[:-1] for k in keys or () if k.endswith("*"))
        self._allowed = _whole(modes.allowed_values)
        self._blocked = _any(modes.blocked_values)
        self.checks_values = self._allowed is not None or self._blocked is not None
        self.blocks = self._blocked is not None
        self.sanitizes = modes.sanitize_urls or modes.sanitize_sql
        self._url_keys = frozenset(modes.url_keys)
        self._sql_keys = frozenset(modes.sql_keys)
        self._kinds: dict[str, str | None] = {}

    def allows_key(self, key: str) -> bool:
        """Whether a key keeps its value under the allow-list (always, without one)."""
        if not self.allow_list or key in self._exact:
            return True
        return bool(self._prefixes) and key.startswith(self._prefixes)

    def allows_value(self, text: str) -> bool:
        """Whether the whole string matches an allowed-value pattern."""
        return self._allowed is not None and self._allowed.match(text) is not None

    def holds_blocked(self, text: str) -> bool:
        """Whether a blocked pattern matches somewhere in the text (markers included: a quick
        test, `blocked_spans` is the exact one)."""
        return self._blocked is not None and self._blocked.search(text) is not None

    def blocked_spans(self, text: str) -> list[tuple[int, int]]:
        """The (start, end) of each blocked stretch, none empty and none inside or across a
        marker a redactor wrote (so that text redacted once is left as it is)."""
        if self._blocked is None:
            return []
        found = [m.span() for m in self._blocked.finditer(text) if m.end() > m.start()]
        if not found:
            return found
        markers = [m.span() for m in _MARKER.finditer(text)]
        return [
            (start, end)
            for start, end in found
            if not any(start < m_end and m_start < end for m_start, m_end in markers)
        ]

    def cut_blocked(self, text: str) -> str:
        """The text with each blocked stretch replaced by its marker."""
        spans = self.blocked_spans(text)
        if not spans:
            return text
        pieces: list[str] = []
        done = 0
        for start, end in spans:
            pieces += (text[done:start], BLOCKED_MARKER)
            done = end
        pieces.append(text[done:])
        return "".join(pieces)

    def sanitizer(self, key: str) -> str | None:
        """`url`, `query` (a bare query string), `sql` or `connection` for a key whose values
        are sanitized, else None."""
        if not self.sanitizes:
            return None
        kind = self._kinds.get(key, "")
        if kind == "":
            kind = self._kinds[key] = self._kind(key)
            if len(self._kinds) > 10_000:
                self._kinds.clear()
        return kind

    def _kind(self, key: str) -> str | None:
        modes = self.modes
        name = normalize_key(key)
        if modes.sanitize_sql:
            if name in _SQL_NAMES or key in self._sql_keys:
                return "sql"
            if name.rsplit("_", 1)[-1] in _CONNECTION_WORDS:
                return "connection"
        if modes.sanitize_urls:
            if name in _QUERY_NAMES:
                return "query"
            if name in _URL_NAMES or name.rsplit("_", 1)[-1] in _URL_WORDS or key in self._url_keys:
                return "url"
        return None


# What a redactor writes in place (`redact.strings.is_placeholder`'s markers, and the size cap's
# suffix), found anywhere in a string.
_MARKER = re.compile(
    r"\[(?:REDACTED|redacted)(?::[^\]]*)?\]|\[ID:[0-9a-f]{12}\]|\[HASH:[0-9a-f]{8,}\]|\*{3,}"
    r"|<redacted>|«redacted»|…\[truncated \d+ bytes\]"
)


@lru_cache(maxsize=64)
def compiled(modes: Modes) -> CompiledModes:
    return CompiledModes(modes)


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # a bad pattern is reported once, by `modes_of`
    options.max_mem = 32 << 20
    return options


def _whole(patterns: tuple[str, ...]) -> Any:
    """One pattern that matches a whole string matching any of `patterns` (`match` anchors its
    start, `\\z` its end)."""
    if not patterns:
        return None
    return re2.compile("(?:" + "|".join(f"(?:{p})" for p in patterns) + ")\\z", options=_options())


def _any(patterns: tuple[str, ...]) -> Any:
    if not patterns:
        return None
    return re2.compile("|".join(f"(?:{p})" for p in patterns), options=_options())


# Validation ---------------------------------------------------------------------------------


def modes_of(document: Mapping[str, Any], problems: list[str]) -> Modes | None:
    """The modes a profile document asks for, or None when it asks for none (the profile then
    redacts exactly as its base). Each problem names its key path."""
    if not any(key in document for key in MODE_KEYS):
        return None
    allowed_keys = _allowed_keys(document.get("allowedKeys"), problems)
    allowed, blocked = _values(document.get("values", {}), problems)
    url_keys, sql_keys, urls, sql = _sanitize(document.get("sanitize", {}), problems)
    return Modes(
        allowed_keys=allowed_keys,
        allowed_values=allowed,
        blocked_values=blocked,
        hash=_choice(document, "pseudonyms", HASHES, "hmac-sha256", problems),
        summary=_choice(document, "summary", SUMMARIES, "none", problems),
        sanitize_urls=urls,
        sanitize_sql=sql,
        url_keys=url_keys,
        sql_keys=sql_keys,
    )


def _names(value: Any, where: str, problems: list[str], *, globs: bool) -> tuple[str, ...]:
    from tracecheck.naming import a_json_type

    if not isinstance(value, list):
        problems.append(f"{where}: must be a list of key names")
        return ()
    names: list[str] = []
    for index, name in enumerate(value):
        if not isinstance(name, str) or not name:
            kind = "an empty string" if name == "" else a_json_type(name)
            problems.append(f"{where}/{index}: must be a key name, not {kind}")
        elif "*" in name and not (globs and name.index("*") == len(name) - 1 and len(name) > 1):
            problems.append(
                f"{where}/{index}: a key name may end with one * (every key it starts), "
                "and hold no other"
                if globs
                else f"{where}/{index}: must be an exact key name (no *)"
            )
        else:
            names.append(name)
    return tuple(names)


def _allowed_keys(value: Any, problems: list[str]) -> tuple[str, ...] | None:
    if value is None:
        return None
    return _names(value, "/allowedKeys", problems, globs=True)


def _values(value: Any, problems: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    from tracecheck.naming import unknown_message

    if not isinstance(value, Mapping):
        problems.append("/values: must be an object with the keys: allow, block")
        return (), ()
    for key in value:
        if key not in _VALUE_KEYS:
            problems.append("/values: " + unknown_message("key", key, _VALUE_KEYS))
    return (
        _patterns(value.get("allow", []), "/values/allow", problems, whole=True),
        _patterns(value.get("block", []), "/values/block", problems, whole=False),
    )


def _patterns(value: Any, where: str, problems: list[str], *, whole: bool) -> tuple[str, ...]:
    """Patterns in RE2 syntax. A message never repeats a pattern (a blocked one may be the
    very value it keeps out)."""
    from tracecheck.naming import a_json_type

    if not isinstance(value, list):
        problems.append(f"{where}: must be a list of patterns (RE2 syntax)")
        return ()
    kept: list[str] = []
    for index, pattern in enumerate(value):
        place = f"{where}/{index}"
        if not isinstance(pattern, str) or not pattern:
            kind = "an empty string" if pattern == "" else a_json_type(pattern)
            problems.append(f"{place}: must be a pattern (RE2 syntax), not {kind}")
            continue
        # Read as it is used, in a group joined with the others: a pattern that runs past its
        # end (`\\Qabc` quotes all that follows) would fail only when joined, at redaction.
        grouped = f"(?:{pattern})"
        try:
            compiled_pattern = re2.compile(grouped, options=_options())
        except Exception as exc:  # RE2's error, or the fallback engine's
            problems.append(f"{place}: not a pattern RE2 reads ({_reason(exc, pattern, grouped)})")
            continue
        if not whole and compiled_pattern.match("") is not None:
            problems.append(f"{place}: matches the empty string, so it would block nothing")
            continue
        kept.append(pattern)
    return tuple(kept)


def _reason(exc: Exception, pattern: str, compiled_as: str) -> str:
    """The engine's reason without the stretch of the pattern (as it was compiled) it quotes."""
    text = exc.args[0] if exc.args else str(exc)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = str(text)
    head, colon, tail = text.rpartition(": ")
    if colon and tail and tail in compiled_as:
        text = head
    return text if pattern not in text else "invalid pattern"


def _choice(
    document: Mapping[str, Any],
    key: str,
    allowed: tuple[str, ...],
    default: str,
    problems: list[str],
) -> Any:
    from tracecheck.naming import unknown_message

    value = document.get(key, default)
    if value not in allowed or not isinstance(value, str):
        problems.append(f"/{key}: " + unknown_message("value", value, allowed))
        return default
    return value


def _sanitize(
    value: Any, problems: list[str]
) -> tuple[tuple[str, ...], tuple[str, ...], bool, bool]:
    from tracecheck.naming import unknown_message

    if not isinstance(value, Mapping):
        problems.append("/sanitize: must be an object with the keys: urls, sql")
        return (), (), False, False
    for key in value:
        if key not in _SANITIZE_KEYS:
            problems.append("/sanitize: " + unknown_message("key", key, _SANITIZE_KEYS))
    found: list[tuple[tuple[str, ...], bool]] = []
    for key in _SANITIZE_KEYS:
        setting = value.get(key, False)
        if isinstance(setting, bool):
            found.append(((), setting))
        elif isinstance(setting, list):
            found.append((_names(setting, f"/sanitize/{key}", problems, globs=False), True))
        else:
            problems.append(
                f"/sanitize/{key}: must be true, false, or a list of more keys to sanitize"
            )
            found.append(((), False))
    (url_keys, urls), (sql_keys, sql) = found
    return url_keys, sql_keys, urls, sql
