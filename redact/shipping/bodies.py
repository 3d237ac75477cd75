"""OTLP/HTTP request bodies: read within a size limit and a time limit, inflated chunk by chunk
(never past the limit, so a compression bomb never grows in memory), and compressed again for
the upstream in the coding they came in."""

from __future__ import annotations

import asyncio
import gzip
import zlib
from typing import Final

from redact.shipping.http import BodyTimeout, Receive, next_chunk
from redact.shipping.metrics import ProxyMetrics
from redact.shipping.refusal import Refusal

__all__ = ["CODINGS", "compressed", "read_body"]

# Content-Encoding → zlib window bits (31: gzip wrapper; 15: zlib wrapper, HTTP's "deflate").
CODINGS: Final[dict[str, int | None]] = {
    "identity": None,
    "gzip": 31,
    "x-gzip": 31,
    "deflate": 15,
}


class _Inflater:
    """Inflates a gzip or zlib body chunk by chunk, never past `limit` bytes of output."""

    def __init__(self, wbits: int, limit: int) -> None:
        self._wbits = wbits
        self._limit = limit
        self._inflater = zlib.decompressobj(wbits)
        self._parts: list[bytes] = []
        self.size = 0

    def feed(self, data: bytes) -> None:
        while data:
            if self._inflater.eof:
                # A gzip body may hold several members one after the other.
                self._inflater = zlib.decompressobj(self._wbits)
            try:
                out = self._inflater.decompress(data, self._limit - self.size + 1)
            except zlib.error as exc:
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
            data = self._inflater.unconsumed_tail or (
                self._inflater.unused_data if self._inflater.eof else b""
            )

    def finish(self) -> bytes:
        if not self._inflater.eof:
            raise Refusal(400, "bad_request", f"the {self._name} body ends early")
        return b"".join(self._parts)

    @property
    def _name(self) -> str:
        return "gzip" if self._wbits == 31 else "deflate (zlib)"


async def read_body(
    receive: Receive,
    limit: int,
    wbits: int | None,
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
    inflater = _Inflater(wbits, limit) if wbits is not None else None
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


def compressed(data: bytes, wbits: int | None) -> bytes:
    if wbits == 31:
        return gzip.compress(data, compresslevel=6, mtime=0)
    if wbits == 15:
        return zlib.compress(data, 6)
    return data
