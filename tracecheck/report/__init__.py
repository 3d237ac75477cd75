"""Reporters for checked traces: text for people, JSON and JUnit for machines, GitHub
workflow annotations for pull requests. Each reads the same `CheckedTrace` values."""

from __future__ import annotations

from tracecheck.report.github import render_annotations
from tracecheck.report.json import render_json
from tracecheck.report.junit import render_junit
from tracecheck.report.model import CheckedTrace, ReadFailure
from tracecheck.report.text import render_text

__all__ = [
    "CheckedTrace",
    "ReadFailure",
    "render_annotations",
    "render_json",
    "render_junit",
    "render_text",
]
