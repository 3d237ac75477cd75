"""The reports written a verdict at a time (so that `check` holds no verdict list in memory)
are byte for byte the reports rendered from every verdict at once: text, JSON (including its
fallback to ASCII escapes when `orjson` refuses a value), JUnit XML and GitHub annotations."""

from __future__ import annotations

import json
from datetime import datetime

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck.report import (
    CheckedTrace,
    ReadFailure,
    annotation_lines,
    json_parts,
    junit_parts,
    render_annotations,
    render_json,
    render_junit,
    render_text,
    text_lines,
)
from tracecheck.report.spool import Spool
from tracecheck.verdict import RuleResult, Verdict, Violation, worst

# Recorded text may hold anything: controls, XML-unsafe characters, lone surrogates, emoji.
TEXT = st.text(
    st.one_of(st.characters(), st.sampled_from(["\ud800", "\x00", "\x1b", "\n", "é", "😀"])),
    max_size=12,
)
STAMP = datetime(2026, 12, 3, 12, 0, 0)


@st.composite
def rules(draw: st.DrawFn) -> RuleResult:
    status = draw(st.sampled_from(["pass", "fail", "error", "skipped"]))
    violations = ()
    if status == "fail":
        violations = tuple(
            Violation(draw(st.none() | st.just("ab" * 8)), draw(TEXT))
            for _ in range(draw(st.integers(0, 8)))
        )
    error = draw(TEXT) if status == "error" else None
    return RuleResult(draw(TEXT), draw(st.none() | TEXT), status, violations, error)


@st.composite
def checked(draw: st.DrawFn) -> CheckedTrace:
    drawn = tuple(draw(st.lists(rules(), max_size=5)))
    status = worst([r.status for r in drawn if r.status != "skipped"]) if drawn else "pass"
    verdict = Verdict(
        draw(TEXT),
        draw(st.none() | st.just("f" * 32)),
        status,
        drawn,
        draw(st.floats(0, 1)),
        draw(TEXT),
        tuple(draw(st.lists(TEXT, max_size=2))),
        tuple((name, draw(st.integers(0, 2**70))) for name in draw(st.lists(TEXT, max_size=2))),
    )
    sources = tuple(draw(st.lists(TEXT, max_size=3)))
    return CheckedTrace(draw(TEXT), draw(st.none() | TEXT), verdict, draw(st.floats(0, 5)), sources)


failures_drawn = st.lists(
    st.builds(ReadFailure, TEXT, st.sampled_from(["unreadable", "ambiguous"]), TEXT), max_size=2
)


def whole_json(items: list[CheckedTrace], failures: list[ReadFailure]) -> bytes:
    document = render_json(items, failures)
    try:
        return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"
    except orjson.JSONEncodeError:
        return json.dumps(document, indent=2, ensure_ascii=True).encode() + b"\n"


@settings(max_examples=200, deadline=None)
@given(st.lists(checked(), max_size=4), failures_drawn)
def test_reports_in_parts_are_the_whole_reports(
    items: list[CheckedTrace], failures: list[ReadFailure]
) -> None:
    for verbosity in (-1, 0, 1):
        assert "\n".join(text_lines(items, verbosity=verbosity)) == render_text(
            items, verbosity=verbosity
        )
    assert "\n".join(annotation_lines(items, failures)) == render_annotations(items, failures)
    status = worst([item.verdict.status for item in items])
    spool = Spool()
    try:
        parts = "".join(json_parts(items, failures, status, spool)) + "\n"
    finally:
        spool.close()
    assert parts.encode() == whole_json(items, failures)
    streamed = b"".join(junit_parts(lambda: iter(items), failures, timestamp=STAMP))
    assert streamed == render_junit(items, failures, timestamp=STAMP)


def test_the_json_fallback_is_taken_by_every_part() -> None:
    """One value orjson refuses makes the whole document ASCII-escaped, as before."""
    verdict = Verdict("c", None, "pass", (), 1.0, "é \ud800")
    plain = Verdict("c", None, "pass", (), 1.0, "é")
    items = [CheckedTrace("a", None, plain), CheckedTrace("b", None, verdict)]
    spool = Spool()
    text = "".join(json_parts(items, [], "pass", spool)) + "\n"
    spool.close()
    assert text.isascii()
    assert "\\u00e9" in text
    assert text.encode() == whole_json(items, [])
