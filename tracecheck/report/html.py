"""The visual verdict: one self-contained HTML page for people.

The page fetches nothing when it is opened (its style is inline, its charts inline SVG, and a
Content-Security-Policy forbids any fetch), so it works offline and from an archive of CI
artifacts. It shows a header (when, which inputs and contracts, the overall status, counts),
each rule's outcomes as a table and a chart, each rule's reliability over repeated runs (when
given: pass rate, interval, pass^k and stability) as a chart and a table, and per trace a
waterfall of its spans with every violation marked on the span that caused it.

The page is drawn from rule tallies and trace views given apart: `check` tallies the verdicts
it checked, while a fleet's tallies (counted over millions of traces elsewhere) come with only
a few traces to draw. Every string drawn that came from a trace or a contract goes through the
redactor (`profile`) first; the redactor and matplotlib are imported only when a page is drawn.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from tracecheck.report.model import CheckedTrace, RuleTally
from tracecheck.report.page import (
    Cleaner,
    PageHeader,
    TraceView,
    head,
    header_section,
    reliability_section,
    rules_section,
    trace_section,
)
from tracecheck.report.reliability import ReliabilityRow

# The page's inputs are defined in `model`, below both this module and `page`, which draws
# from them; they are named here too, beside the functions that take them.
__all__ = ["PageHeader", "TraceView", "html_parts", "render_html", "tallies_of", "trace_views"]


def tallies_of(checked: Iterable[CheckedTrace]) -> list[RuleTally]:
    """How each rule of each contract fared over `checked`, in the order rules first appear."""
    counts: dict[tuple[str, str], list[int]] = {}
    slots = {"pass": 0, "fail": 1, "error": 2, "skipped": 3}
    for item in checked:
        for rule in item.verdict.rules:
            row = counts.setdefault((item.verdict.contract, rule.label), [0, 0, 0, 0])
            row[slots[rule.status]] += 1
    return [RuleTally(contract, rule, *row) for (contract, rule), row in counts.items()]


def trace_views(checked: Iterable[CheckedTrace]) -> Iterator[TraceView]:
    """The traces of `checked` that carry a timeline, each with the verdicts that follow it
    (`check --html` gives each trace's timeline to its first verdict), one at a time."""
    current: TraceView | None = None
    for item in checked:
        if item.timeline is not None:
            if current is not None:
                yield current
            current = TraceView(item.timeline, item.files, (item.verdict,))
        elif current is not None and item.verdict.trace_id == current.timeline.trace_id:
            current = TraceView(current.timeline, current.source, (*current.verdicts, item.verdict))
    if current is not None:
        yield current


def render_html(
    header: PageHeader,
    tallies: Sequence[RuleTally],
    traces: Iterable[TraceView],
    *,
    profile: str = "default",
    reliability: Sequence[ReliabilityRow] | None = None,
) -> str:
    """The whole page as one string (`html_parts` gives it piece by piece)."""
    return "".join(html_parts(header, tallies, traces, profile=profile, reliability=reliability))


def html_parts(
    header: PageHeader,
    tallies: Sequence[RuleTally],
    traces: Iterable[TraceView],
    *,
    profile: str = "default",
    reliability: Sequence[ReliabilityRow] | None = None,
) -> Iterator[str]:
    """The page in pieces: the head and header, the rules, each rule's reliability over
    repeated runs when `reliability` holds any (the fleet's `RuleReliability` rows, or any
    objects of their shape), then one trace at a time (so that a page of many traces holds
    one trace's drawing in memory)."""
    clean = Cleaner(profile)
    used: set[str] = set()  # the SVG ids given so far: unique over the whole page
    yield head()
    yield header_section(header, clean)
    yield rules_section(tallies, clean)
    if reliability:
        yield reliability_section(reliability, clean)
    for number, view in enumerate(traces):
        yield trace_section(view, number, clean, used)
    yield "</main>\n</body>\n</html>\n"
