"""What one connection may hold of the proxy before it has sent a request: a defence against
clients that open connections and send their request headers slowly, or never.

uvicorn's h11 server holds a connection that has sent part of its headers for as long as the
client keeps it open (its `timeout_keep_alive` runs only between requests, and any byte stops
it), and accepts as many connections as the descriptors allow: a thousand such connections,
needing no credentials, starve every exporter and `/healthz`. `guarded_h11` makes uvicorn's h11
protocol with two limits more:

- `header_timeout`: a connection must deliver a whole request head within this many seconds of
  connecting, or of its previous answer; else it is closed. Bytes trickling in do not extend it.
  The request body has its own limit (`ProxySettings.body_timeout`, a `408`).
- `per_client`: at most this many connections from one client address at once; one more is
  closed as soon as it is accepted, so one client cannot take every descriptor.

Give the class to uvicorn as `http=` (`tracecheck proxy` does).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import Any, Final

__all__ = ["DEFAULT_HEADER_TIMEOUT", "DEFAULT_PER_CLIENT", "guarded_h11"]

DEFAULT_HEADER_TIMEOUT: Final = 5.0
DEFAULT_PER_CLIENT: Final = 128

log = logging.getLogger("redact.proxy")


def guarded_h11(header_timeout: float, per_client: int) -> type[Any]:
    """uvicorn's h11 protocol with a header-read timeout and a per-client connection limit
    (one class per server: it counts that server's connections)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    if not header_timeout > 0:
        raise ValueError("header_timeout must be positive")
    if per_client < 1:
        raise ValueError("per_client must be at least 1")
    open_by_client: Counter[str] = Counter()
    warned: set[str] = set()

    class GuardedH11Protocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None
        _counted: str | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            client = self.client[0] if self.client else ""
            if open_by_client[client] >= per_client:
                if "limit" not in warned:
                    warned.add("limit")
                    log.warning(
                        "a client opened more than %d connections at once; the excess are "
                        "closed when accepted (logged once)",
                        per_client,
                    )
                transport.close()
                return
            open_by_client[client] += 1
            self._counted = client
            self._await_head()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_head_timer()
            if self._counted is not None:
                open_by_client[self._counted] -= 1
                if open_by_client[self._counted] <= 0:
                    del open_by_client[self._counted]
                self._counted = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._head_timer is not None and self.conn.their_state is not h11.IDLE:
                self._stop_head_timer()  # the request head is in

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self._await_head()  # the next request's head, on a kept-alive connection

        def _await_head(self) -> None:
            self._stop_head_timer()
            self._head_timer = self.loop.call_later(header_timeout, self._head_too_slow)

        def _stop_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_too_slow(self) -> None:
            self._head_timer = None
            if not self.transport.is_closing():
                self.transport.close()

    return GuardedH11Protocol
