"""tracecheck: prove which path an AI agent took, from its OpenTelemetry traces.

The public names are imported on first use: `import tracecheck.testing.plugin`, which pytest
does in every run of an environment where tracecheck is installed, then costs nothing until a
test asks for the plugin's fixture or marker.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from tracecheck.lazy import lazy_names

if TYPE_CHECKING:
    from tracecheck.check import check, check_all
    from tracecheck.contract import (
        Contract,
        LintFinding,
        Prices,
        compile_contract,
        explain_contract,
        lint_contract,
        load_prices,
    )
    from tracecheck.errors import (
        AmbiguousFormatError,
        ContractError,
        ContractProblem,
        TraceReadError,
        UnrecognizedFormatError,
    )
    from tracecheck.readers import detect_format, iter_spans, read_traces, spans_from_otel
    from tracecheck.spans import (
        Event,
        Kind,
        Link,
        OfferedTools,
        ReadNote,
        RunRecord,
        Scope,
        Span,
        TokenUsage,
        ToolArguments,
        Trace,
    )
    from tracecheck.verdict import RuleResult, Verdict, Violation

__all__ = [
    "AmbiguousFormatError",
    "Contract",
    "ContractError",
    "ContractProblem",
    "Event",
    "Kind",
    "Link",
    "LintFinding",
    "OfferedTools",
    "Prices",
    "ReadNote",
    "RuleResult",
    "RunRecord",
    "Scope",
    "Span",
    "TokenUsage",
    "ToolArguments",
    "Trace",
    "TraceReadError",
    "UnrecognizedFormatError",
    "Verdict",
    "Violation",
    "check",
    "check_all",
    "compile_contract",
    "detect_format",
    "explain_contract",
    "iter_spans",
    "lint_contract",
    "load_prices",
    "read_traces",
    "spans_from_otel",
]

# The module each public name is imported from.
_HOMES = {
    **dict.fromkeys(("check", "check_all"), "tracecheck.check"),
    **dict.fromkeys(
        (
            "Contract",
            "LintFinding",
            "Prices",
            "compile_contract",
            "explain_contract",
            "lint_contract",
            "load_prices",
        ),
        "tracecheck.contract",
    ),
    **dict.fromkeys(
        (
            "AmbiguousFormatError",
            "ContractError",
            "ContractProblem",
            "TraceReadError",
            "UnrecognizedFormatError",
        ),
        "tracecheck.errors",
    ),
    **dict.fromkeys(
        ("detect_format", "iter_spans", "read_traces", "spans_from_otel"), "tracecheck.readers"
    ),
    **dict.fromkeys(
        (
            "Event",
            "Kind",
            "Link",
            "OfferedTools",
            "ReadNote",
            "RunRecord",
            "Scope",
            "Span",
            "TokenUsage",
            "ToolArguments",
            "Trace",
        ),
        "tracecheck.spans",
    ),
    **dict.fromkeys(("RuleResult", "Verdict", "Violation"), "tracecheck.verdict"),
}


__getattr__, __dir__ = lazy_names(__name__, _HOMES)


class _Package(types.ModuleType):
    """Importing the submodule `tracecheck.check` binds it on the package under `check`, the
    name of the public function: a public name is never rebound to a module."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _HOMES and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
