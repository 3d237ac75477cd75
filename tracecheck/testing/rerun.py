"""Running one test several times as one pytest item, and reporting it once.

Each run sets the test up, calls it and tears it down, so its function-scoped fixtures (and with
them the `trace_spans` capture) are new in every run; fixtures of a wider scope are set up once
and stay for the next run. pytest has no public way to run an item again: `runtestprotocol`
with `log=False` runs the three phases without reporting them (the way pytest-rerunfailures
reruns a test), and gives a rerun item a fresh fixture request. How far a teardown goes is set
by the next item it is told of: the test's own parent keeps everything but the test's own
fixtures, and the last run is told the real next item, as pytest would tell the test.

pytest then hears of one test: the first run's setup, one call report carrying the judgement
of all the runs (tracecheck.testing.repeat), and a teardown (the first that failed, else the
last run's). A run that skips skips the test, unless a run before it failed (then the runs so
far are judged, the skipped one as not passed), and a first run that cannot be set up is
reported as the setup error it is: neither says anything about how often the test passes.

Imported only when a test repeats.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from _pytest.runner import runtestprotocol

from tracecheck.report.safe import printable, shorten
from tracecheck.testing.repeat import Repeat, Repetition, Run, RunCheck, RunInProgress

__all__ = ["refuse", "run_repeated"]

# The call report's attribute holding the summary line (the plugin's terminal summary reads it
# by this name): pytest-xdist carries a report's attributes from the worker to the controller.
SUMMARY_ATTRIBUTE = "tracecheck_repeat"


def run_repeated(
    item: pytest.Item,
    nextitem: pytest.Item | None,
    repeat: Repeat,
    current: pytest.StashKey[RunInProgress],
) -> None:
    """Run `item` as `repeat` says and report it as one test. During each run,
    `item.stash[current]` is that run, and the plugin adds its `trace_contract` checks."""
    hook = item.ihook
    hook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    done: list[Run] = []
    reports: list[list[pytest.TestReport]] = []
    for number in range(1, repeat.runs + 1):
        last = number == repeat.runs
        run = item.stash[current] = RunInProgress(number)
        try:
            found = runtestprotocol(item, log=False, nextitem=nextitem if last else _parent(item))
        finally:
            del item.stash[current]
        checked = tuple(run.checks)
        if _as_it_is(number, found) and any(not earlier.passed for earlier in done):
            # A skip does not hide a run that failed before it: the runs so far are judged,
            # the skipped one as not passed.
            if not last:
                found = _torn_down(item, nextitem, found)
            done.append(Run(number, False, "skipped, after a run that failed", checked))
            reports.append(found)
            break
        if _as_it_is(number, found):
            if not last:
                found = _torn_down(item, nextitem, found)
            for report in found:
                hook.pytest_runtest_logreport(report=report)
            hook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
            return
        done.append(_run(number, found, checked))
        reports.append(found)
        if item.session.shouldfail or item.session.shouldstop:
            break  # the protocol tore everything down: the session ends, judge what ran
    _report(item, Repetition(repeat, tuple(done)), reports)
    hook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)


def refuse(item: pytest.Item, nextitem: pytest.Item | None, message: str) -> None:
    """Report `item` as a setup error with `message` (a wrong marker), without setting it up
    or running it; what the previous test left set up is torn down as far as `nextitem`
    needs, as any test's teardown would."""
    hook = item.ihook
    hook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)

    def refused() -> None:
        pytest.fail(message, pytrace=False)

    setup = pytest.CallInfo.from_call(refused, when="setup")
    hook.pytest_runtest_logreport(report=hook.pytest_runtest_makereport(item=item, call=setup))
    teardown = _teardown_to(item, nextitem)
    hook.pytest_runtest_logreport(report=hook.pytest_runtest_makereport(item=item, call=teardown))
    hook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)


