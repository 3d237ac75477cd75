"""precedes, neverUnless and witnessing in the three order modes (contracts.md §4.2–4.4)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_rules_support import TOOL_P, pairs, subject, tool, tool_p

from tracecheck.rules import NeverUnless, Precedes, Predicate
from tracecheck.spans import Span

R, A = tool_p("retrieve"), tool_p("answer")
NOT_PRECEDED = "kind=TOOL,tool=answer is not preceded by kind=TOOL,tool=retrieve: "


def order(mode: str, *spans: Span) -> list[tuple[str | None, str]]:
    return pairs(Precedes("p", R, A, mode).evaluate(subject(*spans)))  # type: ignore[arg-type]


def fails(span_id: str, reason: str) -> list[tuple[str | None, str]]:
    return [(span_id, NOT_PRECEDED + reason)]


CASES: list[tuple[str, str, tuple[Span, ...], list[Any]]] = [
    # §8: overlapping retrieve (0–50 ms) and answer (10–60 ms).
    ("overlap", "start-order", (tool("r", "retrieve", 0, 50), tool("a", "answer", 10, 60)), []),
    (
        "overlap",
        "finish-before-start",
        (tool("r", "retrieve", 0, 50), tool("a", "answer", 10, 60)),
        fails("a", "span a has no match that finished before it started"),
    ),
    (
        "touching",
        "finish-before-start",
        (tool("r", "retrieve", 0, 10), tool("a", "answer", 10, 60)),
        [],
    ),
    (
        "touching",
        "all-occurrences",
        (tool("r", "retrieve", 0, 10), tool("a", "answer", 10, 60)),
        [],
    ),
    (
        "equal starts",
        "start-order",
        (tool("r", "retrieve", 10, 20), tool("a", "answer", 10, 30)),
        fails("a", "span a has no match that started before it"),
    ),
    (
        "array position is not evidence",
        "start-order",
        (tool("a", "answer", 10, 20), tool("r", "retrieve", 0, 5)),
        [],
    ),
    (
        "array position is not evidence (reverse)",
        "start-order",
        (tool("r", "retrieve", 30, 40), tool("a", "answer", 10, 20)),
        fails("a", "span a has no match that started before it"),
    ),
    (
        "a later predecessor",
        "all-occurrences",
        (tool("r1", "retrieve", 0, 5), tool("a", "answer", 10, 20), tool("r2", "retrieve", 30, 40)),
        fails("a", "span r2 ends after span a starts"),
    ),
    (
        "a later predecessor",
        "start-order",
        (tool("r1", "retrieve", 0, 5), tool("a", "answer", 10, 20), tool("r2", "retrieve", 30, 40)),
        [],
    ),
    (
        "a later predecessor",
        "finish-before-start",
        (tool("r1", "retrieve", 0, 5), tool("a", "answer", 10, 20), tool("r2", "retrieve", 30, 40)),
        [],
    ),
    (
        "the latest end is named",
        "all-occurrences",
        (
            tool("r1", "retrieve", 0, 15),
            tool("r2", "retrieve", 0, 40),
            tool("r3", "retrieve", 0, 40),
            tool("a", "answer", 10, 20),
        ),
        fails("a", "span r2 ends after span a starts"),
    ),
    (
        "a predecessor without an end",
        "all-occurrences",
        (
            tool("r1", "retrieve", 0, 5),
            tool("r2", "retrieve", 1, None),
            tool("a", "answer", 10, 20),
        ),
        fails("a", "span r2 has no end time, so its order cannot be proven"),
    ),
    (
        "untimed successor",
        "start-order",
        (tool("r", "retrieve", 0, 5), tool("a", "answer")),
        fails("a", "span a has no start time, so its order cannot be proven"),
    ),
    (
        "untimed successor",
        "all-occurrences",
        (tool("r", "retrieve", 0, 5), tool("a", "answer", None, 20)),
        fails("a", "span a has no start time, so its order cannot be proven"),
    ),
    (
        "untimed everything: array order proves nothing",
        "start-order",
        (tool("r", "retrieve"), tool("a", "answer")),
        fails("a", "span a has no start time, so its order cannot be proven"),
    ),
    (
        "untimed predecessor",
        "start-order",
        (tool("r", "retrieve"), tool("a", "answer", 10, 20)),
        fails("a", "span r has no start time, so its order cannot be proven"),
    ),
    (
        "predecessor without an end",
        "finish-before-start",
        (tool("r", "retrieve", 0, None), tool("a", "answer", 10, 20)),
        fails("a", "span r has no end time, so its order cannot be proven"),
    ),
    (
        "predecessor without an end is fine for start-order",
        "start-order",
        (tool("r", "retrieve", 0, None), tool("a", "answer", 10, 20)),
        [],
    ),
    (
        "mixed timed and untimed: one timed witness suffices",
        "start-order",
        (tool("r1", "retrieve"), tool("r2", "retrieve", 0, 5), tool("a", "answer", 10, 20)),
        [],
    ),
    (
        "mixed timed and untimed",
        "finish-before-start",
        (
            tool("r1", "retrieve", 0, None),
            tool("r2", "retrieve", 0, 5),
            tool("a", "answer", 10, 20),
        ),
        [],
    ),
    (
        "each successor is judged",
        "finish-before-start",
        (
            tool("a1", "answer", 0, 1),
            tool("r", "retrieve", 2, 5),
            tool("a2", "answer", 5, 9),
            tool("a3", "answer", 4, 9),
        ),
        fails("a1", "span a1 has no match that finished before it started")
        + fails("a3", "span a3 has no match that finished before it started"),
    ),
    (
        "no predecessor",
        "start-order",
        (tool("a", "answer", 0, 1),),
        [(None, "required predecessor kind=TOOL,tool=retrieve never occurred")],
    ),
    (
        "no successor",
        "start-order",
        (tool("r", "retrieve", 0, 1),),
        [(None, "required successor kind=TOOL,tool=answer never occurred")],
    ),
    (
        "neither",
        "all-occurrences",
        (),
        [
            (None, "required predecessor kind=TOOL,tool=retrieve never occurred"),
            (None, "required successor kind=TOOL,tool=answer never occurred"),
        ],
    ),
]


@pytest.mark.parametrize(("case", "mode", "spans", "expected"), CASES, ids=[c[0] for c in CASES])
def test_precedes(case: str, mode: str, spans: tuple[Span, ...], expected: list[Any]) -> None:
    assert order(mode, *spans) == expected


@pytest.mark.parametrize("mode", ["start-order", "finish-before-start", "all-occurrences"])
def test_a_span_never_witnesses_itself(mode: str) -> None:
    rule = Precedes("p", TOOL_P, TOOL_P, mode)  # type: ignore[arg-type]
    only = tool("t", "Read", 0, 10)
    assert pairs(rule.evaluate(subject(only))) == [
        ("t", "kind=TOOL is not preceded by kind=TOOL: span t has no earlier match")
    ]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("start-order", ["span t1 has no match that started before it"]),
        (
            "finish-before-start",
            [
                "span t1 has no match that finished before it started",
                "span t2 has no match that finished before it started",
            ],
        ),
        (
            "all-occurrences",
            ["span t2 ends after span t1 starts", "span t1 ends after span t2 starts"],
        ),
    ],
)
def test_self_exclusion_keeps_the_second_best(mode: str, expected: list[str]) -> None:
    spans = (tool("t1", "Read", 0, 10), tool("t2", "Read", 5, 15))
    violations = Precedes("p", TOOL_P, TOOL_P, mode).evaluate(subject(*spans))  # type: ignore[arg-type]
    assert [v.detail.split(": ", 1)[1] for v in violations] == expected


def test_span_without_an_id_is_named_by_index() -> None:
    assert order("start-order", tool(None, "retrieve", 5, 6), tool(None, "answer", 1, 2)) == [
        (None, NOT_PRECEDED + "span #1 has no match that started before it")
    ]


NU_CASES: list[tuple[str, str, tuple[Span, ...], list[Any]]] = [
    ("no guarded span passes", "all-occurrences", (tool("r", "retrieve"),), []),
    ("no span at all passes", "start-order", (), []),
    (
        "no prior",
        "start-order",
        (tool("a", "answer", 0, 1),),
        [
            (
                "a",
                "kind=TOOL,tool=answer without an earlier kind=TOOL,tool=retrieve: span a has no earlier match",
            )
        ],
    ),
    (
        "no prior and no start: the start is reported first",
        "start-order",
        (tool("a", "answer"),),
        [
            (
                "a",
                "kind=TOOL,tool=answer without an earlier kind=TOOL,tool=retrieve: "
                "span a has no start time, so its order cannot be proven",
            )
        ],
    ),
    (
        "witnessed",
        "finish-before-start",
        (tool("r", "retrieve", 0, 1), tool("a", "answer", 1, 2)),
        [],
    ),
    (
        "overlap",
        "finish-before-start",
        (tool("r", "retrieve", 0, 50), tool("a", "answer", 10, 60)),
        [
            (
                "a",
                "kind=TOOL,tool=answer without an earlier kind=TOOL,tool=retrieve: "
                "span a has no match that finished before it started",
            )
        ],
    ),
]


@pytest.mark.parametrize(
    ("case", "mode", "spans", "expected"), NU_CASES, ids=[c[0] for c in NU_CASES]
)
def test_never_unless(case: str, mode: str, spans: tuple[Span, ...], expected: list[Any]) -> None:
    rule = NeverUnless("nu", A, R, mode)  # type: ignore[arg-type]
    assert pairs(rule.evaluate(subject(*spans))) == expected


def test_describe() -> None:
    assert Precedes("p", R, A, "finish-before-start").describe() == (
        "kind=TOOL,tool=retrieve and kind=TOOL,tool=answer both occur, and the first comes "
        "before the second (finish-before-start)"
    )
    assert NeverUnless("nu", A, R).describe() == (
        "every kind=TOOL,tool=answer has an earlier kind=TOOL,tool=retrieve (start-order)"
    )


# ------------------------------------------------------------------ against a naive reference


def naive(spans: list[Span], guard: list[bool], guarded: list[bool], mode: str) -> list[str]:
    """§4.4 read literally, one candidate list per guarded span (quadratic)."""
    out = []
    for i, b in enumerate(spans):
        if not guarded[i]:
            continue
        ref = b.span_id
        if b.start_ns is None:
            out.append(f"span {ref} has no start time, so its order cannot be proven")
            continue
        cands = [(j, s) for j, s in enumerate(spans) if guard[j] and j != i]
        if not cands:
            out.append(f"span {ref} has no earlier match")
            continue
        if mode == "all-occurrences":
            no_end = [s for _, s in cands if s.end_ns is None]
            if no_end:
                out.append(
                    f"span {no_end[0].span_id} has no end time, so its order cannot be proven"
                )
                continue
            late = [s for _, s in cands if s.end_ns > b.start_ns]  # type: ignore[operator]
            if late:
                worst = max(late, key=lambda s: s.end_ns)  # type: ignore[arg-type,return-value]
                out.append(f"span {worst.span_id} ends after span {ref} starts")
            continue
        stamp = "start" if mode == "start-order" else "end"
        ok = any(
            (s.start_ns is not None and s.start_ns < b.start_ns)
            if stamp == "start"
            else (s.end_ns is not None and s.end_ns <= b.start_ns)
            for _, s in cands
        )
        if ok:
            continue
        missing = [s for _, s in cands if getattr(s, f"{stamp}_ns") is None]
        if missing:
            out.append(
                f"span {missing[0].span_id} has no {stamp} time, so its order cannot be proven"
            )
        elif stamp == "start":
            out.append(f"span {ref} has no match that started before it")
        else:
            out.append(f"span {ref} has no match that finished before it started")
    return out


stamp = st.one_of(st.none(), st.integers(0, 6))
span_rows = st.lists(
    st.tuples(st.sampled_from(["retrieve", "answer", "both"]), stamp, stamp), max_size=8
)


@settings(max_examples=400, deadline=None)
@given(
    rows=span_rows, mode=st.sampled_from(["start-order", "finish-before-start", "all-occurrences"])
)
def test_witnessing_agrees_with_the_literal_reading(rows: list[Any], mode: str) -> None:
    spans = [
        tool(f"s{i}", "retrieve" if name == "retrieve" else "answer", start, end, role=name)
        for i, (name, start, end) in enumerate(rows)
    ]
    # "both" spans are guarded and guards at once: they exercise the self-exclusion.
    guard = [row[0] in ("retrieve", "both") for row in rows]
    guarded = [row[0] in ("answer", "both") for row in rows]
    rule = NeverUnless(
        "nu",
        Predicate(kind="TOOL", not_=Predicate(attr=(("role", "retrieve"),))),
        Predicate(kind="TOOL", not_=Predicate(attr=(("role", "answer"),))),
        mode,  # type: ignore[arg-type]
    )
    got = [v.detail.split(": ", 1)[1] for v in rule.evaluate(subject(*spans))]
    assert got == naive(spans, guard, guarded, mode)
