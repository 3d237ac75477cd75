"""The four personal-data shapes of the reference core (spec §B5.2), with the Part A4 e-mail fix.

Personal data is replaced in place, so spans matter here: every pattern starts exactly where the
reference's would, and only at the first possible place of a run (see `reference.py` on why).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from decimal import Decimal

import regex

from redact.detectors.base import Detector
from redact.detectors.reference import WHITESPACE, WHITESPACE_RE2

__all__ = ["OPT_IN_DETECTORS", "PERSONAL_DETECTORS", "is_card_number"]

_FLAGS = regex.ASCII | regex.VERSION0

# --- e-mail -------------------------------------------------------------------------------------
#
# The reference rejected every address whose TLD is also a file extension, so it missed real
# addresses in Moldova (.md), Paraguay (.py), Serbia (.rs) and Saint Helena (.sh). The rule here:
#
# 1. `git@…` is an SSH remote, never an address.
# 2. A TLD that is a file extension or systemd unit type and *not* a real TLD (png, json, ts,
#    service…) is a file name: `icon@2x.png`, `worker@3.service`, `foo@bar.json`, `a@b.ts`.
# 3. A TLD that is both a real ccTLD and a file extension (md, py, rs, sh) is an address unless
#    the text reads as a file name: the host starts with a digit (`icon@2x.md`, `job@3.sh`, a
#    density or instance suffix, not a host), the name before the TLD is written in capitals the
#    way doc files are (`notes@RTK.md`, `see@README.md`), or it is a path segment (`/x/a@b.py`).
#    Digit-led hosts under other TLDs stay addresses (`163.com`, `126.com` are mail providers).

# The reference's list without md, py, rs, sh …
_REFERENCE_EXTENSIONS = (
    "mdx",
    "txt",
    "json",
    "jsonl",
    "yaml",
    "yml",
    "toml",
    "lock",
    "ts",
    "tsx",
    "js",
    "jsx",
    "mjs",
    "cjs",
    "go",
    "css",
    "html",
    "svg",
    "png",
    "jpg",
    "jpeg",
    "gif",
    "webp",
    "service",
    "socket",
    "timer",
    "mount",
    "target",
)
# … and other file extensions and systemd unit types that are no TLD.
_MORE_EXTENSIONS = (
    "ini",
    "cfg",
    "conf",
    "log",
    "csv",
    "tsv",
    "xml",
    "pdf",
    "ico",
    "bmp",
    "avif",
    "heic",
    "tiff",
    "wasm",
    "vue",
    "scss",
    "sass",
    "less",
    "rb",
    "php",
    "java",
    "kt",
    "kts",
    "cpp",
    "hpp",
    "cxx",
    "sql",
    "ipynb",
    "env",
    "bak",
    "tmp",
    "whl",
    "jar",
    "exe",
    "dll",
    "dylib",
    "woff",
    "ttf",
    "otf",
    "pyc",
    "pyi",
    "htm",
    "scope",
    "slice",
    "path",
    "swap",
    "automount",
    "device",
)
_NOT_TLD_EXTENSIONS = frozenset(_REFERENCE_EXTENSIONS + _MORE_EXTENSIONS)
_AMBIGUOUS_TLDS = frozenset({"md", "py", "rs", "sh"})


def _is_email(match: regex.Match[str]) -> bool:
    text = match.group()
    if text[:4].lower() == "git@":
        return False
    host, _, tld = text[text.index("@") + 1 :].rpartition(".")
    tld = tld.lower()
    if tld in _NOT_TLD_EXTENSIONS:
        return False
    if tld in _AMBIGUOUS_TLDS:
        name = host.rpartition(".")[2]
        before = match.string[match.start() - 1 : match.start()]
        if host[:1].isdigit() or name.isupper() or before in ("/", "\\"):
            return False
    return True


# Internationalised addresses (RFC 6531: `jörg.müller@exämple.de`, `δοκιμή@παράδειγμα.δοκιμή`)
# take letters, marks and digits of any script in the local part, the domain and the TLD; their
# ASCII spelling (`xn--exmple-cua.de`, a TLD such as `xn--p1ai`) is an address as well.
_INTERNATIONAL = r"\p{L}\p{M}\p{Nd}"
_EMAIL_LOCAL = rf"[A-Za-z0-9._%+{_INTERNATIONAL}-]"
_EMAIL_DOMAIN = rf"[A-Za-z0-9.{_INTERNATIONAL}-]"
_EMAIL_TLD = r"(?:[xX][nN]--[A-Za-z0-9-]*[A-Za-z0-9]|[A-Za-z]{2,}|[\p{L}\p{M}]{2,})"
# The reference is `\b local+ @ domain+ \. tld{2,} \b` with ASCII `\b`. A start may sit only on
# the first letter or digit of a local-part run (or right where the previous match ended, after
# a word character, as the reference resumes there); any later start reaches the same `@` and
# domain. The pattern is compiled without the ASCII flag (it would make `\p{L}` ASCII), so the
# reference's ASCII boundaries are written out.
_EMAIL = (
    rf"(?:\G(?<=[A-Za-z0-9_])(?=[._%+-])|(?<!{_EMAIL_LOCAL})[.%+-]*+\K(?=[A-Za-z0-9_{_INTERNATIONAL}]))"
    rf"{_EMAIL_LOCAL}+@{_EMAIL_DOMAIN}+\.{_EMAIL_TLD}(?![A-Za-z0-9_{_INTERNATIONAL}])"
)
# Any character outside ASCII, in RE2 syntax (the prefilter is read as UTF-8).
_NON_ASCII_RE2 = r"\x{80}-\x{10FFFF}"

# --- card numbers -------------------------------------------------------------------------------

# A leading lookahead on the first character lets `regex` skip to candidates (about 5x faster).
_CARD = (
    r"(?=[0-9])(?<![A-Za-z0-9_-])"
    r"(?:[0-9]{13,19}"
    r"|[0-9]{4}(?P<sep>[ -])[0-9]{4}(?P=sep)[0-9]{4}(?P=sep)[0-9]{4}(?:(?P=sep)[0-9]{3})?"
    r"|[0-9]{4}(?P<amex>[ -])[0-9]{6}(?P=amex)[0-9]{5})"
    r"(?![A-Za-z0-9_-])"
)


def _has_issuer_prefix(digits: str) -> bool:
    two, three = int(digits[:2]), int(digits[:3])
    return (
        digits[0] == "4"
        or 51 <= two <= 55
        or 22 <= two <= 27
        or two == 30
        or 34 <= two <= 39
        or digits.startswith("6011")
        or 644 <= three <= 649
        or two in (62, 65)
    )


def _passes_luhn(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _is_card_digits(digits: str) -> bool:
    return _has_issuer_prefix(digits) and _passes_luhn(digits) and digits != digits[0] * len(digits)


def _is_card_number(match: regex.Match[str]) -> bool:
    return _is_card_digits("".join(c for c in match.group() if c.isdigit()))


_SMALLEST_CARD = 10**12  # 13 digits
_LARGEST_CARD = 10**19  # 19 digits, and beyond any OTLP intValue


def is_card_number(value: object) -> bool:
    """A number the card detector takes for a card when written out (a JSON number, an OTLP
    `intValue`): 13 to 19 digits, an issuer prefix, a valid Luhn check digit. Negative numbers
    are not (the detector wants no `-` before the digits), nor are ids and times: epoch times
    start with 1, no issuer's prefix. Floats count when whole, written as JavaScript would."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if not _SMALLEST_CARD <= value < _LARGEST_CARD:
        return False
    if isinstance(value, float):
        if not value.is_integer():
            return False
        # The shortest digits that read back as this float, padded with zeros, as JavaScript
        # writes it (47376375487874130, not the float's exact value 47376375487874128).
        return _is_card_digits(format(Decimal(repr(value)).to_integral_value(), "f"))
    return _is_card_digits(str(value))


