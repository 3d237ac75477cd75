"""The sections of the HTML report: head and style, header, rules, each rule's reliability over
repeated runs (when given), one section per trace.

Every string from a trace or a contract passes through a `Cleaner` (the redactor, then control
characters shown as escapes, then HTML escaping); ids (trace and span ids) are only escaped.
"""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tracecheck.report.model import RuleTally
from tracecheck.report.reliability import STABILITY_COLORS, ReliabilityRow, worst_first
from tracecheck.report.safe import printable, shorten
from tracecheck.report.timeline import Timeline
from tracecheck.verdict import Verdict, VerdictStatus, Violation

if TYPE_CHECKING:
    from tracecheck.report.charts import Mark

__all__ = [
    "Cleaner",
    "PageHeader",
    "TraceView",
    "head",
    "header_section",
    "reliability_section",
    "rules_section",
    "trace_section",
]

_NOTE_CHARS = 60  # of a violation's words beside its bar; the list below the chart has them all
_NAME_CHARS = 60  # of a span's name in the waterfall's label column
_RULES_DRAWN = 40  # rules the reliability chart draws, the least reliable (the table: all)
_LISTED = 20  # inputs (and inputs not read) the header names; the rest it counts
_KINDS = (("agent", "agent"), ("model", "model call"), ("tool", "tool call"), ("other", "other"))

# No fetch of any kind: a page that names a network address by mistake still loads nothing.
_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
       margin: 0; background: #fafafa; }
main { max-width: 1400px; margin: 0 auto; padding: 1.5em; }
h1 { font-size: 1.5em; margin: 0 0 .5em; } h2 { font-size: 1.2em; margin: 1.6em 0 .4em; }
h3 { font-size: 1em; margin: 1em 0 .3em; } section > h2:first-child { margin-top: 0; }
section, header { background: #fff; border: 1px solid #e2e2e2; border-radius: 6px;
                  padding: 1em 1.2em; margin-bottom: 1.2em; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1em; margin: 0; }
