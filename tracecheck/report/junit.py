"""JUnit XML: one testsuite per trace and contract, one testcase per rule.

The layout is the common (Jenkins/Surefire) JUnit schema CI viewers read, and validates against
the Jenkins xUnit plugin's `junit-10.xsd` (`tests/schemas/`): `failure` for a failed rule (its
first violation as the message, all of them as the text), `error` for a rule that could not be
evaluated, `skipped` for the rules of an alternative that another alternative made moot. A
suite is named by the trace's file and the contract (`runs/a.jsonl: refund-desk`), with the
trace id after an `@` when the file holds several traces the contract checked. An input that
could not be read gets a testsuite of its own holding one `error`, so a viewer shows why the
job failed. Counts add up at both levels (the root counts no skipped tests: the schema has no
such attribute there); text XML 1.0 cannot hold is shown as escapes.
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime

from tracecheck.report.model import CheckedTrace, ReadFailure
from tracecheck.report.safe import shorten, xml_safe

__all__ = ["element", "junit_parts", "read_error", "render_junit", "sub"]

_COUNTS = ("tests", "failures", "errors", "skipped")
_ROOT_COUNTS = ("tests", "failures", "errors")  # junit-10.xsd: no `skipped` on <testsuites>


def render_junit(
    checked: Sequence[CheckedTrace],
    failures: Sequence[ReadFailure] = (),
    *,
    timestamp: datetime | None = None,
) -> bytes:
    """The report as UTF-8 XML. `timestamp` (local time, no zone) marks when checking began."""
    stamp = (timestamp or datetime.now()).replace(microsecond=0, tzinfo=None).isoformat()
    root = ET.Element("testsuites", name="tracecheck")
    several = _several(checked)
    suites = [_suite(item, stamp, several) for item in checked]
    suites.extend(_unread_suite(failure, stamp) for failure in failures)
    for key in _ROOT_COUNTS:
        root.set(key, str(sum(int(suite.get(key, "0")) for suite in suites)))
    root.set("time", f"{sum(item.seconds for item in checked):.3f}")
    root.extend(suites)
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


def junit_parts(
    checked: Callable[[], Iterable[CheckedTrace]],
    failures: Sequence[ReadFailure] = (),
    *,
    timestamp: datetime | None = None,
) -> Iterator[bytes]:
    """The bytes of `render_junit`, one testsuite at a time. `checked` gives the verdicts
    afresh on each call: once for the counts the root element opens with, once for the
    suites."""
    stamp = (timestamp or datetime.now()).replace(microsecond=0, tzinfo=None).isoformat()
    counts = dict.fromkeys(_COUNTS, 0)
    seconds = 0.0
    any_suite = bool(failures)
    suites_of: Counter[tuple[str, str]] = Counter()
    for item in checked():
        rules = item.verdict.rules
        any_suite = True
        suites_of[_file_and_contract(item)] += 1
        counts["tests"] += len(rules)
        for key, status in (("failures", "fail"), ("errors", "error"), ("skipped", "skipped")):
            counts[key] += sum(rule.status == status for rule in rules)
        seconds += item.seconds
    if not any_suite:  # an empty root closes itself
        yield render_junit([], failures, timestamp=timestamp)
        return
    counts["tests"] += len(failures)
    counts["errors"] += len(failures)
    root = ET.Element("testsuites", name="tracecheck")
    for key in _ROOT_COUNTS:
        root.set(key, str(counts[key]))
    root.set("time", f"{seconds:.3f}")
    empty = ET.tostring(root, encoding="utf-8", xml_declaration=True, short_empty_elements=False)
    end = b"</testsuites>"
    yield empty.removesuffix(end)
    several = {key for key, count in suites_of.items() if count > 1}
    suites = (_suite(item, stamp, several) for item in checked())
    unread = (_unread_suite(failure, stamp) for failure in failures)
    for suite in itertools.chain(suites, unread):
        ET.indent(suite, level=1)  # as indenting the whole document indents it
        yield b"\n  " + ET.tostring(suite, encoding="utf-8")
    yield b"\n" + end + b"\n"


def element(tag: str, **attributes: str) -> ET.Element:
    """An element whose attribute values XML can hold (see `xml_safe`)."""
    return ET.Element(tag, {key: xml_safe(value) for key, value in attributes.items()})


def sub(parent: ET.Element, tag: str, **attributes: str) -> ET.Element:
    """`element` appended to `parent`."""
    child = element(tag, **attributes)
    parent.append(child)
    return child


def _file_and_contract(item: CheckedTrace) -> tuple[str, str]:
    return item.files, item.verdict.contract


def _several(checked: Iterable[CheckedTrace]) -> set[tuple[str, str]]:
    """The (file, contract) pairs that more than one trace's suite would be named by."""
    counts = Counter(_file_and_contract(item) for item in checked)
    return {key for key, count in counts.items() if count > 1}


