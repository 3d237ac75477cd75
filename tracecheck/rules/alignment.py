"""Matching a run's calls to a reference trajectory, in each mode, as data.

A reference is a list of steps: one expected call, or a `parallel` group whose members may come
in any order, concurrent or not. A run is its steps (rules/steps.py). `holds(expected, call)`
says whether a call is the call an entry expects. Every function returns what matched and what
did not, so the rule can say where the run parts from the reference; none of them reads values.

- `any-order`: the same calls, as multisets (two lookups are two), order and grouping aside;
- `superset`: every expected call has a call of its own, and the run may do more;
- `subset`: every call has an expected call of its own, and the run may do less;
- `in-order`: the reference is a subsequence of the run: each step is found after the one
  before it, a sequential pair never in one parallel step of the run, a group anywhere in a
  stretch of steps of its own;
- `exact`: in-order with nothing else: a sequential entry is a step of that one call, a group
  is a stretch of steps holding exactly its members.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Matching", "Walk", "assign", "in_order", "lockstep"]

E = TypeVar("E")  # an expected call
C = TypeVar("C")  # a recorded call
Holds = Callable[[E, C], bool]


@dataclass(frozen=True, slots=True)
class Matching(Generic[E, C]):
    """A one-to-one matching: `pairs` (expected index, call index), and what is left over."""

    pairs: tuple[tuple[int, int], ...]
    missing: tuple[int, ...]  # expected entries matched by no call
    extra: tuple[int, ...]  # calls that match no expected entry


def assign(
    expected: Sequence[E],
    calls: Sequence[C],
    holds: Holds[E, C],
    key: Callable[[E | C], object] | None = None,
) -> Matching[E, C]:
    """A maximum one-to-one matching of expected entries to calls (augmenting paths, tried in
    order so the earliest calls are taken first). With `key` (a tool name, say), an entry is
    tried only on calls of its own key."""
    owner: dict[int, int] = {}  # call index -> expected index
    pools: list[Sequence[int]]
    if key is None:
        pools = [range(len(calls))] * len(expected)
    else:
        by_key: dict[object, list[int]] = {}
        for j, call in enumerate(calls):
            by_key.setdefault(key(call), []).append(j)
        pools = [by_key.get(key(e), []) for e in expected]
    known: dict[tuple[int, int], bool] = {}

    def fits(i: int, j: int) -> bool:  # asked lazily: most entries take their first call
        found = known.get((i, j))
        if found is None:
            found = known[i, j] = holds(expected[i], calls[j])
        return found

    matched = {i for i in range(len(expected)) if _augment(i, pools, fits, owner)}
    pairs = tuple(sorted((i, j) for j, i in owner.items()))
    missing = tuple(i for i in range(len(expected)) if i not in matched)
    extra = tuple(j for j in range(len(calls)) if j not in owner)
    return Matching(pairs, missing, extra)


def _augment(
    start: int,
    pools: list[Sequence[int]],
    fits: Callable[[int, int], bool],
    owner: dict[int, int],
) -> bool:
    """Find a call for entry `start`, moving earlier entries to other calls of theirs along
    one path if need be (depth-first, without recursion: references may be long). Each entry
    on the path takes a free call of its own before any is moved: descending first made a run
    of n interchangeable calls cost n³ fits."""
    seen: set[int] = set()
    stack: list[tuple[int, Iterator[int]]] = []
    via: list[int] = []  # the call each level hands on to the entry of the level below it
    entry = start
    while True:
        free = next((j for j in pools[entry] if j not in owner and fits(entry, j)), None)
        if free is not None:
            owner[free] = entry
            for level, call in enumerate(via):
                owner[call] = stack[level][0]
            return True
        stack.append((entry, iter(pools[entry])))
        while stack:
            entry, options = stack[-1]
            moved = next(
                (j for j in options if j in owner and j not in seen and fits(entry, j)), None
            )
            if moved is not None:
                seen.add(moved)
                via.append(moved)
                entry = owner[moved]
                break
            stack.pop()
            if via:
                via.pop()
        else:
            return False


@dataclass(frozen=True, slots=True)
class Walk:
    """Where each reference step was found in the run: `found[k]` is the run steps (first,
    last) that hold reference step k, or None when it was not found after the step before it;
    `pairs` matches (reference step, member) to (run step, call)."""

    found: tuple[tuple[int, int] | None, ...]
    pairs: tuple[tuple[tuple[int, int], tuple[int, int]], ...]

    @property
    def complete(self) -> bool:
        return all(span is not None for span in self.found)


def in_order(
    reference: Sequence[Sequence[E]],
    run: Sequence[Sequence[C]],
    holds: Holds[E, C],
    key: Callable[[E | C], object] | None = None,
) -> Walk:
    """Each reference step (its members) in the earliest stretch of run steps after the one
    before it where all its members find distinct calls. A step not found is skipped, and the
    next is sought from the same place, so one missing call does not hide the rest."""
    found: list[tuple[int, int] | None] = []
    pairs: list[tuple[tuple[int, int], tuple[int, int]]] = []
    start = 0
    for k, members in enumerate(reference):
        stretch = _earliest_stretch(members, run, start, holds, key)
        if stretch is None:
            found.append(None)
            continue
        first, last, matched = stretch
        found.append((first, last))
        pairs += [((k, i), place) for i, place in matched]
        start = last + 1
    return Walk(tuple(found), tuple(pairs))


def _earliest_stretch(
    members: Sequence[E],
    run: Sequence[Sequence[C]],
    start: int,
    holds: Holds[E, C],
    key: Callable[[E | C], object] | None,
) -> tuple[int, int, list[tuple[int, tuple[int, int]]]] | None:
    """(first, last, [(member, (run step, call))]) of the shortest stretch from the first run
    step that holds one of the members to the first step by which all of them are held.

    Whether a stretch holds every member only grows with its end: the rest of the run is tried
    once, and the end found by bisection, so a step the run never completes costs one matching,
    not one per run step."""
    known: dict[tuple[int, int], bool] = {}

    def fits(member: E, call: C) -> bool:  # asked again and again as stretches grow
        found = known.get((id(member), id(call)))
        if found is None:
            found = known[id(member), id(call)] = holds(member, call)
        return found

    def matched(first: int, last: int) -> list[tuple[int, tuple[int, int]]] | None:
        places = [(s, j) for s in range(first, last + 1) for j in range(len(run[s]))]
        matching = assign(members, [run[s][j] for s, j in places], fits, key)
        return None if matching.missing else [(i, places[j]) for i, j in matching.pairs]

    keys = None if key is None else {key(member) for member in members}
    for first in range(start, len(run)):
        step = run[first]
        if keys is not None and not any(key(call) in keys for call in step):  # type: ignore[misc]
            continue
        if not any(fits(member, call) for member in members for call in step):
            continue
        if len(members) == 1:
            return first, first, matched(first, first) or []
        if matched(first, len(run) - 1) is None:
            return None  # not even the rest of the run holds them all, nor any later stretch
        low, high = first, len(run) - 1
        while low < high:
            middle = (low + high) // 2
            if matched(first, middle) is None:
                low = middle + 1
            else:
                high = middle
        return first, high, matched(first, high) or []
    return None


def lockstep(
    reference: Sequence[Sequence[E]],
    parallel: Sequence[bool],
    run: Sequence[Sequence[C]],
    holds: Holds[E, C],
    key: Callable[[E | C], object] | None = None,
) -> int | None:
    """The index of the first reference step at which the run parts from the reference in
    `exact` mode (len(reference) when the run has steps left over), or None when it follows it
    step for step. A sequential entry is one run step of one matching call; a group of n is the
    run steps that hold exactly n calls matching its members."""
    position = 0
    for k, members in enumerate(reference):
        if position >= len(run):
            return k
        if not parallel[k]:
            step = run[position]
            if len(step) != 1 or not holds(members[0], step[0]):
                return k
            position += 1
            continue
        calls: list[C] = []
        while position < len(run) and len(calls) < len(members):
            calls += run[position]
            position += 1
        if len(calls) != len(members) or assign(members, calls, holds, key).missing:
            return k
    return None if position == len(run) else len(reference)
