"""Observability services: error trackers, metrics, logs and tracing."""

from __future__ import annotations

from redact.detectors.base import Detector
from redact.detectors.vendor_support import classes, mixed, vendor

__all__ = ["OBSERVABILITY_DETECTORS"]

OBSERVABILITY_DETECTORS: tuple[Detector, ...] = (
    vendor(
        "sentry-dsn",
        "Sentry DSN carrying its project key",
        r"\bhttps?://(?P<v>[0-9a-f]{32})(?::[0-9a-f]{32})?@[A-Za-z0-9.-]{1,253}(?::\d{1,5})?"
        r"/\d{1,20}\b",
        r"://[0-9a-f]{32}[:@]",
    ),
    vendor(
        "sentry-token",
        "Sentry organization or user auth token (sntrys_, sntryu_)",
        r"\bsntry[su]_[A-Za-z0-9+/=_-]{60,}",
        r"sntry[su]_",
    ),
    vendor(
        "new-relic-key",
        "New Relic user, ingest, browser, admin or query key, or license key",
        r"\bNR(?:AK|II|JS|AA|IQ)-(?P<v>[A-Za-z0-9_-]{19,40})\b|\b[a-f0-9]{36}NRAL\b",
        r"NR(?:AK|II|JS|AA|IQ)-|NRAL",
        mixed(2),
    ),
    vendor(
        "grafana-token",
        "Grafana Cloud token, service account token or API key",
        r"\bglc_[A-Za-z0-9+/]{32,}={0,2}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b"
        r"|\beyJrIjoi[A-Za-z0-9+/]{60,}={0,2}",
        r"glc_|glsa_|eyJrIjoi",
    ),
    vendor(
        "dynatrace-token",
        "Dynatrace API token (dt0c01.)",
        r"\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}\b",
        r"dt0c01\.",
    ),
    vendor(
        "honeycomb-key",
        "Honeycomb ingest key (hc?ik_) or a key in the X-Honeycomb-Team header",
        r"\bhc[a-z]ik_(?P<v>[0-9a-z]{50,})\b"
        r"|(?i:x-honeycomb-team)[\"']?[ \t]*[:=][ \t]*[\"']?(?P<w>[A-Za-z0-9]{22,64})\b",
        r"hc[a-z]ik_|(?i:x-honeycomb-team)",
        lambda m: classes(m.group("v") or m.group("w")) >= 2,
    ),
    vendor(
        "langsmith-key",
        "LangSmith personal or service key (lsv2_)",
        r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b",
        r"lsv2_(?:pt|sk)_",
    ),
    vendor(
        "splunk-hec-token",
        "Splunk HTTP Event Collector token in its Authorization form",
        r"\bSplunk[ \t]+[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
        r"-[0-9a-fA-F]{12}\b",
        r"Splunk[ \t]",
    ),
)
