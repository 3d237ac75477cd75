"""Aligning two runs' tool calls: which call of the run is which call of the baseline.

1. The calls equal in tool, position and arguments are aligned as a longest common
   subsequence (tracecheck.diff.sequence): the runs' shared backbone.
2. In each stretch between backbone calls, the calls equal in tool and position are aligned
   the same way (their arguments differ), then those equal in tool alone (their position
   differs too). A call is never aligned with a call of another tool.
3. What is left is paired across the whole run by tool (same arguments first, then same
   position, then in order): such a call ran in both runs, elsewhere in the order, and is
   `reordered`. Whatever has no partner is missing from the run, or added by it.

The calls of a parallel group may run in any order: once aligned, each group's calls are put
in the order of their partners in the other run and the runs aligned again, so that a group
whose calls the other run made one by one, in some order, is not read as reordered.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from tracecheck.diff.calls import Call
from tracecheck.diff.sequence import common_pairs

__all__ = ["Alignment", "align_calls"]

Pairs = list[tuple[int, int]]


@dataclass(frozen=True, slots=True)
class Alignment:
    """Both runs' calls in the order they were aligned in, and the alignment: `kept` pairs
    (increasing in both runs), `moved` pairs (reordered), and the calls with no partner."""

    baseline: tuple[Call, ...]
    run: tuple[Call, ...]
    kept: tuple[tuple[int, int], ...]
    moved: tuple[tuple[int, int], ...]
    missing: tuple[int, ...]
    added: tuple[int, ...]


def align_calls(baseline: Sequence[Call], run: Sequence[Call]) -> Alignment:
    """The alignment of the run's calls with the baseline's (see the module docstring)."""
    first = _align(tuple(baseline), tuple(run))
    partner_of_base = {i: j for i, j in (*first.kept, *first.moved)}
    partner_of_run = {j: i for i, j in partner_of_base.items()}
    base = _by_partners(first.baseline, partner_of_base)
    again = _by_partners(first.run, partner_of_run)
    if base == first.baseline and again == first.run:
        return first
    return _align(base, again)


def _align(baseline: tuple[Call, ...], run: tuple[Call, ...]) -> Alignment:
    kept = common_pairs([c.exact for c in baseline], [c.exact for c in run])
    kept = _in_gaps(baseline, run, kept, lambda call: call.placed)
    kept = _in_gaps(baseline, run, kept, lambda call: call.tool)
    moved, missing, added = _moved(baseline, run, kept)
    return Alignment(baseline, run, tuple(kept), tuple(moved), tuple(missing), tuple(added))


def _in_gaps(
    baseline: tuple[Call, ...],
    run: tuple[Call, ...],
    kept: Pairs,
    key: Callable[[Call], Hashable],
) -> Pairs:
    """`kept`, and the pairs of `key`-equal calls aligned in each stretch between them."""
    found: Pairs = []
    before_i, before_j = -1, -1
    for i, j in [*kept, (len(baseline), len(run))]:
        if i - before_i > 1 and j - before_j > 1:
            left = [key(call) for call in baseline[before_i + 1 : i]]
            right = [key(call) for call in run[before_j + 1 : j]]
            found.extend((before_i + 1 + a, before_j + 1 + b) for a, b in common_pairs(left, right))
        before_i, before_j = i, j
    if not found:
        return kept
    return sorted([*kept, *found])


def _moved(
    baseline: tuple[Call, ...], run: tuple[Call, ...], kept: Pairs
) -> tuple[Pairs, list[int], list[int]]:
    """The calls left over paired by tool across the run (same arguments first, then same
    position, then any), and what stays without a partner on each side."""
    left_taken, right_taken = {i for i, _ in kept}, {j for _, j in kept}
    left = [i for i in range(len(baseline)) if i not in left_taken]
    right = [j for j in range(len(run)) if j not in right_taken]
    moved: Pairs = []
    for key in (_exact, _placed, _tool):
        waiting: dict[Hashable, deque[int]] = {}
        for j in right:
            waiting.setdefault(key(run[j]), deque()).append(j)
        paired: set[int] = set()
        rest = []
        for i in left:
            queue = waiting.get(key(baseline[i]))
            if queue:
                j = queue.popleft()
                moved.append((i, j))
                paired.add(j)
            else:
                rest.append(i)
        left = rest
        right = [j for j in right if j not in paired]
    moved.sort()
    return moved, left, right


def _exact(call: Call) -> Hashable:
    return call.exact


def _placed(call: Call) -> Hashable:
    return call.placed


def _tool(call: Call) -> Hashable:
    return call.tool


def _by_partners(calls: tuple[Call, ...], partner: dict[int, int]) -> tuple[Call, ...]:
    """The calls with each parallel group's members in the order of their partners (those
    with none after them, in the order they had)."""
    ordered: list[Call] = []
    start = 0
    while start < len(calls):
        end = start + 1
        while end < len(calls) and calls[end].step == calls[start].step:
            end += 1
        members = list(range(start, end))
        if len(members) > 1:
            members.sort(key=lambda i: (0, partner[i]) if i in partner else (1, i))
        ordered.extend(calls[i] for i in members)
        start = end
    return tuple(ordered)
