"""The HTML page's section on each rule's reliability over repeated runs: drawn only when given,
after the rule tallies; the least reliable rule first, in the chart and in the table; each rule's
stability named; the Wilson interval's numbers; names escaped and redacted; at most 40 rules
drawn, and the rest counted."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("matplotlib", reason="the report extra is not installed")

from report_html_support import SECRET, otlp, run_spans

from tracecheck import read_traces
from tracecheck.fleet.reliability import RuleReliability, reliability
from tracecheck.report import (
    CheckedTrace,
    PageHeader,
    RuleTally,
    render_html,
    tallies_of,
    timeline_of,
    trace_views,
)
from tracecheck.report.charts import reliability_chart
from tracecheck.report.reliability import worst_first
from tracecheck.verdict import Verdict

HEADER = PageHeader("fail", contracts=("payments.json",), traces=16)
TALLIES = [RuleTally("payments", "shell", passed=7, failed=1)]


def _runs(rule: str, outcomes: dict[str, str], contract: str = "payments") -> list[dict[str, Any]]:
    """Verdict rows of `rule`, as the fleet reads them: per task, one run per letter of its
    outcomes (`p` passed, `f` failed)."""
    return [
        {
            "source": f"runs/{task}/run-{n}.otlp.jsonl",
            "trace_id": f"{task}-{n}",
            "contract": contract,
            "rule": rule,
            "status": "pass" if letter == "p" else "fail",
            "first_violating_span": None,
            "detail": None,
        }
        for task, letters in outcomes.items()
        for n, letter in enumerate(letters)
    ]


def _suite() -> list[RuleReliability]:
    """Given best first: `ok` always passes, `shell` fails once on task b (flaky), `budget`
    always fails on task a (a stable fail at 50%), `refund` never passes."""
    rows = (
        _runs("ok", {"a": "pppp", "b": "pppp"})
        + _runs("shell", {"a": "pppp", "b": "ppfp"})
        + _runs("budget", {"a": "ffff", "b": "pppp"})
        + _runs("refund", {"a": "ffff", "b": "ffff"})
    )
    return reliability(rows)


def _table_rules(page: str) -> list[str]:
    table = page[page.index('<table class="reliability">') :]
    table = table[: table.index("</table>")]
    return re.findall(r"<tr><td>[^<]*</td><td>([^<]*)</td>", table)


def _chart(page: str) -> str:
    start = page.index('<figure class="reliability-chart">')
    return page[start : page.index("</figure>", start)]


def _drawn(chart: str) -> int:
    return len(re.findall(r'id="reliability-\d+"', chart))


def test_the_section_is_drawn_only_when_reliability_is_given() -> None:
    page = render_html(HEADER, TALLIES, [])
    assert 'id="reliability"' not in page and "Reliability over repeated runs" not in page
    assert render_html(HEADER, TALLIES, [], reliability=None) == page
    assert render_html(HEADER, TALLIES, [], reliability=[]) == page  # nothing to show: no section
    given = render_html(HEADER, TALLIES, [], reliability=_suite())
    assert "<h2>Reliability over repeated runs</h2>" in given
    assert given.count('id="reliability"') == 1
    assert given == render_html(HEADER, TALLIES, [], reliability=_suite())  # the same bytes


def test_the_section_comes_after_the_rule_tallies_and_before_the_traces(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(otlp(run_spans()))
    (trace,) = read_traces(str(path))
    verdict = Verdict("demo", trace.trace_id, "pass", (), 1.0, "0/0 rules passed")
    checked = [CheckedTrace(str(path), None, verdict, timeline=timeline_of(trace))]
    page = render_html(
        PageHeader("pass"), tallies_of(checked), trace_views(checked), reliability=_suite()
    )
    assert page.index('id="rules"') < page.index('id="reliability"') < page.index('id="trace-0"')


def test_rules_are_shown_least_reliable_first_in_the_table_and_the_chart() -> None:
    page = render_html(HEADER, TALLIES, [], reliability=_suite())
    assert _table_rules(page) == ["refund", "budget", "shell", "ok"]
    chart = _chart(page)
    labels = [chart.index(f">{rule}</text>") for rule in ("refund", "budget", "shell", "ok")]
    assert labels == sorted(labels)  # drawn top to bottom in that order
    assert _drawn(chart) == 4


def test_of_two_rules_that_never_passed_the_one_of_more_runs_comes_first() -> None:
    """Both at 0%: 0 of 2 runs leaves the rate's upper end at 66%, 0 of 40 at 9%."""
    rows = reliability(_runs("few", {"a": "ff"}) + _runs("many", {"a": "f" * 40}))
    assert [row.rule for row in worst_first(rows)] == ["many", "few"]
    again = reliability(_runs("also-few", {"a": "ff"}) + _runs("few", {"a": "ff"}))
    assert [row.rule for row in worst_first(again)] == ["also-few", "few"]  # alike: as given


