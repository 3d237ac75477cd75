"""The flat public API: every name in __all__ exists, and nothing else is advertised."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "tracecheck",
        "redact",
        "tracecheck.readers",
        "tracecheck.spans",
        "tracecheck.errors",
        "tracecheck.cli",
        "tracecheck.report",
        "tracecheck.report.safe",
        "tracecheck.testing",
        "tracecheck.testing.plugin",
        "tracecheck.show",
        "tracecheck.fleet",
        "redact.shipping",
        "redact.shipping.signals",
    ],
)
def test_all_names_exist(module: str) -> None:
    imported = importlib.import_module(module)
    assert sorted(set(imported.__all__)) == sorted(imported.__all__)
    for name in imported.__all__:
        assert hasattr(imported, name), f"{module}.{name}"


def test_tracecheck_exports_the_reading_api() -> None:
    import tracecheck

    for name in ("read_traces", "iter_spans", "spans_from_otel", "Span", "Trace", "TraceReadError"):
        assert name in tracecheck.__all__


def test_tracecheck_exports_the_design_api() -> None:
    """The names DESIGN.md promises under "Public API"."""
    import redact
    import tracecheck

    for name in (
        "read_traces",
        "compile_contract",
        "check",
        "check_all",
        "lint_contract",
        "explain_contract",
        "ContractError",
        "AmbiguousFormatError",
        "Verdict",
        "RuleResult",
        "Violation",
        "LintFinding",
    ):
        assert name in tracecheck.__all__, name
    for name in (
        "redact",
        "redact_text",
        "assess",
        "redact_for_share",
        "share_allowed",
        "classify_key",
        "redact_spans",
        "assess_spans",
    ):
        assert name in redact.__all__, name


def test_exit_codes_are_stable() -> None:
    from tracecheck.cli import ExitCode

    assert [(code.name, int(code)) for code in ExitCode] == [
        ("OK", 0),
        ("FAILED", 1),
        ("USAGE", 2),
        ("UNREADABLE", 3),
        ("AMBIGUOUS", 4),
    ]


def test_importing_the_shipping_wing_loads_no_server() -> None:
    """`redact.shipping`'s names load on first use: importing it costs no HTTP client or server."""
    import subprocess
    import sys

    code = (
        "import sys, redact.shipping; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('httpx', 'uvicorn')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_importing_the_fleet_loads_no_dask_or_arrow() -> None:
    """`tracecheck.fleet`'s names load on first use: `tracecheck --help` and the library pay
    nothing for Dask, pyarrow or fsspec until a fleet is checked."""
    import subprocess
    import sys

    code = (
        "import sys, tracecheck.fleet, tracecheck.cli.app; "
        "print(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('dask', 'distributed', 'pyarrow', 'fsspec')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
