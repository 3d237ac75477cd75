"""GitHub Actions workflow commands: one annotation per violation, rule error or unread input.

Escaping follows the runner's rules (as `@actions/core` does): in the message `%`, CR and LF
are percent-encoded; in properties also `:` and `,`. Other control characters are shown as
escapes, so recorded text cannot forge a second command. A rule shows at most
`MAX_VIOLATIONS` annotations, the last one counting the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from tracecheck.report.model import CheckedTrace, ReadFailure
from tracecheck.report.safe import printable

__all__ = ["annotation_lines", "render_annotations"]

MAX_VIOLATIONS = 5


def render_annotations(
    checked: Sequence[CheckedTrace], failures: Sequence[ReadFailure] = ()
) -> str:
    return "\n".join(annotation_lines(checked, failures))


def annotation_lines(
    checked: Iterable[CheckedTrace], failures: Sequence[ReadFailure] = ()
) -> Iterator[str]:
    """The lines of `render_annotations`, one verdict at a time."""
    for failure in failures:
        yield _command(failure.source, "tracecheck: input not read", failure.message)
    for item in checked:
        verdict = item.verdict
        for rule in verdict.rules:
            title = f"{verdict.contract}: {rule.label}"
            if rule.status == "error":
                yield _command(item.source, title, f"could not be evaluated: {rule.error}")
            if rule.status != "fail":
                continue
            shown = rule.violations[:MAX_VIOLATIONS]
            hidden = len(rule.violations) - len(shown)
            for index, violation in enumerate(shown):
                more = f" (and {hidden} more)" if hidden and index == len(shown) - 1 else ""
                yield _command(item.source, title, violation.detail + more)


def _command(path: str, title: str, message: str) -> str:
    return f"::error file={_property(path)},title={_property(title)}::{_data(message)}"


def _data(text: str) -> str:
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(escaped)


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
