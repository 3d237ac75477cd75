"""redaction.md A3/A9 and B9: caller-supplied known secrets, cut in every form by one automaton.

Departure from the reference (A3 over B9's offsets table): a secret at byte offset 1 or 2 (mod 3)
inside base64 embedded in prose is cut here (the reference leaves it recoverable), and a
whole-string payload holding the secret at any offset, aligned or not, is replaced whole.
"""

from __future__ import annotations

import base64
import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote, quote_plus

import ahocorasick
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from redact.known import (
    EMPTY_KNOWN_SECRETS,
    KNOWN_SECRET_MARKER,
    MIN_STANDALONE_CORE,
    KnownSecretError,
    KnownSecrets,
)

M = KNOWN_SECRET_MARKER

# The corpus secret is opaque and shaped like no credential, so it can stand here as written.
CORPUS_SECRET = "zq9 Opaque/Deploy Key 77"
CORPUS_TEXTS = [
    ("deploying with zq9 Opaque/Deploy Key 77 now", f"deploying with {M} now"),
    ("header: enE5IE9wYXF1ZS9EZXBsb3kgS2V5IDc3", f"header: {M}"),
    (
        "https://hooks.example.test/x?k=zq9%20Opaque%2FDeploy%20Key%2077",
        f"https://hooks.example.test/x?k={M}",
    ),
    (
        "cleanup failed twice: zq9 Opaque/Deploy Key 77 was still set; termination is not proven",
        f"cleanup failed twice: {M} was still set; termination is not proven",
    ),
    ("eHl6cTkgT3BhcXVlL0RlcGxveSBLZXkgNzch", M),
]

# Secrets chosen to exercise every encoder: spaces, "/" and "+", characters that
# encodeURIComponent keeps but quote() escapes, non-ASCII, astral, JSON escapes, the minimum.
SECRETS = [
    CORPUS_SECRET,
    "päss wörd+/~*'()!?&=😀",
    'quote"back\\slash\n tab\t/end',
    "k9#Q",
    "😀😀",
    "naïve-pw",
]


def utf16_units(value: str) -> int:
    return len(value.encode("utf-16-le", "surrogatepass")) // 2


def normalized(value: str) -> str:
    return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def forms_of(secret: str) -> dict[str, str]:
    """Every A3 form, written independently of the module under test."""
    data = secret.encode("utf-8")
    component = quote(secret, safe="-_.!~*'()")
    forms = {
        "value": secret,
        "base64": base64.b64encode(data).decode(),
        "base64-unpadded": base64.b64encode(data).decode().rstrip("="),
        "base64url": base64.urlsafe_b64encode(data).decode().rstrip("="),
        "base64url-padded": base64.urlsafe_b64encode(data).decode(),
        "encodeURIComponent": component,
        "encodeURIComponent-lower": re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), component),
        "form": component.replace("%20", "+"),
        "quote": quote(secret, safe=""),
        "quote-lower": re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), quote(secret, safe="")),
        "quote_plus": quote_plus(secret, safe=""),
        "hex": data.hex(),
        "HEX": data.hex().upper(),
        "json": json.dumps(secret, ensure_ascii=False)[1:-1],
        "json-ascii": json.dumps(secret)[1:-1],
    }
    return forms


B64_RUN = re.compile(r"[A-Za-z0-9+/_-]+")


def lenient_decode(run: str) -> bytes:
    body = run.rstrip("=").replace("-", "+").replace("_", "/")
    if len(body) % 4 == 1:
        body = body[:-1]
    return base64.b64decode(body + "=" * (-len(body) % 4))


def base64_leaks(text: str, secret: str) -> bool:
    """Some base64 run left in the text decodes, at some alignment, to bytes holding the secret."""
    data = secret.encode("utf-8")
    # The marker's own words are base64 characters; a cut is a hard boundary between runs.
    for run in B64_RUN.findall(text.replace(M, "\0")):
        for alignment in range(4):
            if data in lenient_decode(run[alignment:]):
                return True
    return False