def _suite_name(item: CheckedTrace, several: set[tuple[str, str]]) -> str:
    """`<file>: <contract>`, and `@ <trace id>` when the file holds several such suites."""
    files, contract = _file_and_contract(item)
    name = f"{files}: {contract}"
    if (files, contract) in several:
        name += f" @ {item.verdict.trace_id or '(no trace id)'}"
    return name


def _suite(item: CheckedTrace, timestamp: str, several: set[tuple[str, str]]) -> ET.Element:
    verdict = item.verdict
    rules = verdict.rules
    name = _suite_name(item, several)
    suite = element(
        "testsuite",
        name=name,
        tests=str(len(rules)),
        failures=str(sum(r.status == "fail" for r in rules)),
        errors=str(sum(r.status == "error" for r in rules)),
        skipped=str(sum(r.status == "skipped" for r in rules)),
        time=f"{item.seconds:.3f}",
        timestamp=timestamp,
    )
    properties = sub(suite, "properties")
    spread = (("trace.sources", "\n".join(item.sources)),) if len(item.sources) > 1 else ()
    for key, value in (
        ("trace.source", item.source),
        *spread,
        ("trace.id", verdict.trace_id or ""),
        ("contract", verdict.contract),
        ("contract.source", item.contract_source or ""),
        ("verdict", verdict.status),
    ):
        sub(properties, "property", name=key, value=value)
    for rule in rules:
        # The classname names the suite: a rule label recurs in every trace a contract checks.
        case = sub(suite, "testcase", name=rule.label, classname=name, time="0.000")
        if rule.status == "fail":
            details = [v.detail for v in rule.violations]
            first = details[0] if details else "the rule failed"
            more = f" (and {len(details) - 1} more)" if len(details) > 1 else ""
            failure = sub(
                case, "failure", message=shorten(first, 1000) + more, type="ContractViolation"
            )
            failure.text = xml_safe("\n".join(details))
        elif rule.status == "error":
            error = rule.error or "could not be evaluated"
            node = sub(case, "error", message=shorten(error, 1000), type="RuleError")
            node.text = xml_safe(error)
        elif rule.status == "skipped":
            sub(case, "skipped", message="another alternative passed")
    return suite


def _unread_suite(failure: ReadFailure, timestamp: str) -> ET.Element:
    suite = element(
        "testsuite",
        name=failure.source,
        tests="1",
        failures="0",
        errors="1",
        skipped="0",
        time="0.000",
        timestamp=timestamp,
    )
    properties = sub(suite, "properties")
    sub(properties, "property", name="trace.source", value=failure.source)
    case = sub(suite, "testcase", name="read", classname=failure.source, time="0.000")
    error = sub(case, "error", message=shorten(failure.message, 1000), type=read_error(failure))
    error.text = xml_safe(failure.message)
    return suite


def read_error(failure: ReadFailure) -> str:
    """The error type of an input that could not be read: `AmbiguousFormat` or
    `UnreadableTrace`."""
    return "AmbiguousFormat" if failure.kind == "ambiguous" else "UnreadableTrace"
