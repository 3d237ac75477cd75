"""tracecheck: prove which path an AI agent took, from its OpenTelemetry traces."""

from __future__ import annotations

from tracecheck.check import check, check_all
from tracecheck.contract import (
    Contract,
    LintFinding,
    compile_contract,
    explain_contract,
    lint_contract,
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
    "read_traces",
    "spans_from_otel",
]
