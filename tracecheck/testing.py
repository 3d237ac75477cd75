"""Asserting a contract in a test: a failure that reads like a good pytest failure.

`assert_contract` needs no pytest; the pytest plugin (`tracecheck.pytest_plugin`) re-exports it
and adds a span-capturing fixture and a `trace_contract` marker around it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from tracecheck.check import check
from tracecheck.contract import Contract, compile_contract
from tracecheck.spans import Span, Trace
from tracecheck.verdict import RuleResult, Verdict

__all__ = ["MAX_VIOLATIONS_SHOWN", "ContractInput", "assert_contract", "failure_message"]

MAX_VIOLATIONS_SHOWN = 5

ContractInput = Contract | str | os.PathLike[str] | Mapping[str, Any]


def assert_contract(spans_or_trace: Trace | Iterable[Span], contract: ContractInput) -> Verdict:
    """Check spans (or a trace) against a contract; raise `AssertionError` unless it passes.

    `contract` is a compiled `Contract`, a path, JSON or YAML text, or a parsed document; a
    malformed one raises `ContractError`. The message names rules, span ids and details, and
    never an attribute value. An empty list of spans fails: nothing checked is no evidence.
    Returns the passing verdict.
    """
    __tracebackhide__ = True
    compiled = contract if isinstance(contract, Contract) else compile_contract(contract)
    subject = spans_or_trace if isinstance(spans_or_trace, Trace) else list(spans_or_trace)
    verdict = check(subject, compiled)
    if isinstance(subject, list) and not subject:  # nothing to check must not pass
        raise AssertionError(
            f'trace contract "{compiled.name}" could not be checked: no spans were given\n'
            + _hint(compiled.source)
        )
    if not verdict.ok:
        raise AssertionError(failure_message(verdict, compiled.source))
    return verdict


def failure_message(
    verdict: Verdict, contract_path: str | None = None, *, span_count: int | None = None
) -> str:
    """Summary line, one bullet per failed or errored rule, then a hint.

    `contract_path` (the file as the user named it) goes into the hint; `span_count` of zero
    adds a line saying that nothing was captured (and makes a passing verdict a failure).
    """
    considered = [r for r in verdict.rules if r.status != "skipped"]
    bad = [r for r in considered if r.status in ("fail", "error")]
    if verdict.ok and span_count == 0:  # a vacuous pass: report the missing capture alone
        return "\n".join(
            [
                f'trace contract "{verdict.contract}" could not be checked: no spans were captured',
                "pass the fixture's provider or tracer to the code under test",
                _hint(contract_path),
            ]
        )
    errored = sum(r.status == "error" for r in bad)
    outcome = "failed" if verdict.status == "fail" else "could not be checked"
    summary = (
        f'trace contract "{verdict.contract}" {outcome}: {len(bad)} of {len(considered)} rules'
    )
    if errored:
        summary += f" ({errored} could not be evaluated)"
    lines = [summary]
    for result in bad:
        lines.extend(_bullet(result))
    if span_count == 0:
        lines.append(
            "no spans were captured: pass the fixture's provider or tracer to the code under test"
        )
    lines.append(_hint(contract_path))
    return "\n".join(lines)


def _bullet(result: RuleResult) -> list[str]:
    if result.status == "error":
        return [f"  - {result.label}: could not be evaluated: {result.error}"]
    violations = result.violations
    if len(violations) == 1:
        return [f"  - {result.label}: {_located(violations[0].span_id, violations[0].detail)}"]
    lines = [f"  - {result.label}: {len(violations)} violations"]
    shown = violations[:MAX_VIOLATIONS_SHOWN]
    lines.extend(f"      {_located(v.span_id, v.detail)}" for v in shown)
    if len(violations) > len(shown):
        lines.append(f"      … and {len(violations) - len(shown)} more")
    return lines


def _located(span_id: str | None, detail: str) -> str:
    """The detail, led by its span id unless the detail already names it."""
    if span_id is None or span_id in detail:
        return detail
    return f"span {span_id}: {detail}"


def _hint(contract_path: str | None) -> str:
    if contract_path:
        return f"hint: run `tracecheck explain {contract_path}` to see what each rule requires"
    return "hint: print(tracecheck.explain_contract(contract)) shows what each rule requires"
