"""The shipping wing: what carries spans out of a process once they are scrubbed.

- `wire`: the hosted-ingest wire (version, paths, pivots, what a valid span row is), written
  once for the shipper and the receiver;
- `http`: the HTTP plumbing both servers and the shipper share (ASGI request reading, header
  rules, Retry-After parsing and capping);
- the OTLP/HTTP scrubbing proxy: `proxy` (the ASGI app) and `settings`; `otlp` and `bodies`
  (the messages and bodies it reads and writes); `scrubbing` and `pool` (one request scrubbed,
  on a thread or a pool of processes); `signals` (logs and metrics); `upstream`, `headers` and
  `tls` (delivery); `metrics` and `refusal`;
- the shipper client (`shipment`, `shipper`) and the reference receiver (`ingest`, `tenants`,
  `store`).

Nothing here is imported by `redact`'s redaction core, and building the CLI's parser imports
none of it: the servers and their dependencies (the `serve` extra) load when a command runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracecheck.lazy import lazy_names

if TYPE_CHECKING:
    from redact.shipping.http import parse_retry_after
    from redact.shipping.ingest import IngestApp
    from redact.shipping.metrics import ProxyMetrics
    from redact.shipping.proxy import ProxyApp
    from redact.shipping.settings import ProxySettings
    from redact.shipping.shipment import (
        Batch,
        RejectedSpan,
        ShipConfig,
        ShipConfigError,
        ShipError,
        ShipGaveUp,
        Shipment,
        ShipRefused,
        ShipRequestRefused,
        ShipResponseError,
        ShipResult,
        idempotency_key,
        prepare_shipment,
        resolve_config,
    )
    from redact.shipping.shipper import ship_spans
    from redact.shipping.store import (
        RecordedResponse,
        SpanRow,
        SpanStore,
        SqliteSpanStore,
        StoreError,
        StoreUnavailable,
    )
    from redact.shipping.tenants import TenantError, Tenants, key_hash
    from redact.shipping.wire import INGEST_PATH, WIRE_VERSION, validate_span

_HOMES = {
    **dict.fromkeys(("parse_retry_after",), "redact.shipping.http"),
    **dict.fromkeys(("IngestApp",), "redact.shipping.ingest"),
    **dict.fromkeys(("ProxyMetrics",), "redact.shipping.metrics"),
    **dict.fromkeys(("ProxyApp",), "redact.shipping.proxy"),
    **dict.fromkeys(("ProxySettings",), "redact.shipping.settings"),
    **dict.fromkeys(
        (
            "Batch",
            "RejectedSpan",
            "ShipConfig",
            "ShipConfigError",
            "ShipError",
            "ShipGaveUp",
            "ShipRefused",
            "ShipRequestRefused",
            "ShipResponseError",
            "ShipResult",
            "Shipment",
            "idempotency_key",
            "prepare_shipment",
            "resolve_config",
        ),
        "redact.shipping.shipment",
    ),
    **dict.fromkeys(("ship_spans",), "redact.shipping.shipper"),
    **dict.fromkeys(
        (
            "RecordedResponse",
            "SpanRow",
            "SpanStore",
            "SqliteSpanStore",
            "StoreError",
            "StoreUnavailable",
        ),
        "redact.shipping.store",
    ),
    **dict.fromkeys(("TenantError", "Tenants", "key_hash"), "redact.shipping.tenants"),
    **dict.fromkeys(("INGEST_PATH", "WIRE_VERSION", "validate_span"), "redact.shipping.wire"),
}

__all__ = [
    "INGEST_PATH",
    "WIRE_VERSION",
    "Batch",
    "IngestApp",
    "ProxyApp",
    "ProxyMetrics",
    "ProxySettings",
    "RecordedResponse",
    "RejectedSpan",
    "ShipConfig",
    "ShipConfigError",
    "ShipError",
    "ShipGaveUp",
    "ShipRefused",
    "ShipRequestRefused",
    "ShipResponseError",
    "ShipResult",
    "Shipment",
    "SpanRow",
    "SpanStore",
    "SqliteSpanStore",
    "StoreError",
    "StoreUnavailable",
    "TenantError",
    "Tenants",
    "idempotency_key",
    "key_hash",
    "parse_retry_after",
    "prepare_shipment",
    "resolve_config",
    "ship_spans",
    "validate_span",
]

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
