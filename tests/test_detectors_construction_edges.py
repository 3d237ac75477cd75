"""How detectors are built at import: the validator a vendor-name detector falls back to, the
placeholder words its key may hold, ASCII boundaries, distinct-character floors, and the
registry's refusal of one id twice.

Token-shaped values are assembled at run time from pieces, so no contiguous credential appears in
this file for a secret scanner to trip on.
"""

from __future__ import annotations

import pytest

from redact.detectors import Detector, detector
from redact.detectors.registry import _by_id

_RANDOM_30 = "".join(["Kq7", "Zt2Wm9", "Xp4Lr8", "Vn3Bc6", "Hj5Dg1Fy", "A"])


def _secrets(detector_id: str, text: str) -> list[str]:
    return [text[start:end] for start, end in detector(detector_id).secret_spans(text)]


@pytest.mark.parametrize(
    ("value", "found"),
    [
        (_RANDOM_30, True),
        # Five distinct characters: the shape of a token, not the randomness of one.
        ("abcde" * 6, False),
    ],
)
def test_a_named_detector_with_no_validator_of_its_own_wants_a_random_value(
    value: str, found: bool
) -> None:
    assert _secrets("twitch-token", f"twitch_token={value}") == ([value] if found else [])


@pytest.mark.parametrize(
    ("key", "found"),
    [("twitch_my_token", True), ("twitch_your_token", False), ("twitch_xxx", False)],
)
def test_a_placeholder_word_in_the_key_makes_the_value_a_placeholder(key: str, found: bool) -> None:
    assert _secrets("twitch-token", f"{key}={_RANDOM_30}") == ([_RANDOM_30] if found else [])


@pytest.mark.parametrize("before", ["", "キーは", "clé"])
def test_word_boundaries_are_ascii_so_a_token_glued_to_other_scripts_is_found(before: str) -> None:
    token = _RANDOM_30 + "0b"
    assert _secrets("replicate-token", f"{before}r8_{token}") == [token]


@pytest.mark.parametrize(("distinct", "found"), [(10, True), (9, False)])
def test_a_webhook_path_needs_ten_distinct_characters(distinct: int, found: bool) -> None:
    path = ("abcdefghij"[:distinct] * 4)[:33]
    url = f"https://hooks.slack.com/services/{path}"
    assert _secrets("slack-webhook-url", url) == ([path] if found else [])


def test_the_registry_refuses_two_detectors_with_one_id_and_names_it() -> None:
    one = Detector(id="dup-id", description="d", category="credential", source="a", prefilter="a")
    with pytest.raises(AssertionError, match="two detectors share the id dup-id"):
        _by_id([one, one])
