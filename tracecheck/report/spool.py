"""Output a command gathers piece by piece but writes only at the end (every input is read
before a report is printed, and a directory's file that breaks late takes its traces back):
the pieces wait in a temporary file, so memory holds none of them.

`JsonPieces` renders JSON values one at a time and `json_document` joins them into the bytes
`orjson` (or, for what it refuses, `json`) gives for the whole document at once.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import orjson

__all__ = ["JsonPieces", "Piece", "Spool", "json_document", "json_member"]

Piece = tuple[int, int]  # offset and length in the spool
_IN_MEMORY = 4 << 20  # bytes the spool holds before it moves to disk
_ENCODING = ("utf-8", "surrogatepass")


class Spool:
    """Pieces kept in order on disk, read back by the handle `add` returned."""

    def __init__(self) -> None:
        # Closed by `close`: the spool outlives any one block of the command.
        self._file = tempfile.SpooledTemporaryFile(max_size=_IN_MEMORY, mode="w+b")  # noqa: SIM115
        self._end = 0

    def add_bytes(self, data: bytes) -> Piece:
        self._file.seek(self._end)
        self._file.write(data)
        piece = (self._end, len(data))
        self._end += len(data)
        return piece

    def bytes(self, piece: Piece) -> bytes:
        offset, length = piece
        self._file.seek(offset)
        return self._file.read(length)

    def add(self, text: str) -> Piece:
        return self.add_bytes(text.encode(*_ENCODING))

    def text(self, piece: Piece) -> str:
        return self.bytes(piece).decode(*_ENCODING)

    def close(self) -> None:
        self._file.close()


class JsonPieces:
    """JSON values rendered one at a time, two-space indented as `orjson` writes them, falling
    back to `json` (ASCII escapes) for all of them if one holds what `orjson` refuses (a lone
    surrogate, an integer beyond 64 bits): what rendering the whole document does."""

    def __init__(self, spool: Spool) -> None:
        self.spool = spool
        self.fallback = False

    def add(self, value: Any) -> Piece:
        try:
            text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
        except orjson.JSONEncodeError:
            self.fallback = True
            text = json.dumps(value, indent=2, ensure_ascii=True)
        return self.spool.add(text)

    def text(self, piece: Piece) -> str:
        text = self.spool.text(piece)
        return json.dumps(json.loads(text), indent=2, ensure_ascii=True) if self.fallback else text

    def texts(self, pieces: Iterable[Piece]) -> Iterator[str]:
        for piece in pieces:
            yield self.text(piece)


def json_member(key: str, rendered: str) -> str:
    """`"key": value` as a member of a top-level object, from the value rendered alone."""
    return f"  {json.dumps(key)}: " + rendered.replace("\n", "\n  ")


def json_document(
    before: Sequence[str], key: str, items: Iterable[str], after: Sequence[str] = ()
) -> Iterator[str]:
    """A two-space-indented object in parts: the members `before` (from `json_member`), the
    list `key` of rendered items, the members `after`; no final newline."""
    yield "{\n" + "".join(member + ",\n" for member in before) + f"  {json.dumps(key)}: ["
    first = True
    for item in items:
        yield ("\n" if first else ",\n") + "    " + item.replace("\n", "\n    ")
        first = False
    yield "]" if first else "\n  ]"
    yield "".join(",\n" + member for member in after) + "\n}"
