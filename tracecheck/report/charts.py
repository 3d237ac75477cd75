"""The HTML report's charts, drawn by matplotlib as SVG to inline in the page.

Only the SVG backend is used (no pyplot, no GUI, no global figure state); text stays text
(`svg.fonttype: none`), so a browser's search finds a span's name and tests read it; the output
is the same bytes on every run (no date, a fixed hash salt for the ids matplotlib makes up).
Every drawn string arrives here already redacted and escaped of controls; matplotlib escapes
it for XML, and never reads it as mathtext (`text.parse_math`: a `$` in a span name is text).

Ids a reader (or a test) can address: `span-<span id>` on each span's bar, `violation-<span id>`
on the mark of each span that broke a rule, `rule-<n>` on each rule's bars, `reliability-<n>`
on the n-th drawn rule's pass rate (`-interval`, `-pass-k`: its whisker and pass^k).
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tracecheck.report.model import RuleTally
from tracecheck.report.reliability import STABILITY_COLORS, ReliabilityRow, reliability_key
from tracecheck.report.safe import printable, shorten
from tracecheck.report.timeline import SpanBar, Timeline

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

__all__ = ["KIND_COLORS", "Mark", "reliability_chart", "rule_chart", "waterfall"]

KIND_COLORS = {"agent": "#7b61b8", "model": "#2f7ed8", "tool": "#e8913a", "other": "#9aa0a6"}
OUTCOME_COLORS = {
    "passed": "#3a9d5d",
    "failed": "#d62728",
    "errors": "#e0a800",
    "skipped": "#c8c8c8",
}
VIOLATION_COLOR = "#d62728"
_RC: Any = {  # matplotlib types its keys as one Literal of every rc name
    "svg.fonttype": "none",
    "text.parse_math": False,  # a `$` in a span's name is text, not TeX
    "svg.hashsalt": "tracecheck",
    "font.size": 8,
    "font.family": "DejaVu Sans",
    "axes.edgecolor": "#888888",
    "axes.linewidth": 0.6,
}
_ROW_INCHES = 0.24
_WIDTH_INCHES = 14.0
# The waterfall's columns, in fractions of the figure's width: span names, bars (with room on
# their right for each bar's tool, model, tokens and duration), the violations.
_LABELS, _BARS, _NOTES = (0.01, 0.26), (0.27, 0.70), (0.715, 0.99)


@dataclass(frozen=True, slots=True)
class Mark:
    """The violations of one span, as the waterfall writes them beside its bar."""

    span_id: str
    text: str  # rule labels and violation details, redacted


def rule_chart(tallies: Sequence[RuleTally], labels: Sequence[str]) -> str:
    """Each rule's traces as one horizontal bar, passed, failed, could not be evaluated and
    skipped stacked, with its failure rate beside it; `labels` name the rules (redacted)."""
    import matplotlib

    with matplotlib.rc_context(_RC):
        return _rule_chart(tallies, labels)


def _rule_chart(tallies: Sequence[RuleTally], labels: Sequence[str]) -> str:
    figure, ax = _figure(len(tallies), (0.30, 0.88))
    rows = range(len(tallies))
    left = [0] * len(tallies)
    for outcome, color in OUTCOME_COLORS.items():
        counts = [getattr(tally, outcome) for tally in tallies]
        bars = ax.barh(rows, counts, left=left, color=color, height=0.7, label=outcome)
        for row, bar in enumerate(bars):
            bar.set_gid(f"rule-{row}-{outcome}")
        left = [a + b for a, b in zip(left, counts, strict=True)]
    widest = max(left, default=0) or 1
    ax.set_xlim(0, widest)
    for row, (tally, label) in enumerate(zip(tallies, labels, strict=True)):
        ax.text(-0.01, row, label, transform=_row_transform(ax), ha="right", va="center")
        rate = f"{tally.failure_rate:.0%} failed ({tally.failed + tally.errors}/{tally.total})"
        ax.text(1.01, row, rate, transform=_row_transform(ax), va="center", color="#444444")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("traces")
    return _svg(figure)


def reliability_chart(
    rows: Sequence[ReliabilityRow], labels: Sequence[str] | None = None, *, limit: int = 40
) -> str:
    """Each rule's reliability over repeated runs, one row a rule, the least reliable first
    (`reliability_key`) and at most `limit` of them: the pass rate as a dot on a 0–100% axis with
    its 95% Wilson interval as a whisker, pass^k as a hollow diamond, all in the colour of the
    rule's stability, which the words beside the row also name (colour is never the only
    sign). `labels` name the rules (redacted; by default `contract: rule`, escaped of
    controls). The SVG carries a <title> and a <desc> that say what it shows and how many
    rules it leaves out."""
    import matplotlib

    named = list(labels) if labels is not None else _reliability_labels(rows)
    ordered = sorted(zip(rows, named, strict=True), key=lambda pair: reliability_key(pair[0]))
    with matplotlib.rc_context(_RC):
        return _reliability_chart(ordered[:limit], len(ordered))


def _reliability_labels(rows: Sequence[ReliabilityRow]) -> list[str]:
    several = len({row.contract for row in rows}) > 1
    return [
        shorten(printable(f"{row.contract}: {row.rule}" if several else row.rule), 70)
        for row in rows
    ]


def _reliability_chart(drawn: Sequence[tuple[ReliabilityRow, str]], total: int) -> str:
    figure, ax = _figure(len(drawn), _BARS)
    ax.set_xlim(0, 1)
    beside = _row_transform(ax)
    label_x = (_LABELS[1] - _BARS[0]) / (_BARS[1] - _BARS[0])
    note_x = (_NOTES[0] - _BARS[0]) / (_BARS[1] - _BARS[0])
    for row, (item, label) in enumerate(drawn):
        color = STABILITY_COLORS.get(item.stability, "#666666")
        low, high = item.interval
        # Drawn over the axis' ends (clip_on=False): a rate of 0 or 100% is a whole dot.
        (whisker,) = ax.plot(
            [low, high], [row, row], color=color, linewidth=1.4, marker="|", markersize=7
        )
        whisker.set_clip_on(False)
        whisker.set_gid(f"reliability-{row}-interval")
        if item.pass_hat_k is not None:
            (hat,) = ax.plot(
                [item.pass_hat_k],
                [row],
                marker="D",
                markersize=6,
                markerfacecolor="none",
                markeredgecolor="#333333",
                markeredgewidth=1.0,
                linestyle="none",
                zorder=3,
            )
            hat.set_clip_on(False)
            hat.set_gid(f"reliability-{row}-pass-k")
        (dot,) = ax.plot([item.rate], [row], marker="o", markersize=5, color=color, zorder=4)
        dot.set_clip_on(False)
        dot.set_gid(f"reliability-{row}")
        ax.text(label_x, row, label, transform=beside, ha="right", va="center")
        ax.text(note_x, row, _reliability_note(item), transform=beside, va="center", color=color)
    from matplotlib.ticker import PercentFormatter

    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    left_out = total - len(drawn)
    more = f"; {left_out} more rule(s) not drawn" if left_out else ""
    ax.set_xlabel(f"pass rate over repeated runs, with its 95% interval (whisker){more}")
    title = "Reliability over repeated runs"
    desc = (
        f"The pass rate of each of {len(drawn)} rule(s), the least reliable first, as a dot with "
        "its 95% Wilson interval as a whisker and pass^k as a diamond, on an axis of 0 to 100%"
        f"{f'; {left_out} more rule(s), more reliable, are not drawn' if left_out else ''}."
    )
    return _titled(_svg(figure), title, desc)


def _reliability_note(item: ReliabilityRow) -> str:
    """What is written right of a rule's row: its rate, runs, pass^k and stability."""
    hat = "n/a" if item.pass_hat_k is None else f"{item.pass_hat_k:.0%}"
    flaky = f" on {item.flaky_tasks} of {item.tasks} tasks" if item.flaky_tasks else ""
    return (
        f"{item.rate:.0%} ({item.passes}/{item.runs}) · pass^{item.k} {hat} · "
        f"{item.stability}{flaky}"
    )


