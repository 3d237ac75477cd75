"""JUnit XML: one testsuite per trace and contract, one testcase per rule.

The layout is the common JUnit schema CI viewers read: `failure` for a failed rule (its first
violation as the message, all of them as the text), `error` for a rule that could not be
evaluated, `skipped` for the rules of an alternative that another alternative made moot.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from tracecheck.report.model import CheckedTrace

__all__ = ["render_junit"]


def render_junit(checked: Sequence[CheckedTrace]) -> bytes:
    root = ET.Element("testsuites", name="tracecheck")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    root.set("time", f"{sum(item.seconds for item in checked):.3f}")
    for item in checked:
        suite = _suite(item)
        root.append(suite)
        for key in totals:
            totals[key] += int(suite.get(key, "0"))
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


def _suite(item: CheckedTrace) -> ET.Element:
    verdict = item.verdict
    rules = verdict.rules
    suite = ET.Element(
        "testsuite",
        name=f"{verdict.contract} @ {verdict.trace_id or item.source}",
        tests=str(len(rules)),
        failures=str(sum(r.status == "fail" for r in rules)),
        errors=str(sum(r.status == "error" for r in rules)),
        skipped=str(sum(r.status == "skipped" for r in rules)),
        time=f"{item.seconds:.3f}",
    )
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("trace.source", item.source),
        ("trace.id", verdict.trace_id or ""),
        ("contract.source", item.contract_source or ""),
        ("verdict", verdict.status),
    ):
        ET.SubElement(properties, "property", name=name, value=value)
    for rule in rules:
        case = ET.SubElement(suite, "testcase", name=rule.label, classname=verdict.contract)
        if rule.status == "fail":
            details = [v.detail for v in rule.violations]
            failure = ET.SubElement(case, "failure", message=details[0] if details else "")
            failure.text = "\n".join(details)
        elif rule.status == "error":
            ET.SubElement(case, "error", message=rule.error or "could not be evaluated")
        elif rule.status == "skipped":
            ET.SubElement(case, "skipped", message="another alternative passed")
    return suite
