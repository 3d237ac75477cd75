"""`tracecheck proxy`: the OTLP/HTTP scrubbing proxy (`redact/proxy.py`) under uvicorn.

Options are checked before anything listens (exit 2 on a bad one); SIGINT and SIGTERM stop the
server cleanly: no new connections, requests in flight finish (bounded by the upstream timeout),
then exit 0. The proxy and the server are imported when the command runs.
"""

from __future__ import annotations

import argparse
import math
from typing import Any, Final
from urllib.parse import urlsplit

from tracecheck.cli.arguments import cores_or, positive_int, positive_seconds
from tracecheck.cli.codes import ExitCode
from tracecheck.cli.environment import Environment
from tracecheck.cli.extras import SERVE, require_extra
from tracecheck.cli.redaction import (
    RedactionOptions,
    RedactionOptionsError,
    add_redaction_arguments,
)

__all__ = ["DESCRIPTION", "add_parser", "run"]

SUMMARY = "scrub OTLP/HTTP traffic on its way to a collector"
DESCRIPTION = (
    "An OTLP/HTTP receiver for POST /v1/traces that redacts every span and forwards what is\n"
    "share-safe to an upstream OTLP endpoint. Each request waits for the upstream's answer:\n"
    "200 means the upstream accepted the batch (partial_success counts the spans held back as\n"
    "unsafe); 503 or 429 with Retry-After when the upstream is failing or the proxy is full;\n"
    "400, 408, 413 and 415 for bodies it cannot take. The exporter's headers go upstream, but\n"
    "for the hop-by-hop ones. GET /healthz (liveness); GET /readyz (503 while the upstream\n"
    "is unreachable or asks to wait); GET /metrics (Prometheus).\n"
    "Runs until SIGINT or SIGTERM, then exits 0; exits 2 on a bad option or an address it\n"
    "cannot listen on."
)
UPSTREAM_HEADERS_ENV: Final = "TRACECHECK_PROXY_UPSTREAM_HEADERS"

_DEFAULT_LISTEN = "127.0.0.1:4318"
# redact.shipping.proxy's defaults, stated here so that `--help` needs no proxy (a test keeps them equal).
DEFAULT_MAX_BODY_BYTES: Final = 4 * 1024 * 1024
DEFAULT_QUEUE_SIZE: Final = 16
DEFAULT_UPSTREAM_TIMEOUT: Final = 8.0
DEFAULT_HEADER_TIMEOUT: Final = 5.0  # redact.shipping.connections' defaults
DEFAULT_PER_CLIENT: Final = 128


