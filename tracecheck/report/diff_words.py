"""A diff's findings in words, shared by every report of `tracecheck diff` and by the pytest
golden helper. Recorded text (tool names, span ids, values the redactor lets through) is shown
with its controls escaped; a value is shown only where the diff marked it `shown`."""

from __future__ import annotations

import json
from typing import Any

from tracecheck.diff.model import (
    ArgumentChange,
    CallPair,
    CallRef,
    Divergence,
    ModelUse,
    Quantity,
    RunDiff,
    RunSummary,
)
from tracecheck.report.safe import printable, shorten

__all__ = [
    "STATUS_WORDS",
    "argument_text",
    "call_text",
    "divergence_text",
    "headline",
    "model_text",
    "pair_text",
    "quantity_text",
    "run_text",
    "tool_name",
]

STATUS_WORDS = {"same": "SAME", "different": "DIFFERENT", "error": "ERROR"}
_VALUE_LIMIT = 80


def tool_name(ref: CallRef | None) -> str:
    if ref is None:
        return "nothing"
    return printable(ref.tool) if ref.tool is not None else "(unnamed tool)"


def call_text(ref: CallRef) -> str:
    """`issue_refund (span e466…)`."""
    return f"{tool_name(ref)} (span {printable(ref.span)})"


def run_text(summary: RunSummary) -> str:
    trace = printable(summary.trace_id or "(no trace id)")
    return (
        f"trace {trace}, {_count(summary.steps, 'step')}, {_count(summary.calls, 'tool call')}, "
        f"{_count(summary.model_calls, 'model call')}"
    )


def divergence_text(divergence: Divergence) -> str:
    """Where the runs part and how: `baseline step 2 (issue_refund), run step 2 (run_shell):
    the baseline has no call to match run_shell (added)`."""
    old, new = divergence.baseline, divergence.run
    where = (
        f"{_at('baseline', divergence.baseline_step, old)}, {_at('run', divergence.run_step, new)}"
    )
    return f"{where}: {_what(divergence)}"


def _at(side: str, step: int | None, ref: CallRef | None) -> str:
    if step is None or ref is None:
        return f"{side} past its last step"
    return f"{side} step {step} ({tool_name(ref)})"


def _what(divergence: Divergence) -> str:
    old, new = divergence.baseline, divergence.run
    kind = divergence.kind
    if kind == "missing":
        return f"the run has no call to match {tool_name(old)} (missing)"
    if kind == "added":
        return f"the baseline has no call to match {tool_name(new)} (added)"
    if kind == "reordered":
        mover = old if divergence.side == "baseline" else new
        return f"{tool_name(mover)} is called elsewhere in the other run (reordered)"
    assert old is not None and new is not None
    return _pair_words(kind, old, new)


def _pair_words(kind: str, old: CallRef, new: CallRef) -> str:
    tool = tool_name(old)
    if kind == "regrouped":
        return (
            f"{tool} runs {_grouping(old)} in the baseline and {_grouping(new)} in the run, "
            "so the order of the calls around it differs"
        )
    if kind == "position":
        return f"{tool} runs {_within(old)} in the baseline and {_within(new)} in the run"
    if kind == "status":
        return f"{tool} fails in the {'run' if new.failed else 'baseline'} only"
    return f"the arguments of {tool} differ"


def _grouping(ref: CallRef) -> str:
    return "in a parallel step" if ref.parallel else "in a step of its own"


def _within(ref: CallRef) -> str:
    if not ref.within:
        return "outside any tool call"
    return "inside " + " › ".join(printable(name) for name in ref.within)


