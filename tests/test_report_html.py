"""The HTML report (`tracecheck report`, `check --html`): one self-contained page that fetches
nothing, one bar per span, each violation marked on its span, no planted secret, the exit codes
of `check`, and the same page from `--jobs 2` as from one process. (In a browser:
tests/test_report_html_browser.py.)"""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from report_html_support import (
    FORBIDDEN_SPAN,
    SECRET,
    SPANS,
    network_fetches,
    otlp,
    page_ids,
    run_spans,
    write_contract,
    write_run,
)

import tracecheck.cli.extras as extras
import tracecheck.cli.running as running
import tracecheck.run.executors as executors
from tracecheck import read_traces
from tracecheck.cli import Environment, ExitCode, main
from tracecheck.report import (
    CheckedTrace,
    PageHeader,
    RuleTally,
    render_html,
    tallies_of,
    timeline_of,
    trace_views,
)
from tracecheck.verdict import RuleResult, Verdict

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
REFUND_DESK = str(ROOT / "contracts" / "refund-desk.json")
EPOCH = "1780000000"  # the page's clock (SOURCE_DATE_EPOCH), so that two pages compare equal


def _cli(argv: list[str], environ: dict[str, str] | None = None) -> tuple[int, str, str]:
    """`main(argv)` in-process with its own streams and a fixed clock: exit code, out, err."""
    out, err = io.StringIO(), io.StringIO()
    env = Environment.current(
        stdout=out, stderr=err, environ={"SOURCE_DATE_EPOCH": EPOCH, **(environ or {})}
    )
    return main(argv, env=env), out.getvalue(), err.getvalue()


@pytest.fixture
def run(tmp_path: Path) -> tuple[str, str]:
    """The generated run and its contract: (trace file, contract file)."""
    return write_run(tmp_path), write_contract(tmp_path)


def test_the_report_page_is_offline_marks_violations_and_holds_no_secret(
    tmp_path: Path, run: tuple[str, str]
) -> None:
    trace, contract = run
    page_path = tmp_path / "out" / "report.html"
    code, out, _ = _cli(["report", trace, "--contract", contract, "-o", str(page_path)])
    assert code == ExitCode.FAILED
    assert out.endswith('contract "demo-desk" FAIL (1/3 rules passed)\n')
    page = page_path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert network_fetches(page) == []
    assert "http://" not in page and "https://" not in page  # not even a namespace
    assert "<script" not in page and "<link" not in page
    assert "default-src 'none'" in page  # the browser refuses any fetch the page might ask
    assert len(page_ids(page, "span")) == SPANS
    assert page_ids(page, "violation") == [f"violation-{FORBIDDEN_SPAN}"]
    assert SECRET not in page and SECRET[4:] not in page
    assert "[REDACTED:github-token]" in page  # the span name that held it
    # The violation of no span (a required tool never called) is listed under the trace.
    assert "Violations not on a drawn span" in page
    assert "tools.required[issue_refund]" in page
    assert "Created</dt><dd>2026-05-28 20:26:40 UTC" in page


def test_check_html_writes_the_same_page_beside_its_other_reports(
    tmp_path: Path, run: tuple[str, str]
) -> None:
    trace, contract = run
    html, report = tmp_path / "check.html", tmp_path / "report.html"
    code, out, _ = _cli(["check", trace, "--contract", contract, "--html", str(html)])
    assert code == ExitCode.FAILED
    assert "✗ tools.forbidden[run_shell]" in out  # the text report, as without --html
    _cli(["report", trace, "--contract", contract, "-o", str(report)])
    assert html.read_text() == report.read_text()


def test_a_passing_run_and_a_rule_that_cannot_be_judged_still_get_a_page(tmp_path: Path) -> None:
    page = tmp_path / "pass.html"
    clean = str(FIXTURES / "otel-genai" / "clean.otlp.jsonl")
    assert _cli(["report", clean, "--contract", REFUND_DESK, "-o", str(page)])[0] == ExitCode.OK
    assert '<span class="status pass">PASS</span>' in page.read_text()
    # No span says which tools were called: a rule on tools cannot be judged (exit 2).
    bare = tmp_path / "bare.json"
    bare.write_text(otlp([{"traceId": "a" * 32, "spanId": "b" * 16, "name": "n"}]))
    limits = tmp_path / "limits.json"
    limits.write_text('{"name": "limits", "tools": {"maxCalls": 3}}')
    page = tmp_path / "error.html"
    code = _cli(["report", str(bare), "--contract", str(limits), "-o", str(page)])[0]
    assert code == ExitCode.USAGE
    assert "Could not be evaluated</h3>" in page.read_text()


