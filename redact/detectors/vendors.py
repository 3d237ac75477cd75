"""Vendor credential shapes beyond the reference core (spec A5).

Every detector in the family modules names one family of real tokens. Shapes with a fixed
prefix, a fixed length or an internal structure (a checksum, a base64-encoded header, a snowflake id) flag on their own;
tokens with no such shape (Cohere, Mistral, Datadog application keys, passwords) flag only under a
secret-like key or flag (`keyed-secret`, `cli-secret-flag`, `connection-string-password`).

Validators exist to keep near misses out: identifiers that merely start like a vendor prefix
(`fw_version`, `gldt-deploy-token-name`) carry no mixture of upper case, lower case and digits the
way random tokens do, and documentation placeholders (`T00000000/B00000000/XXXX…`) repeat a handful
of characters. Patterns are written for the `regex` module with ASCII semantics and no nested
quantifiers; lookbehinds pin long runs to their first character so a hostile run of token
characters is scanned once, not once per offset.
"""

from __future__ import annotations

from redact.detectors.ai import AI_DETECTORS
from redact.detectors.assignment import ASSIGNMENT_DETECTORS
from redact.detectors.base import Detector
from redact.detectors.cloud import CLOUD_DETECTORS
from redact.detectors.commerce import COMMERCE_DETECTORS
from redact.detectors.context import CONTEXT_DETECTORS
from redact.detectors.databases import DATABASE_DETECTORS
from redact.detectors.keyfiles import KEY_FILE_DETECTORS
from redact.detectors.messaging import MESSAGING_DETECTORS
from redact.detectors.named import NAMED_DETECTORS
from redact.detectors.observability import OBSERVABILITY_DETECTORS
from redact.detectors.platforms import PLATFORM_DETECTORS
from redact.detectors.registries import REGISTRY_DETECTORS
from redact.detectors.source import SOURCE_HOST_DETECTORS

__all__ = ["VENDOR_DETECTORS"]

# In the order they are tried: the first detector that matches names a string's finding.
VENDOR_DETECTORS: tuple[Detector, ...] = (
    *CLOUD_DETECTORS,
    *SOURCE_HOST_DETECTORS,
    *COMMERCE_DETECTORS,
    *MESSAGING_DETECTORS,
    *OBSERVABILITY_DETECTORS,
    *AI_DETECTORS,
    *REGISTRY_DETECTORS,
    *PLATFORM_DETECTORS,
    *KEY_FILE_DETECTORS,
    *NAMED_DETECTORS,
    *CONTEXT_DETECTORS,
    *DATABASE_DETECTORS,
    *ASSIGNMENT_DETECTORS,
)
