"""`tracecheck ingest-server`: the reference hosted-ingest receiver (wire 2026-07-24.v1) on SQLite.

The app is `redact.shipping.ingest`; this module parses the options, opens the store, binds the
socket (so a bad or busy address is a usage error, exit 2, with its reason), and runs uvicorn
until SIGINT or SIGTERM, then closes the store and exits 0. The server is imported when the
command runs.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Final

from tracecheck.cli.codes import ExitCode
from tracecheck.cli.environment import Environment
from tracecheck.cli.extras import require_extra

__all__ = ["DESCRIPTION", "add_parser", "run"]

if TYPE_CHECKING:
    import socket

    from redact.profiles import Profile
    from redact.shipping.ingest import IngestApp

SUMMARY = "run the reference hosted-ingest receiver"
DESCRIPTION = """\
The reference hosted-ingest receiver, on SQLite, for local development and tests.

Serves POST /v1/ingest/traces (wire 2026-07-24.v1), GET /v1/traces/<traceId> and GET /healthz.
Tenants come from --tenants FILE, a YAML or JSON mapping of tenant id to the SHA-256 of its key
("acme: sha256:<64 hex>", the hex from `printf %s "$KEY" | sha256sum`), or for one tenant from the
TENANT_ID and TENANT_KEY environment variables. Spans are kept in --db (SQLite, WAL mode, each
batch in one synced transaction). Stop with SIGINT or SIGTERM.
"""

DEFAULT_LISTEN = "127.0.0.1:8787"
# redact.shipping.ingest's default, stated here so that `--help` needs no server (a test keeps
# them equal).
DEFAULT_MAX_BODY_BYTES: Final = 10 * 1024 * 1024


def add_parser(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""

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


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    require_extra(env, "the ingest server", "serve", ("uvicorn",))
    from redact.shipping.ingest import create_app
    from redact.shipping.store import SqliteSpanStore, StoreError
    from redact.shipping.tenants import TenantError, Tenants
    from tracecheck.cli.serving import bind, parse_listen, shown_host

    def usage(message: str) -> ExitCode:
        env.error(message)
        return ExitCode.USAGE

    try:
        host, port = parse_listen(args.listen)
    except ValueError as exc:
        return usage(f"--listen {args.listen} {exc}")
    if args.max_body_bytes <= 0:
        return usage("--max-body-bytes must be a positive number of bytes")
    try:
        tenants = Tenants.from_file(args.tenants) if args.tenants else Tenants.from_env()
    except TenantError as exc:
        return usage(f"--tenants {exc}" if args.tenants else str(exc))
    profile: Profile | None = None
    if args.require_safe:
        profile = _profile(env, args.require_safe)
        if profile is None:
            return ExitCode.USAGE
    try:
        sock = bind(host, port, backlog=128)
    except OSError as exc:
        return usage(f"--listen {args.listen}: cannot listen: {exc.strerror or exc}")
    try:
        store = SqliteSpanStore(args.db)
    except StoreError as exc:
        sock.close()
        return usage(f"--db {exc}")
    app = create_app(store, tenants, require_safe=profile, max_body_bytes=args.max_body_bytes)
    shown = shown_host(host)
    gate = f"; share-safety gate: {profile.name}" if profile else ""
    print(
        f"tracecheck ingest-server: listening on http://{shown}:{port} "
        f"({len(tenants)} tenant{'s' if len(tenants) != 1 else ''}; db {args.db}{gate})",
        file=env.stderr,
        flush=True,
    )
    try:
        _serve(app, sock)
    finally:
        sock.close()
        store.close()
    print("tracecheck ingest-server: stopped", file=env.stderr, flush=True)
    return ExitCode.OK


def _profile(env: Environment, name: str) -> Profile | None:
    from pathlib import Path

    from redact.profiles import ProfileError, load_profile, resolve_profile

    try:
        if Path(name).suffix in (".yaml", ".yml", ".json"):
            return load_profile(Path(name))
        return resolve_profile(name)
    except ProfileError as exc:
        env.error(f"--require-safe {exc}")
        return None


def _serve(app: IngestApp, sock: socket.socket) -> None:
    from tracecheck.cli.serving import log_to_stderr, serve

    log_to_stderr("redact.ingest_server", "%(levelname)-9s %(message)s")
    serve(app, sock, log_level="info")
