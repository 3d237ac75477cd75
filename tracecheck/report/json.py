"""The machine report: versioned JSON holding every verdict in full.

Its shape is `report.schema.json` beside this module (JSON Schema 2020-12), which the report
names by `schemaVersion`. `version` is the report format's major version (1): a consumer
written for it keeps working as members are added; `schemaVersion` names the schema revision
the document follows. Each rule names its operator (`kind`); each violation carries its
prose (`detail`) and, as data, the span's id, the tool it called and the JSON Pointer an
argument rule reads. Never an attribute value.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from tracecheck.distribution import version
from tracecheck.report.model import CheckedTrace, ReadFailure
from tracecheck.report.spool import JsonPieces, Spool, json_document, json_member
from tracecheck.verdict import RuleResult, Violation, worst

__all__ = [
    "REPORT_VERSION",
    "SCHEMA_FILE",
    "SCHEMA_VERSION",
    "json_parts",
    "packaged_schema",
    "render_json",
    "report_schema",
    "unread_entries",
]

REPORT_VERSION = 1
SCHEMA_VERSION = "1.1"
SCHEMA_FILE = "report.schema.json"


def report_schema() -> dict[str, Any]:
    """The JSON Schema the report follows (`report.schema.json`, shipped with the package)."""
    return packaged_schema(SCHEMA_FILE)


def packaged_schema(name: str) -> dict[str, Any]:
    """A JSON Schema shipped beside this module (`report.schema.json`, `diff.schema.json`)."""
    import importlib.resources
    import json

    text = importlib.resources.files(__package__).joinpath(name).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def render_json(
    checked: Sequence[CheckedTrace], failures: Sequence[ReadFailure] = ()
) -> dict[str, Any]:
    """Every verdict, and every input that gave nothing to check (`unread`).

    `status` is the worst verdict status, and `error` when an input could not be read.
    """
    status = worst([item.verdict.status for item in checked])
    return {
        **_head(),
        "status": "error" if failures else status,
        "results": [_result(item) for item in checked],
        "unread": unread_entries(failures),
    }


def _head() -> dict[str, Any]:
    return {
        "version": REPORT_VERSION,
        "schemaVersion": SCHEMA_VERSION,
        "tool": {"name": "tracecheck", "version": version()},
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
    unread = pieces.add(unread_entries(failures))
    head = [(key, pieces.add(value)) for key, value in _head().items()]
    before = [
        *(json_member(key, pieces.text(piece)) for key, piece in head),
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


def unread_entries(failures: Sequence[ReadFailure]) -> list[dict[str, str]]:
    """The inputs that could not be read, as the reports' `unread` lists them."""
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
        "rules": [_rule(rule) for rule in verdict.rules],
    }


def _rule(rule: RuleResult) -> dict[str, Any]:
    return {
        "label": rule.label,
        "kind": rule.kind,
        "alternative": rule.alternative,
        "status": rule.status,
        "error": rule.error,
        "violations": [_violation(violation) for violation in rule.violations],
    }


def _violation(violation: Violation) -> dict[str, Any]:
    return {
        "span_id": violation.span_id,
        "tool": violation.tool,
        "pointer": violation.pointer,
        "detail": violation.detail,
    }
