"""What the proxy needs: where to forward, how to redact, its limits, and the OTLP/HTTP paths
it serves (one per signal)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from redact.known import KnownSecrets
from redact.profiles import Profile
from redact.shipping.headers import check_header
from redact.shipping.scrubbing import Signal
from redact.shipping.tls import UpstreamTLS

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_RETRY_AFTER",
    "DEFAULT_QUEUE_SIZE",
    "DEFAULT_UPSTREAM_TIMEOUT",
    "SIGNAL_PATHS",
    "TRACES_PATH",
    "ProxySettings",
]

DEFAULT_MAX_BODY_BYTES: Final = 4 * 1024 * 1024
DEFAULT_QUEUE_SIZE: Final = 16
DEFAULT_UPSTREAM_TIMEOUT: Final = 8.0
DEFAULT_BODY_TIMEOUT: Final = 5.0
DEFAULT_MAX_RETRY_AFTER: Final = 30.0
TRACES_PATH: Final = "/v1/traces"
# OTLP/HTTP's paths, one per signal: an app that sets OTEL_EXPORTER_OTLP_ENDPOINT sends all three.
SIGNAL_PATHS: Final[dict[str, Signal]] = {
    TRACES_PATH: "traces",
    "/v1/logs": "logs",
    "/v1/metrics": "metrics",
}


@dataclass(frozen=True, slots=True)
class ProxySettings:
    """What the proxy needs: where to forward, how to redact, and its limits.

    `upstream` is the base URL (`http://collector:4318`); batches go to `upstream + /v1/traces`.
    Without a `pseudonym_key` the proxy draws one when it starts, so pseudonyms agree across the
    batches of one process (and across its `scrub_processes`). `upstream_timeout` bounds a
    request's stay, from its arrival to its answer: scrubbing, every upstream attempt and the
    waits between them.

    `scrub_processes` 1 scrubs on `scrub_workers` threads of the proxy's process (one core, the
    GIL); N above 1 scrubs in a pool of N worker processes, one batch each at a time
    (`redact.shipping.pool`)."""

    upstream: str
    profile: str | Profile = "share"
    known_secrets: Iterable[str] | KnownSecrets = ()
    pseudonym_key: bytes | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    queue_size: int = DEFAULT_QUEUE_SIZE
    upstream_timeout: float = DEFAULT_UPSTREAM_TIMEOUT
    first_backoff: float = 0.1
    max_backoff: float = 2.0
    scrub_workers: int = 1
    scrub_processes: int = 1
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    max_retry_after: float = DEFAULT_MAX_RETRY_AFTER
    # Sent upstream with every batch, over the exporter's headers of the same name.
    upstream_headers: tuple[tuple[str, str], ...] = ()
    upstream_tls: UpstreamTLS | None = None  # None: the system's CAs, no client certificate

    def __post_init__(self) -> None:
        for name, value in self.upstream_headers:
            check_header(name, value)  # HeaderError (a ValueError) names the header only
        if self.max_body_bytes < 1:
            raise ValueError("max_body_bytes must be at least 1")
        if self.queue_size < 1:
            raise ValueError("queue_size must be at least 1")
        if self.scrub_processes < 1:
            raise ValueError("scrub_processes must be at least 1")
        if not self.upstream_timeout > 0:
            raise ValueError("upstream_timeout must be positive")
        if not self.body_timeout > 0:
            raise ValueError("body_timeout must be positive")
        if not self.max_retry_after >= 0:
            raise ValueError("max_retry_after must be 0 or more")

    @property
    def upstream_url(self) -> str:
        return self.upstream_url_for("traces")

    def upstream_url_for(self, signal: Signal) -> str:
        """Where the upstream takes a signal: its OTLP/HTTP path under the base URL."""
        path = next(path for path, named in SIGNAL_PATHS.items() if named == signal)
        return self.upstream.rstrip("/") + path
