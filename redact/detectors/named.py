"""Secrets named by their vendor: a value of the vendor's shape assigned to a name that says whose
it is (`ADAFRUIT_IO_KEY = "…"`, `<twilioAuth>…</twilioAuth>`, `System.setProperty("SUMO_ID", …)`).

Many services issue keys with no prefix of their own: 32 hex characters, a UUID, 40 letters and
digits. Alone such a value is a hash or an id; next to the vendor's name and an assignment it is
the vendor's key. Each detector here pairs the names public scanners key on with the shapes those
vendors issue (the facts the gitleaks rule set publishes), in every assignment syntax real files
use: `=`, `:`, `:=`, `::=`, `?=`, `.=`, `=>`, a comma between call arguments, an XML element.

Linear time: every pattern starts at a vendor name (a literal, so the engine skips ahead), and all
that follows is bounded; the name must start an identifier or a camelCase word, so `global` never
reads as the `lob` of Lob.
"""

from __future__ import annotations

import regex

from redact.detectors.base import Detector
from redact.detectors.vendor_support import Accept, classes, password_value, token_of, vendor

__all__ = ["NAMED_DETECTORS", "named"]

# Where a name may start: not inside a word, unless at a camelCase hump (`myAdafruitKey`).
_NAME_START = r"(?:(?<![A-Za-z0-9])|(?<=[a-z0-9])(?=[A-Z]))"
# After the name: the rest of the identifier, an optional type (`string`, `String`), closing
# quotes or bracket, then one assignment operator of any language, then quotes or, after `>`
# (an XML element), whitespace and line breaks.
_AFTER_NAME = (
    r"[\w.-]{0,24}?(?:[ \t]{1,4}[A-Za-z_][\w.]{0,15})?[\"'\]]{0,2}[ \t]{0,8}"
    r"(?::{1,3}=|[?.+]=|=>|==?|:|,|>)"
    r"(?:(?<=>)\s{0,24}|[ \t\"'`=]{0,6})"
)
# What the prefilter asks for after a name: short names (`lob`, `jira`, `okta`) turn up inside
# base64 and words, an assignment after them rarely does.
_NAME_TAIL = r"[\w.-]{0,24}[ \t\"'`\x{5d}\w.]{0,32}(?::{1,3}=|[?.+]=|=>|=|:|,|>)"
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_END = r"(?![A-Za-z0-9_+/=-])"


def _random_enough(match_value: str) -> bool:
    """A vendor value: digits only (a numeric id) or a mixture of at least two classes."""
    return match_value.isdigit() or classes(match_value) >= 2


def _vendor_value(match: object) -> bool:
    value = token_of(match)  # type: ignore[arg-type]
    return len(set(value)) >= 6 and _random_enough(value)


def named(
    id: str,
    description: str,
    names: str,
    value: str,
    prefilter: str | None = None,
    accept: Accept | None = None,
) -> Detector:
    """A detector for `value` assigned to an identifier that starts with one of `names` (a regex
    alternation, case-insensitive unless it scopes its own case)."""
    pattern = rf"{_NAME_START}(?:{names}){_AFTER_NAME}(?P<v>{value}){_END}"
    return vendor(
        id,
        description,
        pattern,
        prefilter or f"(?i:{names}){_NAME_TAIL}",
        accept or _vendor_value,
        flags=0,
    )


def _bundler_credentials(match: regex.Match[str]) -> bool:
    name = match.group(0)[7:].split("=")[0].split(":")[0]
    if "__" not in name.strip("_"):
        return False
    user, _, password = token_of(match).partition(":")
    return bool(user) and password_value(password) and len(set(password)) >= 4


def _i(words: str) -> str:
    return f"(?i:{words})"


