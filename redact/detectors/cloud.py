"""Cloud providers and infrastructure platforms: access keys, service tokens, key files."""

from __future__ import annotations

from redact.detectors.base import Detector
from redact.detectors.vendor_support import classes, mixed, vendor

__all__ = ["CLOUD_DETECTORS"]

CLOUD_DETECTORS: tuple[Detector, ...] = (
    vendor(
        "aws-secret-access-key",
        "AWS secret access key under its key name or next to an access key id",
        r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?(?:[ \t]*[:=][ \t]*|[ \t]+)"
        r"[\"']?(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        r"|(?:AKIA|ASIA)[A-Z0-9]{16}[\"']?[ \t]*[,:;|= \t][ \t]*[\"']?"
        r"(?P<w>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        r"(?i:secret_?access_?key|aws_?secret)|AKIA|ASIA",
        lambda m: classes(m.group("v") or m.group("w")) >= 2,
    ),
    vendor(
        "aws-session-token",
        "AWS STS session token (base64 of the token header)",
        r"(?<![A-Za-z0-9+/])(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdz|FQoGZXIvYXdz)[A-Za-z0-9+/]{80,}={0,2}",
        r"IQoJb3JpZ2luX2Vj|FwoGZXIvYXdz|FQoGZXIvYXdz",
    ),
    vendor(
        "aws-bedrock-api-key",
        "Amazon Bedrock API key, long-term or short-term",
        r"\bABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{20,}={0,2}"
        r"|\bbedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%&?_-]{20,}",
        r"ABSKQmVkcm9ja0FQSUtleS|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t",
    ),
    vendor(
        "aws-other-access-key",
        "AWS access key id of the A3T, ABIA and ACCA families",
        r"\b(?:A3T[A-Z0-9]|ABIA|ACCA)[A-Z2-7]{16}\b",
        r"A3T[A-Z0-9]|ABIA|ACCA",
    ),
    vendor(
        "gcp-service-account-key",
        "Google service account JSON key (its private_key_id field)",
        r"\"private_key_id\"[ \t]*:[ \t]*\"[0-9a-f]{40}\"",
        r"private_key_id",
    ),
    vendor(
        "google-oauth-client-secret",
        "Google OAuth client secret (GOCSPX-)",
        r"\bGOCSPX-[A-Za-z0-9_-]{24,40}(?![A-Za-z0-9_-])",
        r"GOCSPX-",
    ),
    vendor(
        "google-oauth-token",
        "Google OAuth access token (ya29.) or refresh token (1//0)",
        r"\bya29\.[A-Za-z0-9_-]{30,}|(?<![A-Za-z0-9/:.])1//0[A-Za-z0-9_-]{40,}",
        r"ya29\.|1//0",
        mixed(2),
    ),
    vendor(
        "azure-storage-key",
        "Azure storage or Service Bus key inside a connection string",
        r"(?i:AccountKey|SharedAccessKey)[ \t]*=[ \t]*(?P<v>[A-Za-z0-9+/]{40,}={0,2})",
        r"(?i:accountkey|sharedaccesskey)",
        mixed(3),
    ),
    vendor(
        "azure-ad-client-secret",
        "Microsoft Entra ID (Azure AD) application client secret",
        r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
        r"\dQ~",
        mixed(3),
    ),
    vendor(
        "digitalocean-token",
        "DigitalOcean personal access, OAuth or refresh token",
        r"\bdo[opr]_v1_[a-f0-9]{64}\b",
        r"do[opr]_v1_",
    ),
    vendor(
        "alibaba-access-key",
        "Alibaba Cloud AccessKey id (LTAI)",
        r"\bLTAI(?P<v>[A-Za-z0-9]{12,20})\b",
        r"LTAI",
        mixed(2),
    ),
    vendor(
        "heroku-api-key",
        "Heroku platform API key (HRKU-)",
        r"\bHRKU-[A-Za-z0-9_-]{32,}",
        r"HRKU-",
    ),
    vendor(
        "cloudflare-origin-ca-key",
        "Cloudflare Origin CA key",
        r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b",
        r"v1\.0-[a-f0-9]{24}-",
    ),
    vendor(
        "terraform-cloud-token",
        "Terraform Cloud / HCP Terraform API token (.atlasv1.)",
        r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}",
        r"\.atlasv1\.",
    ),
    vendor(
        "vault-token",
        "HashiCorp Vault service, batch or recovery token",
        r"\bhv[sbr]\.(?P<v>[A-Za-z0-9_-]{24,})",
        r"hv[sbr]\.",
        mixed(3),
    ),
    vendor(
        "doppler-token",
        "Doppler personal, service, service-account or CLI token",
        r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9_.-]{40,}",
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.",
    ),
    vendor(
        "flyio-token",
        "Fly.io access token",
        r"\b(?:fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{60,}={0,3})",
        r"fo1_|fm[12][ar]?_",
    ),
    vendor(
        "databricks-token",
        "Databricks personal access token (dapi)",
        r"\bdapi[a-f0-9]{32}(?:-\d)?\b",
        r"dapi[a-f0-9]{32}",
    ),
    vendor(
        "defined-networking-token",
        "Defined Networking (Nebula) API token (dnkey-)",
        r"\bdnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}(?![A-Za-z0-9=_-])",
        r"dnkey-",
        mixed(2),
    ),
)
