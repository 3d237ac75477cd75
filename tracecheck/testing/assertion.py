"""Asserting a contract in a test: a failure that reads like a good pytest failure.

`assert_contract` needs no pytest; the pytest plugin (`tracecheck.testing.plugin`) re-exports it
and adds a span-capturing fixture and a `trace_contract` marker around it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tracecheck.check import check
from tracecheck.contract import Contract, compile_contract
from tracecheck.contract.prices import PricesSource, load_prices, priced
from tracecheck.report.safe import printable
from tracecheck.rules.base import Rule
from tracecheck.rules.capture import CaptureMode
from tracecheck.spans import Span, Trace
from tracecheck.testing.words import phrases
from tracecheck.verdict import RuleResult, Verdict

__all__ = [
    "MAX_VIOLATIONS_SHOWN",
    "ContractInput",
    "assert_contract",
    "failure_message",
    "first_problem",
    "no_spans_message",
]

MAX_VIOLATIONS_SHOWN = 5
MAX_NOTES_SHOWN = 5

ContractInput = Contract | str | os.PathLike[str] | Mapping[str, Any]


def assert_contract(
    spans_or_trace: Trace | Iterable[Span],
    contract: ContractInput,
    *,
    capture: CaptureMode | None = None,
    prices: PricesSource | None = None,
) -> Verdict:
    """Check spans (or a trace) against a contract; raise `AssertionError` unless it passes.

    `contract` is a compiled `Contract`, a path, JSON or YAML text, or a parsed document; a
    malformed one raises `ContractError`. The message names rules, span ids and details, and
    never an attribute value. An empty list of spans fails: nothing checked is no evidence.
    A rule whose calls are in doubt fails too, unless `capture="lenient"` (see `check`).
    `prices` (a `Prices`, a price file or a mapping) replaces the contract's own prices.
    Returns the passing verdict.
    """
    __tracebackhide__ = True
    compiled = contract if isinstance(contract, Contract) else compile_contract(contract)
    if prices is not None:
        compiled = priced(compiled, load_prices(prices))
    subject = spans_or_trace if isinstance(spans_or_trace, Trace) else list(spans_or_trace)
    verdict = check(subject, compiled, capture=capture)
    if isinstance(subject, list) and not subject:  # nothing to check must not pass
        raise AssertionError(
            f'trace contract "{compiled.name}" could not be checked: no spans were given; '
            "pass the spans the code under test emitted, or a trace read from a file"
        )
    if not verdict.ok:
        spans = subject.spans if isinstance(subject, Trace) else subject
        raise AssertionError(
            failure_message(verdict, compiled.source, contract=compiled, spans=spans)
        )
    return verdict


def failure_message(
    verdict: Verdict,
    contract_path: str | None = None,
    *,
    span_count: int | None = None,
    contract: Contract | None = None,
    spans: Sequence[Span] | None = None,
    capture_notes: Sequence[str] = (),
) -> str:
    """Summary line, one bullet per failed or errored rule, notes, then a hint.

    With the compiled `contract` and the checked `spans`, a bullet reads in the contract's
    words (`tools.forbidden[run_shell]: run_shell was called (span …)`); without them, as the
    rule operator wrote it. `contract_path` (the file as the user named it) goes into the hint.
    The verdict's reading notes and `capture_notes` (what the capture knows it missed) follow
    the bullets, and a capture note makes even a passing verdict a failure. `span_count` of zero
    (or no `spans`) gives the one line of `no_spans_message` instead.
    """
    if span_count == 0 or (spans is not None and not spans):
        return no_spans_message(
            verdict.contract, "pass the fixture's provider or tracer to the code under test"
        )
    considered = [r for r in verdict.rules if r.status != "skipped"]
    bad = [r for r in considered if r.status in ("fail", "error")]
    errored = sum(r.status == "error" for r in bad)
    if verdict.status == "fail":
        summary = (
            f'trace contract "{verdict.contract}" failed: {len(bad)} of {len(considered)} rules'
        )
    elif verdict.status == "error":
        summary = (
            f'trace contract "{verdict.contract}" could not be checked: '
            f"{len(bad)} of {len(considered)} rules"
        )
    else:
        summary = (
            f'trace contract "{verdict.contract}" could not be checked: the capture is incomplete'
        )
    if errored:
        summary += f" ({errored} could not be evaluated)"
    lines = [summary]
    rules = _rules_by_label(contract) if contract is not None else {}
    for result in bad:
        lines.extend(_bullet(result, rules.get(result.label), spans))
    notes = [*capture_notes, *verdict.reading_notes]
    lines.extend(f"  note: {printable(note)}" for note in notes[:MAX_NOTES_SHOWN])
    if len(notes) > MAX_NOTES_SHOWN:
        lines.append(f"  … and {len(notes) - MAX_NOTES_SHOWN} more notes")
    lines.append(_hint(contract_path))
    return "\n".join(lines)


def first_problem(
    verdict: Verdict,
    *,
    contract: Contract | None = None,
    spans: Sequence[Span] | None = None,
    capture_notes: Sequence[str] = (),
) -> str:
    """What is wrong with a verdict that did not pass, in one line worded as `failure_message`
    words its bullets: the first broken rule and its first violation (`tools.forbidden[run_shell]:
    run_shell was called (span …)`), a rule that could not be evaluated, or the capture's first
    note. A repeated test names each failing run by it."""
    rules = _rules_by_label(contract) if contract is not None else {}
    for result in verdict.rules:
        if result.status == "error":
            return f"{result.label}: could not be evaluated: {result.error}"
        if result.status != "fail":
            continue
        said = _said(result, rules.get(result.label), spans)
        if not said:
            return f"{result.label}: failed"
        more = f" (and {len(said) - 1} more)" if len(said) > 1 else ""
        return f"{result.label}: {said[0]}{more}"
    notes = [*capture_notes, *verdict.reading_notes]
    if notes:
        return f"the capture is incomplete: {printable(notes[0])}"
    return f'trace contract "{verdict.contract}" did not pass'


def no_spans_message(contract_name: str, what_to_do: str) -> str:
    """The one line of a check that had nothing to check: what happened, and what to do."""
    return f'trace contract "{contract_name}" could not be checked: no spans were captured; {what_to_do}'


def _rules_by_label(contract: Contract) -> dict[str, Rule]:
    rules: dict[str, Rule] = {rule.label: rule for rule in contract.rules}
    for alternative in contract.alternatives:
        rules.update({f"{alternative.id}/{rule.label}": rule for rule in alternative.rules})
    return rules


def _bullet(result: RuleResult, rule: Rule | None, spans: Sequence[Span] | None) -> list[str]:
    if result.status == "error":
        return [f"  - {result.label}: could not be evaluated: {result.error}"]
    said = _said(result, rule, spans)
    if len(said) == 1:
        return [f"  - {result.label}: {said[0]}"]
    lines = [f"  - {result.label}: {len(said)} violations"]
    shown = said[:MAX_VIOLATIONS_SHOWN]
    lines.extend(f"      {phrase}" for phrase in shown)
    if len(said) > len(shown):
        lines.append(f"      … and {len(said) - len(shown)} more")
    return lines


def _said(result: RuleResult, rule: Rule | None, spans: Sequence[Span] | None) -> list[str]:
    """Each violation of a rule in the contract's words when the checked spans are at hand,
    else its detail led by its span id."""
    if spans is not None:
        return phrases(rule, result.violations, spans)
    return [_located(v.span_id, v.detail) for v in result.violations]


def _located(span_id: str | None, detail: str) -> str:
    """The detail, led by its span id unless the detail already names it."""
    if span_id is None or span_id in detail:
        return detail
    return f"span {span_id}: {detail}"


def _hint(contract_path: str | None) -> str:
    if contract_path:
        return f"hint: run `tracecheck explain {contract_path}` to see what each rule requires"
    return "hint: print(tracecheck.explain_contract(contract)) shows what each rule requires"
