"""The headers the proxy sends upstream: the exporter's own, but for those that describe one
connection or the body the proxy sends instead, then the operator's configured headers over
them (an `Authorization` for the upstream, a tenant header).

An exporter's `OTEL_EXPORTER_OTLP_HEADERS="authorization=Bearer …"` so reaches an
authenticating upstream through the proxy. Header values are credentials: no message, log line
or error here ever holds one; they name the header, or the entry's place in a list.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final
from urllib.parse import unquote

from redact.shipping.http import HOP_BY_HOP

__all__ = [
    "NOT_FORWARDED",
    "HeaderError",
    "check_header",
    "forwarded_headers",
    "parse_header_list",
    "parse_header_option",
]

# Besides the hop-by-hop ones: the proxy reads the upstream's answer itself, in the codings it
# can decode, so the exporter's Accept-Encoding is not the proxy's.
NOT_FORWARDED: Final = HOP_BY_HOP | {"accept-encoding"}

_TOKEN: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


class HeaderError(ValueError):
    """A configured header that cannot be sent; the message never holds its value."""


def check_header(name: str, value: str) -> tuple[str, str]:
    """`(name, value)` with the name lower-cased, once both can go on the wire; HeaderError
    when the name is not an HTTP token, the value holds a control character or a character
    outside latin-1, or the name is one the proxy sets itself."""
    if not _TOKEN.fullmatch(name):
        # Not quoted: what comes before "=" may be a whole "Authorization: Bearer …" mistyped.
        raise HeaderError(f"a header name must be an HTTP token ({len(name)} characters given)")
    lowered = name.lower()
    if lowered in NOT_FORWARDED:
        raise HeaderError(f"{lowered} is set by the proxy itself and cannot be configured")
    if any((ord(c) < 0x20 and c != "\t") or ord(c) == 0x7F or ord(c) > 0xFF for c in value):
        raise HeaderError(f"the value of {lowered} holds a character a header cannot carry")
    return lowered, value.strip()


def parse_header_option(text: str) -> tuple[str, str]:
    """One `name=value` (the `--upstream-header` option); the value is taken as it is."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise HeaderError("give a header as name=value")
    return check_header(name.strip(), value)


def parse_header_list(text: str) -> tuple[tuple[str, str], ...]:
    """Headers in the `OTEL_EXPORTER_OTLP_HEADERS` format: comma-separated `name=value`
    entries, values percent-decoded; empty entries are skipped. HeaderError names the entry by
    its place (1-based), never its text."""
    out: list[tuple[str, str]] = []
    for number, entry in enumerate(text.split(","), 1):
        if not entry.strip():
            continue
        name, sep, value = entry.partition("=")
        if not sep or not name.strip():
            raise HeaderError(f"entry {number} is not name=value")
        try:
            out.append(check_header(unquote(name.strip()), unquote(value.strip())))
        except HeaderError as exc:
            raise HeaderError(f"entry {number}: {exc}") from None
    return tuple(out)


def forwarded_headers(
    request: Mapping[str, str], configured: Iterable[tuple[str, str]] = ()
) -> dict[str, str]:
    """What goes upstream with a batch: the request's headers (lower-case names) but for the
    hop-by-hop ones, those the request's `Connection` names and those the proxy sets itself;
    then `configured` ones, which replace the request's of the same name."""
    named = {token.strip().lower() for token in request.get("connection", "").split(",") if token}
    out = {
        name: value
        for name, value in request.items()
        if name not in NOT_FORWARDED and name not in named
    }
    for name, value in configured:
        out[name.lower()] = value
    return out
