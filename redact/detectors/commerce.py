"""Payment and commerce platforms."""

from __future__ import annotations

from redact.detectors.base import Detector
from redact.detectors.vendor_support import classes, mixed, vendor

__all__ = ["COMMERCE_DETECTORS"]

COMMERCE_DETECTORS: tuple[Detector, ...] = (
    vendor(
        "stripe-webhook-secret",
        "Stripe (or Svix) webhook signing secret (whsec_)",
        r"\bwhsec_(?P<v>[A-Za-z0-9+/=]{24,})",
        r"whsec_",
        mixed(2),
    ),
    vendor(
        "square-token",
        "Square access token or application secret",
        r"\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,}"
        r"|(?<![A-Za-z0-9+/_-])EAAA(?P<v>[A-Za-z0-9_-]{60})(?![A-Za-z0-9+/=_-])",
        r"sq0(?:atp|csp)-|EAAA",
        lambda m: m.group("v") is None or classes(m.group("v")) == 3,
    ),
    vendor(
        "meta-access-token",
        "Facebook / Meta Graph API access token (EAA…)",
        r"(?<![A-Za-z0-9+/_-])EAA(?P<v>[A-Za-z0-9]{90,})(?![A-Za-z0-9+/=_-])",
        r"EAA",
        mixed(3),
    ),
    vendor(
        "braintree-token",
        "PayPal Braintree access token",
        r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}",
        r"access_token\$",
    ),
    vendor(
        "shopify-token",
        "Shopify access token, custom app token, private app token or shared secret",
        r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b",
        r"shp(?:at|ss|ca|pa)_",
    ),
    vendor(
        "plaid-access-token",
        "Plaid access token",
        r"\baccess-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}"
        r"-[0-9a-f]{4}-[0-9a-f]{12}\b",
        r"access-(?:sandbox|development|production)-",
    ),
    vendor(
        "flutterwave-secret-key",
        "Flutterwave secret, public or encryption key (FLWSECK, FLWPUBK)",
        r"\bFLW(?:SEC|PUB)K(?:_TEST)?-[A-Za-z0-9]{12,}(?:-X)?\b",
        r"FLW(?:SEC|PUB)K",
    ),
    vendor(
        "stripe-prod-key",
        "Stripe secret or restricted key of the prod_ kind (sk_prod_, rk_prod_)",
        r"(?<![A-Za-z0-9])[sr]k_prod_(?P<v>[A-Za-z0-9]{10,99})\b",
        r"[sr]k_prod_",
        mixed(2),
    ),
    vendor(
        "shippo-token",
        "Shippo API token",
        r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b",
        r"shippo_",
    ),
    vendor(
        "easypost-key",
        "EasyPost API key (EZAK, EZTK)",
        r"\bEZ[AT]K[A-Za-z0-9]{54}\b",
        r"EZ[AT]K",
    ),
)
