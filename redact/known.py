"""Caller-supplied known secrets, cut out in every encoding they travel in (spec A3, A9, B9).

An opaque secret has no shape a detector could recognise, so the caller names it and every
form it can take in span text is matched exactly: as written; base64 and base64url (padded or
not, and at any byte offset inside a larger encoded payload); percent- and form-encoded;
hex; JSON-string-escaped. A secret written in hex digits (a 40-character token, a UUID) is also
matched in the other case, every form of it: its value does not change with the case. All forms of all secrets sit in one Aho–Corasick automaton, so the
cost of scanning a string does not grow with the number of secrets.

Base64 at an arbitrary byte offset. Inside a larger payload, a secret starting at byte offset
o ≡ r (mod 3) is encoded as a *core* of characters whose 6 bits all come from the secret (they
depend only on the secret and r), flanked by at most one character on each side that mixes
secret bits with bits of the neighbouring bytes. For each secret the automaton holds the cores
for r = 0, 1, 2 in both alphabets; a hit cuts the core together with its flanking characters,
so no bit of the secret survives in the text left behind.

The reference cuts forms with one `str.replace` per form; here every hit of every form is found
in one pass and overlapping hits are merged, so overlapping forms of different secrets cannot
leave a piece of either behind.
"""

from __future__ import annotations

import base64
import json
import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import ahocorasick

__all__ = [
    "EMPTY_KNOWN_SECRETS",
    "KNOWN_SECRET_MARKER",
    "MIN_KNOWN_SECRET_LENGTH",
    "MIN_STANDALONE_CORE",
    "KnownSecretError",
    "KnownSecrets",
]

KNOWN_SECRET_MARKER = "[REDACTED:known-secret]"

# In UTF-16 code units, as the reference counts (A3: shorter secrets are refused, not ignored).
MIN_KNOWN_SECRET_LENGTH = 4

# The minimum-core rule. A base64 core of k characters carries 6k bits of the secret. A core of
# at least 8 characters (48 bits) is matched on its own: by chance it turns up about once in
# 2^48 positions of random base64, far beyond any trace, and when its flanks are missing or
# disagree (a truncated payload, a near-miss value) the core alone still gives away most of the
# secret, so cutting it is the safe choice. A shorter core (only secrets of 4 to 6 UTF-8 bytes
# have one) counts only when the flanking characters the secret partly determines are present
# and carry the secret's bits there: the match then tests every bit of the secret, the same
# evidence as finding the value as written, so a 4-character core cannot cut innocent base64
# (an image, a hash) merely because 24 of its bits happen to agree.
MIN_STANDALONE_CORE = 8

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_STANDARD = _ALNUM + "+/"
_URLSAFE = _ALNUM + "-_"
# Node decodes either alphabet in either mode, so a flank is read in both.
_SEXTET: dict[str, int] = {**{c: i for i, c in enumerate(_STANDARD)}, "-": 62, "_": 63}

# B9: the whole string is a base64 payload worth decoding (at least 8 units, "=" included).
_WHOLE_BASE64 = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
_MIN_WHOLE_BASE64 = 8
_LOWER_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-f]{4})")

# Characters left as they are by the percent-encoders secrets meet in URLs and bodies.
_URI_COMPONENT = _ALNUM + "-_.!~*'()"  # JS encodeURIComponent
_URI = _URI_COMPONENT + ";,/?:@&=+$#"  # JS encodeURI
_PY_QUOTE = _ALNUM + "_.-~"  # Python quote(safe="") and quote_plus(safe="")
_PY_QUOTE_PATH = _PY_QUOTE + "/"  # Python quote() with its default safe="/"
_FORM = _ALNUM + "*-._"  # application/x-www-form-urlencoded (URLSearchParams)
_PERCENT_STYLES: tuple[tuple[str, bool], ...] = (
    (_URI_COMPONENT, False),
    (_URI_COMPONENT, True),  # encodeURIComponent(v).replace(/%20/g, "+")
    (_URI, False),
    (_PY_QUOTE, False),
    (_PY_QUOTE, True),
    (_PY_QUOTE_PATH, False),
    (_FORM, True),
)


class KnownSecretError(ValueError):
    """A known secret cannot be used. The message names its position, never its value."""


@dataclass(frozen=True, slots=True)
class _Core:
    """How to cut one base64 core: the secret bits its flanking characters must carry.

    `left_bits` low bits of the character before the core and `right_bits` high bits of the
    character after it belong to the secret (0 bits: no flank on that side).
    """

    left_bits: int
    left_value: int
    right_bits: int
    right_value: int
    standalone: bool


