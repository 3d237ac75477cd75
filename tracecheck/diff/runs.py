"""`diff_runs`: two runs' tool calls aligned, every difference found, and whether the diff can
vouch for what it found (see tracecheck.diff for the whole picture)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from tracecheck.diff.align import Alignment, align_calls
from tracecheck.diff.arguments import Difference, described, differences
from tracecheck.diff.calls import Call, RunCalls, read_calls
from tracecheck.diff.model import (
    GATED_PAIR_CHANGES,
    ArgumentChange,
    ArgumentMatch,
    CallPair,
    CallRef,
    Divergence,
    DivergenceKind,
    PairChange,
    RunDiff,
)
from tracecheck.diff.tolerance import Tolerances
from tracecheck.diff.totals import (
    compared,
    model_uses,
    run_duration_ms,
    run_tokens,
    unnamed_models,
)
from tracecheck.readers.common import collector_paused
from tracecheck.rules.capture import CaptureMode
from tracecheck.rules.pointers import parse_pointer, pointer_of
from tracecheck.rules.predicates import RuleError
from tracecheck.spans import Span, Trace
from tracecheck.unquoted import without_credentials

__all__ = ["argument_match", "diff_runs"]

Run = Trace | Sequence[Span]
MatchArguments = (
    ArgumentMatch
    | Literal["ignore", "exact"]
    | Mapping[str, Literal["ignore", "exact"] | Sequence[str]]
)

NO_CAPTURE = (
    "neither run records a tool call or the tools offered to the model, so tool capture "
    "cannot be confirmed"
)
_SHOWN = 3  # calls named in a problem; the rest are counted
# The order in which a pair's changes are named as its divergence.
_PAIR_ORDER: tuple[PairChange, ...] = ("regrouped", "position", "status", "arguments")


def diff_runs(
    baseline: Run,
    run: Run,
    *,
    tolerances: Tolerances | None = None,
    match_arguments: MatchArguments = "ignore",
    capture: CaptureMode | None = None,
) -> RunDiff:
    """The difference between a baseline run and another run of the same agent.

    Each run is a `Trace` or its spans. Their tool calls are aligned (tracecheck.diff.align);
    the diff names the first divergence, the calls added, missing, reordered, regrouped, moved
    in the tree or failing in one run only, the arguments that differ (as JSON Pointers), the
    models one run uses and the other does not, and the tokens and duration of each run
    against `tolerances` (default: tokens 10%, duration 50% or 1 s, whichever allows more).
    Argument changes count as a divergence where `match_arguments` asks (default: never).

    When a run gives reason to doubt that every call was recognised, the diff cannot vouch
    that the runs are the same: its `problems` say why and its status is `error`, unless
    `capture="lenient"`.
    """
    limits = tolerances if tolerances is not None else Tolerances()
    match = argument_match(match_arguments)
    with collector_paused():
        before, after = read_calls(baseline), read_calls(run)
        alignment = align_calls(before.calls, after.calls)
        pairs = _pairs(alignment, match)
    base, again = before.subject, after.subject
    problems = _capture_problems(before, after, capture == "lenient")
    problems += _order_problems(before, after)
    unknown = [pair for pair in pairs.values() if pair.arguments_unknown is not None]
    if unknown:
        problems.append(_unknown_arguments(unknown))
    for label, subject in (("baseline", base), ("run", again)):
        unnamed = unnamed_models(subject)
        if unnamed:
            problems.append(f"{label}: {unnamed}")
    tokens = compared("tokens", run_tokens(base), run_tokens(again), limits.tokens)
    duration = compared(
        "duration_ms", run_duration_ms(base), run_duration_ms(again), limits.duration
    )
    for total in (tokens, duration):
        if total.status == "unknown":
            what = "tokens" if total.name == "tokens" else "the duration"
            problems.append(f"{what} cannot be compared: {total.reason}")
    return RunDiff(
        baseline=before.summary,
        run=after.summary,
        pairs=tuple(pairs.values()),
        added=tuple(alignment.run[j].ref for j in alignment.added),
        missing=tuple(alignment.baseline[i].ref for i in alignment.missing),
        models=model_uses(base, again),
        tokens=tokens,
        duration=duration,
        first_divergence=_first_divergence(alignment, pairs),
        match_arguments=match,
        lenient_capture=capture == "lenient",
        problems=tuple(without_credentials(problem) for problem in problems),
        notes=_notes(baseline, before, run, after),
    )


def argument_match(match: MatchArguments) -> ArgumentMatch:
    """`match` as an `ArgumentMatch`, checked: a mode is `ignore` or `exact`, a tool's entry
    a mode or JSON Pointers (`""` is the whole arguments). `ValueError` names a mode that is
    neither, `RuleError` a pointer that is not RFC 6901."""
    if isinstance(match, str):
        return ArgumentMatch(_mode(match))
    default: Literal["ignore", "exact"] = "ignore"
    entries: Mapping[str, Any]
    if isinstance(match, ArgumentMatch):
        default, entries = _mode(match.default), match.tools
    else:
        entries = match
    tools: dict[str, Literal["ignore", "exact"] | tuple[str, ...]] = {}
    for tool, how in entries.items():
        if how == "ignore" or how == "exact":
            tools[tool] = how
        elif isinstance(how, str):
            raise ValueError(f"{tool}: {how!r} is not ignore, exact or JSON Pointers")
        else:
            for pointer in how:
                parse_pointer(pointer)  # RuleError names a pointer that is not RFC 6901
            tools[tool] = tuple(how)
    return ArgumentMatch(default, tools)


def _mode(mode: str) -> Literal["ignore", "exact"]:
    if mode == "ignore":
        return "ignore"
    if mode == "exact":
        return "exact"
    raise ValueError(f"{mode!r} is not ignore or exact")


# --- pairs ---------------------------------------------------------------------------------


def _pairs(alignment: Alignment, match: ArgumentMatch) -> dict[int, CallPair]:
    """Every aligned pair with its changes, by the baseline call's index, in its order."""
    base, run = alignment.baseline, alignment.run
    moved = set(alignment.moved)
    everything = sorted([*alignment.kept, *alignment.moved])
    regrouped = _regrouped(base, run, everything)
    found = [_differences(base[i], run[j]) for i, j in everything]
    changes = described(found)
    # Matched as recorded: a shown pointer may have a credential in a key replaced.
    pointers = [tuple(pointer_of(d.path) for d in differences) for _, _, differences in found]
    return {
        i: _pair(base[i], run[j], (i, j) in moved, (i, j) in regrouped, match, arguments, where)
        for (i, j), arguments, where in zip(everything, changes, pointers, strict=True)
    }


