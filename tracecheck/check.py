"""Checking a trace against a contract: subject, run record, rules, alternatives (§4–6)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from tracecheck.bugs import internal_error
from tracecheck.contract.model import Alternative, Contract
from tracecheck.contract.prices import priced
from tracecheck.readers.common import collector_paused
from tracecheck.readers.duplicates import MergedCalls, merge_duplicate_calls
from tracecheck.reading import read_subject
from tracecheck.rules.base import Rule
from tracecheck.rules.capture import MODELS, TOOLS, CaptureMode, reads_calls
from tracecheck.rules.duration_doubt import unknown_durations
from tracecheck.rules.predicates import Predicate, RuleError
from tracecheck.rules.subject import Subject
from tracecheck.spans import RunRecord, Span, Trace
from tracecheck.unquoted import without_credentials
from tracecheck.verdict import RuleResult, Verdict, VerdictStatus, Violation

if TYPE_CHECKING:
    from tracecheck.rules.pricing import Prices

__all__ = ["check", "check_all", "check_guarded"]

NO_CAPTURE = (
    "the trace records no tool calls and no offered tools, so tool capture cannot be confirmed"
)


def check(
    trace: Trace | Iterable[Span],
    contract: Contract,
    *,
    run: RunRecord | None = None,
    capture: CaptureMode | None = None,
    prices: Prices | None = None,
) -> Verdict:
    """The verdict of one contract on one trace (or any spans), deterministic for its input.

    `run` stands in for the trace's run record when the contract is not scoped. A call that
    several instrumentations recorded is checked as one call. When the trace gives a reason to
    doubt that every tool or model call was recognised (a span that looks like a call no
    convention maps, a tool call that does not say which tool ran, model calls with no tool
    call recorded after they asked for tools), the rules that read those calls are could not be
    evaluated unless they already fail, and the reading notes say why. `capture="lenient"`
    (or the contract's own `capture: lenient`) judges them anyway, with the notes only;
    `capture="strict"` holds to the default even where a contract asks to be lenient.
    `prices` (`load_prices`) prices the cost rules instead of the contract's own `prices`.
    """
    # A large trace keeps millions of objects alive; the collector would walk them all again
    # and again while the check builds its indexes, and the check makes no reference cycles.
    with collector_paused():
        return _check(trace, priced(contract, prices), run, capture)


def check_guarded(
    check: Callable[..., Verdict],
    trace: Trace,
    contract: Contract,
    *,
    capture: CaptureMode | None = None,
) -> Verdict:
    """`check(trace, contract)`, or when it breaks (a bug in one rule) a verdict that says the
    contract could not be evaluated: one broken check must not hide the other verdicts."""
    try:
        return check(trace, contract, capture=capture)
    except Exception as exc:
        rule = RuleResult("(check)", None, "error", error=internal_error(exc))
        return Verdict(contract.name, trace.trace_id, "error", (rule,), 0.0, "0/1 rules passed")


def _check(
    trace: Trace | Iterable[Span],
    contract: Contract,
    run: RunRecord | None,
    capture: CaptureMode | None,
    merged: MergedCalls | None = None,
) -> Verdict:
    """The verdict; `merged` is the trace's calls merged already (once for many contracts)."""
    lenient = (capture or contract.capture) == "lenient"
    read = tuple(trace.spans if isinstance(trace, Trace) else trace)
    trace_id = trace.trace_id if isinstance(trace, Trace) else _trace_id(read)
    merged = merged or merge_duplicate_calls(read)
    spans = merged.spans
    if contract.scope is not None:
        roots = _matches(contract.scope, spans)
        if isinstance(roots, str) or len(roots) != 1:
            reason = roots if isinstance(roots, str) else _scope_problem(contract.scope, len(roots))
            return _all_errored(contract, trace_id, reason)
        subject = Subject(_subtree(roots[0], spans), roots[0].run_record)
    elif run is not None:
        subject = Subject(spans, run)
    else:
        subject = _whole_trace(spans)
    reading = read_subject(subject, merged.merges)
    if lenient:
        # One span standing for several model calls is no doubt: no count can be judged.
        blocked = {MODELS: reading.models_not_recorded}
    else:
        blocked = {TOOLS: reading.tools_in_doubt, MODELS: reading.models_in_doubt}
    missing = reading.tools_not_recorded
    base = tuple(_evaluate(rule, subject, None, blocked, missing) for rule in contract.rules)
    alternatives = [
        tuple(
            _evaluate(rule, subject, alternative.id, blocked, missing) for rule in alternative.rules
        )
        for alternative in contract.alternatives
    ]
    verdict = _verdict(contract, trace_id, base, alternatives)
    # What the reader noticed (a repeated span, an unknown record) bears on the verdict too.
    read_notes = tuple(str(note) for note in trace.notes) if isinstance(trace, Trace) else ()
    notes = tuple(map(without_credentials, (*read_notes, *reading.notes)))
    rules = tuple(map(_without_credentials, verdict.rules))
    return replace(verdict, rules=rules, reading_notes=notes, conventions=reading.conventions)


def _without_credentials(result: RuleResult) -> RuleResult:
    """The rule's outcome as reports may print it: a span or tool name it quotes holds no
    credential (names are the trace's words, and anyone may have pasted a key into one)."""
    violations = tuple(map(_violation_without_credentials, result.violations))
    error = result.error and without_credentials(result.error)
    if violations == result.violations and error == result.error:
        return result
    return replace(result, violations=violations, error=error)


def _violation_without_credentials(violation: Violation) -> Violation:
    detail = without_credentials(violation.detail)
    tool = violation.tool and without_credentials(violation.tool)
    if detail == violation.detail and tool == violation.tool:
        return violation
    return replace(violation, detail=detail, tool=tool)


def check_all(
    trace: Trace | Iterable[Span],
    contracts: Sequence[Contract],
    *,
    run: RunRecord | None = None,
    capture: CaptureMode | None = None,
    prices: Prices | None = None,
) -> list[Verdict]:
    """One verdict per contract, in order; the overall status is the worst of them."""
    if not contracts:
        raise ValueError("no contracts to check: an empty list would vacuously pass")
    target: Trace | tuple[Span, ...] = trace if isinstance(trace, Trace) else tuple(trace)
    with collector_paused():
        merged = merge_duplicate_calls(target.spans if isinstance(target, Trace) else target)
        return [
            _check(target, priced(contract, prices), run, capture, merged) for contract in contracts
        ]


def _evaluate(
    rule: Rule,
    subject: Subject,
    alternative: str | None,
    blocked: Mapping[str, str | None],
    tools_not_recorded: str | None = None,
) -> RuleResult:
    label = _reported(rule, alternative)
    kind = _kind(rule)
    if rule.needs_tool_capture and not _records_tool_capture(subject):
        return RuleResult(label, alternative, "error", error=NO_CAPTURE, kind=kind)
    try:
        # A pass that turns on a duration some span does not record fails at that span.
        violations = rule.evaluate(subject) or unknown_durations(rule, subject)
    except RuleError as exc:
        return RuleResult(label, alternative, "error", error=str(exc), kind=kind)
    if violations:  # a rule already broken stays broken, whatever else is in doubt
        return RuleResult(label, alternative, "fail", tuple(violations), kind=kind)
    doubt = _doubt(rule, blocked, tools_not_recorded)
    if doubt is not None:
        return RuleResult(label, alternative, "error", error=doubt, kind=kind)
    return RuleResult(label, alternative, "pass", kind=kind)


def _doubt(
    rule: Rule, blocked: Mapping[str, str | None], tools_not_recorded: str | None
) -> str | None:
    """Why a rule that found nothing wrong cannot pass: the calls it reads are in doubt."""
    for calls in sorted(reads_calls(rule)):
        reason = blocked.get(calls)
        if reason is not None:
            return reason
    return tools_not_recorded if rule.needs_tool_capture else None


def _kind(rule: Rule) -> str:
    """The rule's operator as reports name it: its class, lower camel case (`Never` is
    `never`, `AtMost` is `atMost`, `RunCheck` is `run`)."""
    name = type(rule).__name__.removesuffix("Check") or type(rule).__name__
    return name[:1].lower() + name[1:]


def _reported(rule: Rule, alternative: str | None) -> str:
    return f"{alternative}/{rule.label}" if alternative else rule.label


def _records_tool_capture(subject: Subject) -> bool:
    return bool(subject.tool_spans) or any(s.offered_tools is not None for s in subject.spans)


def _verdict(
    contract: Contract,
    trace_id: str | None,
    base: tuple[RuleResult, ...],
    alternatives: list[tuple[RuleResult, ...]],
) -> Verdict:
    base_status = _path_status(base)
    statuses = [_path_status(results) for results in alternatives]
    passed_alternative = "pass" in statuses
    status: VerdictStatus = base_status
    if alternatives and base_status == "pass" and not passed_alternative:
        status = "error" if "error" in statuses else "fail"
    results = list(base)
    for results_of_one, alternative_status in zip(alternatives, statuses, strict=True):
        if passed_alternative and alternative_status != "pass":
            results.extend(
                RuleResult(r.label, r.alternative, "skipped", kind=r.kind) for r in results_of_one
            )
        else:
            results.extend(results_of_one)
    total = len(base) + (1 if alternatives else 0)
    passed = sum(r.status == "pass" for r in base) + (1 if passed_alternative else 0)
    errored = sum(r.status == "error" for r in results)
    notes = f"{passed}/{total} rules passed"
    if errored:
        notes += f"; {errored} could not be evaluated"
    return Verdict(
        contract.name, trace_id, status, tuple(results), passed / total if total else 1.0, notes
    )


def _path_status(results: Sequence[RuleResult]) -> VerdictStatus:
    if any(r.status == "error" for r in results):
        return "error"
    return "pass" if all(r.status == "pass" for r in results) else "fail"


def _all_errored(contract: Contract, trace_id: str | None, reason: str) -> Verdict:
    results = [
        RuleResult(rule.label, None, "error", error=reason, kind=_kind(rule))
        for rule in contract.rules
    ]
    for alternative in contract.alternatives:
        results.extend(_errored(alternative, reason))
    total = len(contract.rules) + (1 if contract.alternatives else 0)
    notes = f"0/{total} rules passed; {len(results)} could not be evaluated"
    return Verdict(contract.name, trace_id, "error", tuple(results), 0.0, notes)


def _errored(alternative: Alternative, reason: str) -> list[RuleResult]:
    return [
        RuleResult(
            _reported(rule, alternative.id),
            alternative.id,
            "error",
            error=reason,
            kind=_kind(rule),
        )
        for rule in alternative.rules
    ]


def _matches(predicate: Predicate, spans: Sequence[Span]) -> list[Span] | str:
    try:
        return [span for span in spans if predicate.matches(span)]
    except RuleError as exc:
        return str(exc)


def _scope_problem(root: Predicate, count: int) -> str:
    return f"scope root {root.describe()} matched {count} spans; exactly one is required"


def _subtree(root: Span, spans: Sequence[Span]) -> list[Span]:
    """The root and all its descendants, in array order."""
    children: dict[str, list[Span]] = {}
    for span in spans:
        if span.parent_span_id:
            children.setdefault(span.parent_span_id, []).append(span)
    inside = {id(root)}
    stack = [root]
    while stack:
        for child in children.get(stack.pop().span_id or "", ()):
            if id(child) not in inside:
                inside.add(id(child))
                stack.append(child)
    return [span for span in spans if id(span) in inside]


def _whole_trace(spans: tuple[Span, ...]) -> Subject:
    roots = Trace(_trace_id(spans), spans).roots
    if len(roots) == 1:
        return Subject(spans, roots[0].run_record)
    if not roots:
        reason = "the trace has no root span and no run record was passed"
    else:
        reason = f"the trace has {len(roots)} root spans and no run record was passed"
    return Subject(spans, None, reason)


def _trace_id(spans: Sequence[Span]) -> str | None:
    return next((span.trace_id for span in spans if span.trace_id), None)
