"""Text from a trace made safe for where it is shown.

Span names, tool names and file names come from recorded input and may hold anything: control
characters that move a terminal's cursor or recolour it, line breaks that forge report lines,
bidirectional overrides that reorder what a reader sees, and characters XML 1.0 cannot hold.
Each is shown as a visible escape (`\\x1b`, `\\n`, `\\u202e`) instead.
"""

from __future__ import annotations

import functools
import re

__all__ = ["markdown", "printable", "shorten", "xml_safe"]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


# The patterns are compiled on first use, and only for text that holds a character
# `str.isprintable` refuses (every character both patterns match is one): most text shown
# needs no escape, and compiling them costs a millisecond of every command's start-up.
@functools.cache
def _unprintable() -> re.Pattern[str]:
    # C0 and C1 controls, DEL, line/paragraph separators, bidi embeddings/overrides/isolates,
    # and lone surrogates (which no UTF-8 stream can carry).
    return re.compile(
        "[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
    )


@functools.cache
def _not_xml() -> re.Pattern[str]:
    # Everything XML 1.0 cannot hold: its Char production minus tab, newline and carriage
    # return (which XML can carry; attribute values escape them).
    return re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with every control, separator and bidi character shown as an escape."""
    return text if text.isprintable() else _unprintable().sub(_escape, text)


def xml_safe(text: str) -> str:
    """`text` with the characters XML 1.0 cannot hold shown as escapes."""
    return text if text.isprintable() else _not_xml().sub(_escape, text)


@functools.cache
def _markup() -> re.Pattern[str]:
    # Characters that Markdown or HTML could read as markup in GitHub's flavour (emphasis,
    # code, links and images, table cells, HTML and entities, strikethrough, maths, mentions).
    # Names never start a line, so `#`, `-` and `1.` need none.
    return re.compile(r"([\\`*_\[\]<>|&~$@])")


def markdown(text: str) -> str:
    """Recorded text as Markdown that shows it as it is: controls and line breaks escaped
    (`printable`), markup characters backslash-escaped."""
    return _markup().sub(r"\\\1", printable(text))


def shorten(text: str, limit: int = 500) -> str:
    """`text`, or its head and tail around an ellipsis when it is longer than `limit`."""
    if len(text) <= limit:
        return text
    tail = limit // 3
    head = limit - tail - 3
    return f"{text[:head]} … {text[-tail:]}"
