"""The 24 credential shapes of the reference core (spec §B5.1), in its order, with the Part A4 fixes.

Every precise pattern runs in linear time on hostile text. Three habits make that so:

- no nested quantifiers, and adjacent repeats never share characters (`[ws]*(?:["'][ws]*)?`,
  never `[ws]*["']?[ws]*`);
- a pattern whose start sits inside a run of its own characters (`eyJ…` inside base64, a URL
  scheme, an e-mail local part) may start only at the first possible place in that run: `regex`
  would otherwise retry every later place and rescan the same run each time (quadratic). The first
  place is found with a run-start lookbehind and an atomic scan, then `\\K` starts the match there,
  so spans stay exact. Later places in the run could only produce the same failure;
- validators that reject a whole run (digit-and-letter rules) live in `accept`, so a rejected
  match is skipped whole instead of being retried from each of its characters.

Deliberate departures from the reference, each a Part A decision:

- A4: a bare `PASSWORD=`, `TOKEN=`, `API_KEY=` is an env-secret-assignment; `redis://:pw@host`
  (empty user) is url-credentials; `Authorization: Basic|Digest|ApiKey …` inside a longer line is
  an authorization-header.
- A5 (false positives cost trust): `sk-`, `sk_live_`, `ghp_`… glued to the end of a word
  (`task-specific-…`, `mask_test_cases…`, `highs_and_lows…`) are not keys. The guard lets an
  escape sequence (`%3D`, `\\n`, `\\u003d`) stand before the key, since serialized text does that.
"""

from __future__ import annotations

from collections.abc import Callable

import regex

from redact.detectors.base import Detector
from redact.detectors.vendor_support import ends_a_file_name, placeholder_value, reads_as_words
from redact.strings import without_markers

__all__ = ["REFERENCE_DETECTORS", "WHITESPACE", "WHITESPACE_RE2"]

# The JavaScript `\s` set, as the body of a character class: the reference is TypeScript, and with
# ASCII semantics `\s` would miss the Unicode spaces JavaScript counts (and add none it lacks).
WHITESPACE = r"\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
# The same set in RE2 syntax (a bytes prefilter is read as UTF-8, so these are characters).
WHITESPACE_RE2 = r"\t\n\x0b\x0c\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}"

_WS = f"[{WHITESPACE}]"
_WS2 = f"[{WHITESPACE_RE2}]"
_FLAGS = regex.ASCII | regex.VERSION0
_I = _FLAGS | regex.IGNORECASE

# What may stand right before a key that has no boundary of its own: not a letter or digit (the
# key would be the tail of a word), unless that letter ends an escape of serialized text.
_ESCAPED = r"(?<=%[0-9A-Fa-f]{2})|(?<=\\[nrtbfv])|(?<=\\u[0-9A-Fa-f]{4})"
_NOT_IN_WORD = rf"(?:(?<![A-Za-z0-9])|{_ESCAPED})"
_NOT_IN_KEBAB_WORD = rf"(?:(?<![A-Za-z0-9-])|{_ESCAPED})"

# Keywords of secret-assignment (§B5.1 15).
_ASSIGNMENT_KEYWORDS = (
    r"api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key"
    r"|secret|token|password|passwd|passphrase|credentials?"
)
# Keywords of json-secret (§B5.1 16): bare `token` is out (logprob output is full of it).
_JSON_KEYWORDS = (
    r"api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret"
    r"|secret|password|passwd|passphrase|credentials?"
    r"|(?:access|refresh|id|auth|session|bearer|api|github|gh|slack|npm)[_-]?token"
)
_ENV_KEYWORDS = r"PASSWORD|PASSWD|SECRET|PASSPHRASE|APIKEY|API_KEY|TOKEN|CREDENTIALS?"
# The value of an assignment: a maximal run of these (§B5.1 15, 17).
_VALUE_CHAR = rf"[^{WHITESPACE}\"'`,;&|]"


def _digit_and_letter(value: str) -> bool:
    return any(c in "0123456789" for c in value) and any(
        ("a" <= c <= "z") or ("A" <= c <= "Z") for c in value
    )


