"""What a file's bytes hold once decoded: compression and text encodings, read as a stream.

A trace file may be compressed (gzip, bzip2, xz, one inside another) or written as UTF-16 or
UTF-32 text marked by its byte-order mark. Each layer is recognised by its first bytes, never by
the file's name, and decoded on demand: readers see UTF-8 bytes, and memory follows what they
read, not the file.

Decoding is bounded, so that a small file cannot fill memory or disk:
- no layer gives more than `inflate_limit` bytes: 100 times the stored size, at least 256 MiB
  (`TRACECHECK_MAX_INFLATED_BYTES` sets another limit, in bytes); past it, reading stops with
  `InflateLimitError`;
- at most `MAX_LAYERS` layers are followed (an archive's member counts one more).

An archive (zip, tar) holds files, not one input: readers refuse it (`ArchiveError`), and
`verify-safe` judges its members one by one (`tracecheck.sharing.archives`). Compression that
tracecheck does not decode (zstd, 7z, ...) is refused by name (`UndecodedError`).
"""

from __future__ import annotations

import bz2
import codecs
import io
import lzma
import os
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import IO, Final

from tracecheck.errors import TraceReadError, UnrecognizedFormatError

__all__ = [
    "ARCHIVES",
    "INFLATE_FLOOR",
    "INFLATE_RATIO",
    "LIMIT_ENV",
    "MAX_LAYERS",
    "ArchiveError",
    "Decoded",
    "InflateLimitError",
    "NestingError",
    "UndecodedError",
    "decode",
    "decode_within",
    "inflate_limit",
    "layer_of",
    "limit_at_most",
    "limit_reason",
    "open_decoded",
]

Opener = Callable[[], IO[bytes]]

LIMIT_ENV: Final = "TRACECHECK_MAX_INFLATED_BYTES"
INFLATE_RATIO: Final = 100
INFLATE_FLOOR: Final = 256 << 20
MAX_LAYERS: Final = 4
ARCHIVES: Final = frozenset({"zip", "tar"})
PROBE_SIZE: Final = 512  # enough for every magic number, tar's at byte 257 included

# Byte-order marks: UTF-32's first, since UTF-32LE's starts with UTF-16LE's.
_BOMS: Final = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
_MAGIC: Final = (
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),  # an empty archive
    (b"PK\x07\x08", "zip"),  # a spanned archive's first part
)
# bzip2: "BZh", the block size, then a block's or the end's 48-bit magic number.
_BZIP2_MAGIC: Final = (b"1AY&SY", b"\x17rE8P\x90")
_BLOCK_SIZES: Final = tuple(bytes([digit]) for digit in b"123456789")
# Formats recognised by their magic numbers that are not decoded.
_UNDECODED: Final = (
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"7z\xbc\xaf\x27\x1c", "7z"),
    (b"Rar!\x1a\x07", "rar"),
    (b"\x04\x22\x4d\x18", "lz4"),
    (b"LZIP", "lzip"),
    (b"\x1f\x9d", "compress (.Z)"),
    (b"MSCF", "cab"),
)
_UNDECODED_KINDS: Final = frozenset(kind for _, kind in _UNDECODED)
_TEXT_NAMES: Final = {
    "utf-16-le": "UTF-16 (little-endian)",
    "utf-16-be": "UTF-16 (big-endian)",
    "utf-32-le": "UTF-32 (little-endian)",
    "utf-32-be": "UTF-32 (big-endian)",
}
_CHUNK: Final = 1 << 16


class ArchiveError(UnrecognizedFormatError):
    """The input is an archive (zip, tar) of files, which a reader does not read as one."""

    def __init__(self, source: str, kind: str) -> None:
        self.kind = kind
        super().__init__(
            source,
            f"is a {kind} archive: tracecheck reads one trace file at a time, so extract it "
            "first (verify-safe judges every member)",
        )


class UndecodedError(UnrecognizedFormatError):
    """The input is compressed in a format tracecheck does not decompress."""

    def __init__(self, source: str, kind: str) -> None:
        self.kind = kind
        super().__init__(source, f"is {kind}-compressed, which tracecheck does not decompress")


