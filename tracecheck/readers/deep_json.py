"""JSON nested past its parser's limit, parsed anyway, with what lies too deep cut away.

orjson parses 1024 levels of nesting and refuses the whole document past that: one span nested
that deep would cost every other span of its file (or of the proxy's batch). `loads` parses
such a document again with each list or object that opens deeper than `CUT_DEPTH` levels
replaced by a marker string. Readers never read that deep: a span whose value nests past
`MAX_VALUE_DEPTH` is left out before its reader reaches a cut, so a cut is never read as data.
The scan that cuts is linear: one regular-expression pass over strings and brackets.
"""

from __future__ import annotations

import re
from typing import Any, Final

import orjson

__all__ = ["CUT_DEPTH", "MARKER", "loads"]

CUT_DEPTH: Final = 256
MARKER: Final = "[tracecheck: nested too deep to read]"
_MARKER_JSON: Final = orjson.dumps(MARKER)
# A JSON string (escapes included), or one bracket outside strings.
_TOKENS: Final = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_TOO_DEEP: Final = "depth limit exceeded"
_OPEN: Final = frozenset(b"[{")
_QUOTE: Final = ord('"')


def loads(data: bytes | memoryview) -> Any:
    """`orjson.loads(data)`, except that JSON nested past the parser's limit is read with its
    deepest parts cut. Raises the parser's own error for JSON that is malformed."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if not exc.msg.startswith(_TOO_DEEP):
            raise
        original = exc
    try:
        return orjson.loads(_cut(bytes(data)))
    except orjson.JSONDecodeError:
        raise original from None


def _cut(data: bytes) -> bytes:
    """`data` with every list or object that opens deeper than `CUT_DEPTH` levels replaced by
    the marker (malformed input stays malformed: its parse fails as before)."""
    parts: list[bytes] = []
    depth = 0
    last = 0
    start = -1
    for match in _TOKENS.finditer(data):
        first = data[match.start()]
        if first == _QUOTE:
            continue
        if first in _OPEN:
            depth += 1
            if depth == CUT_DEPTH + 1:
                start = match.start()
            continue
        if depth == CUT_DEPTH + 1 and start >= 0:
            parts += (data[last:start], _MARKER_JSON)
            last = match.end()
            start = -1
        depth -= 1
    parts.append(data[last:])
    return b"".join(parts)
