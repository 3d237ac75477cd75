"""`tracecheck ship`: redact traces and send them to a hosted-ingest store (wire 2026-07-24.v1).

The redactor and the HTTP client are imported when the command runs, not when the parser is
built.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from tracecheck.cli.arguments import positive_int
from tracecheck.cli.codes import ExitCode, Stop
from tracecheck.cli.environment import Environment
from tracecheck.cli.extras import require_extra
from tracecheck.cli.redaction import (
    add_redaction_arguments,
    options_or_stop,
    print_findings,
    summary,
)
from tracecheck.formats import FORMATS

if TYPE_CHECKING:
    from pathlib import Path

    from redact.known import KnownSecrets
    from redact.profiles import Profile
    from redact.shipping.checkpoint import ShipCheckpoint
    from redact.shipping.shipment import Shipment, ShipResult
    from redact.spans import DroppedSpan
    from tracecheck.spans import Span

__all__ = ["DESCRIPTION", "add_parser", "run"]

SUMMARY = "send redacted traces to a hosted-ingest store"

DESCRIPTION = (
    "Redact traces and send them to a hosted-ingest store (wire 2026-07-24.v1): "
    "POST <URL>/v1/ingest/traces in batches. Every span is redacted under the profile and must "
    "then pass its share-safety gate; if any span does not, nothing is sent. Network errors, "
    "408, 429 and 5xx are retried (Retry-After is honoured); other statuses are not."
)

_EPILOG = """\
configuration (flags win over the environment):
  --url        $TANGLE_INGEST_URL    the store's base URL
  --tenant     $TANGLE_TENANT_ID     the tenant id
  --api-key-env NAME                 the variable holding the API key (default TANGLE_INGEST_API_KEY)

A batch's Idempotency-Key is derived from its content, so a retry reuses it. Pseudonyms come from
--pseudonym-key-file (or $TRACECHECK_PSEUDONYM_KEY), else from a random key drawn for the
shipment. Either way a checkpoint keeps the shipment resumable: one file per set of traces, store
and tenant (mode 0600) in $TRACECHECK_STATE_DIR, else $XDG_STATE_HOME/tracecheck, else
~/.local/state/tracecheck, holding the drawn key (never printed) and the store's answer to each
batch. Running the same command again after an interruption reuses the key, so the store sees the
same spans, and skips the batches already answered. Remove the file to start afresh. Without a
key and with none of those directories known, ship refuses before sending anything (exit 2).

exit codes:
  0  every span was accepted (or, with --dry-run, every span is safe to send)
  1  the store rejected a span; a span is not safe to share after redaction (nothing sent);
     the store refused a request (4xx other than 408/429) or answered with an invalid response;
     or shipping gave up after the last attempt ("gave up after N attempts" on stderr)
  2  usage or configuration error (missing URL, tenant or API key; bad profile or secret source;
     no place for the checkpoint, or a checkpoint that cannot be read)
  3  a trace could not be read
  4  a trace's format is ambiguous: pass --format
