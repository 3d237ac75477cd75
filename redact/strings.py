"""String-level pieces of the pipeline: placeholders, the size cap, data URIs, pseudonyms."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "DataUri",
    "cap_string",
    "cut_spans",
    "decode_data_uri_payload",
    "effective_cap",
    "is_placeholder",
    "js_string",
    "merge_spans",
    "parse_data_uri",
    "pseudonym",
    "utf8_length",
    "without_markers",
]

_PLACEHOLDER = re.compile(
    r"\[(?:REDACTED|redacted)(?::[^\]]*)?\]|\[ID:[0-9a-f]{12}\]|\*{3,}|<redacted>|«redacted»"
    r"|\[HASH:[0-9a-f]{8,}\]"
)


def is_placeholder(text: str) -> bool:
    """The empty string, or a whole string that is a marker some redactor already wrote."""
    return not text or (_PLACEHOLDER.fullmatch(text) is not None)


def without_markers(text: str) -> str:
    """The text with every marker some redactor wrote in it taken out."""
    return _PLACEHOLDER.sub("", text)


def merge_spans(spans: Iterable[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """(start, end, label) stretches, left to right, with overlapping ones joined under the label
    of the one that starts first (the longer at a tie), so no piece of either survives between
    two cuts. Stretches that only touch stay apart."""
    merged: list[tuple[int, int, str]] = []
    for start, end, label in sorted(spans, key=lambda s: (s[0], -s[1])):
        if merged and start < merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end, merged[-1][2])
            continue
        merged.append((start, end, label))
    return merged


def cut_spans(text: str, spans: Iterable[tuple[int, int, str]]) -> tuple[str, list[str]]:
    """The text with each (start, end, marker) stretch replaced by its marker (overlapping ones
    merged, see `merge_spans`), and the markers written, left to right."""
    pieces: list[str] = []
    written: list[str] = []
    done = 0
    for start, end, marker in merge_spans(spans):
        pieces += (text[done:start], marker)
        written.append(marker)
        done = end
    if not written:
        return text, written
    pieces.append(text[done:])
    return "".join(pieces), written


def utf8_length(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def effective_cap(profile_cap: int, max_string_bytes: float | None) -> int:
    """`max_string_bytes` lowers the profile's cap; it can never raise it."""
    if (
        max_string_bytes is None
        or isinstance(max_string_bytes, bool)
        or not math.isfinite(max_string_bytes)
        or max_string_bytes < 0
    ):
        return profile_cap
    return min(math.floor(max_string_bytes), profile_cap)


# The suffix `cap_string` writes: a text already cut at the cap is left as it is, so that
# redacting a redacted value changes nothing.
_CAPPED = re.compile(rb"\xe2\x80\xa6\[truncated \d{1,20} bytes\]\Z")


def _already_capped(data: bytes, cap: int) -> bool:
    found = _CAPPED.search(data, max(0, len(data) - 40)) if data.endswith(b"]") else None
    return found is not None and found.start() <= cap


def cap_string(text: str, cap: int) -> str | None:
    """The truncated form of a string over `cap` UTF-8 bytes, or None when it fits."""
    if len(text) * 4 <= cap:
        return None
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= cap or _already_capped(data, cap):
        return None
    cut = cap
    while cut > 0 and (data[cut] & 0xC0) == 0x80:
        cut -= 1
    prefix = data[:cut].decode("utf-8", "surrogatepass")
    return f"{prefix}…[truncated {len(data) - cut} bytes]"


_DATA_URI = re.compile(
    r"data:(?P<mime>[A-Za-z0-9_.+-]+/[A-Za-z0-9_.+-]+)(?:;[^;,]*)*?;base64,(?P<payload>[A-Za-z0-9+/=\s]*)",
    re.IGNORECASE,
)
_WHITESPACE = re.compile(r"\s+")
_STANDARD_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


@dataclass(frozen=True, slots=True)
class DataUri:
    mime: str
    payload: str

    @property
    def is_text(self) -> bool:
        """A payload read as text: text, JSON, and SVG pictures (XML, where words are)."""
        return self.mime.startswith("text/") or self.mime in ("application/json", "image/svg+xml")


def parse_data_uri(text: str) -> DataUri | None:
    """A whole-string base64 data URI; trailing text or a non-base64 URI is ordinary text."""
    if text[:5].lower() != "data:":
        return None
    match = _DATA_URI.fullmatch(text)
    if match is None:
        return None
    return DataUri(match["mime"].lower(), match["payload"])


def decode_data_uri_payload(payload: str) -> str | None:
    """The decoded text, or None when the payload is not valid standard base64."""
    compact = _WHITESPACE.sub("", payload)
    if not compact:
        return ""
    if len(compact) % 4 or _STANDARD_BASE64.fullmatch(compact) is None:
        return None
    try:
        return base64.b64decode(compact, validate=True).decode("utf-8", "replace")
    except binascii.Error:
        return None


def js_string(value: str | int | float) -> str:
    """`String(value)` as JavaScript writes it, so `42` and `"42"` share a pseudonym."""
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value) if abs(value) < 10**21 else js_string(float(value))
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    return _js_float(value)


def _js_float(value: float) -> str:
    # repr gives the shortest round-trip digits, as JavaScript does; only the layout differs.
    sign = "-" if value < 0 else ""
    shortest = repr(abs(value))
    base, _, exponent = shortest.partition("e")
    whole, _, fraction = base.partition(".")
    digits = (whole + fraction).lstrip("0")
    # `point` is where the decimal point sits relative to the first significant digit.
    if whole.strip("0"):
        point = len(whole.lstrip("0"))
    else:
        point = -(len(fraction) - len(fraction.lstrip("0")))
    point += int(exponent or 0)
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= point <= 21:
        return sign + digits + "0" * (point - k)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * -point + digits
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{head}e{'+' if point >= 1 else '-'}{abs(point - 1)}"


def pseudonym(key: bytes, value: str | int | float) -> str:
    digest = hmac.new(key, js_string(value).encode("utf-8", "surrogatepass"), hashlib.sha256)
    return f"[ID:{digest.hexdigest()[:12]}]"
