"""OTLP/HTTP request bodies: read within a size limit and a time limit, inflated chunk by chunk
(never past the limit, so a compression bomb never grows in memory), and compressed again for
the upstream in the coding they came in: gzip, deflate (zlib), zstd when the `zstandard`
library is installed and Snappy when `cramjam` is (the `serve` extra installs both).

Snappy comes as the Collector's `otlphttp` exporter sends it: `Content-Encoding: snappy` holds
one Snappy block (or, as the Collector's own receiver also reads it, a framed stream), and
`x-snappy-framed` a framed stream. A block declares its length first, and every frame holds at
most 64 KiB, so neither is inflated past the limit."""

from __future__ import annotations

import asyncio
import gzip
import zlib
from typing import Any, Final

from redact.shipping.http import BodyTimeout, Receive, next_chunk
from redact.shipping.metrics import ProxyMetrics
from redact.shipping.refusal import Refusal

try:
    import zstandard
except ImportError:  # pragma: no cover - the serve extra installs it
    zstandard = None  # type: ignore[assignment]
try:
    import cramjam
except ImportError:  # pragma: no cover - the serve extra installs it
    cramjam = None  # type: ignore[assignment]

__all__ = ["CODINGS", "ZSTD_MAX_WINDOW", "compressed", "read_body"]

# Content-Encoding → the coding the body is inflated from and compressed again in (None: as it
# came). HTTP's "deflate" is the zlib format (RFC 9110 §8.4.1.2).
CODINGS: Final[dict[str, str | None]] = {
    "identity": None,
    "gzip": "gzip",
    "x-gzip": "gzip",
    "deflate": "deflate",
}
if zstandard is not None:
    CODINGS["zstd"] = "zstd"
if cramjam is not None:
    CODINGS["snappy"] = "snappy"
    CODINGS["x-snappy-framed"] = "x-snappy-framed"

# The largest zstd window a body may ask for: the decoder allocates the window before any
# output, so a frame declaring gigabytes would allocate them. 8 MiB is what zstd's levels up
# to 19 use (the OpenTelemetry Collector's encoder stays below it).
ZSTD_MAX_WINDOW: Final = 8 << 20
# zstd's worst case, out per byte in: an RLE block of 4 bytes makes 128 KiB.
_ZSTD_MAX_RATIO: Final = 32 * 1024
_NAMES: Final = {
    "gzip": "gzip",
    "deflate": "deflate (zlib)",
    "zstd": "zstd",
    "snappy": "Snappy",
    "x-snappy-framed": "framed Snappy",
}
_ERRORS: Final[tuple[type[Exception], ...]] = (zlib.error,) + (
    () if zstandard is None else (zstandard.ZstdError,)
)
_SNAPPY_STREAM: Final = b"\xff\x06\x00\x00sNaPpY"
_SNAPPY_FRAME_MAX: Final = 65536  # uncompressed bytes in one frame (the framing format's cap)


class _SnappyInflater:
    """Snappy: the body is kept as it came (at most the limit on the wire), then inflated whole
    once it has all come, after checking the length each block declares."""

    def __init__(self, coding: str, limit: int) -> None:
        self._limit = limit
        self._name = _NAMES[coding]
        self._parts: list[bytes] = []

    def feed(self, data: bytes) -> None:
        self._parts.append(data)

    def finish(self) -> bytes:
        body = b"".join(self._parts)
        self._parts.clear()
        try:
            if body.startswith(_SNAPPY_STREAM):
                return self._frames(memoryview(body))
            return self._block(body, self._limit)
        except (ValueError, cramjam.DecompressionError) as exc:
            raise Refusal(
                400, "bad_request", f"the body is not valid {self._name}: {exc}"
            ) from None

    def _block(self, block: bytes | memoryview, room: int) -> bytes:
        length, shift, index = 0, 0, 0
        while True:  # the block's uncompressed length, a little-endian base-128 varint
            if index >= min(len(block), 5):
                raise ValueError("no length")
            byte = block[index]
            length |= (byte & 0x7F) << shift
            index, shift = index + 1, shift + 7
            if not byte & 0x80:
                break
        if length > room:
            raise Refusal(
                413, "too_large", f"the body inflates past the limit of {self._limit} bytes"
            )
        return bytes(cramjam.snappy.decompress_raw(bytes(block)))

    def _frames(self, body: memoryview) -> bytes:
        out: list[bytes] = []
        size, at = 0, 0
        while at < len(body):
            if len(body) - at < 4:
                raise ValueError("a frame header is cut short")
            kind = body[at]
            length = int.from_bytes(body[at + 1 : at + 4], "little")
            frame = body[at + 4 : at + 4 + length]
            if len(frame) != length:
                raise ValueError("a frame is cut short")
            at += 4 + length
            if kind in (0x00, 0x01):  # compressed or not; a 4-byte checksum comes first
                room = min(_SNAPPY_FRAME_MAX, self._limit - size)
                data = self._block(frame[4:], room) if kind == 0x00 else bytes(frame[4:])
                size += len(data)
                if size > self._limit or len(data) > _SNAPPY_FRAME_MAX:
                    raise Refusal(
                        413, "too_large", f"the body inflates past the limit of {self._limit} bytes"
                    )
                out.append(data)
            elif kind < 0x80:  # 0x02-0x7f are reserved and may not be skipped
                raise ValueError(f"an unskippable frame of type {kind:#04x}")
        return b"".join(out)


