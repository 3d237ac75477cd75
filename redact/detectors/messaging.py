"""Messaging, chat and e-mail services: bot tokens, webhook URLs, API keys."""

from __future__ import annotations

from redact.detectors.base import Detector
from redact.detectors.vendor_support import classes, mixed, snowflake_id, varied, vendor

__all__ = ["MESSAGING_DETECTORS"]

MESSAGING_DETECTORS: tuple[Detector, ...] = (
    vendor(
        "slack-app-token",
        "Slack app-level token (xapp-)",
        r"\bxapp-\d-[A-Za-z0-9-]{20,}",
        r"xapp-",
    ),
    vendor(
        "slack-client-token",
        "Slack browser session token or d cookie (xoxc-, xoxd-)",
        r"\bxox[cd]-[A-Za-z0-9%-]{20,}",
        r"xox[cd]-",
    ),
    vendor(
        "slack-webhook-url",
        "Slack incoming webhook or workflow trigger URL",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9+/_-]{30,})",
        r"hooks\.slack\.com/",
        varied(10),
    ),
    vendor(
        "discord-webhook-url",
        "Discord webhook URL",
        r"\bdiscord(?:app)?\.com/api/webhooks/\d{17,20}/[A-Za-z0-9_-]{60,70}",
        r"discord(?:app)?\.com/api/webhooks/",
    ),
    vendor(
        "discord-bot-token",
        "Discord bot token (base64 user id, timestamp, HMAC)",
        r"(?<![A-Za-z0-9_.-])(?P<id>[MNO][DTjz][A-Za-z0-9_-]{22,26})\.[A-Za-z0-9_-]{6}\."
        r"(?P<t>[A-Za-z0-9_-]{27,40})(?![A-Za-z0-9_.-])",
        r"[MNO][DTjz][A-Za-z0-9_-]{22,26}\.[A-Za-z0-9_-]{6}\.",
        snowflake_id,
    ),
    vendor(
        "telegram-bot-token",
        "Telegram bot token (bot id, colon, 35-character secret)",
        r"(?<![0-9])\d{8,10}:(?P<v>A[A-Za-z0-9_-]{34})(?![A-Za-z0-9_-])",
        r"\d:A",
        mixed(3),
    ),
    vendor(
        "teams-webhook-url",
        "Microsoft Teams incoming webhook URL",
        r"\.webhook\.office\.com/webhookb2/[0-9a-z-]{36}@[0-9a-z-]{36}/IncomingWebhook/"
        r"[A-Za-z0-9]{32}/",
        r"webhook\.office\.com/webhookb2/",
    ),
    vendor(
        "twilio-credentials",
        "Twilio SID with its secret, or a key under a Twilio name",
        r"\b(?:AC|SK)[0-9a-f]{32}:[A-Za-z0-9]{32}\b"
        r"|(?i:twilio)[A-Za-z0-9_.-]{0,30}[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?:SK[0-9a-fA-F]{32}|[0-9a-f]{32})\b",
        r"(?i:twilio)|(?:AC|SK)[0-9a-f]{32}:",
    ),
    vendor(
        "sendgrid-api-key",
        "SendGrid API key (SG.)",
        r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b"
        r"|\bSG\.(?P<v>[A-Za-z0-9=_.-]{66})(?![A-Za-z0-9=_.-])",
        r"SG\.",
        lambda m: m.group("v") is None or classes(m.group("v")) >= 2,
    ),
    vendor(
        "mailgun-api-key",
        "Mailgun private API key (key- or 32-8-8 hex)",
        r"\bkey-(?P<v>[0-9a-f]{32})\b|\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b",
        r"key-[0-9a-f]{8}|[0-9a-f]{32}-[0-9a-f]{8}-",
        mixed(2),
    ),
    vendor(
        "mailchimp-api-key",
        "Mailchimp API key (32 hex and a -us datacenter)",
        r"\b[0-9a-f]{32}-us\d{1,2}\b",
        r"-us\d",
    ),
    vendor(
        "brevo-api-key",
        "Brevo (Sendinblue) API or SMTP key",
        r"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b",
        r"x(?:keysib|smtpsib)-",
    ),
    vendor(
        "resend-api-key",
        "Resend API key (re_)",
        r"\bre_(?P<v>[A-Za-z0-9]{8}_[A-Za-z0-9]{24})\b",
        r"re_[A-Za-z0-9]{8}_",
        mixed(3),
    ),
    vendor(
        "firebase-fcm-server-key",
        "Firebase Cloud Messaging legacy server key",
        r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}",
        r":APA91b",
    ),
    vendor(
        "twilio-api-key",
        "Twilio API key SID (SK and 32 hex)",
        r"(?<![A-Za-z0-9])SK(?P<v>[0-9a-fA-F]{32})(?![A-Za-z0-9])",
        r"SK[0-9a-fA-F]{32}",
        mixed(2),
    ),
    vendor(
        "slack-legacy-token",
        "Slack legacy workspace, refresh or user token (xoxa-, xoxr-, xoxo-, xoxs-)",
        # The reference slack-token refuses a body with a run of eight equal characters; Slack's
        # own documented legacy tokens have such runs of digits, so they are judged here apart.
        r"(?<![A-Za-z0-9])xox[aors]-(?P<v>(?:\d{1,2}-)?[0-9A-Za-z]{8,48}(?:-[0-9A-Za-z]{1,64}){0,4})"
        r"(?![0-9A-Za-z-])",
        r"xox[aors]-",
        mixed(2),
    ),
    vendor(
        "facebook-app-token",
        "Facebook app access token (app id, | or %7C, app secret)",
        r"(?<![0-9])\d{15,16}(?:\||%7[Cc])(?P<v>[0-9A-Za-z_-]{27,40})(?![0-9A-Za-z_-])",
        r"[0-9]{15}(?:\||%7[Cc])",
        mixed(2),
    ),
)