def test_each_rule_is_labelled_by_its_stability() -> None:
    page = render_html(HEADER, TALLIES, [], reliability=_suite())
    table = page[page.index('<table class="reliability">') :]
    rows = dict(re.findall(r"<td>(\w+)</td><td class=n>.*?<span[^>]*>([\w ]+)</span>", table))
    assert rows == {
        "refund": "stable fail",
        "budget": "stable fail",
        "shell": "flaky",
        "ok": "stable pass",
    }
    assert "<td class=n>1 of 2</td>" in table  # shell: flaky on one of its two tasks
    chart = _chart(page)
    assert "88% (7/8) · pass^4 50% · flaky on 1 of 2 tasks</text>" in chart
    assert "100% (8/8) · pass^4 100% · stable pass</text>" in chart


def test_the_table_gives_the_wilson_interval_and_pass_hat_k() -> None:
    """7 of 8 runs: the 95% Wilson interval is 52.9%–97.8% (Wilson 1927, z = 1.96: centre
    (p + z²/2n)/(1 + z²/n) = 0.7534, half-width z·√(p(1−p)/n + z²/4n²)/(1 + z²/n) = 0.2243).
    pass^4 averages task a's 1 and task b's C(3,4)/C(4,4) = 0: 50%."""
    page = render_html(HEADER, TALLIES, [], reliability=_suite())
    table = page[page.index('<table class="reliability">') :]
    shell = re.search(r"<tr><td>payments</td><td>shell</td>.*?</tr>", table)
    assert shell is not None
    assert shell.group() == (
        "<tr><td>payments</td><td>shell</td><td class=n>8</td><td class=n>7</td>"
        "<td class=n>87.5%</td><td class=n>52.9%–97.8%</td><td class=n>50.0% (k=4)</td>"
        '<td><span style="color:#c77c00">flaky</span></td><td class=n>1 of 2</td></tr>'
    )
    assert "<td class=n>0.0%</td><td class=n>0.0%–32.4%</td>" in table  # refund: 0 of 8


def test_pass_hat_k_of_no_task_is_shown_as_not_available() -> None:
    row = RuleReliability("c", "r", 1, 2, 1, (0.09, 0.91), 3, None, "flaky", 1, None)
    page = render_html(HEADER, TALLIES, [], reliability=[row])
    assert "<td class=n>n/a (k=3)</td>" in page
    assert "pass^3 n/a · flaky on 1 of 1 tasks</text>" in _chart(page)
    assert 'id="reliability-0-pass-k"' not in page  # no diamond drawn
    assert 'id="reliability-0-interval"' in page


def test_names_are_escaped_and_redacted_as_every_name_on_the_page() -> None:
    rows = reliability(
        _runs("<script>alert(1)</script>", {"a": "pf"})
        + _runs(f"no call to {SECRET}", {"a": "pp"}, contract="other & co")
    )
    page = render_html(HEADER, TALLIES, [], reliability=rows)
    assert "<script" not in page
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert f"<td>payments</td><td>{escaped}</td>" in page
    assert f">payments: {escaped}</text>" in _chart(page)  # two contracts: each label names its
    assert "<td>other &amp; co</td>" in page
    assert SECRET not in page
    assert "<td>other &amp; co</td><td>[REDACTED:github-token]</td>" in page


def test_the_chart_draws_the_40_least_reliable_rules_and_counts_the_rest() -> None:
    rows = reliability(
        [row for n in range(45) for row in _runs(f"rule-{n:02d}", {"a": "p" * n + "f" * 4})]
    )
    page = render_html(HEADER, TALLIES, [], reliability=rows)
    assert (
        '<p class="muted">5 more rule(s) are not drawn: the chart shows the 40 least reliable '
        "of 45; the table lists them all.</p>"
    ) in page
    chart = _chart(page)
    assert _drawn(chart) == 40
    assert ">rule-00</text>" in chart and ">rule-39</text>" in chart
    assert ">rule-40</text>" not in chart and ">rule-44</text>" not in chart  # the most reliable
    assert "5 more rule(s) not drawn</text>" in chart
    assert "5 more rule(s), more reliable, are not drawn.</desc>" in chart
    assert len(_table_rules(page)) == 45
    few = render_html(HEADER, TALLIES, [], reliability=rows[:40])
    assert "not drawn" not in few and _drawn(_chart(few)) == 40


def test_the_chart_is_one_image_named_and_described_for_screen_readers() -> None:
    chart = reliability_chart(_suite())
    assert chart.startswith('<svg role="img" ')
    assert "<title>Reliability over repeated runs</title><desc>The pass rate of each of 4 " in chart
    assert "http" not in chart  # no namespace, no address: inlined in a page that fetches nothing


def test_the_chart_orders_rows_itself_and_grows_with_them() -> None:
    """Given best first, with labels of its own: the labels follow their rows."""
    rows = _suite()
    chart = reliability_chart(rows, [f"label {row.rule}" for row in rows])
    places = [chart.index(f">label {rule}</text>") for rule in ("refund", "budget", "shell", "ok")]
    assert places == sorted(places)
    assert _height(reliability_chart(rows)) > _height(reliability_chart(rows[:1]))


def _height(svg: str) -> float:
    found = re.search(r'height="([\d.]+)pt"', svg)
    assert found is not None
    return float(found[1])
