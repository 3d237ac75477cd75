"""Private keys and key files the reference private-key shape does not cover."""

from __future__ import annotations

from redact.detectors.base import Detector
from redact.detectors.vendor_support import base64_private_key, vendor

__all__ = ["KEY_FILE_DETECTORS"]

KEY_FILE_DETECTORS: tuple[Detector, ...] = (
    vendor(
        "age-secret-key",
        "age encryption secret key",
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        r"AGE-SECRET-KEY-1",
    ),
    vendor(
        "other-private-key",
        "PGP private key block, SSH2 encrypted key or PuTTY key file",
        r"-----BEGIN PGP PRIVATE KEY BLOCK-----|---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"
        r"|PuTTY-User-Key-File-[23]:",
        r"BEGIN PGP PRIVATE|BEGIN SSH2 ENCRYPTED|PuTTY-User-Key-File-",
    ),
    vendor(
        "base64-private-key",
        "Base64-encoded PEM private key (kubeconfig client-key-data and the like)",
        r"(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}",
        r"LS0tLS1CRUdJTi",
        base64_private_key,
    ),
)
