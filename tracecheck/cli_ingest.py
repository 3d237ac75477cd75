"""`tracecheck ingest-server`: the reference hosted-ingest receiver (wire 2026-07-24.v1) on SQLite.

The app is `redact.ingest_server`; this module parses the options, opens the store, binds the
socket (so a bad or busy address is a usage error, exit 2, with its reason), and runs uvicorn
until SIGINT or SIGTERM, then closes the store and exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import logging
import signal
import socket
import sys
import threading
from collections.abc import Generator
from types import FrameType
from typing import TYPE_CHECKING

__all__ = ["DESCRIPTION", "configure", "parse_listen", "run"]

if TYPE_CHECKING:
    import uvicorn

    from redact.ingest_server import IngestApp
    from redact.profiles import Profile

DESCRIPTION = """\
The reference hosted-ingest receiver, on SQLite, for local development and tests.

Serves POST /v1/ingest/traces (wire 2026-07-24.v1), GET /v1/traces/<traceId> and GET /healthz.
Tenants come from --tenants FILE, a YAML or JSON mapping of tenant id to the SHA-256 of its key
("acme: sha256:<64 hex>", the hex from `printf %s "$KEY" | sha256sum`), or for one tenant from the
TENANT_ID and TENANT_KEY environment variables. Spans are kept in --db (SQLite, WAL mode, each
batch in one synced transaction). Stop with SIGINT or SIGTERM.
"""

DEFAULT_LISTEN = "127.0.0.1:8787"


def configure(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    from redact.ingest_server import DEFAULT_MAX_BODY_BYTES

    parser.add_argument("--db", required=True, metavar="PATH", help="the SQLite file (created)")
    parser.add_argument(
        "--listen",
        default=DEFAULT_LISTEN,
        metavar="HOST:PORT",
        help=f"address to listen on (default {DEFAULT_LISTEN}; [::1]:PORT for IPv6)",
    )
    parser.add_argument(
        "--tenants",
        metavar="FILE",
        help="YAML/JSON: tenant id -> sha256:<hex> of its key (default: TENANT_ID, TENANT_KEY)",
    )
    parser.add_argument(
        "--require-safe",
        metavar="PROFILE",
        help="refuse spans that are UNSAFE or UNKNOWN under this redaction profile "
        "(share, strict, default, or a profile file)",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=int,
        default=DEFAULT_MAX_BODY_BYTES,
        metavar="N",
        help=f"refuse larger request bodies with 413 (default {DEFAULT_MAX_BODY_BYTES})",
    )


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
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError("has a port that is not a number from 1 to 65535")
    return host, int(port_text)


def run(args: argparse.Namespace) -> int:
    from redact.ingest_server import TenantError, Tenants, create_app
    from redact.ingest_store import SqliteSpanStore, StoreError

    try:
        host, port = parse_listen(args.listen)
    except ValueError as exc:
        return _usage(f"--listen {args.listen} {exc}")
    if args.max_body_bytes <= 0:
        return _usage("--max-body-bytes must be a positive number of bytes")
    try:
        tenants = Tenants.from_file(args.tenants) if args.tenants else Tenants.from_env()
    except TenantError as exc:
        return _usage(f"--tenants {exc}" if args.tenants else str(exc))
    profile: Profile | None = None
    if args.require_safe:
        profile = _profile(args.require_safe)
        if profile is None:
            return 2
    try:
        sock = _bind(host, port)
    except OSError as exc:
        return _usage(f"--listen {args.listen}: cannot listen: {exc.strerror or exc}")
    try:
        store = SqliteSpanStore(args.db)
    except StoreError as exc:
        sock.close()
        return _usage(f"--db {exc}")
    app = create_app(store, tenants, require_safe=profile, max_body_bytes=args.max_body_bytes)
    shown = f"[{host}]" if ":" in host else host
    gate = f"; share-safety gate: {profile.name}" if profile else ""
    print(
        f"tracecheck ingest-server: listening on http://{shown}:{port} "
        f"({len(tenants)} tenant{'s' if len(tenants) != 1 else ''}; db {args.db}{gate})",
        file=sys.stderr,
        flush=True,
    )
    try:
        _serve(app, sock)
    finally:
        sock.close()
        store.close()
    print("tracecheck ingest-server: stopped", file=sys.stderr, flush=True)
    return 0


def _profile(name: str) -> Profile | None:
    from pathlib import Path

    from redact.profiles import ProfileError, load_profile, resolve_profile

    try:
        if Path(name).suffix in (".yaml", ".yml", ".json"):
            return load_profile(Path(name))
        return resolve_profile(name)
    except ProfileError as exc:
        _usage(f"--require-safe {exc}")
        return None


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    infos = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)
    sock = socket.socket(infos[0][0], socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(infos[0][4])
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def _serve(app: IngestApp, sock: socket.socket) -> None:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn re-raises a captured signal after its graceful shutdown, which would end
        the process by that signal; the command installs its own handlers and exits 0."""

        @contextlib.contextmanager
        def capture_signals(self) -> Generator[None, None, None]:
            yield

    server = Server(uvicorn.Config(app, lifespan="on", log_level="info"))
    # The receiver's own lines (tenant, counts; never a key or a value), beside uvicorn's.
    receiver_log = logging.getLogger("redact.ingest_server")
    if not receiver_log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)-9s %(message)s"))
        receiver_log.addHandler(handler)
        receiver_log.setLevel(logging.INFO)
    with _stop_on_signals(server):
        server.run(sockets=[sock])


@contextlib.contextmanager
def _stop_on_signals(server: uvicorn.Server) -> Generator[None, None, None]:
    """SIGINT/SIGTERM ask for a graceful shutdown; a second SIGINT forces it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(sig: int, frame: FrameType | None) -> None:
        if server.should_exit and sig == signal.SIGINT:
            server.force_exit = True
        server.should_exit = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _usage(message: str) -> int:
    print(f"tracecheck: error: {message}", file=sys.stderr)
    return 2
