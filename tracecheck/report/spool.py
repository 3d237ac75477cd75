"""Output a command gathers piece by piece but writes only at the end (every input is read
before a report is printed, and a directory's file that breaks late takes its traces back):
the pieces wait in a temporary file, so memory holds none of them.

`Spool` gives a handle per piece, to read it back alone; `Records` reads its pieces back in
order, holding no handle per piece (a verdict per trace of a file of many traces); `Kept` does
so for objects, pickled once there are more than a few.
`JsonPieces` renders JSON values one at a time and `json_document` joins them into the bytes
`orjson` (or, for what it refuses, `json`) gives for the whole document at once.
"""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any

import orjson

__all__ = [
    "JsonPieces",
    "Kept",
    "Mark",
    "Piece",
    "Records",
    "Spool",
    "json_document",
    "json_member",
]

Piece = tuple[int, int]  # offset and length in the spool
Mark = tuple[int, int]  # where `Records` ended, and how many it held
# Bytes a spool holds before it moves to disk: a small report never touches the disk, and a
# large one costs no more memory than this.
_IN_MEMORY = 256 << 10
_ENCODING = ("utf-8", "surrogatepass")
_LENGTH = struct.Struct("<Q")


class _Spooled:
    """`tempfile.SpooledTemporaryFile(_IN_MEMORY)` for the calls made here (seek, read, write,
    truncate, close): in memory, then in a temporary file once it grows past `_IN_MEMORY`
    bytes. Written here because importing `tempfile` (and the `random` it imports) would cost
    every `check` about 2 ms of start-up that only a large report needs."""

    def __init__(self) -> None:
        self._file: IO[bytes] = io.BytesIO()
        self._in_memory = True

    def write(self, data: bytes) -> None:
        self._file.write(data)
        if self._in_memory and self._file.tell() > _IN_MEMORY:
            self._move_to_disk()

    def _move_to_disk(self) -> None:
        import tempfile

        memory = self._file
        assert isinstance(memory, io.BytesIO)
        disk = tempfile.TemporaryFile()  # noqa: SIM115 (closed by `close`)
        disk.write(memory.getbuffer())
        disk.seek(memory.tell())
        self._file, self._in_memory = disk, False

    def seek(self, position: int) -> None:
        self._file.seek(position)

    def read(self, size: int) -> bytes:
        return self._file.read(size)

    def truncate(self, size: int) -> None:
        self._file.truncate(size)

    def close(self) -> None:
        self._file.close()


class Spool:
    """Pieces kept in order on disk, read back by the handle `add` returned."""

    def __init__(self) -> None:
        # Closed by `close`: the spool outlives any one block of the command.
        self._file = _Spooled()
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


class Records:
    """Byte strings kept in order in a temporary file, read back in the same order."""

    def __init__(self) -> None:
        # Closed by `close`, like `Spool`.
        self._file = _Spooled()
        self._end = 0
        self._count = 0

    def append(self, data: bytes) -> None:
        self._file.seek(self._end)
        self._file.write(_LENGTH.pack(len(data)))
        self._file.write(data)
        self._end += _LENGTH.size + len(data)
        self._count += 1

    def add_text(self, text: str) -> None:
        self.append(text.encode(*_ENCODING))

    def mark(self) -> Mark:
        return self._end, self._count

    def truncate(self, mark: Mark) -> None:
        """Forget every record appended since `mark`."""
        self._end, self._count = mark
        self._file.truncate(self._end)

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[bytes]:
        """The records appended so far, in order (not those appended while iterating)."""
        return self.between((0, 0), self.mark())

    def between(self, start: Mark, stop: Mark) -> Iterator[bytes]:
        """The records appended from mark `start` to mark `stop`, in order."""
        position, end = start[0], stop[0]
        read, seek = self._file.read, self._file.seek
        while position < end:
            seek(position)
            (size,) = _LENGTH.unpack(read(_LENGTH.size))
            position += _LENGTH.size + size
            yield read(size)

    def texts(self) -> Iterator[str]:
        for data in self:
            yield data.decode(*_ENCODING)

    def close(self) -> None:
        self._file.close()


class Kept:
    """Objects kept in order and read back in the same order: the first `held` as they are,
    the rest pickled into `Records` (on disk once they grow), so memory holds at most `held`
    of them. A small run's verdicts never pass through `pickle`, which `check` would import
    for them alone."""

    def __init__(self, held: int = 32) -> None:
        self._held: list[Any] = []
        self._limit = held
        self._records: Records | None = None

    def append(self, item: Any) -> None:
        if self._records is None and len(self._held) < self._limit:
            self._held.append(item)
            return
        import pickle

        if self._records is None:
            self._records = Records()
        self._records.append(pickle.dumps(item, pickle.HIGHEST_PROTOCOL))

    def __len__(self) -> int:
        return len(self._held) + (0 if self._records is None else len(self._records))

    def __iter__(self) -> Iterator[Any]:
        yield from self._held
        if self._records is not None:
            import pickle

            for data in self._records:
                yield pickle.loads(data)

    def close(self) -> None:
        if self._records is not None:
            self._records.close()


class JsonPieces:
    """JSON values rendered one at a time, two-space indented as `orjson` writes them, falling
    back to `json` (ASCII escapes) for all of them if one holds what `orjson` refuses (a lone
    surrogate, an integer beyond 64 bits): what rendering the whole document does."""

    def __init__(self, spool: Spool) -> None:
        self.spool = spool
        self.fallback = False
        # The values of `append`, in order: the items of a list too long to hold handles for.
        self._items: Records | None = None

    @property
    def items(self) -> Records:
        if self._items is None:
            self._items = Records()
        return self._items

    def _render(self, value: Any) -> str:
        try:
            return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
        except orjson.JSONEncodeError:
            self.fallback = True
            return json.dumps(value, indent=2, ensure_ascii=True)

    def add(self, value: Any) -> Piece:
        return self.spool.add(self._render(value))

    def append(self, value: Any) -> None:
        """Render `value` as the next of `items`."""
        self.items.add_text(self._render(value))

    def _final(self, text: str) -> str:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=True) if self.fallback else text

    def text(self, piece: Piece) -> str:
        return self._final(self.spool.text(piece))

    def texts(self, pieces: Iterable[Piece]) -> Iterator[str]:
        for piece in pieces:
            yield self.text(piece)

    def appended(self) -> Iterator[str]:
        """The texts of `items`, in order."""
        for text in self.items.texts():
            yield self._final(text)

    def close(self) -> None:
        """Closes `items` (the spool is the caller's)."""
        if self._items is not None:
            self._items.close()


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
