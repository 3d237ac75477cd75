"""`explain`: one line per compiled rule, in compile order (contracts.md §7.3).

```
Contract "refund-desk" — Answer refund questions from the orders file without a shell
Scope: the span matching kind=AGENT,name=refund and its descendants
Every rule must pass:
  - tools.required[Read]: some span matches kind=TOOL,tool=Read
And at least one alternative must pass completely:
  - cache-hit/tools.required[cache_lookup]: some span matches kind=TOOL,tool=cache_lookup
```

An alternative's rules are labelled `<id>/<label>`, as they are reported (§2.1).
"""

from __future__ import annotations

from collections.abc import Iterable

from tracecheck.contract.load import ContractSource
from tracecheck.contract.model import Contract, compile_contract
from tracecheck.rules.base import Rule

__all__ = ["explain_contract"]


def explain_contract(contract: Contract | ContractSource) -> str:
    """The contract in words; a source that is not yet compiled is compiled first."""
    if not isinstance(contract, Contract):
        contract = compile_contract(contract)
    header = f'Contract "{contract.name}"'
    if contract.description:
        header += f" — {contract.description}"
    lines = [header]
    if contract.scope is not None:
        lines.append(f"Scope: the span matching {contract.scope.describe()} and its descendants")
    if contract.capture == "lenient":
        lines.append(
            "Capture: lenient (rules about tools and models are judged even when the trace "
            "gives reason to doubt that every call was recorded; a note says why)"
        )
    if contract.rules:
        lines.append("Every rule must pass:")
        lines += _rule_lines(contract.rules)
    if contract.alternatives:
        lines.append("And at least one alternative must pass completely:")
        for alternative in contract.alternatives:
            lines += _rule_lines(alternative.rules, f"{alternative.id}/")
    return "\n".join(lines)


def _rule_lines(rules: Iterable[Rule], prefix: str = "") -> list[str]:
    return [f"  - {prefix}{rule.label}: {rule.describe()}" for rule in rules]
