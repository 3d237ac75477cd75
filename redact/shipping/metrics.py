"""The proxy's counters, for `GET /metrics` in the Prometheus text exposition format. Every
series an operator may alert on exists from the start, at 0."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

__all__ = ["ProxyMetrics"]

_OUTCOMES: Final = (
    "forwarded",
    "nothing_to_forward",
    "bad_request",
    "too_large",
    "body_timeout",
    "unsupported_media_type",
    "queue_full",
    "upstream_unavailable",
    "upstream_rejected",
    "upstream_unconfirmed",
    "scrub_failed",
)
_FAILED_REASONS: Final = ("upstream_unavailable", "upstream_rejected", "upstream_unconfirmed")
_SERIES: Final[dict[str, tuple[tuple[tuple[str, str], ...], ...]]] = {
    "tracecheck_proxy_requests_total": tuple((("outcome", o),) for o in _OUTCOMES),
    "tracecheck_proxy_spans_failed_total": tuple((("reason", r),) for r in _FAILED_REASONS),
    **{
        f"tracecheck_proxy_records_{fate}_total": tuple(
            (("signal", s),) for s in ("logs", "metrics")
        )
        for fate in ("received", "forwarded", "dropped_unsafe")
    },
    "tracecheck_proxy_upstream_failures_total": tuple(
        (("reason", r),)
        for r in ("network", "unconfirmed", "http_429", "http_502", "http_503", "http_504")
    ),
}
_HELP: Final = {
    "tracecheck_proxy_requests_total": "Export requests (traces, logs, metrics), by outcome.",
    "tracecheck_proxy_spans_received_total": "Spans received in parsed requests.",
    "tracecheck_proxy_spans_forwarded_total": "Spans the upstream accepted.",
    "tracecheck_proxy_spans_dropped_unsafe_total": (
        "Spans held back because they were still not share-safe after redaction."
    ),
    "tracecheck_proxy_spans_failed_total": (
        "Share-safe spans not delivered, answered to the exporter with an error, by reason."
    ),
    "tracecheck_proxy_upstream_retries_total": "Upstream requests sent again after a failure.",
    "tracecheck_proxy_upstream_failures_total": "Failed upstream attempts, by reason.",
    "tracecheck_proxy_bytes_received_total": "Request body bytes read, as sent on the wire.",
    "tracecheck_proxy_bytes_forwarded_total": "Body bytes the upstream accepted, on the wire.",
    "tracecheck_proxy_records_received_total": (
        "Log records and metric data points received in parsed requests, by signal."
    ),
    "tracecheck_proxy_records_forwarded_total": (
        "Log records and metric data points the upstream accepted, by signal."
    ),
    "tracecheck_proxy_records_dropped_unsafe_total": (
        "Log records and metric data points held back as not share-safe after redaction."
    ),
}


@dataclass
class ProxyMetrics:
    """Counters for `GET /metrics`, rendered in the Prometheus text exposition format."""

    counters: dict[tuple[str, tuple[tuple[str, str], ...]], float] = field(default_factory=dict)
    queue_depth: int = 0
    queue_capacity: int = 0

    def __post_init__(self) -> None:
        # Every series an operator may alert on exists from the start, at 0.
        for name in _HELP:
            for labels in _SERIES.get(name, ((),)):
                self.counters.setdefault((name, labels), 0)

    def add(self, name: str, amount: float = 1, **labels: str) -> None:
        key = (name, tuple(sorted(labels.items())))
        self.counters[key] = self.counters.get(key, 0) + amount

    def value(self, name: str, **labels: str) -> float:
        return self.counters.get((name, tuple(sorted(labels.items()))), 0)

    def render(self) -> str:
        lines: list[str] = []
        names = sorted({name for name, _ in self.counters})
        for name in names:
            lines.append(f"# HELP {name} {_HELP.get(name, name)}")
            lines.append(f"# TYPE {name} counter")
            samples = sorted((labels, v) for (n, labels), v in self.counters.items() if n == name)
            for labels, v in samples:
                lines.append(f"{name}{_labels(labels)} {_number(v)}")
        for name, help_text, v in (
            ("tracecheck_proxy_queue_depth", "Requests in flight (the queue).", self.queue_depth),
            (
                "tracecheck_proxy_queue_capacity",
                "Most requests in flight at once.",
                self.queue_capacity,
            ),
        ):
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge", f"{name} {v}"]
        return "\n".join(lines) + "\n"


def _labels(labels: tuple[tuple[str, str], ...]) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in labels) + "}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
