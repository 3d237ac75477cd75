"""Reporters for checked traces: text for people, JSON and JUnit for machines, SARIF for code
scanning, GitHub workflow annotations and a job summary for pull requests, and a self-contained
HTML page for people (rule charts, a timeline per trace). Each reads the same `CheckedTrace`
values.

The names are imported on first use, so that `tracecheck check` loads only the reporters it
is asked for (the text report; JUnit's XML library only with `--junit`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracecheck.lazy import lazy_names

if TYPE_CHECKING:
    from tracecheck.report.github import (
        annotation_lines,
        render_annotations,
        render_summary,
        summary_parts,
    )
    from tracecheck.report.html import html_parts, render_html, tallies_of, trace_views
    from tracecheck.report.json import json_parts, render_json
    from tracecheck.report.junit import junit_parts, render_junit
    from tracecheck.report.model import CheckedTrace, ReadFailure, RuleTally
    from tracecheck.report.page import PageHeader, TraceView
    from tracecheck.report.reliability import ReliabilityRow
    from tracecheck.report.sarif import render_sarif, sarif_parts
    from tracecheck.report.text import render_text, text_lines
    from tracecheck.report.timeline import SpanBar, Timeline, timeline_of

__all__ = [
    "CheckedTrace",
    "PageHeader",
    "ReadFailure",
    "ReliabilityRow",
    "RuleTally",
    "SpanBar",
    "Timeline",
    "TraceView",
    "annotation_lines",
    "html_parts",
    "json_parts",
    "junit_parts",
    "render_annotations",
    "render_html",
    "render_json",
    "render_junit",
    "render_sarif",
    "render_summary",
    "render_text",
    "sarif_parts",
    "summary_parts",
    "tallies_of",
    "text_lines",
    "timeline_of",
    "trace_views",
]

# The module each public name is imported from.
_HOMES = {
    "CheckedTrace": "tracecheck.report.model",
    "ReadFailure": "tracecheck.report.model",
    "RuleTally": "tracecheck.report.model",
    "PageHeader": "tracecheck.report.page",
    "TraceView": "tracecheck.report.page",
    "ReliabilityRow": "tracecheck.report.reliability",
    "html_parts": "tracecheck.report.html",
    "render_html": "tracecheck.report.html",
    "tallies_of": "tracecheck.report.html",
    "trace_views": "tracecheck.report.html",
    "SpanBar": "tracecheck.report.timeline",
    "Timeline": "tracecheck.report.timeline",
    "timeline_of": "tracecheck.report.timeline",
    "annotation_lines": "tracecheck.report.github",
    "render_annotations": "tracecheck.report.github",
    "render_summary": "tracecheck.report.github",
    "summary_parts": "tracecheck.report.github",
    "json_parts": "tracecheck.report.json",
    "render_json": "tracecheck.report.json",
    "junit_parts": "tracecheck.report.junit",
    "render_junit": "tracecheck.report.junit",
    "render_sarif": "tracecheck.report.sarif",
    "sarif_parts": "tracecheck.report.sarif",
    "render_text": "tracecheck.report.text",
    "text_lines": "tracecheck.report.text",
}


__getattr__, __dir__ = lazy_names(__name__, _HOMES)