def encoders() -> Iterator[tuple[str, Callable[[bytes], str]]]:
    yield "base64", lambda b: base64.b64encode(b).decode()
    yield "base64-unpadded", lambda b: base64.b64encode(b).decode().rstrip("=")
    yield "base64url", lambda b: base64.urlsafe_b64encode(b).decode().rstrip("=")
    yield "base64url-padded", lambda b: base64.urlsafe_b64encode(b).decode()


def in_place(encoded: str, before: int, after: int, size: int) -> str:
    """The payload with exactly the characters that carry a bit of the secret cut.

    The left rest encodes only prefix bytes, the right rest only suffix bytes; padding right
    after the secret's last character goes with it.
    """
    left = encoded[: 8 * before // 6]
    right = encoded[(8 * (before + size) + 5) // 6 :] if after else ""
    return f"{left}{M}{right}"


PREFIX = b"\x8f\x01\xfeA\x7f"
SUFFIX = b"\xc3\x00Zq\xee"


# --- the shared corpus -----------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), CORPUS_TEXTS)
def test_corpus_known_secret_cases(text: str, expected: str) -> None:
    known = KnownSecrets.build([CORPUS_SECRET])
    out, forms = known.cut(text)
    assert out == expected
    assert forms == 1
    assert known.contains(text) or known.hides_in_base64(text)
    assert not known.contains(out) and not known.hides_in_base64(out)


def test_corpus_whole_payload_at_an_unaligned_offset_goes_through_the_decode_path() -> None:
    known = KnownSecrets.build([CORPUS_SECRET])
    assert known.hides_in_base64("eHl6cTkgT3BhcXVlL0RlcGxveSBLZXkgNzch")
    assert not known.hides_in_base64("header: enE5IE9wYXF1ZS9EZXBsb3kgS2V5IDc3")


# --- every form, in place --------------------------------------------------------------------


@pytest.mark.parametrize("secret", SECRETS)
def test_every_form_is_cut_in_place_and_the_prose_around_it_survives(secret: str) -> None:
    known = KnownSecrets.build([secret])
    for name, form in forms_of(secret).items():
        assert form in known.needles, name
        text = f"before «{form}» after, and again:{form}"
        out, forms = known.cut(text)
        assert out == f"before «{M}» after, and again:{M}", name
        assert forms == 1, name
        assert known.contains(text), name
        assert not known.contains(out), name


def test_json_escaped_slash_and_uppercase_unicode_escape_variants() -> None:
    secret = "a/b\u00e9c\u2028d"
    known = KnownSecrets.build([secret])
    for form in ("a\\/b\\u00e9c\\u2028d", "a/b\\u00E9c\\u2028d", "a\\/b\u00e9c\u2028d"):
        assert known.cut(f'{{"k": "{form}"}}') == (f'{{"k": "{M}"}}', 1)


def test_hex_inside_a_longer_hex_dump_is_cut() -> None:
    known = KnownSecrets.build([CORPUS_SECRET])
    dump = "deadbeef" + CORPUS_SECRET.encode().hex() + "cafe"
    assert known.cut(dump) == (f"deadbeef{M}cafe", 1)


def test_every_occurrence_is_cut_and_each_form_is_one_finding() -> None:
    known = KnownSecrets.build([CORPUS_SECRET])
    b64 = base64.b64encode(CORPUS_SECRET.encode()).decode()
    text = f"{CORPUS_SECRET} {CORPUS_SECRET} {b64} {CORPUS_SECRET}"
    assert known.cut(text) == (f"{M} {M} {M} {M}", 2)


def test_overlapping_forms_of_two_secrets_are_cut_as_their_union() -> None:
    known = KnownSecrets.build(["abcdEFGH", "EFGHijkl"])
    assert known.cut("xx abcdEFGHijkl yy") == (f"xx {M} yy", 2)
    # A secret inside a longer one is not a finding of its own.
    nested = KnownSecrets.build(["Opaque/Deploy", CORPUS_SECRET])
    assert nested.cut(f"<{CORPUS_SECRET}>") == (f"<{M}>", 1)


def test_a_secret_that_is_part_of_the_marker_does_not_shred_earlier_cuts() -> None:
    known = KnownSecrets.build(["known", "t]xy"])
    out, forms = known.cut("a known value")
    assert (out, forms) == (f"a {M} value", 1)
    assert known.cut(out) == (out, 0)
    assert not known.contains(out)
    # "t]xy" only occurs across the end of the marker, which is not a secret.
    assert known.cut(f"{M}xy") == (f"{M}xy", 0)


def test_matching_is_case_sensitive_except_the_hex_variants() -> None:
    known = KnownSecrets.build([CORPUS_SECRET])
    assert known.cut(CORPUS_SECRET.upper()) == (CORPUS_SECRET.upper(), 0)
    mixed = CORPUS_SECRET.encode().hex()[:10].upper() + CORPUS_SECRET.encode().hex()[10:]
    assert known.cut(mixed) == (mixed, 0)


# --- base64 at every byte offset -------------------------------------------------------------


@pytest.mark.parametrize("secret", SECRETS)
@pytest.mark.parametrize(("name", "encode"), list(encoders()))
def test_base64_in_prose_is_cut_at_every_byte_offset(
    secret: str, name: str, encode: Callable[[bytes], str]
) -> None:
    known = KnownSecrets.build([secret])
    data = secret.encode()
    for before in range(6):
        for after in range(6):
            encoded = encode(PREFIX[:before] + data + SUFFIX[:after])
            out, forms = known.cut(f"log: {encoded} end")
            assert out == f"log: {in_place(encoded, before, after, len(data))} end"
            assert forms >= 1
            assert not base64_leaks(out, secret), (name, before, after)
            assert not known.contains(out)


@pytest.mark.parametrize("secret", SECRETS)
@pytest.mark.parametrize(("name", "encode"), list(encoders()))
def test_a_whole_string_payload_is_replaced_whole_at_every_offset(
    secret: str, name: str, encode: Callable[[bytes], str]
) -> None:
    known = KnownSecrets.build([secret])
    for before in range(6):
        for after in range(6):
            payload = encode(PREFIX[:before] + secret.encode() + SUFFIX[:after])
            out, forms = known.cut(payload)
            assert forms == 1
            assert known.hides_in_base64(payload) == (len(payload) >= 8), (name, before, after)
            if len(payload) >= 8:
                assert out == M, (name, before, after)
            else:
                # Below the whole-string minimum the cut is in place.
                assert out == in_place(payload, before, after, len(secret.encode()))
                assert not base64_leaks(out, secret)


def test_the_decode_path_finds_raw_bytes_among_invalid_utf8_and_nested_forms() -> None:
    known = KnownSecrets.build(["naïve-pw"])
    raw = base64.b64encode(b"\xff\xfe\xe2" + "naïve-pw".encode() + b"\xf0\x9f").decode()
    assert known.hides_in_base64(raw)
    nested = base64.b64encode(quote("naïve-pw", safe="").encode()).decode()
    assert known.hides_in_base64(nested)
    assert known.cut(nested) == (M, 1)


def test_the_decode_path_needs_a_whole_base64_string_of_eight_units() -> None:
    known = KnownSecrets.build(["k9#Q"])
    assert not known.hides_in_base64(base64.b64encode(b"unrelated text here").decode())
    assert not known.hides_in_base64("prose with k9#Q in it")
    assert not known.hides_in_base64(base64.b64encode(b"k9#Q").decode() + " ")
    assert not known.hides_in_base64("azkjUQ=")  # 7 units: below the whole-string minimum
    assert known.hides_in_base64(base64.b64encode(b"ak9#Q").decode())  # "YWs5I1E=": 8 units
    assert not EMPTY_KNOWN_SECRETS.hides_in_base64("YWs5I1E=")


# --- the minimum-core rule -------------------------------------------------------------------


def core_of(secret: str, phase: int) -> tuple[str, str, str]:
    """(left flank, core, right flank) of the secret at byte offset `phase` with zero neighbours."""
    data = secret.encode()
    encoded = base64.b64encode(bytes(phase) + data + bytes(2)).decode()
    first, end = (8 * phase + 5) // 6, 8 * (phase + len(data)) // 6
    return encoded[first - 1 : first] if phase else "", encoded[first:end], encoded[end]


def test_a_short_core_counts_only_with_flanks_that_carry_the_secret_bits() -> None:
    secret = "k9#Q"  # 4 bytes: cores of 4 or 5 characters
    known = KnownSecrets.build([secret])
    left, core, right = core_of(secret, 1)
    assert len(core) < MIN_STANDALONE_CORE
    # The bare core, or the core between characters whose bits disagree, is not the secret.
    assert known.cut(f"see {core} here") == (f"see {core} here", 0)
    wrong_left = "/" if left != "/" else "+"  # low bits 1111 never match a secret starting 0x6b
    assert known.cut(f"x{wrong_left}{core}{right}x") == (f"x{wrong_left}{core}{right}x", 0)
    # Any neighbours whose bits agree complete the secret, and the flanks go with the core.
    assert known.cut(f"x.{left}{core}{right}.x") == (f"x.{M}.x", 1)


def test_a_long_core_is_cut_on_its_own_with_whatever_base64_flanks_it() -> None:
    known = KnownSecrets.build([CORPUS_SECRET])
    _, core, _ = core_of(CORPUS_SECRET, 2)
    assert len(core) >= MIN_STANDALONE_CORE
    assert known.cut(f"truncated: {core}") == (f"truncated: {M}", 1)
    assert known.cut(f"odd: ZZ{core}ZZ!") == (f"odd: Z{M}Z!", 1)


def test_short_cores_do_not_cut_random_base64() -> None:
    """Without the flank rule the 4-character cores (24 bits) of 20 four-byte secrets would cut
    this blob by chance about every other seed (400,000 positions / 2^24 x 20); with it a chance
    cut needs all 32 bits to agree, about 0.01 expected hits."""
    rng = random.Random(20240611)
    blob = "image: " + base64.b64encode(rng.randbytes(300_000)).decode() + " end"
    # A character outside base64 keeps the value as written from turning up in the blob.
    secrets = [rng.choice("#!:.") + rng.randbytes(2).hex()[:3] for _ in range(20)]
    known = KnownSecrets.build(secrets)
    assert known.cut(blob) == (blob, 0)


# --- building --------------------------------------------------------------------------------


def test_build_drops_duplicates_and_normalises_lone_surrogates() -> None:
    assert len(KnownSecrets.build([CORPUS_SECRET, CORPUS_SECRET])) == 1
    assert (
        KnownSecrets.build([CORPUS_SECRET]).needles
        == KnownSecrets.build([CORPUS_SECRET] * 3).needles
    )
    known = KnownSecrets.build(["ab\ud800cd", "ab\ufffdcd"])
    assert len(known) == 1
    assert known.cut("x ab\ufffdcd y") == (f"x {M} y", 1)
    # A surrogate pair is one character, not two lone halves.
    assert KnownSecrets.build(["\ud83d\ude00\ud83d\ude00"]).cut("a 😀😀 b") == (f"a {M} b", 1)


def test_needles_are_every_literal_longest_first_and_fit_an_re2_pattern() -> None:
    known = KnownSecrets.build(SECRETS)
    lengths = [len(n) for n in known.needles]
    assert lengths == sorted(lengths, reverse=True)
    assert len(set(known.needles)) == len(known.needles)
    for needle in known.needles:
        needle.encode("utf-8")  # no surrogates: the prefilter encodes them strictly
        assert utf16_units(needle) >= 4


@pytest.mark.parametrize("short", ["", "abc", "😀a", "é\ud800"])
def test_short_secrets_are_refused_naming_the_position_only(short: str) -> None:
    with pytest.raises(KnownSecretError) as caught:
        KnownSecrets.build(["long enough", short])
    assert str(caught.value) == (
        "known secret #2 is shorter than 4 characters (UTF-16 code units); "
        "too short to cut without mangling text"
    )


def test_the_emoji_pair_is_four_units_and_honoured() -> None:
    assert KnownSecrets.build(["😀😀"]).cut("x😀😀x") == (f"x{M}x", 1)


def test_bad_inputs_are_refused_without_their_values() -> None:
    with pytest.raises(KnownSecretError, match="not one string"):
        KnownSecrets.build(CORPUS_SECRET)
    with pytest.raises(KnownSecretError, match=r"#2 is a bytes, not a string"):
        KnownSecrets.build([CORPUS_SECRET, b"opaque-bytes"])  # type: ignore[list-item]


def test_repr_holds_no_secret_and_no_form() -> None:
    known = KnownSecrets.build([CORPUS_SECRET])
    assert repr(known) == "KnownSecrets(1 secrets, 12 forms)"
    assert not any(needle in repr(known) for needle in known.needles)


def test_empty() -> None:
    assert KnownSecrets.build([]) is EMPTY_KNOWN_SECRETS
    assert not EMPTY_KNOWN_SECRETS
    assert EMPTY_KNOWN_SECRETS.needles == ()
    assert EMPTY_KNOWN_SECRETS.cut(f"anything {M}") == (f"anything {M}", 0)
    assert not EMPTY_KNOWN_SECRETS.contains("anything")
    assert KnownSecrets.build(["abcd"])


def test_prose_and_lookalikes_survive() -> None:
    rng = random.Random(7)
    known = KnownSecrets.build(
        ["".join(rng.choice("ABCDEFabcdef0123456789+/ ") for _ in range(12)) for _ in range(20)]
    )
    text = (
        "The agent called search(query='weather in Paris') and got 3 results; tokens=1234. "
        "sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 "
        "trace 4bf92f3577b34da6a3ce929d0e0e4736 uuid 123e4567-e89b-12d3-a456-426614174000 "
        "image data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4 "
    ) * 50
    assert known.cut(text) == (text, 0)


# --- properties ------------------------------------------------------------------------------

_CHARS = st.one_of(
    st.characters(codec=None, exclude_categories=()),  # any code point, lone surrogates included
    st.sampled_from(list("aZ09 +/=-_~!*'()%&?\"\\\n\té😀")),
)
SECRET_TEXT = st.text(_CHARS, min_size=1, max_size=14).filter(lambda s: utf16_units(s) >= 4)
AROUND = st.text(_CHARS, max_size=16)
FORM_NAMES = sorted(forms_of("abcd"))


@st.composite
def embedded(draw: st.DrawFn) -> tuple[str, str]:
    """(secret, text holding one form of it somewhere)."""
    secret = draw(SECRET_TEXT)
    value = normalized(secret)
    if draw(st.booleans()):
        form = forms_of(value)[draw(st.sampled_from(FORM_NAMES))]
    else:
        encode = dict(encoders())[draw(st.sampled_from([n for n, _ in encoders()]))]
        form = encode(draw(st.binary(max_size=5)) + value.encode() + draw(st.binary(max_size=5)))
    return secret, draw(AROUND) + form + draw(AROUND)


_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(embedded())
def test_property_no_form_survives_a_cut(case: tuple[str, str]) -> None:
    secret, text = case
    value = normalized(secret)
    forms = forms_of(value)
    # A form that is part of the marker, or that reaches into it, is public text once cut.
    assume("[" not in value and "]" not in value and not any(f in M for f in forms.values()))
    known = KnownSecrets.build([secret])
    out, found = known.cut(text)
    assert found >= 1
    assert not known.contains(out)
    for name, form in forms.items():
        assert form not in out, name
    assert not base64_leaks(out, value)


@_SETTINGS
@given(embedded(), st.lists(SECRET_TEXT, max_size=3))
def test_property_cut_is_idempotent(case: tuple[str, str], others: list[str]) -> None:
    secret, text = case
    known = KnownSecrets.build([secret, *others])
    out, _ = known.cut(text)
    assert known.cut(out) == (out, 0)


@_SETTINGS
@given(SECRET_TEXT, st.text(_CHARS, max_size=40))
def test_property_text_without_a_form_is_unchanged(secret: str, text: str) -> None:
    value = normalized(secret)
    # No literal form, and no run of base64 characters long enough to hold a core.
    assume(not any(f in text for f in forms_of(value).values()))
    assume(re.search(r"[A-Za-z0-9+/_-]{4,}", text) is None)
    known = KnownSecrets.build([secret])
    assert known.cut(text) == (text, 0)
    assert not known.contains(text)


@_SETTINGS
@given(st.text(_CHARS, max_size=3).filter(lambda s: utf16_units(s) < 4), st.integers(0, 3))
def test_property_short_secrets_are_refused_without_the_value(short: str, position: int) -> None:
    secrets = ["long enough"] * position + [short]
    with pytest.raises(KnownSecretError) as caught:
        KnownSecrets.build(secrets)
    # The message is the same for every short value, so it cannot carry one.
    assert str(caught.value) == (
        f"known secret #{position + 1} is shorter than 4 characters (UTF-16 code units); "
        "too short to cut without mangling text"
    )


# --- one automaton ---------------------------------------------------------------------------


def test_one_automaton_is_built_per_known_secrets_and_reused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = ahocorasick.Automaton
    built: list[Any] = []

    def counting() -> Any:
        automaton = real()
        built.append(automaton)
        return automaton

    # known.py looks the class up on the module each time it builds.
    monkeypatch.setattr(ahocorasick, "Automaton", counting)
    secrets = [f"{i:02d}-opaque deploy value" for i in range(20)]
    known = KnownSecrets.build(secrets)
    assert len(built) == 1
    # Every form of every secret is a key of that one automaton (plus the marker it protects).
    assert len(built[0]) == len(known.needles) + 1
    for _ in range(50):
        known.cut(f"x {secrets[7]} y {secrets[19]}")
        known.contains("nothing")
        known.hides_in_base64("QUJDREVGR0hJ")
    assert len(built) == 1


class _CountingAutomaton:
    """A KnownSecrets' automaton that records each pass over a text: its length and how many
    hits the pass yielded."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.passes: list[tuple[int, int]] = []

    def iter(self, text: str, *args: Any, **kwargs: Any) -> Iterator[Any]:
        found = list(self.inner.iter(text, *args, **kwargs))
        self.passes.append((len(text), len(found)))
        return iter(found)


def _passes_of_cut(known: KnownSecrets, text: str) -> tuple[tuple[str, int], list[tuple[int, int]]]:
    counting = _CountingAutomaton(known._automaton)
    known._automaton = counting
    return known.cut(text), counting.passes


def test_cutting_does_not_slow_down_with_the_number_of_secrets() -> None:
    """1 MB of prose holding one secret, cut with 20 and with 100 secrets (about 1,000 forms):
    one pass of the automaton over the text each, yielding the same hits. That is the cost
    staying flat, counted rather than timed (a timing ratio is the machine's load as much as
    the code's; bench/redact_bench.py times cutting with known secrets): one search per form,
    or a pass per secret, would make hundreds of passes here, and more with more secrets.
    """
    rng = random.Random(3)
    alphabet = "abcdefghijkmnopqrstuvwxyz0123456789/+ "
    secrets = ["".join(rng.choice(alphabet) for _ in range(24)) for _ in range(100)]
    words = [
        "the",
        "agent",
        "called",
        "a",
        "tool",
        "and",
        "read",
        "the",
        "file",
        "before",
        "it",
        "wrote",
        "the",
        "summary",
    ]
    chunks: list[str] = []
    size = 0
    while size < 1_000_000:
        chunk = " ".join(rng.choice(words) for _ in range(40)) + f" key={secrets[0]}.\n"
        chunks.append(chunk)
        size += len(chunk)
    text = "".join(chunks)
    twenty, hundred = KnownSecrets.build(secrets[:20]), KnownSecrets.build(secrets)
    assert len(hundred.needles) > 4 * len(twenty.needles)
    cut_twenty, passes_twenty = _passes_of_cut(twenty, text)
    cut_hundred, passes_hundred = _passes_of_cut(hundred, text)
    assert cut_twenty == cut_hundred
    assert cut_twenty[0].count(KNOWN_SECRET_MARKER) == len(chunks)  # each occurrence cut
    # One pass each over the whole text, and no hit of a secret that is not there.
    assert passes_twenty == passes_hundred == [(len(text), passes_twenty[0][1])]
    assert passes_twenty[0][1] >= len(chunks)
