"""Golden runs in tests: the spans a test emitted compared with a recorded run, step by step.

`trace_spans.assert_matches_golden("goldens/refund.otlp.json")`, or the marker
`@pytest.mark.trace_golden("goldens/refund.otlp.json")`, diffs the test's spans against the
golden file (tracecheck.diff) and fails the test with the diff when the runs part, a total
strays past its tolerance, or the diff cannot vouch for the runs. Paths are relative to the
rootdir, as the contract paths of `trace_contract` are.

Golden files are recorded the way snapshot plugins record theirs: `pytest --update-golden`
writes a golden that is missing and rewrites one the run differs from; without it a missing
golden fails the test (a CI job never records one silently), and a terminal line lists every
file written. A golden file holds the test's spans redacted with the `default` profile (and
the known secrets of `--tracecheck-known-secret-env`), written only when its redacted spans and
bytes pass the share gate, as evidence files are: never a secret on disk. The run is redacted
the same way before it is compared, so a redacted value is the same on both sides.

Imported by the fixture for its settings; the diff, the readers and the redactor only when a
test compares with a golden run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tracecheck.diff import RunDiff
    from tracecheck.rules.capture import CaptureMode
    from tracecheck.spans import Span, Trace

__all__ = ["OPTIONS", "GoldenSettings", "golden_failure", "marker_options", "match_golden"]

PROFILE = "default"
OPTIONS = ("tokens_tolerance", "duration_tolerance", "match_arguments", "capture", "trace_id")
HINT = "hint: if the new run is right, run pytest --update-golden and review the rewritten file"


@dataclass(frozen=True)
class GoldenSettings:
    """What the session says about golden files: where relative paths start, whether to write
    them, the secrets to cut, and the record of the files written (for the terminal summary)."""

    rootdir: Path
    update: bool = False
    known_secret_env: tuple[str, ...] = ()
    written: list[str] = field(default_factory=list)


def marker_options(kwargs: Mapping[str, Any]) -> str | None:
    """Why a `trace_golden` marker's options are wrong, or None."""
    from tracecheck.diff.tolerance import ToleranceError, Tolerances

    unknown = sorted(set(kwargs) - set(OPTIONS))
    if unknown:
        return f"takes only {', '.join(OPTIONS)} beside its golden path, not {', '.join(unknown)}"
    try:
        Tolerances.parse(kwargs.get("tokens_tolerance"), kwargs.get("duration_tolerance"))
    except ToleranceError as exc:
        return str(exc)
    capture = kwargs.get("capture")
    if capture not in (None, "strict", "lenient"):
        return f'capture is "strict" or "lenient", not {capture!r}'
    return None


def match_golden(
    spans: Sequence[Span],
    path: str | os.PathLike[str],
    settings: GoldenSettings,
    *,
    tokens_tolerance: str | None = None,
    duration_tolerance: str | None = None,
    match_arguments: Any = "ignore",
    capture: CaptureMode | None = None,
    trace_id: str | None = None,
) -> tuple[RunDiff | None, str | None]:
    """The diff of the spans against the golden file, and the failure message when the test
    must fail (None when it passes, or when the golden was written as asked)."""
    from tracecheck.diff import Tolerances, diff_runs

    label = str(path)
    target = Path(path) if Path(path).is_absolute() else settings.rootdir / path
    if not spans:
        return None, (
            f"golden run {label} could not be compared: no spans were captured; pass the "
            "fixture's provider or tracer to the code under test"
        )
    from tracecheck.testing.evidence import known_secrets, redacted_spans, unset_text

    known, unset = known_secrets(settings.known_secret_env)
    missing = unset_text(unset)
    if isinstance(known, str):  # a known secret that cannot be cut
        return None, f"golden run {label} could not be compared: {known}{missing}"
    redacted = redacted_spans(spans, known)
    if not target.exists():
        if settings.update:
            return None, _recorded(target, label, redacted, known, settings, "recorded", missing)
        return None, (
            f"golden run {label} does not exist: run pytest --update-golden to record it from "
            f"this test's spans, then review the file and commit it{missing}"
        )
    golden = _golden(target, label, trace_id)
    if isinstance(golden, str):
        if settings.update:
            return None, _recorded(target, label, redacted, known, settings, "rewritten", missing)
        return None, golden + missing
    tolerances = Tolerances.parse(tokens_tolerance, duration_tolerance)
    diff = diff_runs(
        golden, redacted, tolerances=tolerances, match_arguments=match_arguments, capture=capture
    )
    hidden = _hidden_arguments(spans, redacted, diff)
    if diff.status == "same" and not hidden:
        return diff, None
    if settings.update:
        return diff, _recorded(target, label, redacted, known, settings, "rewritten", missing)
    return diff, golden_failure(label, diff, hidden, missing)