NAMED_DETECTORS: tuple[Detector, ...] = (
    named(
        "adafruit-key",
        "Adafruit IO key under an Adafruit name",
        _i("adafruit"),
        r"[A-Za-z0-9_-]{32}",
    ),
    named(
        "adobe-client-id",
        "Adobe client id or secret under an Adobe name",
        _i("adobe"),
        r"[a-fA-F0-9]{32}|p8e-[A-Za-z0-9]{32}",
    ),
    named(
        "airtable-key",
        "Airtable API key under an Airtable name",
        _i("airtable"),
        r"[A-Za-z0-9]{17}",
    ),
    named(
        "algolia-key", "Algolia API key under an Algolia name", _i("algolia"), r"[A-Za-z0-9]{32}"
    ),
    named(
        "alibaba-secret",
        "Alibaba Cloud AccessKey secret under an Alibaba name",
        _i("alibaba|aliyun"),
        r"[A-Za-z0-9]{30}",
    ),
    named(
        "asana-client",
        "Asana client id or secret under an Asana name",
        _i("asana"),
        r"[0-9]{16}|[A-Za-z0-9]{32}",
    ),
    named(
        "atlassian-named-token",
        "Atlassian, Jira or Confluence API token under such a name",
        r"ATLASSIAN|[Aa]tlassian|CONFLUENCE|[Cc]onfluence|JIRA|[Jj]ira",
        r"[A-Za-z0-9]{20}[A-Fa-f0-9]{4}",
        prefilter=r"(?:ATLASSIAN|[Aa]tlassian|CONFLUENCE|[Cc]onfluence|JIRA|[Jj]ira)" + _NAME_TAIL,
    ),
    named(
        "beamer-token",
        "Beamer API token under a Beamer name",
        _i("beamer"),
        r"b_[A-Za-z0-9=_-]{44}",
    ),
    named(
        "bitbucket-client",
        "Bitbucket OAuth client id or secret under a Bitbucket name",
        _i("bitbucket"),
        r"[A-Za-z0-9]{32}|[A-Za-z0-9=_-]{64}",
    ),
    named(
        "bittrex-key",
        "Bittrex access or secret key under a Bittrex name",
        _i("bittrex"),
        r"[A-Za-z0-9]{32}",
    ),
    named(
        "cisco-meraki-key",
        "Cisco Meraki API key under a Meraki name",
        r"[Mm]eraki|MERAKI",
        r"[0-9a-fA-F]{40}",
        prefilter=r"(?:[Mm]eraki|MERAKI)" + _NAME_TAIL,
    ),
    named(
        "cloudflare-key",
        "Cloudflare API token or global API key under a Cloudflare name",
        _i("cloudflare"),
        r"[A-Za-z0-9_-]{40}|[a-fA-F0-9]{37}",
    ),
    named(
        "codecov-token",
        "Codecov access token under a Codecov name",
        _i("codecov"),
        r"[A-Za-z0-9]{32}",
    ),
    named(
        "cohere-key",
        "Cohere API key under a Cohere name",
        _i("cohere|co_api_key"),
        r"[A-Za-z0-9]{40}",
    ),
    named(
        "coinbase-token",
        "Coinbase access token under a Coinbase name",
        _i("coinbase"),
        r"[A-Za-z0-9_-]{64}",
    ),
    named(
        "confluent-key",
        "Confluent access or secret key under a Confluent name",
        _i("confluent"),
        r"[A-Za-z0-9]{64}|[A-Za-z0-9]{16}",
    ),
    named(
        "contentful-delivery-token",
        "Contentful delivery API token under a Contentful name",
        _i("contentful"),
        r"[A-Za-z0-9=_-]{43}",
    ),
    named(
        "datadog-key",
        "Datadog API or application key under a Datadog name",
        _i("datadog|dd_api|dd_app"),
        r"[A-Za-z0-9]{40}|[a-fA-F0-9]{32}",
    ),
    named(
        "discord-client",
        "Discord API token, client id or client secret under a Discord name",
        _i("discord"),
        r"[a-fA-F0-9]{64}|[0-9]{17,19}|[A-Za-z0-9=_-]{32}",
    ),
    named(
        "droneci-token",
        "Drone CI access token under a Drone name",
        _i("droneci|drone_ci|drone-ci"),
        r"[A-Za-z0-9]{32}",
    ),
    named(
        "dropbox-named-token",
        "Dropbox API token (short-lived, long-lived or legacy) under a Dropbox name",
        _i("dropbox"),
        r"sl\.[A-Za-z0-9_=-]{135,}|[A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_=-]{43}|[A-Za-z0-9]{15}",
    ),
    named(
        "etsy-token",
        "Etsy access token under an Etsy name",
        r"ETSY|[Ee]tsy",
        r"[A-Za-z0-9]{24}",
        prefilter=r"(?:ETSY|[Ee]tsy)" + _NAME_TAIL,
    ),
    named(
        "facebook-secret",
        "Facebook app secret under a Facebook name",
        _i("facebook|fb_app|fb_secret"),
        r"[a-fA-F0-9]{32}",
    ),
    named(
        "fastly-token", "Fastly API token under a Fastly name", _i("fastly"), r"[A-Za-z0-9=_-]{32}"
    ),
    named(
        "finicity-key",
        "Finicity API token or client secret under a Finicity name",
        _i("finicity"),
        r"[a-fA-F0-9]{32}|[A-Za-z0-9]{20}",
    ),
    named(
        "finnhub-token",
        "Finnhub access token under a Finnhub name",
        _i("finnhub"),
        r"[A-Za-z0-9]{20}",
    ),
    named(
        "flickr-token", "Flickr access token under a Flickr name", _i("flickr"), r"[A-Za-z0-9]{32}"
    ),
    named(
        "freshbooks-token",
        "FreshBooks access token under a FreshBooks name",
        _i("freshbooks"),
        r"[A-Za-z0-9]{64}",
    ),
    named(
        "gitter-token",
        "Gitter access token under a Gitter name",
        _i("gitter"),
        r"[A-Za-z0-9_-]{40}",
    ),
    named(
        "gocardless-token",
        "GoCardless API token under a GoCardless name",
        _i("gocardless"),
        r"live_[A-Za-z0-9_=-]{40}",
    ),
    named("heroku-named-key", "Heroku API key (a UUID) under a Heroku name", _i("heroku"), _UUID),
    named("hubspot-key", "HubSpot API key (a UUID) under a HubSpot name", _i("hubspot"), _UUID),
    named(
        "intercom-key",
        "Intercom API key under an Intercom name",
        _i("intercom"),
        r"[A-Za-z0-9=_-]{60}",
    ),
    named(
        "jfrog-named-key",
        "JFrog API key or identity token under a JFrog, Artifactory, Bintray or Xray name",
        _i("jfrog|artifactory|bintray|xray"),
        r"[A-Za-z0-9]{73}|[A-Za-z0-9]{64}",
    ),
    named(
        "kraken-token",
        "Kraken access token under a Kraken name",
        _i("kraken"),
        r"[A-Za-z0-9/=_+-]{80,90}",
    ),
    named(
        "kucoin-key",
        "KuCoin access or secret key under a KuCoin name",
        _i("kucoin"),
        rf"[a-fA-F0-9]{{24}}|{_UUID}",
    ),
    named(
        "launchdarkly-token",
        "LaunchDarkly access token under a LaunchDarkly name",
        _i("launchdarkly|launch_darkly"),
        r"[A-Za-z0-9=_-]{40}",
    ),
    named(
        "linear-client-secret",
        "Linear client secret under a Linear name",
        _i("linear"),
        r"[a-fA-F0-9]{32}",
    ),
    named(
        "linkedin-client",
        "LinkedIn client id or secret under a LinkedIn name",
        _i("linked[_-]?in"),
        r"[A-Za-z0-9]{16}|[A-Za-z0-9]{14}",
    ),
    named(
        "lob-key",
        "Lob API key or publishable key under a Lob name",
        _i("lob"),
        r"(?:live|test)_pub_[a-fA-F0-9]{31}|(?:live|test)_[a-fA-F0-9]{35}",
    ),
    named(
        "looker-client",
        "Looker client id or secret under a Looker name",
        _i("looker"),
        r"[A-Za-z0-9]{24}|[A-Za-z0-9]{20}",
    ),
    named(
        "mailgun-named-key",
        "Mailgun private, public or signing key under a Mailgun name",
        _i("mailgun"),
        r"(?:pub)?key-[a-f0-9]{32}|[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}",
    ),
    named(
        "mapbox-token",
        "Mapbox access token under a Mapbox name",
        _i("mapbox"),
        r"pk\.[A-Za-z0-9]{60}\.[A-Za-z0-9]{22}",
    ),
    named(
        "mattermost-token",
        "Mattermost access token under a Mattermost name",
        _i("mattermost"),
        r"[A-Za-z0-9]{26}",
    ),
    named(
        "messagebird-key",
        "MessageBird API key or client id under a MessageBird name",
        _i("message[_-]?bird"),
        rf"{_UUID}|[A-Za-z0-9]{{25}}",
    ),
    named(
        "netlify-named-token",
        "Netlify access token under a Netlify name",
        _i("netlify"),
        r"[A-Za-z0-9=_-]{40,46}",
    ),
    named(
        "new-relic-named-key",
        "New Relic user API id or key, insert key or browser key under a New Relic name",
        _i("new[_-]?relic"),
        r"NRJS-[a-f0-9]{19}|NRII-[A-Za-z0-9-]{32}|NRAK-[A-Za-z0-9]{27}|[A-Za-z0-9]{64}",
    ),
    named(
        "nytimes-token",
        "New York Times API token under such a name",
        _i("nytimes|new-york-times|newyorktimes"),
        r"[A-Za-z0-9=_-]{32}",
    ),
    named(
        "okta-named-token",
        "Okta API token under an Okta name",
        r"[Oo]kta|OKTA",
        r"00[A-Za-z0-9_=-]{40}",
        prefilter=r"(?:[Oo]kta|OKTA)" + _NAME_TAIL,
    ),
    named(
        "plaid-key",
        "Plaid client id, secret or access token under a Plaid name",
        _i("plaid"),
        rf"access-(?:sandbox|development|production)-{_UUID}|[A-Za-z0-9]{{30}}|[A-Za-z0-9]{{24}}",
    ),
    named(
        "privateai-token",
        "Private AI API token under a Private AI name",
        _i("private[_-]?ai"),
        r"[A-Za-z0-9]{32}",
    ),
    named(
        "rapidapi-key", "RapidAPI key under a RapidAPI name", _i("rapidapi"), r"[A-Za-z0-9_-]{50}"
    ),
    named(
        "sendbird-token",
        "Sendbird access id or token under a Sendbird name",
        _i("sendbird"),
        rf"{_UUID}|[a-fA-F0-9]{{40}}",
    ),
    named(
        "sentry-named-token",
        "Sentry access token under a Sentry name",
        _i("sentry"),
        r"[a-fA-F0-9]{64}",
    ),
    named(
        "snyk-token",
        "Snyk API or OAuth token (a UUID) under a Snyk key or token name",
        _i(r"snyk[_.-]?(?:(?:api|oauth)[_.-]?)?(?:key|token)"),
        _UUID,
        prefilter=r"(?i:snyk)" + _NAME_TAIL,
    ),
    named(
        "sonar-named-token",
        "SonarQube / SonarCloud token under a sonar login or token name",
        _i(r"sonar[_.-]?(?:login|token)"),
        r"(?:squ_|sqp_|sqa_)?[A-Za-z0-9=_-]{40}",
        prefilter=r"(?i:sonar)" + _NAME_TAIL,
    ),
    named(
        "sourcegraph-named-token",
        "Sourcegraph access token under a Sourcegraph name",
        _i("sourcegraph"),
        r"[a-fA-F0-9]{40}",
    ),
    named(
        "squarespace-token",
        "Squarespace access token (a UUID) under a Squarespace name",
        _i("squarespace"),
        _UUID,
    ),
    named(
        "sumologic-key",
        "Sumo Logic access id or key under a Sumo name",
        r"[Ss]umo|SUMO",
        r"su[A-Za-z0-9]{12}|[A-Za-z0-9]{64}",
        prefilter=r"(?:[Ss]umo|SUMO)" + _NAME_TAIL,
    ),
    named(
        "telegram-named-token",
        "Telegram bot token under a Telegram name",
        _i("telegr"),
        r"[0-9]{5,16}:A[A-Za-z0-9_-]{34}",
    ),
    named(
        "travisci-token",
        "Travis CI access token under a Travis name",
        _i("travis"),
        r"[A-Za-z0-9]{22}",
    ),
    named(
        "trello-token",
        "Trello API token or key under a Trello name",
        _i("trello"),
        r"[A-Za-z0-9]{64}|[A-Za-z0-9]{32}",
    ),
    named("twitch-token", "Twitch API token under a Twitch name", _i("twitch"), r"[A-Za-z0-9]{30}"),
    named(
        "twitter-named-key",
        "X / Twitter API key or secret, access token or secret, or bearer token under a Twitter name",
        _i("twitter"),
        r"A{22}[A-Za-z0-9%]{80,100}|[0-9]{15,25}-[A-Za-z0-9]{20,40}|[A-Za-z0-9]{50}|[A-Za-z0-9]{45}|[A-Za-z0-9]{25}",
    ),
    named(
        "typeform-named-token",
        "Typeform API token under a Typeform name",
        _i("typeform"),
        r"tfp_[A-Za-z0-9_.=-]{59}",
    ),
    named(
        "yandex-key",
        "Yandex Cloud API key, IAM token or access key under a Yandex name",
        _i("yandex"),
        r"t1\.[A-Za-z0-9_-]{1,200}={0,2}\.[A-Za-z0-9_-]{86}={0,2}|AQVN[A-Za-z0-9_-]{35,38}|YC[A-Za-z0-9_-]{38}",
    ),
    named(
        "zendesk-key", "Zendesk secret key under a Zendesk name", _i("zendesk"), r"[A-Za-z0-9]{40}"
    ),
    named(
        "bundler-credentials",
        "Bundler per-host credentials (BUNDLE_GEMS__CONTRIBSYS__COM=user:password; Sidekiq Pro)",
        # The host part is taken whole (possessive: a hostile run of name characters is read
        # once); the validator checks it holds the `__` that stands for a dot.
        r"BUNDLE_[A-Za-z0-9_]{3,160}+",
        r"[^\s\"':;&`<]{1,100}:[^\s\"';&`<]{1,100}",
        prefilter=r"BUNDLE_[A-Za-z0-9_]*__[A-Za-z0-9_]",
        accept=_bundler_credentials,
    ),
)
