"""A corpus of credentials written in context, and of near misses, built at run time.

The token shapes, the names they travel under and the near misses are the facts public secret
scanners publish with their rules (gitleaks' rules and their true- and false-positive test
strings, detect-secrets' plugins); the strings themselves are written here, and every secret is
drawn from a seeded generator when the corpus is built, so none stands in this file.

- `positives()`: (family, rule, syntax, text, secret) — the secret written in a line of code,
  config, a shell command or a log, in the syntaxes real files use (the scanners' own sample
  contexts: INI, JSON, YAML, XML, Go, Java, C#, Kotlin, PHP, Python, Makefile, Logstash, a
  `System.setProperty` call, and beyond them shell `export`, `.env` and `env` dumps, flags).
- `near_misses()`: (family, text) — ordinary content that merely looks like a secret: code
  identifiers that start like a token, image URLs whose hashes look like keys, `xoxo` in a URL,
  Maven coordinates, placeholders, ids under secret-sounding names. None may be changed.
- `documentation_values()`: values scanners do not report although they are secret-shaped
  (`AKIAIOSFODNN7EXAMPLE`, a key one character short). Removing them is failing closed on a
  credential shape, which is allowed; they are measured, not asserted.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

from shape_text import ShapeText

__all__ = [
    "FAMILIES",
    "Case",
    "documentation_values",
    "near_misses",
    "positives",
]

_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"


@dataclass(frozen=True, slots=True)
class Case:
    family: str
    rule: str
    syntax: str
    text: str
    secret: str


def j(*parts: str) -> str:
    """Join split parts, so a token's prefix and body never stand together in the source."""
    return "".join(parts)


