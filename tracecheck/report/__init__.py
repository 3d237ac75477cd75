"""Reporters for checked traces: text for people, JSON and JUnit for machines, GitHub
workflow annotations for pull requests. Each reads the same `CheckedTrace` values."""

from __future__ import annotations

from tracecheck.report.github import annotation_lines, render_annotations
from tracecheck.report.json import json_parts, render_json
from tracecheck.report.junit import junit_parts, render_junit
from tracecheck.report.model import CheckedTrace, ReadFailure
from tracecheck.report.text import render_text, text_lines

__all__ = [
    "CheckedTrace",
    "ReadFailure",
    "annotation_lines",
    "json_parts",
    "junit_parts",
    "render_annotations",
    "render_json",
    "render_junit",
    "render_text",
    "text_lines",
]