class _Inflater:
    """Inflates a gzip, zlib or zstd body chunk by chunk, never past `limit` bytes of output.

    zlib's decoder takes a bound on its output; zstd's does not, so a zstd body is fed in
    slices small enough that even zstd's worst ratio stays near the bytes still allowed."""

    def __init__(self, coding: str, limit: int) -> None:
        self._coding = coding
        self._limit = limit
        self._decoder = self._new()
        self._parts: list[bytes] = []
        self.size = 0

    def _new(self) -> Any:
        if self._coding == "zstd":
            assert zstandard is not None
            return zstandard.ZstdDecompressor(max_window_size=ZSTD_MAX_WINDOW).decompressobj()
        return zlib.decompressobj(31 if self._coding == "gzip" else 15)

    def feed(self, data: bytes) -> None:
        while data:
            if self._decoder.eof:
                # A body may hold several gzip members or zstd frames one after the other.
                self._decoder = self._new()
            try:
                if self._coding == "zstd":
                    room = self._limit - self.size + 1
                    step = max(16, room // _ZSTD_MAX_RATIO)
                    out = self._decoder.decompress(data[:step])
                    rest = data[step:]
                else:
                    out = self._decoder.decompress(data, self._limit - self.size + 1)
                    rest = b""
            except _ERRORS as exc:
                raise Refusal(
                    400, "bad_request", f"the body is not valid {self._name}: {exc}"
                ) from None
            self.size += len(out)
            if self.size > self._limit:
                raise Refusal(
                    413,
                    "too_large",
                    f"the body inflates past the limit of {self._limit} bytes",
                )
            if out:
                self._parts.append(out)
            if self._coding == "zstd":
                data = (self._decoder.unused_data if self._decoder.eof else b"") + rest
            else:
                data = self._decoder.unconsumed_tail or (
                    self._decoder.unused_data if self._decoder.eof else b""
                )

    def finish(self) -> bytes:
        if not self._decoder.eof:
            raise Refusal(400, "bad_request", f"the {self._name} body ends early")
        return b"".join(self._parts)

    @property
    def _name(self) -> str:
        return _NAMES[self._coding]


async def read_body(
    receive: Receive,
    limit: int,
    coding: str | None,
    declared: int | None,
    metrics: ProxyMetrics,
    timeout: float,
) -> bytes:
    """The request body, inflated; refused with 413 once either size passes `limit`, and with
    408 when the whole body has not come within `timeout` seconds (a client that trickles its
    body would otherwise hold a queue slot for as long as it likes)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    if declared is not None and declared > limit:
        raise Refusal(
            413, "too_large", f"the body is {declared} bytes, over the limit of {limit} bytes"
        )
    inflater: _Inflater | _SnappyInflater | None = None
    if coding is not None:
        snappy = "snappy" in coding
        inflater = (_SnappyInflater if snappy else _Inflater)(coding, limit)
    parts: list[bytes] = []
    wire = 0
    refusal: Refusal | None = None
    more = True
    while more:
        try:
            chunk, more = await next_chunk(receive, max(deadline - loop.time(), 0.0))
        except BodyTimeout:
            raise Refusal(
                408, "body_timeout", f"the body did not arrive within {timeout:g} s"
            ) from None
        wire += len(chunk)
        metrics.add("tracecheck_proxy_bytes_received_total", len(chunk))
        if wire > limit:
            raise Refusal(413, "too_large", f"the body is over the limit of {limit} bytes")
        if refusal is None:
            try:
                if inflater is not None:
                    inflater.feed(chunk)
                elif chunk:
                    parts.append(chunk)
            except Refusal as exc:
                # Inflation stops here; the rest of the body (at most `limit` bytes on the
                # wire) is read and discarded so that the client can read the answer.
                refusal = exc
    if refusal is not None:
        raise refusal
    return inflater.finish() if inflater is not None else b"".join(parts)


def compressed(data: bytes, coding: str | None) -> bytes:
    """`data` in `coding` (a value of CODINGS), for the upstream."""
    if coding == "gzip":
        return gzip.compress(data, compresslevel=6, mtime=0)
    if coding == "deflate":
        return zlib.compress(data, 6)
    if coding == "zstd":
        assert zstandard is not None
        return bytes(zstandard.ZstdCompressor(level=3).compress(data))
    if coding == "snappy":
        return bytes(cramjam.snappy.compress_raw(data))
    if coding == "x-snappy-framed":
        return bytes(cramjam.snappy.compress(data))
    return data