dt { color: #666; } dd { margin: 0; }
.status { display: inline-block; padding: .05em .5em; border-radius: 4px; color: #fff;
          font-size: .8em; vertical-align: middle; }
.status.pass { background: #3a9d5d; } .status.fail { background: #d62728; }
.status.error { background: #b8860b; } .status.skipped { background: #999; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border-bottom: 1px solid #eee; padding: .25em .8em; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: .5em 0; overflow-x: auto; }
figure svg { max-width: 100%; height: auto; }
.legend span { display: inline-block; margin-right: 1.2em; }
.legend i { display: inline-block; width: .9em; height: .9em; margin-right: .3em;
            vertical-align: -.1em; border-radius: 2px; }
code { font-size: .92em; } .muted { color: #666; }
ul.violations li { margin: .2em 0; } .rule { font-weight: 600; color: #b21f1f; }
"""


@dataclasses.dataclass(frozen=True, slots=True)
class PageHeader:
    """What the page says first. `created` is shown as given (None: no time is shown, so
    that two pages of the same verdicts are the same bytes)."""

    status: VerdictStatus
    inputs: tuple[str, ...] = ()
    contracts: tuple[str, ...] = ()
    traces: int = 0
    verdicts: tuple[tuple[str, int], ...] = ()  # (status, how many), e.g. (("fail", 2),)
    unread: tuple[str, ...] = ()  # the message of each input that could not be read
    created: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class TraceView:
    """One trace as the page draws it: its timeline, the file it was read from, and its
    verdict under each contract."""

    timeline: Timeline
    source: str
    verdicts: tuple[Verdict, ...]


class Cleaner:
    """Strings made fit to draw: redacted with one profile (many at once, in one pass of the
    redactor), controls shown as escapes, very long ones shortened."""

    def __init__(self, profile: str) -> None:
        self.profile = profile

    def all(self, texts: Sequence[str | None], limit: int = 300) -> list[str]:
        from redact import redact

        redacted: list[str | None] = redact(list(texts), profile=self.profile).value
        return [shorten(printable(text or ""), limit) for text in redacted]

    def html(self, text: str | None, limit: int = 300) -> str:
        """One string, cleaned and escaped for HTML."""
        return html.escape(self.all([text], limit)[0])


def _id(text: str | None) -> str:
    """An id (trace, span): escaped, not redacted."""
    return html.escape(shorten(printable(text or "(no id)"), 80))


def head() -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>tracecheck report</title>\n"
        f"<style>{_STYLE}</style>\n</head>\n<body>\n<main>\n"
    )


def _status(status: str) -> str:
    return f'<span class="status {html.escape(status)}">{html.escape(status.upper())}</span>'


def _first_of(texts: Sequence[str], clean: Cleaner, *, code: bool = False) -> str:
    """The first `_LISTED` of `texts`, cleaned, one a line, and how many more there are (a
    fleet given as ten thousand files names its first few)."""
    shown = [html.escape(t) for t in clean.all(texts[:_LISTED])]
    lines = [f"<code>{t}</code>" for t in shown] if code else shown
    if len(texts) > _LISTED:
        lines.append(f"and {len(texts) - _LISTED} more")
    return "<br>".join(lines)


def header_section(header: PageHeader, clean: Cleaner) -> str:
    contracts = clean.all(header.contracts)
    counts = ", ".join(f"{n} {html.escape(status)}" for status, n in header.verdicts) or "none"
    rows = []
    if header.created is not None:
        rows.append(("Created", html.escape(header.created)))
    rows.append(("Inputs", _first_of(header.inputs, clean, code=True)))
    rows.append(("Contracts", "<br>".join(f"<code>{html.escape(t)}</code>" for t in contracts)))
    rows.append(("Traces", str(header.traces)))
    rows.append(("Verdicts", counts))
    if header.unread:
        rows.append(("Not read", _first_of(header.unread, clean)))
    items = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in rows)
    return (
        f"<header>\n<h1>tracecheck report {_status(header.status)}</h1>\n"
        f"<dl>{items}</dl>\n</header>\n"
    )


def rules_section(tallies: Sequence[RuleTally], clean: Cleaner) -> str:
    from tracecheck.report.charts import rule_chart

    if not tallies:
        return '<section id="rules">\n<h2>Rules</h2>\n<p>No rule was checked.</p>\n</section>\n'
    names = clean.all([t.contract for t in tallies] + [t.rule for t in tallies], 120)
    contracts, rules = names[: len(tallies)], names[len(tallies) :]
    several = len(set(contracts)) > 1
    labels = [f"{c}: {r}" if several else r for c, r in zip(contracts, rules, strict=True)]
    rows = "".join(
        f"<tr><td>{html.escape(c)}</td><td>{html.escape(r)}</td><td class=n>{t.passed}</td>"
        f"<td class=n>{t.failed}</td><td class=n>{t.errors}</td><td class=n>{t.skipped}</td>"
        f"<td class=n>{t.failure_rate:.1%}</td></tr>"
        for t, c, r in zip(tallies, contracts, rules, strict=True)
    )
    table = (
        "<table><thead><tr><th>Contract</th><th>Rule</th><th>Passed</th><th>Failed</th>"
        "<th>Could not be evaluated</th><th>Skipped</th><th>Failure rate</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
    chart = rule_chart(tallies, [shorten(label, 70) for label in labels])
    return (
        f'<section id="rules">\n<h2>Rules</h2>\n{table}\n'
        f'<figure class="rules-chart">{chart}</figure>\n</section>\n'
    )


def reliability_section(rows: Sequence[ReliabilityRow], clean: Cleaner) -> str:
    """Each rule's reliability over repeated runs: what the chart shows, its legend, the chart of
    the `_RULES_DRAWN` least reliable rules (and how many more there are), and the table
    of them all, the least reliable first. Names are cleaned as every other name on the page."""
    from tracecheck.report.charts import reliability_chart

    ordered = worst_first(rows)
    count = len(ordered)
    names = clean.all([r.contract for r in ordered] + [r.rule for r in ordered], 120)
    contracts, rules = names[:count], names[count:]
    several = len(set(contracts)) > 1
    labels = [f"{c}: {r}" if several else r for c, r in zip(contracts, rules, strict=True)]
    chart = reliability_chart(ordered, [shorten(label, 70) for label in labels], limit=_RULES_DRAWN)
    left_out = (
        f'<p class="muted">{count - _RULES_DRAWN} more rule(s) are not drawn: the chart shows the '
        f"{_RULES_DRAWN} least reliable of {count}; the table lists them all.</p>\n"
        if count > _RULES_DRAWN
        else ""
    )
    return (
        '<section id="reliability">\n<h2>Reliability over repeated runs</h2>\n'
        '<p class="muted">Each rule\'s pass rate over repeated runs of the same tasks (dot) with '
        "its 95% Wilson interval (whisker), and pass^k (diamond): the chance that k runs of a "
        "task all pass. The least reliable rules come first.</p>\n"
        f'{_reliability_legend()}\n<figure class="reliability-chart">{chart}</figure>\n{left_out}'
        f"{_reliability_table(ordered, contracts, rules)}\n</section>\n"
    )


def _reliability_table(
    rows: Sequence[ReliabilityRow], contracts: list[str], rules: list[str]
) -> str:
    lines = []
    for row, contract, rule in zip(rows, contracts, rules, strict=True):
        low, high = row.interval
        hat = "n/a" if row.pass_hat_k is None else f"{row.pass_hat_k:.1%}"
        lines.append(
            f"<tr><td>{html.escape(contract)}</td><td>{html.escape(rule)}</td>"
            f"<td class=n>{row.runs}</td><td class=n>{row.passes}</td>"
            f"<td class=n>{row.rate:.1%}</td><td class=n>{low:.1%}–{high:.1%}</td>"
            f"<td class=n>{hat} (k={row.k})</td><td>{_stability(row.stability)}</td>"
            f"<td class=n>{row.flaky_tasks} of {row.tasks}</td></tr>"
        )
    return (
        '<table class="reliability"><thead><tr><th>Contract</th><th>Rule</th><th>Runs</th>'
        "<th>Passed</th><th>Pass rate</th><th>95% interval</th><th>pass^k</th>"
        f"<th>Stability</th><th>Flaky tasks</th></tr></thead><tbody>{''.join(lines)}</tbody>"
        "</table>"
    )


def _stability(stability: str) -> str:
    """The stability in words, in its chart colour (the words carry it without colour)."""
    color = STABILITY_COLORS.get(stability, "#666666")
    return f'<span style="color:{color}">{html.escape(stability)}</span>'


def _reliability_legend() -> str:
    kinds = "".join(
        f'<span><i style="background:{color}"></i>{html.escape(name)}</span>'
        for name, color in STABILITY_COLORS.items()
    )
    marks = "<span>● pass rate, ├─┤ 95% interval</span><span>◇ pass^k</span>"
    return f'<p class="legend">{kinds}{marks}</p>'


def trace_section(view: TraceView, number: int, clean: Cleaner, used: set[str]) -> str:
    """One trace's section; `used` holds the SVG ids the page already has."""
    from tracecheck.report.charts import waterfall

    timeline = _cleaned(view.timeline, clean)
    found = _violations(view)
    drawn = {bar.span_id for bar in timeline.bars if bar.span_id}
    marks = _marks(found, drawn, clean)
    verdicts = "".join(
        f"<li>{html.escape(name)}: {_status(v.status)} "
        f'<span class="muted">{html.escape(printable(v.notes))}</span></li>'
        for v, name in zip(
            view.verdicts, clean.all([v.contract for v in view.verdicts]), strict=True
        )
    )
    left_out = (
        f'<p class="muted">{timeline.left_out} more span(s) are not drawn: the waterfall shows '
        f"the first {len(timeline.bars)} of {timeline.spans} in tree order.</p>\n"
        if timeline.left_out
        else ""
    )
    chart = waterfall(timeline, marks, used) if timeline.bars else "<p>No span to draw.</p>"
    return (
        f'<section class="trace" id="trace-{number}">\n'
        f"<h2>trace <code>{_id(view.timeline.trace_id)}</code></h2>\n"
        f'<p class="muted">{clean.html(view.source)} · {timeline.spans} span(s)</p>\n'
        f'<ul>{verdicts}</ul>\n{_legend()}\n<figure class="waterfall">{chart}</figure>\n'
        f"{left_out}{_listed(found, drawn, timeline, clean)}{_errors(view, clean)}</section>\n"
    )


def _cleaned(timeline: Timeline, clean: Cleaner) -> Timeline:
    """The timeline with its names redacted again, with the page's profile, and shortened."""
    texts: list[str | None] = []
    for bar in timeline.bars:
        texts.extend((bar.name, bar.tool, bar.model))
    names = clean.all(texts, _NAME_CHARS)
    bars = tuple(
        dataclasses.replace(
            bar,
            name=names[3 * row],
            tool=names[3 * row + 1] if bar.tool is not None else None,
            model=names[3 * row + 2] if bar.model is not None else None,
        )
        for row, bar in enumerate(timeline.bars)
    )
    return dataclasses.replace(timeline, bars=bars)


Found = list[tuple[str, str, Violation]]  # (contract, rule label, violation)


def _violations(view: TraceView) -> Found:
    return [
        (verdict.contract, rule.label, violation)
        for verdict in view.verdicts
        for rule in verdict.rules
        if rule.status == "fail"
        for violation in rule.violations
    ]


def _marks(found: Found, drawn: set[str], clean: Cleaner) -> dict[str, Mark]:
    """Per drawn span that broke a rule, the words beside its mark: each rule and detail."""
    from tracecheck.report.charts import Mark

    texts = clean.all([f"{label}: {_unplaced(v)}" for _, label, v in found], 1000)
    words: dict[str, list[str]] = {}
    for (_, _, violation), text in zip(found, texts, strict=True):
        if violation.span_id in drawn:
            words.setdefault(violation.span_id, []).append(text)
    return {
        span: Mark(span, "✗ " + _clipped("; ".join(texts), _NOTE_CHARS))
        for span, texts in words.items()
    }


_SPAN_REF = re.compile(r'^span \S+ (?:\("(?:[^"\\]|\\.)*"\) )?')


def _unplaced(violation: Violation) -> str:
    """A violation's words without the span they name first: the mark stands on that span."""
    return _SPAN_REF.sub("", violation.detail) if violation.span_id else violation.detail


def _clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _listed(found: Found, drawn: set[str], timeline: Timeline, clean: Cleaner) -> str:
    """Every violation in full: those on a drawn span, then those of no span (or of a span
    beyond the cap), which the waterfall cannot mark."""
    if not found:
        return ""
    names = {bar.span_id: bar.name for bar in timeline.bars if bar.span_id}
    count = len(found)
    texts = clean.all(
        [c for c, _, _ in found]
        + [label for _, label, _ in found]
        + [v.detail for _, _, v in found],
        2000,
    )
    on_spans, elsewhere = [], []
    for row, (_, _, violation) in enumerate(found):
        contract, label, detail = texts[row], texts[count + row], texts[2 * count + row]
        rule = f'<span class="rule">{html.escape(label)}</span>'
        line = (
            f'{rule} <span class="muted">({html.escape(contract)})</span> — {html.escape(detail)}'
        )
        span = violation.span_id
        if span in drawn:
            name = html.escape(names.get(span, ""))
            on_spans.append(f"<li>span <code>{_id(span)}</code> {name}: {line}</li>")
        elif span is None:
            elsewhere.append(f"<li>{line}</li>")
        else:
            elsewhere.append(f"<li>span <code>{_id(span)}</code> (not drawn): {line}</li>")
    parts = []
    if on_spans:
        parts.append('<h3>Violations</h3>\n<ul class="violations">' + "".join(on_spans) + "</ul>")
    if elsewhere:
        parts.append(
            '<h3>Violations not on a drawn span</h3>\n<ul class="violations">'
            + "".join(elsewhere)
            + "</ul>"
        )
    return "\n".join(parts) + "\n"


def _errors(view: TraceView, clean: Cleaner) -> str:
    """The rules that could not be evaluated, with why."""
    broken = [
        (rule.label, rule.error or "")
        for v in view.verdicts
        for rule in v.rules
        if rule.status == "error"
    ]
    if not broken:
        return ""
    texts = clean.all([f"{label}: could not be evaluated: {error}" for label, error in broken])
    items = "".join(f"<li>{html.escape(text)}</li>" for text in texts)
    return f"<h3>Could not be evaluated</h3>\n<ul>{items}</ul>\n"


def _legend() -> str:
    from tracecheck.report.charts import KIND_COLORS, VIOLATION_COLOR

    kinds = "".join(
        f'<span><i style="background:{KIND_COLORS[kind]}"></i>{name}</span>'
        for kind, name in _KINDS
    )
    mark = f'<span style="color:{VIOLATION_COLOR}">✗ violation</span>'
    return f'<p class="legend">{kinds}{mark}</p>'
