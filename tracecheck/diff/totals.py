"""The run totals a diff compares: tokens over every model call, the run's duration, and the
models each run called.

Tokens are counted as a token budget counts them (rules/presence.py): a model call's total,
or where calls record none, the run totals a convention says a span above them records; a
call whose tokens are known neither way leaves the run's total unknown, never under-counted.
The duration is the run record's (the single root span's, or the duration the producer wrote
down).
"""

from __future__ import annotations

from collections import Counter

from tracecheck.diff.model import ModelUse, Quantity, QuantityStatus
from tracecheck.diff.tolerance import Tolerance
from tracecheck.rules.run_totals import tokens_used
from tracecheck.rules.subject import Subject
from tracecheck.spans import Kind
from tracecheck.unquoted import without_credentials

__all__ = [
    "UNKNOWN_MODEL",
    "compared",
    "model_uses",
    "run_duration_ms",
    "run_tokens",
    "unnamed_models",
]

UNKNOWN_MODEL = "(unknown model)"

Measure = tuple[int | float | None, str | None]  # the value, or why it is unknown


def run_tokens(subject: Subject) -> Measure:
    """The tokens of every model call of the run, or why that total is unknown."""
    models = subject.of_kind(Kind.LLM)
    if not models:
        return None, "records no model call"
    used, counted = tokens_used(subject, models)
    if used is None:
        count = sum(span.tokens.total is None for span in models)
        calls = "model call that records" if count == 1 else "model calls that record"
        first = subject.ref(counted.unknown) if counted.unknown else "?"
        return None, f"has {count} {calls} no token counts (span {first}…)"
    return used, None


def run_duration_ms(subject: Subject) -> Measure:
    """How long the run took, in milliseconds, or why that is unknown."""
    if subject.run is None:
        return None, subject.run_unknown or "has no run record"
    duration = subject.run.duration_ns
    if duration is None:
        return None, "records no start and end time on its root span"
    return duration / 1_000_000, None


def compared(name: str, baseline: Measure, run: Measure, tolerance: Tolerance | None) -> Quantity:
    """One total of both runs against its tolerance. A total neither run records is
    `unrecorded` only when no tolerance applies; against a tolerance it is `unknown` (it
    cannot be compared, and the diff cannot vouch for the runs)."""
    before, before_why = baseline
    after, after_why = run
    status: QuantityStatus
    reason = None
    if before is None and after is None:
        status = "unrecorded" if tolerance is None else "unknown"
        reason = (
            f"the baseline {before_why}, and so does the run"
            if before_why == after_why
            else f"the baseline {before_why}; the run {after_why}"
        )
    elif before is None or after is None:
        status = "unknown"
        reason = f"the baseline {before_why}" if before is None else f"the run {after_why}"
    elif tolerance is None:
        status = "off"
    else:
        status = "within" if tolerance.allows(before, after) else "over"
    return Quantity(name, before, after, tolerance, status, reason)  # type: ignore[arg-type]


def model_uses(baseline: Subject, run: Subject) -> tuple[ModelUse, ...]:
    """The model calls of each run by model (a call that names none as `(unknown model)`), in
    the order the baseline, then the run, first used them. Calls that name no model are
    listed, never compared: see `unnamed_models`."""
    before = _models(baseline)
    after = _models(run)
    names = list(dict.fromkeys([*before, *after]))
    return tuple(ModelUse(name, before[name], after[name]) for name in names)


def unnamed_models(subject: Subject) -> str | None:
    """Why the run's models cannot be compared (model calls that name no model: two unnamed
    models may be two models), or None."""
    unnamed = [span for span in subject.of_kind(Kind.LLM) if not span.model]
    if not unnamed:
        return None
    count = len(unnamed)
    calls = "model call names" if count == 1 else "model calls name"
    return f"{count} {calls} no model (span {subject.ref(unnamed[0])}…), so its models cannot be compared"


def _models(subject: Subject) -> Counter[str]:
    return Counter(
        without_credentials(span.model) if span.model else UNKNOWN_MODEL
        for span in subject.of_kind(Kind.LLM)
    )