def _teardown_to(item: pytest.Item, nextitem: pytest.Item | None) -> pytest.CallInfo[None]:
    """Tear down what is set up and `nextitem` does not need, as pytest's own teardown does."""
    state = item.session._setupstate
    return pytest.CallInfo.from_call(
        lambda: state.teardown_exact(nextitem),
        when="teardown",
        reraise=(pytest.exit.Exception, KeyboardInterrupt),
    )


def _parent(item: pytest.Item) -> pytest.Item:
    # A node whose chain is the test's without the test: a teardown "before" it tears down
    # the test's own fixtures only. pytest's hooks read the next item's chain and nothing else.
    parent = item.parent
    assert parent is not None
    return parent  # type: ignore[return-value]


def _as_it_is(number: int, found: Sequence[pytest.TestReport]) -> bool:
    """Whether a run is the test's whole story: a skip (an xfail too), or a first run whose
    setup failed."""
    if any(report.skipped for report in found):
        return True
    return number == 1 and found[0].when == "setup" and found[0].failed


def _torn_down(
    item: pytest.Item, nextitem: pytest.Item | None, found: list[pytest.TestReport]
) -> list[pytest.TestReport]:
    """After a run that ends the test early, tear down what was kept for the next run (the
    wider fixtures the next test does not share), as the last run's teardown would have; a
    failure there is the test's teardown error, unless its own teardown failed first."""
    call = _teardown_to(item, nextitem)
    if call.excinfo is None or found[-1].failed:
        return found
    report: pytest.TestReport = item.ihook.pytest_runtest_makereport(item=item, call=call)
    return [*found[:-1], report]


def _run(number: int, found: Sequence[pytest.TestReport], checks: tuple[RunCheck, ...]) -> Run:
    """One run judged: it passed when it was set up and its call (the body, then the contract
    checks) passed; a teardown that fails is reported as the test's teardown error instead."""
    setup = found[0]
    call = next((report for report in found if report.when == "call"), None)
    if setup.failed:
        return Run(number, False, f"at setup: {_crash(setup)}", checks)
    assert call is not None
    if call.passed:
        return Run(number, True, None, checks)
    problem = next((check.problem for check in checks if check.problem is not None), None)
    if problem is not None:
        contract = next(check.contract for check in checks if check.problem is not None)
        return Run(number, False, f"{contract}/{problem}", checks)
    return Run(number, False, _crash(call), checks)


def _crash(report: pytest.TestReport) -> str:
    """The one line pytest's short summary gives a failure: the exception and its message."""
    crash = getattr(report.longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    text = message if isinstance(message, str) else report.longreprtext
    first = text.strip().splitlines()[0] if text.strip() else "it failed"
    return shorten(printable(first), 200)


def _report(
    item: pytest.Item, repetition: Repetition, reports: list[list[pytest.TestReport]]
) -> None:
    """Log the runs as one test: the first setup, the judgement, and a teardown."""
    hook = item.ihook
    failing = next((run for run in repetition.runs if not run.passed), None)
    lines = repetition.failure_lines()
    if failing is not None:
        found = reports[failing.number - 1]
        shown = next((r for r in found if r.failed), found[-1])
        lines += ["", f"run {failing.number} of {len(repetition.runs)}, the first to fail:"]
        lines.append(shown.longreprtext)
    message = None if repetition.ok else "\n".join(lines)

    def judged() -> None:
        if message is not None:
            pytest.fail(message, pytrace=False)

    item.user_properties.extend(repetition.properties())
    call = pytest.CallInfo.from_call(judged, when="call")
    verdict: pytest.TestReport = hook.pytest_runtest_makereport(item=item, call=call)
    # The time of the runs' calls, for --durations: the judgement itself takes none.
    verdict.duration = sum(r.duration for found in reports for r in found if r.when == "call")
    setattr(verdict, SUMMARY_ATTRIBUTE, repetition.summary())
    teardowns = [found[-1] for found in reports]
    teardown = next((report for report in teardowns if report.failed), teardowns[-1])
    teardown.user_properties = list(item.user_properties)  # JUnit reads them at teardown
    for report in (reports[0][0], verdict, teardown):
        hook.pytest_runtest_logreport(report=report)
