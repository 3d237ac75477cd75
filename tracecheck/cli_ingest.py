"""`tracecheck ingest-server`: the reference hosted-ingest receiver (wire 2026-07-24.v1) on SQLite.

The app is `redact.ingest_server`; this module parses the options, opens the store, binds the
socket (so a bad or busy address is a usage error, exit 2, with its reason), and runs uvicorn
until SIGINT or SIGTERM, then closes the store and exits 0.
"""

from __future__ import annotations

import argparse
import socket
import sys
from typing import TYPE_CHECKING

from tracecheck.cli_serve import bind, log_to_stderr, parse_listen, serve, shown_host

__all__ = ["DESCRIPTION", "configure", "run"]

if TYPE_CHECKING:
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
        sock = bind(host, port, backlog=128)
    except OSError as exc:
        return _usage(f"--listen {args.listen}: cannot listen: {exc.strerror or exc}")
    try:
        store = SqliteSpanStore(args.db)
    except StoreError as exc:
        sock.close()
        return _usage(f"--db {exc}")
    app = create_app(store, tenants, require_safe=profile, max_body_bytes=args.max_body_bytes)
    shown = shown_host(host)
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


def _serve(app: IngestApp, sock: socket.socket) -> None:
    log_to_stderr("redact.ingest_server", "%(levelname)-9s %(message)s")
    serve(app, sock, log_level="info")


def _usage(message: str) -> int:
    print(f"tracecheck: error: {message}", file=sys.stderr)
    return 2