class NestingError(UnrecognizedFormatError):
    """The input is compressed or encoded in more layers than are followed."""

    def __init__(self, source: str) -> None:
        super().__init__(
            source,
            f"is compressed or encoded in more than {MAX_LAYERS} layers, "
            f"and tracecheck follows {MAX_LAYERS}",
        )


class InflateLimitError(TraceReadError):
    """A layer gives more bytes than `limit`: reading stops there (a compression bomb, or a
    file larger than the limit allows)."""

    def __init__(self, source: str, limit: int) -> None:
        self.limit = limit
        super().__init__(source, limit_reason(limit))


def limit_reason(limit: int) -> str:
    """Why reading stopped, naming the limit and how to set another."""
    if os.environ.get(LIMIT_ENV, "").strip():
        return f"inflates past the limit of {limit:,} bytes that {LIMIT_ENV} sets"
    return (
        f"inflates past the limit of {limit:,} bytes ({INFLATE_RATIO} times the size of the file "
        f"as stored, at least {INFLATE_FLOOR >> 20} MiB); set {LIMIT_ENV} to read further"
    )


# The limit of the file an input came from (an archive's member is bounded by its archive's).
_CEILING: ContextVar[int | None] = ContextVar("tracecheck_inflate_ceiling", default=None)


@contextmanager
def limit_at_most(ceiling: int) -> Iterator[None]:
    """Within the block, no input's layers may give more than `ceiling` bytes."""
    current = _CEILING.get()
    token = _CEILING.set(ceiling if current is None else min(current, ceiling))
    try:
        yield
    finally:
        _CEILING.reset(token)


def inflate_limit(stored: int | None) -> int:
    """How many bytes a layer of a `stored`-byte input may give."""
    override = os.environ.get(LIMIT_ENV, "").strip()
    if override:
        try:
            limit = int(override)
        except ValueError:
            limit = -1
        if limit < 1:
            raise TraceReadError(LIMIT_ENV, "is not a positive whole number of bytes")
    else:
        limit = max(INFLATE_FLOOR, INFLATE_RATIO * (stored or 0))
    ceiling = _CEILING.get()
    return limit if ceiling is None else min(limit, ceiling)


def layer_of(head: bytes) -> str | None:
    """The layer the first bytes of an input announce: a compression, a text encoding, an
    archive, a format not decoded, or None for bytes read as they are."""
    for magic, kind in (*_BOMS, *_MAGIC, *_UNDECODED):
        if head.startswith(magic):
            return kind
    if head[:3] == b"BZh" and head[3:4] in _BLOCK_SIZES and head[4:10] in _BZIP2_MAGIC:
        return "bzip2"
    if head[257:262] == b"ustar":
        return "tar"
    return None


@dataclass(frozen=True, slots=True)
class Decoded:
    """An input with its single-stream layers decoded: `open` gives the decoded bytes, which
    are an archive of `archive` kind when that is set; `layers` names what was decoded."""

    open: Opener
    layers: tuple[str, ...]
    archive: str | None
    limit: int


def decode(name: str, open_raw: Opener, stored: int | None, *, depth: int = 0) -> Decoded:
    """Follow the layers of an input (`depth` of them already followed above it), without
    reading more than each layer's first bytes. Raises `UndecodedError`, `NestingError`, or
    `TraceReadError` for a layer whose first bytes are damaged."""
    limit = inflate_limit(stored)
    return decode_within(name, open_raw, limit, depth=depth)


def decode_within(name: str, open_raw: Opener, limit: int, *, depth: int = 0) -> Decoded:
    """`decode` under a given inflate limit (an archive's members share the archive's)."""
    opener = open_raw
    layers: list[str] = []
    while True:
        with opener() as probe:
            head = probe.read(PROBE_SIZE)
        kind = layer_of(head)
        if kind is None or kind in ARCHIVES:
            if kind is not None and depth + len(layers) >= MAX_LAYERS:
                raise NestingError(name)
            return Decoded(opener, tuple(layers), kind, limit)
        if kind in _UNDECODED_KINDS:
            raise UndecodedError(name, kind)
        if depth + len(layers) >= MAX_LAYERS:
            raise NestingError(name)
        opener = _layer_opener(name, kind, opener, limit)
        layers.append(kind)


