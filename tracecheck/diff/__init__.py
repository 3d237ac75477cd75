"""Golden-run diff: how a run differs from a baseline run of the same agent, step by step.

```python
from tracecheck import read_traces
from tracecheck.diff import diff_runs, Tolerances, parse_tolerance

golden, = read_traces("goldens/refund.otlp.json")
run, = read_traces("runs/latest.otlp.jsonl")
diff = diff_runs(golden, run, tolerances=Tolerances(tokens=parse_tolerance("5%", "tokens")))
diff.status              # "same" | "different" | "error"
diff.first_divergence    # Divergence(kind, baseline_step, run_step, baseline, run) or None
diff.added, diff.missing, diff.with_change("reordered"), diff.model_changes, diff.tokens
```

Both runs are read as `check` reads a trace: calls recorded by two instrumentations merged
into one, the doubts of the reading kept (`problems`). Their tool calls are grouped into
steps (tracecheck.rules.steps) and aligned by tool, position in the tree and arguments
(tracecheck.diff.align); docs/diff.md says what each finding means and which ones count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracecheck.lazy import lazy_names

if TYPE_CHECKING:
    from tracecheck.diff.model import (
        ArgumentChange,
        ArgumentMatch,
        CallPair,
        CallRef,
        DiffStatus,
        Divergence,
        ModelUse,
        Quantity,
        RunDiff,
        RunSummary,
    )
    from tracecheck.diff.runs import diff_runs
    from tracecheck.diff.tolerance import (
        DEFAULT_DURATION_TOLERANCE,
        DEFAULT_TOKENS_TOLERANCE,
        Tolerance,
        ToleranceError,
        Tolerances,
        parse_tolerance,
    )

__all__ = [
    "DEFAULT_DURATION_TOLERANCE",
    "DEFAULT_TOKENS_TOLERANCE",
    "ArgumentChange",
    "ArgumentMatch",
    "CallPair",
    "CallRef",
    "DiffStatus",
    "Divergence",
    "ModelUse",
    "Quantity",
    "RunDiff",
    "RunSummary",
    "Tolerance",
    "ToleranceError",
    "Tolerances",
    "diff_runs",
    "parse_tolerance",
]

# The module each public name is imported from, on first use: the command line's option types
# read `tracecheck.diff.tolerance` without loading the readers and the alignment.
_HOMES = {
    **dict.fromkeys(
        (
            "ArgumentChange",
            "ArgumentMatch",
            "CallPair",
            "CallRef",
            "DiffStatus",
            "Divergence",
            "ModelUse",
            "Quantity",
            "RunDiff",
            "RunSummary",
        ),
        "tracecheck.diff.model",
    ),
    "diff_runs": "tracecheck.diff.runs",
    **dict.fromkeys(
        (
            "DEFAULT_DURATION_TOLERANCE",
            "DEFAULT_TOKENS_TOLERANCE",
            "Tolerance",
            "ToleranceError",
            "Tolerances",
            "parse_tolerance",
        ),
        "tracecheck.diff.tolerance",
    ),
}

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