def _differences(old: Call, new: Call) -> tuple[Any, Any, list[Difference]]:
    """Both calls' arguments and where they differ (nowhere when either is unknown)."""
    before, after = old.span.arguments, new.span.arguments
    if not (before.known and after.known) or old.exact[:3] == new.exact[:3]:
        return None, None, []
    return before.value, after.value, differences(before.value, after.value)


def _pair(
    old: Call,
    new: Call,
    moved: bool,
    regrouped: bool,
    match: ArgumentMatch,
    arguments: tuple[ArgumentChange, ...],
    pointers: tuple[str, ...],
) -> CallPair:
    changes: list[PairChange] = []
    if moved:
        changes.append("reordered")
    if regrouped:
        changes.append("regrouped")
    if old.ref.within != new.ref.within:
        changes.append("position")
    if old.ref.failed != new.ref.failed:
        changes.append("status")
    how = match.of(old.tool)
    unknown = None
    before, after = old.span.arguments, new.span.arguments
    if how != "ignore" and not (before.known and after.known):
        side = "neither call" if not (before.known or after.known) else "one call"
        unknown = f"{side} records its arguments"
    arguments = tuple(
        replace(change, counted=True) if _gates(how, pointer) else change
        for change, pointer in zip(arguments, pointers, strict=True)
    )
    if arguments:
        changes.append("arguments")
    counted = any(change.counted for change in arguments)
    gated = bool(GATED_PAIR_CHANGES.intersection(changes) or counted or unknown)
    return CallPair(old.ref, new.ref, tuple(changes), arguments, unknown, gated)


def _gates(how: Literal["ignore", "exact"] | tuple[str, ...], pointer: str) -> bool:
    if how == "ignore":
        return False
    if how == "exact":
        return True
    try:
        changed = parse_pointer(pointer)
    except RuleError:
        return True
    for wanted in how:
        tokens = parse_pointer(wanted)
        shorter = min(len(tokens), len(changed))
        if tokens[:shorter] == changed[:shorter]:
            return True
    return False


def _regrouped(
    base: tuple[Call, ...], run: tuple[Call, ...], pairs: list[tuple[int, int]]
) -> set[tuple[int, int]]:
    """The pairs whose step holds other aligned calls in one run than in the other (calls run
    in parallel in one run and one by one in the other): a baseline step's pairs must all be
    in one run step, holding as many pairs."""
    by_base: dict[int, list[tuple[int, int]]] = {}
    in_run: dict[int, int] = {}
    for i, j in pairs:
        by_base.setdefault(base[i].step, []).append((i, j))
        in_run[run[j].step] = in_run.get(run[j].step, 0) + 1
    regrouped: set[tuple[int, int]] = set()
    for members in by_base.values():
        steps = {run[j].step for _, j in members}
        if len(steps) > 1 or in_run[next(iter(steps))] != len(members):
            regrouped.update(members)
    return regrouped