def golden_failure(label: str, diff: RunDiff, hidden: Sequence[str] = (), missing: str = "") -> str:
    """The failure of a test whose run differs from its golden: summary line, the diff as
    `tracecheck diff` prints it, a hint. `hidden` names the matched calls whose arguments
    the redaction left nothing of to compare; `missing` says which known-secret variables
    are unset (`unset_text`)."""
    from tracecheck.report.diff_model import DiffReport
    from tracecheck.report.diff_text import diff_text_lines
    from tracecheck.report.diff_words import headline

    if diff.status == "same":
        lines = [
            f"golden run {label}: cannot vouch for the run (arguments not comparable){missing}"
        ]
    else:
        verb = "cannot vouch for the run" if diff.status == "error" else "the run differs"
        lines = [f"golden run {label}: {verb} ({headline(diff)}){missing}"]
    report = DiffReport(label, "this test's spans", diff)
    lines.extend(list(diff_text_lines(report))[1:])
    if hidden:
        lines.append(
            f"  ! the arguments of {', '.join(hidden)} hold a secret, so the golden file keeps "
            "them redacted whole and they cannot be compared: match other pointers, or keep "
            "the secret out of the arguments"
        )
    lines.append(HINT)
    return "\n".join(lines)


def _hidden_arguments(spans: Sequence[Span], redacted: Sequence[Span], diff: RunDiff) -> list[str]:
    """The matched calls (span ids) whose arguments the redaction replaced whole, so that the
    golden keeps nothing of them to compare: a difference there would pass unseen."""
    from tracecheck.spans import Kind

    hidden = []
    for before, after in zip(spans, redacted, strict=True):
        if before.kind is not Kind.TOOL or diff.match_arguments.of(before.tool_name) == "ignore":
            continue
        was, now = before.arguments, after.arguments
        if was.known and not isinstance(was.value, str) and isinstance(now.value, str):
            hidden.append(f"{before.tool_name} (span {before.span_id})")
    return hidden


def _golden(target: Path, label: str, trace_id: str | None) -> Trace | str:
    """The golden trace, or why it cannot be read."""
    from tracecheck.errors import TraceReadError
    from tracecheck.readers import read_traces

    try:
        traces = read_traces(target)
    except (TraceReadError, OSError) as exc:
        return f"golden run {label} cannot be read: {exc}"
    if trace_id is not None:
        chosen = [trace for trace in traces if trace.trace_id == trace_id.lower()]
        if not chosen:
            return f"golden run {label} holds no trace with id {trace_id}"
        return chosen[0]
    if len(traces) != 1:
        return f"golden run {label} holds {len(traces)} traces; pass trace_id= to choose one"
    return traces[0]


def _recorded(
    target: Path,
    label: str,
    spans: Sequence[Span],
    known: Any,
    settings: GoldenSettings,
    how: str,
    missing: str,
) -> str | None:
    """Write the golden file (JSONL when its name says so, else one OTLP/JSON request) from
    spans already redacted, if they and their bytes pass the share gate with the known secrets,
    as evidence files do; the failure message when they do not, or it cannot be written."""
    from tracecheck.testing.evidence import write_gated
    from tracecheck.writers.otlp import to_otlp_json, to_otlp_jsonl

    jsonl = target.name.endswith((".jsonl", ".ndjson"))

    def encode(redacted: Sequence[Span]) -> bytes:
        return to_otlp_jsonl([redacted]) if jsonl else to_otlp_json(redacted)

    try:
        refused = write_gated(target, spans, known, encode=encode)
    except OSError as exc:
        return f"golden run {label} cannot be written: {exc.strerror or exc}{missing}"
    if refused is not None:
        return (
            f"golden run {label} was not written: the test's spans, redacted, are still "
            f"{refused} under profile {PROFILE}{missing}"
        )
    settings.written.append(f"{how} {label}{missing}")
    return None