def equals_a_card_number(value: object) -> bool:
    """Whether a number is a card number, or equal to one of the other numeric type: a set
    holds 4000000000000005120 and 4.000000000000005e+18 as one value, and only one of the two
    may read as a card (JavaScript writes the float with other digits)."""
    if is_card_number(value):
        return True
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if not _SMALLEST_CARD <= value < _LARGEST_CARD:
        return False
    if isinstance(value, float):
        return value.is_integer() and is_card_number(int(value))
    return is_card_number(float(value))


# --- phone --------------------------------------------------------------------------------------

_WS = f"[{WHITESPACE}]"
_SEP = f"[-.{WHITESPACE}]"
_NANP = rf"(?:\+1{_SEP}?)?(?:\([0-9]{{3}}\){_WS}?|\b[0-9]{{3}}{_SEP})[0-9]{{3}}{_SEP}[0-9]{{4}}\b"
# E.164 written without separators (`+14158675309`, `+447911123456`), as APIs and forms store
# numbers: a NANP number's area code and exchange start with 2–9; elsewhere a country code and
# national number of 10 to 14 digits in all. Not after a word, a closing bracket, a dot or a plus
# (`x+1234567890` is arithmetic, `v1.+…` a pattern).
_E164 = r"(?<![A-Za-z0-9_)\].+])\+(?:1[2-9][0-9]{2}[2-9][0-9]{6}|[2-9][0-9]{9,13})(?![A-Za-z0-9_])"
_PHONE = rf"(?=[+(0-9])(?:{_NANP}|{_E164})"
# NANP codes that reach no person: N00 (500, 600, 700, 800, 900 services) and toll-free 8XX.
_SERVICE_AREAS = frozenset(
    {"500", "600", "700", "800", "900", "833", "844", "855", "866", "877", "888"}
)