def test_unreadable_inputs_exit_3_and_are_named_on_the_page_of_the_others(
    tmp_path: Path, run: tuple[str, str]
) -> None:
    trace, contract = run
    broken = tmp_path / "broken.json"
    broken.write_text('{"resourceSpans": [')
    alone = tmp_path / "alone.html"
    code, _, err = _cli(["report", str(broken), "--contract", contract, "-o", str(alone)])
    assert code == ExitCode.UNREADABLE and "broken.json" in err
    assert not alone.exists()  # nothing was checked: no page
    both = tmp_path / "both.html"
    code = _cli(["report", trace, str(broken), "--contract", contract, "-o", str(both)])[0]
    assert code == ExitCode.UNREADABLE
    assert "<dt>Not read</dt><dd>" + str(broken) in both.read_text()


def test_usage_errors_exit_2_and_write_nothing(tmp_path: Path, run: tuple[str, str]) -> None:
    trace, contract = run
    page = tmp_path / "page.html"
    assert _cli(["report", trace, "-o", str(page)])[0] == ExitCode.USAGE  # no --contract
    assert _cli(["report", trace, "--contract", contract])[0] == ExitCode.USAGE  # no -o
    code, _, err = _cli(["report", trace, "--contract", contract, "-o", "-"])
    assert code == ExitCode.USAGE
    assert (
        err == "tracecheck: error: -o needs a file: the page is read in a browser, not on stdout\n"
    )
    code, _, err = _cli(["check", trace, "--contract", contract, "--html", "-"])
    assert code == ExitCode.USAGE
    assert (
        err
        == "tracecheck: error: --html needs a file: the page is read in a browser, not on stdout\n"
    )
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "tools": {"requird": ["Read"]}}')
    assert _cli(["report", trace, "--contract", str(bad), "-o", str(page)])[0] == ExitCode.USAGE
    assert not page.exists()