def open_decoded(name: str, open_raw: Opener, stored: int | None) -> IO[bytes]:
    """The decoded bytes of an input that is one stream; an archive raises `ArchiveError`."""
    decoded = decode(name, open_raw, stored)
    if decoded.archive is not None:
        raise ArchiveError(name, decoded.archive)
    return decoded.open()


def _layer_opener(name: str, kind: str, below: Opener, limit: int) -> Opener:
    return lambda: io.BufferedReader(_Layer(name, kind, below, limit), _CHUNK)


# Errors a damaged layer raises while it is decoded.
_DAMAGED = (OSError, EOFError, zlib.error, lzma.LZMAError, UnicodeDecodeError, ValueError)


class _Layer(io.RawIOBase):
    """The decoded bytes of one layer over the bytes below it: read forward, and seekable by
    decoding again from the start (readers go back only to the start of their input)."""

    def __init__(self, name: str, kind: str, below: Opener, limit: int) -> None:
        super().__init__()
        self._name = name
        self._kind = kind
        self._below = below
        self._limit = limit
        self._source: IO[bytes] | None = None
        self._decoder: io.BufferedIOBase | io.RawIOBase | None = None
        self._position = 0
        self._start()

    def _start(self) -> None:
        self._source = self._below()
        try:
            self._decoder = _decoder(self._kind, self._source)
        except BaseException:
            self._source.close()
            raise
        self._position = 0

    def _stop(self) -> None:
        for part in (self._decoder, self._source):
            if part is not None:
                part.close()
        self._decoder = self._source = None

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        assert self._decoder is not None, "read after close"
        try:
            count = self._decoder.readinto(buffer)
        except TraceReadError:
            raise
        except _DAMAGED:
            raise TraceReadError(self._name, f"could not be read: {_damaged(self._kind)}") from None
        self._position += count
        if self._position > self._limit:
            raise InflateLimitError(self._name, self._limit)
        return int(count)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_CUR:
            offset += self._position
        elif whence != io.SEEK_SET:
            raise io.UnsupportedOperation("a decoded input seeks from its start only")
        if offset < 0:
            raise ValueError("negative seek position")
        if offset < self._position:
            self._stop()
            self._start()
        scratch = bytearray(_CHUNK)
        while self._position < offset:
            view = memoryview(scratch)[: min(_CHUNK, offset - self._position)]
            if not self.readinto(view):
                break
        return self._position

    def close(self) -> None:
        if not self.closed:
            self._stop()
        super().close()


def _decoder(kind: str, source: IO[bytes]) -> io.BufferedIOBase | io.RawIOBase:
    if kind == "gzip":
        import gzip  # here: only a gzip file needs it (bz2 and lzma come with argparse's shutil)

        return gzip.GzipFile(fileobj=source, mode="rb")
    if kind == "bzip2":
        return bz2.BZ2File(source, "rb")
    if kind == "xz":
        return lzma.LZMAFile(source, "rb")
    return _Transcoder(source, kind)


def _damaged(kind: str) -> str:
    if kind in _TEXT_NAMES:
        return f"it is marked {_TEXT_NAMES[kind]} by its byte-order mark but is not such text"
    return f"it is not valid {kind} data (damaged or cut short)"


class _Transcoder(io.RawIOBase):
    """UTF-8 bytes of BOM-marked UTF-16 or UTF-32 text (the mark itself left out)."""

    def __init__(self, source: IO[bytes], kind: str) -> None:
        super().__init__()
        self._source = source
        source.read(4 if kind.startswith("utf-32") else 2)
        self._decoder = codecs.getincrementaldecoder(kind)("strict")
        self._pending = b""
        self._at = 0
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        while self._at >= len(self._pending) and not self._done:
            chunk = self._source.read(_CHUNK)
            self._done = not chunk
            self._pending = self._decoder.decode(chunk, final=self._done).encode("utf-8")
            self._at = 0
        count = min(len(buffer), len(self._pending) - self._at)
        buffer[:count] = self._pending[self._at : self._at + count]
        self._at += count
        return count

    def close(self) -> None:
        if not self.closed:
            self._source.close()
        super().close()
