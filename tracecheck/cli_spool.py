"""Output a command writes piece by piece but may print only at the end (`tracecheck show`
prints after every input was read, and a directory's file that breaks late takes its traces
back): the pieces wait in a temporary file, so memory holds none of them."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Sequence
from typing import Any

import orjson

__all__ = ["Piece", "Spool", "json_document"]

Piece = tuple[int, int]  # offset and length in the spool
_IN_MEMORY = 8 << 20  # bytes the spool holds before it moves to disk
_ENCODING = ("utf-8", "surrogatepass")


class Spool:
    """Text pieces, kept in order, read back by the handle `add` returned."""

    def __init__(self) -> None:
        # Closed by `close`: the spool outlives any one block of the command.
        self._file = tempfile.SpooledTemporaryFile(max_size=_IN_MEMORY, mode="w+b")  # noqa: SIM115
        self._end = 0

    def add(self, text: str) -> Piece:
        data = text.encode(*_ENCODING)
        self._file.seek(self._end)
        self._file.write(data)
        piece = (self._end, len(data))
        self._end += len(data)
        return piece

    def text(self, piece: Piece) -> str:
        offset, length = piece
        self._file.seek(offset)
        return self._file.read(length).decode(*_ENCODING)

    def close(self) -> None:
        self._file.close()


class JsonPieces:
    """JSON values rendered one at a time, as `orjson` indents them two spaces, falling back
    to `json` (ASCII escapes) for all of them if one holds what `orjson` refuses (a lone
    surrogate, an integer beyond 64 bits): the same bytes as rendering the whole document."""

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

    def texts(self, pieces: Sequence[Piece]) -> Iterator[str]:
        for piece in pieces:
            text = self.spool.text(piece)
            yield (
                json.dumps(json.loads(text), indent=2, ensure_ascii=True) if self.fallback else text
            )


def json_document(head: str, key: str, items: Iterator[str]) -> Iterator[str]:
    """`{<head>, "<key>": [items]}` as two-space-indented JSON, in parts: `head` holds the
    members before the list (already rendered, each on its own line with two spaces), each
    item is one rendered value."""
    yield "{\n" + head + f'  "{key}": ['
    first = True
    for item in items:
        yield ("\n" if first else ",\n") + _indented(item, "    ")
        first = False
    yield "]\n}" if first else "\n  ]\n}"


def _indented(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.split("\n"))