def pair_text(pair: CallPair) -> str:
    """One aligned pair and its changes: `issue_refund (baseline step 2, span …; run step 3,
    span …): reordered; /amount changed: 42.5 → 50`."""
    old, new = pair.baseline, pair.run
    where = (
        f"{tool_name(old)} (baseline step {old.step}, span {printable(old.span)}; "
        f"run step {new.step}, span {printable(new.span)})"
    )
    parts: list[str] = []
    for change in pair.changes:
        if change == "arguments":
            parts.extend(argument_text(argument) for argument in pair.arguments)
        elif change == "reordered":
            parts.append("reordered")
        else:
            parts.append(_pair_words(change, old, new))
    if pair.arguments_unknown is not None:
        parts.append(f"arguments cannot be compared: {pair.arguments_unknown}")
    return f"{where}: {'; '.join(parts)}"


def argument_text(change: ArgumentChange) -> str:
    """`/amount changed: 42.5 → 50`, or with the types alone: `/card changed (string, not
    shown)`, `/note added (string)`."""
    pointer = printable(change.pointer or "(the whole arguments)")
    if change.change == "changed":
        if change.shown:
            return (
                f"{pointer} changed: {_value(change.baseline_value)} → {_value(change.run_value)}"
            )
        types = (
            change.baseline_type
            if change.baseline_type == change.run_type
            else f"{change.baseline_type} → {change.run_type}"
        )
        return f"{pointer} changed ({types}, not shown)"
    kind = change.run_type if change.change == "added" else change.baseline_type
    value = change.run_value if change.change == "added" else change.baseline_value
    shown = f": {_value(value)}" if change.shown else ""
    return f"{pointer} {change.change} ({kind}){shown}"


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return shorten(printable(text), _VALUE_LIMIT)


def model_text(use: ModelUse) -> str:
    model = printable(use.model)
    if use.run_calls == 0:
        return f"{model}: only the baseline calls it ({_count(use.baseline_calls, 'call')})"
    if use.baseline_calls == 0:
        return f"{model}: only the run calls it ({_count(use.run_calls, 'call')})"
    return f"{model}: {use.baseline_calls} → {use.run_calls} calls"


def quantity_text(quantity: Quantity) -> str:
    """`tokens: 1550 → 2179 (+629, +40.6%): over the tolerance of 10%`."""
    name = "tokens" if quantity.name == "tokens" else "duration"
    if quantity.status in ("unknown", "unrecorded"):
        verdict = "cannot be compared" if quantity.status == "unknown" else "not recorded"
        return f"{name}: {verdict}: {printable(quantity.reason or '')}"
    before, after = _amount(quantity, quantity.baseline), _amount(quantity, quantity.run)
    delta = quantity.delta or 0
    relative = quantity.relative
    share = f", {'+' if relative >= 0 else '−'}{abs(relative):.1%}" if relative is not None else ""
    change = f"{_signed(quantity, delta)}{share}"
    if quantity.status == "off":
        return f"{name}: {before} → {after} ({change}); not compared"
    verdict = "within" if quantity.status == "within" else "over"
    return f"{name}: {before} → {after} ({change}): {verdict} the tolerance of {quantity.tolerance}"


def _amount(quantity: Quantity, value: int | float | None) -> str:
    if value is None:
        return "?"
    if quantity.name == "duration_ms":
        return f"{value:.1f} ms" if value < 10_000 else f"{value / 1000:.2f} s"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _signed(quantity: Quantity, delta: int | float) -> str:
    sign = "+" if delta >= 0 else "−"
    return sign + _amount(quantity, abs(delta))


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def headline(diff: RunDiff) -> str:
    """What the diff found, in one line."""
    parts = []
    counts = [
        (len(diff.added), "added"),
        (len(diff.missing), "missing"),
        (sum(pair.gated for pair in diff.pairs), "changed"),
    ]
    shown = [f"{_count(count, 'call')} {word}" for count, word in counts if count]
    if shown:
        parts.append(", ".join(shown))
    parts.extend(f"{q.name.removesuffix('_ms')} over the tolerance" for q in diff.over_tolerance)
    if diff.model_changes:
        parts.append(f"{_count(len(diff.model_changes), 'model')} used by one run only")
    if diff.problems:
        parts.append(f"{_count(len(diff.problems), 'problem')}: the diff cannot vouch for it")
    return "; ".join(parts) if parts else "the same path"
