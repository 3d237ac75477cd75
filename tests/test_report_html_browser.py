"""The HTML report in a real headless browser: Debian's chromium, driven through chromedriver
with selenium. The page loads from `file://` with no console error, shows one bar per span and
a violation mark on exactly the violating spans, holds no planted secret in its text, and
leaves a screenshot for people in build/screenshots/report.png (build/ is git-ignored).

Skipped only when chromium or chromedriver is not installed (.ci/run installs them)."""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from report_html_support import (
    FORBIDDEN_SPAN,
    SECRET,
    SPANS,
    write_contract,
    write_run,
)

from tracecheck.cli import Environment, ExitCode, main

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "build" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
    reason="chromium and chromedriver are not installed "
    "(apt-get install chromium chromium-driver, as .ci/run does)",
)


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--window-size=1400,1600",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield browser
    finally:
        browser.quit()


def test_the_page_in_chromium(driver: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the page names its files as given: short, for the screenshot
    write_run(tmp_path)
    write_contract(tmp_path)
    page = tmp_path / "report.html"
    env = Environment.current(stdout=io.StringIO(), stderr=io.StringIO(), environ={})
    argv = ["report", "run.otlp.json", "--contract", "demo-desk.json", "-o", "report.html"]
    assert main(argv, env=env) == ExitCode.FAILED

    driver.get(page.as_uri())
    bars = driver.execute_script(
        "return Array.from(document.querySelectorAll('[id^=\"span-\"]'), e => e.id)"
    )
    marks = driver.execute_script(
        "return Array.from(document.querySelectorAll('[id^=\"violation-\"]'), e => e.id)"
    )
    text = driver.execute_script("return document.documentElement.textContent")
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(SCREENSHOTS / "report.png"))

    assert errors == []
    assert len(bars) == SPANS and len(set(bars)) == SPANS
    assert marks == [f"violation-{FORBIDDEN_SPAN}"]
    assert "tools.forbidden[run_shell]" in text  # the rule's label beside its mark
    assert SECRET not in text and SECRET not in driver.page_source


def test_a_fleet_page_in_chromium(
    driver: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fleet check --html`: the rules of the whole fleet, then its worst traces drawn, each
    bar a span of a drawn trace and each violation marked on a span of that trace."""
    pq = pytest.importorskip("pyarrow.parquet", reason="the fleet extra is not installed")
    from fleet_support import CONTRACT, generated_fleet

    monkeypatch.chdir(tmp_path)
    generated_fleet(tmp_path / "runs", 30)
    (tmp_path / "payments.json").write_text(CONTRACT)
    env = Environment.current(stdout=io.StringIO(), stderr=io.StringIO(), environ={})
    argv = ["fleet", "check", "runs", "--contract", "payments.json", "-j", "1"]
    assert main([*argv, "-o", "v.parquet", "--html", "fleet.html"], env=env) == ExitCode.FAILED

    driver.get((tmp_path / "fleet.html").as_uri())
    drawn = driver.execute_script(
        "return Array.from(document.querySelectorAll('h2 code'), e => e.textContent)"
    )
    bars = driver.execute_script(
        "return Array.from(document.querySelectorAll('[id^=\"span-\"]'), e => e.id)"
    )
    marks = driver.execute_script(
        "return Array.from(document.querySelectorAll('[id^=\"violation-\"]'), e => e.id)"
    )
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(SCREENSHOTS / "fleet.png"))

    rows = [row for row in pq.read_table(tmp_path / "v.parquet").to_pylist() if row["rule"]]
    spans = {row["trace_id"]: row["spans"] for row in rows}
    failing = {row["trace_id"] for row in rows if row["status"] != "pass"}
    assert errors == []
    assert len(drawn) == 10 and set(drawn) <= failing
    assert len(bars) == sum(spans[trace] for trace in drawn)  # one bar per span drawn
    on_spans = {
        f"violation-{row['first_violating_span']}"
        for row in rows
        if row["trace_id"] in drawn and row["first_violating_span"]
    }
    assert on_spans <= set(marks) and set(marks) <= {b.replace("span-", "violation-") for b in bars}