@dataclass(frozen=True, slots=True)
class _Entry:
    """Everything one automaton key stands for (one string can be several secrets' forms)."""

    needle: str
    literal: bool
    cores: tuple[_Core, ...]
    protected: bool  # the marker itself: never cut inside an earlier cut

    def span(self, text: str, start: int, end: int) -> tuple[int, int] | None:
        """The stretch of text to cut for a hit at text[start:end], or None to let it stand."""
        low, high = (start, end) if self.literal else (len(text), -1)
        for core in self.cores:
            cut = _core_span(core, text, start, end)
            if cut is not None:
                low, high = min(low, cut[0]), max(high, cut[1])
        return (low, high) if high >= 0 else None


def _core_span(core: _Core, text: str, start: int, end: int) -> tuple[int, int] | None:
    low, high = start, end
    if core.left_bits:
        sextet = _SEXTET.get(text[start - 1]) if start > 0 else None
        agrees = sextet is not None and sextet & ((1 << core.left_bits) - 1) == core.left_value
        if agrees or (core.standalone and sextet is not None):
            low = start - 1
        elif not core.standalone:
            return None
    if core.right_bits:
        sextet = _SEXTET.get(text[end]) if end < len(text) else None
        agrees = sextet is not None and sextet >> (6 - core.right_bits) == core.right_value
        if agrees or (core.standalone and sextet is not None):
            high = end + 1
            # Padding after the last, partial character says nothing about the secret, but a
            # lone "=" after the marker would look like a botched cut.
            for _ in range(2):
                if high < len(text) and text[high] == "=":
                    high += 1
        elif not core.standalone:
            return None
    return low, high


def _utf16_length(value: str) -> int:
    return len(value) + sum(1 for c in value if ord(c) > 0xFFFF)


def _without_lone_surrogates(value: str) -> str:
    # Round-tripping through UTF-16 joins a surrogate pair into its character and turns each
    # lone surrogate into U+FFFD, as a JavaScript string would be read as UTF-8.
    return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _percent(data: bytes, safe: str, plus: bool, lower: bool) -> str:
    hex_format = "%{:02x}" if lower else "%{:02X}"
    out: list[str] = []
    for byte in data:
        char = chr(byte)
        if char in safe:
            out.append(char)
        elif plus and char == " ":
            out.append("+")
        else:
            out.append(hex_format.format(byte))
    return "".join(out)


def _text_forms(secret: str) -> list[str]:
    """Every form of the secret matched literally, wherever it stands."""
    data = secret.encode("utf-8")
    forms = [secret]
    for safe, plus in _PERCENT_STYLES:
        forms.append(_percent(data, safe, plus, lower=False))
        forms.append(_percent(data, safe, plus, lower=True))
    forms += [data.hex(), data.hex().upper()]
    as_json = [json.dumps(secret, ensure_ascii=False)[1:-1], json.dumps(secret)[1:-1]]
    as_json.append(_LOWER_UNICODE_ESCAPE.sub(lambda m: "\\u" + m.group(1).upper(), as_json[1]))
    forms += as_json + [form.replace("/", "\\/") for form in as_json]
    # JSON inside a JSON string (tool-call arguments inside `gen_ai.input.messages`) escapes
    # the secret twice.
    forms += [json.dumps(form, ensure_ascii=False)[1:-1] for form in as_json]
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        padded = encode(data).decode("ascii")
        forms += [padded, padded.rstrip("=")]
    return forms


