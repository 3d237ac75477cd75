"""The alignment's sequence matching: always a common subsequence, the longest one on regions
small enough for the exact table, all of it for two equal sequences, and a useful one past
that (patience anchors, then a greedy pass) in bounded time."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck.diff import sequence
from tracecheck.diff.sequence import common_pairs

keys = st.lists(st.sampled_from("abcde"), max_size=40)


def lcs_length(a: list[str], b: list[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        row = [0]
        for j, y in enumerate(b):
            row.append(previous[j] + 1 if x == y else max(previous[j + 1], row[j]))
        previous = row
    return previous[-1]


def is_common(a: list[str], b: list[str], pairs: list[tuple[int, int]]) -> bool:
    increasing = all(i1 < i2 and j1 < j2 for (i1, j1), (i2, j2) in pairwise(pairs))
    return increasing and all(a[i] == b[j] for i, j in pairs)


@given(keys, keys)
def test_small_regions_get_the_longest_common_subsequence(a: list[str], b: list[str]) -> None:
    pairs = common_pairs(a, b)
    assert is_common(a, b, pairs)
    assert len(pairs) == lcs_length(a, b)


@given(keys, keys)
@settings(max_examples=300)
def test_large_regions_still_give_a_common_subsequence(a: list[str], b: list[str]) -> None:
    # Every region past four cells is "large": anchors and the greedy pass do the work.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sequence, "EXACT_CELLS", 4)
        pairs = common_pairs(a, b)
    assert is_common(a, b, pairs)
    assert common_pairs(a, a) == [(i, i) for i in range(len(a))]


@given(keys)
def test_a_sequence_matches_itself_whole(a: list[str]) -> None:
    assert common_pairs(a, a) == [(i, i) for i in range(len(a))]


def test_anchors_split_a_large_region_at_keys_unique_to_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sequence, "EXACT_CELLS", 4)
    a = ["x", "x", "U", "y", "y", "V", "z"]
    b = ["y", "U", "x", "y", "V", "z", "z"]
    pairs = common_pairs(a, b)
    assert (2, 1) in pairs and (5, 4) in pairs  # U and V anchor the alignment
    assert is_common(a, b, pairs)


def test_the_greedy_pass_skips_to_the_nearer_match(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sequence, "EXACT_CELLS", 4)
    # No common head or tail, no key unique to both: the greedy pass. At a/b the next b in
    # the first and the next a in the second are as near: the second skips one, then all match.
    a = ["a", "b", "a", "b"]
    b = ["b", "a", "b", "a"]
    assert common_pairs(a, b) == [(0, 1), (1, 2), (2, 3)]


def test_unrelated_long_runs_align_in_one_pass() -> None:
    # 20k calls each over three tools, no key unique: far past the exact table.
    a = [("abc"[(i * 7) % 3],) for i in range(20_000)]
    b = [("abc"[(i * 5) % 3],) for i in range(20_000)]
    pairs = common_pairs(a, b)
    assert is_common([k[0] for k in a], [k[0] for k in b], pairs)
    assert len(pairs) > 10_000
