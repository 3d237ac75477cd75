"""Package and artifact registries."""

from __future__ import annotations

from redact.detectors.base import Detector
from redact.detectors.vendor_support import mixed, vendor

__all__ = ["REGISTRY_DETECTORS"]

REGISTRY_DETECTORS: tuple[Detector, ...] = (
    vendor(
        "pypi-token",
        "PyPI or TestPyPI upload token (pypi-AgE…)",
        r"\bpypi-AgE[A-Za-z0-9_-]{50,}",
        r"pypi-AgE",
    ),
    vendor(
        "rubygems-key",
        "RubyGems API key",
        r"\brubygems_[a-f0-9]{48}\b",
        r"rubygems_",
    ),
    vendor(
        "nuget-key",
        "NuGet API key (oy2)",
        r"\boy2(?P<v>[a-z0-9]{43})\b",
        r"oy2[a-z0-9]{43}",
        mixed(2),
    ),
    vendor(
        "docker-hub-token",
        "Docker Hub personal or organization access token",
        r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}",
        r"dckr_(?:pat|oat)_",
    ),
    vendor(
        "crates-io-token",
        "crates.io API token (cio)",
        r"\bcio(?P<v>[A-Za-z0-9]{32})\b",
        r"cio[A-Za-z0-9]{32}",
        mixed(3),
    ),
    vendor(
        "jfrog-token",
        "JFrog Artifactory API key (AKCp) or reference token",
        r"\bAKCp[A-Za-z0-9]{60,}\b|\bcmVmd[A-Za-z0-9]{55,}\b",
        r"AKCp|cmVmd",
    ),
    vendor(
        "clojars-token",
        "Clojars deploy token",
        r"\bCLOJARS_[a-z0-9]{60}\b",
        r"CLOJARS_",
    ),
)
