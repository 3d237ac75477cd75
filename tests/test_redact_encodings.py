"""Issue 12, fail closed: credentials, known secrets and e-mail addresses that hide behind an
encoding, an invisible character or a look-alike, in an attribute's key, or (cards) in a number,
are found, cut whole, and never left recoverable.

The hypothesis properties plant one fake secret (built at run time) in any string surface of a
span, in any supported encoding, and decode the output again the same ways to look for it.
Supported, and so planted: as written, percent-encoded (minimal and every byte), JSON-escaped
(as `json.dumps` writes it and every character as `\\uXXXX`), base64, base64url, hex, two of
these nested, and invisible characters or fullwidth look-alikes inserted. Not planted, and not
found (README): base64 or hex whose first bytes are not ASCII (a UTF-8 address or an invisible
character there, encoded as it is).
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
import unicodedata
import zlib
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote, unquote

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from redact import assess, assess_spans, redact, redact_spans, share_allowed
from tracecheck.spans import Event, Link, Scope, Span

KEY = b"k" * 32
ALNUM = string.ascii_letters + string.digits

# --- fake secrets, built at run time ------------------------------------------------------------


def _body(rng: random.Random, size: int, alphabet: str = ALNUM) -> str:
    """Random characters with every class of the alphabet present (no placeholder-like runs)."""
    classes = [
        c
        for c in (string.ascii_uppercase, string.ascii_lowercase, string.digits)
        if set(c) <= set(alphabet)
    ]
    chars = [rng.choice(c) for c in classes] + [
        rng.choice(alphabet) for _ in range(size - len(classes))
    ]
    rng.shuffle(chars)
    return "".join(chars)


def _credential(kind: int, rng: random.Random) -> str:
    upper_digits = string.ascii_uppercase + string.digits
    makers: list[Callable[[], str]] = [
        lambda: "sk-" + "proj-" + _body(rng, 32),
        lambda: "gh" + "p_" + _body(rng, 36),
        lambda: "AK" + "IA" + _body(rng, 16, upper_digits),
        lambda: "sk" + "_live_" + _body(rng, 28),
        lambda: "AI" + "za" + _body(rng, 35),
        lambda: "xo" + "xb-" + _body(rng, 11, string.digits) + "-" + _body(rng, 24),
        lambda: "postgres://app:" + _body(rng, 14) + "@db.internal/app",
        lambda: ".".join(
            (
                "ey" + "JhbGciOiJIUzI1NiJ9",
                base64.urlsafe_b64encode(json.dumps({"sub": _body(rng, 10)}).encode())
                .decode()
                .rstrip("="),
                _body(rng, 40),
            )
        ),
    ]
    return makers[kind % len(makers)]()


def _known(rng: random.Random) -> str:
    # Opaque: no detector knows its shape, only the caller does.
    alphabet = ALNUM + " /+-_.!~"
    body = _body(rng, rng.randint(12, 24), alphabet).strip()
    return body if len(body) >= 8 else body + "Qz9x"


_ACCENTED = "äöüéèçñøåí"


def _email(kind: int, rng: random.Random) -> str:
    lower = string.ascii_lowercase
    local = "".join(rng.choice(lower) for _ in range(rng.randint(4, 9)))
    domain = "".join(rng.choice(lower) for _ in range(rng.randint(4, 9)))
    tld = rng.choice(["com", "org", "net", "io", "de"])
    if kind % 3 == 0:
        return f"{local}.{rng.choice(lower)}{rng.randint(1, 99)}@{domain}.{tld}"
    # Internationalised: letters outside ASCII in the local part and the domain.
    local = local[:2] + rng.choice(_ACCENTED) + local[2:]
    domain = domain[:1] + rng.choice(_ACCENTED) + domain[1:]
    if kind % 3 == 1:
        return f"{local}@{domain}.{tld}"
    # Its domain as punycode, the way mail headers and URLs carry it.
    return f"{local}@{domain.encode('idna').decode()}.{tld}"


# --- encodings ----------------------------------------------------------------------------------

_INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\x00", "\ufeff"]


def _full_percent(text: str, rng: random.Random) -> str:
    return "".join(
        f"%{byte:02X}" if rng.random() < 0.5 else f"%{byte:02x}" for byte in text.encode()
    )


def _json_every_char(text: str, rng: random.Random) -> str:
    units = text.encode("utf-16-le")
    return "".join(
        f"\\u{int.from_bytes(units[i : i + 2], 'little'):04x}" for i in range(0, len(units), 2)
    )


def _invisible(text: str, rng: random.Random, after: int = 1) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        chars.insert(
            rng.randint(min(after, len(chars) - 1), len(chars) - 1), rng.choice(_INVISIBLE)
        )
    return "".join(chars)


def _fullwidth(text: str, rng: random.Random, after: int = 0) -> str:
    return "".join(
        chr(ord(c) + 0xFEE0) if "!" <= c <= "~" and i >= after and rng.random() < 0.5 else c
        for i, c in enumerate(text)
    )


def _ascii_head(text: str, size: int) -> bool:
    return text.encode()[:size].isascii()


Encoder = Callable[[str, random.Random], str | None]


def _payload(encode: Callable[[bytes], str], head: int) -> Encoder:
    # Base64 and hex are decoded where their first bytes are ASCII text (see module docstring).
    return lambda text, rng: encode(text.encode()) if _ascii_head(text, head) else None


ENCODERS: dict[str, Encoder] = {
    "as-written": lambda text, rng: text,
    "percent": lambda text, rng: quote(text, safe=""),
    "full-percent": _full_percent,
    "json": lambda text, rng: json.dumps(text)[1:-1],
    "json-every-char": _json_every_char,
    "base64": _payload(lambda b: base64.b64encode(b).decode(), 9),
    "base64url": _payload(lambda b: base64.urlsafe_b64encode(b).decode().rstrip("="), 9),
    "hex": _payload(lambda b: b.hex(), 6),
    "invisible": _invisible,
    "fullwidth": _fullwidth,
}
LAYERS = [name for name in ENCODERS if name != "as-written"]


def _encode(text: str, names: tuple[str, ...], rng: random.Random) -> str | None:
    for index, name in enumerate(names):
        then = names[index + 1] if index + 1 < len(names) else None
        if then in ("base64", "base64url", "hex") and name in ("invisible", "fullwidth"):
            # What is inserted lands past the first bytes a payload is recognised by.
            after = len(text.encode()[:9].decode("utf-8", "ignore"))
            encoded = (_invisible if name == "invisible" else _fullwidth)(text, rng, after)
        else:
            encoded = ENCODERS[name](text, rng)
        if encoded is None:
            return None
        text = encoded
    return text


# --- the checker: decode the output the same ways -----------------------------------------------

_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{8,}")
_HEX_RUN = re.compile(r"[0-9A-Fa-f]{8,}")
_U_ESCAPES = re.compile(r"(?:\\u[0-9A-Fa-f]{4})+")


def _visible(text: str) -> str:
    kept = (
        c
        for c in text
        if c in "\t\n\r"
        or (unicodedata.category(c) not in ("Cf", "Cc") and not 0xFE00 <= ord(c) <= 0xFE0F)
    )
    return unicodedata.normalize("NFKC", "".join(kept))


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        units = b"".join(
            int(match.group()[i + 2 : i + 6], 16).to_bytes(2, "little")
            for i in range(0, len(match.group()), 6)
        )
        return units.decode("utf-16-le", "replace")

    return _U_ESCAPES.sub(one, text)


def _lenient_base64(run: str) -> str:
    body = run.rstrip("=").replace("-", "+").replace("_", "/")
    if len(body) % 4 == 1:
        body = body[:-1]
    return base64.b64decode(body + "=" * (-len(body) % 4)).decode("utf-8", "replace")


def _layer(text: str) -> set[str]:
    out = {unquote(text), _unescape(text), text.replace("\\\\", "\\"), text}
    for run in _B64_RUN.findall(text):
        out.update(_lenient_base64(run[shift:]) for shift in range(4))
    for run in _HEX_RUN.findall(text):
        for shift in range(2):
            digits = run[shift:]
            out.add(bytes.fromhex(digits[: len(digits) // 2 * 2]).decode("utf-8", "replace"))
    return {_visible(t) for t in out}


def decodings(text: str, depth: int = 3) -> set[str]:
    seen = {text, _visible(text)}
    frontier = set(seen)
    for _ in range(depth):
        frontier = {d for t in frontier for d in _layer(t)} - seen
        seen |= frontier
    return seen


def needles(secret: str) -> list[str]:
    """What would show the secret survived: it whole, and every 12-character piece of it."""
    plain = _visible(secret)
    if "@" in plain:
        return [plain]
    return [plain] + [plain[i : i + 12] for i in range(0, max(0, len(plain) - 12) + 1)]


def recoverable(strings: Iterator[str], secret: str) -> bool:
    wanted = needles(secret)
    return any(n in d for s in strings for d in decodings(s) for n in wanted)


# --- surfaces -----------------------------------------------------------------------------------

SURFACES = [
    "attribute",
    "attribute-key",
    "span-name",
    "event-name",
    "event-attribute",
    "event-attribute-key",
    "status-message",
    "resource",
    "resource-key",
    "scope-name",
    "scope-version",
    "scope-attribute",
    "link-attribute",
]


def span_with(surface: str, text: str) -> Span:
    attributes: dict[str, Any] = {"gen_ai.operation.name": "chat", "retries": 2}
    resource: dict[str, Any] = {"service.name": "desk"}
    scope = Scope("agent.lib", "1.0", {})
    events: list[Event] = [Event("tick", 5, {"n": 1})]
    links: list[Link] = []
    name, message = "chat gpt-4o", None
    if surface == "attribute":
        attributes["note"] = text
    elif surface == "attribute-key":
        attributes[text] = "v"
    elif surface == "span-name":
        name = text
    elif surface == "event-name":
        events.append(Event(text, 6, {}))
    elif surface == "event-attribute":
        events.append(Event("log", 6, {"body.note": text}))
    elif surface == "event-attribute-key":
        events.append(Event("log", 6, {text: 1}))
    elif surface == "status-message":
        message = text
    elif surface == "resource":
        resource["deploy.note"] = text
    elif surface == "resource-key":
        resource[text] = "v"
    elif surface == "scope-name":
        scope = Scope(text, "1.0", {})
    elif surface == "scope-version":
        scope = Scope("agent.lib", text, {})
    elif surface == "scope-attribute":
        scope = Scope("agent.lib", "1.0", {"scope.note": text})
    elif surface == "link-attribute":
        links.append(Link("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", {"n": text}))
    return Span(
        trace_id="0af7651916cd43dd8448eb211c80319c",
        span_id="00f067aa0ba902b7",
        parent_span_id=None,
        name=name,
        start_ns=1,
        end_ns=2,
        status="error" if message else None,
        status_message=message,
        attributes={**resource, **attributes},
        events=tuple(events),
        links=tuple(links),
        resource=resource,
        scope=scope,
    )


def strings_of(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Span):
        yield value.name
        if value.status_message:
            yield value.status_message
        yield from strings_of(dict(value.attributes))
        yield from strings_of(dict(value.resource))
        for event in value.events:
            yield event.name
            yield from strings_of(dict(event.attributes))
        for link in value.links:
            yield from strings_of(dict(link.attributes))
        if value.scope is not None:
            yield value.scope.name
            yield value.scope.version or ""
            yield from strings_of(dict(value.scope.attributes))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings_of(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_of(item)


# --- the plant ----------------------------------------------------------------------------------

CONTEXTS = [
    ("", ""),
    ("note ", " end"),
    ("https://h.test/cb?q=", "&x=1"),
    ('{"v": "', '"}'),
    ("token: ", "."),
]
KINDS = ["credential", "known-secret", "email"]


@st.composite
def plants(draw: st.DrawFn) -> tuple[str, str, tuple[str, ...], str]:
    """(kind, secret, encodings, text holding it)."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    kind = draw(st.sampled_from(KINDS))
    variant = draw(st.integers(0, 1000))
    if kind == "credential":
        secret = _credential(variant, rng)
    elif kind == "known-secret":
        secret = _known(rng)
    else:
        secret = _email(variant, rng)
    names = draw(
        st.one_of(
            st.just(("as-written",)),
            st.tuples(st.sampled_from(LAYERS)),
            st.tuples(st.sampled_from(LAYERS), st.sampled_from(LAYERS)),
        )
    )
    encoded = _encode(secret, names, rng)
    assume(encoded is not None)
    before, after = draw(st.sampled_from(CONTEXTS))
    return kind, secret, names, f"{before}{encoded}{after}"