def _looks_like_a_credential(match: regex.Match[str]) -> bool:
    # The whole-string form is the reference's and is kept as is. Inside a line the keyword
    # `authorization` is required, and a token that reads as a word ("Basic authentication") is
    # prose: real Basic/Digest/ApiKey values carry digits, symbols or inner capitals.
    token = match.group("inline")
    if token is None:
        return True
    return not (token[:1].isalpha() and token[1:].isalpha() and token[1:].islower())


# A5 (placeholders): documentation and templates write `ghp_XXXX…`, `sk-your-key-here`,
# `sk_test_0000…` where a key goes. Real keys are random, so each mark below costs a real key of
# a few hundred characters well under a one-in-a-hundred-thousand chance: a run of 8 equal
# characters, at most 3 distinct characters, a long placeholder word, `your` or `xxx` standing as
# a word of its own, or a body of lower-case words only. (A 3- or 4-letter mark anywhere in a
# long key would not be rare enough: `your` turns up in about one 160-character key in 6,000.)
_PLACEHOLDER_WORDS = ("placeholder", "redacted", "...", "\u2026", "***")
_PLACEHOLDER_WORD = regex.compile(
    r"(?:\A|[^A-Za-z0-9])(?:your|x{3,})(?:[^A-Za-z0-9]|\Z)|\Ayour", regex.IGNORECASE | regex.ASCII
)
_RUN_OF_EIGHT = regex.compile(r"(.)\1{7}", regex.DOTALL)


def _has_placeholder_mark(value: str) -> bool:
    lowered = value.lower()
    return (
        any(word in lowered for word in _PLACEHOLDER_WORDS)
        or _PLACEHOLDER_WORD.search(value) is not None
        or _RUN_OF_EIGHT.search(value) is not None
    )


def _is_placeholder(body: str) -> bool:
    if len(set(body)) <= 3 or _has_placeholder_mark(body):
        return True
    # `…-1-SlackAppConfigurationAccessTokenHere`, `RANDOMSTRINGHERE`: a description of a token.
    if body[-4:].lower() == "here":
        return True
    # `sk-learn-compatible-estimator`: words joined by separators, no digit, no capital.
    if not any(c.isdigit() or c.isupper() for c in body) and any(c in "-_." for c in body):
        return True
    return reads_as_words(body)


# What a document writes right after a token's visible part to stand for the rest of it.
_FILLED_TAIL = ("###", "***", "...", "\u2026", "xxx", "XXX")


def _random_body(match: regex.Match[str]) -> bool:
    if match.string.startswith(_FILLED_TAIL, match.end()) or ends_a_file_name(match):
        return False
    return not _is_placeholder(match.group("body"))


# Placeholders in an assignment's value (`HF_TOKEN=hf_xxx`, `API_KEY=YOUR_API_KEY`): the value may
# be a short human password, so only marks no password generator writes are refused.
_UPPER_SNAKE_NAME = regex.compile(r"[A-Z]+(?:_[A-Z]+)+", regex.ASCII)


def _is_placeholder_value(value: str) -> bool:
    if _has_placeholder_mark(value):
        return True
    if placeholder_value(value):
        return True
    # A value encrypted in place by SOPS (`ENC[AES256_GCM,data:…]`) is no secret to share.
    if value.startswith("ENC["):
        return True
    # A version or a Maven coordinate (`io.jsonwebtoken:jjwt-jackson-0.11.2`) is not a secret.
    if _VERSIONED.search(value):
        return True
    # `YOUR_API_KEY`, `REPLACE_ME`: the name of a variable, not its value.
    return _UPPER_SNAKE_NAME.fullmatch(value) is not None


_VERSIONED = regex.compile(r"(?:\A|[:=_-])v?\d+(?:\.\d+)+(?:[._-][A-Za-z0-9]+)*\Z", regex.ASCII)
_LETTER_RUN = regex.compile(r"[A-Za-z]{20,}", regex.ASCII)


def _real_value(match: regex.Match[str]) -> bool:
    return not _is_placeholder_value(match.group("value"))


# Keys ending in a token word that hold no credential: pagination cursors, tokenizer specials.
_NOT_CREDENTIAL_BEFORE = regex.compile(
    r"(?:page|next|prev|continuation|cursor|sync|bos|eos|pad|unk|sep|cls|mask|stop)[_.-]?\Z",
    regex.IGNORECASE | regex.ASCII,
)