def _is_phone(match: regex.Match[str]) -> bool:
    """A number written E.164 without separators (`+1…` and eleven digits) is a person's only
    when its area code is not a service's (`+15005550006` is a test number, `+18005551234` a
    business's); numbers written with separators are taken as the reference takes them."""
    text = match.group()
    if text[:2] == "+1" and text[1:].isdigit() and len(text) == 12:
        return text[2:5] not in _SERVICE_AREAS
    return True


_SEP_RE2 = f"[-.{WHITESPACE_RE2}]"


def _personal(
    id: str,
    description: str,
    pattern: str,
    prefilter: str,
    accept: Callable[[regex.Match[str]], bool] | None = None,
    flags: int = _FLAGS,
) -> Detector:
    return Detector(
        id=id,
        description=description,
        category="personal-data",
        source=pattern,
        flags=flags,
        prefilter=prefilter,
        accept=accept,
    )


PERSONAL_DETECTORS: tuple[Detector, ...] = (
    _personal(
        "email",
        "An e-mail address, internationalised too (not an SSH remote, icon@2x.png, or @scope/pkg).",
        _EMAIL,
        rf"[A-Za-z0-9._%+{_NON_ASCII_RE2}-]@[A-Za-z0-9.{_NON_ASCII_RE2}-]+\.(?:[A-Za-z]{{2}}|[{_NON_ASCII_RE2}])",
        _is_email,
        regex.VERSION0,
    ),
    _personal(
        "card-number",
        "A payment card number: issuer prefix, Luhn check, one consistent separator.",
        _CARD,
        # 13 unbroken digits, 4-4-4 and 4-6-5 all hold 4 digits, 4 to 6 digits, 4 digits.
        # Issuer prefixes start with 2–6, which leaves out epoch milliseconds and most ids.
        r"(?:\A|[^A-Za-z0-9_-])[2-6][0-9]{3}[ -]?[0-9]{4,6}[ -]?[0-9]{4}",
        _is_card_number,
    ),
    _personal(
        "ssn",
        "A US Social Security number written 123-45-6789.",
        r"\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b",
        r"[0-9]{3}-[0-9]{2}-[0-9]{4}",
    ),
    _personal(
        "phone",
        "A phone number: NANP with separators, or E.164 written without them (+14158675309).",
        _PHONE,
        rf"[0-9]{{3}}(?:\)[{WHITESPACE_RE2}]?|{_SEP_RE2})[0-9]{{3}}{_SEP_RE2}[0-9]{{4}}"
        r"|\+[1-9][0-9]{9}",
        _is_phone,
    ),
)


# --- opt-in shapes ------------------------------------------------------------------------------
#
# Off in every built-in profile, on where a profile names them under `detectors.enable`: each is
# personal data for some teams (a client's address under the GDPR, a customer's account) and
# ordinary payload for others (a service's address, a test fixture).

# An IBAN written whole or in the printed groups of four; the ISO 7064 check decides.
_IBAN = r"\b[A-Z]{2}[0-9]{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?)\b"


def _passes_iban_check(match: regex.Match[str]) -> bool:
    compact = match.group().replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
# Not a piece of a longer dotted number (a five-part version, an OID).
_IPV4 = rf"(?<![A-Za-z0-9_.]){_OCTET}(?:\.{_OCTET}){{3}}(?![A-Za-z0-9_]|\.[0-9])"


def _is_host_address(match: regex.Match[str]) -> bool:
    address = ipaddress.IPv4Address(match.group())
    return not (
        address.is_loopback
        or address.is_unspecified
        or address.is_multicast
        or address == ipaddress.IPv4Address("255.255.255.255")
    )


OPT_IN_DETECTORS: tuple[Detector, ...] = (
    _personal(
        "iban",
        "An international bank account number (IBAN) that passes its ISO 7064 check digits.",
        _IBAN,
        r"[A-Z]{2}[0-9]{2} ?[A-Z0-9]{4}",
        _passes_iban_check,
    ),
    _personal(
        "ipv4-address",
        "An IPv4 host address (not loopback, unspecified, multicast or broadcast).",
        _IPV4,
        r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}",
        _is_host_address,
    ),
)