def _titled(svg: str, title: str, desc: str) -> str:
    """`svg` with a <title> and a <desc> first inside it, and the role that makes a screen
    reader announce it as one image named by them."""
    opened = svg.index(">") + 1
    start = svg[:opened].replace("<svg ", '<svg role="img" ', 1)
    text = f"<title>{html.escape(title)}</title><desc>{html.escape(desc)}</desc>"
    return start + text + svg[opened:]


def waterfall(timeline: Timeline, marks: Mapping[str, Mark], used: set[str] | None = None) -> str:
    """One bar per span of `timeline` (its names redacted), placed by its start and end,
    indented by its depth in the tree and coloured by kind, labelled with its name, tool or
    model, tokens and duration; each span of `marks` gets a violation mark and its words.
    `used` holds the ids the page already has (each new one is added): a span recorded in two
    traces of one page (a run saved twice) still gets ids of its own."""
    import matplotlib

    with matplotlib.rc_context(_RC):
        return _waterfall(timeline, marks, set() if used is None else used)


def _waterfall(timeline: Timeline, marks: Mapping[str, Mark], used: set[str]) -> str:
    bars = timeline.bars
    figure, ax = _figure(len(bars), _BARS)
    end = max((bar.end_ns for bar in bars if bar.end_ns is not None), default=0) / 1e6
    scale = end or 1.0
    ax.set_xlim(0, scale * 1.55)  # the right third: each bar's tool, tokens and duration
    labels = _row_transform(ax)
    label_x = (_LABELS[0] - _BARS[0]) / (_BARS[1] - _BARS[0])
    note_x = (_NOTES[0] - _BARS[0]) / (_BARS[1] - _BARS[0])
    after = {dx: _points_right(ax, figure, dx) for dx in (3, 9)}
    for row, bar in enumerate(bars):
        start, width = _extent(bar, scale)
        rectangle = _bar(ax, start, width, row, KIND_COLORS[bar.kind])
        rectangle.set_gid(_unique(f"span-{_id_part(bar.span_id, row)}", used))
        if bar.duration_ns is None:
            rectangle.set_hatch("////")
            rectangle.set_edgecolor("#555555")  # the hatch is drawn in the edge's colour
            rectangle.set_alpha(0.35)
        if bar.error:
            rectangle.set_edgecolor(VIOLATION_COLOR)
            rectangle.set_linewidth(1.2)
        indent = label_x + 0.012 * min(bar.depth, 12)
        ax.text(indent, row, bar.name, transform=labels, va="center", clip_on=False)
        mark = marks.get(bar.span_id or "")
        beside = after[3 if mark is None else 9]  # clear of the mark
        ax.text(start + width, row, _facts(bar), transform=beside, va="center", color="#555555")
        if mark is not None:
            _mark(ax, mark, start + width, row, note_x, used)
    if any(bar.duration_ns is not None for bar in bars):
        ax.set_xlabel("milliseconds from the trace's first span")
    else:  # no time to scale: an axis of milliseconds would be made up
        ax.set_xticks([])
        ax.set_xlabel("no span recorded its start and end: the bars show the tree only")
    return _svg(figure)


