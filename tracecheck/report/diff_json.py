"""The machine report of `tracecheck diff`: versioned JSON holding the whole diff.

Its shape is `diff.schema.json` beside this module (JSON Schema 2020-12), named by
`schemaVersion`; `version` is the format's major version (1). Calls are named by tool, span
and step; argument differences by JSON Pointer and JSON type, with the values only where the
diff marked them `shown` (the redactor's `default` profile leaves them as they are). A diff
of a run with itself has empty `added`, `missing` and `changed`, no `first_divergence` and no
changed model.
"""

from __future__ import annotations

from typing import Any

from tracecheck.diff.model import (
    ArgumentChange,
    CallPair,
    CallRef,
    Divergence,
    ModelUse,
    Quantity,
    RunSummary,
)
from tracecheck.distribution import version
from tracecheck.report.diff_model import DiffReport
from tracecheck.report.json import packaged_schema, unread_entries

__all__ = [
    "DIFF_REPORT_VERSION",
    "DIFF_SCHEMA_FILE",
    "DIFF_SCHEMA_VERSION",
    "diff_report_schema",
    "render_diff_json",
]

DIFF_REPORT_VERSION = 1
DIFF_SCHEMA_VERSION = "1.0"
DIFF_SCHEMA_FILE = "diff.schema.json"


def diff_report_schema() -> dict[str, Any]:
    """The JSON Schema the diff report follows (`diff.schema.json`, shipped with the package)."""
    return packaged_schema(DIFF_SCHEMA_FILE)


def render_diff_json(report: DiffReport) -> dict[str, Any]:
    diff = report.diff
    document: dict[str, Any] = {
        "version": DIFF_REPORT_VERSION,
        "schemaVersion": DIFF_SCHEMA_VERSION,
        "tool": {"name": "tracecheck", "version": version()},
        "status": report.status,
        "baseline": _run(report.baseline, diff.baseline if diff else None),
        "run": _run(report.run, diff.run if diff else None),
    }
    if diff is not None:
        document.update(
            {
                "settings": {
                    "tokens_tolerance": _tolerance(diff.tokens),
                    "duration_tolerance": _tolerance(diff.duration),
                    "match_arguments": diff.match_arguments.describe(),
                    "capture": "lenient" if diff.lenient_capture else "strict",
                },
                "first_divergence": _divergence(diff.first_divergence),
                "added": [_call(ref) for ref in diff.added],
                "missing": [_call(ref) for ref in diff.missing],
                "changed": [_pair(pair) for pair in diff.changed],
                "models": [_model(use) for use in diff.models],
                "tokens": _quantity(diff.tokens),
                "duration_ms": _quantity(diff.duration),
                "problems": list(diff.problems),
                "notes": list(diff.notes),
            }
        )
    document["unread"] = unread_entries(report.unread)
    return document


def _run(source: str, summary: RunSummary | None) -> dict[str, Any]:
    if summary is None:
        return {"source": source}
    return {
        "source": source,
        "trace_id": summary.trace_id,
        "steps": summary.steps,
        "calls": summary.calls,
        "model_calls": summary.model_calls,
        "spans": summary.spans,
    }


def _tolerance(quantity: Quantity) -> str | None:
    return str(quantity.tolerance) if quantity.tolerance is not None else None


def _call(ref: CallRef | None) -> dict[str, Any] | None:
    if ref is None:
        return None
    return {
        "tool": ref.tool,
        "span": ref.span,
        "step": ref.step,
        "parallel": ref.parallel,
        "placed": ref.placed,
        "within": list(ref.within),
        "failed": ref.failed,
    }


def _divergence(divergence: Divergence | None) -> dict[str, Any] | None:
    if divergence is None:
        return None
    return {
        "kind": divergence.kind,
        "side": divergence.side,
        "baseline_step": divergence.baseline_step,
        "run_step": divergence.run_step,
        "baseline": _call(divergence.baseline),
        "run": _call(divergence.run),
    }


def _pair(pair: CallPair) -> dict[str, Any]:
    return {
        "baseline": _call(pair.baseline),
        "run": _call(pair.run),
        "changes": list(pair.changes),
        "gated": pair.gated,
        "arguments": [_argument(change) for change in pair.arguments],
        "arguments_unknown": pair.arguments_unknown,
    }


def _argument(change: ArgumentChange) -> dict[str, Any]:
    described: dict[str, Any] = {
        "pointer": change.pointer,
        "change": change.change,
        "baseline_type": change.baseline_type,
        "run_type": change.run_type,
        "shown": change.shown,
        "counted": change.counted,
    }
    if change.shown:
        if change.baseline_type is not None:
            described["baseline_value"] = change.baseline_value
        if change.run_type is not None:
            described["run_value"] = change.run_value
    return described


def _model(use: ModelUse) -> dict[str, Any]:
    return {
        "model": use.model,
        "baseline_calls": use.baseline_calls,
        "run_calls": use.run_calls,
        "changed": use.changed,
    }


def _quantity(quantity: Quantity) -> dict[str, Any]:
    return {
        "baseline": quantity.baseline,
        "run": quantity.run,
        "delta": quantity.delta,
        "relative": quantity.relative,
        "tolerance": _tolerance(quantity),
        "status": quantity.status,
        "reason": quantity.reason,
    }
