"""The batch prescan: one RE2 pass over many strings flags every string a detector could match."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import redact
from redact.known import KnownSecrets
from redact.scan import Prefilter

SHARE = redact.PROFILES["share"]
PROVIDER_KEY = "sk-" + "proj-" + "abcdEFGH1234ijklMNOP5678qrst"
KNOWN = "zq9 Opaque/Deploy Key 77"


def prefilter(known: KnownSecrets | None = None) -> Prefilter:
    detectors = SHARE.credential_detectors + SHARE.personal_detectors
    return Prefilter(detectors, known or KnownSecrets.build([KNOWN]))


def test_flags_strings_in_every_chunk_and_at_their_edges() -> None:
    filler = ["the agent read the file and summarised it " * 20] * 200  # about 1.7 MB
    strings = [*filler, f"key {PROVIDER_KEY}", *filler, KNOWN, "é " + PROVIDER_KEY, "plain"]
    flagged = prefilter().flag(strings).any
    assert flagged == {f"key {PROVIDER_KEY}", KNOWN, "é " + PROVIDER_KEY}


fragments = st.sampled_from(
    [PROVIDER_KEY, KNOWN, "ada@example.test", "4111 1111 1111 1111", "token=", " ", "\n", "é", ""]
)
texts = st.lists(st.one_of(fragments, st.text(max_size=8)), max_size=5).map("".join)


@settings(max_examples=200)
@given(st.lists(texts, max_size=12))
def test_the_batch_flags_at_least_what_each_string_alone_would(strings: list[str]) -> None:
    scan = prefilter()
    flagged = scan.flag(strings).any
    assert {s for s in strings if scan.may_hold(s)} <= flagged
