"""What the commands that serve (`proxy`, `ingest-server`) share: a `HOST:PORT` to listen on,
a socket bound before the server starts (so a bad or busy address is an exit code, not a
traceback from inside the server), and uvicorn stopping cleanly on SIGINT or SIGTERM."""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any

__all__ = [
    "bind",
    "log_to_stderr",
    "parse_listen",
    "serve",
    "shown_host",
]


def parse_listen(text: str) -> tuple[str, int]:
    """`HOST:PORT` or `[IPv6]:PORT` → (host, port); ValueError says what is wrong."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not host:
        raise ValueError("is not HOST:PORT")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError("has a bracketed host that is not an IPv6 address") from None
    elif ":" in host:
        raise ValueError("has an IPv6 host without brackets: write [HOST]:PORT")
    if not port_text.isdigit() or not 0 <= int(port_text) < 65536:
        raise ValueError("has a port that is not a number from 0 to 65535")
    return host, int(port_text)


def shown_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def bind(host: str, port: int, *, backlog: int = 2048) -> socket.socket:
    """A listening socket, bound now so that errors surface before the server starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    infos = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)
    # Made as TCP, not just a stream: asyncio turns Nagle off (TCP_NODELAY) only on such
    # sockets, and a response written in two parts would otherwise wait ~40 ms for the
    # client's delayed ACK on every reused connection.
    sock = socket.socket(infos[0][0], socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(infos[0][4])
        sock.listen(backlog)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


def serve(app: Any, sock: socket.socket, **config: Any) -> None:
    """Run an ASGI app under uvicorn on `sock` until SIGINT or SIGTERM; a second SIGINT forces
    the stop. uvicorn's own handling would re-raise the signal after a clean shutdown and end
    the process by it; commands exit 0 instead."""
    import uvicorn

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield
                return

            def stop(sig: int, frame: Any) -> None:
                if self.should_exit and sig == signal.SIGINT:
                    self.force_exit = True
                self.should_exit = True

            handled = (signal.SIGINT, signal.SIGTERM)
            previous = {sig: signal.signal(sig, stop) for sig in handled}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    Server(uvicorn.Config(app, lifespan="on", **config)).run(sockets=[sock])


def log_to_stderr(name: str, format: str) -> None:
    """A server's own log lines (counts and reasons, never a key or a value) on stderr, at
    INFO, beside uvicorn's; once, however often the command runs in one process."""
    logger = logging.getLogger(name)
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(format))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