def _bar(ax: Axes, start: float, width: float, row: int, color: str) -> Rectangle:
    """A bar added as a plain artist: the limits are set, and `barh` would spend most of a
    large trace's drawing time updating them bar by bar."""
    from matplotlib.patches import Rectangle

    rectangle = Rectangle((start, row - 0.36), width, 0.72, facecolor=color, edgecolor="none")
    ax.add_artist(rectangle)
    return rectangle


def _mark(ax: Axes, mark: Mark, x: float, row: int, note_x: float, used: set[str]) -> None:
    (dot,) = ax.plot([x], [row], marker="X", markersize=7, color=VIOLATION_COLOR, clip_on=False)
    dot.set_gid(_unique(f"violation-{_id_part(mark.span_id, row)}", used))
    note = ax.text(
        note_x, row, mark.text, transform=_row_transform(ax), va="center", color=VIOLATION_COLOR
    )
    note.set_gid(_unique(f"note-{_id_part(mark.span_id, row)}", used))


def _extent(bar: SpanBar, scale: float) -> tuple[float, float]:
    """Where a bar starts and how wide it is, in ms; a span of no recorded time spans the
    whole trace (hatched), and a very short one is drawn wide enough to see."""
    if bar.start_ns is None or bar.end_ns is None:
        return 0.0, scale
    start = bar.start_ns / 1e6
    return start, max((bar.end_ns - bar.start_ns) / 1e6, scale * 0.003)


