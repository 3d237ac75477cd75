"""LLM and AI providers beyond the reference core."""

from __future__ import annotations

from redact.detectors.base import Detector
from redact.detectors.vendor_support import classes, mixed, vendor

__all__ = ["AI_DETECTORS"]

AI_DETECTORS: tuple[Detector, ...] = (
    vendor(
        "replicate-token",
        "Replicate API token (r8_)",
        r"\br8_(?P<v>[A-Za-z0-9]{30,40})\b",
        r"r8_",
        mixed(2),
    ),
    vendor(
        "perplexity-key",
        "Perplexity API key (pplx-)",
        r"\bpplx-(?P<v>[A-Za-z0-9]{40,})\b",
        r"pplx-",
        mixed(2),
    ),
    vendor(
        "fireworks-key",
        "Fireworks AI API key (fw_)",
        r"\bfw_(?P<v>[A-Za-z0-9]{20,})\b",
        r"fw_",
        lambda m: classes(m.group("v")) >= 2 and any(c.isdigit() for c in m.group("v")),
    ),
    vendor(
        "pinecone-key",
        "Pinecone API key (pcsk_)",
        r"\bpcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,}\b",
        r"pcsk_",
    ),
    vendor(
        "nvidia-api-key",
        "NVIDIA API key (nvapi-)",
        r"\bnvapi-[A-Za-z0-9_-]{60,}",
        r"nvapi-",
    ),
    vendor(
        "tavily-key",
        "Tavily API key (tvly-)",
        r"\btvly-(?:dev-|prod-)?(?P<v>[A-Za-z0-9]{24,})\b",
        r"tvly-",
        mixed(2),
    ),
    vendor(
        "firecrawl-key",
        "Firecrawl API key (fc- and 32 hex)",
        r"\bfc-(?P<v>[0-9a-f]{32})\b",
        r"fc-[0-9a-f]",
        mixed(2),
    ),
    vendor(
        "together-key",
        "Together AI API key (tgp_v1_)",
        r"\btgp_v1_[A-Za-z0-9_-]{40,}",
        r"tgp_v1_",
    ),
    vendor(
        "cerebras-key",
        "Cerebras API key (csk-)",
        r"\bcsk-(?P<v>[a-z0-9]{40,})\b",
        r"csk-",
        mixed(2),
    ),
    vendor(
        "voyage-key",
        "Voyage AI API key (pa-)",
        r"\bpa-(?P<v>[A-Za-z0-9_-]{40,60})(?![A-Za-z0-9_-])",
        r"\bpa-[A-Za-z0-9_-]{40}",
        mixed(3),
    ),
    vendor(
        "huggingface-org-token",
        "Hugging Face organization API token (api_org_)",
        r"\bapi_org_(?P<v>[A-Za-z0-9]{30,})\b",
        r"api_org_",
        mixed(2),
    ),
)
