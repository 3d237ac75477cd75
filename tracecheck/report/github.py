"""GitHub Actions workflow commands: one annotation per violation or rule error."""

from __future__ import annotations

from collections.abc import Sequence

from tracecheck.report.model import CheckedTrace

__all__ = ["render_annotations"]


def render_annotations(checked: Sequence[CheckedTrace]) -> str:
    lines = []
    for item in checked:
        verdict = item.verdict
        for rule in verdict.rules:
            title = f"{verdict.contract}: {rule.label}"
            if rule.status == "error":
                lines.append(_command(item.source, title, f"could not be evaluated: {rule.error}"))
            for violation in rule.violations if rule.status == "fail" else ():
                lines.append(_command(item.source, title, violation.detail))
    return "\n".join(lines)


def _command(path: str, title: str, message: str) -> str:
    return f"::error file={_property(path)},title={_property(title)}::{_data(message)}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