PROFILES = st.sampled_from(["default", "share", "strict"])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plants(), st.sampled_from(SURFACES), PROFILES)
def test_a_planted_secret_in_any_surface_and_encoding_leaves_nothing_recoverable(
    plant: tuple[str, str, tuple[str, ...], str], surface: str, profile: str
) -> None:
    kind, secret, _, text = plant
    known = [secret] if kind == "known-secret" else []
    batch = [span_with(surface, text)]
    # The checker itself finds the plant before redaction.
    assert recoverable(strings_of(batch), secret)
    before = assess_spans(batch, profile="share", known_secrets=known)
    assert not share_allowed(before)

    out = redact_spans(batch, profile=profile, known_secrets=known, pseudonym_key=KEY)
    assert not recoverable(strings_of(list(out.spans)), secret)
    verdict = assess_spans(out.spans, profile=profile, known_secrets=known)
    assert not [f for f in verdict.findings if f.category in ("credential", "personal-data")]
    again = redact_spans(out.spans, profile=profile, known_secrets=known, pseudonym_key=KEY)
    assert again.spans == out.spans


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plants(), st.sampled_from(["value", "key", "nested-key", "list"]), PROFILES)
def test_a_planted_secret_in_any_value_leaves_nothing_recoverable(
    plant: tuple[str, str, tuple[str, ...], str], where: str, profile: str
) -> None:
    kind, secret, _, text = plant
    known = [secret] if kind == "known-secret" else []
    value: Any = {
        "value": {"note": text, "n": 3},
        "key": {text: 3, "other": "x"},
        "nested-key": {"outer": [{"inner": {text: "x"}}]},
        "list": {"notes": ["a", text, 7]},
    }[where]
    assert recoverable(strings_of(value), secret)
    assert not share_allowed(assess(value, profile="share", known_secrets=known))

    out = redact(value, profile=profile, known_secrets=known, pseudonym_key=KEY).value
    assert not recoverable(strings_of(out), secret)
    verdict = assess(out, profile=profile, known_secrets=known)
    assert not [f for f in verdict.findings if f.category in ("credential", "personal-data")]
    assert redact(out, profile=profile, known_secrets=known, pseudonym_key=KEY).value == out


@pytest.mark.parametrize(
    "names", [(name,) for name in ENCODERS] + [(a, b) for a in LAYERS for b in LAYERS]
)
def test_every_encoding_and_nesting_of_a_known_secret_is_cut(names: tuple[str, ...]) -> None:
    # The exhaustive pass over encodings that the property samples.
    rng = random.Random(zlib.crc32(repr(names).encode()))
    secret = "zq9 Opaque/Deploy Key 77"
    encoded = _encode(secret, names, rng)
    assert encoded is not None
    text = f"note {encoded} end"
    out = redact({"v": text, text: 1}, known_secrets=[secret], pseudonym_key=KEY).value
    assert not recoverable(strings_of(out), secret), names
