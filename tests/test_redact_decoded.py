"""Decoded views (issue 12): what a string reads as once escapes, invisible characters,
look-alikes and base64/hex payloads are undone, and the way back to the original text."""

from __future__ import annotations

import base64
import re
import time
import unicodedata
from collections.abc import Iterable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redact import ShareStatus, assess, decoded
from redact.decoded import BUDGET, MAX_DEPTH, TRIGGER, views
from redact.engine import re2
from redact.lookalikes import INVISIBLE, LOOKALIKE, UNICODE_VERSION, fold

TRIGGER_RE2 = re2.compile(TRIGGER.encode())


def texts_of(text: str) -> list[str]:
    return [view.text for view in views(text)]


def original_of(text: str, needle: str) -> str:
    """The stretch of `text` that the first view holding `needle` maps it back to."""
    for view in views(text):
        index = view.text.find(needle)
        if index >= 0:
            start, end = view.span(index, index + len(needle))
            return text[start:end]
    raise AssertionError(f"no view holds {needle!r}")


# --- the tables ---------------------------------------------------------------------------------


def _ranges(predicate: object) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF or not predicate(code):  # type: ignore[operator]
            continue
        if out and out[-1][1] == code - 1:
            out[-1][1] = code
        else:
            out.append([code, code])
    return [(a, b) for a, b in out]


def _invisible(code: int) -> bool:
    char = chr(code)
    if char in "\t\n\x0b\x0c\r":
        return False
    return (
        unicodedata.category(char) in ("Cf", "Cc")
        or code == 0x034F
        or 0xFE00 <= code <= 0xFE0F
        or 0xE0100 <= code <= 0xE01EF
        or code in (0x115F, 0x1160, 0x3164, 0xFFA0)
        or 0x180B <= code <= 0x180D
    )


def _lookalike(code: int) -> bool:
    if code < 0x80 or _invisible(code):
        return False
    char = chr(code)
    folded = unicodedata.normalize("NFKC", char)
    return (
        folded != char
        and folded.isascii()
        and not folded.isspace()
        and folded.strip() == folded
        and (folded.isalnum() or len(folded) == 1)
    )


# The tables hold what their own Unicode version (UNICODE_VERSION, Python 3.11's `unicodedata`)
# says, and what later versions add to the same definitions (characters assigned since, which a
# renderer of that version shows as it defines them): those are recorded here per version
# (computed with unicodedata2 15.0.0 and 15.1.0, Python 3.12's and 3.13's). The tables are
# checked on every Python the project supports, not skipped; an unrecorded version fails,
# asking for its additions.
ASSIGNED_SINCE: dict[str, dict[str, list[tuple[int, int]]]] = {
    UNICODE_VERSION: {"invisible": [], "lookalike": []},
    # Egyptian hieroglyph format controls (Cf), insert-at-middle to end-walled-enclosure.
    "15.0.0": {"invisible": [(0x13439, 0x1343F)], "lookalike": []},
    "15.1.0": {"invisible": [(0x13439, 0x1343F)], "lookalike": []},
}


def _points(ranges: Iterable[tuple[int, int]]) -> set[int]:
    return {code for first, last in ranges for code in range(first, last + 1)}


# Not a format character, but what stands where undecodable bytes were: seen through too.
REPLACEMENT = 0xFFFD


def _later(kind: str) -> set[int]:
    return set().union(*(_points(added[kind]) for added in ASSIGNED_SINCE.values()))


def test_the_tables_are_what_unicodedata_says_with_what_later_versions_add() -> None:
    version = unicodedata.unidata_version
    assert version in ASSIGNED_SINCE, (
        f"unicodedata {version}: record in ASSIGNED_SINCE what it adds to the tables of "
        f"Unicode {UNICODE_VERSION}"
    )
    invisible, lookalike = _later("invisible") | {REPLACEMENT}, _later("lookalike")
    if version == UNICODE_VERSION:  # ranges and their order, exactly
        assert list(INVISIBLE) == _ranges(lambda code: _invisible(code) or code in invisible)
        assert list(LOOKALIKE) == _ranges(lambda code: _lookalike(code) or code in lookalike)
    assert _points(INVISIBLE) == _points(_ranges(_invisible)) | invisible
    assert _points(LOOKALIKE) == _points(_ranges(_lookalike)) | lookalike


def test_what_later_versions_add_is_new_to_them() -> None:
    later = _later("invisible") | _later("lookalike")
    assert later and later <= _points(INVISIBLE) | _points(LOOKALIKE)
    if unicodedata.unidata_version == UNICODE_VERSION:
        # Unassigned in the tables' own version: an addition, not a character the tables missed.
        assert {unicodedata.category(chr(code)) for code in later} == {"Cn"}


