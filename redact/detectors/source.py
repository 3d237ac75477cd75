"""Source hosts and CI services."""

from __future__ import annotations

from redact.detectors.base import Detector
from redact.detectors.vendor_support import mixed, vendor

__all__ = ["SOURCE_HOST_DETECTORS"]

SOURCE_HOST_DETECTORS: tuple[Detector, ...] = (
    vendor(
        "gitlab-other-token",
        "GitLab deploy, runner, trigger, SCIM, feed, mail, agent, OAuth app or CI job token",
        r"\b(?:gl(?:dt|rt|ptt|soat|ft|imt|agent|oas|ffct)-|glcbt-[0-9A-Za-z]{1,5}_|GR1348941)"
        r"(?P<v>[0-9A-Za-z_-]{20,})",
        r"gl(?:dt|rt|ptt|soat|ft|imt|agent|oas|ffct|cbt)-|GR1348941",
        mixed(2),
    ),
    vendor(
        "atlassian-token",
        "Atlassian API token (ATATT3, ATCTT3) or Bitbucket app password (ATBB)",
        r"\bAT(?:ATT|CTT)3[A-Za-z0-9_=-]{100,}|\bATBB(?P<v>[A-Za-z0-9]{28,})\b",
        r"ATATT3|ATCTT3|ATBB",
        mixed(2),
    ),
    vendor(
        "sourcegraph-token",
        "Sourcegraph access token (sgp_)",
        r"\bsgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}\b",
        r"sgp_",
    ),
    vendor(
        "postman-api-key",
        "Postman API key (PMAK-)",
        r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b",
        r"PMAK-",
    ),
    vendor(
        "gitlab-session-cookie",
        "GitLab session cookie (_gitlab_session=)",
        r"_gitlab_session=(?P<v>[0-9a-z]{32})\b",
        r"_gitlab_session=",
        mixed(2),
    ),
)
