"""alignment.assign: a maximum one-to-one matching, by properties and by the work it does."""

from __future__ import annotations

from itertools import product

from hypothesis import given
from hypothesis import strategies as st

from tracecheck.rules.alignment import assign

# Which calls each expected entry fits: up to 5 entries, 6 calls.
relations = st.integers(0, 5).flatmap(
    lambda n: st.lists(st.frozensets(st.integers(0, 5)), min_size=0, max_size=5).map(
        lambda rows: (rows, n + 1)
    )
)


def largest_matching(rows: list[frozenset[int]], calls: int) -> int:
    """By brute force: the most entries that distinct calls can hold (an entry may take none)."""
    best = 0
    for order in product(range(-1, calls), repeat=len(rows)):
        taken = [j for j in order if j >= 0]
        if len(taken) == len(set(taken)) and all(
            j < 0 or j in rows[i] for i, j in enumerate(order)
        ):
            best = max(best, len(taken))
    return best


@given(relations)
def test_the_matching_is_one_to_one_and_maximum(relation: tuple[list[frozenset[int]], int]) -> None:
    rows, calls = relation
    matching = assign(list(range(len(rows))), list(range(calls)), lambda e, c: c in rows[e])
    assert all(j in rows[i] for i, j in matching.pairs)
    assert len({i for i, _ in matching.pairs}) == len({j for _, j in matching.pairs})
    assert len(matching.pairs) == largest_matching(rows, calls)
    assert sorted([i for i, _ in matching.pairs] + list(matching.missing)) == list(range(len(rows)))
    assert sorted([j for _, j in matching.pairs] + list(matching.extra)) == list(range(calls))


def test_interchangeable_calls_are_taken_in_order_one_question_each() -> None:
    asked: list[tuple[int, int]] = []

    def holds(entry: int, call: int) -> bool:
        asked.append((entry, call))
        return True

    n = 300
    matching = assign(list(range(n)), list(range(n)), holds)
    assert matching.pairs == tuple((i, i) for i in range(n))
    assert len(asked) == n  # each entry takes the first free call; none is moved


def test_an_earlier_entry_moves_to_free_a_call_only_it_can_leave() -> None:
    # Entry 0 fits calls 0 and 1; entry 1 fits call 0 only.
    rows = [{0, 1}, {0}]
    matching = assign([0, 1], [0, 1], lambda e, c: c in rows[e])
    assert matching.pairs == ((0, 1), (1, 0))
    assert matching.missing == () and matching.extra == ()