@pytest.mark.parametrize("control", ["\U00013439", "\U0001343f", "\ufffd"])
def test_a_later_format_control_inside_a_key_is_seen_through(control: str) -> None:
    # Shown as nothing by a renderer of Unicode 15, unassigned in Python 3.11's tables; and the
    # replacement character, where a proxy repaired bytes that were not UTF-8.
    for key in (
        "gh" + control + "p_" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        "sk-" + control + "proj-" + "abcdEFGH1234ijklMNOP5678qrst",
    ):
        assert assess({"note": f"use {key}"}, profile="share").status is ShareStatus.UNSAFE


@pytest.mark.parametrize(
    ("char", "folded"),
    [
        ("\u200b", ""),  # zero-width space
        ("\u200c", ""),  # zero-width non-joiner
        ("\u200d", ""),  # zero-width joiner
        ("\u2060", ""),  # word joiner
        ("\u00ad", ""),  # soft hyphen
        ("\x00", ""),  # NUL
        ("\ufeff", ""),  # byte-order mark
        ("\ufe0f", ""),  # variation selector
        ("ｓ", "s"),  # fullwidth
        ("－", "-"),
        ("＠", "@"),
        ("\U0001d42c", "s"),  # mathematical bold small s
        ("ⓢ", "s"),
        ("™", "TM"),
        ("…", "…"),  # an ellipsis hides no character of a credential
        ("½", "½"),
        ("\u00a0", "\u00a0"),  # a no-break space stays a space
        ("é", "é"),
        ("а", "а"),  # Cyrillic: NFKC leaves it
        ("\t", "\t"),
        ("\n", "\n"),
    ],
)
def test_fold(char: str, folded: str) -> None:
    assert fold(char) == folded


# --- each layer ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reads", "original"),
    [
        ("to=jane%40example.test&x=1", "jane@example.test", "jane%40example.test"),
        ("k=%6A%61%6E%65", "jane", "%6A%61%6E%65"),
        ("k=%6a%61%6E%65", "jane", "%6a%61%6E%65"),  # mixed case
        ("k=%2540", "%40", "%2540"),  # one layer at a time
        ("mailto:j%C3%B6rg@ex%C3%A4mple.de", "jörg@exämple.de", "j%C3%B6rg@ex%C3%A4mple.de"),
        ("v=\\u0073k-1", "sk-1", "\\u0073k-1"),
        ("v=\\u0073\\u006b", "sk", "\\u0073\\u006b"),
        ("v=\\\\u0073k", "sk", "\\\\u0073k"),  # JSON inside JSON: both escapes are the original
        ("v=\\ud83d\\ude00!", "😀!", "\\ud83d\\ude00!"),
        ("v=\\u{73}k", "sk", "\\u{73}k"),
        ("v=\\x73k", "sk", "\\x73k"),
        ("v=&#115;&#x6B;", "sk", "&#115;&#x6B;"),
        ("u=https:\\/\\/a:b@h", "https://a:b@h", "https:\\/\\/a:b@h"),
        ("x s\u200bk\u00ad-\u2060p\x00w", "sk-pw", "s\u200bk\u00ad-\u2060p\x00w"),
        ("x ｓｋ－ｐｗ", "sk-pw", "ｓｋ－ｐｗ"),
        ("x \ufeffsk", "sk", "sk"),  # an invisible character at the edge is no part of a match
    ],
)
def test_the_character_layer(text: str, reads: str, original: str) -> None:
    assert any(reads in view for view in texts_of(text))
    assert original_of(text, reads) == original


def test_a_lone_surrogate_escape_or_a_broken_percent_sequence_reads_as_written() -> None:
    assert "\\ud800" in texts_of("a \\ud800 \\u0041")[0]
    assert texts_of("%C3%28 %41")[0] == "%C3( A"


@pytest.mark.parametrize(
    "encode",
    [
        lambda b: base64.b64encode(b).decode(),
        lambda b: base64.b64encode(b).decode().rstrip("="),
        lambda b: base64.urlsafe_b64encode(b).decode().rstrip("="),
        lambda b: b.hex(),
        lambda b: b.hex().upper(),
        lambda b: "0x" + b.hex(),
    ],
    ids=["base64", "unpadded", "base64url", "hex", "HEX", "0x"],
)
@pytest.mark.parametrize("before", ["", "note: ", '{"v":"', "path/", "\n"])
def test_payloads_decode_whole(encode: object, before: str) -> None:
    payload = encode(b"header: jane@example.test and more")  # type: ignore[operator]
    text = f"{before}{payload} end"
    assert original_of(text, "jane@example.test") == payload.removeprefix("0x")


def test_a_wrapped_payload_decodes_across_its_lines() -> None:
    data = b"x" * 50 + b" token jane@example.test " + b"y" * 50
    wrapped = base64.encodebytes(data).decode()  # lines of 76 characters
    assert wrapped.count("\n") > 1
    text = f"body:\n{wrapped}(end)"
    assert original_of(text, "token jane@example.test") == wrapped.rstrip("\n")


