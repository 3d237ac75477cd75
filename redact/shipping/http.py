"""HTTP plumbing the proxy, the receiver and the shipper share: ASGI types, how a request's
headers and body are read, how an answer is sent, and what a `Retry-After` asks for.

One rule for a header sent more than once: its values are joined with ", " (RFC 9110 §5.3), so
a field that takes one value and was sent twice (`Authorization`, `Content-Type`) never reads as
just one of its copies; it reads as neither, and is refused like any wrong value.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Final

__all__ = [
    "HOP_BY_HOP",
    "BodyTimeout",
    "ClientGone",
    "Message",
    "Receive",
    "Scope",
    "Send",
    "capped_retry_after",
    "content_length",
    "next_chunk",
    "parse_retry_after",
    "request_headers",
    "send_answer",
    "serve_lifespan",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

# Headers that describe one connection, not the request (RFC 9110 §7.6.1), and those the proxy
# sets itself for the body it sends on.
HOP_BY_HOP: Final = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "content-encoding",
        "content-type",
        "expect",
    }
)


class ClientGone(Exception):
    """The client disconnected before its body was read."""


class BodyTimeout(Exception):
    """The client sent its body too slowly: `seconds` passed without the next part of it."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def request_headers(scope: Scope) -> dict[str, str]:
    """Lower-case names to values, decoded as latin-1 (as HTTP carries them); a repeated
    header's values joined with ", "."""
    out: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", ()):
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        out[name] = f"{out[name]}, {value}" if name in out else value
    return out


def content_length(headers: Mapping[str, str]) -> int | None:
    """The declared body size; None when it is not declared. ValueError when it is not a
    number."""
    value = headers.get("content-length")
    if value is None:
        return None
    value = value.strip()
    if not (value.isascii() and value.isdigit()):
        raise ValueError("Content-Length is not a number")
    return int(value)


async def next_chunk(receive: Receive, timeout: float | None) -> tuple[bytes, bool]:
    """The next part of the body and whether more follows. Raises `ClientGone` when the
    client disconnected, `BodyTimeout` when nothing came for `timeout` seconds."""
    try:
        if timeout is None:
            message = await receive()
        else:
            message = await asyncio.wait_for(receive(), timeout)
    except TimeoutError:
        raise BodyTimeout(timeout or 0.0) from None
    if message["type"] == "http.disconnect":
        raise ClientGone
    return message.get("body", b""), bool(message.get("more_body", False))


async def send_answer(
    send: Send,
    status: int,
    body: bytes,
    media_type: str,
    headers: Iterable[tuple[str, str]] = (),
) -> None:
    """One whole response: status, content type and length, `headers`, then the body."""
    raw = [
        (b"content-type", media_type.encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    raw += [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


async def serve_lifespan(
    receive: Receive,
    send: Send,
    startup: Callable[[], Awaitable[None]] | None = None,
    shutdown: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """The ASGI lifespan protocol around an application's own startup and shutdown."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            try:
                if startup is not None:
                    await startup()
            except Exception as exc:  # pragma: no cover - reported to the server
                await send({"type": "lifespan.startup.failed", "message": str(exc)})
                return
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if shutdown is not None:
                await shutdown()
            await send({"type": "lifespan.shutdown.complete"})
            return


def parse_retry_after(value: str, *, now: datetime | None = None) -> float | None:
    """Seconds to wait for a `Retry-After` value: delay-seconds or an HTTP date (a date in the
    past means now); None when it is neither."""
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(int(value))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = (when - (now or datetime.now(UTC))).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def capped_retry_after(
    value: str | None, cap: float, *, now: datetime | None = None
) -> tuple[float | None, float | None]:
    """What a `Retry-After` header asks for and the wait to honour: the same, or `cap` when it
    asks for more. `(None, None)` when there is no header or it is neither seconds nor a date."""
    if value is None:
        return None, None
    asked = parse_retry_after(value, now=now)
    if asked is None:
        return None, None
    return asked, min(asked, cap)