_SECRET_ASSIGNMENT_MIN = 12  # characters of a value assigned to a secret-named key


def _real_mixed_value(match: regex.Match[str]) -> bool:
    # Letters and digits, but a long run of words (`clm57491:AgencyIdentificationCodeContent…`)
    # is code: a password of words has no reason to carry an id in front of it.
    value = match.group("value")
    # A redactor's marker is no secret (`password==[ID:134f560acee5]`: the pseudonym of an
    # address in a key); what stands beside one is judged as if it stood alone.
    alone = without_markers(value)
    if len(alone) < _SECRET_ASSIGNMENT_MIN or not _digit_and_letter(alone):
        return False
    if any(reads_as_words(run) for run in _LETTER_RUN.findall(value)):
        return False
    start = match.start()
    if _NOT_CREDENTIAL_BEFORE.search(match.string, max(0, start - 20), start):
        return False
    return _real_value(match)


def _real_password(match: regex.Match[str]) -> bool:
    # `user:<password>@`, `user:${DB_PASSWORD}@`: a template, not a password.
    value = match.group("value")
    if value.startswith(("<", "${", "{{", "%(")) or _has_placeholder_mark(value):
        return False
    return not placeholder_value(value)


def _bearer_token(match: regex.Match[str]) -> bool:
    # "Bearer authentication" is prose: a real token is not one lower-case word.
    token = match.group("token")
    if token.isalpha() and token[1:].islower():
        return False
    return not _is_placeholder(token)


def _credential(
    id: str,
    description: str,
    pattern: str,
    prefilter: str,
    *,
    ignore_case: bool = False,
    accept: Callable[[regex.Match[str]], bool] | None = None,
) -> Detector:
    return Detector(
        id=id,
        description=description,
        category="credential",
        source=pattern,
        flags=_I if ignore_case else _FLAGS,
        prefilter=prefilter,
        accept=accept,
    )


