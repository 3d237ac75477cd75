"""Developer platforms and SaaS APIs with a recognisable token format."""

from __future__ import annotations

from redact.detectors.base import Detector
from redact.detectors.vendor_support import base64_jwt, classes, mixed, vendor

__all__ = ["PLATFORM_DETECTORS"]

PLATFORM_DETECTORS: tuple[Detector, ...] = (
    vendor(
        "linear-key",
        "Linear API key or OAuth token",
        r"\blin_(?:api|oauth)_[A-Za-z0-9]{40,64}\b",
        r"lin_(?:api|oauth)_",
    ),
    vendor(
        "notion-token",
        "Notion integration token (ntn_, secret_)",
        r"\bntn_(?P<v>[A-Za-z0-9]{40,})\b|\bsecret_(?P<w>[A-Za-z0-9]{43})\b",
        r"ntn_|secret_[A-Za-z0-9]{43}",
        lambda m: classes(m.group("v") or m.group("w")) == 3,
    ),
    vendor(
        "supabase-key",
        "Supabase personal access token or secret API key",
        r"\bsbp_[a-f0-9]{40}\b|\bsb_secret_[A-Za-z0-9_-]{20,}",
        r"sbp_|sb_secret_",
    ),
    vendor(
        "planetscale-token",
        "PlanetScale API token, OAuth token or password",
        r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}",
        r"pscale_(?:tkn|pw|oauth)_",
    ),
    vendor(
        "neon-key",
        "Neon API key (napi_)",
        r"\bnapi_[a-z0-9]{64}\b",
        r"napi_",
    ),
    vendor(
        "render-key",
        "Render API key (rnd_)",
        r"\brnd_(?P<v>[A-Za-z0-9]{32})\b",
        r"rnd_",
        mixed(3),
    ),
    vendor(
        "pulumi-token",
        "Pulumi access token (pul-)",
        r"\bpul-[a-f0-9]{40}\b",
        r"pul-[a-f0-9]",
    ),
    vendor(
        "prefect-key",
        "Prefect API key (pnu_)",
        r"\bpnu_[A-Za-z0-9]{36}\b",
        r"pnu_",
    ),
    vendor(
        "figma-token",
        "Figma personal access token (figd_)",
        r"\bfigd_[A-Za-z0-9_-]{38,}",
        r"figd_",
    ),
    vendor(
        "airtable-token",
        "Airtable personal access token",
        r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b",
        r"pat[A-Za-z0-9]{14}\.",
    ),
    vendor(
        "hubspot-token",
        "HubSpot private app token",
        r"\bpat-(?:na|eu|ap)\d{1,2}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
        r"pat-(?:na|eu|ap)\d",
    ),
    vendor(
        "asana-token",
        "Asana personal access token",
        r"\b[012]/\d{10,20}(?:/\d{10,20})?:[a-f0-9]{32}\b",
        r"\d{10}:[a-f0-9]{32}",
    ),
    vendor(
        "intercom-token",
        "Intercom access token (base64 of tok:)",
        r"\bdG9rO[a-zA-Z0-9+/]{40,}={0,2}",
        r"dG9rO",
    ),
    vendor(
        "typeform-token",
        "Typeform personal access token (tfp_)",
        r"\btfp_[A-Za-z0-9_.=-]{40,}",
        r"tfp_",
    ),
    vendor(
        "contentful-token",
        "Contentful personal access token (CFPAT-)",
        r"\bCFPAT-[A-Za-z0-9_-]{43}\b",
        r"CFPAT-",
    ),
    vendor(
        "dropbox-token",
        "Dropbox short-lived access token (sl.)",
        r"\bsl\.(?:u\.)?[A-Za-z0-9_-]{120,}",
        r"\bsl\.",
    ),
    vendor(
        "mapbox-secret-token",
        "Mapbox secret token (sk.eyJ)",
        r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
        r"sk\.eyJ",
    ),
    vendor(
        "twitter-bearer-token",
        "X / Twitter app bearer token",
        r"(?<![A-Za-z0-9+/%])A{20,24}[A-Za-z0-9]{10,150}%[A-Za-z0-9%]{20,}",
        r"AAAAAAAAAAAAAAAAAAAA",
    ),
    vendor(
        "okta-api-token",
        "Okta API token in its SSWS Authorization form",
        r"(?i:\bSSWS)[ \t]+00[A-Za-z0-9_-]{40}\b",
        r"(?i:ssws)",
    ),
    vendor(
        "azure-identifiable-key",
        "Microsoft identifiable secret (84/88-character key with the JQQJ9 marker)",
        r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{52}JQQJ9[A-Za-z0-9+/]{27,31}={0,2}(?![A-Za-z0-9+/])",
        r"JQQJ9",
    ),
    vendor(
        "onepassword-token",
        "1Password service account token or account secret key",
        r"\bops_eyJ[A-Za-z0-9+/]{200,}={0,3}"
        r"|\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}"
        r"-[A-Z0-9]{5}\b",
        r"ops_eyJ|A3-[A-Z0-9]{6}-",
    ),
    vendor(
        "openshift-token",
        "OpenShift user or service token (sha256~)",
        r"\bsha256~[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])",
        r"sha256~",
    ),
    vendor(
        "vercel-token",
        "Vercel access, integration, app or refresh token (vcp_, vci_, vca_, vcr_, vck_)",
        r"\bvc[piark]_(?P<v>[A-Za-z0-9]{24,})\b",
        r"vc[piark]_",
        mixed(3),
    ),
    vendor(
        "netlify-token",
        "Netlify access token (nfp_, nfc_, nfo_, nfu_)",
        r"\bnf[pcou]_(?P<v>[A-Za-z0-9]{36,})\b",
        r"nf[pcou]_",
        mixed(3),
    ),
    vendor(
        "circleci-token",
        "CircleCI personal or project API token (CCIPAT_, CCIPRJ_)",
        r"\bCCI(?:PAT|PRJ)_[A-Za-z0-9_]{30,}",
        r"CCI(?:PAT|PRJ)_",
    ),
    vendor(
        "buildkite-token",
        "Buildkite API access token (bkua_)",
        r"\bbkua_[a-f0-9]{40}\b",
        r"bkua_",
    ),
    vendor(
        "sonar-token",
        "SonarQube / SonarCloud user, project or global token",
        r"\bsq[upa]_[a-f0-9]{40}\b",
        r"sq[upa]_",
    ),
    vendor(
        "harness-token",
        "Harness personal or service account token",
        r"\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}\b",
        r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.",
    ),
    vendor(
        "scalingo-token",
        "Scalingo API token (tk-us-)",
        r"\btk-us-[A-Za-z0-9_-]{48}(?![A-Za-z0-9_-])",
        r"tk-us-",
    ),
    vendor(
        "readme-key",
        "ReadMe API key (rdme_)",
        r"\brdme_[a-z0-9]{70}\b",
        r"rdme_",
    ),
    vendor(
        "infracost-key",
        "Infracost API key (ico-)",
        r"\bico-(?P<v>[A-Za-z0-9]{32})\b",
        r"ico-",
        mixed(2),
    ),
    vendor(
        "frameio-token",
        "Frame.io developer token (fio-u-)",
        r"\bfio-u-[A-Za-z0-9_=-]{64}",
        r"fio-u-",
    ),
    vendor(
        "duffel-token",
        "Duffel API token",
        r"\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}",
        r"duffel_(?:test|live)_",
    ),
    vendor(
        "maxmind-license-key",
        "MaxMind license key (_mmk)",
        r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b",
        r"_mmk",
    ),
    vendor(
        "clickhouse-cloud-key",
        "ClickHouse Cloud API secret (4b1d)",
        r"\b4b1d(?P<v>[A-Za-z0-9]{38})\b",
        r"4b1d",
        mixed(3),
    ),
    vendor(
        "launchdarkly-sdk-key",
        "LaunchDarkly server-side SDK key (sdk- and a UUID)",
        r"\bsdk-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
        r"sdk-[0-9a-f]{8}-",
    ),
    vendor(
        "instagram-token",
        "Instagram / Threads access token (IGQV, IGAA, THQV, THAA)",
        r"\b(?:IG|TH)(?:QV|AA)(?P<v>[A-Za-z0-9_-]{100,})",
        r"(?:IG|TH)(?:QV|AA)",
        mixed(3),
    ),
    vendor(
        "salesforce-session",
        "Salesforce session id or access token (00D…!)",
        r"\b00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{60,}",
        r"00D[A-Za-z0-9]{12,15}!",
    ),
    vendor(
        "automation-webhook-url",
        "Zapier, Make or IFTTT webhook URL (the URL is the credential)",
        r"hooks\.zapier\.com/hooks/catch/\d{3,}/[A-Za-z0-9]{5,}"
        r"|\bhook\.[a-z0-9.]{0,20}make\.com/[a-z0-9]{24,}"
        r"|maker\.ifttt\.com/trigger/[^/\s]{1,100}/(?:json/)?with/key/[A-Za-z0-9_-]{20,}",
        r"hooks\.zapier\.com/hooks/catch/|make\.com/|maker\.ifttt\.com/",
    ),
    vendor(
        "adobe-client-secret",
        "Adobe client secret (p8e-)",
        r"\bp8e-(?P<v>[A-Za-z0-9]{32})(?![A-Za-z0-9])",
        r"p8e-",
        mixed(2),
    ),
    vendor(
        "authress-key",
        "Authress service client access key",
        r"\b(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-]"
        r"[A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}",
        r"\.acc[_-]",
    ),
    vendor(
        "intra42-client-secret",
        "42 Intra client secret (s-s4t2ud-, s-s4t2af-)",
        r"\bs-s4t2(?:ud|af)-[a-fA-F0-9]{64}\b",
        r"s-s4t2(?:ud|af)-",
    ),
    vendor(
        "octopus-deploy-key",
        "Octopus Deploy API key (API- and 26 upper-case letters and digits)",
        r"\bAPI-(?P<v>[A-Z0-9]{26})\b",
        r"API-[A-Z0-9]{26}",
        mixed(2),
    ),
    vendor(
        "settlemint-token",
        "SettleMint application, personal or service access token",
        r"\bsm_(?:aat|pat|sat)_(?P<v>[A-Za-z0-9]{16})\b",
        r"sm_(?:aat|pat|sat)_",
        mixed(2),
    ),
    vendor(
        "jwt-unsigned",
        "Unsigned JSON Web Token (alg none: header and claims, empty signature)",
        r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.(?![A-Za-z0-9_.-])",
        r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.",
    ),
    vendor(
        "jwt-base64",
        "Base64 of a JSON Web Token (ZXlK…)",
        r"(?<![A-Za-z0-9+/])ZXlK[A-Za-z0-9+/]{40,}={0,2}",
        r"ZXlK[A-Za-z0-9+/]{40}",
        base64_jwt,
    ),
)
