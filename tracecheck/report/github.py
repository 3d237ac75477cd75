"""GitHub Actions: workflow annotations, and the Markdown job summary.

Annotations: one per violation, rule error or unread input, at most `MAX_VIOLATIONS` per rule
(the last one counting the rest) and at most `MAX_ANNOTATIONS` in all, since GitHub shows ten
error annotations per step; past that, the tenth says how many were left out and points to the
job summary. Escaping follows the runner's rules (as `@actions/core` does): in
the message `%`, CR and LF are percent-encoded; in properties also `:` and `,`. Other control
characters are shown as escapes, so recorded text cannot forge a second command.

The job summary (the file `$GITHUB_STEP_SUMMARY` names, appended to): a verdict table (file,
trace, contract, verdict, rules passed), the rules that failed or could not be evaluated with
their kind and the spans, tools and argument pointers they concern, and the files read. It
never shows a violation's prose or any attribute value: recorded text appears only as names
(files, contracts, rule labels, tools), escaped so that it cannot make Markdown or HTML.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice

from tracecheck.report.model import CheckedTrace, ReadFailure
from tracecheck.report.safe import markdown, printable, shorten
from tracecheck.verdict import RuleResult

__all__ = [
    "MAX_ANNOTATIONS",
    "MAX_VIOLATIONS",
    "annotation_lines",
    "render_annotations",
    "render_summary",
    "summary_parts",
]

MAX_VIOLATIONS = 5  # annotations per rule
MAX_ANNOTATIONS = 10  # error annotations per step, as GitHub shows them
# The job summary stays readable and well under GitHub's 1 MiB per step.
MAX_ROWS = 200  # verdicts in the table
MAX_FAILING = 100  # failing rules listed
MAX_SPANS = 10  # spans listed per failing rule


def render_annotations(
    checked: Sequence[CheckedTrace], failures: Sequence[ReadFailure] = ()
) -> str:
    return "\n".join(annotation_lines(checked, failures))


def annotation_lines(
    checked: Iterable[CheckedTrace], failures: Sequence[ReadFailure] = ()
) -> Iterator[str]:
    """The lines of `render_annotations`, one verdict at a time: every annotation when there
    are at most `MAX_ANNOTATIONS`; otherwise one fewer, and a last one that counts the rest, so
    that the count is among the ones GitHub shows."""
    lines = _annotations(checked, failures)
    first = list(islice(lines, MAX_ANNOTATIONS))
    rest = sum(1 for _ in lines)
    if not rest:
        yield from first
        return
    yield from first[: MAX_ANNOTATIONS - 1]
    hidden = rest + 1
    noun = "failure" if hidden == 1 else "failures"
    yield f"::error title=tracecheck::{hidden} more {noun}; see the job summary"


def _annotations(checked: Iterable[CheckedTrace], failures: Sequence[ReadFailure]) -> Iterator[str]:
    for failure in failures:
        yield _command(failure.source, "tracecheck: input not read", failure.message)
    for item in checked:
        verdict = item.verdict
        for rule in verdict.rules:
            title = f"{verdict.contract}: {rule.label}"
            if rule.status == "error":
                yield _command(item.source, title, f"could not be evaluated: {rule.error}")
            if rule.status != "fail":
                continue
            shown = rule.violations[:MAX_VIOLATIONS]
            hidden = len(rule.violations) - len(shown)
            for index, violation in enumerate(shown):
                more = f" (and {hidden} more)" if hidden and index == len(shown) - 1 else ""
                yield _command(item.source, title, violation.detail + more)


def _command(path: str, title: str, message: str) -> str:
    return f"::error file={_property(path)},title={_property(title)}::{_data(message)}"


def _data(text: str) -> str:
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(escaped)


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


# --- the job summary ----------------------------------------------------------------------

_VERDICTS = {"pass": "✅ PASS", "fail": "❌ FAIL", "error": "⚠️ ERROR"}


def render_summary(
    checked: Sequence[CheckedTrace],
    failures: Sequence[ReadFailure] = (),
    contracts: Sequence[str] = (),
) -> str:
    return "".join(summary_parts(lambda: iter(checked), failures, contracts))


def summary_parts(
    checked: Callable[[], Iterable[CheckedTrace]],
    failures: Sequence[ReadFailure] = (),
    contracts: Sequence[str] = (),
) -> Iterator[str]:
    """The job summary in parts, ending with a blank line (summaries of several steps or runs
    appended to one file stay apart). `checked` gives the verdicts afresh on each call (for
    the counts, the table, the failing rules and the files); `contracts` are the contract
    files read (default: those the verdicts name)."""
    verdicts = 0
    statuses = {"pass": 0, "fail": 0, "error": 0}
    for item in checked():
        verdicts += 1
        statuses[item.verdict.status] += 1
    overall = "error" if failures or statuses["error"] else "fail" if statuses["fail"] else "pass"
    yield f"## tracecheck: {_VERDICTS[overall]}\n\n"
    counts = ", ".join(f"{n} {status}" for status, n in statuses.items() if n)
    unread = f"; {len(failures)} input{_s(len(failures))} not read" if failures else ""
    yield f"{verdicts} verdict{_s(verdicts)}{': ' + counts if counts else ''}{unread}.\n\n"
    if verdicts:
        yield from _table(checked())
    yield from _failing(checked())
    yield from _files(checked(), failures, contracts)


def _table(checked: Iterable[CheckedTrace]) -> Iterator[str]:
    yield "| file | trace | contract | verdict | rules passed |\n"
    yield "|---|---|---|---|---|\n"
    rows = 0
    for item in checked:
        rows += 1
        if rows > MAX_ROWS:
            continue
        verdict = item.verdict
        passed, total = _passed(verdict.rules)
        yield (
            f"| {markdown(item.files)} | {markdown(verdict.trace_id or '(no trace id)')} "
            f"| {markdown(verdict.contract)} | {_VERDICTS[verdict.status]} | {passed}/{total} |\n"
        )
    if rows > MAX_ROWS:
        yield f"\n… and {rows - MAX_ROWS} more verdicts (the JSON report holds every one).\n"
    yield "\n"


def _passed(rules: Sequence[RuleResult]) -> tuple[int, int]:
    """Rules passed and rules counted: the rules outside alternatives, and the alternatives'
    as one (they pass if one alternative passes), as the verdict's notes count them."""
    base = [rule for rule in rules if rule.alternative is None]
    alternatives: dict[str, list[RuleResult]] = {}
    for rule in rules:
        if rule.alternative is not None:
            alternatives.setdefault(rule.alternative, []).append(rule)
    passed = sum(rule.status == "pass" for rule in base)
    if alternatives:
        either = any(all(r.status == "pass" for r in group) for group in alternatives.values())
        passed += either
    return passed, len(base) + (1 if alternatives else 0)