REFERENCE_DETECTORS: tuple[Detector, ...] = (
    _credential(
        "private-key",
        "The BEGIN line of a PEM private key (RSA, EC, DSA, OPENSSH, ENCRYPTED; not PGP).",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----",
    ),
    _credential(
        "jwt",
        "A signed JSON Web Token: three base64url segments, the first starting eyJ.",
        # Only the first `eyJ` of a base64url run may start: a later one has a shorter first
        # segment and the same rest, so it fails whenever the first does. The pattern opens
        # with that `eyJ` and looks back for the run's start, so that the engine searches for
        # the literal (30x faster on tool results than scanning every run from its start).
        r"eyJ(?<=(?<![A-Za-z0-9_-])(?:(?!eyJ)[A-Za-z0-9_-])*+eyJ)"
        r"[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8}",
    ),
    _credential(
        "bearer",
        "A bearer token after the word Bearer (not a ${TOKEN} template or prose).",
        rf"\bbearer{_WS}+(?P<token>[A-Za-z0-9._~+/=-]{{12,}})",
        rf"(?i)\bbearer{_WS2}+[A-Za-z0-9._~+/=-]{{12}}",
        ignore_case=True,
        accept=_bearer_token,
    ),
    _credential(
        "authorization-header",
        "Basic, Digest or ApiKey credentials: a whole header value, or after Authorization in a line.",
        rf"\A{_WS}*(?:basic|digest|apikey){_WS}+[A-Za-z0-9._~+/=:-]{{8,}}{_WS}*\Z"
        rf"|\bauthorization{_WS}*(?:[\"']{_WS}*)?[:=]{_WS}*(?:[\"']{_WS}*)?"
        rf"(?:basic|digest|apikey){_WS}+(?P<inline>[A-Za-z0-9._~+/=:-]{{8,}})",
        rf"(?i)(?:basic|digest|apikey){_WS2}+[A-Za-z0-9._~+/=:-]{{8}}",
        ignore_case=True,
        accept=_looks_like_a_credential,
    ),
    _credential(
        "anthropic-key",
        "An Anthropic API key (sk-ant-…).",
        rf"{_NOT_IN_KEBAB_WORD}sk-ant-(?P<body>[A-Za-z0-9_-]{{16,}})",
        r"sk-ant-[A-Za-z0-9_-]{16}",
        accept=_random_body,
    ),
    _credential(
        "provider-key",
        "An OpenAI-style provider key: sk-, optionally proj- or tan-, then 16+ key characters.",
        # `sk-(?:proj-|tan-)?[…]{16,}` in the reference; the optional part is inside the class.
        rf"{_NOT_IN_KEBAB_WORD}sk-(?P<body>[A-Za-z0-9_-]{{16,}})",
        r"sk-[A-Za-z0-9_-]{16}",
        accept=_random_body,
    ),
    _credential(
        "stripe-key",
        "A Stripe secret or restricted key (sk_/rk_ live or test; publishable pk_ keys are not secret).",
        rf"{_NOT_IN_WORD}[sr]k_(?:live|test)_(?P<body>[A-Za-z0-9_]{{10,}})",
        r"[sr]k_(?:live|test)_[A-Za-z0-9_]{10}",
        accept=_random_body,
    ),
    _credential(
        "google-api-key",
        "A Google API key (AIza…).",
        r"AIza(?P<body>[0-9A-Za-z_-]{20,})",
        r"AIza[0-9A-Za-z_-]{20}",
        accept=_random_body,
    ),
    _credential(
        "github-token",
        "A GitHub token (ghp_, gho_, ghu_, ghs_, ghr_) or fine-grained PAT (github_pat_).",
        rf"{_NOT_IN_WORD}(?:gh[pousr]_|github_pat_)(?P<body>[A-Za-z0-9_]{{20,}})",
        r"(?:gh[pousr]|github_pat)_[A-Za-z0-9_]{20}",
        accept=_random_body,
    ),
    _credential(
        "slack-token",
        "A Slack token (xoxa-, xoxb-, xoxe-, xoxo-, xoxp-, xoxr-, xoxs-).",
        r"xox[abeoprs]-(?P<body>[A-Za-z0-9-]{10,})",
        r"xox[abeoprs]-[A-Za-z0-9-]{10}",
        accept=_random_body,
    ),
    _credential(
        "aws-access-key",
        "An AWS access key id (AKIA/ASIA and exactly 16 more characters).",
        r"(?:AKIA|ASIA)(?P<body>[A-Z0-9]{16})\b",
        r"A[KS]IA[A-Z0-9]{16}",
        accept=_random_body,
    ),
    _credential(
        "tangle-capability",
        "A Tangle capability token (hubcap_ or hct_).",
        r"(?:hubcap_|hct_)[A-Za-z0-9_=-]{8,}",
        r"(?:hubcap|hct)_[A-Za-z0-9_=-]{8}",
    ),
    _credential(
        "url-credentials",
        "A password inside a URL (scheme://user:password@, the user may be empty).",
        # The scheme starts at the first letter of its run that follows a non-word character.
        r"(?<![a-z0-9+.-])(?>[a-z0-9+.-]*?(?<![a-z0-9_])(?=[a-z]))\K"
        rf"[a-z][a-z0-9+.-]*://[^{WHITESPACE}/:@]*:(?P<value>[^{WHITESPACE}/@]+)@",
        r"://[^\t\n\x0b\x0c\r /:@]*:[^\t\n\x0b\x0c\r /@]+@",
        ignore_case=True,
        accept=_real_password,
    ),
    _credential(
        "url-secret-param",
        "A secret in a URL query parameter (access_token=, api_key=, sig=, X-Amz-Signature=…).",
        r"[?&](?:access_token|api_key|apikey|auth|token|secret|password|sig|signature"
        rf"|x-amz-signature|x-goog-signature)=(?P<value>[^&{WHITESPACE}\"'#)]{{8,}})",
        r"(?i)[?&](?:access_token|api_key|apikey|auth|token|secret|password|sig|signature"
        r"|x-amz-signature|x-goog-signature)=[^&\t\n\x0b\x0c\r \"'#)]{8}",
        ignore_case=True,
        accept=_real_value,
    ),
    _credential(
        "secret-assignment",
        "A secret-named key assigned a 12+ character value with digits and letters (GH_TOKEN=…).",
        rf"(?:{_ASSIGNMENT_KEYWORDS})[\"']?[ \t]*[:=][ \t]*[\"']?"
        rf"(?!encrypted:)(?![$`<\[{{(%])(?P<value>{_VALUE_CHAR}{{{_SECRET_ASSIGNMENT_MIN},}})",
        # The value's shape is in the prefilter too: prose says "token: …" far more often than
        # it assigns one, and the precise pattern (no left anchor) is the costly part.
        rf"(?i)(?:{_ASSIGNMENT_KEYWORDS})[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"[^\t\n\v\f\r \"'`,;&|$<\[{(%][^\t\n\v\f\r \"'`,;&|]{11,}",
        ignore_case=True,
        accept=_real_mixed_value,
    ),
    _credential(
        "json-secret",
        "A quoted secret-named field with a quoted value in JSON, YAML or a log line.",
        # The value's run (up to the next quote or line end) holding two spaces reads as prose.
        rf"[\"'][A-Za-z0-9_.-]{{0,40}}?(?:{_JSON_KEYWORDS})[\"'][ \t]*:[ \t]*[\"']"
        r"(?!\[REDACTED)(?![$*{<])(?![^\"'\r\n ]* [^\"'\r\n ]* )(?P<value>[^\"'\r\n]{3,})[\"']",
        rf"(?i)(?:{_JSON_KEYWORDS})[\"'][ \t]*:[ \t]*[\"']",
        ignore_case=True,
        accept=_real_value,
    ),
    _credential(
        "env-secret-assignment",
        "An upper-case environment variable named like a secret, assigned an unquoted value.",
        # A4: the name may be the keyword alone (`PASSWORD=`); the reference needed one more
        # character in front. The keyword must touch `=`, so MAX_TOKENS=16 stays.
        rf"\b(?=[A-Z])[A-Z0-9_]*?(?:{_ENV_KEYWORDS})[ \t]*=[ \t]*"
        rf"(?!encrypted:)(?![$<*{{%])(?P<value>{_VALUE_CHAR}{{4,}})",
        rf"(?:{_ENV_KEYWORDS})[ \t]*=",
        accept=_real_value,
    ),
    _credential(
        "huggingface-token",
        "A Hugging Face access token (hf_…).",
        r"\bhf_(?P<body>[A-Za-z0-9]{20,})",
        r"hf_[A-Za-z0-9]{20}",
        accept=_random_body,
    ),
    _credential(
        "npm-token",
        "An npm access token (npm_…).",
        r"\bnpm_(?P<body>[A-Za-z0-9]{20,})",
        r"npm_[A-Za-z0-9]{20}",
        accept=_random_body,
    ),
    _credential(
        "gitlab-token",
        "A GitLab personal access token (glpat-…).",
        r"\bglpat-(?P<body>[A-Za-z0-9_-]{16,})",
        r"glpat-[A-Za-z0-9_-]{16}",
        accept=_random_body,
    ),
    _credential(
        "groq-key",
        "A Groq API key (gsk_…).",
        r"\bgsk_(?P<body>[A-Za-z0-9]{20,})",
        r"gsk_[A-Za-z0-9]{20}",
        accept=_random_body,
    ),
    _credential(
        "xai-key",
        "An xAI API key (xai-…).",
        r"\bxai-(?P<body>[A-Za-z0-9]{16,})",
        r"xai-[A-Za-z0-9]{16}",
        accept=_random_body,
    ),
    _credential(
        "bare-sk-key",
        "A bare sk_ key of 32+ letters and digits ending at a word boundary.",
        r"\bsk_(?P<body>[A-Za-z0-9]{32,})\b",
        r"sk_[A-Za-z0-9]{32}",
        accept=_random_body,
    ),
    _credential(
        "cookie-header",
        "A Cookie or Set-Cookie header carrying a name=value of 3+ characters.",
        rf"\bcookie{_WS}*:{_WS}*[A-Za-z0-9_-]+=[^;\r\n]{{3,}}",
        rf"(?i)cookie{_WS2}*:",
        ignore_case=True,
    ),
)