def _first_divergence(alignment: Alignment, pairs: dict[int, CallPair]) -> Divergence | None:
    """Walking both runs along their shared backbone: the first stretch where one run has a
    call the other does not (missing, added, or reordered there), or the first aligned pair
    with a change that counts."""
    base, run = alignment.baseline, alignment.run
    moved_base = {i for i, _ in alignment.moved}
    moved_run = {j for _, j in alignment.moved}
    before_i = before_j = -1
    for i, j in [*alignment.kept, (len(base), len(run))]:
        left, right = range(before_i + 1, i), range(before_j + 1, j)
        if left or right:
            old = base[left[0]].ref if left else base[i].ref if i < len(base) else None
            new = run[right[0]].ref if right else run[j].ref if j < len(run) else None
            if left:
                kind: DivergenceKind = "reordered" if left[0] in moved_base else "missing"
                return _divergence(kind, old, new, "baseline")
            kind = "reordered" if right[0] in moved_run else "added"
            return _divergence(kind, old, new, "run")
        if i < len(base):
            pair = pairs[i]
            if pair.gated:
                changed: DivergenceKind = next(
                    (c for c in _PAIR_ORDER if c in pair.changes), "arguments"
                )
                return _divergence(changed, pair.baseline, pair.run, "both")
        before_i, before_j = i, j
    return None


def _divergence(
    kind: DivergenceKind,
    old: CallRef | None,
    new: CallRef | None,
    side: Literal["baseline", "run", "both"],
) -> Divergence:
    steps = (old.step if old is not None else None, new.step if new is not None else None)
    return Divergence(kind, *steps, old, new, side)


def _unknown_arguments(pairs: list[CallPair]) -> str:
    named = "; ".join(
        f"span {pair.run.span} ({pair.run.tool}): {pair.arguments_unknown}"
        for pair in pairs[:_SHOWN]
    )
    more = f"; and {len(pairs) - _SHOWN} more" if len(pairs) > _SHOWN else ""
    count = len(pairs)
    calls = "call's arguments are" if count == 1 else "calls' arguments are"
    return f"{count} {calls} matched but cannot be compared: {named}{more}"


# --- what reading the runs leaves in doubt ---------------------------------------------------


def _capture_problems(before: RunCalls, after: RunCalls, lenient: bool) -> list[str]:
    """Why the diff cannot vouch for its runs: calls in doubt (unless lenient), calls evidently
    not recorded (lenient or not), no sign that tool calls are recorded at all."""
    problems: list[str] = []
    for label, calls in (("baseline", before), ("run", after)):
        reading = calls.reading
        reasons = [reading.tools_not_recorded, reading.models_not_recorded]
        if not lenient:
            reasons += [reading.tools_in_doubt, reading.models_in_doubt]
        for reason in dict.fromkeys(reason for reason in reasons if reason):
            problems.append(f"{label}: {reason}")
    if not lenient and not any(map(_records_tools, (before, after))):
        problems.append(NO_CAPTURE)
    return problems


def _order_problems(before: RunCalls, after: RunCalls) -> list[str]:
    """A run of more than one tool call where a call has no start time: its order is unknown
    (the check's trajectory cannot be evaluated on it either)."""
    problems: list[str] = []
    for label, calls in (("baseline", before), ("run", after)):
        untimed = [call.ref for call in calls.calls if not call.ref.placed]
        if untimed and len(calls.calls) > 1:
            count = len(untimed)
            named = ", ".join(f"span {ref.span}" for ref in untimed[:_SHOWN])
            more = f" and {count - _SHOWN} more" if count > _SHOWN else ""
            calls_have = "tool call has" if count == 1 else "tool calls have"
            problems.append(
                f"{label}: {count} {calls_have} no start time ({named}{more}), so the order "
                "of its tool calls is unknown"
            )
    return problems


def _records_tools(calls: RunCalls) -> bool:
    subject = calls.subject
    return bool(calls.calls) or any(span.offered_tools is not None for span in subject.spans)


def _notes(baseline: Run, before: RunCalls, run: Run, after: RunCalls) -> tuple[str, ...]:
    notes: list[str] = []
    for label, given, calls in (("baseline", baseline, before), ("run", run, after)):
        read = [str(note) for note in given.notes] if isinstance(given, Trace) else []
        notes.extend(f"{label}: {note}" for note in (*read, *calls.reading.notes))
    return tuple(without_credentials(note) for note in notes)
