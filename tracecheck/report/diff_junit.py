"""JUnit XML of `tracecheck diff`: one testsuite, one testcase per comparison.

The suite is named by both inputs (`golden.otlp.jsonl → run.otlp.jsonl`). Its testcases:
`trajectory` (a failure when the runs part: its message the first divergence, its text every
call added, missing or changed), `arguments` (a failure when an argument difference counts;
otherwise it passes, the differences in its `system-out`), `models`, `tokens` and `duration`
(an error when the total cannot be compared against its tolerance, skipped when no tolerance
applies), and `capture` (an error for every reason the diff cannot vouch for the
runs). An input that could not be read is an error of its own testcase, `read <input>`. The
layout validates against the Jenkins xUnit plugin's `junit-10.xsd` as `check --junit` does.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import datetime

from tracecheck.diff.model import Quantity, RunDiff
from tracecheck.report.diff_model import DiffReport
from tracecheck.report.diff_words import (
    call_text,
    divergence_text,
    model_text,
    pair_text,
    quantity_text,
)
from tracecheck.report.junit import element, read_error, sub
from tracecheck.report.safe import shorten, xml_safe

__all__ = ["render_diff_junit"]


def render_diff_junit(report: DiffReport, *, timestamp: datetime | None = None) -> bytes:
    stamp = (timestamp or datetime.now()).replace(microsecond=0, tzinfo=None).isoformat()
    name = f"{report.baseline} → {report.run}"
    suite = element("testsuite", name=name, timestamp=stamp, time=f"{report.seconds:.3f}")
    properties = sub(suite, "properties")
    for key, value in (("baseline", report.baseline), ("run", report.run)):
        sub(properties, "property", name=key, value=value)
    sub(properties, "property", name="status", value=report.status)
    for failure in report.unread:
        outcome = ("error", read_error(failure), failure.message, "")
        _case(suite, name, f"read {failure.source}", outcome)
    if report.diff is not None:
        for case, outcome in _outcomes(report.diff):
            _case(suite, name, case, outcome)
    cases = suite.findall("testcase")
    counts = {
        "tests": len(cases),
        "failures": sum(case.find("failure") is not None for case in cases),
        "errors": sum(case.find("error") is not None for case in cases),
        "skipped": sum(case.find("skipped") is not None for case in cases),
    }
    for key, count in counts.items():
        suite.set(key, str(count))
    root = ET.Element("testsuites", name="tracecheck diff")
    for key in ("tests", "failures", "errors"):
        root.set(key, str(counts[key]))
    root.set("time", f"{report.seconds:.3f}")
    root.append(suite)
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


# An outcome: (element, type, message, text) with element failure, error or skipped; or
# ("pass", "", "", system-out).
Outcome = tuple[str, str, str, str]


def _outcomes(diff: RunDiff) -> list[tuple[str, Outcome]]:
    return [
        ("trajectory", _trajectory(diff)),
        ("arguments", _arguments(diff)),
        ("models", _models(diff)),
        ("tokens", _total(diff.tokens)),
        ("duration", _total(diff.duration)),
        ("capture", _capture(diff)),
    ]


def _trajectory(diff: RunDiff) -> Outcome:
    """A failure for every call added or missing and every counted change other than the
    arguments (which the `arguments` case judges), wherever the first divergence is: an
    argument change before an added call must not hide it."""
    lines = [f"added: {call_text(ref)} at run step {ref.step}" for ref in diff.added]
    lines += [f"missing: {call_text(ref)} at baseline step {ref.step}" for ref in diff.missing]
    lines += [
        pair_text(pair) for pair in diff.changed if pair.gated and set(pair.changes) - {"arguments"}
    ]
    divergence = diff.first_divergence
    if divergence is not None and divergence.kind != "arguments":
        return "failure", "Divergence", divergence_text(divergence), "\n".join(lines)
    if lines:
        return "failure", "Divergence", lines[0], "\n".join(lines)
    return "pass", "", "", ""


def _arguments(diff: RunDiff) -> Outcome:
    changed = [pair for pair in diff.changed if "arguments" in pair.changes]
    unknown = [pair for pair in diff.changed if pair.arguments_unknown is not None]
    text = "\n".join(pair_text(pair) for pair in (*changed, *unknown))
    if unknown:
        return "error", "ArgumentsUnknown", pair_text(unknown[0]), text
    counted = [pair for pair in changed if any(change.counted for change in pair.arguments)]
    if counted:
        more = f" (and {len(counted) - 1} more)" if len(counted) > 1 else ""
        return "failure", "ArgumentsDiffer", pair_text(counted[0]) + more, text
    return "pass", "", "", text


def _models(diff: RunDiff) -> Outcome:
    text = "\n".join(model_text(use) for use in diff.models)
    changed = diff.model_changes
    if changed:
        return "failure", "ModelChanged", model_text(changed[0]), text
    return "pass", "", "", text


def _total(quantity: Quantity) -> Outcome:
    text = quantity_text(quantity)
    if quantity.status == "over":
        return "failure", "OverTolerance", text, text
    if quantity.status == "unknown":
        return "error", "NotComparable", text, text
    if quantity.status in ("unrecorded", "off"):
        return "skipped", "", text, ""
    return "pass", "", "", text


def _capture(diff: RunDiff) -> Outcome:
    if diff.problems:
        text = "\n".join(diff.problems)
        return "error", "CannotVouch", diff.problems[0], text
    return "pass", "", "", "\n".join(diff.notes)


def _case(suite: ET.Element, classname: str, name: str, outcome: Outcome) -> None:
    case = sub(suite, "testcase", name=name, classname=classname, time="0.000")
    element, kind, message, text = outcome
    if element == "pass":
        if text:
            out = sub(case, "system-out")
            out.text = xml_safe(text)
        return
    if element == "skipped":
        sub(case, "skipped", message=shorten(message, 1000))
        return
    node = sub(case, element, message=shorten(message, 1000), type=kind)
    node.text = xml_safe(text or message)