def _cores(secret: str) -> Iterator[tuple[str, _Core]]:
    """The base64 core of the secret at byte offsets 0, 1 and 2 (mod 3), in both alphabets."""
    data = secret.encode("utf-8")
    for phase in range(3):
        # Zero bytes stand in for the unknown neighbours; only fully determined characters
        # become the needle, and the flanks keep just the bits that belong to the secret.
        padded = bytes(phase) + data + bytes(2)
        first = (8 * phase + 5) // 6
        end_bit = 8 * (phase + len(data))
        left_bits = (6 - 8 * phase % 6) % 6
        right_bits = end_bit % 6
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(padded).decode("ascii")
            core = encoded[first : end_bit // 6]
            left = _SEXTET[encoded[first - 1]] & ((1 << left_bits) - 1) if left_bits else 0
            right = _SEXTET[encoded[end_bit // 6]] >> (6 - right_bits) if right_bits else 0
            yield core, _Core(left_bits, left, right_bits, right, len(core) >= MIN_STANDALONE_CORE)


_HEX_SECRET = re.compile(r"[0-9A-Fa-f-]*[A-Fa-f][0-9A-Fa-f-]*")
_MIN_HEX_DIGITS = 8


def _case_variants(secret: str) -> tuple[str, ...]:
    """The secret and the spellings it takes in another case without changing its value: a
    secret of hex digits (a token, a key, a UUID with its dashes) reads the same in upper and in
    lower case, and tools print it in either (`git rev-parse`, .NET's `Guid.ToString("D")`)."""
    if (
        _HEX_SECRET.fullmatch(secret) is None
        or sum(c != "-" for c in secret) < _MIN_HEX_DIGITS
        or secret.startswith("-")
    ):
        return (secret,)
    return tuple(dict.fromkeys((secret, secret.lower(), secret.upper())))


def _lenient_base64_decode(payload: str) -> bytes:
    """Node's `Buffer.from(payload, "base64")` for a string that is all base64 (B9 recipe)."""
    body = payload.rstrip("=").replace("-", "+").replace("_", "/")
    if len(body) % 4 == 1:
        body = body[:-1]
    return base64.b64decode(body + "=" * (-len(body) % 4))


class KnownSecrets:
    """The forms of a set of known secrets, compiled once into one automaton.

    Build it with `KnownSecrets.build`. The pipeline's RE2 prefilter can add `needles` to its
    pattern; a whole-string base64 payload (`hides_in_base64`) must be flagged separately, since
    a secret nested deeper (say, base64 of its percent-encoding) shows no needle. Instances
    compare and hash by identity, so they can key a cache.
    """

    __slots__ = ("_automaton", "_count", "min_base64_payload", "needles")

    needles: tuple[str, ...]
    # The fewest base64 characters (padding aside) that can carry the shortest secret whole:
    # a whole-string payload shorter than this cannot hide one.
    min_base64_payload: int

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        """Compile already validated secrets; callers use `build`."""
        literal: set[str] = set()
        cores: dict[str, list[_Core]] = {}
        for secret in dict.fromkeys(variant for s in secrets for variant in _case_variants(s)):
            literal.update(_text_forms(secret))
            for needle, core in _cores(secret):
                if core not in cores.setdefault(needle, []):
                    cores[needle].append(core)
        needles = literal | cores.keys()
        self.needles = tuple(sorted(needles, key=lambda n: (-len(n), n)))
        self._count = len(secrets)
        shortest = min((len(secret.encode("utf-8")) for secret in secrets), default=0)
        self.min_base64_payload = (8 * shortest + 5) // 6
        self._automaton: Any = None
        if secrets:
            automaton = ahocorasick.Automaton()
            for needle in (*needles, KNOWN_SECRET_MARKER):
                entry = _Entry(
                    needle,
                    needle in literal,
                    tuple(cores.get(needle, ())),
                    needle == KNOWN_SECRET_MARKER,
                )
                automaton.add_word(needle, entry)
            automaton.make_automaton()
            self._automaton = automaton

    @classmethod
    def build(cls, secrets: Iterable[str]) -> KnownSecrets:
        """Validate and compile caller-supplied secrets; duplicates are dropped."""
        if isinstance(secrets, str | bytes):
            raise KnownSecretError("known secrets must be a collection of strings, not one string")
        kept: dict[str, None] = {}
        for position, secret in enumerate(secrets, start=1):
            if not isinstance(secret, str):
                raise KnownSecretError(
                    f"known secret #{position} is a {type(secret).__name__}, not a string"
                )
            value = _without_lone_surrogates(secret)
            if _utf16_length(value) < MIN_KNOWN_SECRET_LENGTH:
                raise KnownSecretError(
                    f"known secret #{position} is shorter than {MIN_KNOWN_SECRET_LENGTH} "
                    "characters (UTF-16 code units); too short to cut without mangling text"
                )
            kept[value] = None
        return cls(tuple(kept)) if kept else EMPTY_KNOWN_SECRETS

    def __bool__(self) -> bool:
        return self._count > 0

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        # Never the values: a repr ends up in logs and tracebacks.
        return f"KnownSecrets({self._count} secrets, {len(self.needles)} forms)"

    def _hits(self, text: str) -> Iterator[tuple[int, int, str]]:
        """(start, end, needle) of every accepted hit to cut, in no particular order."""
        markers: list[tuple[int, int]] = []
        hits: list[tuple[int, int, str]] = []
        for last, entry in self._automaton.iter(text):
            start = last + 1 - len(entry.needle)
            if entry.protected:
                markers.append((start, last + 1))
                continue
            span = entry.span(text, start, last + 1)
            if span is not None:
                hits.append((span[0], span[1], entry.needle))
        if not markers:
            yield from hits
            return
        # A marker already in the text is the output of an earlier cut (or public text); a hit
        # inside or straddling it would only shred the marker, and would make `cut` not
        # idempotent for a secret such as "known" or "et]x".
        markers.sort()
        starts = [m[0] for m in markers]
        for start, end, needle in hits:
            index = bisect_left(starts, end) - 1
            clear = True
            while index >= 0 and markers[index][1] > start:
                if not (start <= markers[index][0] and markers[index][1] <= end):
                    clear = False
                    break
                index -= 1
            if clear:
                yield start, end, needle

    def hits(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, form) of every stretch `cut` would cut from the text, unmerged, in no
        particular order; the whole-string base64 payload aside. The decoded views of a string
        (`redact.decoded`) are searched this way and their hits cut from the original."""
        if not self._count:
            return []
        return list(self._hits(text))

    def contains(self, text: str) -> bool:
        """Some form of some secret occurs in the text (whole-string base64 aside)."""
        if not self._count:
            return False
        return next(self._hits(text), None) is not None

    def hides_in_base64(self, text: str) -> bool:
        """The whole string is a base64 payload whose lenient decode holds a secret (B9).

        The decode is read as UTF-8 with invalid sequences replaced; a secret's raw UTF-8 bytes
        survive that reading intact, since the secret starts and ends on whole characters. The
        decoded text is searched for every form, so a base64-of-base64 secret is found too.
        """
        if (
            not self._count
            or len(text) < max(_MIN_WHOLE_BASE64, self.min_base64_payload)
            or " " in text  # prose, the common case, fails here before the pattern runs
            or _WHOLE_BASE64.fullmatch(text) is None
        ):
            return False
        decoded = _lenient_base64_decode(text).decode("utf-8", "replace")
        return self.contains(decoded)

    def hiding_in_base64(self, texts: Iterable[str]) -> set[str]:
        """Those of many strings that `hides_in_base64`. Ids and hashes look like base64, so a
        batch has many payloads to decode; one automaton pass over all their decodes settles
        the usual case, where none holds a secret."""
        if not self._count:
            return set()
        shortest = max(_MIN_WHOLE_BASE64, self.min_base64_payload)
        payloads = [
            text
            for text in texts
            if len(text) >= shortest and " " not in text and _WHOLE_BASE64.fullmatch(text)
        ]
        decoded = [_lenient_base64_decode(text).decode("utf-8", "replace") for text in payloads]
        # A form can only appear across a join as a false alarm, which the exact test settles.
        if not decoded or not self.contains("\n".join(decoded)):
            return set()
        return {text for text, plain in zip(payloads, decoded, strict=True) if self.contains(plain)}

    def cut(self, text: str) -> tuple[str, int]:
        """Replace every occurrence of every form with the marker.

        Returns the new text and how many distinct forms occurred (one finding each). A whole
        string that is a base64 payload hiding a secret becomes the marker whole (A3), so the
        result does not depend on whether the caller checks `hides_in_base64` first.
        """
        if not self._count:
            return text, 0
        if self.hides_in_base64(text):
            return KNOWN_SECRET_MARKER, 1
        # Longer first at each start, so a hit inside a longer one is not a form of its own.
        hits = sorted(self._hits(text), key=lambda h: (h[0], -h[1], -len(h[2]), h[2]))
        if not hits:
            return text, 0
        forms: set[str] = set()
        pieces: list[str] = []
        covered = 0  # text before this index is already copied or cut
        run_end = -1  # end of the cut being merged
        for start, end, needle in hits:
            if end > run_end:
                forms.add(needle)
            if start >= run_end:
                if run_end >= 0:
                    pieces.append(KNOWN_SECRET_MARKER)
                    covered = run_end
                pieces.append(text[covered:start])
                run_end = end
            else:
                # Overlapping hits become one cut over their union.
                run_end = max(run_end, end)
        pieces.append(KNOWN_SECRET_MARKER)
        pieces.append(text[run_end:])
        return "".join(pieces), len(forms)


EMPTY_KNOWN_SECRETS = KnownSecrets()