# (family, rule, shape) — tokens recognisable by their format. Prefixes are split with a `·`
# removed at run time: `"xo·xb-"` is `xoxb-`.
TOKEN_SHAPES: tuple[tuple[str, str, str], ...] = (
    # cloud
    ("cloud", "aws-access-key", "AK·IA[A-Z2-7]{16}"),
    ("cloud", "aws-sts-key", "AS·IA[A-Z2-7]{16}"),
    ("cloud", "aws-other-access-key", "(?:A3T[A-Z]|AB·IA|AC·CA)[A-Z2-7]{16}"),
    ("cloud", "aws-bedrock-long-lived", "AB·SKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{120}"),
    (
        "cloud",
        "aws-bedrock-short-lived",
        "bedrock-api-key-·YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9%]{60}",
    ),
    ("cloud", "azure-ad-client-secret", "[A-Za-z0-9_~.]{3}[0-9]Q·~[A-Za-z0-9_~.-]{34}"),
    ("cloud", "gcp-api-key", "AI·za[A-Za-z0-9_-]{35}"),
    ("cloud", "digitalocean-pat", "do·p_v1_[a-f0-9]{64}"),
    ("cloud", "digitalocean-oauth", "do·o_v1_[a-f0-9]{64}"),
    ("cloud", "digitalocean-refresh", "do·r_v1_[a-f0-9]{64}"),
    ("cloud", "alibaba-access-key", "LT·AI[A-Za-z0-9]{20}"),
    ("cloud", "heroku-api-key-v2", "HR·KU-AA[0-9A-Za-z_-]{58}"),
    ("cloud", "cloudflare-origin-ca", "v1·\\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    ("cloud", "terraform-cloud", "[A-Za-z0-9]{14}\\.at·lasv1\\.[A-Za-z0-9_=-]{64}"),
    ("cloud", "vault-service", "hv·s\\.[A-Za-z0-9_-]{95}"),
    ("cloud", "vault-batch", "hv·b\\.[A-Za-z0-9_-]{140}"),
    ("cloud", "doppler", "dp·\\.pt\\.[A-Za-z0-9]{43}"),
    ("cloud", "flyio", "fo·1_[A-Za-z0-9_-]{43}"),
    ("cloud", "flyio-macaroon", "fm·2_[A-Za-z0-9+/]{110}"),
    ("cloud", "databricks", "da·pi[a-f0-9]{32}"),
    ("cloud", "defined-networking", "dn·key-[a-z0-9_-]{26}-[a-z0-9_-]{52}"),
    ("cloud", "openshift", "sha256·~[A-Za-z0-9_-]{43}"),
    ("cloud", "age-secret-key", "AGE-SECRET-·KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    (
        "cloud",
        "onepassword-secret-key",
        "A3·-[A-Z0-9]{6}-[A-Z0-9]{11}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
    ),
    # source hosts and CI
    ("source", "github-pat", "gh·p_[A-Za-z0-9]{36}"),
    ("source", "github-oauth", "gh·o_[A-Za-z0-9]{36}"),
    ("source", "github-app", "gh·s_[A-Za-z0-9]{36}"),
    ("source", "github-refresh", "gh·r_[A-Za-z0-9]{36}"),
    ("source", "github-fine-grained", "github·_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}"),
    ("source", "gitlab-pat", "gl·pat-[A-Za-z0-9_-]{20}"),
    ("source", "gitlab-deploy", "gl·dt-[A-Za-z0-9_-]{20}"),
    ("source", "gitlab-runner", "gl·rt-[A-Za-z0-9_-]{20}"),
    ("source", "gitlab-ptt", "gl·ptt-[a-f0-9]{40}"),
    ("source", "gitlab-cicd-job", "gl·cbt-[0-9a-z]{3}_[A-Za-z0-9_-]{20}"),
    ("source", "gitlab-scim", "gl·soat-[A-Za-z0-9_-]{20}"),
    ("source", "gitlab-feed", "gl·ft-[A-Za-z0-9_-]{20}"),
    ("source", "gitlab-incoming-mail", "gl·imt-[A-Za-z0-9_-]{25}"),
    ("source", "gitlab-agent", "gl·agent-[A-Za-z0-9_-]{50}"),
    ("source", "gitlab-oauth-app", "gl·oas-[A-Za-z0-9_-]{64}"),
    ("source", "gitlab-rrt", "GR134·8941[A-Za-z0-9_-]{20}"),
    ("source", "gitlab-session-cookie", "_gitlab_·session=[0-9a-z]{32}"),
    ("source", "atlassian-api-token", "ATA·TT3[A-Za-z0-9_=-]{186}"),
    ("source", "bitbucket-app-password", "AT·BB[A-Za-z0-9]{32}"),
    ("source", "sourcegraph", "sg·p_[a-fA-F0-9]{16}_[a-fA-F0-9]{40}"),
    ("source", "sourcegraph-local", "sg·p_local_[a-fA-F0-9]{40}"),
    ("source", "circleci", "CCI·PAT_[A-Za-z0-9]{22}_[a-f0-9]{40}"),
    ("source", "buildkite", "bk·ua_[a-f0-9]{40}"),
    ("source", "sonar", "sq·[upa]_[a-f0-9]{40}"),
    ("source", "harness", "pat·\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{20}"),
    ("source", "postman", "PM·AK-[a-f0-9]{24}-[a-f0-9]{34}"),
    # package registries
    ("registries", "npm", "np·m_[A-Za-z0-9]{36}"),
    ("registries", "pypi", "py·pi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{70}"),
    ("registries", "rubygems", "ruby·gems_[a-f0-9]{48}"),
    ("registries", "nuget", "oy·2[a-z0-9]{43}"),
    ("registries", "docker-hub", "dck·r_pat_[A-Za-z0-9_-]{27}"),
    ("registries", "artifactory-api-key", "AK·Cp[A-Za-z0-9]{69}"),
    ("registries", "artifactory-reference", "cmVm·d[A-Za-z0-9]{59}"),
    ("registries", "clojars", "CLOJARS·_[a-z0-9]{60}"),
    ("registries", "crates-io", "ci·o[A-Za-z0-9]{32}"),
    # payment and commerce
    ("payment", "stripe-secret", "sk·_live_[A-Za-z0-9]{99}"),
    ("payment", "stripe-test", "sk·_test_[A-Za-z0-9]{24}"),
    ("payment", "stripe-restricted", "rk·_live_[A-Za-z0-9]{99}"),
    ("payment", "stripe-prod", "(?:sk|rk)·_prod_[A-Za-z0-9]{40}"),
    ("payment", "stripe-webhook", "wh·sec_[A-Za-z0-9]{32}"),
    ("payment", "square-access", "sq0·atp-[A-Za-z0-9_-]{22}"),
    ("payment", "square-secret", "sq0·csp-[A-Za-z0-9_-]{43}"),
    ("payment", "shopify-access", "shp·at_[a-fA-F0-9]{32}"),
    ("payment", "shopify-custom", "shp·ca_[a-fA-F0-9]{32}"),
    ("payment", "shopify-private", "shp·pa_[a-fA-F0-9]{32}"),
    ("payment", "shopify-shared", "shp·ss_[a-fA-F0-9]{32}"),
    ("payment", "flutterwave-secret", "FLWSEC·K_TEST-[a-h0-9]{32}-X"),
    ("payment", "flutterwave-public", "FLWPUB·K_TEST-[a-h0-9]{32}-X"),
    ("payment", "shippo", "shippo·_live_[a-f0-9]{40}"),
    ("payment", "easypost", "EZ·AK[A-Za-z0-9]{54}"),
    ("payment", "duffel", "duffel·_test_[A-Za-z0-9_=-]{43}"),
    ("payment", "plaid-access", "access-·sandbox-" + _UUID),
    # messaging and social
    ("messaging", "slack-bot", "xo·xb-[0-9]{12}-[0-9]{13}-[A-Za-z0-9]{24}"),
    ("messaging", "slack-user", "xo·xp-[0-9]{12}-[0-9]{12}-[0-9]{13}-[a-f0-9]{32}"),
    ("messaging", "slack-legacy-bot", "xo·xb-[0-9]{12}-[A-Za-z0-9]{24}"),
    ("messaging", "slack-legacy-workspace", "xo·xa-2-[A-Za-z0-9]{24}"),
    ("messaging", "slack-legacy-refresh", "xo·xr-[A-Za-z0-9]{24}"),
    ("messaging", "slack-legacy", "xo·xs-[0-9]{10}-[0-9]{10}-[0-9]{10}-[a-f0-9]{10}"),
    ("messaging", "slack-app", "xa·pp-1-A[0-9A-Z]{10}-[0-9]{13}-[a-f0-9]{64}"),
    ("messaging", "slack-config-access", "xo·xe\\.xoxp-1-[A-Za-z0-9]{163}"),
    ("messaging", "slack-config-refresh", "xo·xe-1-[A-Za-z0-9]{146}"),
    (
        "messaging",
        "slack-webhook",
        "hooks\\.slack·\\.com/services/T[A-Z0-9]{8}/B[A-Z0-9]{10}/[A-Za-z0-9]{24}",
    ),
    ("messaging", "discord-webhook", "discord·\\.com/api/webhooks/[0-9]{18}/[A-Za-z0-9_-]{68}"),
    ("messaging", "telegram", "[0-9]{10}:A·A[A-Za-z0-9_-]{33}"),
    ("messaging", "twilio-api-key", "S·K[a-f0-9]{32}"),
    ("messaging", "sendgrid", "S·G\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}"),
    ("messaging", "sendinblue", "xkey·sib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("messaging", "mailgun", "ke·y-[a-f0-9]{32}"),
    ("messaging", "mailchimp", "[a-f0-9]{32}-u·s1[0-9]"),
    ("messaging", "facebook-page", "EA·AC[A-Za-z0-9]{120}"),
    ("messaging", "facebook-app-token", "[0-9]{16}\\|[A-Za-z0-9_-]{27}"),
    (
        "messaging",
        "teams-webhook",
        "https://acme\\.webhook\\.office\\.com/·webhookb2/"
        + _UUID
        + "@"
        + _UUID
        + "/IncomingWebhook/[a-f0-9]{32}/"
        + _UUID,
    ),
    # observability
    ("observability", "sentry-user", "sntry·u_[a-f0-9]{64}"),
    ("observability", "new-relic-user", "NR·AK-[A-Z0-9]{27}"),
    ("observability", "new-relic-insert", "NR·II-[A-Za-z0-9_-]{32}"),
    ("observability", "new-relic-browser", "NR·JS-[a-f0-9]{19}"),
    ("observability", "grafana-cloud", "gl·c_[A-Za-z0-9+/]{80}"),
    ("observability", "grafana-service-account", "gl·sa_[A-Za-z0-9]{32}_[a-f0-9]{8}"),
    ("observability", "grafana-api-key", "eyJr·Ijoi[A-Za-z0-9]{72}"),
    ("observability", "dynatrace", "dt0·c01\\.[A-Z0-9]{24}\\.[A-Z0-9]{64}"),
    ("observability", "langsmith", "lsv2·_pt_[a-f0-9]{32}_[a-f0-9]{10}"),
    ("observability", "settlemint", "sm_·pat_[A-Za-z0-9]{16}"),
    ("observability", "maxmind", "[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_m·mk"),
    ("observability", "clickhouse", "4b·1d[A-Za-z0-9]{38}"),
    # AI providers
    ("ai", "openai-project", "sk·-proj-[A-Za-z0-9_-]{74}T3Blbk·FJ[A-Za-z0-9_-]{74}"),
    ("ai", "openai-legacy", "sk·-[A-Za-z0-9]{20}T3Blbk·FJ[A-Za-z0-9]{20}"),
    ("ai", "anthropic", "sk-·ant-api03-[A-Za-z0-9_-]{93}AA"),
    ("ai", "anthropic-admin", "sk-·ant-admin01-[A-Za-z0-9_-]{93}AA"),
    ("ai", "huggingface", "h·f_[A-Za-z]{34}"),
    ("ai", "huggingface-org", "api_·org_[A-Za-z]{34}"),
    ("ai", "perplexity", "pp·lx-[A-Za-z0-9]{48}"),
    ("ai", "groq", "gs·k_[A-Za-z0-9]{52}"),
    ("ai", "replicate", "r·8_[A-Za-z0-9]{37}"),
    ("ai", "privateai-free", "pc·sk_[A-Za-z0-9]{5}_[A-Za-z0-9]{60}"),
    # developer platforms
    ("platforms", "adobe-client-secret", "p8·e-[A-Za-z0-9]{32}"),
    ("platforms", "airtable-pat", "pat·[A-Za-z0-9]{14}\\.[a-f0-9]{64}"),
    (
        "platforms",
        "authress",
        "sc_·[a-z0-9]{10}\\.[a-z0-9]{5}\\.acc_[a-z0-9]{20}\\.[A-Za-z0-9_-]{60}",
    ),
    ("platforms", "contentful-pat", "CF·PAT-[A-Za-z0-9_-]{43}"),
    ("platforms", "dropbox-short-lived", "s·l\\.[A-Za-z0-9_-]{135}"),
    ("platforms", "frameio", "fio·-u-[A-Za-z0-9_=-]{64}"),
    ("platforms", "hubspot-private-app", "pat-·na1-" + _UUID),
    ("platforms", "infracost", "ic·o-[A-Za-z0-9]{32}"),
    ("platforms", "intra42", "s-s4t2·ud-[a-f0-9]{64}"),
    ("platforms", "linear", "lin·_api_[A-Za-z0-9]{40}"),
    ("platforms", "notion", "nt·n_[0-9]{11}[A-Za-z0-9]{35}"),
    ("platforms", "octopus-deploy", "AP·I-[A-Z0-9]{26}"),
    ("platforms", "planetscale", "pscale·_tkn_[A-Za-z0-9_.=-]{43}"),
    ("platforms", "prefect", "pn·u_[A-Za-z0-9]{36}"),
    ("platforms", "pulumi", "pu·l-[a-f0-9]{40}"),
    ("platforms", "readme", "rd·me_[a-z0-9]{70}"),
    ("platforms", "scalingo", "tk-·us-[A-Za-z0-9_-]{48}"),
    ("platforms", "typeform", "tf·p_[A-Za-z0-9_.=-]{59}"),
    ("platforms", "intercom", "dG9r·O[A-Za-z0-9+/]{56}="),
    ("platforms", "mapbox-secret", "s·k\\.eyJ1Ijoi[A-Za-z0-9_-]{40}\\.[A-Za-z0-9_-]{22}"),
    ("platforms", "okta-ssws", "SS·WS 00[A-Za-z0-9_-]{40}"),
    # keys and signed tokens
    ("keys", "private-key-rsa", "-----BEGIN RSA PRIV·ATE KEY-----\\\\n[A-Za-z0-9+/]{64}"),
    ("keys", "private-key-openssh", "-----BEGIN OPENSSH PRIV·ATE KEY-----\\\\n[A-Za-z0-9+/]{64}"),
    ("keys", "private-key-ec", "-----BEGIN EC PRIV·ATE KEY-----\\\\n[A-Za-z0-9+/]{64}"),
    (
        "keys",
        "pgp-private-key",
        "-----BEGIN PGP PRIV·ATE KEY BLOCK-----\\\\n\\\\nlQ[A-Za-z0-9+/]{64}",
    ),
    ("keys", "jwt", "eyJhbGciOiJIUzI1NiJ9·\\.eyJzdWIiOiI[A-Za-z0-9_-]{20}\\.[A-Za-z0-9_-]{43}"),
    ("keys", "jwt-unsigned", "eyJhbGciOiJub25lIn0·\\.eyJzdWIiOiI[A-Za-z0-9_-]{20}\\."),
)

# (family, rule, names, value shape) — keys with no prefix of their own, written under a name
# that says whose they are (the scanners' semi-generic rules).
NAMED_SHAPES: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("named", "adafruit", ("adafruit",), "[a-z0-9_-]{32}"),
    ("named", "adobe-client-id", ("adobe",), "[a-f0-9]{32}"),
    ("named", "airtable", ("airtable",), "[a-z0-9]{17}"),
    ("named", "algolia", ("algolia",), "[a-z0-9]{32}"),
    ("named", "alibaba-secret", ("alibaba",), "[a-z0-9]{30}"),
    ("named", "asana-client-id", ("asana",), "[0-9]{16}"),
    ("named", "asana-secret", ("asana",), "[a-z0-9]{32}"),
    ("named", "atlassian", ("atlassian", "confluence", "jira"), "[a-z0-9]{20}[a-f0-9]{4}"),
    ("named", "beamer", ("beamer",), "b_[a-z0-9=_-]{44}"),
    ("named", "bitbucket-client-id", ("bitbucket",), "[a-z0-9]{32}"),
    ("named", "bitbucket-secret", ("bitbucket",), "[a-z0-9=_-]{64}"),
    ("named", "bittrex", ("bittrex",), "[a-z0-9]{32}"),
    ("named", "cisco-meraki", ("meraki",), "[0-9a-f]{40}"),
    ("named", "cloudflare-api-key", ("cloudflare",), "[a-z0-9_-]{40}"),
    ("named", "cloudflare-global", ("cloudflare",), "[a-f0-9]{37}"),
    ("named", "codecov", ("codecov",), "[a-z0-9]{32}"),
    ("named", "cohere", ("cohere", "CO_API_KEY"), "[A-Za-z0-9]{40}"),
    ("named", "coinbase", ("coinbase",), "[a-z0-9_-]{64}"),
    ("named", "confluent-access", ("confluent",), "[a-z0-9]{16}"),
    ("named", "confluent-secret", ("confluent",), "[a-z0-9]{64}"),
    ("named", "contentful-delivery", ("contentful",), "[a-z0-9=_-]{43}"),
    ("named", "datadog", ("datadog",), "[a-z0-9]{40}"),
    ("named", "discord-api", ("discord",), "[a-f0-9]{64}"),
    ("named", "discord-client-id", ("discord",), "[0-9]{18}"),
    ("named", "discord-client-secret", ("discord",), "[a-z0-9=_-]{32}"),
    ("named", "droneci", ("droneci",), "[a-z0-9]{32}"),
    ("named", "dropbox-api", ("dropbox",), "[a-z0-9]{15}"),
    ("named", "dropbox-long-lived", ("dropbox",), "[a-z0-9]{11}AAAAAAAAAA[a-z0-9_=-]{43}"),
    ("named", "etsy", ("etsy", "ETSY"), "[a-z0-9]{24}"),
    ("named", "facebook-secret", ("facebook",), "[a-f0-9]{32}"),
    ("named", "fastly", ("fastly",), "[a-z0-9=_-]{32}"),
    ("named", "finicity-token", ("finicity",), "[a-f0-9]{32}"),
    ("named", "finicity-secret", ("finicity",), "[a-z0-9]{20}"),
    ("named", "finnhub", ("finnhub",), "[a-z0-9]{20}"),
    ("named", "flickr", ("flickr",), "[a-z0-9]{32}"),
    ("named", "freshbooks", ("freshbooks",), "[a-z0-9]{64}"),
    ("named", "gitter", ("gitter",), "[a-z0-9_-]{40}"),
    ("named", "gocardless", ("gocardless",), "live_[a-z0-9_=-]{40}"),
    ("named", "heroku", ("heroku", "HEROKU"), _UUID),
    ("named", "hubspot", ("hubspot",), _UUID.upper().replace("A-F", "A-F")),
    ("named", "intercom", ("intercom",), "[a-z0-9=_-]{60}"),
    ("named", "jfrog-api-key", ("jfrog", "artifactory", "bintray", "xray"), "[a-z0-9]{73}"),
    ("named", "jfrog-identity", ("jfrog", "artifactory"), "[a-z0-9]{64}"),
    ("named", "kraken", ("kraken",), "[a-z0-9/=_+-]{86}"),
    ("named", "kucoin-access", ("kucoin",), "[a-f0-9]{24}"),
    ("named", "kucoin-secret", ("kucoin",), _UUID),
    ("named", "launchdarkly", ("launchdarkly",), "[a-z0-9=_-]{40}"),
    ("named", "linear-client-secret", ("linear",), "[a-f0-9]{32}"),
    ("named", "linkedin-client-id", ("linkedin", "linked_in"), "[a-z0-9]{14}"),
    ("named", "linkedin-client-secret", ("linkedin", "linked-in"), "[a-z0-9]{16}"),
    ("named", "lob", ("lob",), "live_[a-f0-9]{35}"),
    ("named", "lob-publishable", ("lob",), "test_pub_[a-f0-9]{31}"),
    ("named", "looker-client-id", ("looker",), "[a-z0-9]{20}"),
    ("named", "looker-secret", ("looker",), "[a-z0-9]{24}"),
    ("named", "mailgun-pub", ("mailgun",), "pubkey-[a-f0-9]{32}"),
    ("named", "mailgun-signing", ("mailgun",), "[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}"),
    ("named", "mapbox", ("mapbox",), "pk\\.[a-z0-9]{60}\\.[a-z0-9]{22}"),
    ("named", "mattermost", ("mattermost",), "[a-z0-9]{26}"),
    ("named", "messagebird", ("messagebird", "message_bird", "message-bird"), "[a-z0-9]{25}"),
    ("named", "messagebird-client-id", ("messagebird",), _UUID),
    ("named", "netlify", ("netlify",), "[a-z0-9=_-]{43}"),
    ("named", "new-relic-user-api-id", ("newrelic", "new_relic", "new-relic"), "[a-z0-9]{64}"),
    ("named", "nytimes", ("nytimes", "newyorktimes"), "[a-z0-9=_-]{32}"),
    ("named", "okta", ("okta", "OKTA"), "00[a-zA-Z0-9_-]{40}"),
    ("named", "plaid-client-id", ("plaid",), "[a-z0-9]{24}"),
    ("named", "plaid-secret", ("plaid",), "[a-z0-9]{30}"),
    ("named", "privateai", ("privateai", "private_ai"), "[a-z0-9]{32}"),
    ("named", "rapidapi", ("rapidapi",), "[a-z0-9_-]{50}"),
    ("named", "sendbird-id", ("sendbird",), _UUID),
    ("named", "sendbird-token", ("sendbird",), "[a-f0-9]{40}"),
    ("named", "sentry-access", ("sentry",), "[a-f0-9]{64}"),
    (
        "named",
        "sidekiq",
        ("BUNDLE_ENTERPRISE__CONTRIBSYS__COM", "BUNDLE_GEMS__CONTRIBSYS__COM"),
        "[a-f0-9]{8}:[a-f0-9]{8}",
    ),
    ("named", "snyk", ("snyk_token", "snyk-api-key", "SNYK_KEY"), _UUID),
    ("named", "sonar", ("sonar_token", "sonar.login", "SONAR_LOGIN"), "[a-z0-9]{40}"),
    ("named", "sourcegraph", ("sourcegraph",), "[a-f0-9]{40}"),
    ("named", "squarespace", ("squarespace",), _UUID),
    ("named", "sumologic-access-id", ("sumo", "SUMO", "Sumo"), "su[a-zA-Z0-9]{12}"),
    ("named", "sumologic-access-token", ("sumo", "SUMO"), "[a-z0-9]{64}"),
    ("named", "telegram", ("telegram",), "[0-9]{9}:A[a-z0-9_-]{34}"),
    ("named", "travisci", ("travis",), "[a-z0-9]{22}"),
    ("named", "trello", ("trello",), "[a-z0-9]{32}"),
    ("named", "twitch", ("twitch",), "[a-z0-9]{30}"),
    ("named", "twitter-access-secret", ("twitter",), "[a-z0-9]{45}"),
    ("named", "twitter-access-token", ("twitter",), "[0-9]{18}-[a-zA-Z0-9]{30}"),
    ("named", "twitter-api-key", ("twitter",), "[a-z0-9]{25}"),
    ("named", "twitter-api-secret", ("twitter",), "[a-z0-9]{50}"),
    ("named", "twitter-bearer", ("twitter",), "AAAAAAAAAAAAAAAAAAAAAA[a-zA-Z0-9%]{90}"),
    ("named", "typeform", ("typeform",), "tfp_[a-z0-9_.=-]{59}"),
    ("named", "yandex-access", ("yandex",), "t1\\.[A-Za-z0-9_-]{20}\\.[A-Za-z0-9_-]{86}"),
    ("named", "yandex-api-key", ("yandex",), "AQVN[A-Za-z0-9_-]{36}"),
    ("named", "yandex-aws", ("yandex",), "YC[a-zA-Z0-9_-]{38}"),
    ("named", "zendesk", ("zendesk",), "[a-z0-9]{40}"),
)

# The scanners' sample syntaxes for a value under a name: {i} the name, {I} it upper-cased,
# {s} the secret. Each has a file kind, used to give another scanner the file name it expects.
NAME_CONTEXTS: tuple[tuple[str, str], ...] = (
    ("ini", '{i}Token="{s}"'),
    ("ini", "{i}Token = {s}"),
    ("json", '{\n    "{i}_token": "{s}"\n}'),
    ("json", '{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}'),
    ("xml", "<{i}Token>\n    {s}\n</{i}Token>"),
    ("xml", "<{i}Token>{s}</{i}Token>"),
    ("yaml", "{i}_token: {s}"),
    ("yaml", "{i}_token: '{s}'"),
    ("cs", 'string {i}Token = "{s}";'),
    ("go", 'var {i}Token string = "{s}"'),
    ("go", '{i}Token := "{s}"'),
    ("go", "{i}Token := `{s}`"),
    ("java", 'String {i}Token = "{s}";'),
    ("kt", 'var {i}Token = "{s}"'),
    ("php", '${i}Token .= "{s}"'),
    ("py", "{i}Token = '{s}'"),
    ("java", 'System.setProperty("{I}_TOKEN", "{s}")'),
    ("conf", '  "{i}Token" => "{s}"'),
    ("mk", '{i}_TOKEN := "{s}"'),
    ("mk", '{i}_TOKEN ::= "{s}"'),
    ("mk", '{i}_TOKEN ?= "{s}"'),
    ("sh", "export {I}_API_KEY={s}"),
    ("env", "{I}_SECRET={s}"),
    ("sh", "my-tool --{i}-token={s} --verbose"),
)

# Syntaxes for a token that carries its own format: a line of code, config, a command or a log.
TOKEN_CONTEXTS: tuple[tuple[str, str], ...] = (
    ("env", "SERVICE_CREDENTIAL={s}"),
    ("sh", "export DEPLOY_VALUE='{s}'"),
    ("json", '{{"name": "deploy", "value": "{s}"}}'),
    ("yaml", "  credential: {s}"),
    ("py", 'client = Client("{s}")'),
    ("go", 'cfg.Key = "{s}"'),
    ("xml", "<value>{s}</value>"),
    ("log", "2026-01-02T03:04:05Z INFO connecting with {s} to upstream"),
    ("sh", 'curl -s -H "Authorization: Bearer {s}" https://api.example.test/v1/me'),
    ("md", "Paste the key (`{s}`) into the settings page."),
)

# (syntax, text template with {s}) for values with no format at all under a secret-named key:
# the generic rules (passwords, tokens, API keys, credentials).
GENERIC_CONTEXTS: tuple[tuple[str, str], ...] = (
    ("ini", "db_password = {s}"),
    ("ini", 'mySecretString="{s}"'),
    ("yaml", "  client_secret: '{s}'"),
    ("json", '{{"access_token": "{s}", "token_type": "bearer"}}'),
    ("json", '{{"user_auth": "{s}"}}'),
    ("py", 'some_api_token_123 = "{s}"'),
    ("py", "todo_secret_do_not_commit = '{s}'"),
    ("go", 'apiKey := "{s}"'),
    ("go", 'var authToken string = "{s}"'),
    ("java", 'private static final String API_SECRET = "{s}";'),
    ("java", 'System.setProperty("APP_TOKEN", "{s}")'),
    ("cs", 'string connectionPassword = "{s}";'),
    ("php", "$dbPassword .= '{s}';"),
    ("rb", "  :api_key => '{s}',"),
    ("mk", 'DEPLOY_TOKEN ::= "{s}"'),
    ("mk", 'REGISTRY_PASSWORD ?= "{s}"'),
    ("xml", "<accessToken>{s}</accessToken>"),
    ("xml", "<clientSecret>\n    {s}\n</clientSecret>"),
    ("xml", '<add key="ClearTextPassword" value="{s}" />'),
    ("sh", "export GITHUB_TOKEN={s}"),
    ("sh", 'export SERVICE_PASSWORD="{s}"'),
    ("env", "APP_SECRET_KEY={s}"),
    ("env", "creds = {s}"),
    ("sh", "deploy --token={s} --region eu-west-1"),
    ("sh", "mysql --password={s} -h db.internal"),
    ("conf", "passwd = {s}"),
    ("tf", '  administrator_login_password = "{s}"'),
)
GENERIC_SHAPES: tuple[tuple[str, str], ...] = (
    ("password", "[A-Za-z0-9!@#%^*_+-]{14}"),
    ("api-key", "[A-Za-z0-9]{32}"),
    ("hex-token", "[a-f0-9]{40}"),
    ("base64-secret", "[A-Za-z0-9+/]{42}=="),
    ("uuid-token", _UUID),
    ("lower-key", "[a-z0-9]{24}"),
)

# Command lines (family "command-line"): (syntax, template, shape).
COMMAND_LINES: tuple[tuple[str, str, str], ...] = (
    ("sh", "curl --cacert ca.crt -u elastic:{s} https://localhost:9200", "[A-Za-z0-9@$!]{12}"),
    ("sh", "curl -s --user 'api:{s}' https://api.mailgun.example/v3/messages", "[A-Za-z0-9!]{14}"),
    ("sh", 'curl -s -v --user "j.smith:{s}" "https://api.example.test/me"', "[A-Za-z0-9@#]{16}"),
    ("sh", "curl --user kevin:'{s}' -iX PATCH -d @body.json", "[A-Za-z0-9]{16}"),
    (
        "sh",
        "curl https://api.example.test/token \\\n  --user c28wlsosanujy2z:{s} --data x=1",
        "[a-z0-9]{15}",
    ),
    ("sh", 'curl -u ":{s}" https://localhost:9200', "[A-Za-z0-9!]{12}"),
    ("sh", "curl -H 'Authorization: Basic {s}' https://api.example.test", "[A-Za-z0-9+/]{40}=="),
    (
        "sh",
        'curl -X POST -H "Authorization: Bearer {s}" -d @a.json https://x.test',
        "[A-Za-z0-9_-]{40}",
    ),
    ("sh", 'curl -H "Authorization: Api-Token {s}" --request PUT https://x.test', "[a-f0-9]{40}"),
    ("sh", 'curl -H "Authorization: Token {s}" https://x.test/api', "[a-f0-9]{40}"),
    ("sh", "curl --header  'Authorization:  {s}'", _UUID),
    ("sh", 'curl -X GET -H "apikey: {s}" -H "Accept: application/json"', _UUID),
    ("sh", 'curl -X POST --header "Api-Token: {s}"', "[A-Za-z0-9]{11}"),
    ("sh", 'curl -XPOST http://localhost:8080/api -H "Token: {s}" -d "content=x"', "[a-f0-9]{16}"),
    ("sh", 'curl https://x.test -H "X-Octopus-ApiKey: {s}"', _UUID),
    ("sh", "wget --header='Authorization: Bearer {s}' https://x.test/file", "[A-Za-z0-9]{36}"),
    ("sh", "docker login -u ci --password {s} registry.example.test", "[A-Za-z0-9]{20}"),
    ("sh", "vault login -method=userpass username=ci password={s}", "[A-Za-z0-9]{18}"),
    ("sh", "tool --api-key {s} run", "[A-Za-z0-9]{32}"),
    ("env", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM={s}", "[a-f0-9]{8}:[a-f0-9]{8}"),
    ("env", 'export BUNDLE_GEMS__CONTRIBSYS__COM = "{s}"', "[a-f0-9]{8}:[a-f0-9]{8}"),
    ("env", "BUNDLE_GEMS__CONTRIBSYS__COM: {s} && echo done", "[a-f0-9]{8}:[a-f0-9]{8}"),
    ("env", "DATABASE_PASSWORD={s}\nHOME=/root\nSHELL=/bin/bash", "[A-Za-z0-9]{20}"),
    ("sh", "git clone https://{s}@github.com/acme/app.git", "deploy:[A-Za-z0-9]{20}"),
    ("sh", "psql postgres://app:{s}@db.internal:5432/app", "[A-Za-z0-9]{18}"),
    ("sh", "redis-cli -u redis://:{s}@cache:6379/0", "[A-Za-z0-9]{24}"),
)

# Ordinary content under each family: must come out unchanged. Credential-shaped parts are built
# at run time (`j`), so no token stands in this file either.
NEAR_MISSES: tuple[tuple[str, str], ...] = (
    # code identifiers that start like a token
    ("ai", "- (id)hf_requiredCharacteristicTypesForDisplayMetadata;"),
    (
        "ai",
        "  M_UINT (ServingCellPriority_t, H_PRIO, 2, &hf_servingcellpriorityparametersdescription_h_prio),",
    ),
    ("ai", "the sk-learn-compatible-estimator-interface is used"),
    ("ai", "pip install scikit-learn  # a.k.a. sk-learn"),
    (
        "ai",
        '  API_ORG_CREATE("https://qyapi.example.test/cgi-bin/department/create?access_token=ACCESS_TOKEN"),',
    ),
    ("source", "see gldt-deploy-token-name-for-ci and glrt-runner-registration-docs-page"),
    ("source", "task_test_runner_configuration_defaults"),
    ("source", "highs_and_lows_of_the_quarter"),
    ("payment", "mask_test_cases_for_the_evaluation_harness"),
    ("payment", "publishableKey: 'pk_live_' + config.suffix"),
    # image URLs and files whose hashes look like keys
    (
        "platforms",
        "http://assets.example.test/assets/media_box/video_box.ico-7a388b69018576d24b59331fd60aab0c.png",
    ),
    ("messaging", "https://indieweb.example/images/3/35/2018-250-xoxo-indieweb-1.jpg"),
    (
        "messaging",
        "https://lh3.example.test/-tWXjX3LUD6w/Ua4La_N5E2I/AAAAAAAAACg/qcm19xbEYa4/s640/EXO-XOXO-teaser-exo-k-34521098-720-516.jpg",
    ),
    ("messaging", "https://github.com/xoxa-nyc/xoxa-nyc.github.io/blob/master/README.md"),
    ("messaging", "XOxE-RROAmw, Home and Garden, 5:24, 20120323"),
    (
        "messaging",
        "https://docs.example.test/document/d/1W7KCxOxP-1Fy5EyF2lbJGE2WuKmu5v0suYqoHas1jRM",
    ),
    (
        "cloud",
        "image: python@sha256:1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809",
    ),
    # Maven coordinates and versions
    ("generic", 'notes            = "Maven - io.jsonwebtoken:jjwt-jackson-0.11.2"'),
    ("generic", "[DEBUG]\t\torg.slf4j.slf4j-api:jar:1.7.8.:compile (version managed from default)"),
    ("generic", "event-bus-message-api:rc0.15.0_20231217_1420-SNAPSHOT'"),
    ("generic", "COMMUNICATION_API_VERSION=rc0.13.0_20230412_0712-SNAPSHOT"),
    (
        "generic",
        "<dependency><groupId>io.jsonwebtoken</groupId><artifactId>jjwt-api</artifactId><version>0.12.5</version></dependency>",
    ),
    # placeholders
    ("generic", "OPENAI_API_KEY=ACCESS_TOKEN"),
    ("generic", "api_key = 'xxxxxxxxxxxxxxxxxxxxxxxx'"),
    ("generic", "password: ########"),
    ("generic", "token: <your-token-here>"),
    ("generic", "SECRET_KEY=${SECRET_KEY}"),
    ("generic", "GITHUB_TOKEN=$(gh auth token)"),
    ("generic", "client_secret: '{{ .Values.clientSecret }}'"),
    ("generic", "aws_secret_access_key = <YOUR_SECRET_ACCESS_KEY>"),
    ("generic", "export STRIPE_KEY=sk_live_****************"),
    ("generic", "DB_PASSWORD=changeme"),
    (
        "messaging",
        '"token4": "xo' + 'xp-572370529330-573807301142-572331691188-####################"',
    ),
    ("messaging", "xo" + "xe.xoxp-1-SlackAppConfigurationAccessTokenHere"),
    ("messaging", "xo" + "xe.xoxp-1-RANDOMSTRINGHERE"),
    ("messaging", "xo" + "xb-xxxxxxxxx-xxxxxxxxxx-xxxxxxxxxxxx"),
    ("messaging", "xo" + "xb-Slack_BOT_TOKEN"),
    ("observability", '   API_KEY="gl' + 'c_111111111111111111111111111111111111111111="'),
    ("observability", "sntry" + "u_" + "a" * 64),
    ("source", "sg" + "p_5555555dAAAAA7777777CcccCFaaaaaaaaaaaaaa"),
    # ids, hashes and names under secret-sounding keys
    ("generic", '"accessor":"rA1wk0Y45YCufyfq",'),
    ("generic", "report_access_id: e8e4df51-2054-49b0-ab1c-516ac95c691d"),
    ("generic", 'accessibilityYesOptionId = "0736f5ef-7e88-499a-80cc-90c85d2a5180"'),
    ("generic", "credentialsId: 'ff083f76-7804-4ef1-80e4-fe975bb9141b'"),
    ("generic", '  "credentialId": "B9mTcFSck2LzJO2S3ols63",'),
    ("generic", 'environment {\n\tCREDENTIALS_ID = "K8S_CRED"\n}'),
    ("generic", "dev.credentials.url=dev-lb1.api.example.test:5215"),
    ("generic", 'clientId = "73082700-1f09-405b-80d0-3131bfd6272d"'),
    ("generic", "X-MS-Exchange-Organization-AuthSource: sm02915.int.contoso.example"),
    ("generic", "Authentication-Results: 5h.ca.iphmx.example"),
    ("generic", "secret_length = X25519.secret_length"),
    ("generic", "secretSize must be >= XXH3_SECRET_SIZE_MIN"),
    ("generic", 'LLM_SECRET_NAME = "NEXUS-GPT4-API-KEY"'),
    ("generic", "  <UserSecretsId>79a3edd0-2092-40a2-a04d-dcb46d5ca9ed</UserSecretsId>"),
    ("generic", "    access_token_url='https://github.com/login/oauth/access_token',"),
    ("generic", '<SourceFile SourceLocation="F:\\Extracts\\" TokenFile="RTL_INST_CODE.cer">'),
    ("generic", "GITHUB_API_KEY=\nDYNATRACE_API_KEY="),
    ("generic", "snowflake.password=\njdbc.snowflake.url="),
    ("generic", "import { chain_Anvil1_Key, chain_Anvil2_Key } from '../consts';"),
    ("generic", 'SRCREV_moby = "43fc912ef59a83054ea7f6706df4d53a7dea4d80"'),
    ("generic", "PuttyPassword=0"),
    (
        "generic",
        "#RUN --mount=type=secret,id=jfrog_secret \\\n#    JFROG_SECRET = $(cat /run/secrets/jfrog_secret)",
    ),
    (
        "generic",
        '  <input type="hidden" name="authenticity_token" value="7SWa-Fo1_hsC6oovfBsJFLGPUl2EhkSWPbJhWANwgaJWBDl1vxd9VNqXTNAefsJq">',
    ),
    ("generic", '{"next_page_token": "CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA0eTM5ZGNzZxAB"}'),
    ("generic", '{"input_tokens": 1234, "output_tokens": 567, "total_tokens": 1801}'),
    ("generic", "max_tokens=4096 MAX_TOKENS=16"),
    ("generic", '"token_type": "Bearer", "expires_in": 3600'),
    ("generic", "PASSWORD_MIN_LENGTH=12 password_min_length=12"),
    ("generic", "secret_key_rotation_days=30 api_key_header_name=X-Api-Key"),
    ("generic", "The password field must contain at least 12 characters."),
    ("generic", "tokenizer_path: /models/tokenizer-v2.json"),
    ("generic", "keyVaultToStoreSecrets: cmp2-qat-1208358310"),
    ("generic", '    "key_name": "prod5zyxlmy-cmk",'),
    ("generic", '    "kms_key_id": "555ea4a3-d53a-4412-9c66-3a7cb667b0d6",'),
    ("generic", "primaryKey=Xq9vTz3LmN8pK2rW5sY7uB1dF4gH6jC"),
    ("generic", "key_down_event=Xq9vTz3LmN8pK2rW5sY7uB1dF4gH6jC"),
    ("generic", "api_key=os.environ['OPENAI_API_KEY2']"),
    ("generic", "client = Client(api_key=settings.OPENAI_KEY)"),
    ("generic", "OPENAI_API_KEY=encrypted:BHd8wXcNq2pLk1ZrYy0uTg== app_key=vault:kv/app#key2"),
    ("generic", '  API_TOKEN: "{{ env "API_TOKEN" }}"'),
    ("generic", 'telegram_api_token = "token:"clm57491:AgencyIdentificationCodeContentType""'),
    ("generic", "auth: true\nauth_type=basic author=Jane2"),
    ("generic", "oauth=enabled2024 authorization: required"),
    # command lines with placeholders
    ("command-line", "curl -i -u 'test:test'"),
    ("command-line", '   curl -sL --user "$1:$2" "$3" > "$4"'),
    ("command-line", "curl -u <user:password> https://test.example/endpoint"),
    ("command-line", "curl --user neo4j:[PASSWORD] http://[IP]:7474/db/data/"),
    ("command-line", 'curl -u "myusername" http://localhost:15130/api/check_user/'),
    ("command-line", "curl -u username:token"),
    ("command-line", 'curl -u "${_username}:${_password}"'),
    ("command-line", 'curl -k -X POST -I -u "SRVC_JENKINS:${APPID}"'),
    ("command-line", 'curl -u ":" https://localhost:9200'),
    ("command-line", 'curl --user "xxx:yyy"'),
    ("command-line", 'curl -XGET -i -u "${{ env.ELK_ID }}:${{ build.env.ELK_PASS }}"'),
    ("command-line", 'curl -X POST --user "$(cat ./login.txt):$(cat ./password.txt)"'),
    ("command-line", "curl http://127.0.0.1:5000/file --user user:pass --digest"),
    ("command-line", '   curl -X GET --insecure --user "username:password" \\'),
    ("command-line", "curl --silent --insecure --user ${f5user}:${f5pass} \\"),
    (
        "command-line",
        'curl https://example.test/micropub -d h=entry -H "Authorization: Bearer XXXXXXXXXXXX"',
    ),
    (
        "command-line",
        'curl -X POST https://accounts.example.test/api/token --header "Authorization: Basic ..."',
    ),
    (
        "command-line",
        'curl \\\n  -H "Authorization: Bearer <Openverse API token>" \\\n  "https://api.example.test/v1/audio/?q=test"',
    ),
    ("command-line", 'curl -v -X POST https://domain/api -H "Authorization: Token **********"'),
    (
        "command-line",
        'curl -XPOST http://localhost:8080/api/token -H "Authorization: basic {base64(email:password[\\n])}"',
    ),
    ("command-line", 'curl -X GET \\\n     -H "apikey: $API_KEY" \\\n     -H "Accept: $FORMAT"'),
    (
        "command-line",
        'curl -X GET -H "Authorization: Bearer $(gcloud auth print-access-token)" https://x.test',
    ),
    ("command-line", "git push -u origin main && docker run -u 1000:1000 app"),
    ("command-line", "docker build --secret id=npmrc,src=.npmrc ."),
    ("command-line", "gh auth login --with-token < token.txt; tool --token-file ~/.token"),
    ("command-line", "llm --max-tokens 4096 --max-token 100"),
    # SQL, .pgpass and DSNs with placeholders (issue 31)
    ("command-line", "ALTER USER app WITH PASSWORD '${DB_PASSWORD}';"),
    ("command-line", "CREATE USER app IDENTIFIED BY '<password>';"),
    ("command-line", "ALTER ROLE app PASSWORD NULL; -- no password login"),
    ("command-line", "Set the password 'when prompted' to continue."),
    ("command-line", "localhost:5432:*:postgres:*"),
    ("command-line", "started 12:30:45:00:1234 elapsed"),
    ("command-line", 'dsn := "user:password@tcp(localhost:3306)/db"'),
    ("command-line", 'dsn := "${DB_USER}:${DB_PASS}@tcp(db:3306)/shop"'),
    ("command-line", "sqlplus / as sysdba && sqlplus -s /nolog"),
    # an .env.example: placeholders only (issue 31)
    ("generic", "ANTHROPIC_API_KEY=<your-api-key>\nOPENAI_API_KEY=${OPENAI_API_KEY}"),
    ("generic", "DB_PASSWORD=changeme\nSECRET_TOKEN=xxxxxxxxxxxxxxxx"),
    ("generic", "SESSION_SECRET=change_this_secret"),
    ("generic", "JWT_SECRET=replace-with-a-long-random-string"),
    ("generic", "API_KEY=your-api-key-here"),
    ("generic", "API_KEY=dummy-api-key"),
    ("generic", "AUTH_TOKEN=my-auth-token"),
    ("generic", "STRIPE_SECRET_KEY=sk_test_..."),
    ("generic", "API_TOKEN=TODO"),
    ("generic", '{"Key": "Name", "Value": "web-server-01"}'),
    ("generic", '{"key": "http.method", "value": {"stringValue": "GET"}}'),
    # phone numbers that reach no person
    ("named", "support line +18005551234 (toll free)"),
    # package names, links and settings next to registry and vendor names
    ("registries", "npm install @anthropic-ai/sdk@0.24.3 openai@4.52.0"),
    ("registries", "ciocontrollerreconcilerdefaultsvone"),
    ("registries", "CLOJARS_URL=https://repo.clojars.org/"),
    ("registries", "pip download pypi-simple==1.2.0 --index-url https://pypi.org/simple"),
    ("registries", "AKCp is the prefix of Artifactory API keys"),
    ("named", "twitter_handle: @acme_corp"),
    ("named", "heroku_app_name = 'acme-staging-2'"),
    ("named", "slack_channel: '#deploys'"),
    ("named", "jira_issue: PROJ-1234"),
    ("named", "sentry_environment: production"),
    ("named", "datadog_site = datadoghq.eu"),
    ("named", "okta_domain: acme.okta.com"),
    ("named", "discord_invite_url = https://discord.gg/abc123"),
    ("named", "jira_base_url: https://acme.atlassian.net/browse/PROJ-1234"),
    ("named", 'cloudflare_zone_name = "example-2024.com"'),
    ("named", 'algoliaIndexName := "products_v2_2024"'),
    ("named", 'twilio_from_number = "+15005550006"'),
    ("named", "<twitterCardType>summary_large_image</twitterCardType>"),
    # hashes, ids and encodings that look random
    ("keys", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD -> main)"),
    ("keys", "md5 d41d8cd98f00b204e9800998ecf8427e sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709"),
    ("keys", '{"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174"}'),
    ("keys", "request_id=550e8400-e29b-41d4-a716-446655440000"),
    ("keys", "version 1.2.3-beta.4+build.5 upgraded to 2.31.0-rc.1"),
    ("keys", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 user@host"),
)

# Secret-shaped values scanners list as non-findings: documentation keys, keys of the wrong
# length, public keys. Failing closed on them is allowed.
DOCUMENTATION_VALUES: tuple[str, ...] = (
    "aws_access_key: AK" + "IAIOSFODNN7EXAMPLE",
    "xo" + "xb-12345-abcd234",
    '"token1": "xo' + 'xp-1234567890"',
    '"token3": "xo' + 'xp-1234-1234-1234-4ddbc191d40ee098cbaae6f3523ada2d"',
    "-----BEGIN PRIV" + "ATE KEY-----\nanything\n-----END PRIVATE KEY-----",
    "DATABRICKS_TOKEN=da" + "pi123456789012345678a9bc01234defg5",
    'publicToken = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"',
    ',apiKey:"6fe4476ee5a1832882e326b506d14126",',
    "SUMO_ACCESS_KEY: AbCeFG123",
    "meraki-api-key: acdeFf05b1a6d4c890237bf08c5e6e8d2b4d0f2e",
    "AI" + "zaSyabcdefghijklmnopqrstuvwxyz1234567",
)


def _shape(shape: str) -> str:
    return shape.replace("·", "")


@cache
def _positives() -> tuple[Case, ...]:
    gen = ShapeText(20261203)
    cases: list[Case] = []
    for family, rule, shape in TOKEN_SHAPES:
        for index, (syntax, template) in enumerate(TOKEN_CONTEXTS):
            secret = gen.make(_shape(shape)).replace("\\n", "\n")
            if "\n" in secret and syntax not in ("json", "yaml", "env", "log"):
                secret = secret.replace("\n", "\\n")
            if index % 2 and rule.startswith(("private-key", "pgp")):
                continue
            cases.append(Case(family, rule, syntax, template.format(s=secret), secret))
    for family, rule, names, shape in NAMED_SHAPES:
        for index, (syntax, template) in enumerate(NAME_CONTEXTS):
            name = names[index % len(names)]
            secret = gen.make(shape)
            text = template.replace("{i}", name).replace("{I}", name.upper()).replace("{s}", secret)
            cases.append(Case(family, rule, syntax, text, secret))
    for rule, shape in GENERIC_SHAPES:
        for syntax, template in GENERIC_CONTEXTS:
            secret = gen.make(shape)
            cases.append(Case("generic", rule, syntax, template.format(s=secret), secret))
    for syntax, template, shape in COMMAND_LINES:
        for _ in range(3):
            secret = gen.make(shape)
            cases.append(
                Case("command-line", "command-line", syntax, template.format(s=secret), secret)
            )
    cases.extend(_adversarial(gen))
    return tuple(cases)


def _adversarial(gen: ShapeText) -> Iterator[Case]:
    """Secrets where a redactor has to look twice: serialized, nested, glued to prose."""

    def add(family: str, rule: str, syntax: str, make: Callable[[str], str], shape: str) -> Case:
        secret = gen.make(shape)
        return Case(family, rule, syntax, make(secret), secret)

    for _ in range(3):
        yield add(
            "generic",
            "json-in-json",
            "json",
            lambda s: json.dumps({"body": json.dumps({"api_key": s})}),
            "[A-Za-z0-9]{32}",
        )
        yield add(
            "generic",
            "escaped-env",
            "json",
            lambda s: json.dumps({"env": f"PATH=/bin\nDB_PASSWORD={s}\n"}),
            "[A-Za-z0-9]{20}",
        )
        yield add(
            "generic",
            "yaml-list",
            "yaml",
            lambda s: f"env:\n  - name: API_TOKEN\n    value: {s}",
            "[A-Za-z0-9]{32}",
        )
        yield add(
            "keys",
            "base64-jwt",
            "log",
            lambda s: (
                "token="
                + base64.b64encode(("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx" + s).encode()).decode()
            ),
            ".[A-Za-z0-9_-]{43}",
        )
        yield add(
            "source",
            "gh-in-url",
            "sh",
            lambda s: f"https://x-access-token:{s}@github.com/acme/app",
            "gh" + "s_[A-Za-z0-9]{36}",
        )
        yield add(
            "ai",
            "key-in-prose",
            "log",
            lambda s: f"The agent printed its key {s} by mistake.",
            "sk" + "-proj-[A-Za-z0-9_-]{48}",
        )
        # Shapes tool output takes (issue 31).
        for rule, syntax, make in (
            ("sql-alter-user", "sql", lambda s: f"ALTER USER app WITH PASSWORD '{s}';"),
            ("sql-identified-by", "sql", lambda s: f"CREATE USER 'app'@'%' IDENTIFIED BY '{s}';"),
            ("sql-set-password", "sql", lambda s: f"SET PASSWORD FOR 'app'@'%' = PASSWORD('{s}');"),
            ("pgpass", "conf", lambda s: f"db.internal:5432:shop:app:{s}"),
            ("go-dsn", "go", lambda s: f'dsn := "app:{s}@tcp(db:3306)/shop?parseTime=true"'),
            ("sqlplus", "sh", lambda s: f"sqlplus scott/{s}@orcl @report.sql"),
        ):
            yield add("command-line", rule, syntax, make, "[A-Za-z0-9]{16}")
        yield add(
            "generic",
            "gzip-env-in-base64",
            "log",
            lambda s: base64.b64encode(gzip.compress(f"A=1\nDB_PASSWORD={s}\n".encode())).decode(),
            "[A-Za-z0-9]{20}",
        )
        yield add(
            "generic",
            "aws-tags-in-text",
            "json",
            lambda s: json.dumps({"Tags": [{"Key": "client_secret", "Value": s}]}),
            "[A-Za-z0-9]{24}",
        )
        yield add(
            "generic",
            "otlp-attribute-in-text",
            "json",
            lambda s: json.dumps([{"key": "db.password", "value": {"stringValue": s}}]),
            "[A-Za-z0-9]{24}",
        )


@cache
def positives() -> tuple[Case, ...]:
    return _positives()


def near_misses() -> tuple[tuple[str, str], ...]:
    return NEAR_MISSES


def documentation_values() -> tuple[str, ...]:
    return DOCUMENTATION_VALUES


FAMILIES: tuple[str, ...] = (
    "cloud",
    "source",
    "registries",
    "payment",
    "messaging",
    "observability",
    "ai",
    "platforms",
    "keys",
    "named",
    "generic",
    "command-line",
)