def add_parser(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument(
        "--listen",
        default=_DEFAULT_LISTEN,
        metavar="HOST:PORT",
        help=f"address to listen on (default {_DEFAULT_LISTEN}; port 0 picks a free one)",
    )
    parser.add_argument(
        "--upstream",
        required=True,
        metavar="URL",
        help="base URL of the OTLP/HTTP endpoint to forward to (e.g. http://collector:4318); "
        "batches go to URL/v1/traces",
    )
    _add_upstream_arguments(parser)
    add_redaction_arguments(parser, pseudonyms=True)
    parser.add_argument(
        "--max-body-bytes",
        type=positive_int,
        default=DEFAULT_MAX_BODY_BYTES,
        metavar="N",
        help=f"largest request body, on the wire and inflated (default {DEFAULT_MAX_BODY_BYTES})",
    )
    parser.add_argument(
        "--queue-size",
        type=positive_int,
        default=DEFAULT_QUEUE_SIZE,
        metavar="N",
        help=f"most requests in flight at once; more get 503 (default {DEFAULT_QUEUE_SIZE})",
    )
    parser.add_argument(
        "--upstream-timeout",
        type=positive_seconds,
        default=DEFAULT_UPSTREAM_TIMEOUT,
        metavar="S",
        help="seconds a request may take, from arrival to answer (scrubbing and every upstream "
        "retry included); keep it below the exporters' "
        f"own timeout (default {DEFAULT_UPSTREAM_TIMEOUT:g})",
    )
    parser.add_argument(
        "--header-timeout",
        type=positive_seconds,
        default=DEFAULT_HEADER_TIMEOUT,
        metavar="S",
        help="seconds a connection has to send a whole request head, from connecting or from "
        "its previous answer; then it is closed, however slowly bytes trickle in "
        f"(default {DEFAULT_HEADER_TIMEOUT:g})",
    )
    parser.add_argument(
        "--max-connections-per-client",
        type=positive_int,
        default=DEFAULT_PER_CLIENT,
        metavar="N",
        help="most connections open at once from one client address; more are closed when "
        f"accepted (default {DEFAULT_PER_CLIENT})",
    )
    parser.add_argument(
        "--scrub-processes",
        type=scrub_processes,
        default=1,
        metavar="N",
        help="worker processes that scrub batches, one batch each at a time; 'auto' is one per "
        "core the proxy may run on (default 1: a thread of the proxy's own process)",
    )


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    require_extra(env, "the proxy", "serve", SERVE)
    from redact.shipping.connections import guarded_h11
    from redact.shipping.proxy import create_app
    from redact.shipping.settings import ProxySettings
    from tracecheck.cli.serving import bind, log_to_stderr, parse_listen, serve, shown_host

    try:
        upstream = _upstream(args.upstream)
        upstream_headers, upstream_tls = _upstream_options(args, env, upstream)
        options = RedactionOptions.from_args(args)
    except (_OptionError, RedactionOptionsError) as exc:
        env.error(str(exc))
        return ExitCode.USAGE
    try:
        host, port = parse_listen(args.listen)
    except ValueError as exc:
        env.error(f"--listen {args.listen!r} {exc}, e.g. {_DEFAULT_LISTEN}")
        return ExitCode.USAGE
    profile = options.profile
    settings = ProxySettings(
        upstream=upstream,
        profile=profile,
        known_secrets=options.known_secrets,
        pseudonym_key=options.pseudonym_key,
        upstream_headers=upstream_headers,
        upstream_tls=upstream_tls,
        max_body_bytes=args.max_body_bytes,
        queue_size=args.queue_size,
        upstream_timeout=args.upstream_timeout,
        scrub_processes=args.scrub_processes,
    )
    try:
        sock = bind(host, port)
    except OSError as exc:
        env.error(f"--listen {args.listen}: cannot listen: {exc.strerror or exc}")
        return ExitCode.USAGE
    log_to_stderr("redact.proxy", "tracecheck proxy: %(levelname)s: %(message)s")
    bound_host, bound_port = sock.getsockname()[:2]
    shown = shown_host(bound_host)
    print(
        f"tracecheck proxy: listening on http://{shown}:{bound_port}, forwarding to "
        f"{_without_userinfo(settings.upstream_url)} (profile {profile.name})",
        file=env.stderr,
        flush=True,
    )
    # Requests in flight may finish: their delivery is bounded by the upstream timeout.
    serve(
        create_app(settings),
        sock,
        http=guarded_h11(args.header_timeout, args.max_connections_per_client),
        access_log=False,
        log_level="warning",
        timeout_graceful_shutdown=math.ceil(settings.upstream_timeout + 2),
        server_header=False,
    )
    print("tracecheck proxy: stopped", file=env.stderr, flush=True)
    return ExitCode.OK


class _OptionError(ValueError):
    pass


def scrub_processes(text: str) -> int:
    """`--scrub-processes`: a whole number from 1, or `auto`: the cores this process may run on
    (its CPU affinity where the system has one; a container's CPU quota is not seen)."""
    return cores_or(text, _processes)


def _processes(text: str) -> int:
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{exc}, or auto") from None


def _without_userinfo(url: str) -> str:
    """`url` with any user:password@ cut out: the address is printed, a password never is."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc="…@" + parts.netloc.rpartition("@")[2]).geturl()


def _upstream(url: str) -> str:
    shown = _without_userinfo(url)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _OptionError(f"--upstream {shown!r}: not an http:// or https:// URL with a host")
    if parts.query or parts.fragment:
        raise _OptionError(f"--upstream {shown!r}: a base URL takes no query or fragment")
    path = parts.path.rstrip("/")
    if path.endswith("/v1/traces"):
        raise _OptionError(
            f"--upstream {shown!r}: give the base URL; the proxy adds /v1/traces itself"
        )
    return url.rstrip("/")


def _add_upstream_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--upstream-header",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a header sent upstream with every batch, over the exporter's header of the same "
        f"name (repeatable; also ${UPSTREAM_HEADERS_ENV}, comma-separated name=value pairs "
        "with percent-encoded values, as OTEL_EXPORTER_OTLP_HEADERS); the exporters' own "
        "headers are forwarded but for the hop-by-hop ones",
    )
    parser.add_argument(
        "--upstream-ca",
        metavar="FILE",
        help="PEM file of the certificate authorities to trust for an https:// upstream, "
        "instead of the system's",
    )
    parser.add_argument(
        "--upstream-client-cert",
        metavar="FILE",
        help="PEM client certificate to present to the upstream (mutual TLS); with its key "
        "unless --upstream-client-key is given",
    )
    parser.add_argument(
        "--upstream-client-key", metavar="FILE", help="PEM key of --upstream-client-cert"
    )
    parser.add_argument(
        "--upstream-insecure",
        action="store_true",
        help="do not verify the upstream's TLS certificate (test benches only; logs a warning)",
    )


def _upstream_options(
    args: argparse.Namespace, env: Environment, upstream: str
) -> tuple[tuple[tuple[str, str], ...], Any]:
    """The configured upstream headers (the environment's, then the options' over them) and
    the TLS settings, checked. Messages name a header, never its value."""
    from redact.shipping.headers import HeaderError, parse_header_list, parse_header_option
    from redact.shipping.tls import UpstreamTLS, UpstreamTLSError

    headers: dict[str, str] = {}
    try:
        headers.update(parse_header_list(env.environ.get(UPSTREAM_HEADERS_ENV, "")))
    except HeaderError as exc:
        raise _OptionError(f"${UPSTREAM_HEADERS_ENV}: {exc}") from None
    for number, text in enumerate(args.upstream_header, 1):
        try:
            name, value = parse_header_option(text)
        except HeaderError as exc:
            raise _OptionError(f"--upstream-header (number {number}): {exc}") from None
        headers[name] = value
    files = {
        "--upstream-ca": args.upstream_ca,
        "--upstream-client-cert": args.upstream_client_cert,
        "--upstream-client-key": args.upstream_client_key,
    }
    given = [option for option, value in files.items() if value is not None]
    if args.upstream_insecure:
        given.append("--upstream-insecure")
    if not given:
        return tuple(headers.items()), None
    if urlsplit(upstream).scheme != "https":
        raise _OptionError(f"{given[0]} applies to an https:// upstream only")
    try:
        tls = UpstreamTLS(
            args.upstream_ca,
            args.upstream_client_cert,
            args.upstream_client_key,
            args.upstream_insecure,
        )
        tls.context(warn=False)  # a file that cannot be used stops the command here
    except UpstreamTLSError as exc:
        raise _OptionError(f"upstream TLS: {exc}") from None
    return tuple(headers.items()), tls
