"""The longest common subsequence of two sequences of keys, in bounded time and memory.

A region (a stretch of each sequence) is aligned in the first way that applies:

1. its common head and tail are matched as they are (a run against itself costs one pass);
2. a small region (at most `EXACT_CELLS` pairs of positions) by the exact LCS, its table of
   lengths computed a row at a time, each row one integer's bits (O(n·m/64) machine words);
3. a large one is split at anchors, as patience diff does: the keys that occur once in each
   side, the longest increasing run of their positions kept (n·log n), each stretch between
   anchors a region of its own;
4. a large region with no such key is matched greedily: at each position the nearer next
   occurrence is taken, the other side's calls skipped (linear, with bisection).

Every match is a pair of indices, increasing in both sequences. Keys are compared by equality
(they are interned to integers first, so a comparison is cheap whatever the key).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Hashable, Sequence

__all__ = ["EXACT_CELLS", "common_pairs"]

EXACT_CELLS = 1 << 24  # 4096 × 4096: 4096 rows of 512 bytes, a few tenths of a second at most

Region = tuple[int, int, int, int]


def common_pairs(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int]]:
    """Index pairs (i, j) with a[i] == b[j], increasing in both, as long as the strategy of
    each region finds (see the module docstring)."""
    ids: dict[Hashable, int] = {}
    x = [ids.setdefault(key, len(ids)) for key in a]
    y = [ids.setdefault(key, len(ids)) for key in b]
    pairs: list[tuple[int, int]] = []
    regions: list[Region] = [(0, len(x), 0, len(y))]
    while regions:
        alo, ahi, blo, bhi = _trimmed(x, y, regions.pop(), pairs)
        if alo == ahi or blo == bhi:
            continue
        if (ahi - alo) * (bhi - blo) <= EXACT_CELLS:
            pairs.extend(_exact(x, y, alo, ahi, blo, bhi))
            continue
        anchors = _anchors(x, y, alo, ahi, blo, bhi)
        if not anchors:
            pairs.extend(_greedy(x, y, alo, ahi, blo, bhi))
            continue
        pairs.extend(anchors)
        i, j = alo, blo
        for ai, bj in anchors:
            regions.append((i, ai, j, bj))
            i, j = ai + 1, bj + 1
        regions.append((i, ahi, j, bhi))
    pairs.sort()
    return pairs


def _trimmed(x: list[int], y: list[int], region: Region, pairs: list[tuple[int, int]]) -> Region:
    """The region less its common head and tail, which are matched."""
    alo, ahi, blo, bhi = region
    while alo < ahi and blo < bhi and x[alo] == y[blo]:
        pairs.append((alo, blo))
        alo, blo = alo + 1, blo + 1
    while alo < ahi and blo < bhi and x[ahi - 1] == y[bhi - 1]:
        ahi, bhi = ahi - 1, bhi - 1
        pairs.append((ahi, bhi))
    return alo, ahi, blo, bhi


def _exact(
    x: list[int], y: list[int], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """The LCS, bit-parallel (Hyyrö's row recurrence on Python integers: one row of the table
    is one integer whose zero bits count the matches so far), then walked back from the end.
    `rows[i]` is the row after x[alo:alo+i]; the LCS of that prefix and y[blo:blo+j] is the
    number of zero bits among its low j bits."""
    m = bhi - blo
    full = (1 << m) - 1
    where: dict[int, int] = {}  # key -> the bits of the positions of y holding it
    for j in range(m):
        key = y[blo + j]
        where[key] = where.get(key, 0) | (1 << j)
    rows = [full]
    row = full
    for i in range(alo, ahi):
        matched = row & where.get(x[i], 0)
        row = ((row + matched) | (row - matched)) & full
        rows.append(row)
    pairs = []
    i, j = ahi - alo, m
    while i > 0 and j > 0:
        here = _lcs(rows[i], j)
        if x[alo + i - 1] == y[blo + j - 1] and _lcs(rows[i - 1], j - 1) + 1 == here:
            pairs.append((alo + i - 1, blo + j - 1))
            i, j = i - 1, j - 1
        elif _lcs(rows[i - 1], j) == here:
            i -= 1
        else:
            j -= 1
    pairs.reverse()
    return pairs


def _lcs(row: int, j: int) -> int:
    """The matches among the low `j` bits of a row: its zero bits there."""
    return j - (row & ((1 << j) - 1)).bit_count()


def _anchors(
    x: list[int], y: list[int], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """The keys that occur once in each side of the region, as (i, j) pairs: the longest run
    of them increasing in both (patience sorting)."""
    once_a: dict[int, int] = {}
    for i in range(alo, ahi):
        key = x[i]
        once_a[key] = -1 if key in once_a else i
    once_b: dict[int, int] = {}
    for j in range(blo, bhi):
        key = y[j]
        if once_a.get(key, -1) >= 0:
            once_b[key] = -1 if key in once_b else j
    candidates = sorted((once_a[key], j) for key, j in once_b.items() if j >= 0)
    return _increasing(candidates)


def _increasing(candidates: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of `candidates` (sorted by i, distinct j) increasing in j."""
    tails: list[int] = []  # the j ending the best run of each length
    ends: list[int] = []  # which candidate that is
    before: list[int] = []  # the candidate before each in its run
    for index, (_, j) in enumerate(candidates):
        length = bisect_left(tails, j)
        if length == len(tails):
            tails.append(j)
            ends.append(index)
        else:
            tails[length] = j
            ends[length] = index
        before.append(ends[length - 1] if length else -1)
    chain = []
    at = ends[-1] if ends else -1
    while at >= 0:
        chain.append(candidates[at])
        at = before[at]
    chain.reverse()
    return chain


def _greedy(
    x: list[int], y: list[int], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """Match in one pass: where the keys differ, skip to whichever next occurrence is nearer
    (of x's key in y, or of y's key in x); where neither recurs, skip both."""
    in_x: dict[int, list[int]] = {}
    for i in range(alo, ahi):
        in_x.setdefault(x[i], []).append(i)
    in_y: dict[int, list[int]] = {}
    for j in range(blo, bhi):
        in_y.setdefault(y[j], []).append(j)
    pairs = []
    i, j = alo, blo
    while i < ahi and j < bhi:
        if x[i] == y[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
            continue
        next_j = _next(in_y.get(x[i]), j)
        next_i = _next(in_x.get(y[j]), i)
        if next_j is None and next_i is None:
            i, j = i + 1, j + 1
        elif next_i is None or (next_j is not None and next_j - j <= next_i - i):
            j = next_j  # type: ignore[assignment]
        else:
            i = next_i
    return pairs


def _next(positions: list[int] | None, at: int) -> int | None:
    """The first position at or after `at`."""
    if not positions:
        return None
    index = bisect_left(positions, at)
    return positions[index] if index < len(positions) else None
