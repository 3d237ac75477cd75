"""SARIF 2.1.0 of `tracecheck diff`: each difference that counts as a divergence is one result.

One run; its tool is tracecheck with one rule (reportingDescriptor) per kind of difference
(`diff/added`, `diff/missing`, `diff/reordered`, `diff/regrouped`, `diff/position`,
`diff/status`, `diff/arguments`, `diff/model`, `diff/tokens`, `diff/duration`). A result is
located at the run's trace file (relative to `base` with `uriBaseId: %SRCROOT%` when it lies
below it), the baseline's file a related location; the span ids, steps, tool and argument
pointer are properties. Reasons the diff cannot vouch for the runs, and inputs that could not be
read, are notifications of the invocation (an unread input at its file, as `check --sarif`
says it), which is then not `executionSuccessful`.
`partialFingerprints` hash the kind, tool, steps and pointer, so that a viewer knows the same
difference in the next run. Values never appear: results name pointers and types.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tracecheck.diff.model import CallRef, RunDiff
from tracecheck.report.diff_model import DiffReport
from tracecheck.report.diff_words import (
    call_text,
    model_text,
    pair_text,
    quantity_text,
    tool_name,
)
from tracecheck.report.safe import printable

# The log's frame as `check --sarif` writes it: the driver, files relative to the base (or
# file: URIs), unread inputs as notifications at their files, fingerprints.
from tracecheck.report.sarif import (
    SARIF_SCHEMA,
    SARIF_VERSION,
    SRCROOT,
    artifact,
    driver,
    file_uri,
    fingerprint,
    root_of,
    unread_notification,
)

__all__ = ["render_diff_sarif"]

FINGERPRINT = "tracecheck-diff/v1"
RULES = (
    ("added", "the run calls a tool the baseline does not"),
    ("missing", "the baseline calls a tool the run does not"),
    ("reordered", "a call comes elsewhere in the order"),
    ("regrouped", "a call runs in parallel in one run and in a step of its own in the other"),
    ("position", "a call runs inside other tool calls in one run than in the other"),
    ("status", "a call fails in one run only"),
    ("arguments", "a call's arguments differ where they are matched"),
    ("model", "one run calls a model the other does not"),
    ("tokens", "the tokens differ past their tolerance"),
    ("duration", "the duration differs past its tolerance"),
)
_INDEX = {rule: index for index, (rule, _) in enumerate(RULES)}


def render_diff_sarif(report: DiffReport, *, base: str | None = None) -> dict[str, Any]:
    root = root_of(base)
    notifications = [unread_notification(failure, root) for failure in report.unread]
    diff = report.diff
    if diff is not None:
        notifications += [
            {
                "level": "error",
                "message": {"text": printable(problem)},
                "descriptor": {"id": "cannot-vouch"},
            }
            for problem in diff.problems
        ]
    run: dict[str, Any] = {
        "tool": {"driver": driver(_descriptors(), _NOTIFICATIONS)},
        "invocations": [
            {
                "executionSuccessful": not notifications,
                "toolExecutionNotifications": notifications,
            }
        ],
        "originalUriBaseIds": {SRCROOT: {"uri": file_uri(root).rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": list(_results(report, diff, root)) if diff is not None else [],
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


_NOTIFICATIONS = (
    ("unreadable", "an input could not be read"),
    ("ambiguous", "an input's format is ambiguous"),
    ("cannot-vouch", "the diff cannot vouch that the runs are the same"),
)


def _descriptors() -> list[dict[str, Any]]:
    return [
        {
            "id": f"diff/{rule}",
            "shortDescription": {"text": f"diff: {rule}"},
            "fullDescription": {"text": f"Golden-run diff: {words}."},
            "defaultConfiguration": {"level": "error"},
            "properties": {"tags": ["tracecheck", "diff"]},
        }
        for rule, words in RULES
    ]


def _results(report: DiffReport, diff: RunDiff, root: str) -> Iterator[dict[str, Any]]:
    at = _Place(report, root)
    for ref in diff.added:
        yield at.result("added", f"{call_text(ref)} at run step {ref.step} is added", None, ref)
    for ref in diff.missing:
        text = f"{call_text(ref)} at baseline step {ref.step} is missing from the run"
        yield at.result("missing", text, ref, None)
    for pair in diff.changed:
        if not pair.gated:
            continue
        for change in pair.changes:
            if change == "arguments":
                for argument in pair.arguments:
                    if argument.counted:
                        yield at.result(
                            "arguments", pair_text(pair), pair.baseline, pair.run, argument.pointer
                        )
            else:
                yield at.result(change, pair_text(pair), pair.baseline, pair.run)
        if pair.arguments_unknown is not None and "arguments" not in pair.changes:
            yield at.result("arguments", pair_text(pair), pair.baseline, pair.run)
    for use in diff.model_changes:
        yield at.result("model", model_text(use), None, None, key=use.model)
    for quantity in diff.over_tolerance:
        rule = "tokens" if quantity.name == "tokens" else "duration"
        yield at.result(rule, quantity_text(quantity), None, None)


class _Place:
    """Where the results of one diff point: the run's file, the baseline's beside it."""

    def __init__(self, report: DiffReport, root: str) -> None:
        self.report = report
        self.run = artifact(report.run, root)
        self.baseline = artifact(report.baseline, root)

    def result(
        self,
        rule: str,
        text: str,
        old: CallRef | None,
        new: CallRef | None,
        pointer: str | None = None,
        key: str = "",
    ) -> dict[str, Any]:
        result: dict[str, Any] = {
            "ruleId": f"diff/{rule}",
            "ruleIndex": _INDEX[rule],
            "kind": "fail",
            "level": "error",
            "message": {"text": printable(text)},
        }
        if self.run is not None:
            result["locations"] = [{"physicalLocation": {"artifactLocation": self.run}}]
        if self.baseline is not None:
            result["relatedLocations"] = [
                {
                    "id": 1,
                    "physicalLocation": {"artifactLocation": self.baseline},
                    "message": {"text": "the baseline run"},
                }
            ]
        properties: dict[str, Any] = {}
        for side, ref in (("baseline", old), ("run", new)):
            if ref is not None:
                properties[f"{side}SpanId"] = printable(ref.span)
                properties[f"{side}Step"] = ref.step
        tool = old or new
        if tool is not None:
            properties["tool"] = tool_name(tool)
        if pointer is not None:
            properties["pointer"] = printable(pointer)
        result["properties"] = properties
        parts = [
            rule,
            tool_name(tool) if tool else key,
            str(old.step if old else ""),
            str(new.step if new else ""),
            pointer or "",
        ]
        result["partialFingerprints"] = {FINGERPRINT: fingerprint(parts)}
        return result