def test_nested_encodings_decode_layer_by_layer() -> None:
    inner = "%73%6B%2D%70%77"  # sk-pw, every byte escaped
    text = "b " + base64.b64encode(inner.encode()).decode() + " e"
    assert "sk-pw" in texts_of(text)[-1]
    assert original_of(text, "sk-pw") == base64.b64encode(inner.encode()).decode()
    hexed = "h " + base64.b64encode(b"sk-pw is here").decode().encode().hex() + " e"
    assert any("sk-pw" in view for view in texts_of(hexed))


def test_text_that_decodes_to_nothing_new_has_no_view() -> None:
    for text in ["plain prose, nothing encoded.", "call_RVACe2xktNWUJ5bYdF3xu8Im", "", "100%"]:
        assert views(text) == ()


# --- the prefilter never misses what a view would decode ----------------------------------------

_PIECES = [
    "%40",
    "%e2%80%8b",
    "\\u0040",
    "\\x40",
    "&#64;",
    "\u200b",
    "ｓ",
    base64.b64encode(b"jane@example.test").decode(),
    b"jane@example.test".hex(),
    " ",
    "/",
    "x",
    "0x",
    "=",
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=6)), max_size=6).map("".join))
def test_the_trigger_matches_wherever_a_view_decodes_something(text: str) -> None:
    # `\/` and `\\` decode too, but trigger nothing alone (only a URL's `:\/\/` does): they
    # hide no character of a credential by themselves.
    if views(re.sub(r"\\(?![ux])", " ", text)):
        assert TRIGGER_RE2.search(text.encode("utf-8", "surrogatepass")), text


_ESCAPE_PIECES = [
    *_PIECES,
    "%",
    "%4",
    "\\",
    "\\\\",
    "\\/",
    "\\u{1F600}",
    "\\u00",
    "\\n",
    "&#x40;",
    "&#",
    "\x00",
    "\x7f",
    "\t",
    "é",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_ESCAPE_PIECES), st.text(max_size=4)), max_size=8))
def test_escapes_are_found_only_where_one_can_begin_as_a_full_scan_finds_them(
    pieces: list[str],
) -> None:
    text = "".join(pieces)
    found = [(m.span(), m.lastgroup) for m in decoded._escapes(text)]
    assert found == [(m.span(), m.lastgroup) for m in decoded._CHARACTERS.finditer(text)]


# The starts of base64 and hex payloads as first written, look-behind first: the oracle.
_PLAIN_STARTS = {
    "base64": re.compile(f"(?<![A-Za-z0-9+_-])(?:{decoded._GROUP}){{3}}"),
    "hex": re.compile(f"(?:(?<![0-9A-Za-z])|(?<=0[xX])){decoded._HEX_ASCII}"),
}
_PAYLOAD_PIECES = [
    base64.b64encode(b"jane@example.test").decode(),
    "QUJD",
    "QUJDREVG",
    b"jane@".hex(),
    "41424344",
    "0x",
    "0X",
    "x",
    "Z",
    "9",
    "+",
    "_",
    "-",
    "/",
    " ",
    "=",
    "é",
]


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(sorted(_PLAIN_STARTS)),
    st.lists(st.one_of(st.sampled_from(_PAYLOAD_PIECES), st.text(max_size=3)), max_size=8),
    st.integers(min_value=0, max_value=4),
)
def test_payload_starts_are_found_where_the_plain_patterns_find_them(
    layer: str, pieces: list[str], position: int
) -> None:
    text = "".join(pieces)
    fast = decoded._BASE64_START if layer == "base64" else decoded._HEX_START
    found = fast.search(text, position)
    expected = _PLAIN_STARTS[layer].search(text, position)
    assert (found and found.span()) == (expected and expected.span())


# --- bounds -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "unit",
    [
        "%25",  # each layer peels one %25
        "%41",
        "\\u0041",
        "\u200b",
        "ｓ",
        "㎈",  # the longest fold (three letters for one character)
        base64.b64encode(b"abc").decode(),
        base64.b64encode(base64.b64encode(b"abcdefghi")).decode() + " ",
        "41" * 6 + " ",
        "a%",
        "&#65;",
    ],
)
def test_views_are_linear_and_bounded(unit: str) -> None:
    text = (unit * (100_000 // len(unit) + 1))[:100_000]
    started = time.process_time()
    found = views(text)
    spent = time.process_time() - started
    assert spent < 5.0, unit
    assert len(found) <= 3 + 9 + 27
    assert sum(len(view.text) for view in found) <= BUDGET * len(text)


def test_nesting_stops_at_the_depth_bound() -> None:
    # Four layers of percent-encoding over `s`: each layer peels one.
    reads = texts_of("x %2525252573")
    assert reads == ["x %25252573", "x %252573", "x %2573"][:MAX_DEPTH]


def test_a_view_never_shows_its_text_in_repr() -> None:
    (view,) = views("k=%73%65%63%72%65%74")
    assert "secret" not in repr(view)