def _facts(bar: SpanBar) -> str:
    """What is drawn right of a bar: the tool or model (when not its name), tokens, time."""
    from tracecheck.show import duration_text

    parts = []
    if bar.tool and bar.tool not in bar.name:
        parts.append(f"tool={bar.tool}")
    if bar.model:
        parts.append(f"model={bar.model}")
    if bar.tokens_in is not None or bar.tokens_out is not None:
        parts.append(f"{_count(bar.tokens_in)} in / {_count(bar.tokens_out)} out tokens")
    parts.append(duration_text(bar.duration_ns) or "no timing")
    if bar.error:
        parts.append("error")
    return " · ".join(parts)


def _count(value: int | float | None) -> str:
    return "?" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


_NAMESPACES = re.compile(r' xmlns(?::xlink)?="[^"]*"')
_NOT_ID = re.compile(r"[^0-9A-Za-z_.:-]")


def _id_part(span_id: str | None, row: int) -> str:
    """A span id as part of an SVG id (ids are hex; anything else is made safe), or its row."""
    return _NOT_ID.sub("_", span_id)[:64] if span_id else f"row{row}"


def _unique(gid: str, used: set[str]) -> str:
    """`gid`, or `gid-2`, `gid-3`... when the page already holds it (a span id recorded twice)."""
    candidate, number = gid, 1
    while candidate in used:
        number += 1
        candidate = f"{gid}-{number}"
    used.add(candidate)
    return candidate


def _points_right(ax: Axes, figure: Figure, points: float) -> Any:
    """Data coordinates moved `points` to the right: text that starts just after a bar."""
    from matplotlib.transforms import ScaledTranslation

    return ax.transData + ScaledTranslation(points / 72, 0, figure.dpi_scale_trans)


def _row_transform(ax: Axes) -> Any:
    """x in fractions of the axes' width, y in rows: text placed beside the bars."""
    from matplotlib.transforms import blended_transform_factory

    return blended_transform_factory(ax.transAxes, ax.transData)


def _figure(rows: int, columns: tuple[float, float]) -> tuple[Figure, Axes]:
    from matplotlib.figure import Figure

    height = 0.9 + _ROW_INCHES * max(rows, 1)
    figure = Figure(figsize=(_WIDTH_INCHES, height))
    bottom, top = 0.55 / height, 0.15 / height
    ax = figure.add_axes((columns[0], bottom, columns[1] - columns[0], 1 - bottom - top))
    ax.set_ylim(max(rows, 1) - 0.5, -0.5)  # the first row on top
    ax.set_yticks([])
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.grid(axis="x", color="#e4e4e4", linewidth=0.5)
    ax.set_axisbelow(True)
    return figure, ax


def _svg(figure: Figure) -> str:
    """The figure as an `<svg>` element to inline in HTML (no XML prolog, no doctype)."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    FigureCanvasSVG(figure)
    out = io.StringIO()
    # No date (the same bytes on every run), no creator or licence block (namespaces, links).
    metadata = {"Date": None, "Creator": None, "Format": None, "Type": None}
    figure.savefig(out, format="svg", metadata=metadata)
    text = out.getvalue()
    svg = text[text.index("<svg") :]
    # Inline in HTML, SVG needs no namespace declarations: the page names no address at all.
    return _NAMESPACES.sub("", svg, count=2)
