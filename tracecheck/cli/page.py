"""The HTML page `check --html`, `report` and `fleet --html` write: the report extra it needs,
where it may go, and when it was made."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from tracecheck.cli.codes import ExitCode, Stop
from tracecheck.cli.environment import Environment

if TYPE_CHECKING:
    from tracecheck.report.model import CheckedTrace, ReadFailure
    from tracecheck.verdict import VerdictStatus

__all__ = ["created", "refuse_stdout", "require_report_extra", "write_page"]


def require_report_extra(env: Environment, subject: str) -> None:
    """Stop with exit 2, naming the `report` extra, when matplotlib is not installed."""
    from tracecheck.cli.extras import require_extra

    require_extra(env, subject, "report", ("matplotlib",))


def write_page(
    env: Environment,
    target: str,
    checked: Callable[[], Iterator[CheckedTrace]],
    failures: Sequence[ReadFailure],
    inputs: Sequence[str],
    contracts: Sequence[str],
    status: VerdictStatus,
    profile: str,
) -> None:
    """The page of `checked` (read twice: the tallies, then one trace at a time) to `target`."""
    from tracecheck.cli.output import encoded, write_parts
    from tracecheck.report.html import PageHeader, html_parts, tallies_of, trace_views

    counts: Counter[str] = Counter()
    traces = 0
    for item in checked():
        counts[item.verdict.status] += 1
        traces += item.timeline is not None
    header = PageHeader(
        status=status,
        inputs=tuple(inputs),
        contracts=tuple(contracts),
        traces=traces,
        verdicts=tuple((s, counts[s]) for s in ("pass", "fail", "error") if counts[s]),
        unread=tuple(failure.message for failure in failures),
        created=created(env),
    )
    tallies = tallies_of(checked())
    write_parts(
        env, target, encoded(html_parts(header, tallies, trace_views(checked()), profile=profile))
    )


def created(env: Environment) -> str:
    """When the page is made, in UTC: `SOURCE_DATE_EPOCH` when set (a reproducible build's
    clock, which tests set too), otherwise now."""
    from datetime import UTC, datetime

    epoch = env.environ.get("SOURCE_DATE_EPOCH", "").strip()
    when = datetime.now(UTC)
    if epoch.isdigit():
        when = datetime.fromtimestamp(int(epoch), UTC)
    return when.strftime("%Y-%m-%d %H:%M:%S UTC")


def refuse_stdout(env: Environment, target: str) -> None:
    if target == "-":
        env.error("--html needs a file: the page is read in a browser, not on stdout")
        raise Stop(ExitCode.USAGE)
