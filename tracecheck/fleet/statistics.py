"""The repeated-run estimators under the name the fleet first gave them: they live in
`tracecheck.pass_rates`, beneath the fleet, so that the pytest plugin's repeated tests can use
them too (docs/architecture.md); this name keeps working for code written against it."""

from __future__ import annotations

from tracecheck.pass_rates import (
    Stability,
    fisher_exact,
    pass_at_k,
    pass_hat_k,
    stability,
    wilson_interval,
)

__all__ = [
    "Stability",
    "fisher_exact",
    "pass_at_k",
    "pass_hat_k",
    "stability",
    "wilson_interval",
]
