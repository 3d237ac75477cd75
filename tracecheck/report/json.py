"""The machine report: versioned JSON holding every verdict in full."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracecheck.report.model import CheckedTrace
from tracecheck.verdict import worst

__all__ = ["REPORT_VERSION", "render_json"]

REPORT_VERSION = 1


def render_json(checked: Sequence[CheckedTrace]) -> dict[str, Any]:
    return {
        "version": REPORT_VERSION,
        "status": worst([item.verdict.status for item in checked]),
        "results": [_result(item) for item in checked],
    }


def _result(item: CheckedTrace) -> dict[str, Any]:
    verdict = item.verdict
    return {
        "source": item.source,
        "trace_id": verdict.trace_id,
        "contract": verdict.contract,
        "contract_source": item.contract_source,
        "status": verdict.status,
        "score": verdict.score,
        "notes": verdict.notes,
        "rules": [
            {
                "label": rule.label,
                "alternative": rule.alternative,
                "status": rule.status,
                "error": rule.error,
                "violations": [{"span_id": v.span_id, "detail": v.detail} for v in rule.violations],
            }
            for rule in verdict.rules
        ],
    }