def _failing(checked: Iterable[CheckedTrace]) -> Iterator[str]:
    """Each verdict's rules that failed or could not be evaluated, under a line naming the
    contract, the file and the trace."""
    listed = 0
    for item in checked:
        verdict = item.verdict
        failing = [rule for rule in verdict.rules if rule.status in ("fail", "error")]
        if not failing:
            continue
        if not listed:
            yield "### Failing rules\n"
        shown = failing[: max(0, MAX_FAILING - listed)]
        listed += len(failing)
        if not shown:
            continue
        trace = markdown(verdict.trace_id or "(no trace id)")
        yield f"\n**{markdown(verdict.contract)}** on {markdown(item.files)}, trace {trace}:\n\n"
        for rule in shown:
            kind = f" ({markdown(rule.kind)})" if rule.kind else ""
            yield f"- {markdown(rule.label)}{kind}: {_outcome(rule)}\n"
    if listed > MAX_FAILING:
        yield f"\n… and {listed - MAX_FAILING} more failing rules (see the JSON report).\n"
    if listed:
        yield "\n"


def _outcome(rule: RuleResult) -> str:
    """How the rule failed, as data: the spans (with the tool each called and the argument
    pointer read), or that it could not be evaluated."""
    if rule.status == "error":
        return "could not be evaluated"
    spans: list[str] = []
    whole = 0
    for violation in rule.violations:
        if violation.span_id is None:
            whole += 1
            continue
        extra = [f"tool {markdown(violation.tool)}"] if violation.tool else []
        if violation.pointer is not None:
            extra.append(f"argument {markdown(violation.pointer or '(whole value)')}")
        spans.append(markdown(violation.span_id) + (f" ({', '.join(extra)})" if extra else ""))
    parts = []
    if spans:
        shown = ", ".join(spans[:MAX_SPANS])
        more = f" and {len(spans) - MAX_SPANS} more" if len(spans) > MAX_SPANS else ""
        parts.append(f"span{_s(len(spans))} {shown}{more}")
    if whole:
        parts.append("the trace as a whole" if whole == 1 else f"the trace as a whole ×{whole}")
    return "failed at " + " and ".join(parts) if parts else "failed"


def _files(
    checked: Iterable[CheckedTrace], failures: Sequence[ReadFailure], contracts: Sequence[str]
) -> Iterator[str]:
    traces: dict[str, set[str | None]] = {}
    named: dict[str, None] = dict.fromkeys(contracts)
    for item in checked:
        for source in item.sources or (item.source,):
            traces.setdefault(source, set()).add(item.verdict.trace_id)
        if not contracts:
            named[item.contract_source or item.verdict.contract] = None
    if not (traces or named or failures):
        return
    yield "### Files read\n\n"
    for source, ids in traces.items():
        yield f"- {markdown(source)}: {len(ids)} trace{_s(len(ids))}\n"
    for contract in named:
        yield f"- {markdown(contract)}: contract\n"
    for failure in failures:
        yield f"- {markdown(failure.source)}: not read: {markdown(shorten(failure.message, 300))}\n"
    yield "\n"


def _s(count: int) -> str:
    return "" if count == 1 else "s"