"""

_MAX_LISTED = 10
STATE_DIR_ENV = "TRACECHECK_STATE_DIR"


def add_parser(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.epilog = _EPILOG
    parser.add_argument("traces", nargs="+", metavar="TRACE", help="trace file or directory")
    parser.add_argument("--format", choices=FORMATS, help="read as this format instead of sniffing")
    parser.add_argument("--url", help="the store's base URL (default: $TANGLE_INGEST_URL)")
    parser.add_argument("--tenant", metavar="ID", help="the tenant id (default: $TANGLE_TENANT_ID)")
    parser.add_argument(
        "--api-key-env",
        default="TANGLE_INGEST_API_KEY",
        metavar="NAME",
        help="the environment variable holding the API key (default: TANGLE_INGEST_API_KEY)",
    )
    add_redaction_arguments(parser, pseudonyms=True)
    parser.add_argument(
        "--batch-size",
        type=positive_int,
        default=512,
        metavar="N",
        help="spans per request (default: 512)",
    )
    parser.add_argument(
        "--max-attempts",
        type=positive_int,
        default=5,
        metavar="N",
        help="attempts per batch before giving up (default: 5)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="redact and gate, print the request bodies on stdout (one JSON line per batch), "
        "send nothing; needs no URL, tenant or key",
    )


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    require_extra(env, "shipping", "serve", ("httpx",))
    options = options_or_stop(args, env)
    from redact.shipping.shipment import ShipConfigError, ShipError, ShipRefused, resolve_config
    from redact.shipping.wire import TENANT_ENV, URL_ENV

    profile, known, key = options.profile, options.known_secrets, options.pseudonym_key
    config = None
    if not args.dry_run:
        # The command's environment, not the process's (the same for the console script).
        url = args.url or env.environ.get(URL_ENV)
        tenant = args.tenant or env.environ.get(TENANT_ENV)
        api_key = env.environ.get(args.api_key_env) or None
        try:
            config = resolve_config(url, api_key, tenant)
        except ShipConfigError as exc:
            env.error(_config_message(exc, args.api_key_env))
            return ExitCode.USAGE
    spans = _read(env, args.traces, args.format)
    if config is None:
        return _dry_run(env, spans, profile, known, key, args.batch_size)
    checkpoint = _checkpoint(env, config.endpoint, config.tenant_id, spans, key is None)
    try:
        from redact.shipping.shipper import ship_spans

        with _retry_notes(env), _client(env) as client:
            result = ship_spans(
                spans,
                url=config.url,
                api_key=config.api_key,
                tenant_id=config.tenant_id,
                profile=profile,
                known_secrets=known,
                pseudonym_key=key,
                batch_size=args.batch_size,
                max_attempts=args.max_attempts,
                client=client,
                sleep=env.sleep or time.sleep,
                checkpoint=checkpoint,
            )
    except ShipRefused as exc:
        env.error(str(exc))
        _print_dropped(env, exc.dropped)
        return ExitCode.FAILED
    except ShipError as exc:
        env.error(str(exc))
        if exc.result is not None:
            print(f"before that: {_summary(exc.result)}", file=env.stderr)
        if checkpoint is not None and checkpoint.path.exists():
            print(
                f"the checkpoint {checkpoint.path} keeps this shipment's pseudonym key and the "
                "batches answered: run the same command again to resume",
                file=env.stderr,
            )
        return ExitCode.FAILED
    _print_redactions(env, result)
    for rejected in result.rejected[:_MAX_LISTED]:
        print(
            f"  span {rejected.span_id or '?'} (index {rejected.index}) rejected: "
            f"{rejected.reason}",
            file=env.stderr,
        )
    if len(result.rejected) > _MAX_LISTED:
        print(f"  … and {len(result.rejected) - _MAX_LISTED} more rejected", file=env.stderr)
    print(_summary(result), file=env.stderr)
    return ExitCode.OK if result.ok else ExitCode.FAILED


def _dry_run(
    env: Environment,
    spans: Sequence[Span],
    profile: Profile,
    known: KnownSecrets,
    key: bytes | None,
    batch_size: int,
) -> ExitCode:
    from redact.shipping.shipment import prepare_shipment

    shipment = prepare_shipment(
        spans, profile=profile, known_secrets=known, pseudonym_key=key, batch_size=batch_size
    )
    out = env.stdout.buffer
    for batch in shipment.batches:
        out.write(batch.body + b"\n")
    env.stdout.flush()
    _print_redactions(env, shipment)
    print(
        f"dry run: would ship {_spans(shipment.spans)} in {_batches(len(shipment.batches))}; "
        "nothing sent",
        file=env.stderr,
    )
    return ExitCode.OK


def _checkpoint(
    env: Environment, endpoint: str, tenant_id: str, spans: Sequence[Span], keyless: bool
) -> ShipCheckpoint | None:
    """The shipment's checkpoint; None without a state directory when a key was given. Stops
    with exit 2, before anything is sent, when there is neither or the file cannot be read."""
    from redact.shipping.checkpoint import CheckpointError, ShipCheckpoint

    directory = _state_directory(env.environ)
    if directory is None:
        if not keyless:
            return None
        env.error(
            "no place to keep this shipment's pseudonym key for a resume: set "
            f"${STATE_DIR_ENV} (or $XDG_STATE_HOME or $HOME), or give a key with "
            "--pseudonym-key-file or $TRACECHECK_PSEUDONYM_KEY; nothing sent"
        )
        raise Stop(ExitCode.USAGE)
    try:
        return ShipCheckpoint.open(directory, endpoint=endpoint, tenant_id=tenant_id, spans=spans)
    except CheckpointError as exc:
        env.error(f"{exc}; nothing sent")
        raise Stop(ExitCode.USAGE) from None


def _state_directory(environ: Mapping[str, str]) -> Path | None:
    """`$TRACECHECK_STATE_DIR`, else `$XDG_STATE_HOME/tracecheck`, else
    `$HOME/.local/state/tracecheck` (the XDG default), else None."""
    from pathlib import Path

    if explicit := environ.get(STATE_DIR_ENV):
        return Path(explicit)
    xdg = environ.get("XDG_STATE_HOME")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "tracecheck"
    if home := environ.get("HOME"):
        return Path(home) / ".local" / "state" / "tracecheck"
    return None


def _summary(result: ShipResult) -> str:
    """`shipped 42 spans in 1 batch: 42 accepted, 0 rejected`."""
    line = (
        f"shipped {_spans(result.sent)} in {_batches(result.batches)}: "
        f"{result.accepted} accepted, {len(result.rejected)} rejected"
    )
    if result.resumed_batches:
        line += (
            f" ({_batches(result.resumed_batches)} of them answered in an earlier run, "
            "not sent again)"
        )
    return line


def _spans(n: int) -> str:
    return f"{n} span" if n == 1 else f"{n} spans"


def _batches(n: int) -> str:
    return f"{n} batch" if n == 1 else f"{n} batches"


def _print_redactions(env: Environment, outcome: ShipResult | Shipment) -> None:
    if outcome.report.findings:
        print(summary(outcome.report.findings), file=env.stderr)


def _print_dropped(env: Environment, dropped: Sequence[DroppedSpan]) -> None:
    for item in dropped[:_MAX_LISTED]:
        verdict = item.verdict
        print(f"  span {item.span_id or '?'}: {verdict.status.value}", file=env.stderr)
        print_findings(verdict, env.stderr, indent="    ")
    if len(dropped) > _MAX_LISTED:
        print(f"  … and {len(dropped) - _MAX_LISTED} more spans", file=env.stderr)


def _config_message(exc: Exception, api_key_env: str) -> str:
    from redact.shipping.shipment import ShipConfigError
    from redact.shipping.wire import API_KEY_ENV, TENANT_ENV, URL_ENV

    missing = exc.missing if isinstance(exc, ShipConfigError) else ()
    if not missing:
        return str(exc)
    sources = {
        URL_ENV: "the ingest URL (--url or $TANGLE_INGEST_URL)",
        TENANT_ENV: "the tenant id (--tenant or $TANGLE_TENANT_ID)",
        API_KEY_ENV: f"the API key (${api_key_env})",
    }
    return "missing ingest configuration: " + ", ".join(sources[name] for name in missing)


@contextmanager
def _retry_notes(env: Environment) -> Iterator[None]:
    """Retries and capped waits of the shipper, as `tracecheck: …` lines on stderr."""
    import logging

    logger = logging.getLogger("redact.ship")
    handler = logging.StreamHandler(env.stderr)
    handler.setFormatter(logging.Formatter("tracecheck: %(message)s"))
    handler.setLevel(logging.INFO)
    level = logger.level
    logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _read(env: Environment, sources: Sequence[str], format: str | None) -> list[Span]:
    from tracecheck.errors import AmbiguousFormatError, TraceReadError
    from tracecheck.readers import read_traces

    spans: list[Span] = []
    for source in sources:
        try:
            traces = read_traces(source, format=format)
        except AmbiguousFormatError as exc:
            env.error(str(exc))
            raise Stop(ExitCode.AMBIGUOUS) from None
        except TraceReadError as exc:
            env.error(str(exc))
            raise Stop(ExitCode.UNREADABLE) from None
        spans.extend(span for trace in traces for span in trace.spans)
    return spans


@contextmanager
def _client(env: Environment) -> Iterator[Any]:
    """The HTTP client of `env.transport`, or None for the shipper's own."""
    if env.transport is None:
        yield None
        return
    import httpx

    with httpx.Client(transport=env.transport) as client:
        yield client