def test_without_matplotlib_the_command_names_the_extra(
    tmp_path: Path, run: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    trace, contract = run
    monkeypatch.setattr(
        extras, "missing", lambda modules: [m for m in modules if m == "matplotlib"]
    )
    page = tmp_path / "page.html"
    code, out, err = _cli(["report", trace, "--contract", contract, "-o", str(page)])
    assert code == ExitCode.USAGE and out == ""
    assert err.startswith("tracecheck: error: report needs the report extra: pip install '")
    assert err.rstrip().endswith("[report]'")
    code, out, err = _cli(["check", trace, "--contract", contract, "--html", str(page)])
    assert code == ExitCode.USAGE and out == ""
    assert err.startswith("tracecheck: error: --html needs the report extra: pip install '")
    assert not page.exists()


def test_jobs_2_writes_the_page_one_process_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(running, "WORTH_BYTES", 0)  # small inputs go to the workers too
    pools: list[object] = []

    class Counted(executors._Pool):
        def __init__(self, *args: Any) -> None:
            pools.append(args)
            super().__init__(*args)

    monkeypatch.setattr(executors, "_Pool", Counted)
    folder = tmp_path / "traces"
    folder.mkdir()
    write_run(folder, "a-run.otlp.json")
    for name in ("forbidden.otlp.jsonl", "clean.otlp.jsonl", "leaky.otlp.pb"):
        shutil.copyfile(FIXTURES / "otel-genai" / name, folder / f"b-{name}")
    contract = write_contract(tmp_path)
    pages = []
    for jobs in ("1", "2"):
        page = tmp_path / f"jobs{jobs}.html"
        argv = [str(folder), "--contract", contract, "--contract", REFUND_DESK]
        code, out, _ = _cli(["check", *argv, "--html", str(page), "--jobs", jobs])
        pages.append((code, out, page.read_text()))
    assert len(pools) == 1  # the second run was read and checked by the workers
    assert pages[0] == pages[1]
    assert pages[0][0] == ExitCode.FAILED
    assert pages[0][2].count('<section class="trace"') == 4
    assert SECRET not in pages[0][2]


def test_a_trace_over_the_cap_draws_its_first_spans_and_says_how_many_are_left_out(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.json"
    path.write_text(otlp(run_spans()))
    (trace,) = read_traces(str(path))
    timeline = timeline_of(trace, limit=4)
    assert (len(timeline.bars), timeline.left_out, timeline.spans) == (4, 6, 10)
    verdict = Verdict("demo", trace.trace_id, "pass", (), 1.0, "0/0 rules passed")
    checked = [CheckedTrace(str(path), None, verdict, timeline=timeline)]
    page = render_html(PageHeader("pass"), tallies_of(checked), trace_views(checked))
    assert len(page_ids(page, "span")) == 4
    assert "6 more span(s) are not drawn: the waterfall shows the first 4 of 10" in page


def test_the_page_is_drawn_from_tallies_and_traces_given_apart() -> None:
    """A fleet's tallies, counted elsewhere, drawn with no trace at all; the same bytes twice."""
    tallies = [
        RuleTally("refund-desk", "tools.forbidden[run_shell]", passed=999_000, failed=1_000),
        RuleTally("refund-desk", "retries", passed=990_000, errors=10_000),
    ]
    header = PageHeader("fail", contracts=("refund-desk.json",), traces=1_000_000)
    page = render_html(header, tallies, [])
    assert page == render_html(header, tallies, [])
    assert page.count('id="rule-') == 2 * 4  # pass, fail, error, skipped per rule
    assert "<td class=n>0.1%</td>" in page and "<td class=n>1.0%</td>" in page
    assert "Created" not in page  # no clock given: none shown


def test_tallies_count_each_rule_of_each_contract_in_first_seen_order() -> None:
    def verdict(contract: str, *statuses: str) -> CheckedTrace:
        rules = tuple(RuleResult(f"r{n}", None, s) for n, s in enumerate(statuses))  # type: ignore[arg-type]
        return CheckedTrace("f", None, Verdict(contract, "t", "fail", rules, 0.0, ""))

    checked = [verdict("a", "pass", "fail"), verdict("b", "error"), verdict("a", "fail", "skipped")]
    assert tallies_of(checked) == [
        RuleTally("a", "r0", passed=1, failed=1),
        RuleTally("a", "r1", failed=1, skipped=1),
        RuleTally("b", "r0", errors=1),
    ]


def test_names_are_redacted_with_the_profile_asked_for(tmp_path: Path) -> None:
    spans = run_spans()
    spans[8]["name"] = "notify jane.doe@example.com"
    path = tmp_path / "run.json"
    path.write_text(otlp(spans))
    contract = write_contract(tmp_path)
    pages = {}
    for profile in ("default", "share"):
        page = tmp_path / f"{profile}.html"
        _cli(["report", str(path), "--contract", contract, "-o", str(page), "--profile", profile])
        pages[profile] = page.read_text()
    for text in pages.values():
        assert "jane.doe@example.com" not in text and SECRET not in text
    assert "notify [REDACTED:email]" in pages["default"]


def test_a_run_given_twice_gets_ids_of_its_own_on_one_page(tmp_path: Path) -> None:
    first, second = write_run(tmp_path, "first.otlp.json"), write_run(tmp_path, "second.otlp.json")
    contract, page = write_contract(tmp_path), tmp_path / "page.html"
    assert _cli(["report", first, second, "--contract", contract, "-o", str(page)])[0] == 1
    bars = page_ids(page.read_text(), "span")
    assert len(bars) == 2 * SPANS and len(set(bars)) == 2 * SPANS
    assert f"span-{FORBIDDEN_SPAN}-2" in bars
    marks = page_ids(page.read_text(), "violation")
    assert marks == [f"violation-{FORBIDDEN_SPAN}", f"violation-{FORBIDDEN_SPAN}-2"]


def test_a_trace_with_no_timing_draws_its_tree_without_a_made_up_time_axis(tmp_path: Path) -> None:
    stream = str(FIXTURES / "claude" / "refund-stream.jsonl")
    page = tmp_path / "page.html"
    no_shell = str(ROOT / "contracts" / "no-shell.yaml")
    assert _cli(["report", stream, "--contract", no_shell, "-o", str(page)])[0] == ExitCode.OK
    text = page.read_text()
    assert len(page_ids(text, "span")) == 11
    assert "the bars show the tree only" in text and "milliseconds from" not in text


def test_the_header_names_the_first_inputs_of_a_fleet_and_counts_the_rest() -> None:
    """A fleet given as ten thousand files (a shell's glob) names its first 20 inputs and
    inputs not read, then says how many more: the header stays a header."""
    header = PageHeader(
        "fail",
        inputs=tuple(f"runs/run-{n:05d}.otlp.jsonl" for n in range(10_000)),
        unread=tuple(f"runs/bad-{n}.json: is empty" for n in range(25)),
    )
    page = render_html(header, [], [])
    assert "<code>runs/run-00019.otlp.jsonl</code><br>and 9980 more</dd>" in page
    assert "run-00020" not in page
    assert "runs/bad-19.json: is empty<br>and 5 more</dd>" in page
    few = render_html(PageHeader("pass", inputs=("a.jsonl", "b.jsonl")), [], [])
    assert "<code>a.jsonl</code><br><code>b.jsonl</code></dd>" in few and "more</dd>" not in few
