"""What every run of the suite shares: fixed Hypothesis draws, and no skip nobody expected.

A CI run must be reproducible: a property that fails only on some random draw would turn a
landing red long after the change that caused it. `HYPOTHESIS_PROFILE=explore pytest` draws
new examples (and keeps failures in `.hypothesis/`) to look for what the fixed draws miss.
No example has a deadline: on a shared two-core machine one slow draw is the machine's, not the
code's; speed is measured in `bench/`.

A skipped test reads as green: a browser without its driver, a module that no longer imports or
an extra that was not installed would hide whole files of tests while CI passed. So a skip fails
the session unless ALLOWED_SKIPS below names it with its reason; `TRACECHECK_ALLOW_SKIPS=1`
lets a local run without every extra (the README's install has them all) pass with its skips.
An expected failure (`xfail`, strict or not) is no skip and is left to pytest.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("explore", derandomize=False, print_blob=True, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

# The skips a run may have, by node id (a parametrized test's id with or without its
# parameters), each with why it may. Everything else that skips fails the session.
ALLOWED_SKIPS: dict[str, str] = {
    "tests/test_cli_jobs.py::test_a_file_descriptor_is_read_by_this_process": (
        "platform: /dev/fd is Linux's and macOS's; elsewhere there is no descriptor path to read"
    ),
}

ALLOW_SKIPS_VARIABLE = "TRACECHECK_ALLOW_SKIPS"


def allowed_skip(nodeid: str) -> bool:
    return nodeid in ALLOWED_SKIPS or nodeid.partition("[")[0] in ALLOWED_SKIPS


class SkipGuard:
    """Collects the skips (of tests, and of whole modules at collection) that ALLOWED_SKIPS
    does not name, and turns a passing session into a failed one when there are any."""

    def __init__(self) -> None:
        self.unexpected: list[tuple[str, str]] = []

    def _note(self, report: pytest.CollectReport | pytest.TestReport) -> None:
        if not report.skipped or hasattr(report, "wasxfail") or allowed_skip(report.nodeid):
            return
        longrepr = report.longrepr
        # A skip's longrepr is (path, line, reason), the reason "Skipped: …" when pytest.skip
        # said it and bare when a skipif mark did.
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        self.unexpected.append((report.nodeid, reason.removeprefix("Skipped: ")))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._note(report)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._note(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.unexpected and session.exitstatus in (
            pytest.ExitCode.OK,
            pytest.ExitCode.NO_TESTS_COLLECTED,
        ):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.unexpected:
            return
        terminalreporter.section("skips not allowed", sep="=", red=True, bold=True)
        for nodeid, reason in self.unexpected:
            terminalreporter.line(f"{nodeid}: {reason}")
        terminalreporter.line(
            f"{len(self.unexpected)} skipped outside ALLOWED_SKIPS (tests/conftest.py), so the "
            "session fails: install what they need (pip install -e '.[test,examples]', "
            f"chromium and chromedriver), allow them there with a reason, or set "
            f"{ALLOW_SKIPS_VARIABLE}=1 for a local run."
        )


def pytest_configure(config: pytest.Config) -> None:
    # An xdist worker reports to the controller, which holds the guard.
    if os.environ.get(ALLOW_SKIPS_VARIABLE) == "1" or hasattr(config, "workerinput"):
        return
    config.pluginmanager.register(SkipGuard(), "tracecheck-skip-guard")
