"""The machine report: versioned JSON holding every verdict in full."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from tracecheck.report.model import CheckedTrace, ReadFailure
from tracecheck.report.spool import JsonPieces, Spool, json_document, json_member
from tracecheck.verdict import worst

__all__ = ["REPORT_VERSION", "json_parts", "render_json"]

REPORT_VERSION = 1


def render_json(
    checked: Sequence[CheckedTrace], failures: Sequence[ReadFailure] = ()
) -> dict[str, Any]:
    """Every verdict, and every input that gave nothing to check (`unread`).

    `status` is the worst verdict status, and `error` when an input could not be read.
    """
    status = worst([item.verdict.status for item in checked])
    return {
        "version": REPORT_VERSION,
        "status": "error" if failures else status,
        "results": [_result(item) for item in checked],
        "unread": _unread(failures),
    }


def json_parts(
    checked: Iterable[CheckedTrace],
    failures: Sequence[ReadFailure],
    status: str,
    spool: Spool,
) -> Iterator[str]:
    """The report `render_json` gives, as the text its two-space-indented JSON is, in parts:
    each verdict is rendered as it comes and waits on disk, in order (no handle is kept per
    verdict). `status` is the worst verdict status (the caller has seen every verdict). No
    final newline."""
    pieces = JsonPieces(spool)
    for item in checked:
        pieces.append(_result(item))
    unread = pieces.add(_unread(failures))
    before = [
        json_member("version", str(REPORT_VERSION)),
        json_member("status", pieces.text(pieces.add("error" if failures else status))),
    ]
    after = [json_member("unread", pieces.text(unread))]
    return _closing(pieces, json_document(before, "results", pieces.appended(), after))


def _closing(pieces: JsonPieces, parts: Iterator[str]) -> Iterator[str]:
    """The parts, then the verdicts' file closed."""
    try:
        yield from parts
    finally:
        pieces.close()


def _unread(failures: Sequence[ReadFailure]) -> list[dict[str, str]]:
    return [
        {"source": failure.source, "kind": failure.kind, "error": failure.message}
        for failure in failures
    ]


def _result(item: CheckedTrace) -> dict[str, Any]:
    verdict = item.verdict
    # `sources` only for a trace spread over several files: most verdicts come from one.
    spread = {"sources": list(item.sources)} if len(item.sources) > 1 else {}
    return {
        "source": item.source,
        **spread,
        "trace_id": verdict.trace_id,
        "contract": verdict.contract,
        "contract_source": item.contract_source,
        "status": verdict.status,
        "score": verdict.score,
        "notes": verdict.notes,
        "reading_notes": list(verdict.reading_notes),
        "conventions": dict(verdict.conventions),
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
